/* SPDX-License-Identifier: MIT */
/*
 * test_source.c - the source rules on every host backend: EFAULT (holes;
 * several adjacent mappings move, see tests/guest/parts.c), EINVAL (file, shared, hugetlb, [vdso]/[vvar],
 * userfaultfd, also through a descriptor only another process holds), EPERM (mseal), and the anonymous kinds that are fine
 * ([heap], [stack], [anon:name]).  Also: the maps fallback agrees with
 * PROCMAP_QUERY.
 */
#include <linux/userfaultfd.h>
#include <sys/auxv.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "../tap.h"
#include "util.h"
#include "internal.h"

#ifndef PR_SET_VMA
#define PR_SET_VMA		0x53564d41
#define PR_SET_VMA_ANON_NAME	0
#endif

/* Start of the /proc/self/maps line naming name, or NULL. */
static char *find_named(const char *name, size_t *len)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	unsigned long s, e;
	char *ret = NULL;

	while (f && fgets(line, sizeof(line), f)) {
		if (strstr(line, name) && sscanf(line, "%lx-%lx", &s, &e) == 2) {
			ret = (char *)s;
			*len = e - s;
			break;
		}
	}
	if (f)
		fclose(f);
	return ret;
}

/* A call that must fail with err, leave the source's bytes, and leave a
 * FIXED destination (holding seed 9) as it was. */
static void refused(const char *bn, char *src, size_t len, int err, const char *what)
{
	char *dst;
	void *r;

	/* A source that could not be made would be refused for another
	 * reason (MAP_FAILED is not page aligned): say so instead. */
	if (src == MAP_FAILED) {
		tap_ok(0, "%s: %s: cannot make it: %s", bn, what, strerror(errno));
		return;
	}
	dst = map_anon(len, PROT_READ | PROT_WRITE);

	r = mremap_retain(src, len, 2 * len, 0);
	tap_ok(r == MAP_FAILED && errno == err, "%s: %s -> %s", bn, what, strerror(err));
	fill(dst, len, 9);
	r = mremap_retain(src, len, len, MREMAP_RETAIN_FIXED, dst);
	tap_ok(r == MAP_FAILED && errno == err && has_pattern(dst, len, 9),
	       "%s: %s, FIXED -> %s, destination untouched", bn, what, strerror(err));
	munmap(dst, len);
	/* A FIXED growth maps its destination before the move. */
	dst = map_anon(2 * len, PROT_READ | PROT_WRITE);
	fill(dst, 2 * len, 8);
	r = mremap_retain(src, len, 2 * len, MREMAP_RETAIN_FIXED, dst);
	tap_ok(r == MAP_FAILED && errno == err && has_pattern(dst, 2 * len, 8),
	       "%s: %s, FIXED growth -> %s, destination untouched", bn, what,
	       strerror(err));
	munmap(dst, 2 * len);
}

static void accepted(const char *bn, char *src, size_t len, const char *what)
{
	char *r;

	fill(src, len, 10);
	r = mremap_retain(src, len, len, 0);
	tap_ok(r != MAP_FAILED && has_pattern(r, len, 10) && is_zero(src, len),
	       "%s: %s is fine", bn, what);
	if (r != MAP_FAILED)
		munmap(r, len);
}

static void shapes(const char *bn)
{
	size_t ps = PS, len = 3 * PS;
	char *p = map_anon(len + ps, PROT_READ | PROT_WRITE);
	void *r;

	fill(p, len, 11);
	munmap(p + ps, ps);
	munmap(p + len, ps);
	r = mremap_retain(p, len, len, 0);
	tap_ok(r == MAP_FAILED && errno == EFAULT && has_pattern(p, ps, 11),
	       "%s: hole in the source -> EFAULT", bn);
	r = mremap_retain(p + ps, ps, ps, 0);
	tap_ok(r == MAP_FAILED && errno == EFAULT, "%s: unmapped source -> EFAULT", bn);
	r = mremap_retain(p + 2 * ps, 2 * ps, ps, 0);
	tap_ok(r == MAP_FAILED && errno == EFAULT, "%s: source runs past its end -> EFAULT", bn);
	munmap(p, len);

	/* Two adjacent mappings move as one, each with its protection. */
	p = map_anon(len, PROT_READ | PROT_WRITE);
	fill(p, len, 12);
	mprotect(p + 2 * ps, ps, PROT_READ);
	r = mremap_retain(p, len, len, 0);
	tap_ok(r != MAP_FAILED && has_pattern(r, len, 12) && is_zero(p, len),
	       "%s: source of two mappings (rw-p | r--p) moves as one", bn);
	if (r != MAP_FAILED)
		munmap(r, len);
	munmap(p, len);
	r = mremap_retain((void *)0xffffffffff600000UL, ps, ps, 0);
	tap_ok(r == MAP_FAILED && errno == EFAULT, "%s: [vsyscall] is no mapping of ours -> EFAULT", bn);
}

