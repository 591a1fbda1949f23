/* SPDX-License-Identifier: MIT */
/*
 * stress.h - shared declarations of the stress program: the per-page
 * content model, the per-worker state, the counters every process shares,
 * and the operations (model.c, ops.c, move.c, race.c, stress.c).
 *
 * Model.  Every worker owns a list of regions; each region is a page range
 * inside one kernel mapping, with one protection, and for each page a
 * 64-bit tag: 0 means the page must read as zero, any other tag means word
 * j of the page holds st_word(tag, j).  A page marked `freed' went through
 * MADV_FREE and may read either as its tag's content or as all zeroes
 * (the whole page, never a mix), until the worker writes it again.
 */
#ifndef MREMAP_RETAIN_STRESS_H
#define MREMAP_RETAIN_STRESS_H

#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>

#define ST_MAX_BACKENDS	3
#define ST_MAX_WORKERS	4
#define ST_MAX_REGIONS	40
#define ST_MAX_PAGES	3072	/* pages a worker holds at most (12 MiB) */

struct st_page {
	uint64_t tag;
	uint8_t freed;
};

struct st_region {
	uintptr_t start;
	size_t n;		/* pages */
	int prot;
	struct st_page *pg;
};

/* Operations counted per kind. */
enum st_op {
	OP_MMAP, OP_MUNMAP, OP_TRIM, OP_WRITE, OP_VERIFY, OP_MPROTECT,
	OP_DONTNEED, OP_FREE, OP_PAGEOUT, OP_HUGEPAGE,
	OP_MOVE_SAME, OP_MOVE_GROW, OP_MOVE_SHRINK,
	OP_MOVE_ANY, OP_MOVE_FIXED, OP_MOVE_NOREPL_EEXIST, OP_MOVE_NOREPL_HOLE,
	OP_MOVE_OVERLAP, OP_MOVE_ENOMEM, OP_HOLE_RACED,
	OP_FORK, OP_RACE, OP_RACE_WRITES,
	OP_NKINDS
};

/* Mismatch classes: each class with a non-zero count is one failure. */
enum st_mis {
	MIS_CONTENT,	/* a page does not hold what the model says */
	MIS_SOURCE,	/* a retained source does not read as zero */
	MIS_ERRNO,	/* a call failed (or succeeded) against the model */
	MIS_UNCHANGED,	/* a failed call changed the source or destination */
	MIS_PROT,	/* a mapping has the wrong protection */
	MIS_PLACE,	/* a destination overlaps memory the worker owns */
	MIS_RACE,	/* a raced move lost, duplicated or invented a write */
	MIS_FORK,	/* a fork child saw a wrong snapshot, hung or crashed */
	MIS_STRAY,	/* a racing write showed up in another page (race.c) */
	MIS_NCLASSES
};

struct st_wstat {
	uint64_t ops[OP_NKINDS];
	uint64_t mis[MIS_NCLASSES];
	uint64_t nops;		/* operations started (for a crash report) */
	int last_op;
	int done;
};

/* In a MAP_SHARED mapping made before the backend processes fork. */
struct st_shared {
	struct st_wstat w[ST_MAX_BACKENDS][ST_MAX_WORKERS];
};

struct st_worker {
	int id;			/* worker number within its process */
	int backend;		/* MREMAP_RETAIN_BACKEND_* of the process */
	int bidx;		/* backend index 0..2 */
	uint64_t rng;
	uint64_t next_tag;
	struct st_region r[ST_MAX_REGIONS];
	int nr;
	size_t pages;		/* sum of r[].n */
	struct st_wstat *st;
	int in_child;		/* running in a fork child */
	int diags;		/* diagnostics printed (capped) */
	char *mapsbuf;		/* per-worker /proc/self/maps buffer */
	size_t mapscap;
};

extern size_t st_ps;
extern uint64_t st_max_ops;

/* ---- helpers (stress.c) ---- */
__attribute__((format(printf, 1, 2)))
void st_out(const char *fmt, ...);
__attribute__((format(printf, 3, 4)))
void st_mis(struct st_worker *w, enum st_mis cls, const char *fmt, ...);
void st_count(struct st_worker *w, enum st_op op);
uint64_t st_rand(struct st_worker *w);
size_t st_below(struct st_worker *w, size_t n);	/* uniform 0..n-1 */
const char *st_bname(int backend);

/* ---- model (model.c) ---- */
static inline uint64_t st_word(uint64_t tag, size_t j)
{
	uint64_t x = tag * 0x9E3779B97F4A7C15ULL + j * 0xD6E8FEB86659FD93ULL;

	return x ^ (x >> 31) ^ 1;
}

uint64_t st_new_tag(struct st_worker *w);
void st_fill_page(void *p, uint64_t tag);
/* 1 if the page at p matches the model page; else writes why into why. */
int st_page_ok(const void *p, const struct st_page *pg, char *why, size_t cap);
int st_add(struct st_worker *w, uintptr_t start, size_t n, int prot,
	   struct st_page *pg);
void st_cut(struct st_worker *w, uintptr_t start, size_t n);
int st_find(struct st_worker *w, uintptr_t addr);
int st_overlaps(struct st_worker *w, uintptr_t start, size_t n);
/* Verifies a readable region against the model; mismatches are counted
 * as cls.  Returns the number of bad pages. */
int st_verify(struct st_worker *w, int ri, enum st_mis cls, const char *ctx);
int st_verify_range(struct st_worker *w, uintptr_t start, size_t n,
		    const struct st_page *pg, int prot, enum st_mis cls,
		    const char *ctx);
/* Protection of the mapping at addr (-1 if unmapped), from /proc/self/maps. */
int st_prot_at(struct st_worker *w, uintptr_t addr);
void st_check_prot(struct st_worker *w, uintptr_t addr, int prot,
		   enum st_mis cls, const char *ctx);

/* ---- operations ---- */
void op_mmap(struct st_worker *w);
void op_munmap(struct st_worker *w);
void op_trim(struct st_worker *w);
void op_write(struct st_worker *w);
void op_verify(struct st_worker *w);
void op_mprotect(struct st_worker *w);
void op_madvise(struct st_worker *w);
void op_fork(struct st_worker *w);
void op_move(struct st_worker *w);
void op_race(struct st_worker *w);

#endif /* MREMAP_RETAIN_STRESS_H */
