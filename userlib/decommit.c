/* SPDX-License-Identifier: MIT */
/*
 * decommit.c - mremap_retain_decommit(): release a chunk but keep its
 * address range reserved, by the method decommit_method.c picks.
 */
#include <errno.h>
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

int mr_decommit_range(int method, int fallback, void *addr, size_t len)
{
	int err;

	if (method == MR_DECOMMIT_MODULE) {
		/* The module checks and releases under one lock; it hands
		 * back what it leaves to the system calls (EOPNOTSUPP). */
		err = mr_module_decommit(addr, len);
		if (err != EOPNOTSUPP || !fallback)
			return err;
		method = fallback;
	}
	/*
	 * Nothing may change if part of the range is not mapped.  A range
	 * of several pages may span a hole, past which mprotect() fails
	 * after changing what comes before it; MS_ASYNC does no work and
	 * fails with ENOMEM on a hole first.  One page lies in one mapping
	 * or in none, where mprotect() fails with nothing changed (a mmap()
	 * would fill the hole: it always gets the check).
	 */
	if ((len > mr_page_size() || method != MR_DECOMMIT_MPROTECT) &&
	    msync(addr, len, MS_ASYNC))
		return errno;
	return mr_decommit_with(method, addr, len);
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
