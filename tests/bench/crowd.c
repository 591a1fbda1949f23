// SPDX-License-Identifier: MIT
/*
 * crowd.c - benchmark 5, the cost of one call in a crowded process: a
 * 4 KiB and a 64 KiB move (the percall loop: FIXED between two slots of a
 * PROT_NONE reservation) by raw mremap(MREMAP_DONTUNMAP|MREMAP_FIXED) and
 * by mremap_retain() with each backend, in a process as it is ("quiet": a
 * few descriptors and mappings) and in one with 10,000 more open
 * descriptors and 10,000 more mappings ("crowded").  A server with many
 * connections and a fragmented heap is such a process; what the library
 * checks per call must not cost in proportion to either.  The mappings lie
 * below everything else in the process, so that a lookup walking the
 * mappings in address order (/proc/self/maps before Linux 6.11) passes
 * them all: the worst place for the moved range, not the best.
 * Figures: per_call for each crowd (ns: the median of a block's calls,
 * then the median of 5 blocks with their spread, quiet and crowded blocks
 * in turn, each in a process of its own), and crowded_ratio = crowded /
 * quiet for each variant and size.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <mremap_retain.h>

#include "bench.h"
#include "internal.h"	/* MREMAP_DONTUNMAP for older headers */

#define CROWD		10000
#define CALLS		2000	/* at most, a cell; at least MIN_CALLS, */
#define MIN_CALLS	21	/* and more while in the time budget */

struct cvariant {
	const char *name;
	int backend;	/* 0: raw mremap(DONTUNMAP) */
};

static const struct cvariant cvariants[] = {
	{ "mremap-dontunmap", 0 },
	{ "retain-module", MREMAP_RETAIN_BACKEND_MODULE },
	{ "retain-dontunmap", MREMAP_RETAIN_BACKEND_DONTUNMAP },
	{ "retain-copy", MREMAP_RETAIN_BACKEND_COPY },
};
#define NCVAR (sizeof(cvariants) / sizeof(cvariants[0]))

static int move_once(const struct cvariant *v, char *src, char *dst, size_t n)
{
	if (!v->backend)
		return mremap(src, n, n, MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP,
			      dst) == dst ? 0 : -1;
	return mremap_retain(src, n, n, MREMAP_RETAIN_FIXED, dst) == dst ? 0 : -1;
}

/* Median ns of one call of v moving n bytes (CALLS of them, or as many
 * as the time budget allows, at least MIN_CALLS); < 0 if a move failed. */
static double cell(const struct cvariant *v, size_t n, long long *t)
{
	const size_t span = n + 2 * MIB;
	char *base, *a, *b, *tmp;
	size_t res_len;
	long long end = now_ns() + bench_opts.budget_ms * 1000000LL;
	void *res;
	int i;

	base = reserve_aligned(2 * span + 2 * MIB, 2 * MIB, &res, &res_len);
	a = base + 2 * MIB;
	b = base + 2 * MIB + span;
	map_slot(a, n, 0);
	map_slot(b, n, 0);
	fill_pages(a, n, 5);
	for (i = -1; i < CALLS && (i < MIN_CALLS || now_ns() < end); i++) {
		long long t0 = now_ns();

		if (move_once(v, a, b, n)) {
			munmap(res, res_len);
			return -1;
		}
		if (i >= 0)
			t[i] = now_ns() - t0;
		tmp = a, a = b, b = tmp;
	}
	if (!check_pages(a, n, 5))
		die("crowd: %s: the moved data came out wrong", v->name);
	munmap(res, res_len);
	return median_ll(t, i);
}

/* Where the crowd's mappings go, or the first free place above: below the
 * program, its libraries and every mmap() without a hint. */
#define CROWD_LOW	((uintptr_t)1 << 40)

