// SPDX-License-Identifier: MIT
/*
 * vector.c - benchmark 1, the MREMAP_RETAIN thread's vector growth: a buffer
 * grown by doubling from 4 bytes to bench_opts.max_size, each new half
 * written as it appears.  Variants: realloc of glibc, jemalloc and TCMalloc
 * (the last two through LD_PRELOAD, so only in a dynamic build), realloc
 * of Debian's jemalloc and TCMalloc with our patches (tests/clients/: the
 * paths of their libjemalloc.so.2 and libtcmalloc_minimal.so.4 in
 * $MRBENCH_JEMALLOC_RETAIN and $MRBENCH_TCMALLOC_RETAIN,
 * libmremap_retain.so.0 on the loader's path) with the library's own
 * choice of backend and with the dontunmap backend forced, and a
 * page-aligned chunk whose growth step is mremap(MREMAP_MAYMOVE) or
 * mremap_retain() with each backend.
 *
 * Every run is a child process (this program again, with --vector-child)
 * so that getrusage gives each run's own user and system time and peak RSS;
 * the child reports the loop's wall time through a pipe.  Runs of the
 * variants take turns, and the median of each figure is printed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <mremap_retain.h>

#include "bench.h"

enum grow { GROW_REALLOC, GROW_MREMAP, GROW_RETAIN };

struct variant {
	const char *name;
	enum grow grow;
	int backend;		/* GROW_RETAIN */
	const char *preload;	/* GROW_REALLOC through LD_PRELOAD */
	const char *preload_env;	/* ... of the library this names */
	const char *force;	/* MREMAP_RETAIN_BACKEND for the preloaded one */
};

#define LIBDIR "/usr/lib/x86_64-linux-gnu/"

static const struct variant variants[] = {
	{ "glibc-realloc", GROW_REALLOC, 0, NULL, NULL, NULL },
	{ "jemalloc-realloc", GROW_REALLOC, 0, LIBDIR "libjemalloc.so.2", NULL, NULL },
	{ "tcmalloc-realloc", GROW_REALLOC, 0, LIBDIR "libtcmalloc_minimal.so.4", NULL, NULL },
	{ "jemalloc-retain-realloc", GROW_REALLOC, 0, NULL, "MRBENCH_JEMALLOC_RETAIN", NULL },
	{ "jemalloc-retain-dontunmap-realloc", GROW_REALLOC, 0, NULL,
	  "MRBENCH_JEMALLOC_RETAIN", "dontunmap" },
	{ "tcmalloc-retain-realloc", GROW_REALLOC, 0, NULL, "MRBENCH_TCMALLOC_RETAIN", NULL },
	{ "tcmalloc-retain-dontunmap-realloc", GROW_REALLOC, 0, NULL,
	  "MRBENCH_TCMALLOC_RETAIN", "dontunmap" },
	{ "chunk-mremap", GROW_MREMAP, 0, NULL, NULL, NULL },
	{ "chunk-module", GROW_RETAIN, MREMAP_RETAIN_BACKEND_MODULE, NULL, NULL, NULL },
	{ "chunk-dontunmap", GROW_RETAIN, MREMAP_RETAIN_BACKEND_DONTUNMAP, NULL, NULL, NULL },
	{ "chunk-copy", GROW_RETAIN, MREMAP_RETAIN_BACKEND_COPY, NULL, NULL, NULL },
};
#define NVAR (sizeof(variants) / sizeof(variants[0]))

/* Time spent inside realloc() growing from 8 MiB on (the "one large
 * growth", 8 MiB doubling to the maximum). */
static long long in_realloc_ns;

/* The doubling loop with realloc.  Returns 0, 2 if a part lost its bytes,
 * 4 if growing failed. */
