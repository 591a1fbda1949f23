# SPDX-License-Identifier: MIT
# Test build and run rules; included from the top-level Makefile.
#   tests/host/host.mk    host tests (dontunmap and copy backends, natively)
#   tests/guest/guest.mk  guest test programs (static; run under QEMU)
#   tests/vm/vm.mk        the VM harness: rootfs, DKMS build, boot, results

include tests/host/host.mk
include tests/guest/guest.mk
include tests/vm/vm.mk

check: check-host check-guest
