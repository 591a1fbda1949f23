# SPDX-License-Identifier: MIT
# tests/clients/clients.mk - the allocators that use mremap_retain: Debian's
# jemalloc with our patch (tests/clients/jemalloc/), built from `apt-get
# source` outside the clone (tests/clients/get-source).  Included from
# tests/tests.mk.
#
#   make check-clients   their own test suites and the torture, natively
#                        (run-checks); the torture also runs in every guest
#                        (CLIENTS_GUEST, added to the guest suite)

.PHONY: check-clients

# The torture, linked statically with the patched jemalloc and the library,
# so that the same program runs natively and in the guests.
CLIENTS_GUEST := $(BUILD)/clients/torture
$(BUILD)/clients/torture: tests/clients/torture.c tests/tap.h include/mremap_retain.h \
		tests/clients/jemalloc/mremap-retain.patch $(LIB_A)
	@mkdir -p $(@D)
	j=$$(tests/clients/jemalloc/build) && \
	$(CC) $(CPPFLAGS) -std=gnu11 $(WARN) -O2 -pthread -static -o $@ $< \
		$$j/lib/libjemalloc.a $(LIB_A) -lstdc++ -lm -ldl 2>$@.ld.log || \
		{ cat $@.ld.log; exit 1; }

# Under `make check` a failure here does not stop the guest suite: the
# counts go to build/check/clients.counts and check-kernels' closing
# summary fails the run.
check-clients: $(LIB_SO) $(BUILD)/lib/$(LIB_SONAME) $(BUILD)/clients/torture
	tests/clients/run-checks $(BUILD)/check/clients.counts $(BUILD)/clients/torture \
		$(if $(filter check,$(MAKECMDGOALS)),|| true)
