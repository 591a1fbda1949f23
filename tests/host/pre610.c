// SPDX-License-Identifier: MIT
/*
 * pre610.c - preloaded into the host tests' second pass: this kernel as
 * one before Linux 6.10 looks to the library, which asks the kernel
 * itself: PROCMAP_QUERY fails with ENOTTY (before 6.11), so every lookup
 * reads /proc/self/maps, and mseal() with ENOSYS (before 6.10).  The host
 * is 6.18; Debian's 5.10 and 6.1 take these paths for real, only in the
 * guests.  Both are reached through glibc's ioctl() and syscall().
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>

#ifndef SYS_mseal
#define SYS_mseal 462
#endif
#define PROCMAP_QUERY_NR	17	/* _IOWR('f', 17, struct procmap_query) */

int ioctl(int fd, unsigned long req, ...)
{
	static int (*real)(int, unsigned long, ...);
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (_IOC_TYPE(req) == 'f' && _IOC_NR(req) == PROCMAP_QUERY_NR) {
		errno = ENOTTY;
		return -1;
	}
	if (!real)
		real = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
	return real(fd, req, arg);
}

long syscall(long nr, ...)
{
	static long (*real)(long, ...);
	long a[6];
	va_list ap;
	int i;

	if (nr == SYS_mseal) {
		errno = ENOSYS;
		return -1;
	}
	va_start(ap, nr);
	for (i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (!real)
		real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	return real(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}