static int grow_realloc(size_t max)
{
	char *p = malloc(4), *q;
	size_t n;
	int i;

	if (!p)
		return 4;
	memset(p, 1, 4);
	for (n = 4, i = 2; n < max; n *= 2, i++) {
		long long t = n >= 8 * MIB ? now_ns() : 0;

		q = realloc(p, 2 * n);
		if (t)
			in_realloc_ns += now_ns() - t;
		if (!q)
			return 4;
		p = q;
		memset(p + n, i, n);
	}
	for (n = 4, i = 2; n < max; n *= 2, i++)
		if (p[n] != (char)i || p[2 * n - 1] != (char)i)
			return 2;
	free(p);
	return 0;
}

/* The same loop on a page-aligned chunk that grows by moving its pages. */
static int grow_chunk(size_t max, enum grow how)
{
	size_t n, cap = page_size;
	char *p, *q;
	int i;

	p = mmap(NULL, cap, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 4;
	memset(p, 1, 4);
	for (n = 4, i = 2; n < max; n *= 2, i++) {
		if (2 * n > cap) {
			if (how == GROW_MREMAP)
				q = mremap(p, cap, 2 * n, MREMAP_MAYMOVE);
			else
				q = mremap_retain(p, cap, 2 * n, 0, NULL);
			if (q == MAP_FAILED) {
				note("vector: growing %zu to %zu bytes failed: %m",
				     cap, 2 * n);
				return 4;
			}
			p = q;
			cap = 2 * n;
		}
		memset(p + n, i, n);
	}
	for (n = 4, i = 2; n < max; n *= 2, i++)
		if (p[n] != (char)i || p[2 * n - 1] != (char)i)
			return 2;
	return 0;
}

/* mrbench --vector-child VARIANT MAX: one run; the wall time in ns goes
 * to stdout.  Exit status 2: wrong bytes; 3: the backend is unavailable;
 * 4: growing failed. */
int vector_child(int argc, char **argv)
{
	const struct variant *v = NULL;
	long long t0, t1;
	size_t i, max;
	int bad;

	if (argc != 4)
		die("usage: --vector-child VARIANT MAX");
	for (i = 0; i < NVAR; i++)
		if (!strcmp(argv[2], variants[i].name))
			v = &variants[i];
	if (!v)
		die("unknown variant %s", argv[2]);
	max = strtoull(argv[3], NULL, 0);
	if (v->grow == GROW_RETAIN && mremap_retain_set_backend(v->backend))
		return 3;
	t0 = now_ns();
	if (v->grow == GROW_REALLOC)
		bad = grow_realloc(max);
	else
		bad = grow_chunk(max, v->grow);
	t1 = now_ns();
	if (bad)
		return bad;
	printf("%lld %lld\n", t1 - t0, in_realloc_ns);
	return 0;
}

static const char *preload_of(const struct variant *v)
{
	return v->preload_env ? getenv(v->preload_env) : v->preload;
}

static const char *why_not(const struct variant *v)
{
	static char buf[160];

	if (v->preload_env && !preload_of(v)) {
		snprintf(buf, sizeof(buf), "$%s not set", v->preload_env);
		return buf;
	}
	if (preload_of(v)) {
		const char *preload = preload_of(v);

		if (!access(preload, R_OK))
			return NULL;
		snprintf(buf, sizeof(buf), "%s: %s", preload, strerror(errno));
		return buf;
	}
	if (v->grow == GROW_RETAIN && mremap_retain_set_backend(v->backend)) {
		snprintf(buf, sizeof(buf), "backend %s unavailable here (%s)",
			 mremap_retain_backend_name(v->backend),
			 strerror(errno));
		return buf;
	}
	return NULL;
}

struct run {
	long long wall, user, sys, rss, faults;	/* ns, ns, ns, KiB, count */
	long long in_realloc;	/* ns inside realloc() from 8 MiB on */
};

/* A figure of the runs: their median, with the fastest and slowest. */
static void emit_runs(const char *variant, size_t max, const char *metric,
		      const long long *x, int n, double scale, const char *unit)
{
	double v[n];

	for (int i = 0; i < n; i++)
		v[i] = (double)x[i];
	emit_spread("vector", variant, max, metric, spread_d(v, n), scale, unit);
}

static int run_once(const char *self, const struct variant *v, size_t max,
		    struct run *r)
{
	char arg[32], out[64];
	struct rusage ru;
	int fd, st;
	ssize_t len;
	pid_t pid;

	snprintf(arg, sizeof(arg), "%zu", max);
	pid = fork_piped(&fd);
	if (!pid) {
		dup2(fd, 1);
		close(fd);
		if (preload_of(v))
			setenv("LD_PRELOAD", preload_of(v), 1);
		if (v->force)
			setenv("MREMAP_RETAIN_BACKEND", v->force, 1);
		execl(self, self, "--vector-child", v->name, arg, (char *)NULL);
		_exit(127);
	}
	len = read(fd, out, sizeof(out) - 1);
	close(fd);
	if (wait4(pid, &st, 0, &ru) != pid)
		die("wait4: %m");
	if (!WIFEXITED(st) || WEXITSTATUS(st) || len <= 0) {
		note("vector: %s: run failed (wait status %#x)%s", v->name, st,
		     WIFEXITED(st) && WEXITSTATUS(st) == 2 ?
		     ": the data came out wrong" : "");
		return -1;
	}
	out[len] = 0;
	r->wall = atoll(out);
	r->in_realloc = atoll(strchr(out, ' ') ? strchr(out, ' ') + 1 : "0");
	r->user = ru.ru_utime.tv_sec * 1000000000LL + ru.ru_utime.tv_usec * 1000LL;
	r->sys = ru.ru_stime.tv_sec * 1000000000LL + ru.ru_stime.tv_usec * 1000LL;
	r->rss = ru.ru_maxrss;
	r->faults = ru.ru_minflt + ru.ru_majflt;
	return 0;
}

int vector_bench(const char *self)
{
	const int runs = bench_opts.runs;
	const size_t max = bench_opts.max_size;
	long long wall[NVAR][runs], user[NVAR][runs], sys[NVAR][runs];
	long long rss[NVAR][runs], faults[NVAR][runs], inr[NVAR][runs];
	int ok[NVAR], n[NVAR], r, failed = 0;
	char sz[32];
	size_t i;

	note("vector: doubling from 4 bytes to %s, %d runs per variant",
	     size_name(max, sz, sizeof(sz)), runs);
	for (i = 0; i < NVAR; i++) {
		const char *why = why_not(&variants[i]);

		ok[i] = !why;
		n[i] = 0;
		if (why)
			note("vector: %s skipped: %s", variants[i].name, why);
	}
	for (r = 0; r < runs; r++) {
		for (i = 0; i < NVAR; i++) {
			struct run x;

			if (!ok[i])
				continue;
			if (run_once(self, &variants[i], max, &x)) {
				ok[i] = 0;
				failed = 1;
				continue;
			}
			wall[i][n[i]] = x.wall;
			user[i][n[i]] = x.user;
			sys[i][n[i]] = x.sys;
			rss[i][n[i]] = x.rss;
			faults[i][n[i]] = x.faults;
			inr[i][n[i]] = x.in_realloc;
			n[i]++;
		}
	}
	for (i = 0; i < NVAR; i++) {
		const char *v = variants[i].name;

		if (!ok[i])
			continue;
		emit_runs(v, max, "wall", wall[i], n[i], 1e-6, "ms");
		emit_runs(v, max, "user", user[i], n[i], 1e-6, "ms");
		emit_runs(v, max, "sys", sys[i], n[i], 1e-6, "ms");
		emit_runs(v, max, "peak_rss", rss[i], n[i], 1.0 / 1024, "MiB");
		emit_runs(v, max, "page_faults", faults[i], n[i], 1, "");
		if (variants[i].grow == GROW_REALLOC)
			emit_runs(v, max, "realloc_from_8MiB", inr[i], n[i], 1e-6, "ms");
	}
	return failed;
}
