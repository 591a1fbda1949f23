# SPDX-License-Identifier: MIT
# tests/stress/stress.mk - the stress and fuzz programs; included from
# tests/tests.mk.
#
#   make stress [KERNELS="bookworm sid"] [STRESS_SECONDS=60] [STRESS_SEED=S]
#       the stress program for STRESS_SECONDS on every kernel in KERNELS,
#       one guest at a time (tests/vm/run-in-vm under the machine-wide QEMU
#       lock), then natively on this host for the dontunmap and copy
#       backends; prints each run's operations and mismatches, and fails if
#       any run failed.  Each kernel also runs the leak check with
#       LEAK_OPS operations (default 100000; the guest suite runs 50000).
#
# The guest suite (tests/guest/guest.mk) also runs two programs built here:
#   build/guest/stress_short  the same stress program, 15 s by default
#   build/guest/fuzz          hostile input to the raw ioctl, bounded
# Each has its own explicit rule, so guest.mk's pattern rule (which builds
# build/guest/N from tests/guest/N.c) is never used for them.

STRESS_SRCS    := tests/stress/stress.c tests/stress/model.c tests/stress/ops.c \
		  tests/stress/move.c tests/stress/race.c
STRESS_HDRS    := tests/stress/stress.h tests/tap.h include/mremap_retain.h
FUZZ_SRCS      := tests/stress/fuzz.c tests/stress/fuzz_race.c
FUZZ_HDRS      := tests/stress/fuzz.h tests/guest/testlib.h tests/tap.h \
		  include/mremap_retain.h include/mremap_retain/ioctl.h
STRESS_CFLAGS  := -std=gnu11 $(WARN) -pthread $(CFLAGS)
STRESS_SECONDS ?= 60
STRESS_SEED    ?=
QEMU_LOCK      ?= /tmp/mremap_retain-qemu.lock
LEAK_OPS       ?= 100000

# For tests/vm/debug.mk: the program and arguments of a guest stress run.
STRESS_VM_PROG := $(BUILD)/stress/stress
STRESS_VM_ARGS := --seconds $(STRESS_SECONDS)$(if $(STRESS_SEED), --seed $(STRESS_SEED))

.PHONY: stress stress-programs
stress-programs: $(BUILD)/stress/stress $(BUILD)/guest/stress_short $(BUILD)/guest/fuzz

$(BUILD)/stress/stress $(BUILD)/guest/stress_short: $(STRESS_SRCS) $(STRESS_HDRS) $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(STRESS_CFLAGS) -static $(LDFLAGS) -o $@ $(STRESS_SRCS) $(LIB_A)

$(BUILD)/guest/fuzz: $(FUZZ_SRCS) $(FUZZ_HDRS) $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(STRESS_CFLAGS) -static $(LDFLAGS) -o $@ $(FUZZ_SRCS) $(LIB_A)

# One guest at a time (flock); every kernel runs even when one fails.
stress: vm-deps $(BUILD)/stress/stress $(BUILD)/guest/leaks
	@mkdir -p $(BUILD)/stress
	@rc=0; for k in $(KERNELS); do \
		echo "==== stress on $$k ($(STRESS_SECONDS) s)"; \
		MREMAP_RETAIN_VM_TIMEOUT=$$(( $(STRESS_SECONDS) + 420 )) \
		flock $(QEMU_LOCK) $(VM_DIR)/run-in-vm --kernel $$k \
			$(STRESS_VM_PROG) $(STRESS_VM_ARGS) \
			> $(BUILD)/stress/$$k.log 2>&1; st=$$?; \
		grep -E '^# (kernel|stress|rerun|MISMATCH|\[)|^not ok|passed,' $(BUILD)/stress/$$k.log; \
		[ $$st -eq 0 ] || { echo "FAIL: stress on $$k (exit $$st, log $(BUILD)/stress/$$k.log)"; rc=1; }; \
		echo "==== leaks on $$k ($(LEAK_OPS) operations)"; \
		flock $(QEMU_LOCK) $(VM_DIR)/run-in-vm --kernel $$k \
			$(BUILD)/guest/leaks $(LEAK_OPS) \
			> $(BUILD)/stress/$$k-leaks.log 2>&1; st=$$?; \
		grep -E '^(ok|not ok)|passed,' $(BUILD)/stress/$$k-leaks.log; \
		[ $$st -eq 0 ] || { echo "FAIL: leaks on $$k (exit $$st, log $(BUILD)/stress/$$k-leaks.log)"; rc=1; }; \
	done; \
	echo "==== stress on the host ($$(uname -r), dontunmap and copy)"; \
	MREMAP_RETAIN_TEST_HOST=1 $(STRESS_VM_PROG) $(STRESS_VM_ARGS) \
		--backends dontunmap,copy > $(BUILD)/stress/host.log 2>&1; st=$$?; \
	grep -E '^# (stress|rerun|MISMATCH|\[)|^not ok|passed,' $(BUILD)/stress/host.log; \
	[ $$st -eq 0 ] || { echo "FAIL: stress on the host (exit $$st, log $(BUILD)/stress/host.log)"; rc=1; }; \
	exit $$rc
