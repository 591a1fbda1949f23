// SPDX-License-Identifier: MIT
/*
 * move.c - the stress program's mremap_retain operation: grow, shrink or
 * same size; anywhere, FIXED onto memory the worker owns, FIXED|NOREPLACE
 * onto owned memory (EEXIST) or onto a hole it just unmapped, and FIXED
 * onto the source itself (EINVAL).  Every byte of the destination and of
 * the retained source is then checked against the model; after a failure,
 * that nothing changed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <mremap_retain.h>

#include "stress.h"

enum variant { V_ANY, V_FIXED, V_NOREPL_OWN, V_NOREPL_HOLE, V_OVERLAP };

static const char *const vname[] = {
	"anywhere", "FIXED", "FIXED|NOREPLACE onto owned", "FIXED|NOREPLACE onto hole",
	"FIXED onto source",
};

/* A region other than `not' with at least n pages, or a new reservation. */
static int target(struct st_worker *w, int not, size_t n)
{
	int i, k = st_below(w, w->nr);
	struct st_page *pg;
	void *p;

	for (i = 0; i < w->nr; i++) {
		int ri = (k + i) % w->nr;

		if (ri != not && w->r[ri].n >= n)
			return ri;
	}
	p = mmap(NULL, n * st_ps, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	pg = calloc(n, sizeof(*pg));
	if (p == MAP_FAILED || !pg) {
		st_mis(w, MIS_ERRNO, "mmap of a reservation: %s", strerror(errno));
		free(pg);
		return -1;
	}
	st_count(w, OP_MMAP);
	return st_add(w, (uintptr_t)p, n, PROT_NONE, pg);
}

/* Checks that the source (and a FIXED target) are as before the call. */
static void check_unchanged(struct st_worker *w, uintptr_t src, size_t n,
			    const struct st_page *old, int prot, int ti,
			    const char *ctx)
{
	st_verify_range(w, src, n, old, prot, MIS_UNCHANGED, ctx);
	if (st_below(w, 4) == 0)
		st_check_prot(w, src, prot, MIS_UNCHANGED, ctx);
	if (ti >= 0)
		st_verify(w, ti, MIS_UNCHANGED, ctx);
}

static void moved(struct st_worker *w, uintptr_t src, size_t old_n,
		  const struct st_page *old, int prot, uintptr_t res,
		  size_t new_n, const char *ctx)
{
	size_t keep = old_n < new_n ? old_n : new_n;
	struct st_page *pg = calloc(new_n, sizeof(*pg));
	int si, di;

	st_cut(w, res, new_n);
	si = st_find(w, src);
	if (si >= 0 && w->r[si].start == src && w->r[si].n == old_n)
		memset(w->r[si].pg, 0, old_n * sizeof(*pg));
	if (!pg)
		return;
	memcpy(pg, old, keep * sizeof(*pg));
	di = st_add(w, res, new_n, prot, pg);
	if (di >= 0)
		st_verify(w, di, MIS_CONTENT, ctx);
	if (si >= 0)
		st_verify(w, si, MIS_SOURCE, ctx);
	/* Unreadable pages are checked when op_verify makes them readable. */
	if (st_below(w, 4) == 0) {
		st_check_prot(w, res, prot, MIS_PROT, ctx);
		st_check_prot(w, src, prot, MIS_PROT, ctx);
	}
}

void op_move(struct st_worker *w)
{
	int ri, ti = -1, want_err = 0, flags = 0, prot, k;
	size_t old_n, new_n;
	uintptr_t src, dest = 0, res;
	struct st_page *old;
	enum variant v;
	char ctx[160];
	void *p;

	if (w->nr >= ST_MAX_REGIONS - 4 || !w->nr)
		return;
	ri = st_below(w, w->nr);
	old_n = w->r[ri].n;
	k = st_below(w, 3);
	new_n = old_n;
	if (k == 1 && w->pages + old_n + 16 <= ST_MAX_PAGES)
		new_n = old_n + 1 + st_below(w, 16);
	else if (k == 2 && old_n > 1)
		new_n = 1 + st_below(w, old_n - 1);
	st_count(w, new_n == old_n ? OP_MOVE_SAME :
		    new_n > old_n ? OP_MOVE_GROW : OP_MOVE_SHRINK);

	k = st_below(w, 10);
	v = k < 4 ? V_ANY : k < 7 ? V_FIXED : k == 7 ? V_NOREPL_OWN :
	    k == 8 ? V_NOREPL_HOLE : V_OVERLAP;
	if (v == V_FIXED || v == V_NOREPL_OWN) {
		ti = target(w, ri, new_n);
		if (ti < 0)
			return;
		dest = w->r[ti].start + st_below(w, w->r[ti].n - new_n + 1) * st_ps;
		flags = MREMAP_RETAIN_FIXED;
		if (v == V_NOREPL_OWN) {
			flags |= MREMAP_RETAIN_NOREPLACE;
			want_err = EEXIST;
		}
	} else if (v == V_NOREPL_HOLE) {
		p = mmap(NULL, new_n * st_ps, PROT_NONE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return;
		munmap(p, new_n * st_ps);
		dest = (uintptr_t)p;
		flags = MREMAP_RETAIN_FIXED | MREMAP_RETAIN_NOREPLACE;
	} else if (v == V_OVERLAP) {
		dest = w->r[ri].start + st_below(w, old_n) * st_ps;
		flags = MREMAP_RETAIN_FIXED;
		want_err = EINVAL;
	}
	st_count(w, v == V_ANY ? OP_MOVE_ANY : v == V_FIXED ? OP_MOVE_FIXED :
		    v == V_NOREPL_OWN ? OP_MOVE_NOREPL_EEXIST :
		    v == V_NOREPL_HOLE ? OP_MOVE_NOREPL_HOLE : OP_MOVE_OVERLAP);

	src = w->r[ri].start;
	prot = w->r[ri].prot;
	old = malloc(old_n * sizeof(*old));
	if (!old)
		return;
	memcpy(old, w->r[ri].pg, old_n * sizeof(*old));
	snprintf(ctx, sizeof(ctx), "move %zu->%zu pages %s (prot %d) %#lx->%#lx",
		 old_n, new_n, vname[v], prot, (unsigned long)src,
		 (unsigned long)dest);

	errno = 0;
	p = mremap_retain((void *)src, old_n * st_ps, new_n * st_ps, flags,
			  (void *)dest);
	res = (uintptr_t)p;
	if (p == MAP_FAILED) {
		int e = errno;

		if (e == want_err && want_err) {
			/* expected */
		} else if (e == EEXIST && v == V_NOREPL_HOLE) {
			st_count(w, OP_HOLE_RACED);	/* another thread took it */
		} else if (e == ENOMEM && !want_err) {
			/* Counted, and a failure: a worker holds at most 40
			 * regions of 12 MiB, far from any limit. */
			st_count(w, OP_MOVE_ENOMEM);
			st_mis(w, MIS_ERRNO, "%s: failed with ENOMEM (want success)",
			       ctx);
		} else {
			st_mis(w, MIS_ERRNO, "%s: failed with %s (want %s)", ctx,
			       strerror(e), want_err ? strerror(want_err) : "success");
		}
		check_unchanged(w, src, old_n, old, prot, ti,
				"after a failed move");
		free(old);
		return;
	}
	if (want_err)
		st_mis(w, MIS_ERRNO, "%s: succeeded (-> %#lx), want %s", ctx,
		       (unsigned long)res, strerror(want_err));
	if (res % st_ps || (flags & MREMAP_RETAIN_FIXED && res != dest))
		st_mis(w, MIS_PLACE, "%s: returned %#lx", ctx, (unsigned long)res);
	else if (!(flags & MREMAP_RETAIN_FIXED) && st_overlaps(w, res, new_n))
		st_mis(w, MIS_PLACE, "%s: destination %#lx overlaps memory the worker owns",
		       ctx, (unsigned long)res);
	moved(w, src, old_n, old, prot, res, new_n, ctx);
	free(old);
}
