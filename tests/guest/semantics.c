// SPDX-License-Identifier: MIT
/*
 * semantics.c - SPEC "Semantics of mremap_retain", points 1-6, for every
 * backend: grow, shrink, same size, protections, mlock, FIXED, NOREPLACE,
 * hints, rounding of sizes, large and small regions, a doubling loop, and
 * fork-shared pages.  Plus the default backend and the backend names.
 */
#include <poll.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <linux/userfaultfd.h>

#include "testlib.h"

#define KB(x) ((long)((x) / 1024))

static void *mr(void *old, size_t os, size_t ns, int flags, void *na)
{
	return mremap_retain(old, os, ns, flags, na);
}

static int ok_result(void *r, const char *tag)
{
	int e = errno;

	return tap_ok(r != MAP_FAILED, "[%s] %s: succeeds (%s)", BN, tag,
		      r == MAP_FAILED ? tl_errname(e) : "ok");
}

/* Points 1-3: move old_size bytes to new_size, check both sides. */
static void move_case(size_t os, size_t ns, const char *tag)
{
	size_t keep = os < ns ? os : ns;
	size_t ws = keep < (256u << 10) ? keep : (256u << 10);
	long vm0;
	char *src, *r;

	src = tl_map(os, PROT_READ | PROT_WRITE);
	tl_fill(src, os, 1);
	vm0 = tl_status_kb("VmSize");
	r = mr(src, os, ns, 0, NULL);
	if (!ok_result(r, tag)) {
		munmap(src, os);
		return;
	}
	tap_ok(!((uintptr_t)r & (ps - 1)) && r != src &&
	       (r + ns <= src || r >= src + os),
	       "[%s] %s: result %p page aligned, apart from source %p", BN, tag,
	       (void *)r, (void *)src);
	tap_ok(tl_check(r, keep, 1), "[%s] %s: first %zu bytes moved intact",
	       BN, tag, keep);
	if (ns > os)
		tap_ok(tl_zero(r + os, ns - os), "[%s] %s: grown tail reads zero",
		       BN, tag);
	tap_ok(!strcmp(tl_perms(r), "rw-p"),
	       "[%s] %s: destination is rw-p (%s)", BN, tag, tl_perms(r));
	{
		/* One mapping, as mremap gives: else moving it again would
		 * fail with EFAULT ("spans more than one mapping"). */
		uintptr_t s = 0, e = 0;
		int found = tl_vma(r, &s, &e, NULL);

		tap_ok(found && s <= (uintptr_t)r && e >= (uintptr_t)r + ns,
		       "[%s] %s: destination is a single mapping (%#lx-%#lx)",
		       BN, tag, (unsigned long)s, (unsigned long)e);
	}
	tap_ok(tl_vma(src, NULL, NULL, NULL) &&
	       tl_vma(src + os - 1, NULL, NULL, NULL) &&
	       !strcmp(tl_perms(src), "rw-p") && tl_zero(src, os),
	       "[%s] %s: whole source still mapped rw-p and reads zero", BN,
	       tag);
	tap_ok(tl_status_kb("VmSize") - vm0 == KB(ns),
	       "[%s] %s: VmSize grew by exactly new_size (%ld kB, want %ld)",
	       BN, tag, tl_status_kb("VmSize") - vm0, KB(ns));
	/* Writes: the whole range when small, the ends of a large one. */
	tl_fill(src, ws, 2);
	tl_fill_range(src, os - ws, os, 2);
	tap_ok(tl_check(src, ws, 2) && tl_check_range(src, os - ws, os, 2) &&
	       tl_check(r, keep, 1),
	       "[%s] %s: source writable, fresh pages apart from destination",
	       BN, tag);
	tl_fill(r, ws, 3);
	tl_fill_range(r, ns - ws, ns, 3);
	tap_ok(tl_check(src, ws, 2) && tl_check(r, ws, 3) &&
	       tl_check_range(r, ns - ws, ns, 3) &&
	       (ns <= 2 * ws || tl_check_range(r, ws, keep < ns - ws ? keep : ns - ws, 1)),
	       "[%s] %s: destination writable, apart from source", BN, tag);
	munmap(r, ns);
	munmap(src, os);
	tap_ok(tl_status_kb("VmSize") - vm0 == -KB(os),
	       "[%s] %s: VmSize back to baseline after munmap", BN, tag);
}

