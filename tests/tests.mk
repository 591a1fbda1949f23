# SPDX-License-Identifier: MIT
# Test build and run rules; included from the top-level Makefile.
#   tests/host/host.mk    host tests (dontunmap and copy backends, natively)
#   tests/guest/guest.mk  guest test programs (static; run under QEMU)
#   tests/stress/stress.mk  stress and fuzz programs (make stress)
#   tests/bench/bench.mk  benchmarks (make bench)
#   tests/vm/vm.mk        the VM harness: rootfs, DKMS build, boot, results
#   tests/vm/debug.mk     make check-debug: the suite on a KASAN/lockdep kernel
#   tests/clients/clients.mk  the allocators' own suites (make check-clients)
#   tests/pkg/pkg.mk      the Debian packages (make deb, make check-packages)

include tests/host/host.mk
include tests/guest/guest.mk
include tests/stress/stress.mk
include tests/bench/bench.mk
include tests/vm/vm.mk
include tests/vm/debug.mk
include tests/clients/clients.mk
include tests/pkg/pkg.mk

check: vm-deps check-host check-clients check-guest
