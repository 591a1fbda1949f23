// SPDX-License-Identifier: MIT
/*
 * grow.c - benchmark "grow": the cost of one growth, what realloc() of a
 * large block does when it cannot grow in place.  A populated region of n
 * bytes becomes one of 2n elsewhere: by mremap(MREMAP_MAYMOVE) (glibc's
 * realloc() of a mapped chunk) and by mremap_retain() with the module and
 * the dontunmap backend, each to a place of the kernel's choosing and to a
 * FIXED one (an allocator's own extent: mapped and empty, as the module's
 * and jemalloc's destinations are).
 *
 * The source sits in a 2 MiB aligned slot of a PROT_NONE reservation, so
 * that it can never grow in place; the FIXED destination is another such
 * slot.  Between two timed calls, untimed and the same for every variant:
 * the source's slot is mapped afresh (mremap() left a hole there,
 * mremap_retain() an empty mapping: under TCG an untimed call changes the
 * cost of the next one, see percall.c), the grown region is shrunk back
 * to n in place and moved back onto it, and the destination's slot is
 * mapped afresh.
 * Each target's pair (a backend against mremap() with the same
 * placement) is measured in blocks where the two take turns call by call,
 * each in a process of its own, as percall's pairs are: the median of the
 * blocks' ratios with its spread (metric "vs_<reference>"), and each
 * one's per-call figure in those blocks.  The library's own backends are
 * judged natively: in a guest, where the module is there, only its pairs
 * run.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <mremap_retain.h>

#include "bench.h"

struct gvariant {
	const char *name;
	int backend;		/* 0: mremap() itself */
	int fixed;
};

static const struct gvariant gvariants[] = {
	{ "mremap", 0, 0 },
	{ "mremap-fixed", 0, 1 },
	{ "retain-module", MREMAP_RETAIN_BACKEND_MODULE, 0 },
	{ "retain-module-fixed", MREMAP_RETAIN_BACKEND_MODULE, 1 },
	{ "retain-dontunmap", MREMAP_RETAIN_BACKEND_DONTUNMAP, 0 },
	{ "retain-dontunmap-fixed", MREMAP_RETAIN_BACKEND_DONTUNMAP, 1 },
};
#define NGVAR	(sizeof(gvariants) / sizeof(gvariants[0]))

/* One variant's slots in a block. */
struct glane {
	const struct gvariant *v;
	size_t n;
	char *src, *dst;	/* dst: the FIXED destination's slot */
	void *res;
	size_t res_len;
};

static void *grow_once(const struct glane *l, size_t n)
{
	if (!l->v->backend)
		return mremap(l->src, n, 2 * n, MREMAP_MAYMOVE |
			      (l->v->fixed ? MREMAP_FIXED : 0), l->dst);
	return mremap_retain(l->src, n, 2 * n,
			     l->v->fixed ? MREMAP_RETAIN_FIXED : 0,
			     l->v->fixed ? l->dst : NULL);
}

/* One timed growth and the untimed way back: its ns, or -1. */
static long long glane_grow(struct glane *l, size_t n)
{
	long long t0 = now_ns(), t;
	char *p = grow_once(l, n);

	t = now_ns() - t0;
	if (p == MAP_FAILED)
		return -1;
	if (l->v->fixed && p != l->dst) {
		errno = EFAULT;	/* "Bad address": not the one asked for */
		return -1;
	}
	map_slot(l->src, n, 0);
	if (mremap(p, 2 * n, n, 0) != p ||
	    mremap(p, n, n, MREMAP_MAYMOVE | MREMAP_FIXED, l->src) != l->src)
		die("grow: cannot move the region back: %m");
	map_slot(l->dst, 2 * n, 0);
	return t;
}

static void glane_setup(struct glane *l, const struct gvariant *v, size_t n)
{
	char *slot[2];

	reserve_slots(2 * n, 0, 2, slot, &l->res, &l->res_len);
	l->v = v;
	l->n = n;
	l->src = slot[0];
	l->dst = slot[1];
	map_slot(l->src, n, 1);
	fill_pages(l->src, n, n);
	map_slot(l->dst, 2 * n, 0);
}

struct gcell {
	const struct gvariant *v[2];
	size_t n;
	int first;		/* which goes first in round 0 */
	long long *t[2];
};

