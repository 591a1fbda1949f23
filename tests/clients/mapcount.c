// SPDX-License-Identifier: MIT
/*
 * mapcount.c - address-space health of an allocator in a long-lived
 * process: N random large reallocs (16 KiB to 32 MiB, growing and
 * shrinking, among 64 live blocks, the first and last byte of every new
 * part written), printing the number of mappings (/proc/self/maps lines)
 * every N/20 reallocs.  Run it once with the stock allocator and once with
 * the patched one preloaded; the curves are compared by their ratio.
 * With "fill", every byte of each new part is written: a program that
 * recycles memory it has filled, where a copy into memory the allocator
 * reuses takes no page fault and a move leaves pages to fault again.
 *
 *	mapcount [N [fill]]	(default 1,000,000)
 *
 * Output: "@@MAPS<TAB>reallocs<TAB>maps" lines, then "# moves M fallbacks F"
 * where the allocator counts them (a patched jemalloc or TCMalloc).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counts.h"

#define SLOTS 64

static uint64_t rng = 0x9E3779B97F4A7C15ULL;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int maps(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	int n = 0, c;

	if (!f)
		return -1;
	while ((c = getc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

int main(int argc, char **argv)
{
	long total = argc > 1 ? atol(argv[1]) : 1000000, step = total / 20;
	int fill = argc > 2 && !strcmp(argv[2], "fill");
	static char *p[SLOTS];
	static size_t len[SLOTS];
	size_t moves = 0, fallbacks = 0;

	printf("@@MAPS\t0\t%d\n", maps());
	for (long i = 1; i <= total; i++) {
		int s = next() % SLOTS;
		size_t n = ((size_t)16 << 10) << (next() % 11);	/* 16 KiB .. 16 MiB */
		char *q;

		n += next() % n;
		q = realloc(p[s], n);
		if (!q) {
			fprintf(stderr, "realloc(%zu) failed\n", n);
			return 1;
		}
		if (n > len[s]) {
			if (fill) {
				memset(q + len[s], 1, n - len[s]);
			} else {
				q[len[s]] = 1;
				q[n - 1] = 1;
			}
		}
		p[s] = q;
		len[s] = n;
		if (i % step == 0) {
			printf("@@MAPS\t%ld\t%d\n", i, maps());
			fflush(stdout);
		}
	}
	if (move_counts(&moves, &fallbacks))
		printf("# moves %zu fallbacks %zu\n", moves, fallbacks);
	for (int s = 0; s < SLOTS; s++)
		free(p[s]);
	return 0;
}
