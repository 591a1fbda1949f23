// SPDX-License-Identifier: MIT
/*
 * percall.c - benchmark 2, the cost of one move against its size: a fully
 * populated region moved back and forth between two slots by
 * mremap(MREMAP_MAYMOVE), by mremap_retain() with each backend, and by
 * memcpy + madvise(MADV_DONTNEED) (what allocators do today).
 *
 * Every variant moves to a FIXED destination so that the alignment is the
 * benchmark's choice: "aligned" has source and destination 2 MiB aligned
 * (page tables can move a PMD at a time, THPs stay whole); "misaligned"
 * puts them 4 KiB apart modulo 2 MiB, so every PTE moves on its own.  The
 * slots sit in a PROT_NONE reservation, so no move merges with a neighbour.
 * mremap_retain() always lands on the empty mapping that the previous move
 * left behind; "mremap" gets the same (the source it vacates is mapped again,
 * untimed), "mremap-to-hole" moves into the hole it left instead.
 * The variants take turns, one call each in a new random order every
 * round (up to 512 MiB for all of them together; larger cells run one
 * variant after the other).  Between two timed calls every variant makes
 * the same untimed
 * mmap(MAP_FIXED) of the region's size: mremap's re-map of its source, for
 * the others a scratch slot.  Under TCG that call changes the cost of the
 * next one (by -10% to +40% in the guests, through the emulator's state),
 * so a variant without it would not be compared like for like.
 * Figures: the median time of one call, and that per MiB moved.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <mremap_retain.h>

#include "bench.h"

enum how { MV_MREMAP, MV_MREMAP_HOLE, MV_RETAIN, MV_MEMCPY };

struct pvariant {
	const char *name;
	enum how how;
	int backend;
};

static const struct pvariant pvariants[] = {
	{ "mremap", MV_MREMAP, 0 },
	{ "mremap-to-hole", MV_MREMAP_HOLE, 0 },
	{ "retain-module", MV_RETAIN, MREMAP_RETAIN_BACKEND_MODULE },
	{ "retain-dontunmap", MV_RETAIN, MREMAP_RETAIN_BACKEND_DONTUNMAP },
	{ "retain-copy", MV_RETAIN, MREMAP_RETAIN_BACKEND_COPY },
	{ "memcpy+dontneed", MV_MEMCPY, 0 },
};
#define NPVAR (sizeof(pvariants) / sizeof(pvariants[0]))

#define MIN_CALLS	3
#define MAX_CALLS	20000

static int move_once(const struct pvariant *v, char *src, char *dst, size_t n)
{
	switch (v->how) {
	case MV_MREMAP:
	case MV_MREMAP_HOLE:
		return mremap(src, n, n, MREMAP_MAYMOVE | MREMAP_FIXED, dst) ==
		       dst ? 0 : -1;
	case MV_RETAIN:
		return mremap_retain(src, n, n, MREMAP_RETAIN_FIXED, dst) ==
		       dst ? 0 : -1;
	case MV_MEMCPY:
		memcpy(dst, src, n);
		return madvise(src, n, MADV_DONTNEED);
	}
	return -1;
}

static void map_slot(char *p, size_t n)
{
	if (mmap(p, n, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != p)
		die("cannot map a slot of %zu bytes: %m", n);
}

/* The two slots (and a scratch slot) of one variant in one cell. */
struct pslot {
	void *res;
	size_t res_len;
	char *a, *b, *scratch;	/* a holds the data, b is an empty mapping */
	int calls;
};

/* Above this much memory for all variants at once, cells run one variant
 * after the other instead of interleaved (the guests have 4 GiB). */
#define INTERLEAVE_MAX	(512 * MIB)

static void slot_setup(struct pslot *sl, size_t n, size_t off)
{
	const size_t span = ((n + off + 2 * MIB - 1) & ~(2 * MIB - 1)) + 2 * MIB;
	char *base = reserve_aligned(3 * span + 2 * MIB, 2 * MIB, &sl->res,
				     &sl->res_len);

	sl->a = base + 2 * MIB + off;
	sl->b = base + 2 * MIB + span;
	sl->scratch = base + 2 * MIB + 2 * span + off;
	sl->calls = 0;
	map_slot(sl->a, n);
	map_slot(sl->b, n);
	fill_pages(sl->a, n, n);
}

/*
 * One move of variant v, timed into *t when t is not NULL; then the same
 * untimed mmap(MAP_FIXED) for every variant (see the top of this file).
 */
static int slot_move(const struct pvariant *v, struct pslot *sl, size_t n,
		     long long *t)
{
	long long t0;
	char *tmp;

	if (v->how == MV_RETAIN)
		mremap_retain_set_backend(v->backend);
	t0 = now_ns();
	if (move_once(v, sl->a, sl->b, n))
		return -1;
	if (t)
		*t = now_ns() - t0;
	map_slot(v->how == MV_MREMAP ? sl->a : sl->scratch, n);
	tmp = sl->a, sl->a = sl->b, sl->b = tmp;
	return 0;
}

/* Fisher-Yates with xorshift64, as in release.c. */
static void shuffle(int *a, int n, uint64_t *seed)
{
	int i, j, x;

	for (i = n - 1; i > 0; i--) {
		*seed ^= *seed << 13;
		*seed ^= *seed >> 7;
		*seed ^= *seed << 17;
		j = *seed % (i + 1);
		x = a[i], a[i] = a[j], a[j] = x;
	}
}

