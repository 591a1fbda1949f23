# SPDX-License-Identifier: MIT
# mremap_retain: library, module, tests.
#
#   make                    library (userlib/) and host test programs
#   make module KDIR=...    the kernel module against a kernel's build tree
#   make check              host tests, then the guest suite on every kernel
#   make bench              benchmarks (figures, never pass/fail)
#   make install            library, header, man pages, pkg-config file,
#                           and the module through DKMS (as root)

VERSION    := 0.1.0
SOVERSION  := 0
PREFIX     ?= /usr/local
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR     ?= $(PREFIX)/share/man
DESTDIR    ?=
KERNELS    ?= bullseye bookworm trixie sid
KDIR       ?= /lib/modules/$(shell uname -r)/build

CC         ?= cc
CFLAGS     ?= -O2 -g
WARN       := -Wall -Wextra -Werror
CPPFLAGS   += -Iinclude -D_GNU_SOURCE
BUILD      := build

.PHONY: all module check check-host check-guest bench install uninstall clean demo

all:

include userlib/userlib.mk
include tests/tests.mk

module:
	$(MAKE) -C $(KDIR) M=$(CURDIR)/module modules

clean:
	rm -rf $(BUILD)
	$(MAKE) -C module clean-local 2>/dev/null || true
