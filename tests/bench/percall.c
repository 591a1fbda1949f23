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
 * Figures: the time of one call, and that per MiB moved.  The targets'
 * pairs (a backend against the system call it is judged by) are measured
 * once more, in blocks where the two take turns call by call: the median
 * of those blocks' ratios, with its spread (bench "<bench>-paired").
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

/* One variant's slots in a block: it moves between a and b; scratch takes
 * the untimed mmap(MAP_FIXED) the others make between two calls. */
struct lane {
	const struct pvariant *v;
	size_t n;
	char *a, *b, *scratch;
	void *res;
	size_t res_len;
};

static int lane_setup(struct lane *l, const struct pvariant *v, size_t n,
		      int misaligned)
{
	char *slot[3], *tmp;

	reserve_slots(n, misaligned, 3, slot, &l->res, &l->res_len);
	l->v = v;
	l->n = n;
	l->a = slot[0];
	l->b = slot[1];
	l->scratch = slot[2];
	/* The region that is moved is populated, the others fault. */
	map_slot(l->a, n, 1);
	map_slot(l->b, n, 0);
	fill_pages(l->a, n, n);
	/* One untimed move: the first one also finds a mapped destination. */
	if (move_once(v, l->a, l->b, n))
		return -1;
	if (v->how == MV_MREMAP)
		map_slot(l->a, n, 0);
	tmp = l->a, l->a = l->b, l->b = tmp;
	return 0;
}

/* One timed move and the untimed re-map after it: its ns, or -1. */
static long long lane_move(struct lane *l, size_t n)
{
	long long t0 = now_ns(), t;
	char *tmp;

	if (move_once(l->v, l->a, l->b, n))
		return -1;
	t = now_ns() - t0;
	map_slot(l->v->how == MV_MREMAP ? l->a : l->scratch, n, 0);
	tmp = l->a, l->a = l->b, l->b = tmp;
	return t;
}

static void lane_end(struct lane *l, size_t n, int misaligned)
{
	char sz[32];

	if (!check_pages(l->a, n, n))
		die("%s %s %s: the moved data came out wrong",
		    misaligned ? "percall-misaligned" : "percall-aligned",
		    l->v->name, size_name(n, sz, sizeof(sz)));
	munmap(l->res, l->res_len);
}

/*
 * A block: calls of one variant (v[1] NULL), or of two in alternation,
 * each call of one followed by one of the other (the order swapped every
 * round), so that both share whatever state the process is in.  out[k] is
 * the median ns of variant k's calls in the block.
 */
struct cell {
	const struct pvariant *v[2];
	size_t n;
	int misaligned;
	int first;		/* with two: which goes first in round 0 */
	long long *t[2];
};

/* take_turns()'s step: one timed move of lane k of the array @arg. */
static long long lane_turn(void *arg, int k)
{
	struct lane *l = arg;

	return lane_move(&l[k], l[k].n);
}

static int cell_block(void *arg, double *out)
{
	const struct cell *c = arg;
	const int nl = c->v[1] ? 2 : 1;
	struct lane l[2];
	int calls, k, ready = 0;
	char sz[32];

	for (k = 0; k < nl; k++, ready++)
		if (lane_setup(&l[k], c->v[k], c->n, c->misaligned))
			goto fail;
	/* Two: an untimed round first, so that neither's first timed call
	 * comes straight after the other's setup (a populated region). */
	for (k = 0; nl == 2 && k < nl; k++)
		if (lane_move(&l[k], c->n) < 0)
			goto fail;
	/* A block's median may be of one call (1 GiB under TCG). */
	calls = take_turns(nl, c->first, lane_turn, l, c->t);
	if (calls < 0) {
		k = -1 - calls;
		goto fail;
	}
	for (k = 0; k < nl; k++) {
		lane_end(&l[k], c->n, c->misaligned);
		out[k] = median_ll(c->t[k], calls);
	}
	return 0;
fail:
	note("%s: %s %s: move failed: %s",
	     c->misaligned ? "percall-misaligned" : "percall-aligned",
	     l[k].v->name, size_name(c->n, sz, sizeof(sz)), strerror(errno));
	while (ready--)
		munmap(l[ready].res, l[ready].res_len);
	return -1;
}

static int index_of(const char *name)
{
	int k;

	for (k = 0; k < (int)NPVAR; k++)
		if (!strcmp(pvariants[k].name, name))
			return k;
	return -1;
}

