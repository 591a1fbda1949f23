// SPDX-License-Identifier: MIT
/*
 * errno.c - every row of SPEC's errno table, for every backend, and after
 * each failure: nothing has changed (/proc/self/maps identical, the
 * source's bytes intact, no destination left).
 *
 * Rows that change a global sysctl (vm.max_map_count, vm.overcommit_*,
 * vm.nr_hugepages) run only in the guest as root; they restore the value
 * right after the call and are skipped with MREMAP_RETAIN_TEST_HOST=1.
 */
#include <linux/userfaultfd.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/auxv.h>

#include "testlib.h"

static struct tl_snap before, after;

/*
 * The call and its checks: fails with want, and nothing changed.
 * chk/chklen/seed: a range that must still hold pattern seed (or NULL).
 * restore(): run right after the call, before anything else (sysctls).
 */
static void expect(const char *what, int want, void *old, size_t os,
		   size_t ns, int flags, void *na, const void *chk,
		   size_t chklen, uint64_t seed, void (*restore)(void))
{
	void *r;
	int e, same, intact;

	tl_snapshot(&before);
	errno = 0;
	r = mremap_retain(old, os, ns, flags, na);
	e = errno;
	if (restore)
		restore();
	tl_snapshot(&after);
	tap_ok(r == MAP_FAILED && e == want, "[%s] %s: fails with %s (got %s)",
	       BN, what, tl_errname(want),
	       r == MAP_FAILED ? tl_errname(e) : "success");
	same = tl_snap_equal(&before, &after);
	intact = !chk || tl_check(chk, chklen, seed);
	tap_ok(same && intact,
	       "[%s] %s: nothing changed (maps %s, source bytes %s)", BN, what,
	       same ? "identical" : "CHANGED", intact ? "intact" : "CHANGED");
}

static char *src_map(size_t len, uint64_t seed)
{
	char *p = tl_map(len, PROT_READ | PROT_WRITE);

	tl_fill(p, len, seed);
	return p;
}

/* ---- EINVAL ---- */

static void t_einval_args(void)
{
	size_t os = 4 * ps;
	char *src = src_map(os, 1), *fr = tl_free_range(8 * ps);

	expect("unaligned old_address", EINVAL, src + 1, 2 * ps, 4 * ps, 0,
	       NULL, src, os, 1, NULL);
	expect("old_size 0", EINVAL, src, 0, 4 * ps, 0, NULL, src, os, 1, NULL);
	expect("new_size 0", EINVAL, src, os, 0, 0, NULL, src, os, 1, NULL);
	expect("unknown flag 0x4", EINVAL, src, os, 8 * ps, 0x4, NULL, src, os,
	       1, NULL);
	expect("unknown flag 0x40000000", EINVAL, src, os, 8 * ps,
	       0x40000000 | MREMAP_RETAIN_FIXED, fr, src, os, 1, NULL);
	expect("NOREPLACE without FIXED", EINVAL, src, os, 8 * ps,
	       MREMAP_RETAIN_NOREPLACE, NULL, src, os, 1, NULL);
	expect("FIXED with unaligned new_address", EINVAL, src, os, 8 * ps,
	       MREMAP_RETAIN_FIXED, fr + 100, src, os, 1, NULL);
	expect("FIXED destination equal to the source", EINVAL, src, os, os,
	       MREMAP_RETAIN_FIXED, src, src, os, 1, NULL);
	expect("FIXED destination overlapping the source's end", EINVAL, src,
	       os, 8 * ps, MREMAP_RETAIN_FIXED, src + ps, src, os, 1, NULL);
	expect("FIXED destination overlapping the source's start", EINVAL,
	       src, os, 8 * ps, MREMAP_RETAIN_FIXED, src - 7 * ps, src, os, 1,
	       NULL);
	munmap(src, os);
}

