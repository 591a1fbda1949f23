// SPDX-License-Identifier: MIT
/*
 * percall.c - benchmark 2, the cost of one move against its size: a fully
 * populated region moved back and forth between two slots by
 * mremap(MREMAP_MAYMOVE), by raw mremap(MREMAP_DONTUNMAP) (what the
 * dontunmap backend is built on), by mremap_retain() with each backend, and
 * by memcpy + madvise(MADV_DONTNEED) (what allocators do today; it and
 * the copy backend up to 64 MiB only).
 *
 * Every variant moves to a FIXED destination so that the alignment is the
 * benchmark's choice: "aligned" has source and destination 2 MiB aligned
 * (page tables can move a PMD at a time, THPs stay whole); "misaligned"
 * puts them 4 KiB apart modulo 2 MiB, so every PTE moves on its own.  The
 * slots sit in a PROT_NONE reservation, so no move merges with a neighbour.
 * mremap_retain() always lands on the empty mapping that the previous move
 * left behind; "mremap" gets the same (the source it vacates is mapped again,
 * untimed), "mremap-to-hole" moves into the hole it left instead.
 * Between two timed calls every variant makes the same untimed
 * mmap(MAP_FIXED) of the region's size: mremap's re-map of its source, for
 * the others a scratch slot.  Under TCG that call changes the cost of the
 * next one (by -10% to +40% in the guests, through the emulator's state),
 * so a variant without it would not be compared like for like.
 * Each figure is measured in bench_opts.blocks blocks of calls, each block
 * in a process of its own (run_block()), the variants taking turns block
 * by block; a block's figure is the median of its calls, and the figure is
 * the median of the blocks', with their minimum and maximum as its spread.
 * Figures: the time of one call, and that per MiB moved.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <mremap_retain.h>

#include "bench.h"
#include "internal.h"	/* MREMAP_DONTUNMAP for older headers */

enum how { MV_MREMAP, MV_MREMAP_HOLE, MV_DONTUNMAP, MV_RETAIN, MV_MEMCPY };

struct pvariant {
	const char *name;
	enum how how;
	int backend;
};

static const struct pvariant pvariants[] = {
	{ "mremap", MV_MREMAP, 0 },
	{ "mremap-to-hole", MV_MREMAP_HOLE, 0 },
	{ "mremap-dontunmap", MV_DONTUNMAP, 0 },
	{ "retain-module", MV_RETAIN, MREMAP_RETAIN_BACKEND_MODULE },
	{ "retain-dontunmap", MV_RETAIN, MREMAP_RETAIN_BACKEND_DONTUNMAP },
	{ "retain-copy", MV_RETAIN, MREMAP_RETAIN_BACKEND_COPY },
	{ "memcpy+dontneed", MV_MEMCPY, 0 },
};
#define NPVAR (sizeof(pvariants) / sizeof(pvariants[0]))

/* Per block: a block's median may be of one call (1 GiB under TCG). */
#define MIN_CALLS	1
#define MAX_CALLS	20000
/* The copying variants stop here: a call of theirs is linear in the size
 * (seconds at 1 GiB, under TCG tens), and their ratios are settled. */
#define COPY_MAX	(64 * MIB)

static int move_once(const struct pvariant *v, char *src, char *dst, size_t n)
{
	switch (v->how) {
	case MV_MREMAP:
	case MV_MREMAP_HOLE:
		return mremap(src, n, n, MREMAP_MAYMOVE | MREMAP_FIXED, dst) ==
		       dst ? 0 : -1;
	case MV_DONTUNMAP:
		return mremap(src, n, n, MREMAP_MAYMOVE | MREMAP_FIXED |
			      MREMAP_DONTUNMAP, dst) == dst ? 0 : -1;
	case MV_RETAIN:
		return mremap_retain(src, n, n, MREMAP_RETAIN_FIXED, dst) ==
		       dst ? 0 : -1;
	case MV_MEMCPY:
		memcpy(dst, src, n);
		return madvise(src, n, MADV_DONTNEED);
	}
	return -1;
}

/* populate: MAP_POPULATE, for the region that is moved (under TCG one
 * fault per page would cost seconds at 1 GiB, in every block). */
static void map_slot(char *p, size_t n, int populate)
{
	if (mmap(p, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS |
		 MAP_FIXED | (populate ? MAP_POPULATE : 0), -1, 0) != p)
		die("cannot map a slot of %zu bytes: %m", n);
}

struct cell {
	const struct pvariant *v;
	size_t n;
	int misaligned;
	long long *t;
};

