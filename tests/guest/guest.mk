# SPDX-License-Identifier: MIT
# tests/guest/guest.mk - the guest test programs: static TAP programs that
# run inside the QEMU guests with the module loaded.  Included from
# tests/tests.mk.
#
#   GUEST_TESTS_ROOT  programs run as root, in this order (unload last:
#                     it unloads and reloads the module)
#   GUEST_TESTS_USER  programs run as uid 1000
#
# With MREMAP_RETAIN_TEST_HOST=1 in the environment they also run on a host
# without the module, skipping what needs it (development only).

GUEST_ROOT_NAMES := semantics parts alike errno accounting threads module_only decommit lsm memcg faults states limits leaks isolation stress_short fuzz unload
GUEST_USER_NAMES := user isolation

GUEST_TESTS_ROOT := $(GUEST_ROOT_NAMES:%=$(BUILD)/guest/%)
GUEST_TESTS_USER := $(GUEST_USER_NAMES:%=$(BUILD)/guest/%)
GUEST_TESTS      := $(GUEST_TESTS_ROOT) $(GUEST_TESTS_USER)

GUEST_CFLAGS := -std=gnu11 $(WARN) -pthread $(CFLAGS)
GUEST_HDRS   := tests/guest/testlib.h tests/tap.h tests/sigreader.h include/mremap_retain.h \
		include/mremap_retain/ioctl.h

.PHONY: guest-tests
guest-tests: $(GUEST_TESTS)

$(BUILD)/guest/%: tests/guest/%.c $(GUEST_HDRS) $(BUILD)/lib/libmremap_retain.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(GUEST_CFLAGS) -static $(LDFLAGS) -o $@ $< \
		$(BUILD)/lib/libmremap_retain.a
