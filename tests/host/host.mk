# SPDX-License-Identifier: MIT
# tests/host/host.mk - host tests: the dontunmap and copy backends on the
# build machine's own kernel (no module there).  Included from tests/tests.mk.

HOST_TESTS   := $(patsubst tests/host/%.c,$(BUILD)/tests/host/%,$(wildcard tests/host/test_*.c))
HOST_CFLAGS  := -std=gnu11 $(WARN) -pthread $(CFLAGS)
HOST_DEPS    := tests/tap.h tests/sigreader.h tests/host/util.h include/mremap_retain.h userlib/internal.h

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
# Each dynamically linked test runs a second time with pre610.so preloaded:
# the library's paths for kernels before 6.10 (no PROCMAP_QUERY, no mseal).
PRE610 := $(BUILD)/tests/host/pre610.so
$(PRE610): tests/host/pre610.c
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -shared -fPIC -o $@ $< -ldl
all: $(PRE610)

check-host: $(HOST_TESTS) $(BUILD)/tests/host/static_args $(PRE610)
	$(VM_DIR)/logged $(BUILD)/check/host.log tests/host/run-host-tests $(BUILD)/check/host.counts --pre610 $(PRE610) \
		$(HOST_TESTS) $(BUILD)/tests/host/static_args \
		$(if $(filter check,$(MAKECMDGOALS)),|| true)

# The module's BTF matcher, built for the host with the module's own
# declarations (every MRR_KFUNC of module/compat.c and module/ksyms.c,
# extracted here), run by tests/vm/check-btf on every kernel's BTF.
KDECL_SRCS := module/compat.c module/ksyms.c
$(BUILD)/tests/host/kfuncs.gen.h: $(KDECL_SRCS)
	@mkdir -p $(@D)
	awk '/^MRR_KFUNC/ { p = 1 } p { print } p && /\);[[:space:]]*$$/ { p = 0 }' $^ >$@.tmp
	mv $@.tmp $@
$(BUILD)/tests/host/kfuncs-list.gen.h: $(BUILD)/tests/host/kfuncs.gen.h
	sed -n 's/^MRR_KFUNC\(_VOID\)\{0,1\}(\([a-z0-9_]*\),.*/{ "\2", \&\2_decl },/p' $< >$@.tmp
	mv $@.tmp $@
$(BUILD)/tests/host/btf_check: tests/host/btf_check.c module/btf_match.c module/btf_match.h \
		module/pmc.h tests/tap.h $(BUILD)/tests/host/kfuncs.gen.h $(BUILD)/tests/host/kfuncs-list.gen.h
	$(CC) -Imodule -I$(BUILD)/tests/host $(HOST_CFLAGS) -o $@ tests/host/btf_check.c module/btf_match.c
all: $(BUILD)/tests/host/btf_check
