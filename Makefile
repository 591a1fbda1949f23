# SPDX-License-Identifier: MIT
# mremap_retain: library, module, tests.
#
#   make                    library (userlib/) and host test programs
#   make module KDIR=...    the kernel module against a kernel's build tree
#   make check              host tests, then the guest suite on every kernel
#   make bench              benchmarks (figures, never pass/fail)
#   make demo               everything, then a timed demo in a QEMU guest
#   make install            library, header, man pages, pkg-config file,
#                           and the module through DKMS (as root)

# The version is stated once, in dkms.conf (module/Makefile reads it).
VERSION    := $(shell $(MAKE) -s --no-print-directory -C module version)
SOVERSION  := 0
PREFIX     ?= /usr/local
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR     ?= $(PREFIX)/share/man
DESTDIR    ?=
# Every kernel of the test matrix (tests/vm/matrix); KERNELS= narrows.
KERNELS    ?= $(shell awk '!/^[[:space:]]*(\#|$$)/ { print $$1 }' tests/vm/matrix)
KDIR       ?= /lib/modules/$(shell uname -r)/build

CC         ?= cc
CFLAGS     ?= -O2 -g
WARN       := -Wall -Wextra -Werror
override CPPFLAGS += -Iinclude -D_GNU_SOURCE
BUILD      := build

.PHONY: all module check check-host check-guest bench install uninstall clean demo

all:

include userlib/userlib.mk
include tests/tests.mk

# The module, built directly (development; users install it with DKMS).
module:
	$(MAKE) -C module KDIR=$(KDIR)

# Install the module with DKMS: it is rebuilt for every kernel installed
# later.  Needs dkms and the running kernel's headers.
DKMS_SRC := $(DESTDIR)/usr/src/mremap_retain-$(VERSION)
.PHONY: install-module uninstall-module
install: install-module
uninstall: uninstall-module
install-module: install-dkms-src
	@command -v dkms >/dev/null || { echo "install-module: dkms is not installed (apt-get install dkms)" >&2; exit 1; }
	dkms remove mremap_retain/$(VERSION) --all >/dev/null 2>&1 || true
	dkms install mremap_retain/$(VERSION)
	modprobe mremap_retain

# The module's sources as DKMS takes them (also what debian/rules ships).
.PHONY: install-dkms-src
install-dkms-src:
	rm -rf $(DKMS_SRC)
	install -d $(DKMS_SRC)/module/probes $(DKMS_SRC)/include/mremap_retain
	install -m 644 dkms.conf $(DKMS_SRC)/
	install -m 644 module/Kbuild module/Makefile module/*.c module/*.h $(DKMS_SRC)/module/
	install -m 755 module/probe.sh $(DKMS_SRC)/module/
	install -m 644 module/probes/*.c $(DKMS_SRC)/module/probes/
	install -m 644 include/mremap_retain/ioctl.h $(DKMS_SRC)/include/mremap_retain/

uninstall-module:
	-modprobe -r mremap_retain
	-dkms remove mremap_retain/$(VERSION) --all
	rm -rf $(DKMS_SRC)

# Everything, then the vector-growth loop with each backend in a guest.
DEMO_KERNEL ?= bookworm
demo: vm-deps
	$(MAKE) --no-print-directory all guest-tests bench-progs
	tests/bench/demo $(DEMO_KERNEL)

clean:
	rm -rf $(BUILD)
	$(MAKE) -C module clean-local 2>/dev/null || true
