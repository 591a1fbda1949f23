/* SPDX-License-Identifier: MIT */
/*
 * bench.h - what the benchmark programs share: options, timing, figures.
 *
 * A figure is printed on stdout as one line
 *	@@BENCH<TAB>bench<TAB>kernel<TAB>variant<TAB>size<TAB>metric<TAB>value<TAB>unit
 * or, for a figure measured in several blocks (run_blocks()), the median
 * of the blocks' figures followed by two more fields, their minimum and
 * maximum; tests/bench/report.awk turns these into JSON and Markdown.
 * Everything else (progress, skipped variants and why) goes to stderr as
 * "# " lines.
 * Benchmarks print figures; they never pass or fail, except when the data
 * they move comes out wrong, which makes the figures meaningless.
 */
#ifndef MREMAP_RETAIN_BENCH_H
#define MREMAP_RETAIN_BENCH_H

#include <stddef.h>
#include <sys/types.h>

#define KIB	((size_t)1 << 10)
#define MIB	((size_t)1 << 20)
#define GIB	((size_t)1 << 30)

struct bench_opts {
	const char *label;	/* "host", or the Debian suite of the guest */
	int runs;		/* vector: runs per variant (median) */
	size_t max_size;	/* largest region (vector, percall) */
	long budget_ms;		/* percall, release: time per figure */
	int blocks;		/* percall, release: blocks per figure */
};

/* A figure over several blocks: the median of their values, and the
 * smallest and largest. */
struct spread {
	double med, min, max;
};

#define BLOCK_MAX	32
#define BLOCK_MAX_OUT	16

extern struct bench_opts bench_opts;
extern size_t page_size;

long long now_ns(void);
/* Sorts v[0..n) and returns the median. */
double median_ll(long long *v, int n);
void emit(const char *bench, const char *variant, size_t size,
	  const char *metric, double value, const char *unit);
/* A figure with its spread, each value multiplied by scale. */
void emit_spread(const char *bench, const char *variant, size_t size,
		 const char *metric, struct spread s, double scale,
		 const char *unit);
/* Sorts v[0..n); its median, minimum and maximum. */
struct spread spread_d(double *v, int n);
/*
 * Runs fn once per block (bench_opts.blocks), each time in a new child
 * process, so that no block inherits what another left behind (mappings,
 * the library's per-process descriptors, the mm's state): fn leaves nout
 * figures in out and returns 0, else -1.  s[i] is the spread of figure i
 * over the blocks.  0, or -1 if a block failed.
 */
int run_blocks(int (*fn)(void *arg, double *out), void *arg, int nout,
	       struct spread *s);
/*
 * The timed calls of a block: nl lanes (one or two) take turns call by
 * call, the order swapped every round (lane @first goes first in round
 * 0), until the block's share of the time budget is spent, after at least
 * one round in each order, or TURNS_MAX rounds.  step(arg, k) makes lane
 * k's next call and returns its ns, or -1; t[k][i] is lane k's call i.
 * Returns the rounds made, or -1 - k where lane k's call failed.
 */
#define TURNS_MAX	20000
int take_turns(int nl, int first, long long (*step)(void *arg, int k),
	       void *arg, long long *const *t);
/* fork() with a pipe from the child to the parent: *fd is its write end
 * in the child, its read end in the parent.  fork()'s value. */
pid_t fork_piped(int *fd);
/* One such block: 0 and its figures in out, or -1. */
int run_block(int (*fn)(void *arg, double *out), void *arg, int nout,
	      double *out);
__attribute__((format(printf, 1, 2)))
void note(const char *fmt, ...);
__attribute__((format(printf, 1, 2), noreturn))
void die(const char *fmt, ...);
/* Text such as "4KiB", "2MiB", "1GiB" for a size. */
const char *size_name(size_t n, char *buf, size_t len);
/* len bytes of PROT_NONE reserved address space whose start is aligned to
 * align (a power of two); munmap(*res, *res_len) releases it. */
char *reserve_aligned(size_t len, size_t align, void **res, size_t *res_len);
/*
 * nslots slots for regions of n bytes in one PROT_NONE reservation (see
 * reserve_aligned()), as percall moves between them: each past a 2 MiB
 * boundary and 2 MiB of reservation, so that no move merges with a
 * neighbour; with misaligned, the even ones page_size past their
 * boundary, so that a move between an even and an odd one shifts every
 * page by 4 KiB modulo 2 MiB.  Leaves them in slot[]; returns the base.
 */
char *reserve_slots(size_t n, int misaligned, int nslots, char **slot,
		    void **res, size_t *res_len);
/* Maps n bytes read-write at p (MAP_FIXED), populated if asked (under TCG
 * one fault per page costs seconds at 1 GiB); dies if it cannot. */
void map_slot(char *p, size_t n, int populate);
/* Writes one word per page, derived from seed; check_pages() reads them. */
void fill_pages(char *p, size_t len, unsigned long seed);
int check_pages(const char *p, size_t len, unsigned long seed);

int vector_bench(const char *self);
int vector_child(int argc, char **argv);
int percall_bench(void);
int grow_bench(void);
int release_bench(void);
/* release's reuse of a chunk: mprotect() read-write, a write to every
 * page; 0 or -1.  And whether every page of a chunk reads as zero. */
int release_reuse(char *p, size_t len);
int release_zeroed(const char *p, size_t len);
int floor_bench(void);
int crowd_bench(void);
/* Not a benchmark: the function_graph tracer around single calls. */
int trace_bench(void);

#endif /* MREMAP_RETAIN_BENCH_H */
