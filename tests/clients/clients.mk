# SPDX-License-Identifier: MIT
# tests/clients/clients.mk - the allocators that use mremap_retain: Debian's
# jemalloc with our patch (tests/clients/jemalloc/), built from `apt-get
# source` outside the clone (tests/clients/get-source).  Included from
# tests/tests.mk.
#
#   make check-clients   their own test suites, natively (run-checks)

.PHONY: check-clients

# Under `make check` a failure here does not stop the guest suite: the
# counts go to build/check/clients.counts and check-kernels' closing
# summary fails the run.
check-clients: $(LIB_SO) $(BUILD)/lib/$(LIB_SONAME)
	tests/clients/run-checks $(BUILD)/check/clients.counts \
		$(if $(filter check,$(MAKECMDGOALS)),|| true)
