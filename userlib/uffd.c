/* SPDX-License-Identifier: MIT */
/*
 * uffd.c - is any part of a range registered with a userfaultfd?
 *
 * The kernel tells in constant time.  Where the range is one mapping and
 * the kernel answers as Linux 5.13+ does (checked once,
 * continue_probe()), the library's own userfaultfd (made once per
 * process; user-mode-only where the process may not handle kernel
 * faults) asks UFFDIO_CONTINUE of the range: the kernel looks for a
 * mapping registered with any userfaultfd covering it (ENOENT when there
 * is none) and then refuses minor-fault resolution in private anonymous
 * memory (EINVAL), changing nothing but that it may give the mapping its
 * anon_vma, as its first fault would.  One system call, nothing
 * registered, so no signal needs blocking (mr_uffd_one_registered()).
 * Asked only of a range found to be private anonymous memory, and from
 * Linux 6.4 in write-protect mode (continue_probe()), in which the kernel
 * maps no page into shared memory not registered for write-protect
 * faults.  Any other answer (ENOMEM, EAGAIN) falls back to the
 * registration below.  ENOENT also answers a range that is no longer one
 * mapping when asked: another thread that splits the source meanwhile
 * (registering part of it, say) is not seen, as one that registers it
 * just after the question is not.
 *
 * Otherwise the library's userfaultfd asks to
 * register the range for missing faults.  The kernel refuses with EBUSY
 * when another userfaultfd holds any part of it, having changed nothing;
 * otherwise the range is unregistered at once and woken, which lets any
 * fault that came in between go on (it is retried as an ordinary fault).
 * With a user-mode-only userfaultfd, a fault that the kernel takes in the
 * range meanwhile for another thread (a read(2) into it) fails with EFAULT:
 * the range is the one being moved, which no other thread may touch
 * meanwhile anyway.  (Asked the kind too, the range may be shared memory,
 * which the call then refuses: there such a read into a page not yet
 * mapped in this process fails so too, for a misuse of the call.)
 * Signals stay blocked for those calls (0.4 us on
 * the build machine): a handler of this thread, or a collector that
 * stops this thread with a signal and then scans its memory, would
 * otherwise wait on the registration for ever.
 *
 * The library makes no userfaultfd where a seccomp filter is installed
 * (the filter might kill the process for the call) or the kernel refuses
 * one.  There registration is learnt from smaps, which is read only when
 * one of the process's descriptors is a userfaultfd: that scan costs time
 * in proportion to the open descriptors and misses a registration made
 * through a userfaultfd that only another process still holds.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"

struct mr_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

#ifndef UFFDIO_REGISTER_MODE_MINOR
#define UFFDIO_REGISTER_MODE_MINOR	((uint64_t)1 << 2)
#endif
#ifndef UFFDIO_CONTINUE		/* Linux 5.13's UAPI, for older headers */
struct uffdio_continue {
	struct uffdio_range range;
	uint64_t mode;
	int64_t mapped;
};
#define UFFDIO_CONTINUE		_IOWR(UFFDIO, 0x07, struct uffdio_continue)
#define UFFDIO_CONTINUE_MODE_DONTWAKE	((uint64_t)1 << 0)
#endif
#ifndef UFFDIO_CONTINUE_MODE_WP		/* Linux 6.4 */
#define UFFDIO_CONTINUE_MODE_WP		((uint64_t)1 << 1)
#endif
#ifndef UFFD_USER_MODE_ONLY
#define UFFD_USER_MODE_ONLY	1
#endif

/* -2: not tried yet, -1: none to be had; else the descriptor, whose
 * context is the mm of the process that made it (a child must not use
 * it: forked.c).  Once made here, the number stays this process's
 * userfaultfd for good (drop_own_fd() replaces the context behind it), so
 * the fast path reads it without a lock. */
static int own_fd = -2;
static pthread_mutex_t own_lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * Held across fork(): a child forked while another thread held it would
 * find it locked for ever (a stress_short fork child, moving, hung so).
 */
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

static void own_lock_take(void)
{
	pthread_mutex_lock(&own_lock);
}

