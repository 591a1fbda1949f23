// SPDX-License-Identifier: MIT
/*
 * race.c - a move racing with writes to its source.
 *
 * A writer thread stores, for t = 0, 1, 2, ..., the value W(t) into word 0
 * of source page t % n, until the mover (the worker) has finished the move
 * and tells it to stop; T writes were made.  W(t) encodes t, so every
 * value read back names the write it came from.
 *
 * What is checkable afterwards, for every source page i (with its tag):
 *   - destination page i: words 1.. hold the tag's pattern (nothing else
 *     touches them); word 0 holds the tag's word 0 or some W(t) with
 *     t % n == i and t < T.  Pages past the source's size read as zero.
 *   - source page i: words 1.. are zero; word 0 is 0 or W(t) as above.
 *   - a write seen in the source is the last write to that page (once a
 *     page's writes land in the fresh source, all later ones do too), and
 *     is later than any write seen in the destination.
 * That is all the copy backend promises: a write between its memcpy and
 * its MADV_DONTNEED of a page is lost, legitimately.
 *
 * The module moves all pages under one mmap_write_lock, and the dontunmap
 * backend moves [0, min(n, new_n)) in one mremap(); a write either reaches
 * the old page table (and so moves) or faults after the move (and lands in
 * the fresh source).  So there is one cut c in [0, T]: write t went to the
 * destination if t < c, to the source otherwise.  Exactly: destination
 * page i holds the last write to i before c (or the tag's word), source
 * page i the last write to i if that is at or after c (or 0), and for the
 * module a shrunk source's tail pages (never moved) hold the last write at
 * or after c or 0.  The dontunmap backend empties that tail with a later
 * MADV_DONTNEED, so there the tail is held to the general rule only.
 * The smallest c allowed by the destination's and source's values is
 * checked; if any cut fits, that one does.
 *
 * A value of this race's writer found in a page other than the one it was
 * written to is a stray store (class "stray-write"): a store through a
 * stale TLB entry into a page frame that was freed and reused.  QEMU's
 * multi-threaded TCG produces these with the copy backend (whose memcpy
 * faults in fresh frames during the race) on every guest kernel, and never
 * with -accel tcg,thread=single nor on real hardware; stress.c reports the
 * class as a skip under a QEMU TCG CPU, as a failure anywhere else.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <mremap_retain.h>

#include "stress.h"

#define RW (PROT_READ | PROT_WRITE)
#define RACE_MARK 0xA5C3ULL
#define MAX_WRITES (1ULL << 30)

struct race {
	volatile uint64_t *base;
	size_t n;
	uint64_t salt;		/* 16 bits */
	int stop;
	uint64_t t;		/* writes done */
};

static uint64_t wval(const struct race *r, uint64_t t)
{
	return RACE_MARK << 48 | r->salt << 32 | (t + 1);
}

/* The write a word holds, or -1 for `none' (want0) or -2 for garbage. */
static int64_t decode(const struct race *r, uint64_t v, uint64_t want0,
		      size_t page)
{
	uint64_t t;

	if (v == want0)
		return -1;
	if (v >> 32 != (RACE_MARK << 16 | r->salt))
		return -2;
	t = (v & 0xffffffffULL) - 1;
	if (t >= r->t || t % r->n != page)
		return -2;
	return t;
}

/* 1 if v is one of this race's writes, but one made to another page. */
static int stray(const struct race *r, uint64_t v, size_t page)
{
	uint64_t t = (v & 0xffffffffULL) - 1;

	return v >> 32 == (RACE_MARK << 16 | r->salt) && t < r->t &&
	       t % r->n != page;
}

/* Last write to page i before write number c, or -1. */
static int64_t last_below(size_t n, size_t i, uint64_t c)
{
	if (c <= i)
		return -1;
	return i + (c - 1 - i) / n * n;
}

static void *writer(void *arg)
{
	struct race *r = arg;
	size_t words = st_ps / 8;
	uint64_t t;

	for (t = 0; t < MAX_WRITES; ) {
		r->base[(t % r->n) * words] = wval(r, t);
		t++;
		__atomic_store_n(&r->t, t, __ATOMIC_RELEASE);
		if (__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE))
			break;
	}
	return NULL;
}

/* Words 1.. of a page: the tag's pattern, or zero for tag 0. */
static int rest_ok(const volatile uint64_t *p, uint64_t tag)
{
	size_t j;

	for (j = 1; j < st_ps / 8; j++)
		if (p[j] != (tag ? st_word(tag, j) : 0))
			return 0;
	return 1;
}

