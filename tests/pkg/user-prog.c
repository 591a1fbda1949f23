// SPDX-License-Identifier: MIT
/*
 * user-prog.c - what a user of the installed packages writes: built in the
 * booted guest with `cc user-prog.c $(pkg-config --cflags --libs
 * libmremap_retain)` and run as an unprivileged user.  It insists on the
 * module backend, moves a filled block into a larger one, checks that the
 * data moved and the source reads as zero, then decommits the block.
 * Prints one line and exits 0 only if all of that held.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <mremap_retain.h>

static sigjmp_buf fault_env;

static void on_fault(int sig)
{
	(void)sig;
	siglongjmp(fault_env, 1);
}

static int fail(const char *what)
{
	printf("user-prog: FAIL %s (%s)\n", what, strerror(errno));
	return 1;
}

int main(void)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t old_size = 64 * page, new_size = 256 * page, i;
	unsigned char *src, *dst;
	volatile unsigned char *probe;

	if (mremap_retain_set_backend(MREMAP_RETAIN_BACKEND_MODULE))
		return fail("module backend");
	src = mmap(NULL, old_size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (src == MAP_FAILED)
		return fail("mmap");
	for (i = 0; i < old_size; i++)
		src[i] = (unsigned char)(i * 7 + 1);

	dst = mremap_retain(src, old_size, new_size, 0);
	if (dst == MAP_FAILED)
		return fail("mremap_retain");
	for (i = 0; i < new_size; i++)
		if (dst[i] != (i < old_size ? (unsigned char)(i * 7 + 1) : 0))
			return fail("moved data");
	for (i = 0; i < old_size; i++)
		if (src[i])
			return fail("source not zero");
	src[0] = 1;	/* still mapped and writable */

	if (mremap_retain_decommit(dst, new_size))
		return fail("mremap_retain_decommit");
	signal(SIGSEGV, on_fault);
	probe = dst;
	if (!sigsetjmp(fault_env, 1)) {
		(void)probe[0];
		errno = 0;
		return fail("decommitted block still readable");
	}
	if (mprotect(dst, new_size, PROT_READ) || dst[0] != 0)
		return fail("decommitted block not zero");

	printf("user-prog: ok backend %s: moved %zu KiB into %zu KiB, source zero, decommitted\n",
	       mremap_retain_backend_name(mremap_retain_backend()),
	       old_size / 1024, new_size / 1024);
	return 0;
}
