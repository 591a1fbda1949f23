// SPDX-License-Identifier: MIT
/*
 * states.c - (root) memory in every state the kernel can leave anonymous
 * pages in, moved with each backend and checked byte for byte; for the
 * module and dontunmap backends also that the pages themselves moved
 * (pagemap PFNs, swap entries, soft-dirty bits):
 *
 *   PMD-mapped THP (grow, same, shrink), PTE-mapped large folios (a THP
 *   split by mprotect, a THP partly unmapped), pages swapped out to zram,
 *   pages shared with a forked child (COW), KSM-merged pages, mlocked
 *   ranges (shrink, same size, FIXED over an occupied range), soft-dirty
 *   tracking, and a source whose userfaultfd registration was removed.
 *
 * The plain mlocked grow and the basic fork case are in semantics.c, the
 * userfaultfd EINVAL in errno.c, THP kept huge by an aligned module move in
 * module_only.c.
 */
#include <linux/userfaultfd.h>
#include <sys/ioctl.h>
#include <sys/swap.h>
#include <sys/syscall.h>

#include "testlib.h"

#define H		TL_HUGE
#define MAXPG		1024
#define KB(x)		((long)((x) / 1024))
#define ZRAM		"/sys/block/zram0"
#define KSM		"/sys/kernel/mm/ksm/"

static int64_t pfn0[MAXPG];
static uint64_t pme0[MAXPG];

/*
 * Kernel threads that move pages on their own, quiet for the run: the PFN
 * checks read pagemap before and after a move, and a page migrated by
 * proactive compaction (5.9+), or a PTE-mapped THP collapsed by
 * khugepaged, in between would read as a copy (bookworm-6.12 once: one
 * page of a split THP's 512).  khugepaged makes one pass as soon as its
 * sleep is set, then sleeps a day.
 */
static struct {
	const char *path, *value;
	char saved[16];
} quiet[] = {
	{ .path = "/proc/sys/vm/compaction_proactiveness", .value = "0" },
	{ .path = "/sys/kernel/mm/transparent_hugepage/khugepaged/"
		  "scan_sleep_millisecs", .value = "86400000" },
};

static int keeps_pages(void)
{
	return strcmp(BN, "copy") != 0;
}

/* The PFNs of [p, p + len) into pfn0. */
static void save_pfns(const char *p, size_t len)
{
	size_t i;

	for (i = 0; i < len / ps && i < MAXPG; i++)
		pfn0[i] = tl_pfn(p + i * ps);
}

/* 1 if [r, r + len) has the PFNs saved by save_pfns (diag on a miss). */
static int same_pfns(const char *r, size_t len)
{
	size_t i;

	for (i = 0; i < len / ps && i < MAXPG; i++) {
		int64_t now = tl_pfn(r + i * ps);

		if (pfn0[i] <= 0 || now != pfn0[i]) {
			tap_diag("page %zu: pfn %#llx -> %#llx (kpageflags "
				 "%#llx -> %#llx)", i, (long long)pfn0[i],
				 (long long)now,
				 (unsigned long long)tl_kpageflags(pfn0[i]),
				 (unsigned long long)tl_kpageflags(now));
			return 0;
		}
	}
	return 1;
}

/*
 * The common checks of a move of [src, src + os) holding pattern seed to
 * ns bytes: result, bytes, zero tail, fresh zero source with its
 * protection, and (module, dontunmap) the PFNs saved before.  Returns the
 * destination or NULL.
 */
static char *move_check(const char *tag, char *src, size_t os, size_t ns,
			int flags, void *na, uint64_t seed, int pfns)
{
	size_t keep = os < ns ? os : ns;
	char *r;

	errno = 0;
	r = mremap_retain(src, os, ns, flags, na);
	if (!tap_ok(r != MAP_FAILED, "[%s] %s: move succeeds (%s)", BN, tag,
		    r == MAP_FAILED ? tl_errname(errno) : "ok"))
		return NULL;
	if (pfns && keeps_pages())
		tap_ok(same_pfns(r, keep), "[%s] %s: destination has the "
		       "source's physical pages", BN, tag);
	tap_ok(tl_check(r, keep, seed) && tl_zero(r + keep, ns - keep),
	       "[%s] %s: bytes moved, grown tail zero", BN, tag);
	tap_ok(!strcmp(tl_perms(src), "rw-p") && tl_zero(src, os),
	       "[%s] %s: source still mapped rw-p and reads zero", BN, tag);
	return r;
}

