// SPDX-License-Identifier: MIT
/*
 * decommit.c - the module's DECOMMIT ioctl and mremap_retain_decommit() on
 * top of it: the release itself (protection, contents, residency, mapping
 * layout and accounting the same as mprotect(PROT_NONE) + MADV_DONTNEED),
 * its errno with nothing changed, the mappings it hands back to user space
 * (EOPNOTSUPP) and the library's fallback for them.
 */
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <linux/userfaultfd.h>

#include <mremap_retain/ioctl.h>

#include "testlib.h"

#define DEV "/dev/" MREMAP_RETAIN_DEVICE_NAME

static int dev_fd = -1;

static int dc_ioctl(void *addr, size_t len, uint64_t reserved)
{
	struct mremap_retain_decommit d = {
		.addr = (uintptr_t)addr,
		.size = len,
		.reserved = reserved,
	};

	errno = 0;
	return ioctl(dev_fd, MREMAP_RETAIN_IOC_DECOMMIT, &d) ? errno : 0;
}

static const char *rc_name(int rc)
{
	return rc ? tl_errname(rc) : "success";
}

/* Released: no access, nothing resident, zero once writable again. */
static int released(char *p, size_t len)
{
	size_t i;
	int ok = tl_resident_pages(p, len) == 0;

	for (i = 0; i < len; i += ps)
		ok &= !tl_can_read(p + i);
	if (mprotect(p, len, PROT_READ | PROT_WRITE))
		return 0;
	return ok && tl_zero(p, len);
}

static void t_info(void)
{
	struct mremap_retain_info info = { 0 };

	dev_fd = open(DEV, O_RDWR | O_CLOEXEC);
	if (dev_fd < 0 && tl_host)
		return;
	if (!tap_ok(dev_fd >= 0, DEV " opens (%s)",
		    dev_fd < 0 ? strerror(errno) : "ok"))
		return;
	errno = 0;
	if (ioctl(dev_fd, MREMAP_RETAIN_IOC_INFO, &info))
		tap_ok(0, "INFO: %s", strerror(errno));
	else
		tap_ok(info.features & MREMAP_RETAIN_FEAT_DECOMMIT,
		       "INFO: features %#x has FEAT_DECOMMIT", info.features);
}

/* The middle chunk of three, as an allocator releases it. */
static void t_basic(void)
{
	char *p = tl_map(12 * ps, PROT_READ | PROT_WRITE);
	int n0, rc;

	tl_fill(p, 12 * ps, 1);
	n0 = tl_count_maps();
	rc = dc_ioctl(p + 4 * ps, 4 * ps, 0);
	tap_ok(rc == 0, "DECOMMIT of a middle chunk (%s)", rc_name(rc));
	tap_ok(!strcmp(tl_perms(p + 4 * ps), "---p") &&
	       !strcmp(tl_perms(p), "rw-p") && !strcmp(tl_perms(p + 8 * ps), "rw-p"),
	       "chunk PROT_NONE, neighbours rw");
	tap_ok(tl_count_maps() == n0 + 2, "split into three mappings, as mprotect");
	tap_ok(released(p + 4 * ps, 4 * ps),
	       "chunk faults, holds no pages, reads zero after mprotect");
	tap_ok(tl_check_range(p, 0, 4 * ps, 1) && tl_check_range(p, 8 * ps, 12 * ps, 1),
	       "neighbours intact");
	tl_fill(p + 4 * ps, 4 * ps, 2);
	tap_ok(tl_count_maps() == n0, "reused chunk merged back with its neighbours");
	tap_ok(tl_check(p + 4 * ps, 4 * ps, 2), "reused chunk holds new data");

	/* Two neighbouring chunks released one after the other merge. */
	rc = dc_ioctl(p + 2 * ps, 2 * ps, 0) ?: dc_ioctl(p + 4 * ps, 2 * ps, 0);
	tap_ok(rc == 0 && tl_count_maps() == n0 + 2,
	       "adjacent releases merge into one PROT_NONE mapping (%s, %d maps)",
	       rc_name(rc), tl_count_maps() - n0);
	munmap(p, 12 * ps);
}

/* A range over mappings of different protection. */
static void t_multi(void)
{
	char *p = tl_map(8 * ps, PROT_READ | PROT_WRITE);
	int rc;

	tl_fill(p, 8 * ps, 3);
	mprotect(p + 4 * ps, 4 * ps, PROT_READ);
	rc = dc_ioctl(p + 2 * ps, 4 * ps, 0);
	tap_ok(rc == 0 && !strcmp(tl_perms(p + 2 * ps), "---p") &&
	       !strcmp(tl_perms(p + 4 * ps), "---p") &&
	       !strcmp(tl_perms(p + 6 * ps), "r--p"),
	       "range over rw and r mappings: both parts PROT_NONE (%s)", rc_name(rc));
	tap_ok(released(p + 2 * ps, 4 * ps) && tl_check_range(p, 0, 2 * ps, 3) &&
	       tl_check_range(p, 6 * ps, 8 * ps, 3),
	       "both parts released, the rest intact");
	munmap(p, 8 * ps);
}

