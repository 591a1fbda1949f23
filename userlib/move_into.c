/* SPDX-License-Identifier: MIT */
/*
 * move_into.c - a FIXED move whose destination lies in a mapping alike to
 * the source's: the pages move into that mapping by UFFDIO_MOVE (Linux
 * 6.8+) instead of becoming a mapping of their own.
 *
 * A move by page tables (mremap(), the module) makes the destination a
 * VMA of its own whose pages keep the source's anon_vma and offsets: it
 * never merges with the mapping around it, and an allocator that moves
 * blocks about its heap cuts the heap into thousands of mappings.
 * UFFDIO_MOVE moves the pages into the existing mapping instead and gives
 * each its new offset.  The two end the same but for the VMA boundaries
 * when the destination's mapping has all the source's would give it:
 * the module tells (MREMAP_RETAIN_MOVE_ALIKE: flags, protection, policy,
 * name; read-write, not locked, sealed or registered with userfaultfd),
 * and only where this kernel's UFFDIO_MOVE is one to rely on.
 *
 * UFFDIO_MOVE wants the destination registered with the caller's
 * userfaultfd: the library's own (uffd.c), for missing faults, which
 * no other thread takes there meanwhile (the range is being replaced).
 * Signals stay blocked meanwhile, so that no handler of this thread, and
 * no thread that stops this one with a signal and then reads the range (a
 * collector's stop-the-world), waits for ever on that registration.  The
 * destination is emptied first (it is replaced, as by
 * mremap(MREMAP_FIXED)); the module said yes only once every check of its
 * own move had passed, so that its move, should this one stop, fails only
 * for a race or a kernel out of memory.  The kernel refuses some pages
 * part way (shared with a child after fork(), pinned): what moved goes
 * back, and the module moves the source by page tables.  Not above
 * MR_INTO_MAX: the kernel takes each page in turn where mremap() moves
 * whole page tables.
 */
#include <errno.h>
#include <linux/userfaultfd.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "internal.h"

#ifndef UFFDIO_MOVE
#define _UFFDIO_MOVE			0x05
struct uffdio_move {
	uint64_t dst;
	uint64_t src;
	uint64_t len;
	uint64_t mode;
	int64_t move;
};
#define UFFDIO_MOVE	_IOWR(UFFDIO, _UFFDIO_MOVE, struct uffdio_move)
#endif
#ifndef UFFDIO_MOVE_MODE_ALLOW_SRC_HOLES
#define UFFDIO_MOVE_MODE_ALLOW_SRC_HOLES	((uint64_t)1 << 1)
#endif

/*
 * Move @len bytes from @src to @dst, which @fd has registered; returns the
 * bytes moved.  A short move answers EAGAIN, and the reason comes with
 * the next try from where it stopped: one more, then stop.
 */
static size_t uffd_move(int fd, uintptr_t dst, uintptr_t src, size_t len)
{
	size_t done = 0;
	int tries = 2;

	while (done < len && tries--) {
		struct uffdio_move mv = {
			.dst = dst + done,
			.src = src + done,
			.len = len - done,
			.mode = UFFDIO_MOVE_MODE_ALLOW_SRC_HOLES,
		};

		if (!ioctl(fd, UFFDIO_MOVE, &mv))
			return len;
		if (mv.move > 0)
			done += (size_t)mv.move;
		if (errno != EAGAIN)
			break;
	}
	return done;
}

/* Put the first @moved bytes back from @dst (no longer registered) to
 * @src: by UFFDIO_MOVE, else by copying (the mapping is read-write). */
static void move_back(int fd, uintptr_t dst, uintptr_t src, size_t moved)
{
	size_t back = 0;

	if (!mr_uffd_register(fd, src, moved, NULL)) {
		back = uffd_move(fd, src, dst, moved);
		mr_uffd_unregister(fd, src, moved);
	}
	if (back < moved)
		memcpy((void *)(src + back), (void *)(dst + back), moved - back);
}

bool mr_move_into_fits(const struct mr_req *r)
{
	size_t n = r->old_size < r->new_size ? r->old_size : r->new_size;

	return (r->flags & (MREMAP_RETAIN_FIXED | MREMAP_RETAIN_NOREPLACE)) ==
	       MREMAP_RETAIN_FIXED && n <= MR_INTO_MAX && mr_uffd_own() >= 0;
}

int mr_move_into(const struct mr_req *r, void **out)
{
	size_t n = r->old_size < r->new_size ? r->old_size : r->new_size;
	uintptr_t src = r->old, dst = r->new_addr;
	int fd = mr_uffd_own();
	uint64_t ioctls = 0;
	sigset_t all, old;
	size_t moved = 0;

	if (fd < 0)
		return 1;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	if (mr_uffd_register(fd, dst, r->new_size, &ioctls)) {
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		return 1;
	}
	if ((ioctls & ((uint64_t)1 << _UFFDIO_MOVE)) &&
	    !madvise((void *)dst, r->new_size, MADV_DONTNEED))
		moved = uffd_move(fd, dst, src, n);
	mr_uffd_unregister(fd, dst, r->new_size);
	if (moved && moved < n)
		move_back(fd, dst, src, moved);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (moved < n)
		return 1;
	/* As MADV_DONTNEED fails only for the arguments, and those passed. */
	if (n < r->old_size)
		madvise((void *)(src + n), r->old_size - n, MADV_DONTNEED);
	*out = (void *)dst;
	return 0;
}
