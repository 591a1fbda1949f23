# SPDX-License-Identifier: MIT
# The VM harness; included from tests/tests.mk.
#
#   make check-guest [KERNELS="bookworm sid"]
#       the guest test programs (GUEST_TESTS_ROOT as root,
#       GUEST_TESTS_USER as uid 1000; from tests/guest/guest.mk) on each
#       suite's stock kernel, then the allocators' own suites
#       (CLIENTS_SUITES) on the first kernel of each major version, one
#       QEMU boot per kernel, two kernels at a time; every kernel runs
#       even when one fails; a table per kernel and "N passed, N failed"
#       at the end (including the host tests' counts from
#       build/check/host.counts when this is part of `make check`, those
#       of the BTF matcher on every kernel's BTF, tests/vm/check-btf,
#       those of probe.sh's refusals on the last kernel,
#       tests/vm/check-probes, and those of the module's style, W=1 on
#       every kernel and checkpatch.pl, tests/vm/check-style).  Under
#       `make check` the package test (tests/pkg/pkg.mk) runs before the
#       guests, on PKG_SUITES.
#   make check-style [KERNELS=...]   only the style check (about a minute)
#   make vm-prepare   build or refresh the cached root filesystems
#   make vm-deps      install the Debian packages the harness needs

VM_DIR     := tests/vm
VM_PARALLEL ?= 2

.PHONY: check-guest check-style vm-prepare vm-deps

vm-deps:
	$(VM_DIR)/deps

# Root filesystems are prepared two at a time first (a cold cache takes
# about 3 minutes a suite); a failure there is reported again, per kernel,
# by check-kernels, which never skips a kernel.
check-guest: vm-deps
	-$(MAKE) --no-print-directory vm-prepare
	$(MAKE) --no-print-directory guest-tests $(CLIENTS_GUEST) clients-tree $(BUILD)/tests/host/btf_check
	@mkdir -p $(BUILD)/check
	-$(VM_DIR)/logged $(BUILD)/check/btf.log $(VM_DIR)/check-btf --counts $(BUILD)/check/btf.counts $(KERNELS)
	-$(VM_DIR)/logged $(BUILD)/check/probes.log $(VM_DIR)/check-probes --counts $(BUILD)/check/probes.counts $(lastword $(KERNELS))
	-$(VM_DIR)/logged $(BUILD)/check/style.log $(VM_DIR)/check-style --counts $(BUILD)/check/style.counts $(KERNELS)
	$(if $(filter check,$(MAKECMDGOALS)),rm -f $(BUILD)/check/packages.counts && \
		{ $(VM_DIR)/logged $(BUILD)/check/packages.log tests/pkg/check-packages --counts $(BUILD)/check/packages.counts $(PKG_SUITES) || true; })
	$(CLIENTS_TREE_ENV) $(VM_DIR)/check-kernels --suites "$(KERNELS)" \
		$(if $(filter check,$(MAKECMDGOALS)),--counts host:$(BUILD)/check/host.counts) \
		$(if $(filter check,$(MAKECMDGOALS)),--counts clients:$(BUILD)/check/clients.counts) \
		$(if $(filter check,$(MAKECMDGOALS)),--counts packages:$(BUILD)/check/packages.counts) \
		--counts btf:$(BUILD)/check/btf.counts \
		--counts probes:$(BUILD)/check/probes.counts \
		--counts style:$(BUILD)/check/style.counts \
		--root $(GUEST_TESTS_ROOT) $(CLIENTS_GUEST) --user $(GUEST_TESTS_USER) \
		--per-major $(CLIENTS_SUITES_OPTS)

vm-prepare: vm-deps
	bash -c '. $(VM_DIR)/lib.sh && kernels_rootfs $(KERNELS)' | xargs -P $(VM_PARALLEL) -I{} $(VM_DIR)/mkrootfs {}

check-style: vm-deps
	-$(MAKE) --no-print-directory vm-prepare
	$(VM_DIR)/check-style $(KERNELS)
