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
 * then the median of 5 blocks with their spread), and crowded_ratio =
 * crowded / quiet for each variant and size, the median of the blocks'
 * own ratios with their spread.  In each block a quiet and a crowded
 * process (the crowd made in the latter) take turns, a batch of BATCH
 * calls each, cell by cell (since 2026-12-08; before, quiet and crowded
 * blocks ran one after the other): the build machines' system calls run
 * at one of two speeds some 40% apart, in spells of 0.2 to 2 seconds
 * (raw mremap() at 4 KiB: 4.1 or 5.5-5.8 us), so two halves timed
 * seconds apart read 0.7-1.5x where the crowd changed nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <mremap_retain.h>

#include "bench.h"
#include "internal.h"	/* MREMAP_DONTUNMAP for older headers */

#define CROWD		10000
#define CALLS		2000	/* at most, a cell; at least MIN_CALLS, */
#define MIN_CALLS	20	/* and more while in the time budget, */
#define BATCH		20	/* this many a turn */
#define SETTLE_MS	200	/* after the crowd is made (crowd_block()) */

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

/* One cell (a variant and a size) as a worker process times it: the two
 * slots it moves between, and each timed call so far. */
struct wcell {
	void *res;
	size_t res_len, n;
	char *a, *b;
	int avail, calls;
	long long t[CALLS];
};

static void wcell_open(struct wcell *w, const struct cvariant *v, size_t n)
{
	const size_t span = n + 2 * MIB;
	char *base;

	w->n = n;
	w->calls = 0;
	w->avail = !v->backend || !mremap_retain_set_backend(v->backend);
	base = reserve_aligned(2 * span + 2 * MIB, 2 * MIB, &w->res, &w->res_len);
	w->a = base + 2 * MIB;
	w->b = base + 2 * MIB + span;
	map_slot(w->a, n, 0);
	map_slot(w->b, n, 0);
	fill_pages(w->a, n, 5);
}

/* One untimed call (the other process ran last), then BATCH timed ones,
 * as many as there is room for: 0, or -1 if a move failed. */
static int wcell_batch(struct wcell *w, const struct cvariant *v)
{
	char *tmp;
	int i;

	for (i = -1; i < BATCH && w->calls < CALLS; i++) {
		long long t0 = now_ns();

		if (move_once(v, w->a, w->b, w->n))
			return -1;
		if (i >= 0)
			w->t[w->calls++] = now_ns() - t0;
		tmp = w->a, w->a = w->b, w->b = tmp;
	}
	return 0;
}

