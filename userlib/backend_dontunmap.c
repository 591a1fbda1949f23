/* SPDX-License-Identifier: MIT */
/*
 * backend_dontunmap.c - Linux 5.7+: map the destination, then move the pages
 * into it with mremap(MREMAP_DONTUNMAP | MREMAP_FIXED), which leaves the
 * source mapped and empty.  MREMAP_DONTUNMAP needs equal sizes, so growth
 * takes two steps: the pages move with DONTUNMAP to where the kernel likes,
 * then a plain mremap() grows that mapping onto the reserved destination,
 * replacing the reservation.  The destination is then one mapping, as
 * mremap leaves it, and no range is ever left unowned for another thread's
 * mmap() to take.  MADV_DONTNEED empties a shrunk source's tail.
 *
 * A locked source is unlocked before the move and the destination locked
 * after it: mremap() would count the moved pages in VmLck twice.
 */
#include <errno.h>
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"

static pthread_once_t probe_once = PTHREAD_ONCE_INIT;
static bool have_dontunmap;

static void probe(void)
{
	size_t ps = mr_page_size();
	void *p, *q;

	p = mmap(NULL, ps, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return;
	/* The fifth argument must be passed: glibc's mremap() is variadic. */
	q = mremap(p, ps, ps, MREMAP_MAYMOVE | MREMAP_DONTUNMAP, NULL);
	if (q != MAP_FAILED) {
		have_dontunmap = true;
		munmap(q, ps);
	}
	munmap(p, ps);
}

bool mr_dontunmap_available(void)
{
	pthread_once(&probe_once, probe);
	return have_dontunmap;
}

int mr_dontunmap_move(const struct mr_req *r, void **out)
{
	size_t n = r->old_size < r->new_size ? r->old_size : r->new_size;
	void *old = (void *)r->old, *dst, *p, *via;
	struct mr_src s;
	int err;

	err = mr_source_check(r, &s);
	if (!err && s.locked)
		err = mr_lock_precheck(r->old_size, r->new_size);
	if (!err)
		err = mr_dest_map(r, s.prot, &dst);
	if (err)
		return err;

	if (s.locked && munlock(old, r->old_size)) {
		err = errno;
		goto unmap;
	}
	if (n == r->new_size) {
		p = mremap(old, n, n, MREMAP_MAYMOVE | MREMAP_DONTUNMAP |
			   MREMAP_FIXED, dst);
	} else {
		p = mremap(old, n, n, MREMAP_MAYMOVE | MREMAP_DONTUNMAP, NULL);
		if (p != MAP_FAILED) {
			via = p;
			p = mremap(via, n, r->new_size,
				   MREMAP_MAYMOVE | MREMAP_FIXED, dst);
			if (p == MAP_FAILED) {
				err = errno;
				mremap(via, n, n, MREMAP_MAYMOVE | MREMAP_FIXED,
				       old);
				goto relock;
			}
		}
	}
	if (p == MAP_FAILED) {
		err = errno;
		goto relock;
	}
	if (s.locked) {
		err = mr_lock(dst, r->new_size, s.onfault);
		if (err)
			goto move_back;
	}
	if (n < r->old_size)
		madvise((char *)old + n, r->old_size - n, MADV_DONTNEED);
	*out = dst;
	return 0;

move_back:
	munlock(dst, r->new_size);
	mremap(dst, n, n, MREMAP_MAYMOVE | MREMAP_FIXED, old);
relock:
	if (s.locked)
		mr_lock(old, r->old_size, s.onfault);
unmap:
	munmap(dst, r->new_size);
	return err;
}