static int check(struct st_worker *w, struct race *r, uintptr_t dst,
		 size_t new_n, const uint64_t *tags, const char *ctx)
{
	size_t n = r->n, keep = n < new_n ? n : new_n, i;
	int strict = w->backend != MREMAP_RETAIN_BACKEND_COPY;
	int64_t *dt = calloc(n, sizeof(*dt)), *s = calloc(n, sizeof(*s));
	uint64_t c = 0;
	int bad = 0;

	if (!dt || !s)
		goto out;
	for (i = 0; i < n && !bad; i++) {
		const volatile uint64_t *sp = (void *)((uintptr_t)r->base + i * st_ps);
		const volatile uint64_t *dp = (void *)(dst + i * st_ps);
		int64_t lw = last_below(n, i, r->t);

		dt[i] = -1;
		s[i] = decode(r, sp[0], 0, i);
		if (s[i] == -2 && stray(r, sp[0], i) && rest_ok(sp, 0)) {
			st_mis(w, MIS_STRAY, "%s: source page %zu holds write %llu, made to page %llu",
			       ctx, i, (unsigned long long)(sp[0] & 0xffffffffULL) - 1,
			       (unsigned long long)((sp[0] & 0xffffffffULL) - 1) % n);
			bad = 1;
		} else if (s[i] == -2 || !rest_ok(sp, 0)) {
			st_mis(w, MIS_RACE, "%s: source page %zu holds %#llx, %#llx...: not zero or a write (salt %#llx, %llu writes)",
			       ctx, i, (unsigned long long)sp[0],
			       (unsigned long long)sp[1], (unsigned long long)r->salt,
			       (unsigned long long)r->t);
			bad = 1;
		} else if (s[i] >= 0 && s[i] != lw) {
			st_mis(w, MIS_RACE, "%s: source page %zu holds write %lld, the last was %lld",
			       ctx, i, (long long)s[i], (long long)lw);
			bad = 1;
		}
		if (i >= keep || bad)
			continue;
		dt[i] = decode(r, dp[0], st_word(tags[i], 0), i);
		if (dt[i] == -2 && stray(r, dp[0], i) && rest_ok(dp, tags[i])) {
			st_mis(w, MIS_STRAY, "%s: destination page %zu holds write %llu, made to page %llu",
			       ctx, i, (unsigned long long)(dp[0] & 0xffffffffULL) - 1,
			       (unsigned long long)((dp[0] & 0xffffffffULL) - 1) % n);
			bad = 1;
		} else if (dt[i] == -2 || !rest_ok(dp, tags[i])) {
			st_mis(w, MIS_RACE, "%s: destination page %zu holds %#llx, %#llx...: not its content (%#llx, %#llx...) or a write (salt %#llx, %llu writes)",
			       ctx, i, (unsigned long long)dp[0],
			       (unsigned long long)dp[1],
			       (unsigned long long)st_word(tags[i], 0),
			       (unsigned long long)st_word(tags[i], 1),
			       (unsigned long long)r->salt,
			       (unsigned long long)r->t);
			bad = 1;
		} else if (dt[i] >= 0 && s[i] >= 0 && s[i] <= dt[i]) {
			st_mis(w, MIS_RACE, "%s: page %zu: write %lld in the source, later %lld in the destination",
			       ctx, i, (long long)s[i], (long long)dt[i]);
			bad = 1;
		}
	}
	for (i = keep; i < new_n && !bad; i++)
		if (!rest_ok((void *)(dst + i * st_ps), 0) ||
		    *(volatile uint64_t *)(dst + i * st_ps)) {
			st_mis(w, MIS_CONTENT, "%s: grown page %zu not zero", ctx, i);
			bad = 1;
		}
	if (bad || !strict)
		goto out;
	/* The smallest cut the values allow, then every page against it. */
	for (i = 0; i < n; i++) {
		int64_t lw = last_below(n, i, r->t);
		int moved = i < keep ||
			    w->backend == MREMAP_RETAIN_BACKEND_MODULE;

		if (!moved)
			continue;
		if (dt[i] >= 0 && (uint64_t)dt[i] + 1 > c)
			c = dt[i] + 1;
		if (s[i] < 0 && lw >= 0 && (uint64_t)lw + 1 > c)
			c = lw + 1;
	}
	for (i = 0; i < n && !bad; i++) {
		int64_t lw = last_below(n, i, r->t);
		int64_t ws = lw >= 0 && (uint64_t)lw >= c ? lw : -1;

		if (i >= keep && w->backend != MREMAP_RETAIN_BACKEND_MODULE)
			continue;
		if ((i < keep && dt[i] != last_below(n, i, c)) || s[i] != ws) {
			st_mis(w, MIS_RACE, "%s: no single cut: with cut %llu of %llu writes page %zu should have dest %lld src %lld, has %lld %lld",
			       ctx, (unsigned long long)c,
			       (unsigned long long)r->t, i,
			       (long long)(i < keep ? last_below(n, i, c) : -1),
			       (long long)ws, (long long)dt[i], (long long)s[i]);
			bad = 1;
		}
	}
out:
	free(dt);
	free(s);
	return bad;
}

