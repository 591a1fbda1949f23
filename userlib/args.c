/* SPDX-License-Identifier: MIT */
/*
 * args.c - argument checks shared by every backend, so that a bad call gets
 * the same errno whichever backend would have served it.
 */
#include <errno.h>
#include <unistd.h>

#include "internal.h"

static size_t page_size;

size_t mr_page_size(void)
{
	size_t ps = __atomic_load_n(&page_size, __ATOMIC_RELAXED);

	if (!ps) {
		ps = (size_t)sysconf(_SC_PAGESIZE);
		__atomic_store_n(&page_size, ps, __ATOMIC_RELAXED);
	}
	return ps;
}

int mr_args(struct mr_req *r, void *old_address, size_t old_size,
	    size_t new_size, int flags, void *new_address)
{
	const size_t mask = mr_page_size() - 1;
	const uintptr_t old = (uintptr_t)old_address;
	const uintptr_t new = (uintptr_t)new_address;

	if (flags & ~(MREMAP_RETAIN_FIXED | MREMAP_RETAIN_NOREPLACE))
		return EINVAL;
	if ((flags & MREMAP_RETAIN_NOREPLACE) && !(flags & MREMAP_RETAIN_FIXED))
		return EINVAL;
	if (old & mask)
		return EINVAL;
	if (!old_size || !new_size)
		return EINVAL;
	/* No mapping can be larger than half the address space. */
	if (new_size > (PTRDIFF_MAX & ~mask))
		return ENOMEM;
	new_size = (new_size + mask) & ~mask;
	/* A source that would wrap around cannot be mapped. */
	if (old_size > UINTPTR_MAX - mask)
		return EFAULT;
	old_size = (old_size + mask) & ~mask;
	if (old_size > UINTPTR_MAX - old)
		return EFAULT;

	if (flags & MREMAP_RETAIN_FIXED) {
		if (new & mask)
			return EINVAL;
		if (new_size > UINTPTR_MAX - new)
			return ENOMEM;
		if (new < old + old_size && old < new + new_size)
			return EINVAL;
	}

	r->old = old;
	r->old_size = old_size;
	r->new_size = new_size;
	r->new_addr = (flags & MREMAP_RETAIN_FIXED) ? new : 0;
	r->flags = flags;
	return 0;
}