static void t_einval_file(void)
{
	size_t len = 4 * ps;
	int fd = memfd_create("mremap_retain_test", MFD_CLOEXEC);
	static const char *dirs[] = { "/tmp", "/var/tmp", "/root", "." };
	char path[256];
	char *p;
	unsigned i;

	if (fd < 0 || ftruncate(fd, len)) {
		tap_ok(0, "[%s] memfd setup: %s", BN, strerror(errno));
	} else {
		p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
		tl_fill(p, len, 2);
		expect("file-backed MAP_PRIVATE source (memfd)", EINVAL, p,
		       len, 2 * len, 0, NULL, p, len, 2, NULL);
		munmap(p, len);
	}
	if (fd >= 0)
		close(fd);

	/* Anonymous to the kernel (mmap_zero()), but of a file. */
	fd = open("/dev/zero", O_RDWR | O_CLOEXEC);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	if (fd < 0 || p == MAP_FAILED) {
		tap_ok(0, "[%s] /dev/zero setup: %s", BN, strerror(errno));
	} else {
		char *dst = src_map(len, 5);

		tl_fill(p, len, 4);
		expect("MAP_PRIVATE source of /dev/zero", EINVAL, p, len, len,
		       0, NULL, p, len, 4, NULL);
		expect("MAP_PRIVATE source of /dev/zero, FIXED", EINVAL, p, len,
		       len, MREMAP_RETAIN_FIXED, dst, p, len, 4, NULL);
		tap_ok(tl_check(dst, len, 5),
		       "[%s] MAP_PRIVATE source of /dev/zero, FIXED: destination untouched",
		       BN);
		munmap(dst, len);
		munmap(p, len);
	}
	if (fd >= 0)
		close(fd);

	fd = -1;
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]) && fd < 0; i++) {
		snprintf(path, sizeof(path), "%s/mremap_retain_testXXXXXX",
			 dirs[i]);
		fd = mkstemp(path);
	}
	if (fd < 0 || ftruncate(fd, len)) {
		tl_skipf("[%s] file-backed source on a regular file: no "
			 "writable directory (%s)", BN, strerror(errno));
	} else {
		unlink(path);
		p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
		tl_fill(p, len, 3);
		expect("file-backed MAP_PRIVATE source (regular file)", EINVAL,
		       p, len, 2 * len, 0, NULL, p, len, 3, NULL);
		munmap(p, len);
	}
	if (fd >= 0)
		close(fd);
}

static void t_einval_shared(void)
{
	size_t len = 4 * ps;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	tl_fill(p, len, 4);
	expect("MAP_SHARED anonymous source", EINVAL, p, len, 2 * len, 0, NULL,
	       p, len, 4, NULL);
	expect("MAP_SHARED anonymous source, same size", EINVAL, p, len, len,
	       0, NULL, p, len, 4, NULL);
	munmap(p, len);
}

static char hp_saved[32];
static int hp_changed;

static void t_einval_hugetlb(void)
{
	size_t len = 2 << 20;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);

	if (p == MAP_FAILED && !hp_changed && !tl_host && geteuid() == 0 &&
	    !tl_read_sys("/proc/sys/vm/nr_hugepages", hp_saved,
			 sizeof(hp_saved))) {
		char v[32];

		snprintf(v, sizeof(v), "%ld", atol(hp_saved) + 2);
		if (!tl_write_sys("/proc/sys/vm/nr_hugepages", v))
			hp_changed = 1;
		p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	}
	if (p == MAP_FAILED) {
		tl_skipf("[%s] hugetlb source: MAP_HUGETLB of 2 MiB failed (%s)%s",
			 BN, strerror(errno),
			 tl_host ? "; host mode: nr_hugepages not changed" :
			 geteuid() ? "; not root, cannot reserve" : "");
		return;
	}
	tl_fill(p, len, 5);
	expect("hugetlb source", EINVAL, p, len, 2 * len, 0, NULL, p, len, 5,
	       NULL);
	munmap(p, len);
}