static void t_sizes(void)
{
	move_case(ps, 4 * ps, "grow 1 page to 4");
	move_case(16 * ps, 5 * ps, "shrink 16 pages to 5");
	move_case(8 * ps, 8 * ps, "same size 8 pages");
	move_case(ps, ps, "same size 1 page");
	move_case(64 << 20, 96 << 20, "grow 64 MiB to 96 MiB");
	move_case(16 << 20, 16 << 20, "same size 16 MiB");
}

/* Point 4 (protection) for one source protection. */
static void prot_case(int prot, const char *want, const char *tag)
{
	size_t os = 4 * ps, ns = 8 * ps;
	char *src = tl_map(os, PROT_READ | PROT_WRITE), *r;

	tl_fill(src, os, 4);
	mprotect(src, os, prot);
	r = mr(src, os, ns, 0, NULL);
	if (!ok_result(r, tag))
		return;
	tap_ok(!strcmp(tl_perms(r), want) && !strcmp(tl_perms(r + ns - 1), want),
	       "[%s] %s: destination is %s (%s)", BN, tag, want, tl_perms(r));
	tap_ok(!strcmp(tl_perms(src), want) && !strcmp(tl_perms(src + os - 1), want),
	       "[%s] %s: source still mapped %s (%s)", BN, tag, want,
	       tl_perms(src));
	if (!(prot & PROT_READ))
		tap_ok(!tl_can_read(r) && !tl_can_read(src) &&
		       !tl_can_read(r + ns - 1),
		       "[%s] %s: reads of source and destination fault", BN, tag);
	if (!(prot & PROT_WRITE))
		tap_ok(!tl_can_write(r) && !tl_can_write(src) &&
		       !tl_can_write(r + os),
		       "[%s] %s: writes to source and destination fault", BN, tag);
	mprotect(r, ns, PROT_READ);
	mprotect(src, os, PROT_READ);
	tap_ok(tl_check(r, os, 4) && tl_zero(r + os, ns - os),
	       "[%s] %s: destination holds the data, tail zero", BN, tag);
	tap_ok(tl_zero(src, os), "[%s] %s: source reads zero", BN, tag);
	munmap(r, ns);
	munmap(src, os);
}

static void t_prot(void)
{
	prot_case(PROT_READ | PROT_WRITE, "rw-p", "PROT_READ|PROT_WRITE source");
	prot_case(PROT_READ, "r--p", "PROT_READ source");
	prot_case(PROT_NONE, "---p", "PROT_NONE source");
	prot_case(PROT_READ | PROT_EXEC, "r-xp", "PROT_READ|PROT_EXEC source");
}

