// SPDX-License-Identifier: MIT
/*
 * floor.c - the fixed costs under every per-call figure: a null system call
 * (getppid) and a null ioctl on /dev/mremap_retain (MREMAP_RETAIN_IOC_INFO),
 * so that the module's per-call overhead over mremap(2) can be split into
 * "entering through an ioctl" and "the move itself"; and each check the
 * library makes of a source before a move without the module (since
 * 2026-12-07), alone, on a populated 4 KiB mapping of its own as percall's
 * slots are: what the dontunmap and copy backends add to the system calls
 * they are judged against.
 *
 *	check-vma	the source's mapping looked up (PROCMAP_QUERY, or
 *			/proc/self/maps before Linux 6.11)
 *	check-uffd	the userfaultfd question as the library asks it of
 *			a source of one mapping: UFFDIO_CONTINUE, Linux 5.13+
 *			(since 2026-12-08; before, as check-uffd-register)
 *	check-uffd-register  the same question by registration, as asked
 *			of a source of several mappings and before 5.13:
 *			register the range for missing faults, unregister
 *			it, wake it
 *	check-sigmask	the signal mask set and put back (pthread_sigmask
 *			twice), which the registration needs
 *	check-msync	msync(MS_INVALIDATE): refuses a locked source
 *	check-source	the whole check, mr_source_check(), as the backends
 *			run it
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <mremap_retain/ioctl.h>

#include "bench.h"
#include "internal.h"

#define CALLS 2000

static long long t[CALLS];
static int dev_fd = -1, uffd = -1;
static char *src;

static void step_getppid(void)
{
	syscall(SYS_getppid);
}

static void step_ioctl_info(void)
{
	struct mremap_retain_info info;

	ioctl(dev_fd, MREMAP_RETAIN_IOC_INFO, &info);
}

static void step_vma(void)
{
	struct mr_vma v;

	if (mr_vma_at((uintptr_t)src, &v))
		die("floor: no mapping at the source");
}

static void step_sigmask(void)
{
	sigset_t all, old;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static void step_uffd(void)
{
	bool registered;

	if (mr_uffd_one_registered((uintptr_t)src, page_size, &registered) ||
	    registered)
		die("floor: the userfaultfd question by UFFDIO_CONTINUE failed");
}

static void step_uffd_register(void)
{
	if (mr_uffd_register(uffd, (uintptr_t)src, page_size, NULL))
		die("floor: userfaultfd registration: %m");
	mr_uffd_unregister(uffd, (uintptr_t)src, page_size);
}

static void step_msync(void)
{
	if (msync(src, page_size, MS_INVALIDATE))
		die("floor: msync: %m");
}

static void step_source(void)
{
	struct mr_req r = {
		.old = (uintptr_t)src,
		.old_size = page_size,
		.new_size = page_size,
	};
	struct mr_src s;

	if (mr_source_check(&r, &s, true))
		die("floor: the source check refused the source");
}

static void time_step(const char *variant, void (*step)(void))
{
	int i;

	for (i = 0; i < CALLS; i++) {
		long long t0 = now_ns();

		step();
		t[i] = now_ns() - t0;
	}
	emit("floor", variant, 0, "per_call", median_ll(t, CALLS), "ns");
}

int floor_bench(void)
{
	char *g;

	time_step("getppid", step_getppid);
	dev_fd = open("/dev/" MREMAP_RETAIN_DEVICE_NAME, O_RDWR | O_CLOEXEC);
	if (dev_fd >= 0) {
		time_step("ioctl-info", step_ioctl_info);
		close(dev_fd);
	} else {
		note("floor: no /dev/%s, no ioctl figure", MREMAP_RETAIN_DEVICE_NAME);
	}

	/* The source between two PROT_NONE pages: a mapping of its own. */
	g = mmap(NULL, 3 * page_size, PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (g == MAP_FAILED)
		die("floor: mmap: %m");
	src = g + page_size;
	map_slot(src, page_size, 1);
	time_step("check-vma", step_vma);
	time_step("check-sigmask", step_sigmask);
	uffd = mr_uffd_own();
	if (uffd >= 0) {
		bool registered;

		if (!mr_uffd_one_registered((uintptr_t)src, page_size, &registered))
			time_step("check-uffd", step_uffd);
		else
			note("floor: UFFDIO_CONTINUE cannot tell here (before Linux 5.13), no check-uffd figure");
		time_step("check-uffd-register", step_uffd_register);
	} else {
		note("floor: no userfaultfd to be had, no check-uffd figures");
	}
	time_step("check-msync", step_msync);
	time_step("check-source", step_source);
	munmap(g, 3 * page_size);
	return 0;
}