static void own_lock_give(void)
{
	pthread_mutex_unlock(&own_lock);
}

static void register_atfork(void)
{
	pthread_atfork(own_lock_take, own_lock_give, own_lock_give);
}

static int make_own_fd(void)
{
	struct uffdio_api api = { .api = UFFD_API };
	int fd;

	if (mr_seccomp_filtered())
		return -1;
	/* User-mode-only (5.11+) where kernel faults may not be handled. */
	fd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 && errno == EPERM)
		fd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK | UFFD_USER_MODE_ONLY);
	if (fd < 0)
		return -1;
	if (ioctl(fd, UFFDIO_API, &api)) {
		close(fd);
		return -1;
	}
	return fd;
}

static int get_own_fd(void)
{
	int fd;

	/* The word first: once it is set, own_fd is this process's own. */
	if (mr_fork_made_here(MR_FORK_UFFD))
		return __atomic_load_n(&own_fd, __ATOMIC_ACQUIRE);
	pthread_once(&atfork_once, register_atfork);
	pthread_mutex_lock(&own_lock);
	if (!mr_fork_made_here(MR_FORK_UFFD)) {
		mr_fork_close_inherited(MR_FORK_UFFD, own_fd);
		__atomic_store_n(&own_fd, make_own_fd(), __ATOMIC_RELEASE);
		mr_fork_mark(MR_FORK_UFFD, own_fd);
	}
	fd = own_fd;
	pthread_mutex_unlock(&own_lock);
	return fd;
}

/*
 * After an unregistration that failed: dropping the context unregisters
 * everything it holds and wakes the faults waiting on it.  Another thread
 * may be using the number at this moment, so it is not closed but made
 * to name a new context (or /dev/null, on which every ioctl fails and the
 * caller asks /proc instead); only where neither can be had is it closed.
 */
static void drop_own_fd(int fd)
{
	int nfd;

	pthread_mutex_lock(&own_lock);
	if (own_fd == fd) {
		nfd = make_own_fd();
		if (nfd < 0)
			nfd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (nfd < 0 || dup3(nfd, fd, O_CLOEXEC) < 0) {
			__atomic_store_n(&own_fd, -1, __ATOMIC_RELEASE);
			close(fd);
		}
		mr_fork_mark(MR_FORK_UFFD, own_fd);
		if (nfd >= 0)
			close(nfd);
	}
	pthread_mutex_unlock(&own_lock);
}

bool mr_link_is_uffd(int dirfd, const char *path)
{
	static const char want[] = "anon_inode:[userfaultfd]";
	char link[sizeof(want) + 1];
	ssize_t len = readlinkat(dirfd, path, link, sizeof(link));

	return len == sizeof(want) - 1 && !memcmp(link, want, len);
}

/* Does this process hold a userfaultfd?  O(descriptors). */
static bool holds_uffd(void)
{
	char buf[2048];
	bool found = false;
	long n;
	int dfd;

	dfd = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return true;	/* cannot tell: let smaps decide */
	while (!found && (n = syscall(SYS_getdents64, dfd, buf, sizeof(buf))) > 0) {
		long off = 0;

		while (off < n && !found) {
			struct mr_dirent64 *d = (void *)(buf + off);

			off += d->d_reclen;
			if (d->d_type == DT_LNK)
				found = mr_link_is_uffd(dfd, d->d_name);
		}
	}
	close(dfd);
	return found;
}

int mr_uffd_own(void)
{
	return get_own_fd();
}

void mr_uffd_unregister(int fd, uintptr_t start, size_t len)
{
	struct uffdio_range range = { .start = start, .len = len };
	int tries = 3;

	/*
	 * Unregistering wakes the faults waiting on us before it clears the
	 * VMA's flags, and a fault taken under the per-VMA lock can still
	 * queue in between: wake the range again once it is clear.  It can
	 * fail for memory (a split); dropping the context is the last resort,
	 * and no sure one: a child forked meanwhile keeps it alive.
	 */
	while (ioctl(fd, UFFDIO_UNREGISTER, &range))
		if (!--tries) {
			drop_own_fd(fd);
			return;
		}
	if (ioctl(fd, UFFDIO_WAKE, &range))
		drop_own_fd(fd);
}

