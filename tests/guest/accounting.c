// SPDX-License-Identifier: MIT
/*
 * accounting.c - the memory accounting of moves, for every backend:
 * VmSize and Committed_AS after one large move and after many moves, and
 * both back to their baseline after munmap.
 *
 * Committed_AS is system wide and read from a per-cpu counter, so it is
 * compared with a tolerance (COMMIT_SLACK); VmSize is exact.
 */
#include "testlib.h"

#define MiB (1024L)		/* in kB */
#define COMMIT_SLACK (12 * MiB)

static void t_one_move(void)
{
	size_t os = 16 << 20, ns = 64 << 20;
	long c0, v0, c1, v1, c2, v2;
	char *src, *r;

	src = tl_map(os, PROT_READ | PROT_WRITE);
	tl_fill(src, ps, 1);
	c0 = tl_meminfo_kb("Committed_AS");
	v0 = tl_status_kb("VmSize");
	r = mremap_retain(src, os, ns, 0, NULL);
	if (!tap_ok(r != MAP_FAILED, "[%s] 16 MiB grown to 64 MiB (%s)", BN,
		    r == MAP_FAILED ? tl_errname(errno) : "ok")) {
		munmap(src, os);
		return;
	}
	c1 = tl_meminfo_kb("Committed_AS");
	v1 = tl_status_kb("VmSize");
	tap_ok(tl_check(r, ps, 1), "[%s] accounting move: data moved", BN);
	tap_ok(v1 - v0 == 64 * MiB, "[%s] VmSize +64 MiB (%+ld kB)", BN,
	       v1 - v0);
	tap_ok(labs(c1 - c0 - 64 * MiB) <= COMMIT_SLACK,
	       "[%s] Committed_AS +64 MiB: source and destination both "
	       "committed (%+ld kB)", BN, c1 - c0);
	munmap(r, ns);
	munmap(src, os);
	c2 = tl_meminfo_kb("Committed_AS");
	v2 = tl_status_kb("VmSize");
	tap_ok(v2 - v0 == -16 * MiB, "[%s] VmSize back after munmap (%+ld kB)",
	       BN, v2 - v0 + 16 * MiB);
	tap_ok(labs(c2 - c0 + 16 * MiB) <= COMMIT_SLACK,
	       "[%s] Committed_AS back after munmap (%+ld kB)", BN,
	       c2 - c0 + 16 * MiB);
}

static void t_many_moves(void)
{
	long c0 = tl_meminfo_kb("Committed_AS"), v0 = tl_status_kb("VmSize");
	int i, bad = 0, n = 200;

	for (i = 0; i < n; i++) {
		size_t os = 1 << 20, ns = 2 << 20;
		char *src = tl_map(os, PROT_READ | PROT_WRITE), *r;

		tl_fill(src, ps, i);
		r = mremap_retain(src, os, ns, 0, NULL);
		if (r == MAP_FAILED) {
			bad++;
			munmap(src, os);
			continue;
		}
		if (!tl_check(r, ps, i))
			bad++;
		munmap(r, ns);
		munmap(src, os);
	}
	tap_ok(!bad, "[%s] %d moves of 1 MiB grown to 2 MiB: %d errors", BN,
	       n, bad);
	tap_ok(tl_status_kb("VmSize") == v0,
	       "[%s] VmSize back to baseline after %d moves (%+ld kB)", BN, n,
	       tl_status_kb("VmSize") - v0);
	tap_ok(labs(tl_meminfo_kb("Committed_AS") - c0) <= COMMIT_SLACK,
	       "[%s] Committed_AS back to baseline after %d moves (%+ld kB)",
	       BN, n, tl_meminfo_kb("Committed_AS") - c0);
}

static void run(void)
{
	t_one_move();
	t_many_moves();
}

int main(void)
{
	tl_start("accounting");
	tl_run("accounting", run);
	return tap_done();
}