static void t_einval_vdso(void)
{
	char *v = (char *)getauxval(AT_SYSINFO_EHDR);
	static char copy[1 << 16];
	uintptr_t s, e;
	char perms[5];

	if (!v || !tl_vma(v, &s, &e, perms) || e - s > sizeof(copy)) {
		tl_skipf("[%s] [vdso] source: no vDSO found", BN);
		return;
	}
	memcpy(copy, (void *)s, e - s);
	expect("[vdso] source", EINVAL, (void *)s, e - s, e - s, 0, NULL, copy,
	       0, 0, NULL);
	tap_ok(!memcmp(copy, (void *)s, e - s), "[%s] [vdso] bytes unchanged",
	       BN);
}

static void t_einval_uffd(void)
{
	size_t len = 4 * ps;
	char *p = src_map(len, 6);
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = {
		.range = { .start = (uintptr_t)p, .len = len },
		.mode = UFFDIO_REGISTER_MODE_MISSING,
	};
	int fd, e1;

	fd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	e1 = errno;
	if (fd < 0)	/* UFFD_USER_MODE_ONLY (5.11+) for unprivileged use */
		fd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK | 1);
	if (fd < 0) {
		tl_skipf("[%s] userfaultfd-registered source: userfaultfd: %s / "
			 "user-mode-only: %s", BN, strerror(e1), strerror(errno));
		munmap(p, len);
		return;
	}
	if (ioctl(fd, UFFDIO_API, &api) || ioctl(fd, UFFDIO_REGISTER, &reg)) {
		tap_ok(0, "[%s] userfaultfd register: %s", BN, strerror(errno));
		close(fd);
		munmap(p, len);
		return;
	}
	/* Checked with uffd still open: pages are present, reads don't block. */
	expect("userfaultfd-registered source", EINVAL, p, len, 2 * len, 0,
	       NULL, p, len, 6, NULL);
	close(fd);
	tap_ok(tl_check(p, len, 6),
	       "[%s] userfaultfd source: bytes intact after unregistering", BN);
	munmap(p, len);
}

/* ---- EFAULT ---- */

static void t_efault(void)
{
	size_t len = 4 * ps;
	char *p;

	p = src_map(len, 7);
	munmap(p + 2 * ps, ps);
	expect("hole inside the source range", EFAULT, p, len, 2 * len, 0,
	       NULL, p, 2 * ps, 7, NULL);
	tap_ok(tl_check_range(p, 3 * ps, 4 * ps, 7),
	       "[%s] hole: last page intact", BN);
	munmap(p, len);

	p = src_map(len, 8);
	munmap(p + 2 * ps, 2 * ps);
	expect("source range running past the mapping's end", EFAULT, p, len,
	       2 * len, 0, NULL, p, 2 * ps, 8, NULL);
	munmap(p, len);

	p = tl_free_range(len);
	expect("source range not mapped at all", EFAULT, p, len, 2 * len, 0,
	       NULL, NULL, 0, 0, NULL);

	/* (A source of several adjacent mappings moves: parts.c.) */
}

/* ---- EEXIST ---- */

static void t_eexist(void)
{
	size_t len = 4 * ps;
	char *p = src_map(len, 10), *d = src_map(2 * len, 11);

	expect("NOREPLACE onto a mapped destination", EEXIST, p, len, 2 * len,
	       MREMAP_RETAIN_FIXED | MREMAP_RETAIN_NOREPLACE, d, p, len, 10,
	       NULL);
	tap_ok(tl_check(d, 2 * len, 11), "[%s] EEXIST: occupant intact", BN);
	/* Only the last page of the destination is occupied. */
	munmap(d, 2 * len - ps);
	expect("NOREPLACE onto a partly mapped destination", EEXIST, p, len,
	       2 * len, MREMAP_RETAIN_FIXED | MREMAP_RETAIN_NOREPLACE, d, p,
	       len, 10, NULL);
	tap_ok(tl_check_range(d, 2 * len - ps, 2 * len, 11) &&
	       !tl_vma(d, NULL, NULL, NULL),
	       "[%s] EEXIST partial: occupant intact, free part still free", BN);
	munmap(d, 2 * len);
	munmap(p, len);
}

/* ---- ENOMEM ---- */