static void kinds(const char *bn)
{
	size_t len = 2 * PS, vlen;
	int fd = memfd_create("mremap_retain_test", 0);
	char *p;

	ftruncate(fd, len);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	refused(bn, p, len, EINVAL, "private file mapping");
	munmap(p, len);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	refused(bn, p, len, EINVAL, "shared file mapping");
	munmap(p, len);
	close(fd);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	refused(bn, p, len, EINVAL, "shared anonymous mapping");
	munmap(p, len);
	/* Anonymous to the kernel (mmap_zero()), but of a file: refused, as
	 * by the module. */
	fd = open("/dev/zero", O_RDWR | O_CLOEXEC);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	refused(bn, p, len, EINVAL, "private /dev/zero mapping");
	munmap(p, len);
	close(fd);

	p = mmap(NULL, 2 << 20, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_NORESERVE, -1, 0);
	if (p != MAP_FAILED) {
		refused(bn, p, 2 << 20, EINVAL, "hugetlb mapping");
		munmap(p, 2 << 20);
	} else {
		tap_skip("hugetlb: no huge pages reserved on this host");
	}

	p = (char *)getauxval(AT_SYSINFO_EHDR);
	vlen = PS;
	if (p) {
		void *r = mremap_retain(p, vlen, vlen, 0);

		tap_ok(r == MAP_FAILED && errno == EINVAL && !memcmp(p, "\177ELF", 4),
		       "%s: [vdso] -> EINVAL", bn);
	}
	p = find_named("[vvar]", &vlen);
	if (p) {
		void *r = mremap_retain(p, PS, PS, 0);

		tap_ok(r == MAP_FAILED && errno == EINVAL, "%s: [vvar] -> EINVAL", bn);
	}

	p = map_anon(len, PROT_READ | PROT_WRITE);
	if (prctl(PR_SET_VMA, PR_SET_VMA_ANON_NAME, p, len, "mr_test") == 0 &&
	    find_named("[anon:mr_test]", &vlen) == p)
		accepted(bn, p, len, "[anon:name]");
	else
		tap_skip("anonymous VMA names not supported here");
	munmap(p, len);
}

static void heap_and_stack(const char *bn)
{
	size_t len, ps = PS;
	char *brk0 = sbrk(0), *p, *stack;

	/* Whole pages inside memory we add to the heap ourselves. */
	sbrk(4 * ps);
	p = (char *)(((uintptr_t)brk0 + ps - 1) & ~(ps - 1));
	if (find_named("[heap]", &len))
		accepted(bn, p, 2 * ps, "[heap]");
	else
		tap_skip("no [heap] mapping");
	sbrk(-(intptr_t)(4 * ps));

	/* The lowest page of the main stack, far below what we use. */
	stack = find_named("[stack]", &len);
	if (stack && (char *)&len - stack > 64 * 1024)
		accepted(bn, stack, ps, "[stack]");
	else
		tap_skip("[stack] too small to borrow a page");
}

/* A userfaultfd; user-mode-only (Linux 5.11+) for an unprivileged user. */
static int make_uffd(void)
{
	int fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);

	if (fd < 0 && errno == EPERM)
		fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK | 1);
	return fd;
}