/* The cell's median ns a call (-1: not available here). */
static double wcell_close(struct wcell *w, const struct cvariant *v)
{
	double med = -1;

	if (w->avail) {
		if (!check_pages(w->a, w->n, 5))
			die("crowd: %s: the moved data came out wrong", v->name);
		med = median_ll(w->t, w->calls);
	}
	munmap(w->res, w->res_len);
	return med;
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
#define NCELL (NCVAR * NSIZE)

_Static_assert(2 * NCELL <= BLOCK_MAX_OUT, "crowd: too many figures a block");

/*
 * A worker: crowded or not, it answers 'r' once ready, then times a batch
 * of cell j's calls each time the block sends j (the cells in order), and
 * answers one byte: 'k', 'n' (variant not available), 'f' (a move
 * failed).  Sent -1, it writes each cell's median and exits.
 */
static void worker(int crowded, int cmd, int reply)
{
	static struct wcell w;
	double med[NCELL];
	int j, cur = -1;
	char ok = 'r';

	if (crowded)
		crowd_in();
	if (write(reply, &ok, 1) != 1)
		_exit(1);
	for (j = 0; j < (int)NCELL; j++)
		med[j] = -1;
	while (read(cmd, &j, sizeof(j)) == sizeof(j) && j >= 0 && j < (int)NCELL) {
		const struct cvariant *v = &cvariants[j / NSIZE];

		if (j != cur) {
			if (cur >= 0)
				med[cur] = wcell_close(&w, &cvariants[cur / NSIZE]);
			wcell_open(&w, v, sizes[j % NSIZE]);
			cur = j;
		}
		ok = !w.avail ? 'n' : wcell_batch(&w, v) ? 'f' : 'k';
		if (ok == 'f')
			note("crowd: %s: move failed: %s", v->name, strerror(errno));
		if (write(reply, &ok, 1) != 1 || ok == 'f')
			_exit(1);
	}
	if (cur >= 0)
		med[cur] = wcell_close(&w, &cvariants[cur / NSIZE]);
	_exit(write(reply, med, sizeof(med)) != sizeof(med));
}

/* Starts a worker; its command and reply descriptors in fd[0], fd[1]
 * (@other: the first worker's, which the second closes). */
static pid_t start_worker(int crowded, int fd[2], const int *other)
{
	int c[2], r[2];
	pid_t pid;

	if (pipe(c) || pipe(r))
		die("pipe: %m");
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		die("fork: %m");
	if (!pid) {
		if (other) {
			close(other[0]);
			close(other[1]);
		}
		close(c[1]);
		close(r[0]);
		worker(crowded, c[0], r[1]);
	}
	close(c[0]);
	close(r[1]);
	fd[0] = c[1];
	fd[1] = r[0];
	return pid;
}

/* One block, in a process of its own: out[j] is the median ns of a call
 * of cell j quiet, out[NCELL + j] crowded; -1 where the variant is not
 * available.  The two workers take turns a batch at a time, each cell
 * until both have CALLS calls, or MIN_CALLS and the time budget is
 * spent. */
static int crowd_block(void *arg, double *out)
{
	int fd[2][2], c, j, rounds, st, failed = 0;
	pid_t pid[2];
	char ok;

	(void)arg;
	/* A worker that died must not take the block with it by SIGPIPE. */
	signal(SIGPIPE, SIG_IGN);
	for (c = 0; c < 2; c++)
		pid[c] = start_worker(c, fd[c], c ? fd[0] : NULL);
	/*
	 * Both ready (the crowd made), and a pause, before the first cell's
	 * clock starts: without it the first cell (raw mremap(), 4 KiB) read
	 * up to 1.47x crowded where the others read 1.0-1.1x; with it
	 * 1.02-1.07x in four runs (2026-12-08, natively).  What settles in
	 * it was not traced (the deferred frees of the crowd's 10,000
	 * splits, likely).
	 */
	for (c = 0; c < 2; c++)
		if (read(fd[c][1], &ok, 1) != 1 || ok != 'r')
			failed = 1;
	usleep(SETTLE_MS * 1000);
	for (j = 0; j < (int)NCELL && !failed; j++) {
		long long end = now_ns() + bench_opts.budget_ms * 1000000LL;

		for (rounds = 0; !failed && rounds * BATCH < CALLS &&
		     (rounds * BATCH < MIN_CALLS || now_ns() < end); rounds++)
			for (c = 0; c < 2 && !failed; c++)
				if (write(fd[c][0], &j, sizeof(j)) != sizeof(j) ||
				    read(fd[c][1], &ok, 1) != 1 || ok == 'f')
					failed = 1;
				else if (ok == 'n')
					rounds = CALLS;	/* not here: next cell */
	}
	for (c = 0; c < 2; c++) {
		j = -1;
		if (write(fd[c][0], &j, sizeof(j)) != sizeof(j) ||
		    read(fd[c][1], out + c * NCELL, NCELL * sizeof(*out)) !=
		    (ssize_t)(NCELL * sizeof(*out)))
			failed = 1;
		close(fd[c][0]);
		close(fd[c][1]);
		if (waitpid(pid[c], &st, 0) != pid[c] || !WIFEXITED(st) ||
		    WEXITSTATUS(st))
			failed = 1;
	}
	return failed ? -1 : 0;
}

/*
 * Each figure is the median of bench_opts.blocks blocks, each a new
 * process with its two workers; crowded_ratio is the median of the
 * blocks' ratios.
 */
int crowd_bench(void)
{
	static double v[2][NCELL][BLOCK_MAX], ratio[BLOCK_MAX];
	double out[2 * NCELL];
	int nb = bench_opts.blocks, b, c, j;

	for (b = 0; b < nb; b++) {
		if (run_block(crowd_block, NULL, 2 * NCELL, out))
			return 1;
		for (c = 0; c < 2; c++)
			for (j = 0; j < (int)NCELL; j++)
				v[c][j][b] = out[c * NCELL + j];
	}
	for (j = 0; j < (int)NCELL; j++) {
		const char *name = cvariants[j / NSIZE].name;
		size_t size = sizes[j % NSIZE];

		for (b = 0; b < nb; b++)
			if (v[0][j][b] < 0 || v[1][j][b] < 0)
				break;
		if (b < nb) {
			if (j % NSIZE == 0)
				note("crowd: %s not available here", name);
			continue;
		}
		/* The ratios first: spread_d() sorts what it is given. */
		for (b = 0; b < nb; b++)
			ratio[b] = v[1][j][b] / v[0][j][b];
		for (c = 0; c < 2; c++)
			emit_spread(c ? "crowd-crowded" : "crowd-quiet", name, size,
				    "per_call", spread_d(v[c][j], nb), 1, "ns");
		emit_spread("crowd-crowded", name, size, "crowded_ratio",
			    spread_d(ratio, nb), 1, "x");
	}
	return 0;
}