static int child_rlimit_as(void *arg, char *msg, size_t cap)
{
	size_t len = 16 * ps;
	char *p = src_map(len, 12);
	long vm = tl_status_kb("VmSize");
	struct rlimit rl;
	void *r;
	int e;

	(void)arg;
	rl.rlim_cur = rl.rlim_max = vm * 1024 + 8 * ps;
	if (setrlimit(RLIMIT_AS, &rl))
		return snprintf(msg, cap, "setrlimit: %s", strerror(errno)), 1;
	tl_snapshot(&before);
	r = mremap_retain(p, len, 64 * ps, 0, NULL);
	e = errno;
	tl_snapshot(&after);
	if (r != MAP_FAILED || e != ENOMEM)
		return snprintf(msg, cap, "got %s",
				r == MAP_FAILED ? tl_errname(e) : "success"), 1;
	if (!tl_snap_equal(&before, &after))
		return snprintf(msg, cap, "maps changed"), 1;
	if (!tl_check(p, len, 12))
		return snprintf(msg, cap, "source bytes changed"), 1;
	return 0;
}

static char mmc_saved[32];

static void mmc_restore(void)
{
	tl_write_sys("/proc/sys/vm/max_map_count", mmc_saved);
}

static char oc_mem[32], oc_ratio[32], oc_kbytes[32];

static void oc_restore(void)
{
	tl_write_sys("/proc/sys/vm/overcommit_memory", oc_mem);
	if (atol(oc_kbytes))
		tl_write_sys("/proc/sys/vm/overcommit_kbytes", oc_kbytes);
	else
		tl_write_sys("/proc/sys/vm/overcommit_ratio", oc_ratio);
}

static char *frag;		/* many small mappings, for max_map_count */
static size_t frag_len;

static void t_enomem(void)
{
	size_t len = 4 * ps;
	char *p = src_map(len, 13);
	char msg[512], v[32];
	int rc, n;

	expect("destination larger than the address space (1 PiB)", ENOMEM, p,
	       len, (size_t)1 << 50, 0, NULL, p, len, 13, NULL);

	rc = tl_child(child_rlimit_as, NULL, msg, sizeof(msg));
	tap_ok(rc == 0, "[%s] RLIMIT_AS: ENOMEM, nothing changed (child) %s",
	       BN, msg);

	if (tl_host || geteuid()) {
		tl_skipf("[%s] vm.max_map_count: %s", BN,
			 tl_host ? "host mode, global sysctl not changed" :
			 "needs root");
		tl_skipf("[%s] overcommit refused: %s", BN,
			 tl_host ? "host mode, global sysctl not changed" :
			 "needs root");
		munmap(p, len);
		return;
	}

	/*
	 * vm.max_map_count: this process owns about 2000 mappings (more than
	 * any other process in the guest); the limit is set just below its
	 * count, so no new mapping can be made.
	 */
	if (!frag) {
		size_t i;

		frag_len = 2000 * ps;
		frag = tl_map(frag_len, PROT_READ | PROT_WRITE);
		for (i = 0; i < frag_len; i += 2 * ps)
			mprotect(frag + i, ps, PROT_READ);
	}
	if (tl_read_sys("/proc/sys/vm/max_map_count", mmc_saved,
			sizeof(mmc_saved))) {
		tap_ok(0, "[%s] read vm.max_map_count", BN);
	} else {
		/* n lines; map_count may be n - 1 ([vsyscall] is no VMA) */
		n = tl_count_maps();
		snprintf(v, sizeof(v), "%d", n - 3);
		if (tl_write_sys("/proc/sys/vm/max_map_count", v)) {
			tap_ok(0, "[%s] write vm.max_map_count: %s", BN,
			       strerror(errno));
		} else {
			expect("vm.max_map_count reached", ENOMEM, p, len,
			       2 * len, 0, NULL, p, len, 13, mmc_restore);
		}
		mmc_restore();
	}

	if (tl_read_sys("/proc/sys/vm/overcommit_memory", oc_mem, sizeof(oc_mem)) ||
	    tl_read_sys("/proc/sys/vm/overcommit_ratio", oc_ratio, sizeof(oc_ratio)) ||
	    tl_read_sys("/proc/sys/vm/overcommit_kbytes", oc_kbytes, sizeof(oc_kbytes))) {
		tap_ok(0, "[%s] read vm.overcommit_*", BN);
	} else if (tl_write_sys("/proc/sys/vm/overcommit_ratio", "0") ||
		   tl_write_sys("/proc/sys/vm/overcommit_memory", "2")) {
		oc_restore();
		tap_ok(0, "[%s] write vm.overcommit_*: %s", BN, strerror(errno));
	} else {
		/* CommitLimit is now swap only: any new commit is refused. */
		expect("overcommit refused (overcommit_memory=2, ratio 0)",
		       ENOMEM, p, len, 16 * len, 0, NULL, p, len, 13,
		       oc_restore);
	}
	munmap(p, len);
}