/* ---- transparent huge pages ---- */

static void t_thp_pmd(void)
{
	static const struct { size_t ns; const char *tag; } c[] = {
		{ 2 * H, "PMD-mapped THP grown 2 to 4 MiB" },
		{ H, "PMD-mapped THP, same size" },
		{ H / 2, "PMD-mapped THP shrunk to 1 MiB" },
	};
	unsigned i;

	for (i = 0; i < 3; i++) {
		char *raw, *r;
		char *src = tl_thp_region(&raw, 30 + i, "[%s] %s", BN, c[i].tag);

		if (!src)
			continue;
		save_pfns(src, H);
		r = move_check(c[i].tag, src, H, c[i].ns, 0, NULL, 30 + i, 1);
		if (r)
			munmap(r, c[i].ns);
		munmap(raw, 2 * H);
	}
}

/* A THP split into PTEs by mprotect of one page, then merged back. */
static void t_thp_pte(void)
{
	char *raw, *src, *r;
	const char *tag = "PTE-mapped large folio (THP split by mprotect)";
	long ahp;

	src = tl_thp_region(&raw, 40, "[%s] %s", BN, tag);
	if (!src)
		return;
	mprotect(src + H / 2, ps, PROT_READ);
	mprotect(src + H / 2, ps, PROT_READ | PROT_WRITE);
	ahp = tl_smaps_kb(src, "AnonHugePages");
	save_pfns(src, H);
	if (ahp != 0 || !(tl_kpageflags(pfn0[0]) & TL_KPF_THP) ||
	    pfn0[511] != pfn0[0] + 511) {
		tl_skipf("[%s] %s: not PTE-mapped large (AnonHugePages %ld kB, "
			 "pfn %#llx..%#llx)", BN, tag, ahp,
			 (long long)pfn0[0], (long long)pfn0[511]);
		munmap(raw, 2 * H);
		return;
	}
	r = move_check(tag, src, H, H + 16 * ps, 0, NULL, 40, 1);
	if (r)
		munmap(r, H + 16 * ps);
	munmap(raw, 2 * H);
}

/* The middle of a THP whose last pages were unmapped. */
static void t_thp_partial(void)
{
	const char *tag = "part of a partly unmapped THP";
	size_t off = 100 * ps, os = 64 * ps, ns = 80 * ps, end = H - 16 * ps;
	char *raw, *src, *r;

	src = tl_thp_region(&raw, 41, "[%s] %s", BN, tag);
	if (!src)
		return;
	munmap(src + end, H - end);
	save_pfns(src + off, os);
	if (!(tl_kpageflags(pfn0[0]) & TL_KPF_THP)) {
		tl_skipf("[%s] %s: folio no longer large", BN, tag);
		munmap(raw, 2 * H);
		return;
	}
	/* pattern indices relative to src + off: refill with its own seed */
	tl_fill(src + off, os, 42);
	save_pfns(src + off, os);
	r = move_check(tag, src + off, os, ns, 0, NULL, 42, 1);
	tap_ok(tl_check_range(src, 0, off, 41) &&
	       tl_check_range(src, off + os, end, 41),
	       "[%s] %s: the rest of the source mapping intact", BN, tag);
	if (r)
		munmap(r, ns);
	munmap(raw, 2 * H);
}

/* ---- swapped-out pages (zram swap set up by main) ---- */

static int have_swap;
static char swap_why[256] = "not set up";

static int swapped(const char *p)
{
	return (tl_pagemap(p) & (TL_PM_SWAP | TL_PM_PRESENT)) == TL_PM_SWAP;
}

