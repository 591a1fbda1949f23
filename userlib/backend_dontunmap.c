/* SPDX-License-Identifier: MIT */
/*
 * backend_dontunmap.c - Linux 5.7+: mremap(MREMAP_DONTUNMAP) moves the pages
 * and leaves the source mapped and empty.  It needs equal sizes, so growth
 * takes two steps: DONTUNMAP to where the kernel likes (a large one into a
 * hole with room to grow, growth_hint()), then a plain mremap() that grows
 * that mapping (at the FIXED destination, if asked).
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

/* kernel_checked_move(), below, says why x86-64 only. */
#if defined(__x86_64__)
#define KERNEL_CHECKED_MOVE	true
#else
#define KERNEL_CHECKED_MOVE	false
#endif

static pthread_once_t probe_once = PTHREAD_ONCE_INIT;
static bool have_dontunmap;
static bool unchecked_commit;
static bool kernel_checks_kind;
static bool kernel_checked;	/* kernel_checked_move() serves here */

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

/* Does mremap(MREMAP_DONTUNMAP) refuse a mapping made with @flags of @fd? */
static bool dontunmap_refuses(int flags, int fd)
{
	size_t ps = mr_page_size();
	void *p, *q;
	bool refused;

	p = mmap(NULL, ps, PROT_READ, flags, fd, 0);
	if (p == MAP_FAILED)
		return false;
	q = mremap(p, ps, ps, MREMAP_MAYMOVE | MREMAP_DONTUNMAP, NULL);
	refused = q == MAP_FAILED && errno == EINVAL;
	if (q != MAP_FAILED)
		munmap(q, ps);
	munmap(p, ps);
	return refused;
}

/*
 * Linux 5.7 to 5.12 move only private anonymous mappings with
 * MREMAP_DONTUNMAP; 5.13 took any but VM_DONTEXPAND and VM_PFNMAP ones.
 * Asked of a shared anonymous mapping and a private one of a memfd (not
 * under a seccomp filter: memfd_create() is not ours to risk there).
 */
static bool dontunmap_anon_only(void)
{
	int fd;
	bool only;

	if (mr_seccomp_filtered())
		return false;
	fd = memfd_create("mremap_retain-probe", MFD_CLOEXEC);
	if (fd < 0)
		return false;
	only = !ftruncate(fd, (off_t)mr_page_size()) &&
	       dontunmap_refuses(MAP_SHARED | MAP_ANONYMOUS, -1) &&
	       dontunmap_refuses(MAP_PRIVATE, fd);
	close(fd);
	return only;
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
		kernel_checks_kind = dontunmap_anon_only();
		kernel_checked = KERNEL_CHECKED_MOVE && !mr_mseal_supported() &&
				 !mr_vma_query_works() &&
				 !access("/proc/self/map_files", F_OK) &&
				 (kernel_checks_kind || mr_uffd_tells_shmem());
		munmap(q, ps);
	}
	munmap(p, ps);
}

bool mr_dontunmap_available(void)
{
	pthread_once(&probe_once, probe);
	return have_dontunmap;
}

/*
 * Before Linux 6.11 (no PROCMAP_QUERY) looking the source up reads
 * /proc/self/maps up to it, a cost in proportion to the mappings below it
 * (5.5 ms a call with 10,000 of them, 2026-12-06).  So a move of the same
 * size (what allocators make) is first left to the kernel's
 * mremap(MREMAP_DONTUNMAP), which refuses a hole or a second mapping
 * (EFAULT) and a VM_DONTEXPAND or VM_PFNMAP one (EINVAL) with nothing
 * changed.  It moves the pages to a place of ours, a hole between two
 * pages we map, named as a hint (not FIXED, so that a refusal unmaps
 * nothing; should another thread map the hole first, the pages land
 * elsewhere and go back), and a plain mremap() takes them on to a FIXED
 * destination.  Only below a PMD's span: the place is not aligned as the
 * source and destination may be, and each of the two steps would then
 * move every PTE where one step moves whole page tables (the seed's loop
 * on bullseye: 239 ms inside realloc from 8 MiB against glibc's 141,
 * 2026-12-06).
 * The library checks before it what the kernel does not: a userfaultfd
 * registration, mlock (msync: EBUSY; a hole: ENOMEM), on 5.10 the
 * overcommit charge (the two pages and the hole are mapped writable
 * first, more than a read-only source needs, never less), and the kind.
 * Linux 5.7 to 5.12 (Debian's 5.10) move only private anonymous mappings
 * this way (kernel_checks_kind); later ones any other too, so there the
 * source must be one the userfaultfd question's missing-fault
 * registration takes (anonymous, shmem or hugetlbfs: not a file's, nor a
 * special mapping's) and a minor-fault one refuses (not shmem or
 * hugetlbfs), which 5.14+ tells (mr_uffd_tells_shmem()).  Anonymous to those, yet of
 * a file, is a private mapping of /dev/zero (or of a driver that leaves
 * it no vm_ops): after the move /proc/self/map_files has an entry for the
 * new mapping exactly where it has a file (ENOENT: none; any other answer
 * cannot tell, so it counts as a refusal).  The two pages around it have
 * no file, so nothing with a file merges across them (an anonymous
 * mapping may merge with one: the page goes by its address all the same).
 * No mseal there (6.10+).  Any refusal: -1, nothing changed, and the
 * checked path answers with the contract's errno; ENOMEM where the pages
 * could not go back (the bytes did, by copying, or stay at the place), as
 * the checked path would move copies.  (The question cannot keep a
 * driver's mapping without vm_ops from being split for good: the
 * registration takes VM_IO and VM_PFNMAP mappings, which never merge
 * again.)  x86-64 only: elsewhere a hugetlbfs page smaller than a PMD
 * (arm64's contiguous PTEs) could be registered, and so split for good;
 * x86-64's are 2 MiB and 1 GiB, which the kernel refuses to register for
 * a smaller range before it changes anything.  And only where
 * /proc/self/map_files is there to ask: all of it decided once
 * (kernel_checked).
 */
