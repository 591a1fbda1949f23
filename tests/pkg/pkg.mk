# SPDX-License-Identifier: MIT
# The Debian packages (debian/); included from tests/tests.mk.
#
#   make deb             the packages for this machine's suite, with its
#                        own tools, into build/deb (lintian clean)
#   make check-packages [PKG_SUITES="bookworm sid"]
#                        tests/pkg/check-packages: on each suite, the
#                        packages built with its tools, installed with apt
#                        on a Debian system booted with systemd under QEMU,
#                        upgraded and purged, then its autopkgtest (7-11
#                        min a suite).  `make check` runs it too, before
#                        the guests (check-guest, vm.mk), its counts in
#                        the closing summary.

PKG_SUITES ?= bullseye bookworm trixie sid

.PHONY: deb check-packages

deb:
	tests/pkg/build-deb host $(BUILD)/deb

check-packages: vm-deps
	tests/pkg/check-packages $(PKG_SUITES)