/* Point 4 (mlock): destination locked and populated, source unlocked. */
static void t_mlock(void)
{
	size_t os = 4 * ps, ns = 16 * ps;
	char *src = tl_map(os, PROT_READ | PROT_WRITE), *r;
	long lck0 = tl_status_kb("VmLck");

	tl_fill(src, os, 5);
	if (mlock(src, os)) {
		tl_skipf("[%s] mlocked source: mlock: %s", BN, strerror(errno));
		munmap(src, os);
		return;
	}
	r = mr(src, os, ns, 0, NULL);
	if (!ok_result(r, "mlocked source grown 4 to 16 pages")) {
		munmap(src, os);
		return;
	}
	tap_ok(tl_resident(r, ns),
	       "[%s] mlock: whole destination resident, grown tail populated",
	       BN);
	tap_ok(tl_smaps_flag(r, "lo") && tl_smaps_kb(r, "Locked") == KB(ns),
	       "[%s] mlock: destination VMA locked (lo; Locked: %ld kB, want %ld)",
	       BN, tl_smaps_kb(r, "Locked"), KB(ns));
	tap_ok(!tl_smaps_flag(src, "lo") && tl_smaps_kb(src, "Locked") == 0,
	       "[%s] mlock: retained source no longer locked (Locked: %ld kB)",
	       BN, tl_smaps_kb(src, "Locked"));
	tap_ok(tl_status_kb("VmLck") - lck0 == KB(ns),
	       "[%s] mlock: VmLck counts the destination once (+%ld kB, want %ld)",
	       BN, tl_status_kb("VmLck") - lck0, KB(ns));
	tap_ok(tl_check(r, os, 5) && tl_zero(r + os, ns - os) && tl_zero(src, os),
	       "[%s] mlock: data moved, tail and source zero", BN);
	munmap(r, ns);
	munmap(src, os);
	tap_ok(tl_status_kb("VmLck") == lck0,
	       "[%s] mlock: VmLck back to baseline after munmap (%ld kB, want %ld)",
	       BN, tl_status_kb("VmLck"), lck0);

	/* Shrunk: the whole source is left as one fresh, unlocked mapping. */
	src = tl_map(ns, PROT_READ | PROT_WRITE);
	tl_fill(src, ns, 6);
	if (mlock(src, ns)) {
		tl_skipf("[%s] mlocked source shrunk: mlock: %s", BN, strerror(errno));
		munmap(src, ns);
		return;
	}
	r = mr(src, ns, os, 0, NULL);
	if (ok_result(r, "mlocked source shrunk 16 to 4 pages")) {
		uintptr_t s0 = 0, e0 = 0;
		int one = tl_vma(src, &s0, &e0, NULL);

		tap_ok(tl_check(r, os, 6) && tl_smaps_flag(r, "lo") &&
		       tl_smaps_kb(r, "Locked") == KB(os),
		       "[%s] mlock shrink: data moved, destination locked (Locked: %ld kB)",
		       BN, tl_smaps_kb(r, "Locked"));
		tap_ok(one && s0 <= (uintptr_t)src &&
		       e0 >= (uintptr_t)src + ns && tl_zero(src, ns) &&
		       !tl_smaps_flag(src, "lo"),
		       "[%s] mlock shrink: the source is one mapping, zero, not locked (%#lx-%#lx)",
		       BN, (unsigned long)s0, (unsigned long)e0);
		munmap(r, os);
	}
	munmap(src, ns);
	tap_ok(tl_status_kb("VmLck") == lck0,
	       "[%s] mlock shrink: VmLck back to baseline (%ld kB, want %ld)",
	       BN, tl_status_kb("VmLck"), lck0);
}

/* FIXED replaces what is there; NOREPLACE on a free range; neighbours. */
static void t_fixed(void)
{
	size_t os = 4 * ps, ns = 8 * ps;
	char *src, *dst, *r, *big;

	src = tl_map(os, PROT_READ | PROT_WRITE);
	dst = tl_map(ns, PROT_READ | PROT_WRITE);
	tl_fill(src, os, 6);
	tl_fill(dst, ns, 9);
	r = mr(src, os, ns, MREMAP_RETAIN_FIXED, dst);
	if (ok_result(r, "FIXED onto a mapped range")) {
		tap_ok(r == dst, "[%s] FIXED: returns new_address", BN);
		tap_ok(tl_check(dst, os, 6) && tl_zero(dst + os, ns - os),
		       "[%s] FIXED: old contents replaced: data, then zero tail",
		       BN);
		tap_ok(tl_zero(src, os) && !strcmp(tl_perms(src), "rw-p"),
		       "[%s] FIXED: source mapped rw-p, zero", BN);
	}
	munmap(src, os);
	munmap(dst, ns);

	src = tl_map(os, PROT_READ | PROT_WRITE);
	tl_fill(src, os, 7);
	dst = tl_free_range(ns);
	r = mr(src, os, ns, MREMAP_RETAIN_FIXED | MREMAP_RETAIN_NOREPLACE, dst);
	if (ok_result(r, "FIXED|NOREPLACE onto a free range")) {
		tap_ok(r == dst && tl_check(dst, os, 7) &&
		       tl_zero(dst + os, ns - os) && tl_zero(src, os),
		       "[%s] FIXED|NOREPLACE: at new_address, data moved", BN);
		munmap(r, ns);
	}
	munmap(src, os);

	src = tl_map(os, PROT_READ | PROT_WRITE);
	tl_fill(src, os, 8);
	dst = tl_free_range(ns);
	r = mr(src, os, ns, MREMAP_RETAIN_FIXED, dst);
	if (ok_result(r, "FIXED onto a free range")) {
		tap_ok(r == dst && tl_check(dst, os, 8) &&
		       tl_zero(dst + os, ns - os) && tl_zero(src, os),
		       "[%s] FIXED free: at new_address, data moved", BN);
		munmap(r, ns);
	}
	munmap(src, os);

	/* Destination right after the source, inside the same mapping. */
	big = tl_map(os + ns, PROT_READ | PROT_WRITE);
	tl_fill(big, os + ns, 10);
	r = mr(big, os, ns, MREMAP_RETAIN_FIXED, big + os);
	if (ok_result(r, "FIXED destination adjacent after the source")) {
		tap_ok(r == big + os && tl_check(r, os, 10) &&
		       tl_zero(r + os, ns - os) && tl_zero(big, os),
		       "[%s] FIXED adjacent after: data moved, tail and source zero",
		       BN);
	}
	munmap(big, os + ns);

	/* Destination right before the source. */
	big = tl_map(os + ns, PROT_READ | PROT_WRITE);
	tl_fill(big + ns, os, 11);
	r = mr(big + ns, os, ns, MREMAP_RETAIN_FIXED, big);
	if (ok_result(r, "FIXED destination adjacent before the source")) {
		tap_ok(r == big && tl_check(r, os, 11) &&
		       tl_zero(r + os, ns - os) && tl_zero(big + ns, os) &&
		       !strcmp(tl_perms(big + ns), "rw-p"),
		       "[%s] FIXED adjacent before: data moved, tail and source zero",
		       BN);
	}
	munmap(big, os + ns);
}