/* Pushes the pages of [p, p + len) whose index has (i & mask) == 0 out. */
static int page_out(char *p, size_t len, size_t mask)
{
	size_t i;
	int all = 1;

	for (i = 0; i < len / ps; i++)
		if (!(i & mask))
			madvise(p + i * ps, ps, 21 /* MADV_PAGEOUT */);
	for (i = 0; i < len / ps && i < MAXPG; i++) {
		pme0[i] = tl_pagemap(p + i * ps);
		if (!(i & mask) && !swapped(p + i * ps))
			all = 0;
	}
	return all;
}

/* Swap entries saved by page_out still at r (module, dontunmap). */
static int same_swap(const char *r, size_t len, size_t mask)
{
	const uint64_t m = TL_PM_SWAP | TL_PM_PRESENT | TL_PM_FRAME;
	size_t i;

	for (i = 0; i < len / ps && i < MAXPG; i++) {
		uint64_t e = tl_pagemap(r + i * ps);

		if (!(i & mask) && (e & m) != (pme0[i] & m)) {
			tap_diag("page %zu: pagemap %#llx -> %#llx", i,
				 (unsigned long long)pme0[i],
				 (unsigned long long)e);
			return 0;
		}
	}
	return 1;
}

static void swap_case(const char *tag, size_t os, size_t ns, size_t mask,
		      uint64_t seed)
{
	char *src = tl_map(os, PROT_READ | PROT_WRITE), *r;
	size_t keep = os < ns ? os : ns;

	madvise(src, os, MADV_NOHUGEPAGE);
	tl_fill(src, os, seed);
	if (!page_out(src, os, mask)) {
		tl_skipf("[%s] %s: MADV_PAGEOUT left pages resident", BN, tag);
		munmap(src, os);
		return;
	}
	errno = 0;
	r = mremap_retain(src, os, ns, 0, NULL);
	if (!tap_ok(r != MAP_FAILED, "[%s] %s: move succeeds (%s)", BN, tag,
		    r == MAP_FAILED ? tl_errname(errno) : "ok")) {
		munmap(src, os);
		return;
	}
	/* before anything reads the destination */
	if (keeps_pages())
		tap_ok(same_swap(r, keep, mask), "[%s] %s: destination holds "
		       "the same swap entries, still swapped out", BN, tag);
	tap_ok(tl_check(r, keep, seed) && tl_zero(r + keep, ns - keep),
	       "[%s] %s: bytes swapped back in at the destination", BN, tag);
	tap_ok(!swapped(src) && tl_zero(src, os) &&
	       !strcmp(tl_perms(src), "rw-p"),
	       "[%s] %s: source fresh and zero, no swap entry", BN, tag);
	munmap(r, ns);
	munmap(src, os);
}

static void t_swap(void)
{
	if (!have_swap) {
		tl_skipf("[%s] swapped-out pages: no swap (%s)", BN, swap_why);
		return;
	}
	swap_case("32 swapped-out pages grown to 64", 32 * ps, 64 * ps, 0, 50);
	swap_case("every other page swapped out, same size", 32 * ps,
		  32 * ps, 1, 51);
	swap_case("32 swapped-out pages shrunk to 8", 32 * ps, 8 * ps, 0, 52);
}

/* Writes a swap header and swapon()s /dev/zram0; 1 on success. */
static int swap_setup(void)
{
	size_t size = 64 << 20;
	static char hdr[65536];
	uint32_t *info = (uint32_t *)(hdr + 1024);
	char v[64];
	int fd, i;

	if (access(ZRAM, F_OK) && !access("/sys/class/zram-control/hot_add",
					  F_OK)) {
		char n[16];

		tl_read_sys("/sys/class/zram-control/hot_add", n, sizeof(n));
	}
	if (access(ZRAM, F_OK)) {
		snprintf(swap_why, sizeof(swap_why), "no " ZRAM " (zram not "
			 "loaded: is it in tests/vm/kmods?)");
		return 0;
	}
	tl_write_sys(ZRAM "/reset", "1");
	snprintf(v, sizeof(v), "%zu", size);
	if (tl_write_sys(ZRAM "/disksize", v)) {
		snprintf(swap_why, sizeof(swap_why), "zram disksize: %s",
			 strerror(errno));
		return 0;
	}
	for (i = 0; i < 50 && access("/dev/zram0", F_OK); i++)
		usleep(100000);
	fd = open("/dev/zram0", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		snprintf(swap_why, sizeof(swap_why), "open /dev/zram0: %s",
			 strerror(errno));
		return 0;
	}
	info[0] = 1;				/* version */
	info[1] = size / ps - 1;		/* last_page */
	info[2] = 0;				/* nr_badpages */
	memcpy(hdr + ps - 10, "SWAPSPACE2", 10);
	if (pwrite(fd, hdr, ps, 0) != (ssize_t)ps || fsync(fd)) {
		snprintf(swap_why, sizeof(swap_why), "write swap header: %s",
			 strerror(errno));
		close(fd);
		return 0;
	}
	close(fd);
	if (swapon("/dev/zram0", 0)) {
		snprintf(swap_why, sizeof(swap_why), "swapon: %s",
			 strerror(errno));
		return 0;
	}
	tap_diag("swap: 64 MiB zram (SwapTotal %ld kB)",
		 tl_meminfo_kb("SwapTotal"));
	return 1;
}