static void userfaultfd_rules(const char *bn)
{
	size_t len = 2 * PS;
	char *p = map_anon(len, PROT_READ | PROT_WRITE), *q;
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = {
		.range = { .start = (uintptr_t)p, .len = len },
		.mode = UFFDIO_REGISTER_MODE_MISSING,
	};
	int uffd = make_uffd();

	fill(p, len, 13);	/* before registering: a missing page would wait */
	if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api) || ioctl(uffd, UFFDIO_REGISTER, &reg)) {
		tap_skip("userfaultfd not available");
		if (uffd >= 0)
			close(uffd);
		munmap(p, len);
		return;
	}
	refused(bn, p, len, EINVAL, "userfaultfd-registered source");
	tap_ok(has_pattern(p, len, 13), "%s: registered source intact", bn);
	q = map_anon(len, PROT_READ | PROT_WRITE);
	accepted(bn, q, len, "unregistered source while a userfaultfd is open");
	munmap(q, len);
	/* Write-protect mode alone holds the range too, and takes no missing
	 * fault: asked also of a source never touched (no anon_vma yet). */
	q = map_anon(len, PROT_READ | PROT_WRITE);
	reg.mode = UFFDIO_REGISTER_MODE_WP;
	reg.range.start = (uintptr_t)q;
	if (ioctl(uffd, UFFDIO_REGISTER, &reg)) {
		tap_skip("userfaultfd write-protect mode not available");
	} else {
		refused(bn, q, len, EINVAL, "source registered for write-protect faults only, never touched");
		fill(q, len, 14);
		refused(bn, q, len, EINVAL, "source registered for write-protect faults only");
		tap_ok(has_pattern(q, len, 14), "%s: write-protect registered source intact", bn);
	}
	munmap(q, len);
	close(uffd);
	munmap(p, len);
}

/*
 * A range registered through a userfaultfd that this process no longer
 * holds (a child of fork() keeps the only copy, as a monitor that was
 * handed the descriptor would): still registered, still EINVAL.
 */
static void userfaultfd_elsewhere(const char *bn)
{
	size_t len = 2 * PS;
	char *p = map_anon(len, PROT_READ | PROT_WRITE);
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = {
		.range = { .start = (uintptr_t)p, .len = len },
		.mode = UFFDIO_REGISTER_MODE_MISSING,
	};
	int uffd = make_uffd();
	int hold[2], st;
	char c;
	pid_t pid;

	fill(p, len, 16);
	if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api) || ioctl(uffd, UFFDIO_REGISTER, &reg) ||
	    pipe(hold)) {
		tap_skip("userfaultfd not available");
		if (uffd >= 0)
			close(uffd);
		munmap(p, len);
		return;
	}
	pid = fork();
	if (pid == 0) {
		close(hold[1]);
		_exit(read(hold[0], &c, 1) < 0);	/* holds uffd until EOF */
	}
	close(hold[0]);
	close(uffd);
	refused(bn, p, len, EINVAL, "source registered through another process's userfaultfd");
	tap_ok(has_pattern(p, len, 16), "%s: that source intact", bn);
	close(hold[1]);
	waitpid(pid, &st, 0);
	munmap(p, len);
}

/*
 * A child forked without running pthread_atfork() handlers (a raw clone())
 * must not ask the userfaultfd that the library made in its parent: that
 * one's context is the parent's mm, which knows nothing of the child's
 * registrations.
 */
static void userfaultfd_raw_child(const char *bn)
{
	struct uffdio_api api = { .api = UFFD_API };
	size_t len = 2 * PS;
	char *p = map_anon(len, PROT_READ | PROT_WRITE);
	struct uffdio_register reg = {
		.range = { .start = (uintptr_t)p, .len = len },
		.mode = UFFDIO_REGISTER_MODE_MISSING,
	};
	int st, uffd;
	pid_t pid;

	accepted(bn, p, len, "a source moved before a raw clone()");
	fill(p, len, 13);
	pid = (pid_t)syscall(SYS_clone, SIGCHLD, NULL, NULL, NULL, NULL);
	if (!pid) {
		void *r;

		uffd = make_uffd();
		if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api) ||
		    ioctl(uffd, UFFDIO_REGISTER, &reg))
			_exit(2);
		r = mremap_retain(p, len, len, 0);
		_exit(r == MAP_FAILED && errno == EINVAL && has_pattern(p, len, 13) ? 0 : 1);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		tap_ok(0, "%s: raw clone() child: no status", bn);
	else if (WEXITSTATUS(st) == 2)
		tap_skip("userfaultfd not available");
	else
		tap_ok(WEXITSTATUS(st) == 0,
		       "%s: in a raw clone() child, a source it registered with userfaultfd -> EINVAL", bn);
	munmap(p, len);
}

