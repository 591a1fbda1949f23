/* SPDX-License-Identifier: MIT */
/*
 * backend_copy.c - any kernel: map the destination, copy the bytes, discard
 * the source with MADV_DONTNEED.  What allocators do by hand, behind the
 * same contract as the other backends.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "internal.h"

int mr_copy_move(const struct mr_req *r, void **out)
{
	size_t n = r->old_size < r->new_size ? r->old_size : r->new_size;
	const int rw = PROT_READ | PROT_WRITE;
	void *old = (void *)r->old, *dst;
	bool unreadable;
	struct mr_src s;
	int err;

	err = mr_source_check(r, &s);
	if (!err && s.locked)
		err = mr_lock_precheck(r->old_size, r->new_size);
	if (!err)
		err = mr_dest_map(r, rw, &dst);
	if (err)
		return err;

	/* Locking the destination before unlocking the source could count
	 * both against RLIMIT_MEMLOCK. */
	if (s.locked) {
		if (munlock(old, r->old_size)) {
			err = errno;
			goto unmap;
		}
		err = mr_lock(dst, r->new_size, s.onfault);
		if (err)
			goto relock;
	}
	unreadable = !(s.prot & PROT_READ);
	if (unreadable && mprotect(old, n, s.prot | PROT_READ)) {
		err = errno;
		goto relock;
	}
	memcpy(dst, old, n);
	if (unreadable)
		mprotect(old, n, s.prot);
	if (s.prot != rw)
		mprotect(dst, r->new_size, s.prot);
	madvise(old, r->old_size, MADV_DONTNEED);
	*out = dst;
	return 0;

relock:
	if (s.locked)
		mr_lock(old, r->old_size, s.onfault);
unmap:
	munmap(dst, r->new_size);
	return err;
}
