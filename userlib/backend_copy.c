/* SPDX-License-Identifier: MIT */
/*
 * backend_copy.c - any kernel: map the destination, copy the bytes, discard
 * the source with MADV_DONTNEED.  What allocators do by hand, behind the
 * same contract as the other backends: every step that can fail comes
 * before the source is discarded, and a failure undoes what was done.
 *
 * A locked source is not copied but moved (mr_locked_move(), lock.c).
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

	err = mr_source_check(r, &s, false);
	if (!err && s.nparts > 1)
		return mr_parts_move(r, mr_copy_move, out);
	if (!err && s.locked)
		err = mr_lock_precheck(r->old_size, r->new_size);
	if (!err && s.locked)
		return mr_locked_move(r, &s, out);
	if (!err)
		err = mr_dest_map(r, rw, &dst);
	if (err)
		return err;

	unreadable = !(s.prot & PROT_READ);
	if (unreadable && mprotect(old, n, s.prot | PROT_READ)) {
		err = errno;
		goto unmap;
	}
	memcpy(dst, old, n);
	if (unreadable && mprotect(old, n, s.prot)) {
		err = errno;
		goto unmap;
	}
	if (s.prot != rw && mprotect(dst, r->new_size, s.prot)) {
		err = errno;
		goto unmap;
	}
	/* Last: until here the source is intact and a failure changes nothing. */
	if (madvise(old, r->old_size, MADV_DONTNEED)) {
		err = errno;
		goto unmap;
	}
	*out = dst;
	return 0;

unmap:
	munmap(dst, r->new_size);
	return err;
}