/* take_turns()'s step: one timed growth of lane k of the array @arg. */
static long long glane_turn(void *arg, int k)
{
	struct glane *l = arg;

	return glane_grow(&l[k], l[k].n);
}

/* A block: the two in turn, call by call (take_turns()), after an
 * untimed round; out[k]: the median ns of variant k's calls. */
static int gcell_block(void *arg, double *out)
{
	const struct gcell *c = arg;
	struct glane l[2];
	int calls, k;
	char sz[32];

	for (k = 0; k < 2; k++)
		glane_setup(&l[k], c->v[k], c->n);
	for (k = 0; k < 2; k++)
		if (glane_grow(&l[k], c->n) < 0)
			goto fail;
	calls = take_turns(2, c->first, glane_turn, l, c->t);
	if (calls < 0) {
		k = -1 - calls;
		goto fail;
	}
	for (k = 0; k < 2; k++) {
		if (!check_pages(l[k].src, c->n, c->n))
			die("grow %s %s: the moved data came out wrong",
			    l[k].v->name, size_name(c->n, sz, sizeof(sz)));
		munmap(l[k].res, l[k].res_len);
		out[k] = median_ll(c->t[k], calls);
	}
	return 0;
fail:
	note("grow: %s %s: growth failed: %s", l[k].v->name,
	     size_name(c->n, sz, sizeof(sz)), strerror(errno));
	return -1;
}

/* The pair (x, y) at n bytes: "vs_<y>" of x and each one's per_call, in
 * bench "grow-paired".  0, or -1 if a block failed. */
static int grow_pair(const struct gvariant *x, const struct gvariant *y,
		     size_t n, long long **t)
{
	struct gcell c = { { x, y }, n, 0, { t[0], t[1] } };
	double r[BLOCK_MAX], a[BLOCK_MAX], b[BLOCK_MAX], out[2];
	char metric[64];
	int k;

	mremap_retain_set_backend(x->backend);
	for (k = 0; k < bench_opts.blocks; k++) {
		c.first = k & 1;
		if (run_block(gcell_block, &c, 2, out))
			return -1;
		r[k] = out[0] / out[1];
		a[k] = out[0];
		b[k] = out[1];
	}
	snprintf(metric, sizeof(metric), "vs_%s", y->name);
	emit_spread("grow-paired", x->name, n, metric,
		    spread_d(r, bench_opts.blocks), 1, "x");
	emit_spread("grow-paired", x->name, n, "per_call",
		    spread_d(a, bench_opts.blocks), 1, "ns");
	emit_spread("grow-paired", y->name, n, "per_call",
		    spread_d(b, bench_opts.blocks), 1, "ns");
	return 0;
}

int grow_bench(void)
{
	static const size_t wanted[] = {
		4 * KIB, 64 * KIB, 2 * MIB, 8 * MIB, 16 * MIB, 64 * MIB
	};
	int module = !mremap_retain_set_backend(MREMAP_RETAIN_BACKEND_MODULE);
	int failed = 0, ok;
	size_t i, k, n;
	long long *t[2];
	char sz[32], sz2[32];

	t[0] = malloc(TURNS_MAX * sizeof(*t[0]));
	t[1] = malloc(TURNS_MAX * sizeof(*t[1]));
	if (!t[0] || !t[1])
		die("out of memory");
	for (i = 0; i < sizeof(wanted) / sizeof(wanted[0]); i++) {
		n = wanted[i];
		if (2 * n > bench_opts.max_size) {
			note("grow: %s and up skipped (--max)",
			     size_name(n, sz, sizeof(sz)));
			break;
		}
		note("grow: %s to %s", size_name(n, sz, sizeof(sz)),
		     size_name(2 * n, sz2, sizeof(sz2)));
		for (k = 2; k < NGVAR; k++) {
			const struct gvariant *x = &gvariants[k];

			ok = !mremap_retain_set_backend(x->backend);
			if (!ok && !i)
				note("grow: %s skipped: backend unavailable here (%s)",
				     x->name, strerror(errno));
			if (!ok || (module && x->backend !=
				    MREMAP_RETAIN_BACKEND_MODULE))
				continue;
			if (grow_pair(x, &gvariants[x->fixed], n, t))
				failed = 1;
		}
	}
	free(t[0]);
	free(t[1]);
	return failed;
}
