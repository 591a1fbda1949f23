// SPDX-License-Identifier: MIT
/*
 * model.c - the stress program's model of a worker's memory: regions of
 * tagged pages, how a page's bytes follow from its tag, splitting regions
 * when part of one is unmapped or replaced, and verifying every byte.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "stress.h"

uint64_t st_new_tag(struct st_worker *w)
{
	/* Unique per process, worker and call; never 0. */
	return ((uint64_t)(w->bidx + 1) << 56) | ((uint64_t)(w->id + 1) << 48) |
	       ((uint64_t)w->in_child << 47) | ++w->next_tag;
}

void st_fill_page(void *p, uint64_t tag)
{
	uint64_t *q = p;
	size_t j;

	if (!tag) {
		memset(p, 0, st_ps);
		return;
	}
	for (j = 0; j < st_ps / 8; j++)
		q[j] = st_word(tag, j);
}

int st_page_ok(const void *p, const struct st_page *pg, char *why, size_t cap)
{
	const volatile uint64_t *q = p;
	uint64_t tag = pg->tag;
	size_t j;

	/* A freed page was either discarded (all zero) or kept (all tag). */
	if (tag && pg->freed && q[0] == 0)
		tag = 0;
	for (j = 0; j < st_ps / 8; j++) {
		uint64_t want = tag ? st_word(tag, j) : 0, got = q[j];

		if (got != want) {
			snprintf(why, cap, "word %zu is %#llx, want %#llx (tag %#llx%s)",
				 j, (unsigned long long)got,
				 (unsigned long long)want,
				 (unsigned long long)pg->tag,
				 pg->freed ? ", MADV_FREE'd" : "");
			return 0;
		}
	}
	return 1;
}

int st_add(struct st_worker *w, uintptr_t start, size_t n, int prot,
	   struct st_page *pg)
{
	struct st_region *r;

	if (w->nr >= ST_MAX_REGIONS) {
		free(pg);
		return -1;
	}
	r = &w->r[w->nr++];
	r->start = start;
	r->n = n;
	r->prot = prot;
	r->pg = pg;
	w->pages += n;
	return w->nr - 1;
}

static struct st_page *dup_pages(const struct st_page *pg, size_t n)
{
	struct st_page *p = malloc((n ? n : 1) * sizeof(*p));

	if (!p) {
		st_out("# stress: out of memory for the model\n");
		_exit(99);
	}
	memcpy(p, pg, n * sizeof(*p));
	return p;
}

static void drop(struct st_worker *w, int i)
{
	w->pages -= w->r[i].n;
	free(w->r[i].pg);
	w->r[i] = w->r[--w->nr];
}

/* Removes pages [start, start + n pages) from the model. */
void st_cut(struct st_worker *w, uintptr_t start, size_t n)
{
	uintptr_t end = start + n * st_ps;
	int i;

	for (i = 0; i < w->nr; ) {
		struct st_region r = w->r[i];
		uintptr_t rend = r.start + r.n * st_ps;
		size_t left, right;

		if (rend <= start || r.start >= end) {
			i++;
			continue;
		}
		left = start > r.start ? (start - r.start) / st_ps : 0;
		right = rend > end ? (rend - end) / st_ps : 0;
		if (left)
			st_add(w, r.start, left, r.prot, dup_pages(r.pg, left));
		if (right)
			st_add(w, end, right, r.prot,
			       dup_pages(r.pg + r.n - right, right));
		drop(w, i);	/* moves the last region to i: look again */
	}
}

int st_find(struct st_worker *w, uintptr_t addr)
{
	int i;

	for (i = 0; i < w->nr; i++)
		if (addr >= w->r[i].start &&
		    addr < w->r[i].start + w->r[i].n * st_ps)
			return i;
	return -1;
}

int st_overlaps(struct st_worker *w, uintptr_t start, size_t n)
{
	uintptr_t end = start + n * st_ps;
	int i;

	for (i = 0; i < w->nr; i++)
		if (start < w->r[i].start + w->r[i].n * st_ps &&
		    w->r[i].start < end)
			return 1;
	return 0;
}

int st_verify_range(struct st_worker *w, uintptr_t start, size_t n,
		    const struct st_page *pg, int prot, enum st_mis cls,
		    const char *ctx)
{
	char why[160];
	size_t i;
	int bad = 0;

	if (!(prot & PROT_READ))
		return 0;
	for (i = 0; i < n; i++) {
		if (st_page_ok((void *)(start + i * st_ps), &pg[i], why,
			       sizeof(why)))
			continue;
		if (!bad)
			st_mis(w, cls, "%s: page %zu of %zu at %#lx: %s", ctx,
			       i, n, (unsigned long)(start + i * st_ps), why);
		bad++;
	}
	if (bad > 1)
		st_out("# %s: %d bad pages in all\n", ctx, bad);
	return bad;
}

int st_verify(struct st_worker *w, int ri, enum st_mis cls, const char *ctx)
{
	struct st_region *r = &w->r[ri];

	return st_verify_range(w, r->start, r->n, r->pg, r->prot, cls, ctx);
}

int st_prot_at(struct st_worker *w, uintptr_t addr)
{
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	size_t n = 0;
	ssize_t k;
	char *p;

	if (fd < 0)
		return -2;
	while (n + 1 < w->mapscap &&
	       (k = read(fd, w->mapsbuf + n, w->mapscap - 1 - n)) > 0)
		n += k;
	close(fd);
	w->mapsbuf[n] = 0;
	for (p = w->mapsbuf; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		char *q;
		uintptr_t s = strtoull(p, &q, 16), e = strtoull(q + 1, &q, 16);

		if (addr >= s && addr < e)
			return (q[1] == 'r' ? PROT_READ : 0) |
			       (q[2] == 'w' ? PROT_WRITE : 0) |
			       (q[3] == 'x' ? PROT_EXEC : 0);
	}
	return -1;
}

void st_check_prot(struct st_worker *w, uintptr_t addr, int prot,
		   enum st_mis cls, const char *ctx)
{
	int got = st_prot_at(w, addr);

	if (got != prot)
		st_mis(w, cls, "%s: mapping at %#lx has prot %d, want %d", ctx,
		       (unsigned long)addr, got, prot);
}
