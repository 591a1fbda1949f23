// SPDX-License-Identifier: MIT
/*
 * util.c - the helpers every benchmark uses: the clock, medians, printing
 * figures and notes, aligned reservations and a cheap per-page fill/check.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

struct bench_opts bench_opts = {
	.label = "host",
	.runs = 5,
	.max_size = GIB,
	.budget_ms = 300,
	.blocks = 5,
};
size_t page_size = 4096;

long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

double median_ll(long long *v, int n)
{
	if (n <= 0)
		return 0;
	qsort(v, n, sizeof(*v), cmp_ll);
	if (n & 1)
		return v[n / 2];
	return (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

struct spread spread_d(double *v, int n)
{
	struct spread s = { 0, 0, 0 };

	if (n <= 0)
		return s;
	qsort(v, n, sizeof(*v), cmp_d);
	s.min = v[0];
	s.max = v[n - 1];
	s.med = (n & 1) ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	return s;
}

int take_turns(int nl, int first, long long (*step)(void *arg, int k),
	       void *arg, long long *const *t)
{
	const long long budget = bench_opts.budget_ms * 1000000LL /
				 bench_opts.blocks;
	long long start = now_ns(), ns;
	int calls, j, k;

	for (calls = 0; calls < TURNS_MAX; calls++) {
		if (calls >= nl && now_ns() - start >= budget)
			break;
		for (j = 0; j < nl; j++) {
			k = (calls + j + first) % nl;
			ns = step(arg, k);
			if (ns < 0)
				return -1 - k;
			t[k][calls] = ns;
		}
	}
	return calls;
}

/* One block in a child process: its nout figures through the pipe fd. */
static void block_child(int fd, int (*fn)(void *, double *), void *arg,
			int nout)
{
	double out[BLOCK_MAX_OUT];
	ssize_t len = nout * sizeof(double);

	if (fn(arg, out) || write(fd, out, len) != len)
		_exit(1);
	_exit(0);
}

pid_t fork_piped(int *fd)
{
	int fds[2];
	pid_t pid;

	if (pipe(fds))
		die("pipe: %m");
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		die("fork: %m");
	close(fds[pid ? 1 : 0]);
	*fd = fds[pid ? 0 : 1];
	return pid;
}

int run_block(int (*fn)(void *arg, double *out), void *arg, int nout,
	      double *out)
{
	ssize_t len = nout * sizeof(double), got;
	int st = 0, fd;
	pid_t pid;

	if (nout > BLOCK_MAX_OUT)
		die("run_block: %d figures is too many", nout);
	pid = fork_piped(&fd);
	if (!pid)
		block_child(fd, fn, arg, nout);
	got = read(fd, out, len);
	close(fd);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
	    WEXITSTATUS(st) || got != len) {
		note("a block failed (status 0x%x): no figure", st);
		return -1;
	}
	return 0;
}

int run_blocks(int (*fn)(void *arg, double *out), void *arg, int nout,
	       struct spread *s)
{
	static double v[BLOCK_MAX_OUT][BLOCK_MAX];
	double out[BLOCK_MAX_OUT];
	int nb = bench_opts.blocks, b, i;

	for (b = 0; b < nb; b++) {
		if (run_block(fn, arg, nout, out))
			return -1;
		for (i = 0; i < nout; i++)
			v[i][b] = out[i];
	}
	for (i = 0; i < nout; i++)
		s[i] = spread_d(v[i], nb);
	return 0;
}

/* "LABEL RELEASE", e.g. "bookworm 6.1.0-57-amd64". */
static const char *kernel_name(void)
{
	static char buf[256];
	struct utsname u;

	if (!buf[0]) {
		if (uname(&u))
			snprintf(u.release, sizeof(u.release), "unknown");
		snprintf(buf, sizeof(buf), "%s %s", bench_opts.label,
			 u.release);
	}
	return buf;
}

void emit(const char *bench, const char *variant, size_t size,
	  const char *metric, double value, const char *unit)
{
	printf("@@BENCH\t%s\t%s\t%s\t%zu\t%s\t%.6g\t%s\n", bench,
	       kernel_name(), variant, size, metric, value, unit);
	fflush(stdout);
}

void emit_spread(const char *bench, const char *variant, size_t size,
		 const char *metric, struct spread s, double scale,
		 const char *unit)
{
	printf("@@BENCH\t%s\t%s\t%s\t%zu\t%s\t%.6g\t%s\t%.6g\t%.6g\n",
	       bench, kernel_name(), variant, size, metric, s.med * scale,
	       unit, s.min * scale, s.max * scale);
	fflush(stdout);
}

void note(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void die(const char *fmt, ...)
{
	va_list ap;

	fputs("mrbench: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

const char *size_name(size_t n, char *buf, size_t len)
{
	if (n >= GIB && !(n % GIB))
		snprintf(buf, len, "%zuGiB", n / GIB);
	else if (n >= MIB && !(n % MIB))
		snprintf(buf, len, "%zuMiB", n / MIB);
	else if (n >= KIB && !(n % KIB))
		snprintf(buf, len, "%zuKiB", n / KIB);
	else
		snprintf(buf, len, "%zuB", n);
	return buf;
}

char *reserve_aligned(size_t len, size_t align, void **res, size_t *res_len)
{
	size_t total = len + align;
	char *p;

	p = mmap(NULL, total, PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		die("cannot reserve %zu bytes: %m", total);
	*res = p;
	*res_len = total;
	return (char *)(((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1));
}

char *reserve_slots(size_t n, int misaligned, int nslots, char **slot,
		    void **res, size_t *res_len)
{
	const size_t off = misaligned ? page_size : 0;
	const size_t span = ((n + off + 2 * MIB - 1) & ~(2 * MIB - 1)) + 2 * MIB;
	char *base = reserve_aligned(nslots * span + 2 * MIB, 2 * MIB, res,
				     res_len);
	int k;

	for (k = 0; k < nslots; k++)
		slot[k] = base + 2 * MIB + k * span + (k % 2 ? 0 : off);
	return base;
}

void map_slot(char *p, size_t n, int populate)
{
	if (mmap(p, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS |
		 MAP_FIXED | (populate ? MAP_POPULATE : 0), -1, 0) != p)
		die("cannot map a slot of %zu bytes: %m", n);
}

static unsigned long page_word(unsigned long seed, size_t i)
{
	return (seed + i) * 0x9e3779b97f4a7c15UL;
}

void fill_pages(char *p, size_t len, unsigned long seed)
{
	size_t i;

	for (i = 0; i * page_size < len; i++)
		*(unsigned long *)(p + i * page_size) = page_word(seed, i);
}

int check_pages(const char *p, size_t len, unsigned long seed)
{
	size_t i;

	for (i = 0; i * page_size < len; i++)
		if (*(const unsigned long *)(p + i * page_size) !=
		    page_word(seed, i))
			return 0;
	return 1;
}