/* One block of calls of one cell: out[0] is their median, in ns. */
static int cell_block(void *arg, double *out)
{
	const struct cell *c = arg;
	const struct pvariant *v = c->v;
	const size_t n = c->n, off = c->misaligned ? page_size : 0;
	const char *bench = c->misaligned ? "percall-misaligned" : "percall-aligned";
	const size_t span = ((n + off + 2 * MIB - 1) & ~(2 * MIB - 1)) + 2 * MIB;
	const long long budget = bench_opts.budget_ms * 1000000LL /
				 bench_opts.blocks;
	char *base, *a, *b, *scratch, *tmp, sz[32];
	long long start, *t = c->t;
	size_t res_len;
	void *res;
	int calls;

	base = reserve_aligned(3 * span + 2 * MIB, 2 * MIB, &res, &res_len);
	a = base + 2 * MIB + off;
	b = base + 2 * MIB + span;
	scratch = base + 2 * MIB + 2 * span + off;
	map_slot(a, n, 1);
	map_slot(b, n, 0);
	fill_pages(a, n, n);
	/* One untimed move: the first one also finds a mapped destination. */
	if (move_once(v, a, b, n))
		goto fail;
	if (v->how == MV_MREMAP)
		map_slot(a, n, 0);
	tmp = a, a = b, b = tmp;
	start = now_ns();
	for (calls = 0; calls < MAX_CALLS; calls++) {
		long long t0;

		if (calls >= MIN_CALLS && now_ns() - start >= budget)
			break;
		t0 = now_ns();
		if (move_once(v, a, b, n))
			goto fail;
		t[calls] = now_ns() - t0;
		map_slot(v->how == MV_MREMAP ? a : scratch, n, 0);
		tmp = a, a = b, b = tmp;
	}
	if (!check_pages(a, n, n))
		die("%s %s %s: the moved data came out wrong", bench, v->name,
		    size_name(n, sz, sizeof(sz)));
	munmap(res, res_len);
	out[0] = median_ll(t, calls);
	return 0;
fail:
	note("%s: %s %s: move failed: %s", bench, v->name,
	     size_name(n, sz, sizeof(sz)), strerror(errno));
	munmap(res, res_len);
	return -1;
}

/*
 * The figures of every available variant (avail[k]) moving n bytes.  The
 * variants take turns block by block, each round in a rotated order, so
 * that what drifts over a run (free huge pages, the emulator's caches) is
 * shared by all of them.  0, or -1 if a move failed.
 */
static int one_size(const int *avail, size_t n, int misaligned, long long *t)
{
	const char *bench = misaligned ? "percall-misaligned" : "percall-aligned";
	static double v[NPVAR][BLOCK_MAX];
	int b, j, k, ok[NPVAR], failed = 0;
	struct cell c = { NULL, n, misaligned, t };
	struct spread s;

	for (k = 0; k < (int)NPVAR; k++)
		ok[k] = avail[k] && (n <= COPY_MAX ||
			(pvariants[k].how != MV_MEMCPY &&
			 pvariants[k].backend != MREMAP_RETAIN_BACKEND_COPY));
	for (b = 0; b < bench_opts.blocks; b++) {
		for (j = 0; j < (int)NPVAR; j++) {
			k = (b + j) % NPVAR;
			if (!ok[k])
				continue;
			c.v = &pvariants[k];
			if (c.v->how == MV_RETAIN)
				mremap_retain_set_backend(c.v->backend);
			if (run_block(cell_block, &c, 1, &v[k][b])) {
				ok[k] = 0;
				failed = 1;
			}
		}
	}
	for (k = 0; k < (int)NPVAR; k++) {
		if (!ok[k])
			continue;
		s = spread_d(v[k], bench_opts.blocks);
		emit_spread(bench, pvariants[k].name, n, "per_call", s, 1, "ns");
		emit_spread(bench, pvariants[k].name, n, "per_mib", s,
			    1 / ((double)n / MIB), "ns/MiB");
	}
	return failed ? -1 : 0;
}

int percall_bench(void)
{
	static const size_t wanted[] = { 4 * KIB, 64 * KIB, 2 * MIB, 64 * MIB, GIB };
	size_t sizes[8], nsizes = 0, i, k;
	int avail[NPVAR], misaligned, failed = 0;
	long long *t;
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
	if (sizes[nsizes - 1] > COPY_MAX)
		note("percall: retain-copy and memcpy+dontneed stop at %s",
		     size_name(COPY_MAX, sz, sizeof(sz)));
	for (k = 0; k < NPVAR; k++) {
		avail[k] = pvariants[k].how != MV_RETAIN ||
			   !mremap_retain_set_backend(pvariants[k].backend);
		if (!avail[k])
			note("percall: %s skipped: backend unavailable here (%s)",
			     pvariants[k].name, strerror(errno));
	}
	t = malloc(MAX_CALLS * sizeof(*t));
	if (!t)
		die("out of memory");
	for (misaligned = 0; misaligned < 2; misaligned++) {
		for (i = 0; i < nsizes; i++) {
			note("percall: %s %s", misaligned ? "misaligned" : "aligned",
			     size_name(sizes[i], sz, sizeof(sz)));
			if (one_size(avail, sizes[i], misaligned, t))
				failed = 1;
		}
	}
	free(t);
	return failed;
}
