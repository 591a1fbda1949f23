# SPDX-License-Identifier: MIT
# Shared helpers of the VM harness; sourced, never run.
#
# Everything the harness builds is cached outside the clone, under
# $MREMAP_RETAIN_CACHE (default: ${XDG_CACHE_HOME:-~/.cache}/mremap_retain),
# one directory per Debian suite:  rootfs/SUITE (debootstrap tree with
# kernel, headers, gcc, dkms) and boot/SUITE (the kernel image and the built
# module of the last run).

set -euo pipefail

VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP_DIR=$(cd "$VM_DIR/../.." && pwd)
CACHE_DIR=${MREMAP_RETAIN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mremap_retain}
ALL_SUITES="bullseye bookworm trixie sid"
MATRIX_FILE="$VM_DIR/matrix"
# The guests' CPU: QEMU's "max" model without ERMS and AVX.  TCG runs a
# "rep stosb" or "rep movsb" one byte an iteration, so with ERMS the guest
# kernel's clear_page() and glibc's large memset and memcpy spend most of a
# guest's time there; its AVX is slow too.  Without them (2026-12-02,
# trixie's 6.12 in a guest): a page fault 39 -> 16 us, memset 0.26 -> 2.2
# GB/s, memcpy 0.21 -> 0.58 GB/s.  The kernel's mm code is the same;
# 5-level paging (la57) stays.  $MREMAP_RETAIN_QEMU_CPU overrides it.
QEMU_CPU=${MREMAP_RETAIN_QEMU_CPU:-max,erms=off,avx=off,avx2=off}

die() {
	echo "${0##*/}: $*" >&2
	exit 1
}

log() {
	echo "${0##*/}: $*" >&2
}

# The Debian mirror: $MREMAP_RETAIN_MIRROR, else the first Debian archive URI
# of this machine's apt sources (deb822 or one-line form).
apt_source_uris() {
	{
		cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
			awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z+]+:\/\//) { print $i; break } }'
		cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
			awk 'tolower($1) == "uris:" { for (i = 2; i <= NF; i++) print $i }'
	} | sed 's:/*$::'
}

debian_mirror() {
	if [ -n "${MREMAP_RETAIN_MIRROR:-}" ]; then
		echo "$MREMAP_RETAIN_MIRROR"
		return
	fi
	local m
	m=$(apt_source_uris | grep -E '/debian$' | head -n 1)
	[ -n "$m" ] || die "no Debian mirror in /etc/apt/sources*; set MREMAP_RETAIN_MIRROR"
	echo "$m"
}

# The security archive: $MREMAP_RETAIN_SECURITY_MIRROR, else the apt sources'
# debian-security URI, else the mirror's sibling of that name.
debian_security_mirror() {
	if [ -n "${MREMAP_RETAIN_SECURITY_MIRROR:-}" ]; then
		echo "$MREMAP_RETAIN_SECURITY_MIRROR"
		return
	fi
	local m
	m=$(apt_source_uris | grep -E '/debian-security$' | head -n 1)
	[ -n "$m" ] || m="$(debian_mirror)-security"
	echo "$m"
}

check_suite() {
	case " $ALL_SUITES " in
	*" $1 "*) ;;
	*) die "unknown suite '$1' (known: $ALL_SUITES)" ;;
	esac
}

rootfs_dir() {
	echo "$CACHE_DIR/rootfs/$1"
}

# The kernels of the matrix (tests/vm/matrix): their names, in order; the
# root filesystem (suite) of one; its candidates META/ARCHIVE.
matrix_names() {
	awk '!/^[[:space:]]*(#|$)/ { print $1 }' "$MATRIX_FILE"
}

matrix_field() {
	awk -v n="$1" -v f="$2" '!/^[[:space:]]*(#|$)/ && $1 == n {
		if (f == "rootfs") print $2
		else { for (i = 3; i <= NF; i++) print $i }
	}' "$MATRIX_FILE"
}

check_kernel() {
	[ -n "$(matrix_field "$1" rootfs)" ] ||
		die "unknown kernel '$1' (known: $(matrix_names | tr '\n' ' '))"
}

kernel_rootfs() {
	matrix_field "$1" rootfs
}

# The root filesystems that a list of kernel names needs, each once.
kernels_rootfs() {
	local k
	for k in "$@"; do
		check_kernel "$k"
		kernel_rootfs "$k"
	done | awk '!seen[$0]++'
}

# The release (uname -r) of kernel NAME, as mkrootfs installed it in its
# root filesystem (or in ROOT): ROOTFS/.kernels has "NAME RELEASE" lines.
kernel_release() {
	local root=${2:-} k
	[ -n "$root" ] || root=$(rootfs_dir "$(kernel_rootfs "$1")")
	k=$(awk -v n="$1" '$1 == n { print $2 }' "$root/.kernels" 2>/dev/null)
	[ -n "$k" ] || return 1
	echo "$k"
}

