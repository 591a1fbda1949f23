// SPDX-License-Identifier: MIT
/*
 * main.c - mrbench: run the benchmarks named on the command line (default:
 * all) and print their figures (see bench.h).
 *
 *	mrbench [--label NAME] [--runs N] [--max SIZE] [--budget-ms MS]
 *		[--blocks N] [--jemalloc-retain LIB] [--tcmalloc-retain LIB] [--libdir DIR]
 *		[vector] [percall] [grow] [release] [floor] [crowd] [trace]
 *
 * "grow" is grow.c, one growth to twice the size.
 * --label names the machine in the figures ("host", or the guest's suite);
 * --runs: runs per vector variant; --max: largest region (suffix K, M, G;
 * default 1G); --budget-ms: time spent on each per-call or release figure,
 * shared by its --blocks blocks (default 5, each in a process of its own);
 * --jemalloc-retain, --tcmalloc-retain: the patched libjemalloc.so.2 and
 * libtcmalloc_minimal.so.4 (tests/clients/) for the vector benchmark, and
 * --libdir the directory of the libmremap_retain.so.0 they load (all
 * through the environment).  "trace" (trace.c, a diagnostic, never part
 * of the default) traces single calls with the kernel's function_graph
 * tracer.
 * Exit status 1 when a variant could not run to the end or moved data
 * wrongly, 0 otherwise; the figures themselves are never judged here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

static size_t parse_size(const char *s)
{
	char *end;
	size_t n = strtoull(s, &end, 0);

	switch (*end) {
	case 'G': case 'g': n <<= 10; /* fall through */
	case 'M': case 'm': n <<= 10; /* fall through */
	case 'K': case 'k': n <<= 10; end++; break;
	}
	if (*end || n < 4 * KIB)
		die("bad size %s (at least 4K)", s);
	return n;
}

static void usage(void)
{
	die("usage: mrbench [--label NAME] [--runs N] [--max SIZE] "
	    "[--budget-ms MS] [--blocks N] [--jemalloc-retain LIB] [--tcmalloc-retain LIB] "
	    "[--libdir DIR] "
	    "[vector] [percall] [grow] [release] [floor] [crowd] [trace]");
}

int main(int argc, char **argv)
{
	int i, want = 0, failed = 0;

	setvbuf(stderr, NULL, _IOLBF, 0);
	page_size = sysconf(_SC_PAGESIZE);
	if (argc >= 2 && !strcmp(argv[1], "--vector-child"))
		return vector_child(argc, argv);
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (i + 1 < argc && !strcmp(a, "--label"))
			bench_opts.label = argv[++i];
		else if (i + 1 < argc && !strcmp(a, "--runs"))
			bench_opts.runs = atoi(argv[++i]);
		else if (i + 1 < argc && !strcmp(a, "--max"))
			bench_opts.max_size = parse_size(argv[++i]);
		else if (i + 1 < argc && !strcmp(a, "--jemalloc-retain"))
			setenv("MRBENCH_JEMALLOC_RETAIN", argv[++i], 1);
		else if (i + 1 < argc && !strcmp(a, "--tcmalloc-retain"))
			setenv("MRBENCH_TCMALLOC_RETAIN", argv[++i], 1);
		else if (i + 1 < argc && !strcmp(a, "--libdir"))
			setenv("LD_LIBRARY_PATH", argv[++i], 1);
		else if (i + 1 < argc && !strcmp(a, "--budget-ms"))
			bench_opts.budget_ms = atol(argv[++i]);
		else if (i + 1 < argc && !strcmp(a, "--blocks"))
			bench_opts.blocks = atoi(argv[++i]);
		else if (!strcmp(a, "vector"))
			want |= 1;
		else if (!strcmp(a, "percall"))
			want |= 2;
		else if (!strcmp(a, "release"))
			want |= 4;
		else if (!strcmp(a, "floor"))
			want |= 8;
		else if (!strcmp(a, "crowd"))
			want |= 16;
		else if (!strcmp(a, "trace"))
			want |= 32;
		else if (!strcmp(a, "grow"))
			want |= 64;
		else
			usage();
	}
	if (bench_opts.runs < 1 || bench_opts.budget_ms < 1 ||
	    bench_opts.blocks < 1 || bench_opts.blocks > BLOCK_MAX)
		usage();
	if (!want)
		want = 31 | 64;
	if (want & 1)
		failed |= vector_bench("/proc/self/exe");
	if (want & 2)
		failed |= percall_bench();
	if (want & 64)
		failed |= grow_bench();
	if (want & 4)
		failed |= release_bench();
	if (want & 8)
		failed |= floor_bench();
	if (want & 16)
		failed |= crowd_bench();
	if (want & 32)
		failed |= trace_bench();
	return failed;
}