/*
 * An unfaulted MLOCK_ONFAULT page moved FIXED onto the page right after it:
 * the destination must not merge with the retained source (that would
 * take the lock off the destination and leak locked_vm, as copy_vma()
 * without keep_source does on kernels without the 6.12.114/7.2.11 fix).
 */
static void t_onfault_adjacent(void)
{
	char *p = tl_map(2 * ps, PROT_READ | PROT_WRITE), *r;
	long lck0;

	munmap(p + ps, ps);
	lck0 = tl_status_kb("VmLck");
	if (syscall(SYS_mlock2, p, ps, 1 /* MLOCK_ONFAULT */)) {
		tl_skipf("[%s] MLOCK_ONFAULT next to a FIXED destination: mlock2: %s",
			 BN, strerror(errno));
		munmap(p, ps);
		return;
	}
	r = mr(p, ps, ps, MREMAP_RETAIN_FIXED, p + ps);
	if (ok_result(r, "unfaulted MLOCK_ONFAULT page onto the next page")) {
		uintptr_t s0 = 0, e0 = 0, s1 = 0, e1 = 0;
		int two = tl_vma(p, &s0, &e0, NULL) && tl_vma(p + ps, &s1, &e1, NULL);

		tap_ok(two && e0 == (uintptr_t)(p + ps) && s1 == (uintptr_t)(p + ps),
		       "[%s] onfault adjacent: source and destination are two mappings (%#lx-%#lx, %#lx-%#lx)",
		       BN, (unsigned long)s0, (unsigned long)e0,
		       (unsigned long)s1, (unsigned long)e1);
		tap_ok(tl_smaps_flag(p + ps, "lo") && !tl_smaps_flag(p, "lo"),
		       "[%s] onfault adjacent: the destination is locked, the source not",
		       BN);
		tap_ok(tl_status_kb("VmLck") - lck0 == KB(ps),
		       "[%s] onfault adjacent: VmLck counts one page (+%ld kB)", BN,
		       tl_status_kb("VmLck") - lck0);
	}
	munmap(p, 2 * ps);
	tap_ok(tl_status_kb("VmLck") == lck0,
	       "[%s] onfault adjacent: VmLck back after munmap (%ld kB, want %ld)",
	       BN, tl_status_kb("VmLck"), lck0);
}

/* The userfaultfd monitor of a FIXED destination, until told to stop. */
struct uffd_watch {
	int fd;
	struct uffd_msg msg;	/* the first event */
	int got;		/* events read */
	volatile int stop;
};