# The headers (build tree) of kernel release KREL in root filesystem ROOT,
# as a path on this machine: where ROOT's /lib/modules/KREL/build leads.
kernel_headers() {
	local root=$1 krel=$2 t
	t=$(readlink "$root/lib/modules/$krel/build") || return 1
	case $t in
	/*) t=$root$t ;;
	*) t=$root/lib/modules/$krel/$t ;;
	esac
	[ -f "$t/Makefile" ] || return 1
	echo "$t"
}

# The image of kernel release KREL in root filesystem ROOT.
kernel_image() {
	local root=$1 krel=$2 f
	for f in "$root/boot/vmlinuz-$krel" "$root/usr/lib/modules/$krel/vmlinuz"; do
		[ -f "$f" ] && { echo "$f"; return 0; }
	done
	return 1
}

# Run a command inside a root filesystem with /proc, /sys and /dev mounted
# (objtool reads /proc; dkms and apt want /dev/null).  The mounts are private
# to a new mount namespace, so nothing is left mounted if we are killed.
in_root() {
	local root=$1
	shift
	unshare --mount --propagation private /bin/sh -c '
		root=$1; shift
		mount -t proc proc "$root/proc" &&
		mount --rbind /sys "$root/sys" &&
		mount --rbind /dev "$root/dev" &&
		exec chroot "$root" /usr/bin/env -i \
			PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
			DEBIAN_FRONTEND=noninteractive "$@"' sh "$root" "$@"
}

# The kernel release installed in a root filesystem (the newest one).
rootfs_kver() {
	local root=$1 k
	k=$(cd "$root/lib/modules" 2>/dev/null && ls -1d -- */ 2>/dev/null | tr -d / | sort -V | tail -n 1)
	[ -n "$k" ] || return 1
	echo "$k"
}

# Where dkms-build leaves a suite's module (and its stamp).
boot_dir() {
	echo "$CACHE_DIR/boot/$1"
}

# A 64-bit ELF file.
is_elf64() {
	[ -f "$1" ] && [ "$(od -An -tx1 -N5 -- "$1" | tr -d ' \n')" = 7f454c4602 ]
}

# True when FILE is an x86-64 ELF executable without a program interpreter
# (static or static-pie), i.e. it runs in the busybox-only guest.
is_static_elf() {
	local f=$1
	[ -x "$f" ] && is_elf64 "$f" || return 1
	! LC_ALL=C readelf -lW -- "$f" 2>/dev/null | grep -q 'Requesting program interpreter' &&
		LC_ALL=C readelf -h -- "$f" 2>/dev/null | grep -q 'X86-64'
}

# A dynamically linked x86-64 executable or shared library of the host.
is_dynamic_elf() {
	local f=$1
	is_elf64 "$f" &&
		LC_ALL=C readelf -dW -- "$f" 2>/dev/null | grep -q '(NEEDED)' &&
		LC_ALL=C readelf -h -- "$f" 2>/dev/null | grep -q 'X86-64'
}

# A script the guest's busybox runs: executable, first line "#!/bin/sh".
is_sh_script() {
	[ -f "$1" ] && [ -x "$1" ] && [ "$(head -n 1 -- "$1")" = '#!/bin/sh' ]
}

# The host's shared libraries that FILE needs, FILE excluded, with the
# dynamic loader: one absolute path a line.
host_libs() {
	LC_ALL=C ldd -- "$1" 2>/dev/null |
		sed -n 's/.*=> \(\/[^ ]*\) (0x.*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) (0x.*/\1/p'
}

# Copy a kernel module, decompressing .ko.xz/.ko.zst/.ko.gz to a plain .ko
# (busybox insmod loads only plain ones).
copy_ko() {
	local src=$1 dst=$2
	case $src in
	*.ko) cat -- "$src" ;;
	*.ko.xz) xz -dc -- "$src" ;;
	*.ko.zst) zstd -qdc -- "$src" ;;
	*.ko.gz) gzip -dc -- "$src" ;;
	*) die "unknown module format: $src" ;;
	esac >"$dst.tmp" && mv -f -- "$dst.tmp" "$dst"
}

# The module's sources in checkout SRC, one path a line relative to it
# (dkms.conf, which states the version, module/ and include/): the files
# git knows or would add, minus anything a local `make module` may have
# left behind.
module_sources() {
	local src=$1
	if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git -C "$src" ls-files --cached --others --exclude-standard \
			-x '*.o' -x '*.ko' -x '*.ko.*' -x '*.mod' -x '*.mod.c' \
			-x '.*.cmd' -x '.*.d' -x 'modules.order' -x 'Module.symvers' \
			-x '*.a' -x '.tmp_versions' -- dkms.conf module include |
			while IFS= read -r f; do [ ! -f "$src/$f" ] || printf '%s\n' "$f"; done
	else
		(cd "$src" && find dkms.conf module include -type f \
			! -name '*.o' ! -name '*.ko' ! -name '*.ko.*' ! -name '*.mod' \
			! -name '*.mod.c' ! -name '.*.cmd' ! -name '.*.d' \
			! -name modules.order ! -name Module.symvers \
			! -path '*/generated/*' ! -path '*/.probe-build/*' 2>/dev/null)
	fi | LC_ALL=C sort -u
}

# The newest linux-source package that root filesystem ROOT's archives
# serve, as "PACKAGE VERSION" (its candidate, from ROOT's package lists);
# fails where there is none.
newest_linux_source() {
	local root=$1 pkg v
	pkg=$(in_root "$root" apt-cache search --names-only '^linux-source-[0-9.]+$' |
		awk '{ print $1 }' | sort -V | tail -n 1)
	[ -n "$pkg" ] || return 1
	v=$(in_root "$root" apt-cache policy "$pkg" | awk '$1 == "Candidate:" { print $2 }')
	{ [ -n "$v" ] && [ "$v" != "(none)" ]; } || return 1
	echo "$pkg $v"
}
