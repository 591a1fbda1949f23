# SPDX-License-Identifier: MIT
# Sourced by run-in-vm and run-suite: prepare a suite (root filesystem,
# module), boot it with a plan, read the protocol and judge the guest.
#
#   guest_run MODE SUITE PLAN WORKDIR [KO]
# MODE is "single" or "suite" (see protocol.awk); KO replaces the module
# built by dkms-build.  Afterwards:
#   guest_kver       kernel release the guest reported (or the rootfs one)
#   guest_ready      guest uptime in seconds when the module was ready
#   guest_error      empty if the guest booted, loaded the module, ran
#                    the whole plan and powered off; else the reason
#   guest_dmesg_bad  the problem lines of the guest's kernel log, if any
#   guest_unserved   set (with guest_error) when the archive does not
#                    deliver the kernel's packages (HTTP 404), so that no
#                    DKMS build is possible for it
#   guest_pass, guest_fail   TAP totals (suite mode)
#   WORKDIR/results  per-program records (see protocol.awk)
#   WORKDIR/output.log, dmesg, console.log   what the guest printed
# Returns 0 when the guest is fine (guest_error and guest_dmesg_bad empty).

# mawk (Debian's awk) reads a pipe in blocks unless told otherwise, which
# would hold a guest's lines back until more arrive; the boot watchdog and
# the live output need each line as it comes.
GUEST_AWK_LINES=()
if awk -W version 2>/dev/null | grep -q '^mawk'; then
	GUEST_AWK_LINES=(-W interactive)
fi

guest_log_tail() {
	local work=$1
	if [ -s "$work/console.log" ]; then
		echo "---- kernel console, last lines:" >&2
		tail -n 40 "$work/console.log" >&2
	fi
}

