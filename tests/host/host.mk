# SPDX-License-Identifier: MIT
# tests/host/host.mk - host tests: the dontunmap and copy backends on the
# build machine's own kernel (no module there).  Included from tests/tests.mk.

HOST_TESTS   := $(patsubst tests/host/%.c,$(BUILD)/tests/host/%,$(wildcard tests/host/test_*.c))
HOST_CFLAGS  := -std=gnu11 $(WARN) -pthread $(CFLAGS)
HOST_DEPS    := tests/tap.h tests/host/util.h include/mremap_retain.h userlib/internal.h

all: $(HOST_TESTS) $(BUILD)/tests/host/static_args

# Linked with the archive so that a test may also call an internal function;
# test_abi links with the shared library instead.
$(BUILD)/tests/host/test_%: tests/host/test_%.c $(HOST_DEPS) $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Iuserlib $(HOST_CFLAGS) -o $@ $< $(LIB_A)

$(BUILD)/tests/host/test_abi: tests/host/test_abi.c $(HOST_DEPS) $(LIB_SO) $(BUILD)/lib/$(LIB_NAME) \
		$(BUILD)/lib/$(LIB_SONAME)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(HOST_CFLAGS) -o $@ $< -L$(BUILD)/lib -lmremap_retain \
		-Wl,-rpath,'$$ORIGIN/../../lib'

# The guest tests link the archive statically: make sure that works.
$(BUILD)/tests/host/static_args: tests/host/test_args.c $(HOST_DEPS) $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(HOST_CFLAGS) -static -o $@ $< $(LIB_A)

# Under `make check` a host failure does not stop the guest suite: the
# counts go to build/check/host.counts, and the closing summary of
# check-guest (tests/vm/check-kernels) fails the run.
check-host: $(HOST_TESTS) $(BUILD)/tests/host/static_args
	tests/host/run-host-tests $(BUILD)/check/host.counts $^ \
		$(if $(filter check,$(MAKECMDGOALS)),|| true)