/* ---- pages shared with a forked child ---- */

static int xfer(int fd, void *buf, size_t n, int wr)
{
	return (wr ? write(fd, buf, n) : read(fd, buf, n)) == (ssize_t)n;
}

/*
 * The parent moves pages it shares with a child; both check the bytes
 * (and that they still share the physical pages), then each writes one
 * page and the other must not see it.
 */
static void t_fork(void)
{
	size_t os = 16 * ps, ns = 24 * ps, i;
	char *src = tl_map(os, PROT_READ | PROT_WRITE), *r = MAP_FAILED;
	int to_c[2], to_p[2], st = 0, ok = 1;
	int64_t cpfn[16];
	char c = 0;
	pid_t pid;

	madvise(src, os, MADV_NOHUGEPAGE);
	tl_fill(src, os, 60);
	if (pipe(to_c) || pipe(to_p)) {
		tap_ok(0, "[%s] fork: pipe", BN);
		return;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		int rc = 0;

		for (i = 0; i < 16; i++)
			cpfn[i] = tl_pfn(src + i * ps);
		if (!xfer(to_p[1], cpfn, sizeof(cpfn), 1) ||
		    !xfer(to_c[0], &c, 1, 0))		/* parent moved */
			_exit(10);
		if (!tl_check(src, os, 60))
			rc |= 1;
		for (i = 0; i < 16; i++)
			if (tl_pfn(src + i * ps) != cpfn[i])
				rc |= 2;
		tl_fill_range(src, 0, ps, 61);		/* child's write */
		if (!xfer(to_p[1], &c, 1, 1) ||
		    !xfer(to_c[0], &c, 1, 0))		/* parent wrote */
			_exit(11);
		if (!tl_check_range(src, ps, os, 60) ||
		    !tl_check_range(src, 0, ps, 61))
			rc |= 4;
		_exit(rc);
	}
	if (!xfer(to_p[0], cpfn, sizeof(cpfn), 0)) {
		tap_ok(0, "[%s] fork: child did not report", BN);
		ok = 0;
	}
	if (ok) {
		memcpy(pfn0, cpfn, sizeof(cpfn));
		r = move_check("pages shared with a forked child", src, os,
			       ns, 0, NULL, 60, 1);
	}
	xfer(to_c[1], &c, 1, 1);
	if (xfer(to_p[0], &c, 1, 0) && r) {
		tap_ok(tl_check(r, os, 60), "[%s] fork: parent unaffected by "
		       "the child's write to its page 0", BN);
		tl_fill_range(r, ps, 2 * ps, 62);	/* parent's write */
		if (keeps_pages())
			tap_ok(tl_pfn(r + ps) != cpfn[1] &&
			       tl_pfn(r + 2 * ps) == cpfn[2],
			       "[%s] fork: parent's write broke COW of that "
			       "page only", BN);
	}
	xfer(to_c[1], &c, 1, 1);
	waitpid(pid, &st, 0);
	tap_ok(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	       "[%s] fork: child saw its bytes and PFNs unchanged by the move, "
	       "and not the parent's write (status %#x: 1 bytes, 2 pfns, 4 "
	       "after write)", BN, st);
	if (r)
		munmap(r, ns);
	munmap(src, os);
	close(to_c[0]);
	close(to_c[1]);
	close(to_p[0]);
	close(to_p[1]);
}

