# SPDX-License-Identifier: MIT
# userlib/userlib.mk - libmremap_retain: shared and static library,
# pkg-config file, install rules.  Included from the top-level Makefile.

LIB_SRCS   := $(wildcard userlib/*.c)
LIB_HDRS   := include/mremap_retain.h include/mremap_retain/ioctl.h userlib/internal.h
LIB_PIC    := $(LIB_SRCS:userlib/%.c=$(BUILD)/userlib/pic/%.o)
LIB_OBJS   := $(LIB_SRCS:userlib/%.c=$(BUILD)/userlib/static/%.o)
LIB_CFLAGS := -std=gnu11 $(WARN) -fvisibility=hidden -pthread $(CFLAGS)
LIB_MAP    := userlib/libmremap_retain.map

LIB_NAME   := libmremap_retain.so
LIB_SO     := $(BUILD)/lib/$(LIB_NAME).$(VERSION)
LIB_SONAME := $(LIB_NAME).$(SOVERSION)
LIB_A      := $(BUILD)/lib/libmremap_retain.a
LIB_PC     := $(BUILD)/lib/libmremap_retain.pc
LIB_MANS   := $(wildcard man/*.3)

# `make lib`: the library alone (what debian/rules builds).
.PHONY: lib
all: lib
lib: $(LIB_SO) $(BUILD)/lib/$(LIB_SONAME) $(BUILD)/lib/$(LIB_NAME) $(LIB_A) $(LIB_PC)

$(BUILD)/userlib/pic/%.o: userlib/%.c $(LIB_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(LIB_CFLAGS) -fPIC -c -o $@ $<

$(BUILD)/userlib/static/%.o: userlib/%.c $(LIB_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(LIB_CFLAGS) -c -o $@ $<

$(LIB_SO): $(LIB_PIC) $(LIB_MAP)
	@mkdir -p $(@D)
	$(CC) $(LIB_CFLAGS) $(LDFLAGS) -shared -Wl,-soname,$(LIB_SONAME) \
		-Wl,--version-script=$(LIB_MAP) -Wl,-z,defs -o $@ $(LIB_PIC)

$(BUILD)/lib/$(LIB_SONAME) $(BUILD)/lib/$(LIB_NAME): $(LIB_SO)
	ln -sf $(notdir $<) $@

$(LIB_A): $(LIB_OBJS)
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $^

LIB_PC_SED := sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
	-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(VERSION)|'

$(LIB_PC): userlib/libmremap_retain.pc.in Makefile
	@mkdir -p $(@D)
	$(LIB_PC_SED) $< > $@

.PHONY: install-lib uninstall-lib
install: install-lib
uninstall: uninstall-lib

install-lib: $(LIB_SO) $(LIB_A) $(LIB_PC)
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCLUDEDIR)/mremap_retain \
		$(DESTDIR)$(MANDIR)/man3
	install -m 755 $(LIB_SO) $(DESTDIR)$(LIBDIR)/
	ln -sf $(notdir $(LIB_SO)) $(DESTDIR)$(LIBDIR)/$(LIB_SONAME)
	ln -sf $(LIB_SONAME) $(DESTDIR)$(LIBDIR)/$(LIB_NAME)
	install -m 644 $(LIB_A) $(DESTDIR)$(LIBDIR)/
	$(LIB_PC_SED) userlib/libmremap_retain.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/$(notdir $(LIB_PC))
	chmod 644 $(DESTDIR)$(LIBDIR)/pkgconfig/$(notdir $(LIB_PC))
	install -m 644 include/mremap_retain.h $(DESTDIR)$(INCLUDEDIR)/
	install -m 644 include/mremap_retain/ioctl.h $(DESTDIR)$(INCLUDEDIR)/mremap_retain/
	install -m 644 $(LIB_MANS) $(DESTDIR)$(MANDIR)/man3/

uninstall-lib:
	rm -f $(DESTDIR)$(LIBDIR)/$(notdir $(LIB_SO)) $(DESTDIR)$(LIBDIR)/$(LIB_SONAME) \
		$(DESTDIR)$(LIBDIR)/$(LIB_NAME) $(DESTDIR)$(LIBDIR)/$(notdir $(LIB_A)) \
		$(DESTDIR)$(LIBDIR)/pkgconfig/$(notdir $(LIB_PC)) \
		$(DESTDIR)$(INCLUDEDIR)/mremap_retain.h \
		$(DESTDIR)$(INCLUDEDIR)/mremap_retain/ioctl.h \
		$(addprefix $(DESTDIR)$(MANDIR)/man3/,$(notdir $(LIB_MANS)))
	-rmdir $(DESTDIR)$(INCLUDEDIR)/mremap_retain 2>/dev/null
