// SPDX-License-Identifier: MIT
/*
 * parts.c - sources made of several adjacent mappings (SPEC point 7), on
 * every backend: they move as one, each part keeping its protection and
 * flags at its offset in the destination, growth taking the protection of
 * the part that holds the last byte moved; the source is left as fresh
 * memory with each part's protection; a shrink across parts, also while
 * another thread writes to the part it leaves behind (module); a locked
 * part among unlocked ones; and the failures (a hole, a part of the wrong
 * kind, a sealed part, an occupied NOREPLACE destination) with nothing
 * changed.
 */
#include <pthread.h>
#include <sys/syscall.h>
#include <time.h>

#include "testlib.h"

#define PARTS 3

static const int prot_of[PARTS] = {
	PROT_READ | PROT_WRITE, PROT_READ, PROT_READ | PROT_WRITE,
};
static const char *const perms_of[PARTS] = { "rw-p", "r--p", "rw-p" };

/* PARTS parts of @pages pages each, filled with seed @seed, then their
 * protections set (which splits the mapping). */
static char *parts_map(size_t pages, uint64_t seed)
{
	size_t len = PARTS * pages * ps;
	char *p = tl_map(len, PROT_READ | PROT_WRITE);
	int i;

	tl_fill(p, len, seed);
	for (i = 0; i < PARTS; i++)
		mprotect(p + i * pages * ps, pages * ps, prot_of[i]);
	return p;
}

/* Each part's protection at @base (parts of @pages pages), up to @len. */
static int perms_ok(const char *base, size_t pages, size_t len)
{
	size_t off;

	for (off = 0; off < len; off += ps) {
		int i = off / (pages * ps);
		const char *want = perms_of[i < PARTS ? i : PARTS - 1];

		if (strcmp(tl_perms(base + off), want)) {
			tap_diag("offset %#zx: %s, want %s", off, tl_perms(base + off), want);
			return 0;
		}
	}
	return 1;
}

/* The source after a move: every part mapped with its protection, zero. */
static int fresh(char *p, size_t pages)
{
	size_t len = PARTS * pages * ps;
	int ok = perms_ok(p, pages, len);

	return ok && tl_zero(p, len);
}

static void t_same_size(void)
{
	size_t pages = 4, len = PARTS * pages * ps;
	char *p = parts_map(pages, 21), *d = tl_free_range(len), *r;

	r = mremap_retain(p, len, len, MREMAP_RETAIN_FIXED, d);
	tap_ok(r == d && tl_check(d, len, 21) && perms_ok(d, pages, len) && fresh(p, pages),
	       "[%s] rw|r--|rw source, same size, FIXED: moved as one, each part its protection, source fresh (%s)",
	       BN, r == MAP_FAILED ? tl_errname(errno) : "moved");
	if (r != MAP_FAILED)
		munmap(r, len);
	munmap(p, len);
}

static void t_grow(void)
{
	size_t pages = 4, len = PARTS * pages * ps;
	char *p = parts_map(pages, 22), *r;

	r = mremap_retain(p, len, 2 * len, 0);
	tap_ok(r != MAP_FAILED && tl_check(r, len, 22) && tl_zero(r + len, len) &&
	       perms_ok(r, pages, 2 * len) && fresh(p, pages),
	       "[%s] three parts grown 2x anywhere: data, zero growth with the last part's protection, source fresh (%s)",
	       BN, r == MAP_FAILED ? tl_errname(errno) : "moved");
	if (r != MAP_FAILED)
		munmap(r, 2 * len);
	munmap(p, len);
}

/* Growth takes the protection of the part holding the last byte moved. */
static void t_grow_readonly_tail(void)
{
	size_t pages = 4, len = 2 * pages * ps;
	char *p = parts_map(pages, 23), *r;

	munmap(p + len, pages * ps);	/* keep rw | r-- */
	r = mremap_retain(p, len, 2 * len, 0);
	tap_ok(r != MAP_FAILED && tl_check(r, len, 23) &&
	       !strcmp(tl_perms(r), "rw-p") && !strcmp(tl_perms(r + len), "r--p") &&
	       !strcmp(tl_perms(r + 2 * len - ps), "r--p") && tl_zero(r + len, len),
	       "[%s] rw|r-- grown 2x: the growth is r-- like the last part (%s, tail %s)",
	       BN, r == MAP_FAILED ? tl_errname(errno) : "moved",
	       r == MAP_FAILED ? "-" : tl_perms(r + 2 * len - ps));
	if (r != MAP_FAILED)
		munmap(r, 2 * len);
	munmap(p, len);
}