/* ---- KSM-merged pages ---- */

static char ksm_run0[16], ksm_scan0[16], ksm_sleep0[16];
static int ksm_ready = -1;	/* -1 not tried, 0 unusable, 1 ok */
static char ksm_why[256];

static long ksm_sharing(void)
{
	char b[32];

	return tl_read_sys(KSM "pages_sharing", b, sizeof(b)) ? -1 : atol(b);
}

/* Two regions of n identical pages each; waits until KSM merged them. */
static int ksm_merge(char *a, char *b, size_t n)
{
	long s0 = ksm_sharing(), s;
	size_t i;
	int t;

	for (i = 0; i < n; i++) {
		tl_fill(a + i * ps, ps, 70);
		tl_fill(b + i * ps, ps, 70);
	}
	if (madvise(a, n * ps, MADV_MERGEABLE) ||
	    madvise(b, n * ps, MADV_MERGEABLE)) {
		snprintf(ksm_why, sizeof(ksm_why), "MADV_MERGEABLE: %s",
			 strerror(errno));
		return 0;
	}
	tl_write_sys(KSM "run", "1");
	for (t = 0; t < 300; t++) {	/* 30 s */
		s = ksm_sharing();
		if (s - s0 >= (long)(2 * n - 2) &&
		    (tl_kpageflags(tl_pfn(a)) & TL_KPF_KSM))
			break;
		usleep(100000);
	}
	if (t == 300) {
		snprintf(ksm_why, sizeof(ksm_why), "KSM did not merge within "
			 "30 s (pages_sharing %ld -> %ld)", s0, ksm_sharing());
		return 0;
	}
	tap_diag("[%s] KSM merged after %.1f s (pages_sharing +%ld)", BN,
		 t / 10.0, ksm_sharing() - s0);
	return 1;
}

/*
 * What the kernel's own mremap(2) does with merged pages (-1 not known):
 * the number of 16 moved KSM pages still KSM at its destination.  The
 * module and dontunmap backends must do the same (6.1 and 7.2 unmerge
 * them; 6.12 was seen to leave them merged).
 */
static int ksm_ref = -1;

static void ksm_reference(void)
{
	size_t n = 16, len = n * ps, i;
	char *a = tl_map(len, PROT_READ | PROT_WRITE);
	char *b = tl_map(len, PROT_READ | PROT_WRITE), *r;

	madvise(a, len, MADV_NOHUGEPAGE);
	madvise(b, len, MADV_NOHUGEPAGE);
	if (ksm_merge(a, b, n)) {
		tl_write_sys(KSM "run", "0");
		r = mremap(a, len, len, MREMAP_MAYMOVE | MREMAP_FIXED,
			   tl_free_range(len));
		if (r != MAP_FAILED) {
			for (ksm_ref = 0, i = 0; i < n; i++)
				if (tl_kpageflags(tl_pfn(r + i * ps)) & TL_KPF_KSM)
					ksm_ref++;
			tap_diag("KSM reference: the kernel's mremap(2) left %d "
				 "of %zu moved pages KSM", ksm_ref, n);
			munmap(r, len);
		}
	}
	munmap(a, len);
	munmap(b, len);
	tl_write_sys(KSM "run", "2");
}