/*
 * Nor the /proc/self/maps the library opened in its parent: that one lists
 * the parent's mappings, and a mapping the child made since is not there.
 */
static void maps_raw_child(const char *bn)
{
	size_t len = 2 * PS;
	char *p = map_anon(len, PROT_READ | PROT_WRITE);
	int st;
	pid_t pid;

	accepted(bn, p, len, "a source moved before a raw clone()");
	munmap(p, len);
	pid = (pid_t)syscall(SYS_clone, SIGCHLD, NULL, NULL, NULL, NULL);
	if (!pid) {
		char *q = mmap(NULL, len, PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		void *r;

		if (q == MAP_FAILED)
			_exit(2);
		r = mremap_retain(q, len, len, 0);
		_exit(r == MAP_FAILED && errno == EINVAL ? 0 : 1);
	}
	tap_ok(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	       WEXITSTATUS(st) == 0,
	       "%s: in a raw clone() child, a shared mapping it made -> EINVAL", bn);
}

/*
 * A child that closes every descriptor and opens its own files, which take
 * the numbers of the library's (the parent's /proc/self/maps and
 * userfaultfd): the library's first call in the child opens its own and
 * leaves the child's files on those numbers alone.  By fork() and by a raw
 * clone(); each child exits 0 when its files are intact and the move held
 * the bytes, 2 when the parent's descriptors could not be found.
 */
static int child_files(void)
{
	static const char *const files[] = { "/dev/zero", "/dev/null" };
	int nums[2], n = 0, fd, i, ok = 1;
	struct stat want[2], got;
	char link[64], path[32];
	size_t len = 2 * PS;
	char *p, *r;
	ssize_t l;

	for (fd = 3; fd < 1024 && n < 2; fd++) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		l = readlink(path, link, sizeof(link) - 1);
		if (l <= 0)
			continue;
		link[l] = 0;
		if (!strcmp(link, "anon_inode:[userfaultfd]") ||
		    (!strncmp(link, "/proc/", 6) && strstr(link, "/maps")))
			nums[n++] = fd;
	}
	if (n == 0)
		return 2;
	for (i = 0; i < n; i++) {
		fd = open(files[i], O_RDONLY);
		if (fd < 0 || dup2(fd, nums[i]) != nums[i] || fstat(nums[i], &want[i]))
			return 3;
		close(fd);
	}
	p = map_anon(len, PROT_READ | PROT_WRITE);
	fill(p, len, 21);
	r = mremap_retain(p, len, 2 * len, 0);
	if (r == MAP_FAILED || !has_pattern(r, len, 21))
		ok = 0;
	for (i = 0; i < n; i++)
		ok &= !fstat(nums[i], &got) && got.st_dev == want[i].st_dev &&
		      got.st_ino == want[i].st_ino;
	return ok ? 0 : 1;
}

static void child_keeps_its_files(const char *bn)
{
	size_t len = 2 * PS;
	char *p = map_anon(len, PROT_READ | PROT_WRITE);
	int how, st;
	pid_t pid;

	accepted(bn, p, len, "a source moved before the children");
	for (how = 0; how < 2; how++) {
		pid = how ? (pid_t)syscall(SYS_clone, SIGCHLD, NULL, NULL, NULL, NULL) : fork();
		if (!pid)
			_exit(child_files());
		st = -1;
		if (pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
		    WEXITSTATUS(st) == 2)
			tap_skip("no descriptor of the library's to take over");
		else
			tap_ok(pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
			       "%s: a %s child's own files on the numbers of the library's descriptors stay open (status %d)",
			       bn, how ? "raw clone()" : "fork()", st);
	}
}