static void t_shrink(void)
{
	size_t pages = 4, len = PARTS * pages * ps, keep = pages * ps + 2 * ps;
	char *p = parts_map(pages, 24), *d = tl_free_range(len), *r;

	r = mremap_retain(p, len, keep, MREMAP_RETAIN_FIXED, d);
	tap_ok(r == d && tl_check(d, keep, 24) && perms_ok(d, pages, keep) &&
	       !strcmp(tl_perms(d + keep), "none") && fresh(p, pages),
	       "[%s] three parts shrunk to 1.5 parts: what fits moves, the rest of the source fresh too (%s)",
	       BN, r == MAP_FAILED ? tl_errname(errno) : "moved");
	if (r != MAP_FAILED)
		munmap(r, keep);
	munmap(p, len);
}

/*
 * A shrink leaves the parts past what moves to be zapped and made fresh
 * (their anon_vma let go), while another thread keeps writing to the last
 * of them: each write that faults there meanwhile must wait for the move,
 * never map a page that still names the let-go anon_vma (with per-VMA
 * locks a fault does not wait for mmap_lock).  Then the destination goes,
 * which frees that anon_vma once RCU is done with it (membarrier waits for
 * that), and the last part moves into an alike mapping, which on the
 * kernels that offer it goes by UFFDIO_MOVE and looks up each page's
 * anon_vma: a page mapped in the window would name freed memory (KASAN
 * reports it on the debug kernel; a stock kernel may oops or spin).  The
 * module's own code; the library's backends go around it.
 */
static volatile int racing;
/* More pages than the zap gathers before it flushes the TLB (10,000 on
 * the kernels here): before that flush no write faults, under QEMU's
 * large TLB, so the window opens only past it. */
#define TAIL_PAGES 16384

static void *tail_writer(void *arg)
{
	char *tail = arg;
	size_t off = 0;

	while (__atomic_load_n(&racing, __ATOMIC_RELAXED)) {
		tail[off] = 1;
		off = (off + ps) % (TAIL_PAGES * ps);
	}
	return NULL;
}

static void t_shrink_racing_writer(void)
{
	size_t tail = TAIL_PAGES * ps, len = 2 * ps + tail;
	int rounds = 0, bad = 0, i;
	struct timespec t0, t;
	char *p, *r, *d;
	pthread_t th;

	if (!tl_is_module())
		return;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		/* A page rw, a page r--, then the long rw tail. */
		p = tl_map(len, PROT_READ | PROT_WRITE);
		tl_fill(p, len, 25);
		mprotect(p + ps, ps, PROT_READ);
		__atomic_store_n(&racing, 1, __ATOMIC_RELAXED);
		if (pthread_create(&th, NULL, tail_writer, p + 2 * ps)) {
			bad++;
			break;
		}
		r = mremap_retain(p, len, ps, 0, NULL);
		__atomic_store_n(&racing, 0, __ATOMIC_RELAXED);
		pthread_join(th, NULL);
		if (r == MAP_FAILED || !tl_check(r, ps, 25))
			bad++;
		if (r != MAP_FAILED)
			munmap(r, ps);
		for (i = 0; i < 2; i++)
			syscall(SYS_membarrier, 1 /* MEMBARRIER_CMD_GLOBAL */, 0, 0);
		/* Up to 32 MiB, an alike move goes by UFFDIO_MOVE. */
		d = tl_map(tail / 2, PROT_READ | PROT_WRITE);
		if (mremap_retain(p + 2 * ps, tail / 2, tail / 2, MREMAP_RETAIN_FIXED, d) != d)
			bad++;
		munmap(d, tail / 2);
		munmap(p, len);
		rounds++;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec < 3);
	tap_ok(!bad, "[%s] a shrink racing a writer in the part it leaves behind, then that part moved: %d rounds, %d failed (the kernel log says the rest)",
	       BN, rounds, bad);
}