static void t_ksm(void)
{
	size_t n = 16, len = n * ps, i;
	char *a, *b, *r;
	int64_t kpfn;
	int others = 1, ksm_left = 0;

	if (ksm_ready == 0) {
		tl_skipf("[%s] KSM-merged pages: %s", BN, ksm_why);
		return;
	}
	if (ksm_ready < 0) {
		ksm_ready = 0;
		if (tl_read_sys(KSM "run", ksm_run0, sizeof(ksm_run0)) ||
		    tl_read_sys(KSM "pages_to_scan", ksm_scan0, sizeof(ksm_scan0)) ||
		    tl_read_sys(KSM "sleep_millisecs", ksm_sleep0, sizeof(ksm_sleep0)) ||
		    tl_write_sys(KSM "pages_to_scan", "4000") ||
		    tl_write_sys(KSM "sleep_millisecs", "10") ||
		    tl_write_sys(KSM "run", "1")) {
			snprintf(ksm_why, sizeof(ksm_why), "cannot start ksmd "
				 "via " KSM ": %s", strerror(errno));
			tl_skipf("[%s] KSM-merged pages: %s", BN, ksm_why);
			return;
		}
		ksm_ready = 1;
		ksm_reference();
	}
	a = tl_map(len, PROT_READ | PROT_WRITE);
	b = tl_map(len, PROT_READ | PROT_WRITE);
	madvise(a, len, MADV_NOHUGEPAGE);
	madvise(b, len, MADV_NOHUGEPAGE);
	if (!ksm_merge(a, b, n)) {
		ksm_ready = 0;
		tl_skipf("[%s] KSM-merged pages: %s", BN, ksm_why);
		munmap(a, len);
		munmap(b, len);
		return;
	}
	kpfn = tl_pfn(a);
	/*
	 * ksmd stopped (pages stay merged): it would merge the moved pages
	 * again at once, as the destination is VM_MERGEABLE too.
	 */
	tl_write_sys(KSM "run", "0");
	/* pattern by word index: every page holds page 0's words */
	r = mremap_retain(a, len, 2 * len, 0, NULL);
	if (!tap_ok(r != MAP_FAILED, "[%s] KSM-merged pages grown 16 to 32: "
		    "move succeeds (%s)", BN,
		    r == MAP_FAILED ? tl_errname(errno) : "ok")) {
		munmap(a, len);
		munmap(b, len);
		return;
	}
	for (i = 0; i < n; i++) {
		if (!tl_check(r + i * ps, ps, 70) || !tl_check(b + i * ps, ps, 70))
			others = 0;
		if (tl_kpageflags(tl_pfn(r + i * ps)) & TL_KPF_KSM)
			ksm_left++;
	}
	tap_ok(others && tl_zero(r + len, len) && tl_zero(a, len),
	       "[%s] KSM: bytes at the destination and in the other merged "
	       "region, tail and source zero", BN);
	/* as the kernel's mremap(2): KSM pages unmerged (or not) */
	if (keeps_pages() && ksm_ref >= 0)
		tap_ok(ksm_left == ksm_ref, "[%s] KSM: moved pages treated as "
		       "by mremap(2): %d of %zu still KSM (mremap: %d; ksm pfn "
		       "%#llx)", BN, ksm_left, n, ksm_ref, (long long)kpfn);
	else if (keeps_pages())
		tl_skipf("[%s] KSM: no mremap(2) reference to compare with", BN);
	tl_fill_range(r + 3 * ps, 0, ps, 71);
	tl_fill_range(b + 5 * ps, 0, ps, 72);
	others = 1;
	for (i = 0; i < n; i++) {
		if (i != 3 && !tl_check(r + i * ps, ps, 70))
			others = 0;
		if (i != 5 && !tl_check(b + i * ps, ps, 70))
			others = 0;
	}
	tap_ok(others && tl_check(r + 3 * ps, ps, 71) &&
	       tl_check(b + 5 * ps, ps, 72) && tl_zero(a, len),
	       "[%s] KSM: a write to one page leaves every other page alone",
	       BN);
	munmap(r, 2 * len);
	munmap(a, len);
	munmap(b, len);
	/* unmerge all and reset the counters for the next backend */
	tl_write_sys(KSM "run", "2");
}

static void ksm_restore(void)
{
	if (ksm_run0[0]) {
		tl_write_sys(KSM "run", "2");	/* unmerge everything */
		tl_write_sys(KSM "pages_to_scan", ksm_scan0);
		tl_write_sys(KSM "sleep_millisecs", ksm_sleep0);
		tl_write_sys(KSM "run", ksm_run0);
	}
}

/* ---- mlocked ranges ---- */

