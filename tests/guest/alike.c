// SPDX-License-Identifier: MIT
/*
 * alike.c - a FIXED move into a mapping alike to the source's
 * (MREMAP_RETAIN_MOVE_ALIKE, userlib/move_into.c): where the module
 * announces MREMAP_RETAIN_FEAT_ALIKE, the ioctl answers 1 and changes
 * nothing for an alike destination, and moves as before for any other;
 * the library then moves the pages into the destination's mapping, which
 * keeps the number of mappings, and ends as the move by page tables would:
 * the same pages, the source fresh, growth zero, a shrunk source's tail
 * zero.  Pages the kernel will not move that way (shared with a child
 * after fork()) take the page-table move, the child's copy untouched.  A
 * destination whose mapping differs (a madvise flag) gets the source's.
 * A signal handler that reads the destination while moves into it go on
 * never waits on the library's registration of it.  Where the module does
 * not announce it, the flag is EINVAL.
 */
#include <sys/ioctl.h>

#include <mremap_retain/ioctl.h>

#include "../sigreader.h"
#include "testlib.h"

#define DEV "/dev/" MREMAP_RETAIN_DEVICE_NAME

static int dev_fd = -1;
static unsigned int features;

/* Two RW mappings with a gap between them, so that they never merge: the
 * source's, @len bytes filled with @seed, and the destination's, a page
 * longer at each end than the @len bytes at *dst (so that a move by page
 * tables would cut it in three), filled with another pattern.  TWO_LEN:
 * the span to unmap from *src. */
#define TWO_LEN(len)	(2 * (len) + 3 * ps)