/* The same end state as mprotect(PROT_NONE) + MADV_DONTNEED. */
static void t_same_as_syscalls(void)
{
	size_t len = 64 * ps;
	char *a = tl_map(len, PROT_READ | PROT_WRITE);
	char *b = tl_map(len, PROT_READ | PROT_WRITE);
	long data0, data1, data2, c0, c1, c2, ra, rb;
	int rc;

	tl_fill(a, len, 4);
	tl_fill(b, len, 4);
	tl_committed_settle();
	data0 = tl_status_kb("VmData");
	c0 = tl_committed_exact_kb();
	rc = dc_ioctl(a + 16 * ps, 32 * ps, 0);
	data1 = tl_status_kb("VmData");
	c1 = tl_committed_exact_kb();
	mprotect(b + 16 * ps, 32 * ps, PROT_NONE);
	madvise(b + 16 * ps, 32 * ps, MADV_DONTNEED);
	data2 = tl_status_kb("VmData");
	c2 = tl_committed_exact_kb();
	tap_ok(rc == 0, "DECOMMIT of 32 pages of 64 (%s)", rc_name(rc));
	/* smaps counts page tables; VmRSS lags behind before 6.2. */
	ra = tl_smaps_kb(a + 16 * ps, "Rss");
	rb = tl_smaps_kb(b + 16 * ps, "Rss");
	tap_ok(ra == 0 && rb == 0, "released range has no Rss (%ld, system "
	       "calls %ld kB)", ra, rb);
	tap_ok(data1 - data0 == data2 - data1,
	       "VmData falls as with the system calls (%ld vs %ld kB)",
	       data1 - data0, data2 - data1);
	tap_ok(c0 >= 0 && c1 >= 0 && c2 >= 0 &&
	       labs((c1 - c0) - (c2 - c1)) <= 8,
	       "Committed_AS moves as with the system calls (%ld vs %ld kB)",
	       c1 - c0, c2 - c1);
	{
		uintptr_t as, ae, bs, be;

		tl_vma(a + 16 * ps, &as, &ae, NULL);
		tl_vma(b + 16 * ps, &bs, &be, NULL);
		tap_ok(as - (uintptr_t)a == bs - (uintptr_t)b &&
		       ae - (uintptr_t)a == be - (uintptr_t)b,
		       "same mapping boundaries as with the system calls");
	}
	munmap(a, len);
	munmap(b, len);
}

/* One bad request: its errno, and nothing changed. */
static void expect_fail(const char *what, int want, char *base, size_t blen,
			void *addr, size_t len, uint64_t reserved)
{
	static struct tl_snap s0, s1;
	int rc;

	tl_snapshot(&s0);
	rc = dc_ioctl(addr, len, reserved);
	tl_snapshot(&s1);
	tap_ok(rc == want, "DECOMMIT %s: %s (%s)", what, tl_errname(want),
	       rc_name(rc));
	tap_ok(tl_snap_equal(&s0, &s1) && (!base || tl_check(base, blen, 5)),
	       "DECOMMIT %s: nothing changed", what);
}

/* More parts than the module keeps on its stack (8): 20 mappings. */
static void t_many(void)
{
	char *p = tl_map(24 * ps, PROT_READ | PROT_WRITE);
	int i, rc, ok = 1;

	tl_fill(p, 24 * ps, 4);
	for (i = 2; i < 22; i += 2)
		mprotect(p + i * ps, ps, PROT_READ);
	rc = dc_ioctl(p + 2 * ps, 20 * ps, 0);
	for (i = 2; i < 22; i++)
		ok &= !strcmp(tl_perms(p + i * ps), "---p");
	tap_ok(rc == 0 && ok, "range over 20 mappings: every part PROT_NONE (%s)",
	       rc_name(rc));
	tap_ok(released(p + 2 * ps, 20 * ps) && tl_check_range(p, 0, 2 * ps, 4) &&
	       tl_check_range(p, 22 * ps, 24 * ps, 4),
	       "20 parts released, the rest intact");
	munmap(p + 10 * ps, ps);
	expect_fail("over 20 mappings with a hole", ENOMEM, NULL, 0, p + 2 * ps,
		    20 * ps, 0);
	munmap(p, 24 * ps);
}

