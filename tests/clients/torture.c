// SPDX-License-Identifier: MIT
/*
 * torture.c - an allocator that uses mremap_retain, under load: several
 * threads doing random malloc, realloc (growing and shrinking, 4 KiB to
 * --max) and free, with every byte of every block checked at each realloc
 * and free.  Linked statically with the allocator and libmremap_retain (so
 * the same program runs natively and in the guests), or run with an
 * allocator preloaded.  Where the allocator is a patched one (jemalloc's
 * mallctl "stats.mremap_retain_moves" or TCMalloc's numeric property
 * "tcmalloc.mremap_retain_moves" answers), it reports how many reallocs
 * moved pages and how many fell back to memcpy: some must have moved, none
 * may have fallen back.
 *
 *	torture [--threads N] [--ops N] [--max SIZE] [--live SIZE]
 *
 * --ops per thread; --max the largest block; --live the bytes a thread may
 * hold at once.  TAP on stdout.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mremap_retain.h>

#include "../tap.h"
#include "counts.h"

/* Linked in, so that a statically linked jemalloc finds it (weak reference). */
void *(*const volatile torture_mremap_retain)(void *, size_t, size_t, int, ...) = mremap_retain;

#define SLOTS 12

struct opts {
	int threads;
	long ops;
	size_t max, live;
};

/* The defaults suit a guest under TCG; the host run asks for more. */
static struct opts o = { 2, 300, 64UL << 20, 128UL << 20 };

struct block {
	uint64_t *p;
	size_t size;		/* bytes, a multiple of 8 */
	uint64_t seed;
};

struct worker {
	pthread_t tid;
	uint64_t rng;
	long reallocs, grows;
	const char *error;	/* first wrong byte, if any */
	char why[160];
};