static void *uffd_watch(void *arg)
{
	struct uffd_watch *w = arg;
	struct pollfd pfd = { .fd = w->fd, .events = POLLIN };
	struct uffd_msg m;
	int i;

	for (i = 0; i < 200 && !w->stop; i++) {
		if (poll(&pfd, 1, 50) != 1 ||
		    read(w->fd, &m, sizeof(m)) != sizeof(m))
			continue;
		if (!w->got++)
			w->msg = m;
	}
	return NULL;
}

/*
 * Point 5: a FIXED destination is replaced as mremap(MREMAP_FIXED)
 * replaces it, and a userfaultfd monitor of it with UFFD_FEATURE_EVENT_UNMAP
 * hears UFFD_EVENT_UNMAP for it.
 */
static void t_fixed_uffd(void)
{
	size_t os = 4 * ps, ns = 8 * ps;
	char *src = tl_map(os, PROT_READ | PROT_WRITE);
	char *dst = tl_map(ns, PROT_READ | PROT_WRITE), *r;
	struct uffdio_api api = { .api = UFFD_API,
				  .features = UFFD_FEATURE_EVENT_UNMAP };
	struct uffdio_register reg = {
		.range = { .start = (uintptr_t)dst, .len = ns },
		.mode = UFFDIO_REGISTER_MODE_MISSING,
	};
	struct uffd_watch w = { .got = 0, .stop = 0 };
	pthread_t t;

	tl_fill(src, os, 21);
	tl_fill(dst, ns, 22);
	w.fd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (w.fd < 0)
		w.fd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK | 1);
	if (w.fd < 0 || ioctl(w.fd, UFFDIO_API, &api) ||
	    ioctl(w.fd, UFFDIO_REGISTER, &reg)) {
		tl_skipf("[%s] FIXED onto a userfaultfd-registered range: %s",
			 BN, strerror(errno));
		if (w.fd >= 0)
			close(w.fd);
		munmap(src, os);
		munmap(dst, ns);
		return;
	}
	pthread_create(&t, NULL, uffd_watch, &w);
	r = mr(src, os, ns, MREMAP_RETAIN_FIXED, dst);
	w.stop = 1;
	pthread_join(t, NULL);
	if (ok_result(r, "FIXED onto a userfaultfd-registered range"))
		tap_ok(r == dst && tl_check(dst, os, 21) &&
		       tl_zero(dst + os, ns - os) && tl_zero(src, os),
		       "[%s] FIXED uffd: data moved", BN);
	tap_ok(w.got && w.msg.event == UFFD_EVENT_UNMAP &&
	       w.msg.arg.remove.start <= (uintptr_t)dst &&
	       w.msg.arg.remove.end >= (uintptr_t)dst + ns,
	       "[%s] FIXED uffd: the monitor got UFFD_EVENT_UNMAP for the destination (%s, event %d, %#llx-%#llx)",
	       BN, w.got ? "read" : "nothing", w.got ? w.msg.event : -1,
	       w.got ? (unsigned long long)w.msg.arg.remove.start : 0ULL,
	       w.got ? (unsigned long long)w.msg.arg.remove.end : 0ULL);
	close(w.fd);
	munmap(src, os);
	munmap(dst, ns);
}