/*
 * The targets' pairs, judged from blocks in which both take turns call
 * by call (pair_ratios()): whole processes run fast or slow (under TCG
 * about 1.5x apart, natively less), and a median of blocks that each ran
 * one variant lands in either group, where the two in one process share
 * it.  The library's own backends are judged natively: in a guest, where
 * the module is there, only its pairs run.
 */
static const char *const pairs[][2] = {
	{ "retain-module", "mremap" },
	{ "retain-module", "mremap-to-hole" },
	{ "retain-dontunmap", "mremap-dontunmap" },
	{ "retain-copy", "memcpy+dontneed" },
};

/* For each pair whose variants ran (ok[]): blocks of both in turn, and
 * the median over the blocks of their ratio, with its spread, as metric
 * "vs_<reference>" of the variant in bench "<bench>-paired", and there
 * the reference's own per-call figure in those blocks. */
static int pair_ratios(const int *ok, struct cell c)
{
	const char *bench = c.misaligned ? "percall-misaligned-paired" :
			    "percall-aligned-paired";
	double r[BLOCK_MAX], ref[BLOCK_MAX], out[2];
	char metric[64];
	int p, b, x, y, failed = 0;

	for (p = 0; p < (int)(sizeof(pairs) / sizeof(pairs[0])); p++) {
		x = index_of(pairs[p][0]);
		y = index_of(pairs[p][1]);
		if (x < 0 || y < 0 || !ok[x] || !ok[y] ||
		    (pvariants[x].backend != MREMAP_RETAIN_BACKEND_MODULE &&
		     ok[index_of("retain-module")]))
			continue;
		c.v[0] = &pvariants[x];
		c.v[1] = &pvariants[y];
		mremap_retain_set_backend(pvariants[x].backend);
		for (b = 0; b < bench_opts.blocks; b++) {
			/* Blocks alternate which goes first, should a block's
			 * rounds be odd in number. */
			c.first = b & 1;
			if (run_block(cell_block, &c, 2, out))
				break;
			r[b] = out[0] / out[1];
			ref[b] = out[1];
		}
		if (b < bench_opts.blocks) {
			failed = 1;
			continue;
		}
		snprintf(metric, sizeof(metric), "vs_%s", pvariants[y].name);
		emit_spread(bench, pvariants[x].name, c.n, metric,
			    spread_d(r, bench_opts.blocks), 1, "x");
		emit_spread(bench, pvariants[y].name, c.n, "per_call",
			    spread_d(ref, bench_opts.blocks), 1, "ns");
	}
	return failed;
}

/*
 * The figures of every available variant (avail[k]) moving n bytes.  The
 * variants take turns block by block, each round in a rotated order, so
 * that what drifts over a run (free huge pages, the emulator's caches) is
 * shared by all of them.  Then the targets' pairs.  0, or -1 if a move
 * failed.
 */
static int one_size(const int *avail, size_t n, int misaligned, long long **t)
{
	const char *bench = misaligned ? "percall-misaligned" : "percall-aligned";
	static double v[NPVAR][BLOCK_MAX];
	int b, j, k, ok[NPVAR], failed = 0;
	struct cell c = { { NULL, NULL }, n, misaligned, 0, { t[0], t[1] } };
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
			c.v[0] = &pvariants[k];
			if (c.v[0]->how == MV_RETAIN)
				mremap_retain_set_backend(c.v[0]->backend);
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
	if (pair_ratios(ok, c))
		failed = 1;
	return failed ? -1 : 0;
}

int percall_bench(void)
{
	static const size_t wanted[] = { 4 * KIB, 64 * KIB, 2 * MIB, 64 * MIB, GIB };
	size_t sizes[8], nsizes = 0, i, k;
	int avail[NPVAR], misaligned, failed = 0;
	long long *t[2];
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
	t[0] = malloc(TURNS_MAX * sizeof(*t[0]));
	t[1] = malloc(TURNS_MAX * sizeof(*t[1]));
	if (!t[0] || !t[1])
		die("out of memory");
	for (misaligned = 0; misaligned < 2; misaligned++) {
		for (i = 0; i < nsizes; i++) {
			note("percall: %s %s", misaligned ? "misaligned" : "aligned",
			     size_name(sizes[i], sz, sizeof(sz)));
			if (one_size(avail, sizes[i], misaligned, t))
				failed = 1;
		}
	}
	free(t[0]);
	free(t[1]);
	return failed;
}