int mr_uffd_register(int fd, uintptr_t start, size_t len, uint64_t *ioctls)
{
	struct uffdio_register reg = {
		.range = { .start = start, .len = len },
		.mode = UFFDIO_REGISTER_MODE_MISSING,
	};
	int err;

	if (!ioctl(fd, UFFDIO_REGISTER, &reg)) {
		if (ioctls)
			*ioctls = reg.ioctls;
		return 0;
	}
	err = errno;
	/* ENOMEM part way through several mappings leaves those before it
	 * registered; the other refusals change nothing. */
	if (err == ENOMEM)
		mr_uffd_unregister(fd, start, len);
	return err;
}

/*
 * A minor-fault registration (with the missing mode our own userfaultfd
 * holds the range for already) is refused, EINVAL with nothing changed,
 * where any part of the range is neither shmem nor hugetlbfs, before the
 * kernel looks at who holds it: so it tells private anonymous memory from
 * shared memory, which the missing mode takes too.  0 or the errno value.
 * Linux 5.14+ has the minor mode for shmem (mr_uffd_tells_shmem()).
 */
static int register_minor(int fd, uintptr_t start, size_t len)
{
	struct uffdio_register reg = {
		.range = { .start = start, .len = len },
		.mode = UFFDIO_REGISTER_MODE_MISSING | UFFDIO_REGISTER_MODE_MINOR,
	};

	return ioctl(fd, UFFDIO_REGISTER, &reg) ? errno : 0;
}

bool mr_uffd_tells_shmem(void)
{
	size_t ps = mr_page_size();
	int fd = get_own_fd();
	bool tells = false;
	void *p;

	if (fd < 0)
		return false;
	p = mmap(NULL, ps, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		 -1, 0);
	if (p == MAP_FAILED)
		return false;
	if (!mr_uffd_register(fd, (uintptr_t)p, ps, NULL)) {
		tells = !register_minor(fd, (uintptr_t)p, ps);
		mr_uffd_unregister(fd, (uintptr_t)p, ps);
	}
	munmap(p, ps);
	return tells;
}

/*
 * How UFFDIO_CONTINUE is asked here: not yet known (CONTINUE_UNKNOWN), not
 * at all (CONTINUE_NO), or with these mode bits.  With
 * UFFDIO_CONTINUE_MODE_WP (Linux 6.4+) the kernel refuses any mapping not
 * registered for write-protect faults (EINVAL) before it would look for
 * pages in shared memory or hugetlbfs: should another thread replace the
 * source with such a mapping, registered, between the lookup and the
 * question, nothing is mapped into it.
 */
#define CONTINUE_UNKNOWN	(-1LL)
#define CONTINUE_NO		(-2LL)
#define CONTINUE_TRIES		3

static long long continue_mode = CONTINUE_UNKNOWN;
static int continue_tries;

/* UFFDIO_CONTINUE of [start, start + len) with our userfaultfd: the errno
 * value. */
static int ask_continue(int fd, uintptr_t start, size_t len, uint64_t mode)
{
	struct uffdio_continue c = {
		.range = { .start = start, .len = len },
		.mode = UFFDIO_CONTINUE_MODE_DONTWAKE | mode,
	};

	return ioctl(fd, UFFDIO_CONTINUE, &c) ? errno : 0;
}

/*
 * Does this kernel answer UFFDIO_CONTINUE as mr_uffd_one_registered()
 * reads it, and with which mode?  Asked of a private page of our own
 * (between two PROT_NONE pages, so that it merges with nothing): ENOENT
 * while no userfaultfd holds it, EINVAL once a second one (made for this
 * and closed after) holds it for missing faults.  Before Linux 5.13 there
 * is no UFFDIO_CONTINUE (EINVAL for both); before 6.4, no write-protect
 * mode for it (EINVAL).  Returns the mode, CONTINUE_NO, or
 * CONTINUE_UNKNOWN where something else failed (no memory, no
 * descriptor): asked again on a later call, CONTINUE_TRIES times.
 */