/* Point 5: without FIXED new_address is a hint only. */
static void t_hint(void)
{
	size_t os = 4 * ps, ns = 8 * ps;
	char *src, *occ, *r, *hint;

	src = tl_map(os, PROT_READ | PROT_WRITE);
	tl_fill(src, os, 12);
	hint = tl_free_range(ns);
	r = mr(src, os, ns, 0, hint);
	if (ok_result(r, "hint at a free range")) {
		tap_ok(tl_check(r, os, 12) && tl_zero(r + os, ns - os) &&
		       tl_zero(src, os),
		       "[%s] free hint: data moved (placed %s the hint)", BN,
		       r == hint ? "at" : "away from");
		munmap(r, ns);
	}
	munmap(src, os);

	src = tl_map(os, PROT_READ | PROT_WRITE);
	occ = tl_map(ns, PROT_READ | PROT_WRITE);
	tl_fill(src, os, 13);
	tl_fill(occ, ns, 14);
	r = mr(src, os, ns, 0, occ);
	if (ok_result(r, "hint at an occupied range")) {
		tap_ok((r + ns <= occ || r >= occ + ns) && tl_check(occ, ns, 14),
		       "[%s] occupied hint: occupant not replaced", BN);
		tap_ok(tl_check(r, os, 13) && tl_zero(r + os, ns - os),
		       "[%s] occupied hint: data moved elsewhere", BN);
		munmap(r, ns);
	}
	munmap(occ, ns);
	munmap(src, os);

	src = tl_map(os, PROT_READ | PROT_WRITE);
	tl_fill(src, os, 15);
	hint = tl_free_range(ns) + 123;
	r = mr(src, os, ns, 0, hint);
	if (ok_result(r, "unaligned hint (not FIXED)")) {
		tap_ok(!((uintptr_t)r & (ps - 1)) && tl_check(r, os, 15),
		       "[%s] unaligned hint: page-aligned result, data moved", BN);
		munmap(r, ns);
	}
	munmap(src, os);
}

/* Point 6: sizes are rounded up to the page size. */
static void t_round(void)
{
	char *src = tl_map(4 * ps, PROT_READ | PROT_WRITE), *r;
	long vm0;

	tl_fill(src, 4 * ps, 16);
	vm0 = tl_status_kb("VmSize");
	r = mr(src, 3 * ps + 100, 5 * ps + 1, 0, NULL);
	if (!ok_result(r, "unaligned sizes 3p+100 -> 5p+1")) {
		munmap(src, 4 * ps);
		return;
	}
	tap_ok(tl_check(r, 4 * ps, 16),
	       "[%s] rounding: old_size rounded up, all 4 pages moved", BN);
	tap_ok(tl_zero(r + 4 * ps, 2 * ps) && tl_can_write(r + 6 * ps - 1),
	       "[%s] rounding: new_size rounded up to 6 pages, tail zero", BN);
	tap_ok(tl_zero(src, 4 * ps),
	       "[%s] rounding: the whole 4-page source reads zero", BN);
	tap_ok(tl_status_kb("VmSize") - vm0 == KB(6 * ps),
	       "[%s] rounding: VmSize +6 pages (%ld kB)", BN,
	       tl_status_kb("VmSize") - vm0);
	munmap(r, 6 * ps);
	munmap(src, 4 * ps);
}

/* A vector doubling from one page to 8 MiB, as a growing allocator does. */
static void t_doubling(void)
{
	size_t sz = ps;
	char *v = tl_map(sz, PROT_READ | PROT_WRITE), *r;
	int moves = 0, bad = 0;

	tl_fill(v, sz, 17);
	while (sz < (8u << 20)) {
		r = mr(v, sz, 2 * sz, 0, NULL);
		if (r == MAP_FAILED) {
			tap_diag("[%s] doubling %zu: %s", BN, sz, strerror(errno));
			bad++;
			break;
		}
		moves++;
		if (!tl_check(r, sz, 17) || !tl_zero(r + sz, sz) ||
		    !tl_zero(v, sz))
			bad++;
		munmap(v, sz);
		tl_fill_range(r, sz, 2 * sz, 17);
		v = r;
		sz *= 2;
	}
	tap_ok(!bad && sz == (8u << 20) && tl_check(v, sz, 17),
	       "[%s] doubling 1 page -> 8 MiB: %d moves, data intact each time",
	       BN, moves);
	munmap(v, sz);
}

