/* SPDX-License-Identifier: MIT */
/*
 * dest.c - map the destination for the backends that build it in user
 * space: anywhere, at FIXED (replacing), or at FIXED without replacing.
 */
#include <errno.h>
#include <sys/mman.h>

#include "internal.h"

int mr_dest_map(const struct mr_req *r, int prot, void **out)
{
	void *want = (void *)r->new_addr;
	int flags = MAP_PRIVATE | MAP_ANONYMOUS;
	void *p;

	if (r->flags & MREMAP_RETAIN_NOREPLACE)
		flags |= MAP_FIXED_NOREPLACE;
	else if (r->flags & MREMAP_RETAIN_FIXED)
		flags |= MAP_FIXED;
	p = mmap(want, r->new_size, prot, flags, -1, 0);
	if (p == MAP_FAILED)
		return errno;
	if ((r->flags & MREMAP_RETAIN_FIXED) && p != want) {
		/* Before Linux 4.17 MAP_FIXED_NOREPLACE was only a hint. */
		munmap(p, r->new_size);
		return EEXIST;
	}
	*out = p;
	return 0;
}