static void t_errors(void)
{
	char *p = tl_map(8 * ps, PROT_READ | PROT_WRITE);
	struct mremap_retain_decommit *bad = (void *)tl_free_range(ps);
	int rc;

	tl_fill(p, 8 * ps, 5);
	expect_fail("with reserved != 0", EINVAL, p, 8 * ps, p, ps, 1);
	expect_fail("of an unaligned address", EINVAL, p, 8 * ps, p + 1, ps, 0);
	expect_fail("of size 0", EINVAL, p, 8 * ps, p, 0, 0);
	expect_fail("beyond the address space", ENOMEM, p, 8 * ps, p,
		    (size_t)1 << 62, 0);
	munmap(p + 4 * ps, ps);
	expect_fail("over a hole", ENOMEM, NULL, 0, p, 8 * ps, 0);
	tap_ok(tl_check(p, 4 * ps, 5) && tl_check_range(p, 5 * ps, 8 * ps, 5),
	       "DECOMMIT over a hole: bytes on both sides intact");
	expect_fail("starting in a hole", ENOMEM, NULL, 0, p + 4 * ps, 2 * ps, 0);
	rc = ioctl(dev_fd, MREMAP_RETAIN_IOC_DECOMMIT, bad) ? errno : 0;
	tap_ok(rc == EFAULT, "DECOMMIT with an unmapped argument: EFAULT (%s)",
	       rc_name(rc));
	munmap(p, 8 * ps);
}

/*
 * In a child (MREMAP_RETAIN_DECOMMIT=module, chosen on first use): release
 * pages 2-3 of a 6-page mapping filled with seed 6 through the library.
 * Private anonymous memory must read zero after, with no page resident;
 * on other mappings the system call methods differ (see
 * mremap_retain_decommit(3)) and page cache stays resident.
 */
static int lib_private_anon = 1;

static int lib_release(void *arg, char *msg, size_t cap)
{
	char *p = arg;
	char perms[5] = "none";

	if (mremap_retain_decommit(p + 2 * ps, 2 * ps))
		return snprintf(msg, cap, "decommit: %s", strerror(errno)), 1;
	if (!tl_vma(p + 2 * ps, NULL, NULL, perms) || strncmp(perms, "---", 3))
		return snprintf(msg, cap, "range is %s, not PROT_NONE", perms), 1;
	if (!lib_private_anon)
		return 0;
	if (!released(p + 2 * ps, 2 * ps))
		return snprintf(msg, cap, "range not released"), 1;
	if (!tl_check_range(p, 0, 2 * ps, 6) || !tl_check_range(p, 4 * ps, 6 * ps, 6))
		return snprintf(msg, cap, "neighbours changed"), 1;
	return 0;
}

/* Mappings the module leaves to the system calls: EOPNOTSUPP from the
 * ioctl with nothing changed, then the library releases them anyway. */
static void left_to_user(const char *what, char *p, size_t len,
			 int private_anon)
{
	char msg[512];
	int rc;

	lib_private_anon = private_anon;
	tl_fill(p, len, 6);
	expect_fail(what, EOPNOTSUPP, NULL, 0, p + 2 * ps, 2 * ps, 0);
	tap_ok(tl_check(p, len, 6), "DECOMMIT %s: bytes intact", what);
	rc = tl_child(lib_release, p, msg, sizeof(msg));
	tap_ok(rc == 0, "mremap_retain_decommit %s: released by the fallback%s%s",
	       what, msg[0] ? ": " : "", msg);
}

/* The library on plain memory: the module does it, no fallback. */
static void t_library(void)
{
	char *p = tl_map(6 * ps, PROT_READ | PROT_WRITE);
	char msg[512];
	int rc;

	tl_fill(p, 6 * ps, 6);
	rc = tl_child(lib_release, p, msg, sizeof(msg));
	tap_ok(rc == 0, "mremap_retain_decommit through the module%s%s",
	       msg[0] ? ": " : "", msg);
	munmap(p, 6 * ps);
}

static void t_left_to_user(void)
{
	size_t len = 6 * ps;
	char *p;
	int fd;

	p = tl_map(len, PROT_READ | PROT_WRITE);
	if (mlock(p, len) == 0)
		left_to_user("of locked memory", p, len, 1);
	else
		tl_skipf("locked memory: mlock: %s", strerror(errno));
	munmap(p, len);

	p = tl_map(len, PROT_READ | PROT_WRITE | PROT_EXEC);
	left_to_user("of executable memory", p, len, 1);
	munmap(p, len);

	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	left_to_user("of shared memory", p, len, 0);
	munmap(p, len);

	fd = syscall(SYS_memfd_create, "decommit", 0);
	if (fd >= 0 && ftruncate(fd, len) == 0) {
		p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
		left_to_user("of a private file mapping", p, len, 0);
		munmap(p, len);
	} else {
		tap_ok(0, "memfd for a file mapping: %s", strerror(errno));
	}
	if (fd >= 0)
		close(fd);
}