static uint64_t next(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

static inline uint64_t word(uint64_t seed, size_t i)
{
	uint64_t x = (seed + 1) * 0x9E3779B97F4A7C15ULL ^ (i + 1) * 0xD6E8FEB86659FD93ULL;

	return x ^ (x >> 31);
}

static void fill(struct block *b, size_t from)
{
	for (size_t i = from / 8; i < b->size / 8; i++)
		b->p[i] = word(b->seed, i);
}

static int check(struct worker *w, const struct block *b, size_t upto)
{
	for (size_t i = 0; i < upto / 8; i++)
		if (b->p[i] != word(b->seed, i)) {
			snprintf(w->why, sizeof(w->why),
				 "block of %zu bytes: word %zu is %#llx", b->size, i,
				 (unsigned long long)b->p[i]);
			w->error = w->why;
			return 0;
		}
	return 1;
}

/* Log-uniform from 4 KiB to o.max, in multiples of 8. */
static size_t pick_size(struct worker *w)
{
	int lo = 12, hi = 63 - __builtin_clzll(o.max);
	int bits = lo + (int)(next(&w->rng) % (unsigned)(hi - lo + 1));
	size_t n = ((size_t)1 << bits) + (next(&w->rng) % ((size_t)1 << bits));

	n = n > o.max ? o.max : n;
	return n & ~(size_t)7;
}

static void *work(void *arg)
{
	struct worker *w = arg;
	struct block b[SLOTS] = { { 0 } };
	size_t live = 0;

	for (long op = 0; op < o.ops && !w->error; op++) {
		struct block *s = &b[next(&w->rng) % SLOTS];
		size_t n = pick_size(w);
		unsigned int r = next(&w->rng) % 10;

		if (!s->p) {
			if (live + n > o.live)
				continue;
			s->p = malloc(n);
			if (!s->p)
				continue;
			s->size = n;
			s->seed = next(&w->rng);
			fill(s, 0);
			live += n;
		} else if (r < 7) {
			uint64_t *q;
			size_t old = s->size;

			if (n > old && live + n - old > o.live)
				continue;
			if (!check(w, s, old))
				break;
			q = realloc(s->p, n);
			if (!q)
				continue;
			s->p = q;
			s->size = n;
			w->reallocs++;
			w->grows += n > old;
			if (!check(w, s, old < n ? old : n))
				break;
			if (n > old)
				fill(s, old);
			live = live - old + n;
		} else {
			if (!check(w, s, s->size))
				break;
			free(s->p);
			live -= s->size;
			s->p = NULL;
		}
	}
	for (int i = 0; i < SLOTS; i++)
		if (b[i].p) {
			if (!w->error)
				check(w, &b[i], b[i].size);
			free(b[i].p);
		}
	return NULL;
}

/*
 * Before the threads: one block of 1 MiB grown to --max while the heap is
 * young, so that it lands in memory nothing has touched.  A patched
 * TCMalloc moves only there (into resident memory it copies), and the
 * random growths below mostly land in memory the threads have filled, so
 * this is the growth that every patched allocator moves.
 */
static void first_growth(struct worker *w)
{
	struct block b = { NULL, 1UL << 20, 1 };
	uint64_t *q;

	if (o.max <= b.size)
		return;
	b.p = malloc(b.size);
	if (!b.p)
		return;
	fill(&b, 0);
	q = realloc(b.p, o.max);
	if (q) {
		b.p = q;
		w->reallocs++;
		w->grows++;
		check(w, &b, b.size);
	}
	free(b.p);
}

static size_t parse_size(const char *s)
{
	char *end;
	size_t n = strtoull(s, &end, 0);

	switch (*end) {
	case 'G': n <<= 10; /* fall through */
	case 'M': n <<= 10; /* fall through */
	case 'K': n <<= 10; break;
	}
	return n;
}

int main(int argc, char **argv)
{
	struct worker *w;
	long reallocs = 0, grows = 0;
	const char *error = NULL;
	size_t moves = 0, fallbacks = 0;
	struct timespec t0, t1;

	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--threads"))
			o.threads = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--ops"))
			o.ops = atol(argv[i + 1]);
		else if (!strcmp(argv[i], "--max"))
			o.max = parse_size(argv[i + 1]);
		else if (!strcmp(argv[i], "--live"))
			o.live = parse_size(argv[i + 1]);
	}
	if (o.threads < 1 || o.ops < 1 || o.max < 4096 || o.live < o.max) {
		fprintf(stderr, "usage: torture [--threads N] [--ops N] [--max SIZE] [--live SIZE >= max]\n");
		return 2;
	}
	w = calloc(o.threads, sizeof(*w));
	if (!w)
		return 2;
	printf("# torture: %d threads x %ld ops, blocks 4 KiB to %zu MiB, %zu MiB live per thread; mremap_retain backend %s\n",
	       o.threads, o.ops, o.max >> 20, o.live >> 20,
	       mremap_retain_backend_name(mremap_retain_backend()));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	first_growth(&w[0]);
	for (int i = 0; i < o.threads; i++) {
		w[i].rng = 0x2545F4914F6CDD1DULL * (i + 1);
		if (pthread_create(&w[i].tid, NULL, work, &w[i]))
			return 2;
	}
	for (int i = 0; i < o.threads; i++) {
		pthread_join(w[i].tid, NULL);
		reallocs += w[i].reallocs;
		grows += w[i].grows;
		if (w[i].error && !error)
			error = w[i].error;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	tap_ok(!error && reallocs > 0, "torture: %ld reallocs (%ld growths) in %.1f s, every byte checked%s%s",
	       reallocs, grows, (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9,
	       error ? ": " : "", error ? error : "");
	if (move_counts(&moves, &fallbacks)) {
		tap_ok(moves > 0, "torture: %zu reallocs moved pages with mremap_retain", moves);
		tap_ok(fallbacks == 0, "torture: %zu fell back to memcpy", fallbacks);
	} else {
		/* Each torture program is linked with a patched allocator. */
		tap_ok(0, "torture: the allocator gave no move counts (not a patched allocator?)");
	}
	free(w);
	return tap_done();
}
