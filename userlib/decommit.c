/* SPDX-License-Identifier: MIT */
/*
 * decommit.c - mremap_retain_decommit(): release a chunk but keep its
 * address range reserved, by the method decommit_method.c picks.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "internal.h"

int mr_decommit_with(int method, void *addr, size_t len)
{
	if (method == MR_DECOMMIT_MMAP) {
		if (mmap(addr, len, PROT_NONE, MAP_FIXED | MAP_PRIVATE |
			 MAP_ANONYMOUS | MAP_NORESERVE, -1, 0) == MAP_FAILED)
			return errno;
		return 0;
	}
	if (mprotect(addr, len, PROT_NONE))
		return errno;
	if (!madvise(addr, len, MADV_DONTNEED))
		return 0;
	/* Locked pages cannot be discarded: unlock, as a new mapping would be. */
	if (errno != EINVAL || munlock(addr, len) ||
	    madvise(addr, len, MADV_DONTNEED))
		return errno;
	return 0;
}

/* What a range was before: its mappings' extents and protections. */
struct was {
	uintptr_t start, end;
	int prot;
};

#define WAS_ROOM 8

/*
 * The mappings of [start, end) by PROCMAP_QUERY (6.11+): ENOMEM at a hole,
 * as mprotect() says; ENOTTY where there is no such query.  The first
 * @room go to @was; *@n counts them all.
 */
static int walk(uintptr_t start, uintptr_t end, struct was *was, int room,
		int *n)
{
	struct mr_vma v;
	uintptr_t addr;
	int err;

	for (*n = 0, addr = start; addr < end; addr = v.end, ++*n) {
		err = mr_vma_query(addr, &v);
		if (err)
			return err == EFAULT ? ENOMEM : err;
		if (*n < room)
			was[*n] = (struct was) {
				addr, v.end < end ? v.end : end, v.prot,
			};
	}
	return 0;
}

int mr_decommit_range(int method, int fallback, void *addr, size_t len)
{
	struct was stack[WAS_ROOM], *was = stack;
	uintptr_t start = (uintptr_t)addr;
	int err, n = 1, i;

	if (method == MR_DECOMMIT_MODULE) {
		/* The module checks and releases under one lock; it hands
		 * back what it leaves to the system calls (EOPNOTSUPP). */
		err = mr_module_decommit(addr, len);
		if (err != EOPNOTSUPP || !fallback)
			return err;
		method = fallback;
	}
	/*
	 * Nothing may change if part of the range is not mapped, and
	 * mprotect() changes a range's mappings in turn: past a hole, or
	 * where a later mapping is sealed or cannot be split (no memory,
	 * vm.max_map_count), it fails with those before it changed.  So a
	 * range of several pages is walked first: the query fails on a hole,
	 * and a failure of mprotect() puts back what it had changed.  One
	 * page lies in one mapping or in none, where mprotect() fails with
	 * nothing changed (a mmap() would fill the hole: it always gets the
	 * check).  Without the query (before 6.11), MS_ASYNC, which does no
	 * work and fails with ENOMEM on a hole first, finds the holes; there
	 * the rarer failures may leave mappings before the failing one
	 * PROT_NONE, their bytes intact (man page).
	 */
	if (len > mr_page_size() || method != MR_DECOMMIT_MPROTECT) {
		err = walk(start, start + len, stack, WAS_ROOM, &n);
		if (!err && n > WAS_ROOM) {
			was = malloc(n * sizeof(*was));
			err = was ? walk(start, start + len, was, n, &i) : ENOMEM;
			n = i < n ? i : n;	/* what was noted */
		}
		if (err == ENOTTY) {
			n = 1;
			err = msync(addr, len, MS_ASYNC) ? errno : 0;
		}
		if (err)
			goto out;
	}
	err = mr_decommit_with(method, addr, len);
	if ((err == ENOMEM || err == EPERM) && method == MR_DECOMMIT_MPROTECT)
		for (i = 0; i < n && n > 1; i++)
			mprotect((void *)was[i].start, was[i].end - was[i].start,
				 was[i].prot);
out:
	if (was != stack)
		free(was);
	return err;
}

MR_API int mremap_retain_decommit(void *addr, size_t len)
{
	const size_t mask = mr_page_size() - 1;
	int err, method;

	if (((uintptr_t)addr & mask) || !len || len > UINTPTR_MAX - mask)
		err = EINVAL;
	else if ((len = (len + mask) & ~mask) > UINTPTR_MAX - (uintptr_t)addr)
		err = EINVAL;
	else if (!(method = mr_decommit_method(len)))
		err = ENOTSUP;
	else
		err = mr_decommit_range(method, mr_decommit_fallback(), addr,
					len);
	if (!err)
		return 0;
	errno = err;
	return -1;
}
