// SPDX-License-Identifier: MIT
/*
 * ops.c - the stress operations other than the moves: mmap, munmap,
 * writes, verification, mprotect, madvise and fork, each applied to the
 * kernel and to the worker's model alike.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "stress.h"

#define RW (PROT_READ | PROT_WRITE)

static struct st_page *new_pages(size_t n)
{
	struct st_page *p = calloc(n ? n : 1, sizeof(*p));

	if (!p) {
		st_out("# stress: out of memory for the model\n");
		_exit(99);
	}
	return p;
}

/* A random page range [*a, *a + *len) of region r. */
static void subrange(struct st_worker *w, struct st_region *r, size_t *a,
		     size_t *len)
{
	*a = st_below(w, r->n);
	*len = 1 + st_below(w, r->n - *a);
}

static int pick(struct st_worker *w, int want_prot)
{
	int i, k;

	if (!w->nr)
		return -1;
	k = st_below(w, w->nr);
	for (i = 0; i < w->nr; i++) {
		int ri = (k + i) % w->nr;

		if ((w->r[ri].prot & want_prot) == want_prot)
			return ri;
	}
	return -1;
}

void op_mmap(struct st_worker *w)
{
	size_t n = 1 + st_below(w, 32), i, align = 0;
	int reserve = st_below(w, 4) == 0, prot = reserve ? PROT_NONE : RW;
	struct st_page *pg;
	char *p;

	if (w->nr >= ST_MAX_REGIONS - 6 || w->pages + 512 > ST_MAX_PAGES)
		return;
	/* Now and then a 2 MiB aligned region, for THP and PMD moves. */
	if (st_below(w, 16) == 0) {
		n = 512;
		align = n * st_ps;
	}
	st_count(w, OP_MMAP);
	p = mmap(NULL, n * st_ps + align, prot, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	if (p == MAP_FAILED) {
		st_mis(w, MIS_ERRNO, "mmap(%zu pages): %s", n, strerror(errno));
		return;
	}
	if (align) {
		uintptr_t a = ((uintptr_t)p + align - 1) & ~(align - 1);

		if (a > (uintptr_t)p)
			munmap(p, a - (uintptr_t)p);
		munmap((char *)a + align, (uintptr_t)p + 2 * align - a - align);
		p = (char *)a;
		if (!reserve)
			madvise(p, align, MADV_HUGEPAGE);
	}
	pg = new_pages(n);
	if (!reserve)
		for (i = 0; i < n; i++)
			if (st_below(w, 4)) {
				pg[i].tag = st_new_tag(w);
				st_fill_page(p + i * st_ps, pg[i].tag);
			}
	st_add(w, (uintptr_t)p, n, prot, pg);
}

void op_munmap(struct st_worker *w)
{
	struct st_region *r;
	size_t a, len;
	int ri = pick(w, 0);

	if (ri < 0)
		return;
	r = &w->r[ri];
	if (st_below(w, 2)) {
		a = 0;
		len = r->n;
	} else {
		subrange(w, r, &a, &len);
	}
	st_count(w, OP_MUNMAP);
	if (munmap((char *)r->start + a * st_ps, len * st_ps))
		st_mis(w, MIS_ERRNO, "munmap: %s", strerror(errno));
	st_cut(w, r->start + a * st_ps, len);
}

/* Unmaps whole regions until there is room for any operation. */
void op_trim(struct st_worker *w)
{
	while (w->nr > ST_MAX_REGIONS - 8 || w->pages > ST_MAX_PAGES - 560) {
		struct st_region *r = &w->r[st_below(w, w->nr)];

		st_count(w, OP_TRIM);
		if (munmap((void *)r->start, r->n * st_ps))
			st_mis(w, MIS_ERRNO, "munmap: %s", strerror(errno));
		st_cut(w, r->start, r->n);
	}
}

void op_write(struct st_worker *w)
{
	struct st_region *r;
	size_t a, len, i;
	int ri = pick(w, RW);

	if (ri < 0)
		return;
	r = &w->r[ri];
	subrange(w, r, &a, &len);
	if (len > 8)
		len = 8;
	st_count(w, OP_WRITE);
	for (i = a; i < a + len; i++) {
		r->pg[i].tag = st_below(w, 8) ? st_new_tag(w) : 0;
		r->pg[i].freed = 0;
		st_fill_page((char *)r->start + i * st_ps, r->pg[i].tag);
	}
}

void op_verify(struct st_worker *w)
{
	struct st_region *r;
	int ri = pick(w, 0);

	if (ri < 0)
		return;
	r = &w->r[ri];
	st_count(w, OP_VERIFY);
	if (r->prot & PROT_READ) {
		st_verify(w, ri, MIS_CONTENT, "verify");
		return;
	}
	/* Unreadable: look through a temporary PROT_READ. */
	if (mprotect((void *)r->start, r->n * st_ps, PROT_READ)) {
		st_mis(w, MIS_ERRNO, "mprotect(READ): %s", strerror(errno));
		return;
	}
	st_verify_range(w, r->start, r->n, r->pg, PROT_READ, MIS_CONTENT,
			"verify (PROT_NONE made readable)");
	if (mprotect((void *)r->start, r->n * st_ps, r->prot))
		st_mis(w, MIS_ERRNO, "mprotect back: %s", strerror(errno));
}

void op_mprotect(struct st_worker *w)
{
	static const int prots[] = { PROT_NONE, PROT_READ, RW, RW };
	struct st_region *r;
	struct st_page *pg;
	size_t a, len;
	uintptr_t at;
	int ri = pick(w, 0), prot;

	if (ri < 0 || w->nr >= ST_MAX_REGIONS - 4)
		return;
	r = &w->r[ri];
	subrange(w, r, &a, &len);
	prot = prots[st_below(w, 4)];
	at = r->start + a * st_ps;
	st_count(w, OP_MPROTECT);
	if (mprotect((void *)at, len * st_ps, prot)) {
		st_mis(w, MIS_ERRNO, "mprotect: %s", strerror(errno));
		return;
	}
	pg = new_pages(len);
	memcpy(pg, r->pg + a, len * sizeof(*pg));
	st_cut(w, at, len);
	ri = st_add(w, at, len, prot, pg);
	if (ri >= 0 && st_below(w, 4) == 0)
		st_check_prot(w, at, prot, MIS_PROT, "mprotect");
	if (ri >= 0 && (prot & PROT_READ))
		st_verify(w, ri, MIS_CONTENT, "after mprotect");
}

void op_madvise(struct st_worker *w)
{
	struct st_region *r;
	size_t a, len, i;
	char *at;
	int ri = pick(w, 0), k;

	if (ri < 0)
		return;
	r = &w->r[ri];
	subrange(w, r, &a, &len);
	at = (char *)r->start + a * st_ps;
	k = st_below(w, 4);
	if (k == 0) {
		st_count(w, OP_DONTNEED);
		if (madvise(at, len * st_ps, MADV_DONTNEED))
			st_mis(w, MIS_ERRNO, "MADV_DONTNEED: %s", strerror(errno));
		for (i = a; i < a + len; i++)
			r->pg[i] = (struct st_page){ 0, 0 };
	} else if (k == 1) {
		st_count(w, OP_FREE);
		if (madvise(at, len * st_ps, MADV_FREE))
			st_mis(w, MIS_ERRNO, "MADV_FREE: %s", strerror(errno));
		for (i = a; i < a + len; i++)
			r->pg[i].freed = r->pg[i].tag != 0;
	} else if (k == 2) {
		st_count(w, OP_PAGEOUT);
		/* EINVAL before 5.4, or where reclaim is not possible. */
		if (madvise(at, len * st_ps, MADV_PAGEOUT) && errno != EINVAL)
			st_mis(w, MIS_ERRNO, "MADV_PAGEOUT: %s", strerror(errno));
	} else {
		/* Whole regions only: a part would split the mapping. */
		a = 0;
		len = r->n;
		at = (char *)r->start;
		st_count(w, OP_HUGEPAGE);
		if (madvise(at, len * st_ps, st_below(w, 4) ? MADV_HUGEPAGE :
			    MADV_NOHUGEPAGE) && errno != EINVAL)
			st_mis(w, MIS_ERRNO, "MADV_(NO)HUGEPAGE: %s",
			       strerror(errno));
	}
	st_verify_range(w, (uintptr_t)at, len, r->pg + a, r->prot,
			MIS_CONTENT, "after madvise");
}

/*
 * The child verifies its snapshot after the parent has written and moved
 * pages (the pipe orders the two), then moves a region itself.
 */
void op_fork(struct st_worker *w)
{
	int pfd[2], st, i;
	pid_t pid;
	char c = 0;

	if (w->in_child || pipe(pfd))
		return;
	st_count(w, OP_FORK);
	pid = fork();
	if (pid < 0) {
		st_mis(w, MIS_ERRNO, "fork: %s", strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		return;
	}
	if (pid == 0) {
		w->in_child = 1;
		alarm(300);
		close(pfd[1]);
		if (read(pfd[0], &c, 1) != 1)
			_exit(3);
		for (i = 0; i < w->nr; i++)
			st_verify(w, i, MIS_FORK, "fork child snapshot");
		op_write(w);
		op_move(w);
		for (i = 0; i < w->nr; i++)
			st_verify(w, i, MIS_FORK, "fork child after its move");
		_exit(0);
	}
	close(pfd[0]);
	op_write(w);
	op_move(w);
	op_write(w);
	if (write(pfd[1], &c, 1) != 1)
		st_mis(w, MIS_FORK, "write to the child's pipe: %s", strerror(errno));
	close(pfd[1]);
	if (waitpid(pid, &st, 0) != pid)
		st_mis(w, MIS_FORK, "waitpid: %s", strerror(errno));
	else if (WIFSIGNALED(st))
		st_mis(w, MIS_FORK, "fork child killed by signal %d%s",
		       WTERMSIG(st), WTERMSIG(st) == SIGALRM ? " (hung)" : "");
	else if (WEXITSTATUS(st))
		st_mis(w, MIS_FORK, "fork child exit status %d", WEXITSTATUS(st));
}