/* Sealed and of a refused kind (shared; registered with userfaultfd):
 * EPERM comes first, as in mremap(). */
static void sealed_and_refused(const char *bn)
{
	struct uffdio_api api = { .api = UFFD_API };
	size_t len = 2 * PS;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct uffdio_register reg = {
		.range = { .len = len },
		.mode = UFFDIO_REGISTER_MODE_MISSING,
	};
	int uffd;

	if (p == MAP_FAILED || syscall(462, p, len, 0))
		tap_ok(0, "%s: cannot seal a shared mapping: %s", bn, strerror(errno));
	else
		refused(bn, p, len, EPERM, "sealed shared source");
	p = map_anon(len, PROT_READ | PROT_WRITE);
	fill(p, len, 13);
	reg.range.start = (uintptr_t)p;
	uffd = make_uffd();
	if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api) ||
	    ioctl(uffd, UFFDIO_REGISTER, &reg) || syscall(462, p, len, 0)) {
		tap_skip("userfaultfd not available");
	} else {
		refused(bn, p, len, EPERM, "sealed source registered with userfaultfd");
		tap_ok(has_pattern(p, len, 13), "%s: that source intact", bn);
	}
	if (uffd >= 0)
		close(uffd);
}

static void sealing(const char *bn)
{
	size_t len = 2 * PS;
	char *p = map_anon(len, PROT_READ | PROT_WRITE), *q;
	void *r;

	if (syscall(462, p, len, 0)) {
		tap_skip("mseal not supported by this kernel");
		munmap(p, len);
		return;
	}
	fill(p, len, 14);
	refused(bn, p, len, EPERM, "sealed source");
	tap_ok(has_pattern(p, len, 14), "%s: sealed source intact", bn);

	q = map_anon(len, PROT_READ | PROT_WRITE);
	fill(q, len, 15);
	r = mremap_retain(q, len, len, MREMAP_RETAIN_FIXED, p);
	tap_ok(FAILS_WITH(r, EPERM, q, len, 15) && has_pattern(p, len, 14),
	       "%s: sealed FIXED destination -> EPERM, nothing changed", bn);
	munmap(q, len);
	sealed_and_refused(bn);
}

static void fallback_agrees(void)
{
	char *p = map_anon(3 * PS, PROT_READ);
	uintptr_t addrs[] = {
		(uintptr_t)p, (uintptr_t)p + PS, (uintptr_t)sbrk(0) - 1,
		(uintptr_t)&addrs, (uintptr_t)getauxval(AT_SYSINFO_EHDR),
		(uintptr_t)fallback_agrees, (uintptr_t)PS, (uintptr_t)stdout,
	};
	int same = 0, n = sizeof(addrs) / sizeof(addrs[0]);

	for (int i = 0; i < n; i++) {
		struct mr_vma a, b;
		int ea, eb;

		memset(&a, 0, sizeof(a));
		memset(&b, 0, sizeof(b));
		ea = mr_vma_query(addrs[i], &a);
		eb = mr_vma_maps(addrs[i], &b);
		if (ea == ENOTTY) {
			tap_skip("PROCMAP_QUERY not supported by this kernel");
			return;
		}
		same += ea == eb && (ea || (a.start == b.start && a.end == b.end &&
			a.prot == b.prot && a.shared == b.shared && a.file == b.file &&
			(a.file || !strcmp(a.name, b.name))));
	}
	tap_ok(same == n, "maps fallback agrees with PROCMAP_QUERY (%d/%d)", same, n);
	munmap(p, 3 * PS);
}

int main(void)
{
	int b;

	for_each_backend(b) {
		const char *bn = mremap_retain_backend_name(b);

		shapes(bn);
		kinds(bn);
		heap_and_stack(bn);
		userfaultfd_rules(bn);
		userfaultfd_elsewhere(bn);
		userfaultfd_raw_child(bn);
		maps_raw_child(bn);
		child_keeps_its_files(bn);
		sealing(bn);
	}
	fallback_agrees();
	return tap_done();
}