static int kernel_checked_move(const struct mr_req *r, int fixed, void *dst,
			       void **out)
{
	const size_t ps = mr_page_size(), n = r->old_size;
	void *old = (void *)r->old, *p, *q;
	bool uffd, shared = false, file = true;
	struct mr_vma v;
	char path[64];
	char *g;

	/* msync() first: a userfaultfd registration of a range above every
	 * mapping fails with ENOMEM on 5.10, which reads as a partial one. */
	if (msync(old, n, MS_INVALIDATE) ||
	    mr_uffd_registered(r->old, n, &uffd,
			       kernel_checks_kind ? NULL : &shared) ||
	    uffd || shared)
		return -1;
	g = mmap(NULL, n + 2 * ps,
		 unchecked_commit ? PROT_READ | PROT_WRITE : PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS |
		 (unchecked_commit ? 0 : MAP_NORESERVE), -1, 0);
	if (g == MAP_FAILED)
		return -1;
	if (munmap(g + ps, n)) {
		munmap(g, n + 2 * ps);
		return -1;
	}
	p = mremap(old, n, n, MREMAP_MAYMOVE | MREMAP_DONTUNMAP, g + ps);
	if (p != MAP_FAILED) {
		snprintf(path, sizeof(path), "/proc/self/map_files/%lx-%lx",
			 (unsigned long)p, (unsigned long)p + n);
		file = p != g + ps || !access(path, F_OK) || errno != ENOENT;
	}
	/* Before the next mremap(): a FIXED destination may overlap them. */
	munmap(g, ps);
	munmap(g + ps + n, ps);
	if (p == MAP_FAILED)
		return -1;
	q = p;
	if (!file && (!fixed || (q = mremap(p, n, n,
					    MREMAP_MAYMOVE | MREMAP_FIXED,
					    dst)) != MAP_FAILED)) {
		*out = q;
		return 0;
	}
	return mr_move_back(p, n, old, mr_vma_at((uintptr_t)p, &v) ?
				       PROT_READ | PROT_WRITE : v.prot) ?
	       -1 : ENOMEM;
}

/* The span one page table maps: a page's worth of 8-byte entries. */
static size_t pmd_span(void)
{
	return mr_page_size() * (mr_page_size() / sizeof(uint64_t));
}

/*
 * Where a growth without FIXED takes its first step, from GROWTH_HINT_MIN
 * bytes: a place in a hole of new_size bytes and a PMD's span (mapped and
 * unmapped to find it), at the source's offset within that span.  The
 * DONTUNMAP move lands there, moving whole page tables where the
 * source's allow, and the growth then extends the mapping in place: one
 * move of the pages, where the place the kernel finds for old_size bytes
 * has a mapping right above it and the growth moves them all again.
 * Finding the hole costs two system calls, more than that second move
 * saves up to 8 MiB, less from 16 MiB (natively on 6.18, 2026-12-07:
 * `mrbench grow`, 8 and 16 MiB).  Best effort: should another thread map
 * into the hole first, the kernel places the move elsewhere and the
 * growth moves it on, as without the hint.  (The caller's own hint is not
 * passed on: mremap() refuses one that overlaps the source or is not page
 * aligned, where the contract takes any.)  NULL: no hint.
 */
#define GROWTH_HINT_MIN	(16UL << 20)

static void *growth_hint(const struct mr_req *r)
{
	const size_t pmd = pmd_span();
	char *g;

	if (r->old_size < GROWTH_HINT_MIN)
		return NULL;
	g = mmap(NULL, r->new_size + pmd, PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (g == MAP_FAILED)
		return NULL;
	munmap(g, r->new_size + pmd);
	return g + ((r->old - (uintptr_t)g) & (pmd - 1));
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

	if (kernel_checked && !claim && r->old_size == r->new_size &&
	    r->old_size < pmd_span()) {
		err = kernel_checked_move(r, fixed, dst, out);
		if (err >= 0)
			return err;
	}
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
		via = mremap(old, n, n, MREMAP_MAYMOVE | MREMAP_DONTUNMAP,
			     fixed ? NULL : growth_hint(r));
		if (via == MAP_FAILED && errno == ENOMEM && reserved && fixed &&
		    near_as_limit(n)) {
			/*
			 * No room under RLIMIT_AS for the intermediate place,
			 * where mremap() judges the growth net of what it
			 * replaces: move straight into the claimed
			 * destination, whose tail is mapped already (it stays
			 * a mapping of its own).
			 */
			p = mremap(old, n, n, MREMAP_MAYMOVE | MREMAP_DONTUNMAP |
				   MREMAP_FIXED, dst);
			if (p == MAP_FAILED) {
				err = errno;
				goto unreserve;
			}
			goto moved;
		}
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
moved:
	if (n < r->old_size)
		madvise((char *)old + n, r->old_size - n, MADV_DONTNEED);
	*out = p;
	return 0;

unreserve:
	if (reserved)
		munmap(dst, r->new_size);
	return err;
}