/* Pages shared with a forked child (COW) are moved only for the parent. */
static void t_fork_cow(void)
{
	size_t os = 8 * ps, ns = 16 * ps;
	char *src = tl_map(os, PROT_READ | PROT_WRITE), *r;
	int go[2], st = 0;
	pid_t pid;
	char c = 0;

	tl_fill(src, os, 18);
	if (pipe(go)) {
		tap_ok(0, "[%s] fork: pipe", BN);
		return;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		int rc;

		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(3);
		rc = tl_check(src, os, 18) ? 0 : 1;
		tl_fill(src, os, 19);
		_exit(rc);
	}
	close(go[0]);
	r = mr(src, os, ns, 0, NULL);
	if (ok_result(r, "move of pages shared with a forked child")) {
		tap_ok(tl_check(r, os, 18) && tl_zero(r + os, ns - os) &&
		       tl_zero(src, os),
		       "[%s] fork: parent's destination holds the data", BN);
		tl_fill(r, ns, 20);
		tl_fill(src, os, 21);
	}
	if (write(go[1], &c, 1) != 1)
		tap_diag("write to child failed");
	close(go[1]);
	waitpid(pid, &st, 0);
	tap_ok(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	       "[%s] fork: child's copy unaffected by parent's move and writes (status %#x)",
	       BN, st);
	if (r != MAP_FAILED) {
		tap_ok(tl_check(r, ns, 20) && tl_check(src, os, 21),
		       "[%s] fork: parent unaffected by child's writes", BN);
		munmap(r, ns);
	}
	munmap(src, os);
}

/* Point 1: same physical pages for module and dontunmap (root only). */
static void t_pfn(void)
{
	size_t os = 8 * ps, ns = 12 * ps, i;
	char *src;
	int64_t pfn[8];
	char *r;
	int same = 1;

	if (!strcmp(BN, "copy"))
		return;		/* the copy backend copies, by contract */
	src = tl_map(os, PROT_READ | PROT_WRITE);
	tl_fill(src, os, 22);
	for (i = 0; i < 8; i++)
		pfn[i] = tl_pfn(src + i * ps);
	if (pfn[0] <= 0) {
		tl_skipf("[%s] same physical pages: pagemap PFNs unreadable "
			 "(need root; got %lld)", BN, (long long)pfn[0]);
		munmap(src, os);
		return;
	}
	r = mr(src, os, ns, 0, NULL);
	if (ok_result(r, "move for the physical page check")) {
		for (i = 0; i < 8; i++)
			if (tl_pfn(r + i * ps) != pfn[i]) {
				tap_diag("page %zu: pfn %#llx -> %#llx", i,
					 (long long)pfn[i],
					 (long long)tl_pfn(r + i * ps));
				same = 0;
			}
		tap_ok(same && tl_check(r, os, 22),
		       "[%s] no copy: destination has the source's PFNs", BN);
		munmap(r, ns);
	}
	munmap(src, os);
}

int main(void)
{
	int b, i;

	tl_start("semantics");

	/* Default backend, before anything selects one. */
	b = mremap_retain_backend();
	if (tl_host)
		tap_ok(b == MREMAP_RETAIN_BACKEND_DONTUNMAP ||
		       b == MREMAP_RETAIN_BACKEND_MODULE,
		       "default backend on this host: %s",
		       mremap_retain_backend_name(b) ? mremap_retain_backend_name(b) : "?");
	else
		tap_ok(b == MREMAP_RETAIN_BACKEND_MODULE,
		       "default backend with the module loaded is module (got %d %s)",
		       b, mremap_retain_backend_name(b) ? mremap_retain_backend_name(b) : "?");

	tap_ok(!strcmp(mremap_retain_backend_name(1) ? mremap_retain_backend_name(1) : "", "module") &&
	       !strcmp(mremap_retain_backend_name(2) ? mremap_retain_backend_name(2) : "", "dontunmap") &&
	       !strcmp(mremap_retain_backend_name(3) ? mremap_retain_backend_name(3) : "", "copy") &&
	       !mremap_retain_backend_name(0) && !mremap_retain_backend_name(99),
	       "backend names: module, dontunmap, copy, NULL for unknown");

	for (i = 0; i < 3; i++) {
		if (!tl_use_backend(tl_backends[i], "semantics"))
			continue;
		tap_ok(mremap_retain_backend() == tl_backends[i],
		       "[%s] set_backend selects it (backend() = %d)", BN,
		       mremap_retain_backend());
		t_sizes();
		t_prot();
		t_mlock();
		t_fixed();
		t_fixed_uffd();
		t_onfault_adjacent();
		t_hint();
		t_round();
		t_doubling();
		t_fork_cow();
		t_pfn();
	}
	return tap_done();
}
