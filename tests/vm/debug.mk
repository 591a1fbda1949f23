# SPDX-License-Identifier: MIT
# The debug-kernel run; included from tests/tests.mk.  Not part of
# `make check`: the first run builds the kernel (measured: 16 min on two
# shared cores, 3.3 GB under ~/.cache/mremap_retain/debug-kernel/trixie;
# cached afterwards, a second check costs a hash), and the guest run takes
# about 5.5 min of QEMU time for the whole guest suite plus a 60 s stress
# run (the module against the tree: 7 s).
#
#   make check-debug
#       build (once) Debian trixie's linux-source with DEBUG_VM,
#       DEBUG_VM_MAPLE_TREE, PROVE_LOCKING, DEBUG_ATOMIC_SLEEP, DEBUG_LIST
#       and KASAN (tests/vm/mkdebugkernel), build the module against it
#       (tests/vm/debug-module), boot it and run the guest suite and the
#       stress program (tests/vm/check-debug); fails on any failed test and
#       on any KASAN, lockdep, DEBUG_VM or other report in the kernel log.
#   make debug-kernel
#       only build (or check) the cached debug kernel.
#
# The stress program runs when DEBUG_STRESS names it (default: the static
# program that tests/stress/stress.mk names STRESS_VM_PROG), with
# DEBUG_STRESS_ARGS (default STRESS_VM_ARGS).

DEBUG_STRESS      ?= $(STRESS_VM_PROG)
DEBUG_STRESS_ARGS ?= $(STRESS_VM_ARGS)

.PHONY: check-debug debug-kernel

debug-kernel: vm-deps
	$(VM_DIR)/mkdebugkernel

check-debug: vm-deps
	$(MAKE) --no-print-directory guest-tests $(DEBUG_STRESS)
	@mkdir -p $(BUILD)/check
	$(VM_DIR)/check-debug --result $(BUILD)/check/debug.result \
		--root $(GUEST_TESTS_ROOT) --user $(GUEST_TESTS_USER) \
		$(if $(DEBUG_STRESS),--run root "$(DEBUG_STRESS) $(DEBUG_STRESS_ARGS)")
