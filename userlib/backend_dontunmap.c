/* SPDX-License-Identifier: MIT */
/*
 * backend_dontunmap.c - Linux 5.7+: mremap(MREMAP_DONTUNMAP) moves the pages
 * and leaves the source mapped and empty.  It needs equal sizes, so growth
 * takes two steps: DONTUNMAP to where the kernel likes, then a plain
 * mremap() that grows that mapping (at the FIXED destination, if asked).
 * The destination is one mapping, as mremap leaves it, and no range is left
 * unowned in between for another thread's mmap() to take.  NOREPLACE and a
 * FIXED growth map their destination first.  MADV_DONTNEED empties a shrunk
 * source's tail.
 *
 * A locked source is moved by mr_locked_move() (lock.c) instead, so that
 * its pages stay locked throughout on every kernel.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "internal.h"

static pthread_once_t probe_once = PTHREAD_ONCE_INIT;
static bool have_dontunmap;
static bool unchecked_commit;

/*
 * Before 6.1 the kernel charges a DONTUNMAP move's commit without checking
 * the overcommit limit (5.10 mm/mremap.c: vm_acct_memory() alone).  There
 * a mapping of the destination's size and protection is made and dropped
 * first, so that mmap() does the check (best effort: another thread may
 * take the commit in between, as with any check-then-act).
 */
static bool commit_unchecked(void)
{
	struct utsname u;
	int major, minor;

	if (uname(&u) || sscanf(u.release, "%d.%d", &major, &minor) != 2)
		return true;
	return major < 6 || (major == 6 && minor < 1);
}

static int vmsize_line(const char *line, size_t len, void *arg)
{
	(void)len;
	if (strncmp(line, "VmSize:", 7))
		return 0;
	*(unsigned long long *)arg = strtoull(line + 7, NULL, 10) * 1024;
	return 1;
}

/* Would a mapping of @len more bytes pass RLIMIT_AS? */
static bool near_as_limit(size_t len)
{
	unsigned long long vm = 0;
	struct rlimit rl;

	if (getrlimit(RLIMIT_AS, &rl) || rl.rlim_cur == RLIM_INFINITY ||
	    mr_proc_lines("/proc/self/status", vmsize_line, &vm))
		return false;
	return vm + len > rl.rlim_cur;
}

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
		unchecked_commit = commit_unchecked();
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
	void *old = (void *)r->old, *dst = (void *)r->new_addr, *p, *via;
	int fixed = r->flags & MREMAP_RETAIN_FIXED ? MREMAP_FIXED : 0;
	/* NOREPLACE and a FIXED growth map their destination first. */
	bool claim = (r->flags & MREMAP_RETAIN_NOREPLACE) ||
		     (fixed && n < r->new_size);
	bool reserved = false;
	struct mr_src s;
	int err;

	/* Unless something changes before it, mremap() refuses a sealed
	 * source itself. */
	err = mr_source_check(r, &s, !claim && !unchecked_commit);
	if (!err && s.nparts > 1)
		return mr_parts_move(r, mr_dontunmap_move, out);
	if (!err && s.locked)
		err = mr_lock_precheck(r->old_size, r->new_size);
	if (!err && s.locked)
		return mr_locked_move(r, &s, out);
	if (err)
		return err;
	if (unchecked_commit) {
		p = mmap(NULL, r->new_size, s.prot, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
		/*
		 * Near RLIMIT_AS that mapping is refused for the address space
		 * it needs while the one a FIXED move replaces is still
		 * there; mremap() judges RLIMIT_AS net of it, so let it.
		 */
		if (p == MAP_FAILED && (errno != ENOMEM || !near_as_limit(r->new_size)))
			return errno;
		if (p != MAP_FAILED)
			munmap(p, r->new_size);
	}
	/*
	 * Claim the destination first for NOREPLACE (atomically), and for a
	 * FIXED growth, so that the intermediate place cannot fall inside it.
	 */
	if (claim) {
		err = mr_dest_map(r, s.prot, &dst);
		if (err)
			return err;
		reserved = true;
	}
	if (n == r->new_size) {
		p = mremap(old, n, n, MREMAP_MAYMOVE | MREMAP_DONTUNMAP | fixed,
			   fixed ? dst : NULL);
		if (p == MAP_FAILED) {
			err = errno;
			goto unreserve;
		}
	} else {
		via = mremap(old, n, n, MREMAP_MAYMOVE | MREMAP_DONTUNMAP, NULL);
		if (via == MAP_FAILED) {
			err = errno;
			goto unreserve;
		}
		p = mremap(via, n, r->new_size, MREMAP_MAYMOVE | fixed,
			   fixed ? dst : NULL);
		if (p == MAP_FAILED) {
			err = errno;
			mr_move_back(via, n, old, s.prot);
			goto unreserve;
		}
	}
	if (n < r->old_size)
		madvise((char *)old + n, r->old_size - n, MADV_DONTNEED);
	*out = p;
	return 0;

unreserve:
	if (reserved)
		munmap(dst, r->new_size);
	return err;
}