static long long continue_probe(int fd)
{
	static const uint64_t modes[] = { UFFDIO_CONTINUE_MODE_WP, 0 };
	const size_t nmodes = sizeof(modes) / sizeof(modes[0]);
	long long found = CONTINUE_UNKNOWN;
	size_t ps = mr_page_size(), i;
	int other;
	char *g;

	other = make_own_fd();
	if (other < 0)
		return CONTINUE_UNKNOWN;
	g = mmap(NULL, 3 * ps, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (g != MAP_FAILED && !mprotect(g + ps, ps, PROT_READ | PROT_WRITE)) {
		uintptr_t p = (uintptr_t)g + ps;

		for (i = 0; i < nmodes && ask_continue(fd, p, ps, modes[i]) != ENOENT; i++)
			;
		if (i == nmodes)
			found = CONTINUE_NO;
		else if (!mr_uffd_register(other, p, ps, NULL))
			found = ask_continue(fd, p, ps, modes[i]) == EINVAL ?
				(long long)modes[i] : CONTINUE_NO;
	}
	if (g != MAP_FAILED)
		munmap(g, 3 * ps);
	close(other);
	return found;
}

int mr_uffd_one_registered(uintptr_t start, size_t len, bool *registered)
{
	long long mode = __atomic_load_n(&continue_mode, __ATOMIC_ACQUIRE);
	int fd = get_own_fd(), err;

	if (fd < 0 || mode == CONTINUE_NO)
		return ENOTSUP;
	/* No lock (one held across a fork would stay held in the child):
	 * threads that find it unknown at once each ask, the same answer. */
	if (mode == CONTINUE_UNKNOWN) {
		mode = continue_probe(fd);
		if (mode == CONTINUE_UNKNOWN &&
		    __atomic_add_fetch(&continue_tries, 1, __ATOMIC_RELAXED) >=
		    CONTINUE_TRIES)
			mode = CONTINUE_NO;
		if (mode != CONTINUE_UNKNOWN)
			__atomic_store_n(&continue_mode, mode, __ATOMIC_RELEASE);
		if (mode < 0)
			return ENOTSUP;
	}
	err = ask_continue(fd, start, len, (uint64_t)mode);
	if (err != ENOENT && err != EINVAL)
		return ENOTSUP;
	*registered = err == EINVAL;
	return 0;
}

int mr_uffd_registered(uintptr_t start, size_t len, bool *registered,
		       bool *shared)
{
	unsigned int vmf;
	int fd = get_own_fd(), err;
	struct mr_vma v;
	uintptr_t addr;

	if (shared)
		*shared = true;
	if (fd >= 0) {
		sigset_t all, old;
		int rc;

		/* No handler of this thread, and no stop-the-world reader of
		 * the range while a signal holds this thread, may fault there
		 * before the range is clear again: it would wait for ever. */
		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, &old);
		rc = mr_uffd_register(fd, start, len, NULL);
		if (!rc && shared)
			*shared = register_minor(fd, start, len) != EINVAL;
		if (!rc)
			mr_uffd_unregister(fd, start, len);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		if (!rc || rc == EBUSY) {
			*registered = rc != 0;
			return 0;
		}
		/* Anything else (ENOMEM, EAGAIN; EINVAL for a file's
		 * mapping): ask /proc instead. */
	}
	/* Not where the kind was asked too: only /proc would tell it. */
	if (shared)
		return ENOTSUP;
	if (!holds_uffd()) {
		*registered = false;
		return 0;
	}
	/* Each mapping of the range has its own VmFlags. */
	*registered = false;
	for (addr = start; addr < start + len && !*registered; addr = v.end) {
		err = mr_vma_at(addr, &v);
		if (!err)
			err = mr_vmflags(addr, &vmf);
		if (err)
			return err == ENOMEM ? ENOMEM : ENOTSUP;
		*registered = vmf & MR_VMF_UFFD;
	}
	return 0;
}
