// SPDX-License-Identifier: MIT
/*
 * user.c - run as an unprivileged user (uid 1000): the device opens and
 * each backend moves the user's own memory.  PFNs in /proc/self/pagemap
 * are hidden from non-root, so only contents are checked.
 */
#include <sys/resource.h>

#include "testlib.h"

#define DEV "/dev/mremap_retain"

static void t_move(void)
{
	size_t os = 8 * ps, ns = 32 * ps;
	char *src = tl_map(os, PROT_READ | PROT_WRITE), *r, *dst;

	tl_fill(src, os, 1);
	r = mremap_retain(src, os, ns, 0, NULL);
	if (tap_ok(r != MAP_FAILED, "[%s] user: grow 8 to 32 pages (%s)", BN,
		   r == MAP_FAILED ? tl_errname(errno) : "ok")) {
		tap_ok(tl_check(r, os, 1) && tl_zero(r + os, ns - os),
		       "[%s] user: data moved, tail zero", BN);
		tap_ok(!strcmp(tl_perms(src), "rw-p") && tl_zero(src, os),
		       "[%s] user: source mapped rw-p, zero", BN);
		tl_fill(src, os, 2);
		tap_ok(tl_check(src, os, 2) && tl_check(r, os, 1),
		       "[%s] user: source writable, apart from destination", BN);
		munmap(r, ns);
		dst = tl_map(ns, PROT_READ | PROT_WRITE);
		tl_fill(dst, ns, 9);
		r = mremap_retain(src, os, ns, MREMAP_RETAIN_FIXED, dst);
		tap_ok(r == dst && tl_check(dst, os, 2) &&
		       tl_zero(dst + os, ns - os) && tl_zero(src, os),
		       "[%s] user: FIXED move onto own mapping", BN);
		munmap(dst, ns);
	}
	munmap(src, os);

	/* PROT_READ source, shrink */
	src = tl_map(os, PROT_READ | PROT_WRITE);
	tl_fill(src, os, 3);
	mprotect(src, os, PROT_READ);
	r = mremap_retain(src, os, 3 * ps, 0, NULL);
	tap_ok(r != MAP_FAILED && !strcmp(tl_perms(r), "r--p") &&
	       tl_check(r, 3 * ps, 3) && !strcmp(tl_perms(src), "r--p") &&
	       tl_zero(src, os),
	       "[%s] user: read-only source shrunk 8 to 3 pages", BN);
	if (r != MAP_FAILED)
		munmap(r, 3 * ps);
	munmap(src, os);

	/* Pages are the user's own and stay hidden in pagemap. */
	src = tl_map(os, PROT_READ | PROT_WRITE);
	tl_fill(src, os, 4);
	if (getuid() != 0)
		tap_ok(tl_pfn(src) <= 0,
		       "[%s] user: pagemap PFNs hidden from non-root", BN);
	r = mremap_retain(src, os, 2 * os, 0, NULL);
	tap_ok(r != MAP_FAILED && tl_check(r, os, 4),
	       "[%s] user: second move intact", BN);
	if (r != MAP_FAILED)
		munmap(r, 2 * os);
	munmap(src, os);

	/* mlock within the user's own RLIMIT_MEMLOCK */
	src = tl_map(2 * ps, PROT_READ | PROT_WRITE);
	tl_fill(src, 2 * ps, 5);
	if (mlock(src, 2 * ps)) {
		tl_skipf("[%s] user: mlock of 2 pages: %s", BN, strerror(errno));
	} else {
		r = mremap_retain(src, 2 * ps, 4 * ps, 0, NULL);
		tap_ok(r != MAP_FAILED && tl_check(r, 2 * ps, 5) &&
		       tl_smaps_flag(r, "lo") && !tl_smaps_flag(src, "lo"),
		       "[%s] user: mlocked 2 pages grown to 4, destination "
		       "locked, source not", BN);
		if (r != MAP_FAILED)
			munmap(r, 4 * ps);
	}
	munmap(src, 2 * ps);
}

int main(void)
{
	int fd;

	tl_start("user");
	tap_ok(getuid() != 0 && geteuid() != 0, "running unprivileged (uid %d)",
	       (int)getuid());
	if (tl_host && access(DEV, F_OK)) {
		tap_skip("user opens the device: module not loaded");
	} else {
		fd = open(DEV, O_RDWR | O_CLOEXEC);
		tap_ok(fd >= 0, "user opens " DEV " read-write (%s)",
		       fd < 0 ? strerror(errno) : "ok");
		if (fd >= 0)
			close(fd);
		tap_ok(mremap_retain_backend() == MREMAP_RETAIN_BACKEND_MODULE,
		       "user: default backend is module (%d)",
		       mremap_retain_backend());
	}
	tl_run("user", t_move);
	return tap_done();
}