/* CROWD descriptors (of /dev/null) and CROWD separate one-page mappings. */
static void crowd_in(void)
{
	size_t len = 2 * CROWD * page_size;
	uintptr_t at = CROWD_LOW;
	struct rlimit rl;
	char *p;
	int i;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < CROWD + 64) {
		/* Root (the guests) may raise the hard limit too. */
		struct rlimit want = { CROWD + 64, CROWD + 64 };

		if (rl.rlim_max >= CROWD + 64 || setrlimit(RLIMIT_NOFILE, &want)) {
			rl.rlim_cur = rl.rlim_max < CROWD + 64 ? rl.rlim_max : CROWD + 64;
			setrlimit(RLIMIT_NOFILE, &rl);
		}
	}
	for (i = 0; i < CROWD; i++)
		if (open("/dev/null", O_RDONLY | O_CLOEXEC) < 0)
			die("crowd: open descriptor %d: %m (RLIMIT_NOFILE)", i);
	/* Alternating protections keep neighbours from merging. */
	for (;; at += len) {
		p = mmap((void *)at, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS |
			 MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
		if (p != MAP_FAILED)
			break;
		if (errno != EEXIST || at > CROWD_LOW << 4)
			die("crowd: cannot reserve the mappings below the others: %m");
	}
	for (i = 0; i < CROWD; i++)
		if (mprotect(p + 2 * i * page_size, page_size, PROT_READ))
			die("crowd: mapping %d: %m", i);
}

static const size_t sizes[] = { 4 * KIB, 64 * KIB };
#define NSIZE (sizeof(sizes) / sizeof(sizes[0]))

/* One block, in a process of its own: quiet (*arg 0) or crowded first;
 * out[variant * NSIZE + size] is the median ns of a call, or -1 where the
 * variant is not available. */
static int crowd_block(void *arg, double *out)
{
	long long *t = malloc(CALLS * sizeof(*t));
	size_t i, k;

	if (!t)
		die("out of memory");
	if (*(int *)arg)
		crowd_in();
	for (i = 0; i < NCVAR; i++) {
		int avail = !cvariants[i].backend ||
			    !mremap_retain_set_backend(cvariants[i].backend);

		for (k = 0; k < NSIZE; k++) {
			out[i * NSIZE + k] = avail ? cell(&cvariants[i], sizes[k], t) : -1;
			if (avail && out[i * NSIZE + k] < 0) {
				note("crowd: %s: move failed: %s", cvariants[i].name,
				     strerror(errno));
				return -1;
			}
		}
	}
	free(t);
	return 0;
}

/*
 * Each figure is the median of bench_opts.blocks blocks, a quiet and a
 * crowded one in turn, each in a new process (the crowd is made in its
 * own); crowded_ratio is the ratio of the two medians.
 */
int crowd_bench(void)
{
	static double v[2][NCVAR * NSIZE][BLOCK_MAX];
	double out[NCVAR * NSIZE];
	int nb = bench_opts.blocks, b, c, j;
	struct spread s[2];

	for (b = 0; b < nb; b++)
		for (c = 0; c < 2; c++) {
			if (run_block(crowd_block, &c, NCVAR * NSIZE, out))
				return 1;
			for (j = 0; j < (int)(NCVAR * NSIZE); j++)
				v[c][j][b] = out[j];
		}
	for (j = 0; j < (int)(NCVAR * NSIZE); j++) {
		const char *name = cvariants[j / NSIZE].name;
		size_t size = sizes[j % NSIZE];

		if (v[0][j][0] < 0) {
			if (j % NSIZE == 0)
				note("crowd: %s not available here", name);
			continue;
		}
		for (c = 0; c < 2; c++) {
			s[c] = spread_d(v[c][j], nb);
			emit_spread(c ? "crowd-crowded" : "crowd-quiet", name, size,
				    "per_call", s[c], 1, "ns");
		}
		emit("crowd-crowded", name, size, "crowded_ratio",
		     s[1].med / s[0].med, "x");
	}
	return 0;
}
