// SPDX-License-Identifier: MIT
/*
 * leaks.c - (root) nothing leaks over many operations: a seeded random mix
 * of moves (grow, shrink, same size, FIXED over another region, NOREPLACE
 * onto a free range and onto an occupied one, a failing ENOMEM move) on the
 * three backends, with mlock, decommit and munmap in between, on a pool of
 * small regions.  Every region's first word is checked after every step.
 *
 * Before (after a warm-up) and after (with the pool freed) it prints and
 * compares: Committed_AS (read exactly), VmSize, VmLck, VmRSS, VmPTE, the
 * map count and the anon_vma, anon_vma_chain and vm_area_struct slab
 * counts (/proc/slabinfo), each within a stated tolerance.
 *
 * Usage: leaks [COUNT]   (default 50000 operations: 100000 take about
 * 65 s under TCG; 50000 fit in about 30 s)
 */
#include <time.h>

#include "testlib.h"

#define SLOTS 32
#define MAXP 16			/* pages per region at most */

struct slot {
	char *p;
	size_t len;
	uint64_t tag;		/* first word; 0: reads zero */
	int by;			/* backend of the move that made it, or 0 */
};

static struct slot pool[SLOTS];
static uint64_t rng = 0x2545F4914F6CDD1DULL;
static uint64_t next_tag = 1;
static long errors, counts[10];

static uint64_t rnd(uint64_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng % n;
}

static void bad(const char *what, int i)
{
	if (errors++ < 10)
		tap_diag("[%s] %s on slot %d (%p, %zu bytes, made by %s, "
			 "%s): errno %s", mremap_retain_backend_name(
			 mremap_retain_backend()), what, i, pool[i].p,
			 pool[i].len, pool[i].by ? mremap_retain_backend_name(
			 pool[i].by) : "mmap", tl_perms(pool[i].p),
			 tl_errname(errno));
}

static void fresh(int i)
{
	pool[i].len = (1 + rnd(MAXP)) * ps;
	pool[i].p = tl_map(pool[i].len, PROT_READ | PROT_WRITE);
	pool[i].tag = next_tag++;
	pool[i].by = 0;
	*(uint64_t *)pool[i].p = pool[i].tag;
}

static void check(int i)
{
	if (*(volatile uint64_t *)pool[i].p != pool[i].tag)
		bad("first word wrong", i);
}

/* One operation on slot i (kind k); another slot j where one is needed. */
static void step(int k, int i, int j)
{
	size_t ns = (1 + rnd(MAXP)) * ps;
	struct slot *a = &pool[i], *b = &pool[j];
	char *r, *f;

	counts[k]++;
	switch (k) {
	case 0: case 1: case 2:		/* plain move, any size */
		r = mremap_retain(a->p, a->len, ns, 0, NULL);
		if (r == MAP_FAILED) {
			bad("move", i);
			return;
		}
		if (*(volatile uint64_t *)a->p)
			bad("retained source not zero", i);
		if (k == 0 || i == j) {
			munmap(a->p, a->len);
		} else {		/* the retained source replaces b */
			munmap(b->p, b->len);
			*b = *a;
			b->tag = 0;
		}
		a->p = r;
		a->len = ns;
		a->by = mremap_retain_backend();
		break;
	case 3:				/* FIXED over b, b's size */
		if (i == j)
			return;
		r = mremap_retain(a->p, a->len, b->len,
				  MREMAP_RETAIN_FIXED, b->p);
		if (r != b->p) {
			bad("FIXED move", i);
			return;
		}
		b->tag = a->tag;
		b->by = mremap_retain_backend();
		a->tag = 0;
		a->by = 0;
		check(j);
		break;
	case 4:				/* NOREPLACE onto b: EEXIST */
		if (i == j)
			return;
		/* within b: a destination overlapping a is EINVAL */
		ns = ns < b->len ? ns : b->len;
		r = mremap_retain(a->p, a->len, ns, MREMAP_RETAIN_FIXED |
				  MREMAP_RETAIN_NOREPLACE, b->p);
		if (r != MAP_FAILED || errno != EEXIST)
			bad("NOREPLACE onto an occupied range", i);
		break;
	case 5:				/* NOREPLACE onto a free range */
		f = tl_free_range(ns);
		r = mremap_retain(a->p, a->len, ns, MREMAP_RETAIN_FIXED |
				  MREMAP_RETAIN_NOREPLACE, f);
		if (r != f) {
			bad("NOREPLACE onto a free range", i);
			if (r != MAP_FAILED)
				munmap(r, ns);
			return;
		}
		munmap(a->p, a->len);
		a->p = r;
		a->len = ns;
		a->by = mremap_retain_backend();
		break;
	case 6:				/* decommit, then usable again */
		if (mremap_retain_decommit(a->p, a->len) ||
		    mprotect(a->p, a->len, PROT_READ | PROT_WRITE))
			bad("decommit", i);
		a->tag = 0;
		a->by = 0;
		break;
	case 7:				/* munmap, new region */
		munlock(a->p, a->len);
		munmap(a->p, a->len);
		fresh(i);
		break;
	case 8:				/* failing move: ENOMEM */
		r = mremap_retain(a->p, a->len, (size_t)1 << 50, 0, NULL);
		if (r != MAP_FAILED || errno != ENOMEM)
			bad("1 PiB move", i);
		break;
	case 9:				/* lock it */
		if (mlock(a->p, a->len))
			bad("mlock", i);
		break;
	}
	check(i);
}

