// SPDX-License-Identifier: MIT
/*
 * fuzz_race.c - the fuzzer's concurrent phase: MOVE ioctls on two ranges
 * while other threads munmap and re-map them, mprotect them, and fork.
 *
 * Part 1 (general race): only the outcome classes are checkable: every
 * call succeeds with a page-aligned result or fails with an errno of the
 * contract; no crash, no kernel warning (the harness reads dmesg).  No
 * thread allocates memory meanwhile, so a destination the kernel chose can
 * only lie in free space or in the two test ranges, and unmapping it never
 * hits memory the program needs.
 *
 * Part 2 (targeted): the argument struct sits in a page that another
 * thread keeps flipping between read-only and read-write (the struct is
 * written through a second, always writable mapping of the same memfd
 * page).  The module writes the result back after the move; a call that
 * fails with EFAULT must not have moved anything, so on EFAULT the source
 * must still hold its bytes.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <mremap_retain/ioctl.h>

#include "fuzz.h"

#define RW (PROT_READ | PROT_WRITE)
#define SLOT 8			/* pages per test range */

static int fd, zfd;
static size_t ps;
static char *ra, *rb;		/* the two test ranges */
static volatile int stop;
static struct fz_race_result *R;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t next(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

static void problem(uint64_t *ctr, const char *fmt, long a, long b)
{
	__atomic_fetch_add(ctr, 1, __ATOMIC_RELAXED);
	if (!R->first[0])
		snprintf(R->first, sizeof(R->first), fmt, a, b);
}

static int allowed(int e)
{
	return e == EINVAL || e == EFAULT || e == ENOMEM || e == EEXIST;
}

static void *mover(void *arg)
{
	uint64_t s = (uintptr_t)arg;

	while (!stop) {
		struct mremap_retain_move m = {
			.old_addr = (uintptr_t)(next(&s) & 1 ? ra : rb),
			.old_size = (1 + next(&s) % SLOT) * ps,
			.new_size = (1 + next(&s) % (2 * SLOT)) * ps,
		};
		int k = next(&s) % 3;

		if (k) {
			m.flags = MREMAP_RETAIN_MOVE_FIXED |
				  (k == 2 ? MREMAP_RETAIN_MOVE_NOREPLACE : 0);
			m.new_addr = (uintptr_t)(m.old_addr == (uintptr_t)ra ? rb : ra);
			m.new_size = (1 + next(&s) % SLOT) * ps;
		}
		__atomic_fetch_add(&R->calls, 1, __ATOMIC_RELAXED);
		if (ioctl(fd, MREMAP_RETAIN_IOC_MOVE, &m)) {
			__atomic_fetch_add(&R->errs, 1, __ATOMIC_RELAXED);
			if (!allowed(errno))
				problem(&R->bad_errno, "racing MOVE failed with errno %ld (flags %ld)",
					errno, m.flags);
			continue;
		}
		__atomic_fetch_add(&R->ok, 1, __ATOMIC_RELAXED);
		if (m.new_addr % ps)
			problem(&R->bad_addr, "racing MOVE returned %#lx (flags %ld)",
				(long)m.new_addr, m.flags);
		else if (!(m.flags & MREMAP_RETAIN_MOVE_FIXED))
			munmap((void *)(uintptr_t)m.new_addr, m.new_size);
	}
	return NULL;
}

static void *unmapper(void *arg)
{
	uint64_t s = (uintptr_t)arg;

	while (!stop) {
		char *p = next(&s) & 1 ? ra : rb;

		munmap(p, SLOT * ps);
		if (mmap(p, SLOT * ps, RW, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
			 -1, 0) == MAP_FAILED)
			continue;
		/* Touch a page; a racing mprotect may forbid it: EFAULT, no signal. */
		if (read(zfd, p + next(&s) % SLOT * ps, 8) < 0 && errno != EFAULT)
			continue;
		__atomic_fetch_add(&R->threads_ops, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static void *protector(void *arg)
{
	static const int prots[] = { PROT_NONE, PROT_READ, RW };
	uint64_t s = (uintptr_t)arg;

	while (!stop) {
		char *p = next(&s) & 1 ? ra : rb;
		size_t a = next(&s) % SLOT, n = 1 + next(&s) % (SLOT - a);

		mprotect(p + a * ps, n * ps, prots[next(&s) % 3]);
		__atomic_fetch_add(&R->threads_ops, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static void *forker(void *arg)
{
	(void)arg;
	while (!stop) {
		pid_t pid = fork();
		int st;

		if (pid == 0) {
			struct mremap_retain_move m = {
				.old_addr = (uintptr_t)ra, .old_size = ps,
				.new_size = 2 * ps,
			};

			ioctl(fd, MREMAP_RETAIN_IOC_MOVE, &m);
			_exit(0);
		}
		if (pid > 0) {
			waitpid(pid, &st, 0);
			__atomic_fetch_add(&R->forks, 1, __ATOMIC_RELAXED);
		}
		usleep(1000);
	}
	return NULL;
}

/* Part 2: the read-only flipper of the argument page. */
static void *flipper(void *arg)
{
	char *q = arg;
	int i = 0;

	while (!stop)
		mprotect(q, ps, (i++ & 1) ? RW : PROT_READ);
	mprotect(q, ps, RW);
	return NULL;
}

static void targeted(double until)
{
	const size_t n = 4;
	char *src, *dst, *q1, *q2;
	pthread_t th;
	int mfd = (int)syscall(SYS_memfd_create, "fz_arg", 0);
	size_t i;

	src = mmap(NULL, n * ps, RW, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	dst = mmap(NULL, n * ps, RW, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mfd < 0 || ftruncate(mfd, ps) || src == MAP_FAILED || dst == MAP_FAILED)
		return;
	q1 = mmap(NULL, ps, RW, MAP_SHARED, mfd, 0);
	q2 = mmap(NULL, ps, RW, MAP_SHARED, mfd, 0);
	if (q1 == MAP_FAILED || q2 == MAP_FAILED)
		return;
	stop = 0;
	if (pthread_create(&th, NULL, flipper, q1))
		return;
	while (now() < until) {
		struct mremap_retain_move *m = (void *)q2;

		for (i = 0; i < n * ps; i += 8)
			*(uint64_t *)(src + i) = i + 1;
		*m = (struct mremap_retain_move){
			.old_addr = (uintptr_t)src, .old_size = n * ps,
			.new_size = n * ps, .new_addr = (uintptr_t)dst,
			.flags = MREMAP_RETAIN_MOVE_FIXED,
		};
		__atomic_fetch_add(&R->calls, 1, __ATOMIC_RELAXED);
		if (!ioctl(fd, MREMAP_RETAIN_IOC_MOVE, q1)) {
			R->ok++;
			continue;	/* dst replaced; src fresh: refilled above */
		}
		R->errs++;
		if (errno != EFAULT) {
			problem(&R->bad_errno, "targeted MOVE failed with errno %ld (%ld)",
				errno, 0);
			continue;
		}
		R->efault_checked++;
		for (i = 0; i < n * ps; i += 8)
			if (*(uint64_t *)(src + i) != i + 1) {
				problem(&R->efault_moved,
					"MOVE returned EFAULT (read-only argument) but the source changed: word at %#lx is %#lx",
					(long)i, (long)*(uint64_t *)(src + i));
				break;
			}
	}
	stop = 1;
	pthread_join(th, NULL);
	munmap(q1, ps);
	munmap(q2, ps);
	close(mfd);
	munmap(src, n * ps);
	munmap(dst, n * ps);
}

void fz_race(int dev, size_t pagesize, double seconds, uint64_t seed,
	     struct fz_race_result *res)
{
	void *(*fns[])(void *) = { mover, mover, unmapper, protector, forker };
	pthread_t th[5];
	double start = now();
	int i, nth = 0;
	char *p;

	fd = dev;
	zfd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	ps = pagesize;
	R = res;
	memset(res, 0, sizeof(*res));
	p = mmap(NULL, 2 * SLOT * ps, RW, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		snprintf(res->first, sizeof(res->first), "mmap: %s", strerror(errno));
		res->bad_errno++;
		return;
	}
	ra = p;
	rb = p + SLOT * ps;
	stop = 0;
	for (i = 0; i < 5; i++)
		if (!pthread_create(&th[nth], NULL, fns[i],
				    (void *)(uintptr_t)(seed + i)))
			nth++;
	while (now() < start + seconds * 0.6)
		usleep(20000);
	stop = 1;
	for (i = 0; i < nth; i++)
		pthread_join(th[i], NULL);
	munmap(ra, SLOT * ps);
	munmap(rb, SLOT * ps);
	targeted(start + seconds);
	close(zfd);
}
