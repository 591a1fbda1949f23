# SPDX-License-Identifier: MIT
# tests/clients/clients.mk - the allocators that use mremap_retain: Debian's
# jemalloc and TCMalloc with our patches (tests/clients/jemalloc/,
# tests/clients/tcmalloc/), built from `apt-get source` outside the clone
# (tests/clients/get-source, tests/clients/build).  Included from
# tests/tests.mk.
#
#   make check-clients   their own test suites and the torture, natively
#                        (run-checks); the tortures (CLIENTS_GUEST) also run
#                        in every guest, and the suites (CLIENTS_SUITES,
#                        from the tree CLIENTS_TREE laid into the initramfs)
#                        in make check's guests of the first kernel of each
#                        major version, after the guest suite, in the same
#                        boot (check-kernels --per-major)
#   make check-clients-guest   only the suites, on every kernel (neither
#                        make check nor .ci/run: with them on every kernel
#                        CI would not be well inside its 90 minutes;
#                        README, Tests)

.PHONY: check-clients check-clients-guest

# The torture, one program per patched allocator, linked statically with it
# and the library, so that the same program runs natively and in the
# guests.  TCMalloc's minimal library: the same allocator without the heap
# profiler and checker (which want libunwind).
CLIENTS_GUEST := $(BUILD)/clients/torture_jemalloc $(BUILD)/clients/torture_tcmalloc
TORTURE_DEPS := tests/clients/torture.c tests/clients/counts.h tests/tap.h include/mremap_retain.h tests/clients/build $(LIB_A)
TORTURE_LINK = $(CC) $(CPPFLAGS) -std=gnu11 $(WARN) -O2 -pthread -static -o $@ $< \
		$$a $(LIB_A) -lstdc++ -lm -ldl 2>$@.ld.log || { cat $@.ld.log; exit 1; }
$(BUILD)/clients/torture_jemalloc: $(TORTURE_DEPS) tests/clients/jemalloc/mremap-retain.patch
	@mkdir -p $(@D)
	d=$$(tests/clients/build jemalloc) && a=$$d/lib/libjemalloc.a && $(TORTURE_LINK)
$(BUILD)/clients/torture_tcmalloc: $(TORTURE_DEPS) tests/clients/tcmalloc/mremap-retain.patch
	@mkdir -p $(@D)
	d=$$(tests/clients/build tcmalloc) && a=$$d/.libs/libtcmalloc_minimal.a && $(TORTURE_LINK)

# The suites' programs for the guests (guest-tree; run by suite-run),
# written anew on every run (3 s): the build directories it copies are
# named by a cache key make cannot see.
CLIENTS_TREE := $(BUILD)/clients/guest-tree
CLIENTS_SUITES := $(BUILD)/clients/jemalloc-suite $(BUILD)/clients/tcmalloc-suite
# Seconds each allocator's suite may take in a guest (TCG, quiet host,
# 2026-12-02: jemalloc about 2 minutes, TCMalloc about 9).
CLIENTS_SUITE_TIMEOUT ?= 1200
# What check-kernels needs to run the suites: the tree in the initramfs,
# and the programs, run as root with their own time limit.
CLIENTS_TREE_ENV = MREMAP_RETAIN_VM_TREE=$(abspath $(CLIENTS_TREE))
CLIENTS_SUITES_OPTS = --root --timeout $(CLIENTS_SUITE_TIMEOUT) $(CLIENTS_SUITES)
.PHONY: clients-tree
clients-tree: $(BUILD)/lib/$(LIB_SONAME)
	tests/clients/guest-tree $(CLIENTS_TREE) $(BUILD)/lib $(BUILD)/clients

# Under `make check` a failure here does not stop the guest suite: the
# counts go to build/check/clients.counts and check-kernels' closing
# summary fails the run.
check-clients: $(LIB_SO) $(BUILD)/lib/$(LIB_SONAME) $(CLIENTS_GUEST) clients-tree
	$(VM_DIR)/logged $(BUILD)/check/clients.log tests/clients/run-checks $(BUILD)/check/clients.counts $(CLIENTS_TREE) $(CLIENTS_GUEST) \
		$(if $(filter check,$(MAKECMDGOALS)),|| true)

check-clients-guest: vm-deps
	-$(MAKE) --no-print-directory vm-prepare
	$(MAKE) --no-print-directory clients-tree
	$(CLIENTS_TREE_ENV) $(VM_DIR)/check-kernels --suites "$(KERNELS)" $(CLIENTS_SUITES_OPTS)
