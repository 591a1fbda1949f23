/* SPDX-License-Identifier: MIT */
/*
 * args.c - argument checks shared by every backend, so that a bad call gets
 * the same errno whichever backend would have served it.
 */
#include <errno.h>
#include <sys/mman.h>
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

/*
 * The top of the user address space, as the kernel's TASK_SIZE: a mapping
 * larger than that is ENOMEM, as the module has it (mremap() says EINVAL
 * there on some kernels).  x86-64 has 47 or, with 5-level paging, 56 bits;
 * a fixed mapping just above 47 bits tells them apart: made, or EEXIST,
 * 56; ENOMEM, 47, but only where a mapping anywhere else can be had (else
 * the refusal was for the process's limits, and the answer, 47 for now,
 * is not kept).  Elsewhere only the generic bound of mr_args() applies.
 */
static size_t task_size(void)
{
	static size_t top;
	size_t t = __atomic_load_n(&top, __ATOMIC_RELAXED);
#if defined(__x86_64__)
	const size_t ps = mr_page_size();
	void *hi = (void *)(1UL << 47), *p;
	bool sure = true;

	if (t)
		return t;
	p = mmap(hi, ps, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS |
		 MAP_FIXED_NOREPLACE, -1, 0);
	if (p == hi || (p == MAP_FAILED && errno == EEXIST)) {
		t = (1UL << 56) - ps;
	} else {
		t = (1UL << 47) - ps;
		if (p == MAP_FAILED) {
			p = mmap(NULL, ps, PROT_NONE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			sure = p != MAP_FAILED;
		}
	}
	if (p != MAP_FAILED)
		munmap(p, ps);
	if (!sure)
		return t;
#else
	if (t)
		return t;
	t = PTRDIFF_MAX & ~(mr_page_size() - 1);
#endif
	__atomic_store_n(&top, t, __ATOMIC_RELAXED);
	return t;
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
	/* No mapping can be larger than the user address space. */
	if (new_size > (PTRDIFF_MAX & ~mask) || new_size > task_size())
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
		/* Past the top, as the module has it (mremap(): EINVAL). */
		if (new_size > UINTPTR_MAX - new || new > task_size() - new_size)
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
