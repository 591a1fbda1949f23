// SPDX-License-Identifier: MIT
/*
 * fuzz.c - hostile input to the raw /dev/mremap_retain ioctl.
 *
 *	fuzz [--seconds N] [--seed S] [--iterations N]
 *
 * A set of canary mappings with known bytes and protections sits in an
 * arena: private anonymous ones (read-write, read-only, PROT_NONE), a
 * MAP_SHARED memfd one, and one made of two mappings.  Then:
 *   - unknown ioctl numbers (ENOTTY), bad argument pointers (EFAULT),
 *     reserved fields and unknown flags (EINVAL), sizes and addresses that
 *     wrap or point into the kernel, every flag combination;
 *   - a seeded loop of random and near-valid structs (--iterations, and at
 *     most half of --seconds);
 *   - ioctls racing munmap, mprotect and fork (fuzz_race.c).
 * After every failed call the canaries must be byte-identical and
 * /proc/self/maps unchanged.  A call that succeeds must have done what the
 * contract says (checked against the canary's bytes) and the canaries are
 * then rebuilt.  Default 15 s in all; the seed is printed first.
 */
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>

#include <mremap_retain/ioctl.h>

#include "../guest/testlib.h"
#include "fuzz.h"

#define RW (PROT_READ | PROT_WRITE)
#define ARENA 48		/* pages */
#define FAR (1UL << 30)		/* the far reservation, for big FIXED moves */

struct canary {
	int off, n, prot;
	int kind;		/* 0 private anon, 1 shared memfd, 2 two mappings */
	uint64_t seed;
};

static const struct canary cans[] = {
	{ 2, 4, RW, 0, 100 },
	{ 8, 2, PROT_READ, 0, 101 },
	{ 12, 3, PROT_NONE, 0, 102 },
	{ 16, 8, RW, 0, 103 },
	{ 26, 4, RW, 1, 104 },
	{ 32, 8, RW, 2, 105 },	/* second half read-only */
};
#define NCAN (sizeof(cans) / sizeof(cans[0]))

static int fd, memfd;
/* FIXED | NOREPLACE, and ALIKE where the module announces it. */
static uint32_t known_flags = MREMAP_RETAIN_MOVE_FIXED | MREMAP_RETAIN_MOVE_NOREPLACE;
static char *arena, *far;
static struct tl_snap base_snap, cur_snap;
static uint64_t rng;
static int diags;

/* Per class: calls, and those whose outcome or aftermath was wrong. */
struct cls {
	const char *name;
	unsigned long calls, succeeded, bad_errno, changed, bad_success;
};