/* Sum of smaps "Locked" over the mappings covering [p, p + len). */
static long locked_kb(char *p, size_t len)
{
	uintptr_t s, e, a = (uintptr_t)p;
	long sum = 0;

	while (a < (uintptr_t)p + len && tl_vma((void *)a, &s, &e, NULL)) {
		sum += tl_smaps_kb((void *)a, "Locked");
		a = e;
	}
	return sum;
}

static void mlock_case(const char *tag, size_t os, size_t ns, int fixed)
{
	char *src = tl_map(os, PROT_READ | PROT_WRITE), *r, *dst = NULL;
	long lck0 = tl_status_kb("VmLck"), lck;

	tl_fill(src, os, 80);
	if (fixed) {
		dst = tl_map(ns, PROT_READ | PROT_WRITE);
		tl_fill(dst, ns, 81);
	}
	if (mlock(src, os)) {
		tl_skipf("[%s] %s: mlock: %s", BN, tag, strerror(errno));
		munmap(src, os);
		if (dst)
			munmap(dst, ns);
		return;
	}
	save_pfns(src, os);
	r = move_check(tag, src, os, ns, fixed ? MREMAP_RETAIN_FIXED : 0,
		       dst, 80, 1);
	if (!r) {
		munmap(src, os);
		if (dst)
			munmap(dst, ns);
		return;
	}
	lck = tl_status_kb("VmLck");
	tap_ok(tl_smaps_flag(r, "lo") && tl_smaps_flag(r + ns - ps, "lo") &&
	       locked_kb(r, ns) == KB(ns) && tl_resident(r, ns),
	       "[%s] %s: destination locked and resident (Locked %ld kB in "
	       "its mappings, want %ld)", BN, tag, locked_kb(r, ns), KB(ns));
	tap_ok(!tl_smaps_flag(src, "lo") && tl_smaps_kb(src, "Locked") == 0,
	       "[%s] %s: source unlocked", BN, tag);
	tap_ok(lck - lck0 == KB(ns), "[%s] %s: VmLck exact (+%ld kB, want "
	       "+%ld)", BN, tag, lck - lck0, KB(ns));
	munmap(r, ns);
	munmap(src, os);
	tap_ok(tl_status_kb("VmLck") == lck0, "[%s] %s: VmLck back after "
	       "munmap (%ld kB, want %ld)", BN, tag, tl_status_kb("VmLck"),
	       lck0);
}

static void t_mlock(void)
{
	mlock_case("mlocked 16 pages shrunk to 4", 16 * ps, 4 * ps, 0);
	mlock_case("mlocked 8 pages, same size", 8 * ps, 8 * ps, 0);
	mlock_case("mlocked 4 pages grown to 12 over a mapped FIXED "
		   "destination", 4 * ps, 12 * ps, 1);
}

/* ---- soft-dirty ---- */

static void t_softdirty(void)
{
	size_t os = 16 * ps, ns = 32 * ps, i;
	char *src = tl_map(os, PROT_READ | PROT_WRITE), *r;
	int clean = 1, dirty = 1;

	madvise(src, os, MADV_NOHUGEPAGE);
	tl_fill(src, os, 90);
	if (tl_write_sys("/proc/self/clear_refs", "4")) {
		tl_skipf("[%s] soft-dirty: clear_refs: %s", BN, strerror(errno));
		munmap(src, os);
		return;
	}
	for (i = 0; i < os / ps; i++)
		if (tl_pagemap(src + i * ps) & TL_PM_SOFTDIRTY)
			clean = 0;
	if (!clean) {
		tl_skipf("[%s] soft-dirty: bits not cleared by clear_refs 4", BN);
		munmap(src, os);
		return;
	}
	tl_fill_range(src, 0, 4 * ps, 91);	/* pages 0-3 written again */
	save_pfns(src, os);
	errno = 0;
	r = mremap_retain(src, os, ns, 0, NULL);
	if (!tap_ok(r != MAP_FAILED, "[%s] soft-dirty: move succeeds (%s)", BN,
		    r == MAP_FAILED ? tl_errname(errno) : "ok")) {
		munmap(src, os);
		return;
	}
	for (i = 0; i < os / ps; i++)
		if (!(tl_pagemap(r + i * ps) & TL_PM_SOFTDIRTY)) {
			tap_diag("page %zu: pagemap %#llx", i,
				 (unsigned long long)tl_pagemap(r + i * ps));
			dirty = 0;
		}
	tap_ok(dirty, "[%s] soft-dirty: every moved page is soft-dirty at the "
	       "destination (written or not)", BN);
	if (keeps_pages())
		tap_ok(same_pfns(r, os), "[%s] soft-dirty: same physical pages",
		       BN);
	tap_ok(tl_check_range(r, 0, 4 * ps, 91) &&
	       tl_check_range(r, 4 * ps, os, 90) && tl_zero(r + os, ns - os) &&
	       tl_zero(src, os), "[%s] soft-dirty: bytes moved", BN);
	munmap(r, ns);
	munmap(src, os);
}

