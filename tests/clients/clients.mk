# SPDX-License-Identifier: MIT
# tests/clients/clients.mk - the allocators that use mremap_retain: Debian's
# jemalloc and TCMalloc with our patches (tests/clients/jemalloc/,
# tests/clients/tcmalloc/), built from `apt-get source` outside the clone
# (tests/clients/get-source, tests/clients/build).  Included from
# tests/tests.mk.
#
#   make check-clients   their own test suites and the torture, natively
#                        (run-checks); the torture also runs in every guest
#                        (CLIENTS_GUEST, added to the guest suite)

.PHONY: check-clients

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

# Under `make check` a failure here does not stop the guest suite: the
# counts go to build/check/clients.counts and check-kernels' closing
# summary fails the run.
check-clients: $(LIB_SO) $(BUILD)/lib/$(LIB_SONAME) $(CLIENTS_GUEST)
	tests/clients/run-checks $(BUILD)/check/clients.counts $(CLIENTS_GUEST) \
		$(if $(filter check,$(MAKECMDGOALS)),|| true)
