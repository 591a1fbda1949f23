/* SPDX-License-Identifier: MIT */
/*
 * lock.c - locked sources: the RLIMIT_MEMLOCK check that mremap(2) makes
 * when it grows a locked mapping (EAGAIN), locking a range the way the
 * source was locked, and the move of a locked source for the backends
 * that work in user space.
 *
 * Locked pages must stay unevictable throughout a move, and neither a copy
 * nor MREMAP_DONTUNMAP can promise that everywhere: a copy would have to be
 * locked before the bytes arrive and the source unlocked only once they
 * are gone (both counting against RLIMIT_MEMLOCK in between), and
 * MREMAP_DONTUNMAP clears the lock of the source's whole mapping before
 * 6.1, and counts the moved pages twice in VmLck from about 6.16 until
 * 7.2.8.  A plain mremap(2) moves locked pages with their lock and their
 * accounting on every kernel; the source range is then mapped again at
 * once.  For that moment it is a hole that another thread's mmap(2) could
 * take (it then stays theirs).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>

#include "internal.h"

#ifndef MLOCK_ONFAULT
#define MLOCK_ONFAULT 0x01
#endif

static bool cap_ipc_lock(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];

	memset(data, 0, sizeof(data));
	if (syscall(SYS_capget, &hdr, data))
		return false;
	return data[CAP_TO_INDEX(CAP_IPC_LOCK)].effective &
	       CAP_TO_MASK(CAP_IPC_LOCK);
}

static int vmlck_line(const char *line, size_t len, void *arg)
{
	(void)len;
	if (strncmp(line, "VmLck:", 6))
		return 0;
	*(unsigned long long *)arg = strtoull(line + 6, NULL, 10) * 1024;
	return 1;
}

/* Growing a locked source by new - old bytes: within RLIMIT_MEMLOCK? */
int mr_lock_precheck(size_t old_size, size_t new_size)
{
	unsigned long long locked = 0;
	size_t ps = mr_page_size();
	struct rlimit rl;

	if (new_size <= old_size)
		return 0;
	if (getrlimit(RLIMIT_MEMLOCK, &rl) || rl.rlim_cur == RLIM_INFINITY)
		return 0;
	if (cap_ipc_lock())
		return 0;
	if (mr_proc_lines("/proc/self/status", vmlck_line, &locked))
		return 0;	/* cannot tell: mlock() will refuse */
	if ((locked + new_size - old_size) / ps > rl.rlim_cur / ps)
		return EAGAIN;
	return 0;
}

int mr_lock(void *addr, size_t len, bool onfault)
{
	int ret;

	if (onfault)
		ret = (int)syscall(SYS_mlock2, addr, len, MLOCK_ONFAULT);
	else
		ret = mlock(addr, len);
	if (!ret)
		return 0;
	/* Over the limit (ENOMEM, or EPERM with a zero limit). */
	return (errno == ENOMEM || errno == EPERM) ? EAGAIN : errno;
}

/* Map [addr, addr + len) again as fresh memory, where a move left a hole. */
static int remap_fresh(void *addr, size_t len, int prot)
{
	void *p = mmap(addr, len, prot, MAP_PRIVATE | MAP_ANONYMOUS |
		       MAP_FIXED_NOREPLACE, -1, 0);

	if (p == MAP_FAILED)
		return errno == EEXIST ? 0 : errno;	/* taken meanwhile */
	if (p != addr) {
		munmap(p, len);	/* before 4.17, NOREPLACE was a hint */
		return 0;
	}
	return 0;
}

int mr_locked_move(const struct mr_req *r, const struct mr_src *s, void **out)
{
	size_t n = r->old_size < r->new_size ? r->old_size : r->new_size;
	char *old = (char *)r->old;
	void *p, *dst;
	int err;

	err = mr_dest_map(r, s->prot, &dst);
	if (err)
		return err;
	/* Onto our own mapping of the destination, which it replaces. */
	p = mremap(old, n, r->new_size, MREMAP_MAYMOVE | MREMAP_FIXED, dst);
	if (p == MAP_FAILED) {
		err = errno;
		munmap(dst, r->new_size);
		return err;
	}
	/*
	 * A shrunk source's tail is unmapped (its pages freed, never
	 * unlocked), so that the whole source range is one hole, mapped
	 * again as one mapping.  (Not by mremap() itself: 7.2 loses the
	 * commit charge of a move that shrinks.)
	 */
	if (n < r->old_size)
		munmap(old + n, r->old_size - n);
	err = remap_fresh(old, r->old_size, s->prot);
	if (err) {
		/* No room for the new mapping: put the pages back. */
		if (mremap(p, n, n, MREMAP_MAYMOVE | MREMAP_FIXED, old) != MAP_FAILED) {
			munmap(p, r->new_size);
			if (n < r->old_size)
				remap_fresh(old + n, r->old_size - n, s->prot);
		}
		return err;
	}
	*out = p;
	return 0;
}