/*
 * Time the nv variants of vars[] on their slots: rounds of one move each,
 * in a new random order every round, so that none is measured in a quieter
 * or busier stretch of the machine than the others (under TCG some cells
 * are bimodal).  Returns 0, or -1 if a move failed.
 */
static int run_slots(const struct pvariant *const *vars, struct pslot *sl,
		     int nv, size_t n, long long (*t)[MAX_CALLS])
{
	const long long budget = bench_opts.budget_ms * 1000000LL * nv;
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	int order[NPVAR], k, r;
	long long start;

	/* One untimed move each: the first one also finds a mapping. */
	for (k = 0; k < nv; k++) {
		order[k] = k;
		if (slot_move(vars[k], &sl[k], n, NULL))
			return -1;
	}
	start = now_ns();
	for (r = 0; r < MAX_CALLS; r++) {
		if (r >= MIN_CALLS && now_ns() - start >= budget)
			break;
		shuffle(order, nv, &seed);
		for (k = 0; k < nv; k++) {
			int m = order[k];

			if (slot_move(vars[m], &sl[m], n, &t[m][r]))
				return -1;
			sl[m].calls = r + 1;
		}
	}
	return 0;
}

/* Check a variant's data, give its figures, free its slots. */
static void finish_slot(const struct pvariant *v, struct pslot *sl, size_t n,
			const char *bench, long long *t)
{
	char sz[32];
	double med = median_ll(t, sl->calls);

	if (!check_pages(sl->a, n, n))
		die("%s %s %s: the moved data came out wrong", bench, v->name,
		    size_name(n, sz, sizeof(sz)));
	munmap(sl->res, sl->res_len);
	emit(bench, v->name, n, "per_call", med, "ns");
	emit(bench, v->name, n, "per_mib", med / ((double)n / MIB), "ns/MiB");
}

/*
 * The figures of one cell (size n, placement) for the nv variants of
 * vars[]: each moves its own region back and forth, all interleaved where
 * memory allows, else one variant after the other.  0, or -1 on failure.
 */
static int one_cell(const struct pvariant *const *vars, int nv, size_t n,
		    int misaligned, long long (*t)[MAX_CALLS])
{
	const char *bench = misaligned ? "percall-misaligned" : "percall-aligned";
	const size_t off = misaligned ? page_size : 0;
	struct pslot sl[NPVAR];
	char sz[32];
	int i;

	if (n * nv <= INTERLEAVE_MAX) {
		for (i = 0; i < nv; i++)
			slot_setup(&sl[i], n, off);
		if (run_slots(vars, sl, nv, n, t))
			goto fail;
		for (i = 0; i < nv; i++)
			finish_slot(vars[i], &sl[i], n, bench, t[i]);
		return 0;
	}
	for (i = 0; i < nv; i++) {
		slot_setup(&sl[i], n, off);
		if (run_slots(&vars[i], &sl[i], 1, n, &t[i])) {
			munmap(sl[i].res, sl[i].res_len);
			goto fail;
		}
		finish_slot(vars[i], &sl[i], n, bench, t[i]);
	}
	return 0;
fail:
	if (n * nv <= INTERLEAVE_MAX)
		for (i = 0; i < nv; i++)
			munmap(sl[i].res, sl[i].res_len);
	note("%s: %s: a move failed: %s", bench, size_name(n, sz, sizeof(sz)),
	     strerror(errno));
	return -1;
}

int percall_bench(void)
{
	static const size_t wanted[] = { 4 * KIB, 64 * KIB, 2 * MIB, 64 * MIB, GIB };
	size_t sizes[8], nsizes = 0, i, k;
	const struct pvariant *vars[NPVAR];
	int nv = 0, misaligned, failed = 0;
	long long (*t)[MAX_CALLS];
	char sz[32];

	for (i = 0; i < sizeof(wanted) / sizeof(wanted[0]); i++) {
		size_t n = wanted[i] < bench_opts.max_size ? wanted[i] :
			   bench_opts.max_size;

		if (!nsizes || sizes[nsizes - 1] < n)
			sizes[nsizes++] = n;
	}
	if (sizes[nsizes - 1] < GIB)
		note("percall: sizes capped at %s (--max)",
		     size_name(sizes[nsizes - 1], sz, sizeof(sz)));
	for (k = 0; k < NPVAR; k++) {
		if (pvariants[k].how != MV_RETAIN ||
		    !mremap_retain_set_backend(pvariants[k].backend))
			vars[nv++] = &pvariants[k];
		else
			note("percall: %s skipped: backend unavailable here (%s)",
			     pvariants[k].name, strerror(errno));
	}
	t = malloc(NPVAR * sizeof(*t));
	if (!t)
		die("out of memory");
	for (misaligned = 0; misaligned < 2; misaligned++) {
		for (i = 0; i < nsizes; i++) {
			note("percall: %s %s", misaligned ? "misaligned" : "aligned",
			     size_name(sizes[i], sz, sizeof(sz)));
			if (one_cell(vars, nv, sizes[i], misaligned, t))
				failed = 1;
		}
	}
	free(t);
	return failed;
}