/* ---- userfaultfd: registration removed, or on another mapping ---- */

static void t_uffd(void)
{
	size_t len = 8 * ps;
	char *src = tl_map(len, PROT_READ | PROT_WRITE), *nb, *r;
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };
	struct uffdio_range rng = { .start = (uintptr_t)src, .len = len };
	int fd;

	tl_fill(src, len, 95);
	nb = tl_map(len, PROT_READ | PROT_WRITE);
	tl_fill(nb, len, 96);
	fd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		tl_skipf("[%s] userfaultfd unregistered source: userfaultfd: %s",
			 BN, strerror(errno));
		munmap(src, len);
		munmap(nb, len);
		return;
	}
	reg.range = rng;
	if (ioctl(fd, UFFDIO_API, &api) || ioctl(fd, UFFDIO_REGISTER, &reg) ||
	    ioctl(fd, UFFDIO_UNREGISTER, &rng)) {
		tap_ok(0, "[%s] userfaultfd register/unregister: %s", BN,
		       strerror(errno));
	} else {
		save_pfns(src, len);
		r = move_check("source after UFFDIO_UNREGISTER (fd open)", src,
			       len, 2 * len, 0, NULL, 95, 1);
		if (r)
			munmap(r, 2 * len);
	}
	/* another mapping registered: the source is not */
	reg.range.start = (uintptr_t)nb;
	src = tl_map(len, PROT_READ | PROT_WRITE);
	tl_fill(src, len, 97);
	if (ioctl(fd, UFFDIO_REGISTER, &reg)) {
		tap_ok(0, "[%s] userfaultfd register neighbour: %s", BN,
		       strerror(errno));
	} else {
		save_pfns(src, len);
		r = move_check("source while another mapping is registered",
			       src, len, 2 * len, 0, NULL, 97, 1);
		tap_ok(tl_check(nb, len, 96), "[%s] registered mapping intact",
		       BN);
		if (r)
			munmap(r, 2 * len);
	}
	close(fd);
	munmap(src, len);
	munmap(nb, len);
}

static void run_backend(void)
{
	t_thp_pmd();
	t_thp_pte();
	t_thp_partial();
	t_swap();
	t_fork();
	t_ksm();
	t_mlock();
	t_softdirty();
	t_uffd();
}

int main(void)
{
	unsigned int i;

	tl_start("states");
	if (geteuid() || tl_host) {
		tap_skip("memory states: needs root in the guest (pagemap "
			 "PFNs, swap, KSM, clear_refs)");
		return tap_done();
	}
	for (i = 0; i < sizeof(quiet) / sizeof(quiet[0]); i++)
		if (tl_read_sys(quiet[i].path, quiet[i].saved,
				sizeof(quiet[i].saved)) ||
		    tl_write_sys(quiet[i].path, quiet[i].value))
			quiet[i].saved[0] = 0;
	have_swap = swap_setup();
	tl_run("memory states", run_backend);
	ksm_restore();
	for (i = 0; i < sizeof(quiet) / sizeof(quiet[0]); i++)
		if (quiet[i].saved[0])
			tl_write_sys(quiet[i].path, quiet[i].saved);
	if (have_swap) {
		if (swapoff("/dev/zram0"))
			tap_diag("swapoff: %s", strerror(errno));
		tl_write_sys(ZRAM "/reset", "1");
	}
	return tap_done();
}