static void two_maps(size_t len, uint64_t seed, char **src, char **dst)
{
	char *r = tl_map(TWO_LEN(len), PROT_NONE);

	munmap(r + len, ps);
	*src = mmap(r, len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	*dst = mmap(r + len + ps, len + 2 * ps, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	tl_fill(*dst, len + 2 * ps, seed + 100);
	*dst += ps;
	tl_fill(*src, len, seed);
	tl_fill(*dst, len, seed + 100);
}

static int ioctl_move(char *src, size_t os, size_t ns, char *dst,
		      unsigned int flags, int *err)
{
	struct mremap_retain_move m = {
		.old_addr = (uintptr_t)src, .old_size = os, .new_size = ns,
		.new_addr = (uintptr_t)dst, .flags = flags,
	};
	int rc;

	errno = 0;
	rc = ioctl(dev_fd, MREMAP_RETAIN_IOC_MOVE, &m);
	*err = errno;
	return rc;
}

/*
 * Whether the module should announce FEAT_ALIKE here, from the release
 * (uname -r): only where UFFDIO_MOVE returns EBUSY for a large folio it
 * cannot split instead of retrying for ever (checked in each kernel's
 * mm/userfaultfd.c; Debian's 6.1 and 5.10 have no UFFDIO_MOVE).
 */
static int alike_expected(void)
{
	int v = tl_kver(), sub = 0;

	sscanf(tl_kernel, "%*d.%*d.%d", &sub);
	if (v == 6012)
		return sub >= 118;
	return v > 7003 || (v == 7003 && sub >= 4);
}

static void t_not_announced(void)
{
	size_t len = 16 * ps;
	char *src, *dst;
	int rc, err;

	two_maps(len, 1, &src, &dst);
	rc = ioctl_move(src, len, len, dst, MREMAP_RETAIN_MOVE_FIXED |
			MREMAP_RETAIN_MOVE_ALIKE, &err);
	tap_ok(rc == -1 && err == EINVAL,
	       "no FEAT_ALIKE on %s: MOVE_ALIKE is EINVAL (%s)", tl_kernel,
	       tl_errname(err));
	tap_ok(tl_check(src, len, 1), "... the source unchanged");
	munmap(src, TWO_LEN(len));
}

/* The ioctl: 1 and nothing changed for an alike destination. */
static void t_ioctl(void)
{
	static struct tl_snap a, b;
	size_t len = 16 * ps;
	char *src, *dst, *q;
	uintptr_t end = 0;
	int rc, err;

	two_maps(len, 2, &src, &dst);
	tl_snapshot(&a);
	rc = ioctl_move(src, len, len, dst, MREMAP_RETAIN_MOVE_FIXED |
			MREMAP_RETAIN_MOVE_ALIKE, &err);
	tl_snapshot(&b);
	tap_ok(rc == 1, "ALIKE, alike destination: returns 1 (%d, %s)", rc,
	       tl_errname(err));
	tap_ok(tl_snap_equal(&a, &b) && tl_check(src, len, 2) &&
	       tl_check(dst, len, 102), "... nothing changed");

	/* Not alike: a read-only destination moves by page tables. */
	mprotect(dst, len, PROT_READ);
	rc = ioctl_move(src, len, len, dst, MREMAP_RETAIN_MOVE_FIXED |
			MREMAP_RETAIN_MOVE_ALIKE, &err);
	tap_ok(rc == 0 && tl_check(dst, len, 2) && tl_zero(src, len) &&
	       !strcmp(tl_perms(dst), "rw-p"),
	       "ALIKE, read-only destination: moved by page tables (%d, %s)",
	       rc, tl_errname(err));

	/* Not alike: a destination across two read-write mappings of
	 * different origins (the second half's pages moved in from
	 * elsewhere, so it does not merge with the first). */
	tl_fill(dst, len, 3);
	q = tl_map(len / 2, PROT_READ | PROT_WRITE);
	tl_fill(q, len / 2, 4);
	q = mremap(q, len / 2, len / 2, MREMAP_MAYMOVE | MREMAP_FIXED, src + len / 2);
	tap_ok(q == src + len / 2 && tl_vma(src, NULL, &end, NULL) &&
	       end == (uintptr_t)q && !strcmp(tl_perms(q), "rw-p"),
	       "... the destination is two read-write mappings");
	rc = ioctl_move(dst, len, len, src, MREMAP_RETAIN_MOVE_FIXED |
			MREMAP_RETAIN_MOVE_ALIKE, &err);
	tap_ok(rc == 0 && tl_check(src, len, 3),
	       "ALIKE, destination of two mappings: moved (%d, %s)", rc,
	       tl_errname(err));

	munmap(src, TWO_LEN(len));

	/* Not alike: KSM memory (MADV_MERGEABLE on both). */
	two_maps(len, 7, &src, &dst);
	if (!madvise(src, len, MADV_MERGEABLE) && !madvise(dst, len, MADV_MERGEABLE)) {
		rc = ioctl_move(src, len, len, dst, MREMAP_RETAIN_MOVE_FIXED |
				MREMAP_RETAIN_MOVE_ALIKE, &err);
		tap_ok(rc == 0 && tl_check(dst, len, 7),
		       "ALIKE, KSM mappings: moved by page tables (%d, %s)", rc,
		       tl_errname(err));
	} else {
		tl_skipf("ALIKE, KSM mappings: MADV_MERGEABLE: %s", strerror(errno));
	}
	munmap(src, TWO_LEN(len));
	src = NULL;

	/* Without FIXED the flag changes nothing. */
	two_maps(len, 8, &src, &dst);
	rc = ioctl_move(src, len, len, NULL, MREMAP_RETAIN_MOVE_ALIKE, &err);
	tap_ok(rc == 0, "ALIKE without FIXED: a plain move (%d, %s)", rc,
	       tl_errname(err));
	munmap(src, TWO_LEN(len));
}

/* Where the move would take a huge PMD whole (source and destination
 * congruent modulo 2 MiB over an aligned 2 MiB), page tables, which keep
 * it huge; one page off, alike.  Three 2 MiB-aligned read-write regions
 * of 6 MiB: the source, and a destination for each case. */
static void t_pmd(void)
{
	size_t H = 2UL << 20, len = 2 * H, reg = len + H;
	char *raw = tl_map(4 * reg, PROT_NONE);
	char *a = (char *)(((uintptr_t)raw + H - 1) & ~(H - 1));
	int i, rc, err;

	for (i = 0; i < 3; i++)
		mmap(a + i * reg, reg - H / 2, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	tl_fill(a, len, 9);
	rc = ioctl_move(a, len, len, a + reg, MREMAP_RETAIN_MOVE_FIXED |
			MREMAP_RETAIN_MOVE_ALIKE, &err);
	tap_ok(rc == 0 && tl_check(a + reg, len, 9),
	       "ALIKE, congruent over an aligned 2 MiB: moved by page tables (%d, %s)",
	       rc, tl_errname(err));
	rc = ioctl_move(a, len, len, a + 2 * reg + ps, MREMAP_RETAIN_MOVE_FIXED |
			MREMAP_RETAIN_MOVE_ALIKE, &err);
	tap_ok(rc == 1, "ALIKE, the same one page off: alike (%d, %s)", rc,
	       tl_errname(err));
	munmap(raw, 4 * reg);
}

/* The library: the pages move into the destination's mapping. */
static void t_into(size_t os, size_t ns, const char *what)
{
	size_t len = os > ns ? os : ns, n = os < ns ? os : ns;
	int64_t pfn0;
	char *src, *dst, *r;
	int before;

	two_maps(len, 4, &src, &dst);
	pfn0 = tl_pfn(src + n - ps);
	before = tl_count_maps();
	r = mremap_retain(src, os, ns, MREMAP_RETAIN_FIXED, dst);
	tap_ok(r == dst, "[%s] into an alike mapping, %s: moved (%s)", BN,
	       what, r == dst ? "ok" : strerror(errno));
	if (r != dst) {
		munmap(src, TWO_LEN(len));
		return;
	}
	if (features & MREMAP_RETAIN_FEAT_ALIKE)
		tap_ok(tl_count_maps() == before,
		       "[%s] %s: no mapping made (%d -> %d)", BN, what, before,
		       tl_count_maps());
	else
		tl_skipf("[%s] %s: no FEAT_ALIKE, moved by page tables", BN,
			 what);
	tap_ok(tl_check(dst, n, 4) && tl_zero(dst + n, ns - n),
	       "[%s] %s: the bytes moved, growth zero", BN, what);
	tap_ok(!strcmp(tl_perms(src), "rw-p") && tl_zero(src, os),
	       "[%s] %s: the source mapped and zero", BN, what);
	if (pfn0 > 0)
		tap_ok(tl_pfn(dst + n - ps) == pfn0,
		       "[%s] %s: the same page (pfn %#llx -> %#llx)", BN, what,
		       (long long)pfn0, (long long)tl_pfn(dst + n - ps));
	else
		tl_skipf("[%s] %s: pagemap PFNs unreadable", BN, what);
	munmap(src, TWO_LEN(len));
}

/* After fork() the child shares the pages: the parent's move cannot take
 * them into the mapping and moves by page tables; the child sees its own
 * bytes throughout.  With @half, the parent first writes the first half
 * (its own pages again), so that the kernel moves those and stops at the
 * second: they go back before the page-table move. */
struct forked {
	char *src;
	size_t len;
	int go[2];
};

static int child_keeps(void *arg, char *msg, size_t cap)
{
	struct forked *f = arg;
	char c;

	if (read(f->go[0], &c, 1) != 1)
		return snprintf(msg, cap, "no word from the parent"), 1;
	if (!tl_check(f->src, f->len, 5))
		return snprintf(msg, cap, "the child's bytes changed"), 1;
	return 0;
}

static void t_forked(int half)
{
	struct forked f = { .len = 64 * ps };
	char *dst, *r, msg[512];
	pid_t pid;
	int st;

	two_maps(f.len, 5, &f.src, &dst);
	if (pipe(f.go)) {
		tap_ok(0, "pipe: %s", strerror(errno));
		return;
	}
	pid = fork();
	if (!pid) {
		msg[0] = 0;
		st = child_keeps(&f, msg, sizeof(msg));
		if (st)
			fprintf(stderr, "# child: %s\n", msg);
		_exit(st);
	}
	if (half)
		tl_fill_range(f.src, 0, f.len / 2, 5);
	r = mremap_retain(f.src, f.len, f.len, MREMAP_RETAIN_FIXED, dst);
	tap_ok(r == dst && tl_check(dst, f.len, 5) && tl_zero(f.src, f.len),
	       "[%s] pages shared with a child%s: moved all the same (%s)", BN,
	       half ? " but the first half" : "",
	       r == dst ? "ok" : strerror(errno));
	if (write(f.go[1], "x", 1) != 1)
		tap_diag("write to the child: %s", strerror(errno));
	tap_ok(waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	       !WEXITSTATUS(st), "[%s] ... the child's copy untouched", BN);
	close(f.go[0]);
	close(f.go[1]);
	munmap(f.src, TWO_LEN(f.len));
}

/* A destination mapping with another madvise flag is not alike: the
 * destination gets the source's flags, as by page tables. */
static void t_other_flags(void)
{
	size_t len = 16 * ps;
	char *src, *dst, *r;

	two_maps(len, 6, &src, &dst);
	madvise(dst, len, MADV_DONTDUMP);
	r = mremap_retain(src, len, len, MREMAP_RETAIN_FIXED, dst);
	tap_ok(r == dst && tl_check(dst, len, 6) &&
	       tl_smaps_flag(dst, "dd") == 0,
	       "[%s] a destination with MADV_DONTDUMP: the source's flags (dd %d)",
	       BN, tl_smaps_flag(dst, "dd"));
	munmap(src, TWO_LEN(len));
}

/*
 * Moves into an alike mapping while another thread signals the mover every
 * 20 us and its handler reads a page of the destination: registered for
 * missing faults and emptied for the move, a read there from a handler
 * run inside the library's window would wait for ever.
 */
#define SIG_MOVES	500
#define SIG_PAGES	16

static int signalled_moves(void)
{
	const size_t len = SIG_PAGES * ps;
	int i, into = 0, before;
	char *src, *dst;
	pthread_t me, t;

	sigreader_start(&t, &me, SIG_PAGES, ps);
	for (i = 0; i < SIG_MOVES; i++) {
		two_maps(len, 7, &src, &dst);
		before = i % 50 ? 0 : tl_count_maps();
		sigreader_range = dst;
		if (mremap_retain(src, len, len, MREMAP_RETAIN_FIXED, dst) != dst)
			return 1;
		sigreader_range = NULL;
		if (!tl_check(dst, len, 7))
			return 2;
		if (before)
			into += tl_count_maps() == before;
		munmap(src, TWO_LEN(len));
	}
	i = sigreader_end(t);
	printf("# %d signals handled during %d moves; %d of %d sampled moves "
	       "made no mapping\n", i, SIG_MOVES, into, SIG_MOVES / 50);
	fflush(stdout);
	return !i ? 3 : into != SIG_MOVES / 50 ? 4 : 0;
}

static void t_signalled(void)
{
	int rc = sigreader_watched(signalled_moves, 120);

	tap_ok(rc == 0,
	       "[%s] %d moves into alike mappings, a handler reading the "
	       "destination signalled throughout (%s)", BN, SIG_MOVES,
	       rc == -1 ? "hung: killed after 120 s" :
	       rc == -2 ? "killed" : rc == 1 ? "a move failed" :
	       rc == 2 ? "bytes wrong" : rc == 3 ? "no signal handled" :
	       rc == 4 ? "a move made a mapping" : "ok");
}

static void library(void)
{
	t_into(16 * ps, 16 * ps, "same size");
	t_into(8 * ps, 32 * ps, "growth");
	t_into(32 * ps, 8 * ps, "shrink");
	t_forked(0);
	t_forked(1);
	t_other_flags();
	if (features & MREMAP_RETAIN_FEAT_ALIKE)
		t_signalled();
	else
		tl_skipf("[%s] signalled moves: no FEAT_ALIKE", BN);
}

int main(void)
{
	struct mremap_retain_info info = { 0 };

	tl_start("alike");
	dev_fd = open(DEV, O_RDWR | O_CLOEXEC);
	if (dev_fd < 0 || ioctl(dev_fd, MREMAP_RETAIN_IOC_INFO, &info)) {
		if (tl_host)
			tap_skip("alike: module not loaded");
		else
			tap_ok(0, DEV ": %s", strerror(errno));
		return tap_done();
	}
	features = info.features;
	tap_ok(!!(features & MREMAP_RETAIN_FEAT_ALIKE) == alike_expected(),
	       "FEAT_ALIKE %s on %s, as expected (6.12.118 to 6.12.y, and "
	       "7.3.4 on: UFFDIO_MOVE there gives up on a pinned large folio)",
	       features & MREMAP_RETAIN_FEAT_ALIKE ? "announced" :
	       "not announced", tl_kernel);
	if (features & MREMAP_RETAIN_FEAT_ALIKE) {
		t_ioctl();
		t_pmd();
	} else
		t_not_announced();
	if (tl_use_backend(MREMAP_RETAIN_BACKEND_MODULE, "alike"))
		library();
	close(dev_fd);
	return tap_done();
}