static uint64_t rnd(void)
{
	uint64_t z = (rng += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static char *can_addr(int i)
{
	return arena + cans[i].off * ps;
}

/* (Re)creates the arena's canaries and the far reservation. */
static void build(void)
{
	size_t i;

	munmap(arena, ARENA * ps);
	munmap(far, FAR);
	if (mmap(far, FAR, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS |
		 MAP_FIXED | MAP_NORESERVE, -1, 0) != far)
		exit(99);
	for (i = 0; i < NCAN; i++) {
		const struct canary *c = &cans[i];
		char *p = can_addr(i);
		size_t len = c->n * ps;

		if (c->kind == 1)
			p = mmap(p, len, RW, MAP_SHARED | MAP_FIXED, memfd, 0);
		else
			p = mmap(p, len, RW, MAP_PRIVATE | MAP_ANONYMOUS |
				 MAP_FIXED, -1, 0);
		if (p != can_addr(i)) {
			tap_diag("canary mmap: %s", strerror(errno));
			exit(99);
		}
		tl_fill(p, len, c->seed);
		if (c->kind == 2)
			mprotect(p + len / 2, len / 2, PROT_READ);
		else if (c->prot != RW)
			mprotect(p, len, c->prot);
	}
	tl_snapshot(&base_snap);
}

/* 1 if every canary holds its bytes. */
static int canary_bytes(void)
{
	int ok = 1;
	size_t i;

	for (i = 0; i < NCAN && ok; i++) {
		const struct canary *c = &cans[i];
		char *p = can_addr(i);

		if (c->prot == PROT_NONE)
			mprotect(p, c->n * ps, PROT_READ);
		if (!tl_check(p, c->n * ps, c->seed)) {
			tap_diag("canary %zu changed", i);
			ok = 0;
		}
		if (c->prot == PROT_NONE)
			mprotect(p, c->n * ps, PROT_NONE);
	}
	return ok;
}

/* 1 if the maps are as built and every canary holds its bytes. */
static int intact(void)
{
	tl_snapshot(&cur_snap);
	return tl_snap_equal(&base_snap, &cur_snap) && canary_bytes();
}

/* Each canary's mappings and bytes as built (ignores other mappings). */
static int canaries_in_place(void)
{
	char want[5], perms[5];
	uintptr_t st, en;
	size_t i, h;

	for (i = 0; i < NCAN; i++) {
		const struct canary *c = &cans[i];
		int halves = c->kind == 2 ? 2 : 1;

		for (h = 0; h < (size_t)halves; h++) {
			char *p = can_addr(i) + h * c->n * ps / halves;
			int prot = c->kind == 2 && h ? PROT_READ : c->prot;

			snprintf(want, sizeof(want), "%c%c-%c",
				 prot & PROT_READ ? 'r' : '-',
				 prot & PROT_WRITE ? 'w' : '-',
				 c->kind == 1 ? 's' : 'p');
			if (!tl_vma(p, &st, &en, perms) || st != (uintptr_t)p ||
			    en != (uintptr_t)p + c->n * ps / halves ||
			    strcmp(perms, want)) {
				tap_diag("canary %zu: mapping changed", i);
				return 0;
			}
		}
	}
	return canary_bytes();
}

/* What mv() returns for the ALIKE answer: nothing moved. */
#define MV_ALIKE	(-1)

static int mv(struct mremap_retain_move *m)
{
	int rc = ioctl(fd, MREMAP_RETAIN_IOC_MOVE, m);

	return rc == 1 ? MV_ALIKE : rc ? errno : 0;
}

static const char *fmt_move(const struct mremap_retain_move *m)
{
	static char b[200];

	snprintf(b, sizeof(b), "old %#llx size %#llx -> %#llx at %#llx flags %#x reserved %#x",
		 (unsigned long long)m->old_addr, (unsigned long long)m->old_size,
		 (unsigned long long)m->new_size, (unsigned long long)m->new_addr,
		 m->flags, m->reserved);
	return b;
}

/* The canary that holds [a, a + len): one private anonymous mapping, or
 * both halves of the two-mapping one. */
static int source_canary(uint64_t a, uint64_t len, int *prot)
{
	size_t i;

	for (i = 0; i < NCAN; i++) {
		uint64_t s = (uintptr_t)can_addr(i), e = s + cans[i].n * ps;

		if (cans[i].kind == 2) {	/* two mappings: they move as one */
			if (a >= s && a + len <= e && a + len > a) {
				*prot = a < s + (e - s) / 2 ? RW : PROT_READ;
				return i;
			}
			continue;
		}
		if (cans[i].kind == 0 && a >= s && a + len <= e && a + len > a) {
			*prot = cans[i].prot;
			return i;
		}
	}
	return -1;
}

/* Checks a successful move against the contract; 1 if right. */
static int check_success(const struct mremap_retain_move *in,
			 const struct mremap_retain_move *out)
{
	uint64_t os = (in->old_size + ps - 1) & ~(uint64_t)(ps - 1);
	uint64_t ns = (in->new_size + ps - 1) & ~(uint64_t)(ps - 1);
	uint64_t keep = os < ns ? os : ns, off, r = out->new_addr;
	int prot, ci = source_canary(in->old_addr, os, &prot), ok = 1;
	int in_far = in->old_addr >= (uintptr_t)far &&
		     in->old_addr + os <= (uintptr_t)far + FAR &&
		     in->old_addr + os > in->old_addr;
	char *d = (char *)(uintptr_t)r, *s = (char *)(uintptr_t)in->old_addr;
	uint64_t cbase;

	if (in_far)
		prot = PROT_NONE;
	if ((ci < 0 && !in_far) || in->old_addr % ps || !in->old_size || !in->new_size ||
	    os < in->old_size || ns < in->new_size || in->reserved ||
	    (in->flags & ~known_flags) ||
	    (in->flags & 3) == MREMAP_RETAIN_MOVE_NOREPLACE ||
	    ((in->flags & 1) && in->new_addr < in->old_addr + os &&
	     in->old_addr < in->new_addr + ns)) {
		tap_diag("success of an invalid request: %s", fmt_move(in));
		return 0;
	}
	if (r % ps || ((in->flags & 1) && r != in->new_addr)) {
		tap_diag("bad result %#llx for %s", (unsigned long long)r, fmt_move(in));
		return 0;
	}
	if (strcmp(tl_perms(d), tl_perms(s))) {
		tap_diag("destination perms %s, source %s", tl_perms(d), tl_perms(s));
		ok = 0;
	}
	if (!(prot & PROT_READ)) {
		mprotect(d, ns, PROT_READ);
		mprotect(s, os, PROT_READ);
	}
	cbase = ci >= 0 ? (uintptr_t)can_addr(ci) : 0;
	/* The pattern is by word index from the canary's start. */
	for (off = 0; off < keep && ok; off += 8) {
		uint64_t want = in_far ? 0 : tl_word(cans[ci].seed,
					(in->old_addr - cbase + off) / 8);

		if (*(volatile uint64_t *)(d + off) != want) {
			tap_diag("destination word %#llx wrong", (unsigned long long)off);
			ok = 0;
		}
	}
	/* Growth reads as zero: all of it when small, else samples. */
	for (off = keep; off < ns && ok; off += ns - keep > 64 * ps ?
	     ((ns - keep) / 16 & ~(uint64_t)(ps - 1)) + ps : 8)
		if (*(volatile uint64_t *)(d + off)) {
			tap_diag("grown part not zero at %#llx", (unsigned long long)off);
			ok = 0;
		}
	if (ok && !tl_zero(s, os)) {
		tap_diag("source not zero after the move");
		ok = 0;
	}
	if (!ok)
		tap_diag("request: %s", fmt_move(in));
	return ok;
}

/* One call: outcome checked against the allowed errnos (0 = may succeed). */
static void call(struct cls *c, struct mremap_retain_move *m, const int *allow,
		 int may_succeed)
{
	struct mremap_retain_move in = *m;
	int e = mv(m), i, fine = 0;

	c->calls++;
	/*
	 * The ALIKE answer (a FIXED destination inside a read-write canary):
	 * only to FIXED | ALIKE, with nothing changed, and only where the
	 * move itself would succeed: asked again without the flag, it must.
	 */
	if (e == MV_ALIKE) {
		struct mremap_retain_move plain = in, out;

		plain.flags &= ~MREMAP_RETAIN_MOVE_ALIKE;
		out = plain;
		if (in.flags != (MREMAP_RETAIN_MOVE_FIXED | MREMAP_RETAIN_MOVE_ALIKE) ||
		    in.reserved || !intact() || mv(&out) || !check_success(&plain, &out)) {
			c->bad_success++;
			if (diags++ < 20)
				tap_diag("%s: wrong ALIKE answer: %s", c->name, fmt_move(&in));
		}
		c->succeeded++;
		munmap((void *)(uintptr_t)out.new_addr,
		       (in.new_size + ps - 1) & ~(uint64_t)(ps - 1));
		build();
		return;
	}
	if (!e) {
		c->succeeded++;
		if (!may_succeed || !check_success(&in, m)) {
			c->bad_success++;
			if (diags++ < 20)
				tap_diag("%s: unexpected or wrong success: %s", c->name,
					 fmt_move(&in));
		}
		munmap((void *)(uintptr_t)m->new_addr,
		       (in.new_size + ps - 1) & ~(uint64_t)(ps - 1));
		build();
		return;
	}
	for (i = 0; allow[i]; i++)
		fine |= allow[i] == e;
	if (!fine) {
		c->bad_errno++;
		if (diags++ < 20)
			tap_diag("%s: %s for %s", c->name, tl_errname(e), fmt_move(&in));
	}
	if (!intact()) {
		c->changed++;
		if (diags++ < 20)
			tap_diag("%s: failed call (%s) changed state: %s", c->name,
				 tl_errname(e), fmt_move(&in));
		build();
	}
}

static void report(struct cls *c)
{
	tap_ok(!c->bad_errno, "%s: %lu calls, errno as specified", c->name, c->calls);
	tap_ok(!c->changed, "%s: nothing changed by a failed call", c->name);
	tap_ok(!c->bad_success, "%s: every success as the contract says", c->name);
}

static const int E_NONE[] = { 0 };
static const int E_INVAL[] = { EINVAL, 0 };
static const int E_FAULT[] = { EFAULT, 0 };
static const int E_ANY[] = { EINVAL, EFAULT, ENOMEM, EEXIST, EPERM, 0 };
static const int E_RANGE[] = { EINVAL, EFAULT, ENOMEM, 0 };

static void unknown_ioctls(void)
{
	static const unsigned sizes[] = { 0, 8, 32, 40, 48, 64, 4096 };
	struct cls c = { .name = "unknown ioctl numbers" };
	struct mremap_retain_move m;
	unsigned long cmd;
	unsigned i, j, nr;
	int bad = 0;

	for (i = 0; i < 600; i++) {
		if (i < 256)
			cmd = _IO(MREMAP_RETAIN_IOC_MAGIC, i);
		else if (i < 256 + 7 * 4 * 3) {
			j = i - 256;
			nr = j % 3;
			cmd = (unsigned long)_IOC(j / 3 / 7 % 4, MREMAP_RETAIN_IOC_MAGIC,
						 nr, sizes[j / 3 % 7]);
		} else {
			cmd = (uint32_t)rnd();
			/* VFS handles some numbers itself (FIOCLEX, FIONBIO, ...). */
			if (_IOC_TYPE(cmd) == 'T' || _IOC_TYPE(cmd) == 'X' ||
			    _IOC_TYPE(cmd) == 'f' || _IOC_TYPE(cmd) == 0x94 ||
			    _IOC_TYPE(cmd) == 0)
				continue;
		}
		if (cmd == MREMAP_RETAIN_IOC_MOVE || cmd == MREMAP_RETAIN_IOC_INFO)
			continue;
		/* A valid move as argument: misread as MOVE, it would show. */
		m = (struct mremap_retain_move){
			.old_addr = (uintptr_t)can_addr(0), .old_size = 4 * ps,
			.new_size = 4 * ps,
		};
		c.calls++;
		if (ioctl(fd, cmd, &m) == 0 || errno != ENOTTY) {
			c.bad_errno++;
			if (bad++ < 5)
				tap_diag("ioctl %#lx: %s", cmd, tl_errname(errno));
			if (!intact()) {
				c.changed++;
				build();
			}
		}
	}
	if (!intact())
		c.changed++;
	tap_ok(!c.bad_errno, "%s: %lu numbers, all ENOTTY", c.name, c.calls);
	tap_ok(!c.changed, "%s: nothing changed", c.name);
}

static void bad_pointers(void)
{
	struct cls c = { .name = "bad argument pointers (EFAULT)" };
	char *pg = tl_map(2 * ps, RW), *ro = tl_map(ps, RW);
	struct mremap_retain_move ok = {
		.old_addr = (uintptr_t)can_addr(0), .old_size = 4 * ps,
		.new_size = 4 * ps,
	};
	struct mremap_retain_info info;
	void *ptrs[8];
	size_t i;

	munmap(pg + ps, ps);	/* a hole after pg */
	memcpy(ro, &ok, sizeof(ok));
	mprotect(ro, ps, PROT_READ);
	memcpy(pg + ps - 16, &ok, 16);
	ptrs[0] = NULL;
	ptrs[1] = (void *)1;
	ptrs[2] = pg + ps;				/* unmapped */
	ptrs[3] = pg + ps - 16;				/* straddles into the hole */
	ptrs[4] = (void *)0xffff888000000000UL;		/* kernel */
	ptrs[5] = (void *)-4096L;
	ptrs[6] = can_addr(2);				/* PROT_NONE */
	ptrs[7] = ro;					/* read-only: no write-back */
	tl_snapshot(&base_snap);
	for (i = 0; i < 8; i++) {
		c.calls++;
		if (ioctl(fd, MREMAP_RETAIN_IOC_MOVE, ptrs[i]) == 0 || errno != EFAULT) {
			c.bad_errno++;
			tap_diag("MOVE with argument %p: %s", ptrs[i], tl_errname(errno));
		}
		if (!intact()) {
			c.changed++;
			tap_diag("MOVE with argument %p changed state", ptrs[i]);
			build();
			tl_snapshot(&base_snap);
		}
		if (i == 7)
			break;	/* INFO only writes: a read-only page faults too */
		c.calls++;
		if (ioctl(fd, MREMAP_RETAIN_IOC_INFO, ptrs[i]) == 0 || errno != EFAULT) {
			c.bad_errno++;
			tap_diag("INFO with argument %p: %s", ptrs[i], tl_errname(errno));
		}
	}
	c.calls++;
	if (ioctl(fd, MREMAP_RETAIN_IOC_INFO, ro) == 0 || errno != EFAULT) {
		c.bad_errno++;
		tap_diag("INFO into a read-only page: %s", tl_errname(errno));
	}
	(void)info;
	tap_ok(!c.bad_errno, "%s: %lu calls, all EFAULT", c.name, c.calls);
	tap_ok(!c.changed, "%s: nothing changed", c.name);
	munmap(pg, ps);
	munmap(ro, ps);
	tl_snapshot(&base_snap);
}

/* 1 if mmap() itself can map [addr, addr + len) (it is then unmapped). */
static int mmap_allows(uint64_t addr, uint64_t len)
{
	void *p = mmap((void *)(uintptr_t)addr, len, PROT_NONE, MAP_PRIVATE |
		       MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

	if (p == MAP_FAILED)
		return 0;
	munmap(p, len);
	return p == (void *)(uintptr_t)addr;
}

static void fields(void)
{
	struct cls inval = { .name = "reserved, flags, alignment (EINVAL)" };
	struct cls wrap = { .name = "wrapping sizes, kernel addresses" };
	struct cls flags = { .name = "every flag combination" };
	uint64_t a = (uintptr_t)can_addr(0), len = 4 * ps, hole = (uintptr_t)arena;
	static const uint64_t big[] = {
		~0ULL, -4096ULL, -8192ULL, 1ULL << 63, 1ULL << 47, 1ULL << 46,
		(1ULL << 47) - 4096, ~0ULL - 4096 + 1,
	};
	static const uint64_t kaddr[] = {
		0xffff888000000000ULL, 0xffffffff81000000ULL, 0xfffffffffffff000ULL,
		0x00007ffffffff000ULL, 0x0000800000000000ULL, 0x8000000000000000ULL,
	};
	struct mremap_retain_move m;
	unsigned i, j;

	for (i = 0; i < 32; i++) {
		m = (struct mremap_retain_move){ a, len, len, 0, 0, 1U << i };
		call(&inval, &m, E_INVAL, 0);
		if ((1U << i) & ~known_flags) {
			m = (struct mremap_retain_move){ a, len, len, 0, 1U << i, 0 };
			call(&inval, &m, E_INVAL, 0);
		}
	}
	m = (struct mremap_retain_move){ a, len, len, 0, MREMAP_RETAIN_MOVE_NOREPLACE, 0 };
	call(&inval, &m, E_INVAL, 0);
	m = (struct mremap_retain_move){ a + 1, len, len, 0, 0, 0 };
	call(&inval, &m, E_INVAL, 0);
	m = (struct mremap_retain_move){ a, 0, len, 0, 0, 0 };
	call(&inval, &m, E_INVAL, 0);
	m = (struct mremap_retain_move){ a, len, 0, 0, 0, 0 };
	call(&inval, &m, E_INVAL, 0);
	m = (struct mremap_retain_move){ a, len, len, hole + 1, MREMAP_RETAIN_MOVE_FIXED, 0 };
	call(&inval, &m, E_INVAL, 0);
	m = (struct mremap_retain_move){ a, len, len, a + ps, MREMAP_RETAIN_MOVE_FIXED, 0 };
	call(&inval, &m, E_INVAL, 0);
	m = (struct mremap_retain_move){ (uintptr_t)can_addr(4), len, len, 0, 0, 0 };
	call(&inval, &m, E_INVAL, 0);	/* MAP_SHARED source */
	m = (struct mremap_retain_move){ (uintptr_t)can_addr(5), 8 * ps, 8 * ps, 0, 0, 0 };
	call(&inval, &m, E_NONE, 1);	/* two mappings: moves (SPEC point 7) */
	m = (struct mremap_retain_move){ hole, ps, ps, 0, 0, 0 };
	call(&inval, &m, E_FAULT, 0);	/* unmapped */

	for (i = 0; i < sizeof(big) / sizeof(big[0]); i++) {
		m = (struct mremap_retain_move){ a, big[i], len, 0, 0, 0 };
		call(&wrap, &m, E_RANGE, 0);
		m = (struct mremap_retain_move){ a, len, big[i], 0, 0, 0 };
		call(&wrap, &m, E_RANGE, 0);
		m = (struct mremap_retain_move){ a, len, big[i], (uintptr_t)far,
						 MREMAP_RETAIN_MOVE_FIXED, 0 };
		call(&wrap, &m, E_RANGE, 0);
		m = (struct mremap_retain_move){ big[i] & ~(ps - 1), len, len, 0, 0, 0 };
		call(&wrap, &m, E_RANGE, 0);
	}
	for (i = 0; i < sizeof(kaddr) / sizeof(kaddr[0]); i++) {
		m = (struct mremap_retain_move){ kaddr[i], len, len, 0, 0, 0 };
		call(&wrap, &m, E_RANGE, 0);
		for (j = 1; j <= 3; j++) {
			m = (struct mremap_retain_move){ a, len, 2 * len, kaddr[i] - ps, j, 0 };
			/* With 5-level paging, user space goes past 47 bits. */
			call(&wrap, &m, j == 2 ? E_INVAL : E_RANGE,
			     j != 2 && mmap_allows(kaddr[i] - ps, 2 * len));
		}
		/* Without FIXED the address is a hint: success is fine. */
		m = (struct mremap_retain_move){ a, len, len, kaddr[i], 0, 0 };
		call(&wrap, &m, E_RANGE, 1);
	}

	/* Every known flag combination with each size change; FIXED into
	 * the freed far range (never alike: nothing is mapped there). */
	for (i = 0; i <= known_flags; i++)
		for (j = 0; j < 3; j++) {
			uint64_t ns = j == 0 ? len : j == 1 ? 2 * len : ps;
			struct mremap_retain_move in = {
				a, len, ns, i & 1 ? (uintptr_t)far : 0, i, 0
			};
			int e;

			m = in;
			if ((i & 3) == MREMAP_RETAIN_MOVE_NOREPLACE) {
				call(&flags, &m, E_INVAL, 0);
				continue;
			}
			if (i & 1)
				munmap(far, FAR);
			flags.calls++;
			e = mv(&m);
			if (e || !check_success(&in, &m)) {
				flags.bad_success++;
				tap_diag("flags %u: %s for %s", i, tl_errname(e),
					 fmt_move(&in));
			}
			if (!e)
				munmap((void *)(uintptr_t)m.new_addr, ns);
			build();
			if ((i & 3) == 3) {	/* FIXED|NOREPLACE onto a canary */
				m = (struct mremap_retain_move){ a, len, ns,
					(uintptr_t)can_addr(3), i, 0 };
				call(&flags, &m, (const int[]){ EEXIST, 0 }, 0);
			}
		}
	report(&inval);
	report(&wrap);
	report(&flags);
}

/* A random or near-valid value for one field. */
static uint64_t pick_addr(void)
{
	static const uint64_t odd[] = {
		0, 1, 4096, 0xffff888000000000ULL, 0xfffffffffffff000ULL,
		0x00007ffffffff000ULL, 0x8000000000000000ULL, ~0ULL,
	};
	uint64_t r = rnd();

	switch (r % 8) {
	case 0: return odd[(r >> 8) % 8];
	case 1: return rnd() | (1ULL << 63);	/* non-canonical or kernel */
	case 2: return (uintptr_t)far + ((r >> 8) % 64) * ps;
	case 3: return (uintptr_t)arena + ((r >> 8) % (ARENA * ps)); /* unaligned too */
	default: return (uintptr_t)can_addr((r >> 8) % NCAN) + ((r >> 16) % 6) * ps -
			(r & (1 << 20) ? ps : 0);
	}
}

static uint64_t pick_size(void)
{
	static const uint64_t odd[] = {
		0, 1, 4095, ~0ULL, -4096ULL, 1ULL << 63, 1ULL << 47, 1ULL << 40,
		1ULL << 30, (1ULL << 30) + 1,
	};
	uint64_t r = rnd();

	switch (r % 6) {
	case 0: return odd[(r >> 8) % 10];
	case 1: return rnd();
	default: return (1 + (r >> 8) % 12) * ps - (r & (1 << 20) ? 1 : 0);
	}
}

static void random_loop(unsigned long iters, double until)
{
	struct cls c = { .name = "random structs" };
	unsigned long i;

	for (i = 0; i < iters && now() < until; i++) {
		struct mremap_retain_move m = {
			.old_addr = pick_addr(), .old_size = pick_size(),
			.new_size = pick_size(), .new_addr = pick_addr(),
			.flags = rnd() % 8 ? rnd() % (known_flags + 1) : (uint32_t)rnd(),
			.reserved = rnd() % 8 ? 0 : (uint32_t)rnd(),
		};

		/* A FIXED destination must stay in memory the fuzzer owns. */
		if (m.flags & MREMAP_RETAIN_MOVE_FIXED) {
			uint64_t d = m.new_addr, ns = m.new_size;
			int in_arena = d >= (uintptr_t)arena &&
				       d + ns <= (uintptr_t)arena + ARENA * ps &&
				       d + ns >= d;
			int in_far = d >= (uintptr_t)far && d + ns <= (uintptr_t)far + FAR &&
				     d + ns >= d;

			if (d < (1ULL << 47) && !in_arena && !in_far)
				m.new_addr = (uintptr_t)far;
			if (m.new_addr == (uintptr_t)far && ns > FAR)
				m.new_addr = 0xffff888000000000ULL;
		}
		call(&c, &m, E_ANY, 1);
	}
	tap_diag("random structs: %lu iterations, %lu succeeded (checked, canaries rebuilt)",
		 i, c.succeeded);
	report(&c);
}

int main(int argc, char **argv)
{
	double seconds = 15, start;
	unsigned long iters = 20000;
	uint64_t seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	struct mremap_retain_info info;
	struct fz_race_result rr;
	int i;

	for (i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--seconds"))
			seconds = atof(argv[i + 1]);
		else if (!strcmp(argv[i], "--seed"))
			seed = strtoull(argv[i + 1], NULL, 0);
		else if (!strcmp(argv[i], "--iterations"))
			iters = strtoul(argv[i + 1], NULL, 0);
	}
	tl_start("fuzz: hostile input to the MOVE ioctl");
	printf("# seed %llu (rerun: fuzz --seed %llu --seconds %g --iterations %lu)\n",
	       (unsigned long long)seed, (unsigned long long)seed, seconds, iters);
	rng = seed;
	start = now();
	fd = open("/dev/" MREMAP_RETAIN_DEVICE_NAME, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		if (tl_host)
			tap_skip("/dev/mremap_retain: not loaded on this host");
		else
			tap_ok(0, "open /dev/mremap_retain: %s", strerror(errno));
		return tap_done();
	}
	memset(&info, 0, sizeof(info));
	i = ioctl(fd, MREMAP_RETAIN_IOC_INFO, &info);
	tap_ok(i == 0 && info.abi_version == MREMAP_RETAIN_ABI_VERSION &&
	       (info.features & MREMAP_RETAIN_FEAT_MOVE),
	       "INFO: ABI version %u, features %#x", info.abi_version, info.features);
	if (info.features & MREMAP_RETAIN_FEAT_ALIKE)
		known_flags |= MREMAP_RETAIN_MOVE_ALIKE;

	memfd = (int)syscall(SYS_memfd_create, "fuzz_canary", 0);
	if (memfd < 0 || ftruncate(memfd, 4 * ps)) {
		tap_ok(0, "memfd_create: %s", strerror(errno));
		return tap_done();
	}
	arena = tl_map(ARENA * ps, PROT_NONE);
	far = mmap(NULL, FAR, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		   -1, 0);
	if (far == MAP_FAILED)
		exit(99);
	build();
	tap_ok(canary_bytes(), "canaries built, their bytes as written");

	unknown_ioctls();
	bad_pointers();
	build();
	fields();
	random_loop(iters, start + seconds * 0.6);

	fz_race(fd, ps, (start + seconds - now()) > 1 ? start + seconds - now() : 1,
		seed, &rr);
	if (rr.first[0])
		tap_diag("race: %s", rr.first);
	tap_diag("race: %llu calls (%llu ok, %llu failed), %llu munmap/mprotect, %llu forks, %llu targeted EFAULTs",
		 (unsigned long long)rr.calls, (unsigned long long)rr.ok,
		 (unsigned long long)rr.errs, (unsigned long long)rr.threads_ops,
		 (unsigned long long)rr.forks, (unsigned long long)rr.efault_checked);
	tap_ok(rr.calls > 0 && !rr.bad_errno,
	       "racing munmap/mprotect/fork: every errno as specified");
	tap_ok(!rr.bad_addr, "racing munmap/mprotect/fork: results page aligned");
	tap_ok(rr.efault_checked > 0 && !rr.efault_moved,
	       "argument made read-only during the call: EFAULT only when nothing moved (%llu of %llu EFAULTs had moved; none seen fails)",
	       (unsigned long long)rr.efault_moved,
	       (unsigned long long)rr.efault_checked);
	/* Thread stacks stay cached: compare the canaries' own mappings. */
	tap_ok(canaries_in_place(), "canaries intact at the end");
	return tap_done();
}
