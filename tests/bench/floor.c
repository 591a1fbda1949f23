// SPDX-License-Identifier: MIT
/*
 * floor.c - the fixed cost under every per-call figure: a null system call
 * (getppid) and a null ioctl on /dev/mremap_retain (MREMAP_RETAIN_IOC_INFO),
 * so that the module's per-call overhead over mremap(2) can be split into
 * "entering through an ioctl" and "the move itself".
 */
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <mremap_retain/ioctl.h>

#include "bench.h"

#define CALLS 2000

static long long t[CALLS];

int floor_bench(void)
{
	struct mremap_retain_info info;
	int fd, i;

	for (i = 0; i < CALLS; i++) {
		long long t0 = now_ns();

		syscall(SYS_getppid);
		t[i] = now_ns() - t0;
	}
	emit("floor", "getppid", 0, "per_call", median_ll(t, CALLS), "ns");
	fd = open("/dev/" MREMAP_RETAIN_DEVICE_NAME, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		note("floor: no /dev/%s, no ioctl figure", MREMAP_RETAIN_DEVICE_NAME);
		return 0;
	}
	for (i = 0; i < CALLS; i++) {
		long long t0 = now_ns();

		ioctl(fd, MREMAP_RETAIN_IOC_INFO, &info);
		t[i] = now_ns() - t0;
	}
	close(fd);
	emit("floor", "ioctl-info", 0, "per_call", median_ll(t, CALLS), "ns");
	return 0;
}
