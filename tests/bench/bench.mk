# SPDX-License-Identifier: MIT
# tests/bench/bench.mk - the benchmarks; included from tests/tests.mk.
#
#   make bench [KERNELS="bookworm sid"]
#       host figures, then the same program in a QEMU guest on each kernel
#       of KERNELS (needs root, like check-guest); KERNELS= for host only.
#       Markdown on stdout, JSON in BENCH_OUT, the plot in build/bench/.
#   make bench-host     host figures only (no module, no root needed)
#   make bench-clients [KERNELS=...]
#       the seed's table alone: mrbench vector (glibc, stock and patched
#       jemalloc, TCMalloc, the chunk loops) on the host and each kernel
#   make bench-trace [KERNELS=...]
#       not a benchmark: mrbench trace (tests/bench/trace.c) in a guest on
#       each kernel, single calls counted under the function_graph tracer
#
# BENCH_HOST_ARGS and BENCH_GUEST_ARGS replace the mrbench options of each
# side (see tests/bench/run for the defaults).

BENCH_OUT    ?= $(BUILD)/bench/results.json
BENCH_SRCS   := $(wildcard tests/bench/*.c)
BENCH_HDRS   := tests/bench/bench.h include/mremap_retain.h userlib/internal.h
BENCH_CFLAGS := -std=gnu11 $(WARN) -pthread $(CFLAGS) -Iuserlib

.PHONY: bench-host bench-deps bench-progs bench-clients bench-trace

# mrbench is linked dynamically, so that jemalloc and TCMalloc can be
# preloaded; the guests get the host's libraries with it (mkinitramfs).
$(BUILD)/bench/mrbench: $(BENCH_SRCS) $(BENCH_HDRS) $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(BENCH_CFLAGS) $(LDFLAGS) -o $@ $(BENCH_SRCS) $(LIB_A)

# The patched allocators load libmremap_retain.so.0 from build/lib (--libdir),
# on the host and in the guests, which get it with mrbench.
bench-progs: $(BUILD)/bench/mrbench $(BUILD)/lib/$(LIB_SONAME)

bench-deps:
	tests/bench/deps

bench: bench-deps $(if $(strip $(KERNELS)),vm-deps) bench-progs
	tests/bench/run --dir $(BUILD)/bench --out $(BENCH_OUT) \
		--kernels "$(KERNELS)"

bench-host: bench-progs
	tests/bench/run --dir $(BUILD)/bench --out $(BENCH_OUT) --kernels ""

bench-clients: bench-deps $(if $(strip $(KERNELS)),vm-deps) bench-progs
	BENCH_HOST_ARGS="--runs 5 --max 1G vector" \
	BENCH_GUEST_ARGS="--runs 5 --max 1G vector" \
	tests/bench/run --dir $(BUILD)/bench --out $(BUILD)/bench/clients.json \
		--kernels "$(KERNELS)"

# A kernel whose guest cannot run it (unserved, no tracer) fails the target
# after the others have run.
bench-trace: vm-deps bench-progs
	@rc=0; for k in $(KERNELS); do \
		tests/vm/run-in-vm --kernel $$k $(BUILD)/bench/mrbench \
			--label $$k trace || rc=1; \
	done; exit $$rc