/* A locked part among unlocked ones: the lock goes with its pages. */
static void t_locked_part(void)
{
	size_t pages = 4, len = PARTS * pages * ps, part = pages * ps;
	char *p = parts_map(pages, 25), *d = tl_free_range(2 * len), *r;
	long lck0;

	if (mlock(p + part, part)) {
		tl_skipf("[%s] locked part: mlock: %s", BN, strerror(errno));
		munmap(p, len);
		return;
	}
	lck0 = tl_status_kb("VmLck");
	r = mremap_retain(p, len, 2 * len, MREMAP_RETAIN_FIXED, d);
	tap_ok(r == d && tl_check(d, len, 25) && tl_smaps_flag(d + part, "lo") &&
	       !tl_smaps_flag(d, "lo") && !tl_smaps_flag(d + 2 * part, "lo") &&
	       !tl_smaps_flag(p + part, "lo") && tl_status_kb("VmLck") == lck0 &&
	       fresh(p, pages),
	       "[%s] a locked middle part: locked at the destination, unlocked at the source, VmLck %ld kB (was %ld) (%s)",
	       BN, tl_status_kb("VmLck"), lck0, r == MAP_FAILED ? tl_errname(errno) : "moved");
	if (r != MAP_FAILED)
		munmap(r, 2 * len);
	munmap(p, len);
	tap_ok(tl_status_kb("VmLck") == lck0 - (long)(part >> 10),
	       "[%s] locked part: VmLck back after munmap (%ld kB)", BN, tl_status_kb("VmLck"));
}

/* A failure: the source's layout and bytes, and the destination, as they were. */
static void refused(const char *what, char *p, size_t len, int err, uint64_t seed,
		    int flags, char *d)
{
	struct tl_snap *before = malloc(sizeof(*before)), *after = malloc(sizeof(*after));
	char *r;
	int e;

	if (!before || !after)
		exit(99);
	tl_snapshot(before);
	errno = 0;
	r = mremap_retain(p, len, 2 * len, flags, d);
	e = errno;
	tl_snapshot(after);
	tap_ok(r == MAP_FAILED && e == err && tl_snap_equal(before, after),
	       "[%s] %s: %s (want %s), maps unchanged", BN, what,
	       r == MAP_FAILED ? tl_errname(e) : "moved", tl_errname(err));
	(void)seed;
	free(before);
	free(after);
}

static void t_failures(void)
{
	size_t pages = 4, len = PARTS * pages * ps, part = pages * ps;
	char *p, *d;
	int fd;

	p = parts_map(pages, 26);
	munmap(p + part, ps);
	refused("parts with a hole between them", p, len, EFAULT, 26, 0, NULL);
	tap_ok(tl_check_range(p, 0, part, 26) && tl_check_range(p, part + ps, len, 26),
	       "[%s] hole: bytes intact", BN);
	munmap(p, len);

	/* A shared part in the middle. */
	p = parts_map(pages, 27);
	if (mmap(p + part, part, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED,
		 -1, 0) == MAP_FAILED)
		exit(99);
	refused("a shared part among private ones", p, len, EINVAL, 27, 0, NULL);
	tap_ok(tl_check_range(p, 0, part, 27) && tl_check_range(p, 2 * part, len, 27),
	       "[%s] shared part: private parts intact", BN);
	munmap(p, len);

	/* A file part. */
	p = parts_map(pages, 28);
	fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && mmap(p + 2 * part, part, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0) != MAP_FAILED)
		refused("a file part after private ones", p, len, EINVAL, 28, 0, NULL);
	else
		tl_skipf("[%s] file part: cannot map /proc/self/exe", BN);
	if (fd >= 0)
		close(fd);
	munmap(p, len);

	/* A sealed part: EPERM before the kind of the shared part after it. */
	p = parts_map(pages, 29);
	if (tl_mseal(p + part, part) == 0) {
		refused("a sealed part", p, len, EPERM, 29, 0, NULL);
		tap_ok(tl_check(p, len, 29), "[%s] sealed part: bytes intact", BN);
	} else {
		tl_skipf("[%s] sealed part: mseal: %s", BN, strerror(errno));
	}
	/* (sealed memory cannot be unmapped; it stays until exit) */

	/* NOREPLACE onto an occupied destination. */
	p = parts_map(pages, 30);
	d = tl_map(2 * len, PROT_READ | PROT_WRITE);
	tl_fill(d, 2 * len, 31);
	refused("NOREPLACE onto an occupied destination", p, len, EEXIST, 30,
		MREMAP_RETAIN_FIXED | MREMAP_RETAIN_NOREPLACE, d);
	tap_ok(tl_check(p, len, 30) && tl_check(d, 2 * len, 31),
	       "[%s] NOREPLACE: source and destination intact", BN);
	munmap(d, 2 * len);
	munmap(p, len);
}

static void all(void)
{
	t_same_size();
	t_grow();
	t_grow_readonly_tail();
	t_shrink();
	t_shrink_racing_writer();
	t_locked_part();
	t_failures();
}

int main(void)
{
	tl_start("parts");
	tl_run("several mappings", all);
	return tap_done();
}