static void t_uffd(void)
{
	size_t len = 6 * ps;
	char *p = tl_map(len, PROT_READ | PROT_WRITE);
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = {
		.range = { .start = (uintptr_t)p, .len = len },
		.mode = UFFDIO_REGISTER_MODE_MISSING,
	};
	int fd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);

	tl_fill(p, len, 5);
	if (fd < 0) {
		tl_skipf("userfaultfd-registered memory: %s", strerror(errno));
	} else if (ioctl(fd, UFFDIO_API, &api) || ioctl(fd, UFFDIO_REGISTER, &reg)) {
		tap_ok(0, "userfaultfd register: %s", strerror(errno));
	} else {
		expect_fail("of userfaultfd-registered memory", EOPNOTSUPP,
			    p, len, p, len, 0);
	}
	if (fd >= 0)
		close(fd);
	munmap(p, len);
}

static void t_sealed(void)
{
	char *p = tl_map(6 * ps, PROT_READ | PROT_WRITE);

	tl_fill(p, 6 * ps, 5);
	if (tl_mseal(p + 3 * ps, 3 * ps)) {
		tl_skipf("sealed memory: mseal: %s", strerror(errno));
		munmap(p, 6 * ps);
		return;
	}
	expect_fail("partly sealed", EPERM, p, 6 * ps, p + 2 * ps, 2 * ps, 0);
	/* The sealed half cannot be unmapped: it is left for the process. */
	munmap(p, 3 * ps);
}

/* vm.max_map_count with no room for the split: handed back, and the
 * library's system calls fail as the kernel's do, with nothing changed. */
static int lib_no_room(void *arg, char *msg, size_t cap)
{
	char *p = arg;
	int rc = mremap_retain_decommit(p + 2 * ps, 2 * ps) ? errno : 0;

	if (rc != ENOMEM)
		return snprintf(msg, cap, "decommit: %s, want ENOMEM", rc_name(rc)), 1;
	if (!tl_check(p, 6 * ps, 6) || strcmp(tl_perms(p + 2 * ps), "rw-p"))
		return snprintf(msg, cap, "range changed"), 1;
	return 0;
}

static void t_map_count(void)
{
	char old[32], val[32], msg[512];
	char *p = tl_map(6 * ps, PROT_READ | PROT_WRITE);
	int rc;

	tl_fill(p, 6 * ps, 6);
	if (tl_read_sys("/proc/sys/vm/max_map_count", old, sizeof(old))) {
		tl_skipf("max_map_count: unreadable");
		munmap(p, 6 * ps);
		return;
	}
	/* At or below the count: not even one split fits ([vsyscall] is
	 * a line of maps but not a mapping of the count). */
	snprintf(val, sizeof(val), "%d", tl_count_maps() - 1);
	if (tl_write_sys("/proc/sys/vm/max_map_count", val)) {
		tl_skipf("max_map_count: not writable (not root)");
		munmap(p, 6 * ps);
		return;
	}
	expect_fail("with no room for two more mappings", EOPNOTSUPP, NULL, 0,
		    p + 2 * ps, 2 * ps, 0);
	rc = tl_child(lib_no_room, p, msg, sizeof(msg));
	tl_write_sys("/proc/sys/vm/max_map_count", old);
	tap_ok(rc == 0, "mremap_retain_decommit with no room: ENOMEM, nothing "
	       "changed%s%s", msg[0] ? ": " : "", msg);
	munmap(p, 6 * ps);
}

/* One page out of a transparent huge page. */
static void t_thp(void)
{
	const size_t H = TL_HUGE;
	char *raw, *p;
	long ahp;
	int rc;

	p = tl_thp_region(&raw, 7, "DECOMMIT of one page of a huge page");
	if (!p)
		return;
	ahp = tl_smaps_kb(p, "AnonHugePages");
	rc = dc_ioctl(p + 100 * ps, ps, 0);
	tap_ok(rc == 0, "DECOMMIT of one page of a 2 MiB region (AnonHugePages "
	       "%ld kB before) (%s)", ahp, rc_name(rc));
	tap_ok(released(p + 100 * ps, ps) && tl_check_range(p, 0, 100 * ps, 7) &&
	       tl_check_range(p, 101 * ps, H, 7),
	       "that page released, the rest of the region intact");
	munmap(raw, 2 * H);
}

int main(void)
{
	tl_start("decommit");
	t_info();
	if (dev_fd < 0) {
		tap_skip("no module: the DECOMMIT ioctl cannot be tested");
		return tap_done();
	}
	setenv("MREMAP_RETAIN_DECOMMIT", "module", 1);
	t_basic();
	t_multi();
	t_many();
	t_same_as_syscalls();
	t_errors();
	t_library();
	t_left_to_user();
	t_uffd();
	t_sealed();
	t_map_count();
	t_thp();
	return tap_done();
}