guest_run() {
	local mode=$1 suite=$2 plan=$3 work=$4 ko=${5:-}
	local root token key val rc=0 t0
	guest_kver='' guest_ready='' guest_wall='' guest_error='' guest_dmesg_bad=''
	guest_unserved=''
	guest_pass=0 guest_fail=0
	mkdir -p "$work"
	rm -f "$work/results" "$work/dmesg" "$work/console.log"

	local rootfs
	rootfs=$(kernel_rootfs "$suite")
	# Two guests of one suite's kernels may run at once (check-kernels):
	# one refresh of their root filesystem at a time.  flock -o: what
	# mkrootfs starts in the chroot never holds the lock.
	mkdir -p "$CACHE_DIR/rootfs"
	flock -o "$CACHE_DIR/rootfs/.lock-$rootfs" "$VM_DIR/mkrootfs" "$rootfs" || true
	root=$(rootfs_dir "$rootfs")
	if ! guest_kver=$(kernel_release "$suite"); then
		local why
		why=$(sed -n "s/^$suite: //p" "$root/.kernels-failed" 2>/dev/null | head -n 1)
		guest_error="kernel $suite is not installed in the $rootfs root filesystem: ${why:-unknown reason}"
		case $why in *" 404 "*) guest_unserved=$why ;; esac
		guest_kver=
		return 1
	fi
	if [ -z "$ko" ]; then
		ko="$work/mremap_retain.ko"
		if ! "$VM_DIR/dkms-build" --copy "$ko" "$suite"; then
			guest_error="the module did not build for $suite ($guest_kver)"
			return 1
		fi
	fi

	# A kernel that dies while booting, before init runs (so before the
	# module or any test), gets one more boot: under QEMU's TCG the stock
	# kernels now and then hit a stale breakpoint of their own boot-time
	# code patching (an int3 oops).  Said loudly; a second death fails.
	local attempt booted ready done modfail qemu_ran
	for attempt in 1 2; do
		token=$(od -An -tx1 -N8 /dev/urandom | tr -d ' \n')
		t0=$(date +%s.%N)
		set +e
		"$VM_DIR/boot" --module "$ko" --token "$token" "$suite" "$plan" "$work" |
			awk "${GUEST_AWK_LINES[@]}" -v token="$token" -v mode="$mode" -v suite="$suite" \
				-v dmesg="$work/dmesg" -v results="$work/results" \
				-f "$VM_DIR/protocol.awk" | tee "$work/output.log"
		rc=${PIPESTATUS[0]}
		set -e
		guest_wall=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')

		booted=0 ready=0 done=0 modfail= qemu_ran=1
		if [ -f "$work/results" ]; then
			while read -r key val; do
				case $key in
				kver) guest_kver=$val; booted=1 ;;
				ready) guest_ready=$val; ready=1 ;;
				done) done=1 ;;
				modfail) modfail=$val ;;
				total) read -r guest_pass guest_fail <<<"$val" ;;
				esac
			done <"$work/results"
		fi
		# No console log: QEMU never started (boot stopped on the
		# harness's own error, such as an initramfs it could not make).
		[ -f "$work/console.log" ] || qemu_ran=0
		if [ "$booted" = 1 ] || [ "$rc" = 124 ] || [ "$attempt" = 2 ] ||
			[ "$qemu_ran" = 0 ]; then
			break
		fi
		echo "guest: $suite: the kernel died while booting, before init ran (no module loaded, no test run):" >&2
		guest_log_tail "$work"
		echo "guest: $suite: booting once more (first console kept as $work/console-boot1.log); a second death fails" >&2
		mv -f "$work/console.log" "$work/console-boot1.log"
		rm -f "$work/results" "$work/dmesg"
	done
	if [ -n "$modfail" ]; then
		guest_error="module load failed: $modfail"
	elif [ "$rc" = 124 ]; then
		guest_error="the guest timed out (MREMAP_RETAIN_VM_TIMEOUT=${MREMAP_RETAIN_VM_TIMEOUT:-600} s)"
	elif [ "$qemu_ran" = 0 ]; then
		guest_error="the guest was not started: boot stopped before QEMU (exit status $rc)"
	elif [ "$booted" = 0 ]; then
		guest_error="the guest did not boot (QEMU exit status $rc)"
	elif [ "$ready" = 0 ]; then
		guest_error="the guest did not get ready (module load hung or init died)"
	elif [ "$done" = 0 ]; then
		guest_error="the guest died before the end of the plan (QEMU exit status $rc)"
	elif [ "$rc" != 0 ]; then
		guest_error="QEMU exit status $rc"
	fi
	# Without a log from the guest, look at what reached the console.
	local klog="$work/dmesg"
	[ -s "$klog" ] || klog="$work/console.log"
	if [ -f "$klog" ]; then
		guest_dmesg_bad=$("$VM_DIR/dmesg-check" "$klog") || true
	fi
	if [ -n "$guest_error" ] && [ -z "$modfail" ]; then
		guest_log_tail "$work"
	fi
	if [ -n "$guest_dmesg_bad" ]; then
		echo "---- guest kernel log problems ($suite $guest_kver):" >&2
		printf '%s\n' "$guest_dmesg_bad" | head -n 60 >&2
		echo "---- full log: $klog" >&2
	fi
	if [ -n "$modfail" ] && [ -s "$work/dmesg" ]; then
		echo "---- guest kernel log, last lines:" >&2
		tail -n 20 "$work/dmesg" >&2
	fi
	[ -z "$guest_error" ] && [ -z "$guest_dmesg_bad" ]
}

# Append one plan line (see mkinitramfs): MODE TIMEOUT PROGRAM [ARGS...].
plan_add() {
	local plan=$1 mode=$2 tmo=$3 prog=$4 a q=
	shift 4
	for a in "$@"; do
		q+=" '${a//\'/\'\\\'\'}'"
	done
	printf '%s\t%s\t%s\t%s\n' "$mode" "$tmo" "$prog" "${q# }" >>"$plan"
}