/* ---- EAGAIN ---- */

static int child_memlock(void *arg, char *msg, size_t cap)
{
	size_t len = 4 * ps;
	char *p = src_map(len, 14);
	struct rlimit rl;
	long lck;
	void *r;
	int e;

	(void)arg;
	if (mlock(p, len))
		return snprintf(msg, cap, "mlock: %s", strerror(errno)), 2;
	lck = tl_status_kb("VmLck");
	rl.rlim_cur = rl.rlim_max = lck * 1024 + 8 * ps;
	if (setrlimit(RLIMIT_MEMLOCK, &rl))
		return snprintf(msg, cap, "setrlimit: %s", strerror(errno)), 1;
	if (geteuid() == 0) {
		/* Drop CAP_IPC_LOCK with every other capability. */
		if (setresgid(1000, 1000, 1000) || setresuid(1000, 1000, 1000))
			return snprintf(msg, cap, "setresuid: %s",
					strerror(errno)), 1;
		prctl(PR_SET_DUMPABLE, 1);
	}
	tl_snapshot(&before);
	r = mremap_retain(p, len, 64 * ps, 0, NULL);
	e = errno;
	tl_snapshot(&after);
	if (r != MAP_FAILED || e != EAGAIN)
		return snprintf(msg, cap, "got %s",
				r == MAP_FAILED ? tl_errname(e) : "success"), 1;
	if (!tl_snap_equal(&before, &after))
		return snprintf(msg, cap, "maps changed"), 1;
	if (!tl_check(p, len, 14))
		return snprintf(msg, cap, "source bytes changed"), 1;
	if (tl_status_kb("VmLck") != lck || !tl_smaps_flag(p, "lo"))
		return snprintf(msg, cap, "locking changed: VmLck %ld -> %ld",
				lck, tl_status_kb("VmLck")), 1;
	return 0;
}

static void t_eagain(void)
{
	char msg[512];
	int rc = tl_child(child_memlock, NULL, msg, sizeof(msg));

	if (rc == 2)
		tl_skipf("[%s] EAGAIN (locked source past RLIMIT_MEMLOCK): %s",
			 BN, msg);
	else
		tap_ok(rc == 0,
		       "[%s] locked source grown past RLIMIT_MEMLOCK: EAGAIN, "
		       "nothing changed, still locked (child) %s", BN, msg);
}

/* ---- EPERM ---- */

static void t_eperm(void)
{
	size_t len = 4 * ps;
	char *p = src_map(len, 15), *d;

	if (tl_mseal(p, len)) {
		tl_skipf("[%s] EPERM (sealed source / destination): mseal: %s%s",
			 BN, strerror(errno),
			 errno == ENOSYS ? " (kernel before 6.10)" : "");
		tl_skipf("[%s] EPERM sealed FIXED destination: no mseal", BN);
		munmap(p, len);
		return;
	}
	expect("sealed source", EPERM, p, len, 2 * len, 0, NULL, p, len, 15,
	       NULL);
	expect("sealed source, same size", EPERM, p, len, len, 0, NULL, p, len,
	       15, NULL);
	/* sealed memory stays mapped: leaked on purpose */

	p = src_map(len, 16);
	d = src_map(2 * len, 17);
	if (tl_mseal(d, 2 * len)) {
		tap_ok(0, "[%s] mseal destination: %s", BN, strerror(errno));
		return;
	}
	expect("sealed FIXED destination", EPERM, p, len, 2 * len,
	       MREMAP_RETAIN_FIXED, d, p, len, 16, NULL);
	tap_ok(tl_check(d, 2 * len, 17),
	       "[%s] sealed destination: contents intact", BN);
	munmap(p, len);

	/* Sealed and of the wrong kind: EPERM first, as mremap() has it. */
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		 -1, 0);
	if (p == MAP_FAILED || tl_mseal(p, len)) {
		tap_ok(0, "[%s] mseal a shared mapping: %s", BN, strerror(errno));
		return;
	}
	tl_fill(p, len, 18);
	expect("sealed MAP_SHARED source", EPERM, p, len, 2 * len, 0, NULL,
	       p, len, 18, NULL);
}