void op_race(struct st_worker *w)
{
	size_t n = 2 + st_below(w, 31), new_n = n, i;
	struct race r = { .n = n };
	uint64_t *tags, pre, spin;
	void *src, *dst, *fixed = NULL;
	pthread_t th;
	struct st_page *pg;
	char ctx[128];
	int k = st_below(w, 3), e, flags = 0;

	if (w->nr >= ST_MAX_REGIONS - 4 || w->pages + 2 * n + 16 > ST_MAX_PAGES)
		return;
	if (k == 1)
		new_n = n + 1 + st_below(w, 16);
	else if (k == 2)
		new_n = 1 + st_below(w, n - 1);
	src = mmap(NULL, n * st_ps, RW, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	tags = calloc(n, sizeof(*tags));
	if (src == MAP_FAILED || !tags) {
		st_mis(w, MIS_ERRNO, "race: mmap: %s", strerror(errno));
		free(tags);
		return;
	}
	if (st_below(w, 3) == 0) {
		fixed = mmap(NULL, new_n * st_ps, PROT_NONE,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (fixed != MAP_FAILED)
			flags = MREMAP_RETAIN_FIXED;
		else
			fixed = NULL;
	}
	for (i = 0; i < n; i++) {
		tags[i] = st_new_tag(w);
		st_fill_page((char *)src + i * st_ps, tags[i]);
	}
	r.base = src;
	r.salt = st_rand(w) & 0xffff;
	snprintf(ctx, sizeof(ctx), "race: move %zu->%zu pages%s %p", n, new_n,
		 flags ? " FIXED" : "", src);
	st_count(w, OP_RACE);
	if ((e = pthread_create(&th, NULL, writer, &r))) {
		st_mis(w, MIS_ERRNO, "race: pthread_create: %s", strerror(e));
		munmap(src, n * st_ps);
		free(tags);
		return;
	}
	/* Let some writes land first, then move at a random moment. */
	pre = st_below(w, 2 * n);
	while (__atomic_load_n(&r.t, __ATOMIC_ACQUIRE) < pre)
		sched_yield();
	for (spin = st_below(w, 2000); spin; spin--)
		__asm__ volatile("" ::: "memory");
	dst = mremap_retain(src, n * st_ps, new_n * st_ps, flags, fixed);
	e = errno;
	__atomic_store_n(&r.stop, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	__atomic_fetch_add(&w->st->ops[OP_RACE_WRITES], r.t, __ATOMIC_RELAXED);

	if (dst == MAP_FAILED) {
		st_mis(w, MIS_ERRNO, "%s: failed: %s", ctx, strerror(e));
		munmap(src, n * st_ps);
		if (fixed)
			munmap(fixed, new_n * st_ps);
		free(tags);
		return;
	}
	if (fixed && dst != fixed)
		st_mis(w, MIS_PLACE, "%s: FIXED move returned %p, not %p", ctx,
		       dst, fixed);
	check(w, &r, (uintptr_t)dst, new_n, tags, ctx);

	/* Hand both ranges to the model with fresh, known content. */
	pg = calloc(new_n, sizeof(*pg));
	for (i = 0; pg && i < new_n; i++) {
		pg[i].tag = st_new_tag(w);
		st_fill_page((char *)dst + i * st_ps, pg[i].tag);
	}
	madvise(src, n * st_ps, MADV_DONTNEED);
	if (pg)
		st_add(w, (uintptr_t)dst, new_n, RW, pg);
	pg = calloc(n, sizeof(*pg));
	if (pg)
		st_add(w, (uintptr_t)src, n, RW, pg);
	free(tags);
}
