/* SPDX-License-Identifier: MIT */
/*
 * parts.c - a source of several adjacent mappings (SPEC point 7) moves part
 * by part: the destination range is claimed first (a PROT_NONE reservation
 * without FIXED, MAP_FIXED_NOREPLACE with NOREPLACE), then each part moves
 * with the backend's own one-mapping move to its offset in it, the part that
 * holds the last byte moved taking the growth.  A part that fails puts back
 * the parts moved before it and unmaps the destination.  Each part keeps its
 * own protection, lock and flags; for a shrink, the parts past the new size
 * are emptied once everything else has moved.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "internal.h"

bool mr_move_back(void *p, size_t n, void *old, int prot)
{
	const int rw = PROT_READ | PROT_WRITE;

	/* mremap() needs the map-count headroom of the step that failed. */
	if (mremap(p, n, n, MREMAP_MAYMOVE | MREMAP_FIXED, old) != MAP_FAILED)
		return true;
	/*
	 * Then copy the bytes back: the pages are new, the contents the
	 * same.  mremap() unmaps its destination before the move that
	 * failed, so @old may be a hole now: map it afresh.  Where the
	 * protections the copy takes cannot be had, the bytes stay at @p,
	 * still mapped: a mapping left behind is better than a fault in
	 * memcpy() or bytes thrown away.
	 */
	if (msync(old, n, 0) && errno == ENOMEM &&
	    mmap(old, n, prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
		 -1, 0) == MAP_FAILED)
		return false;
	if (prot != rw) {
		if (mprotect(old, n, rw))
			return false;
		if (mprotect(p, n, PROT_READ)) {
			mprotect(old, n, prot);
			return false;
		}
	}
	memcpy(old, p, n);
	if (prot != rw)
		mprotect(old, n, prot);
	munmap(p, n);
	return false;
}

/* The next part at @addr: its end within the source, and its protection. */
static int next_part(const struct mr_req *r, uintptr_t addr, uintptr_t *end,
		     int *prot)
{
	struct mr_vma v;
	int err = mr_vma_at(addr, &v);

	if (err)
		return err;
	*end = v.end < r->old + r->old_size ? v.end : r->old + r->old_size;
	*prot = v.prot;
	return 0;
}

int mr_parts_move(const struct mr_req *r,
		  int (*move_one)(const struct mr_req *r, void **out),
		  void **out)
{
	size_t n = r->old_size < r->new_size ? r->old_size : r->new_size;
	uintptr_t move_end = r->old + n, addr, end, dst;
	int prot, err, flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
	bool claimed = false;
	size_t moved;
	void *p, *res;

	/* Claim the destination, so that no part's move can land elsewhere. */
	if (!(r->flags & MREMAP_RETAIN_FIXED) || (r->flags & MREMAP_RETAIN_NOREPLACE)) {
		if (r->flags & MREMAP_RETAIN_NOREPLACE)
			flags |= MAP_FIXED_NOREPLACE;
		p = mmap((void *)r->new_addr, r->new_size, PROT_NONE, flags, -1, 0);
		if (p == MAP_FAILED)
			return errno;
		if ((r->flags & MREMAP_RETAIN_FIXED) && p != (void *)r->new_addr) {
			munmap(p, r->new_size);	/* a hint only before 4.17 */
			return EEXIST;
		}
		claimed = true;
	} else {
		p = (void *)r->new_addr;
	}
	dst = (uintptr_t)p;

	for (addr = r->old; addr < move_end; addr = end) {
		struct mr_req one = { .old = addr, .flags = MREMAP_RETAIN_FIXED };

		err = next_part(r, addr, &end, &prot);
		if (err)
			goto undo;
		if (end > move_end)
			end = move_end;
		one.old_size = end - addr;
		one.new_size = end == move_end ? r->new_size - (addr - r->old) :
			       one.old_size;
		one.new_addr = dst + (addr - r->old);
		err = move_one(&one, &res);
		if (err)
			goto undo;
	}
	/* A shrunk source's parts past the new size: fresh memory too. */
	if (move_end < r->old + r->old_size)
		madvise((void *)move_end, r->old + r->old_size - move_end,
			MADV_DONTNEED);
	*out = p;
	return 0;

undo:
	moved = addr - r->old;
	for (addr = r->old; addr < r->old + moved; addr = end) {
		if (next_part(r, addr, &end, &prot))
			break;
		if (end > r->old + moved)
			end = r->old + moved;
		mr_move_back((void *)(dst + (addr - r->old)), end - addr,
			     (void *)addr, prot);
	}
	/* What a FIXED move had replaced is gone, as with mremap(2). */
	if (claimed || moved)
		munmap(p, r->new_size);
	return err;
}
