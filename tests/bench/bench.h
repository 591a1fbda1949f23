/* SPDX-License-Identifier: MIT */
/*
 * bench.h - what the benchmark programs share: options, timing, figures.
 *
 * A figure is printed on stdout as one line
 *	@@BENCH<TAB>bench<TAB>kernel<TAB>variant<TAB>size<TAB>metric<TAB>value<TAB>unit
 * which tests/bench/report.awk turns into JSON and Markdown.  Everything
 * else (progress, skipped variants and why) goes to stderr as "# " lines.
 * Benchmarks print figures; they never pass or fail, except when the data
 * they move comes out wrong, which makes the figures meaningless.
 */
#ifndef MREMAP_RETAIN_BENCH_H
#define MREMAP_RETAIN_BENCH_H

#include <stddef.h>

#define KIB	((size_t)1 << 10)
#define MIB	((size_t)1 << 20)
#define GIB	((size_t)1 << 30)

struct bench_opts {
	const char *label;	/* "host", or the Debian suite of the guest */
	int runs;		/* vector: runs per variant (median) */
	size_t max_size;	/* largest region (vector, percall) */
	long budget_ms;		/* percall, release: time per figure */
};

extern struct bench_opts bench_opts;
extern size_t page_size;

long long now_ns(void);
/* Sorts v[0..n) and returns the median. */
double median_ll(long long *v, int n);
void emit(const char *bench, const char *variant, size_t size,
	  const char *metric, double value, const char *unit);
__attribute__((format(printf, 1, 2)))
void note(const char *fmt, ...);
__attribute__((format(printf, 1, 2), noreturn))
void die(const char *fmt, ...);
/* Text such as "4KiB", "2MiB", "1GiB" for a size. */
const char *size_name(size_t n, char *buf, size_t len);
/* len bytes of PROT_NONE reserved address space whose start is aligned to
 * align (a power of two); munmap(*res, *res_len) releases it. */
char *reserve_aligned(size_t len, size_t align, void **res, size_t *res_len);
/* Writes one word per page, derived from seed; check_pages() reads them. */
void fill_pages(char *p, size_t len, unsigned long seed);
int check_pages(const char *p, size_t len, unsigned long seed);

int vector_bench(const char *self);
int vector_child(int argc, char **argv);
int percall_bench(void);
int release_bench(void);
int floor_bench(void);
int crowd_bench(void);

#endif /* MREMAP_RETAIN_BENCH_H */