static void run_ops(long n)
{
	static const int be[3] = {
		MREMAP_RETAIN_BACKEND_MODULE, MREMAP_RETAIN_BACKEND_DONTUNMAP,
		MREMAP_RETAIN_BACKEND_COPY,
	};
	long t;
	int i;

	for (i = 0; i < SLOTS; i++)
		fresh(i);
	for (t = 0; t < n; t++) {
		int k = rnd(10);

		if (mremap_retain_set_backend(be[rnd(3)]))
			bad("set_backend", 0);
		step(k, rnd(SLOTS), rnd(SLOTS));
	}
	for (i = 0; i < SLOTS; i++)
		munmap(pool[i].p, pool[i].len);
}

/* ---- the measures ---- */

enum { COMMIT, VMSIZE, VMLCK, VMRSS, VMPTE, MAPS, S_AV, S_AVC, S_VMA, NM };

static const char *const mname[NM] = {
	"Committed_AS kB", "VmSize kB", "VmLck kB", "VmRSS kB", "VmPTE kB",
	"maps", "anon_vma objs", "anon_vma_chain objs", "vm_area_struct objs",
};
/* tolerances; see the comment in main */
static const long mtol[NM] = { 0, 0, 0, 256, 64, 0, 256, 512, 256 };

/*
 * Active objects of a cache in /proc/slabinfo, -1 if not listed.  The
 * cache is shrunk first (SLUB's /sys/kernel/slab/NAME/shrink): that also
 * frees what a KASAN kernel holds in its quarantine, which slabinfo counts
 * as in use, and which the userfaultfd check's splits and merges fill
 * with thousands of VMAs on the debug kernel.
 */
static long slab_objs(const char *name)
{
	static char buf[1 << 17];
	size_t nl = strlen(name);
	char path[96];
	char *p;

	snprintf(path, sizeof(path), "/sys/kernel/slab/%s/shrink", name);
	tl_write_sys(path, "1");
	if (tl_slurp("/proc/slabinfo", buf, sizeof(buf)) < 0)
		return -1;
	for (p = buf; p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, name, nl) && p[nl] == ' ')
			return strtol(p + nl, NULL, 10);
	return -1;
}

static void measure(long *m)
{
	m[COMMIT] = tl_committed_exact_kb();
	m[VMSIZE] = tl_status_kb("VmSize");
	m[VMLCK] = tl_status_kb("VmLck");
	m[VMRSS] = tl_status_kb("VmRSS");
	m[VMPTE] = tl_status_kb("VmPTE");
	m[MAPS] = tl_count_maps();
	m[S_AV] = slab_objs("anon_vma");
	m[S_AVC] = slab_objs("anon_vma_chain");
	m[S_VMA] = slab_objs("vm_area_struct");
}

/*
 * Slab caches are counted over the whole kernel: fewer active objects
 * after than before is other tasks' or a debug kernel's quarantine
 * (KASAN) giving objects back, never a leak of ours, so only growth is
 * bounded there.  The process's own measures must come back both ways.
 */
static int within(const long *b, const long *a, int i)
{
	if (i >= S_AV)
		return a[i] - b[i] <= mtol[i];
	return labs(a[i] - b[i]) <= mtol[i];
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 50000, base[NM], aft[NM];
	struct timespec t0, t1;
	int i, tries, ok;
	double secs;

	tl_start("leaks");
	if (geteuid() || tl_host) {
		tap_skip("leaks: needs root in the guest (exact Committed_AS, "
			 "/proc/slabinfo)");
		return tap_done();
	}
	for (i = 0; i < 3; i++)
		if (!tl_use_backend(tl_backends[i], "leaks"))
			return tap_done();
	/* warm-up: lazy allocations of the library, stdio, /proc buffers */
	run_ops(2000);
	tl_committed_settle();
	measure(base);
	measure(base);
	errors = 0;
	memset(counts, 0, sizeof(counts));
	tap_diag("seed %#llx, %ld operations", (unsigned long long)rng, n);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	run_ops(n);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = t1.tv_sec - t0.tv_sec + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	tap_diag("%ld operations in %.1f s (%.1f us each): move %ld, FIXED "
		 "%ld, NOREPLACE busy %ld, NOREPLACE free %ld, decommit %ld, "
		 "munmap %ld, ENOMEM %ld, mlock %ld", n, secs, secs * 1e6 / n,
		 counts[0] + counts[1] + counts[2], counts[3], counts[4],
		 counts[5], counts[6], counts[7], counts[8], counts[9]);
	tap_ok(errors == 0, "%ld operations across module, dontunmap, copy: "
	       "every result and first word as expected (%ld errors)", n,
	       errors);

	/*
	 * Freed slab objects of RCU-freed caches come back after a grace
	 * period: wait up to 10 s for everything to settle.  Tolerances:
	 * exact for the accounted sizes and the map count; VmRSS 256 kB and
	 * VmPTE 64 kB (page tables of freed ranges are kept until their
	 * whole table is unused); slab objects a few slabs' worth (per-cpu
	 * slabs count as full in slabinfo), far below one object per 100
	 * operations.
	 */
	for (tries = 0; tries < 20; tries++) {
		measure(aft);
		for (ok = 1, i = 0; i < NM; i++)
			if (aft[i] >= 0 && base[i] >= 0 && !within(base, aft, i))
				ok = 0;
		if (ok)
			break;
		usleep(500000);
	}
	for (i = 0; i < NM; i++) {
		if (base[i] < 0 || aft[i] < 0) {
			tl_skipf("%s: not readable here (%s)", mname[i],
				 i >= S_AV ? "cache not listed in /proc/slabinfo,"
				 " merged with another" : "no such field");
			continue;
		}
		tap_ok(within(base, aft, i), "%s back to baseline: before %ld, "
		       "after %ld (%+ld), tolerance %ld", mname[i], base[i],
		       aft[i], aft[i] - base[i], mtol[i]);
	}
	return tap_done();
}