/* ---- ENOTSUP ---- */

/* In the re-executed child: the forced backend is unavailable. */
static int enotsup_child(void)
{
	size_t len = 4 * ps;
	char *p = src_map(len, 18);
	void *r;
	int e;

	tl_snapshot(&before);
	errno = 0;
	r = mremap_retain(p, len, 2 * len, 0, NULL);
	e = errno;
	tl_snapshot(&after);
	if (r != MAP_FAILED || e != ENOTSUP) {
		printf("# child: mremap_retain with forced unavailable backend: %s\n",
		       r == MAP_FAILED ? tl_errname(e) : "success");
		return 1;
	}
	if (!tl_snap_equal(&before, &after) || !tl_check(p, len, 18)) {
		printf("# child: something changed on ENOTSUP\n");
		return 2;
	}
	errno = 0;
	r = mremap_retain(p, len, len, 0, NULL);
	if (r != MAP_FAILED || errno != ENOTSUP) {
		printf("# child: second call: %s\n", tl_errname(errno));
		return 3;
	}
	errno = 0;
	if (mremap_retain_set_backend(MREMAP_RETAIN_BACKEND_MODULE) != -1 ||
	    errno != ENOTSUP) {
		printf("# child: set_backend(module) without the device: %s\n",
		       tl_errname(errno));
		return 4;
	}
	return 0;
}

static void t_enotsup(char *self)
{
	int st;
	pid_t pid;
	char *argv[] = { self, "--enotsup-child", NULL };
	int hide = access("/dev/" "mremap_retain", F_OK) == 0;

	if (hide && geteuid()) {
		tl_skipf("ENOTSUP: module device present and not root: "
			 "cannot hide it in a mount namespace");
		return;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		if (hide) {
			/* A private /dev without the device node. */
			if (unshare(CLONE_NEWNS) ||
			    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
			    mount("none", "/dev", "tmpfs", 0, "size=64k")) {
				printf("# child: hide /dev: %s\n",
				       strerror(errno));
				_exit(10);
			}
		}
		setenv("MREMAP_RETAIN_BACKEND", "module", 1);
		execv("/proc/self/exe", argv);
		printf("# child: exec: %s\n", strerror(errno));
		_exit(11);
	}
	waitpid(pid, &st, 0);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 10)
		tl_skipf("ENOTSUP: cannot hide /dev/mremap_retain in a mount "
			 "namespace");
	else
		tap_ok(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		       "MREMAP_RETAIN_BACKEND=module without the device: every "
		       "call fails with ENOTSUP, nothing changed (status %#x)", st);
}

static void run_backend(void)
{
	t_einval_args();
	t_einval_file();
	t_einval_shared();
	t_einval_hugetlb();
	t_einval_vdso();
	t_einval_uffd();
	t_efault();
	t_eexist();
	t_enomem();
	t_eagain();
	t_eperm();
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--enotsup-child")) {
		ps = sysconf(_SC_PAGESIZE);
		return enotsup_child();
	}
	tl_start("errno");
	tl_run("errno table", run_backend);
	if (hp_changed)
		tl_write_sys("/proc/sys/vm/nr_hugepages", hp_saved);
	if (frag)
		munmap(frag, frag_len);
	t_enotsup(argv[0]);
	return tap_done();
}
