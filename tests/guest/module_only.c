// SPDX-License-Identifier: MIT
/*
 * module_only.c - what only the kernel module can show: the device node,
 * its ioctl ABI (INFO, MOVE, reserved field, unknown ioctl, bad argument
 * pointer), and transparent huge pages kept huge across an aligned move.
 */
#include <sys/ioctl.h>
#include <sys/stat.h>

#include <mremap_retain/ioctl.h>

#include "testlib.h"

#define DEV "/dev/" MREMAP_RETAIN_DEVICE_NAME

static int dev_fd = -1;

static void t_device(void)
{
	struct stat st;

	if (stat(DEV, &st)) {
		tap_ok(0, DEV " exists (%s)", strerror(errno));
		return;
	}
	tap_ok(S_ISCHR(st.st_mode), DEV " is a character device");
	tap_ok((st.st_mode & 07777) == 0666, DEV " has mode 0666 (%04o)",
	       st.st_mode & 07777);
	dev_fd = open(DEV, O_RDWR | O_CLOEXEC);
	tap_ok(dev_fd >= 0, DEV " opens read-write (%s)",
	       dev_fd < 0 ? strerror(errno) : "ok");
}

static void t_info(void)
{
	struct mremap_retain_info info;
	void *bad;

	memset(&info, 0xa5, sizeof(info));
	errno = 0;
	tap_ok(ioctl(dev_fd, MREMAP_RETAIN_IOC_INFO, &info) == 0,
	       "INFO ioctl succeeds (%s)", tl_errname(errno));
	tap_ok(info.abi_version == MREMAP_RETAIN_ABI_VERSION,
	       "INFO: abi_version %u (want %u)", info.abi_version,
	       MREMAP_RETAIN_ABI_VERSION);
	tap_ok(info.features & MREMAP_RETAIN_FEAT_MOVE,
	       "INFO: features %#x has FEAT_MOVE", info.features);
	tap_ok(!info.reserved[0] && !info.reserved[1],
	       "INFO: reserved fields zeroed");

	bad = tl_free_range(ps);
	errno = 0;
	tap_ok(ioctl(dev_fd, MREMAP_RETAIN_IOC_INFO, bad) == -1 &&
	       errno == EFAULT, "INFO with an unmapped argument: EFAULT (%s)",
	       tl_errname(errno));
	errno = 0;
	tap_ok(ioctl(dev_fd, _IOR(MREMAP_RETAIN_IOC_MAGIC, 0x7e, int), &info) == -1 &&
	       errno == ENOTTY, "unknown ioctl number: ENOTTY (%s)",
	       tl_errname(errno));
	errno = 0;
	tap_ok(ioctl(dev_fd, _IOR('T', 0x01, struct mremap_retain_info), &info) == -1 &&
	       errno == ENOTTY, "ioctl of another magic: ENOTTY (%s)",
	       tl_errname(errno));
	errno = 0;
	tap_ok(ioctl(dev_fd, _IOW(MREMAP_RETAIN_IOC_MAGIC, 0x00,
				  struct mremap_retain_info), &info) == -1 &&
	       errno == ENOTTY,
	       "INFO number with the wrong direction bits: ENOTTY (%s)",
	       tl_errname(errno));
}

static void t_move_ioctl(void)
{
	static struct tl_snap a, b;
	size_t os = 4 * ps, ns = 8 * ps;
	char *src = tl_map(os, PROT_READ | PROT_WRITE);
	struct mremap_retain_move m;
	void *bad;
	int rc;

	tl_fill(src, os, 1);
	memset(&m, 0, sizeof(m));
	m.old_addr = (uintptr_t)src;
	m.old_size = os;
	m.new_size = ns;
	m.reserved = 1;
	tl_snapshot(&a);
	errno = 0;
	rc = ioctl(dev_fd, MREMAP_RETAIN_IOC_MOVE, &m);
	tl_snapshot(&b);
	tap_ok(rc == -1 && errno == EINVAL,
	       "MOVE with reserved != 0: EINVAL (%s)",
	       rc ? tl_errname(errno) : "success");
	tap_ok(tl_snap_equal(&a, &b) && tl_check(src, os, 1),
	       "MOVE with reserved != 0: nothing changed");

	m.reserved = 0;
	m.flags = 0x80;
	errno = 0;
	rc = ioctl(dev_fd, MREMAP_RETAIN_IOC_MOVE, &m);
	tap_ok(rc == -1 && errno == EINVAL, "MOVE with unknown flags: EINVAL (%s)",
	       rc ? tl_errname(errno) : "success");

	bad = tl_free_range(ps);
	errno = 0;
	rc = ioctl(dev_fd, MREMAP_RETAIN_IOC_MOVE, bad);
	tap_ok(rc == -1 && errno == EFAULT,
	       "MOVE with an unmapped argument: EFAULT (%s)",
	       rc ? tl_errname(errno) : "success");
	tap_ok(tl_check(src, os, 1), "source intact after the failed ioctls");

	/* Argument struct ending one byte into an unmapped page. */
	{
		char *two = tl_map(2 * ps, PROT_READ | PROT_WRITE);
		struct mremap_retain_move *edge = (void *)(two + ps - sizeof(m) + 8);

		munmap(two + ps, ps);
		memcpy(edge, &m, sizeof(m) - 8);
		errno = 0;
		rc = ioctl(dev_fd, MREMAP_RETAIN_IOC_MOVE, edge);
		tap_ok(rc == -1 && errno == EFAULT && tl_check(src, os, 1),
		       "MOVE with a half-mapped argument: EFAULT, nothing moved (%s)",
		       rc ? tl_errname(errno) : "success");
		munmap(two, ps);
	}

	m.flags = 0;
	m.new_addr = 0;
	errno = 0;
	rc = ioctl(dev_fd, MREMAP_RETAIN_IOC_MOVE, &m);
	tap_ok(rc == 0 && m.new_addr && !(m.new_addr & (ps - 1)),
	       "MOVE ioctl directly: succeeds, new_addr %#llx (%s)",
	       (unsigned long long)m.new_addr, rc ? tl_errname(errno) : "ok");
	if (rc == 0) {
		char *r = (char *)(uintptr_t)m.new_addr;

		tap_ok(tl_check(r, os, 1) && tl_zero(r + os, ns - os) &&
		       tl_zero(src, os),
		       "MOVE ioctl: data moved, tail and source zero");
		munmap(r, ns);
	}
	munmap(src, os);
}

/* A 2 MiB huge page moved to a 2 MiB-aligned destination stays huge. */
static void t_thp(void)
{
	const size_t H = TL_HUGE;
	char *raw, *src, *resv, *dst, *r;
	int64_t pfn0;
	long ahp;

	src = tl_thp_region(&raw, 2, "[%s] THP kept huge: the source", BN);
	if (!src)
		return;
	pfn0 = tl_pfn(src);
	resv = tl_map(4 * H, PROT_NONE);
	dst = (char *)(((uintptr_t)resv + H - 1) & ~(uintptr_t)(H - 1));
	r = mremap_retain(src, H, 2 * H, MREMAP_RETAIN_FIXED, dst);
	if (!tap_ok(r == dst, "[%s] THP: FIXED move of a huge page to an "
		    "aligned destination (%s)", BN,
		    r == MAP_FAILED ? tl_errname(errno) : "ok")) {
		munmap(raw, 2 * H);
		munmap(resv, 4 * H);
		return;
	}
	ahp = tl_smaps_kb(dst, "AnonHugePages");
	tap_ok(ahp >= 2048, "[%s] THP: destination still has a huge page "
	       "(AnonHugePages %ld kB)", BN, ahp);
	if (pfn0 > 0)
		tap_ok(tl_pfn(dst) == pfn0 && tl_pfn(dst + H - ps) == pfn0 + 511,
		       "[%s] THP: same huge page (pfn %#llx -> %#llx)", BN,
		       (long long)pfn0, (long long)tl_pfn(dst));
	else
		tl_skipf("[%s] THP: pagemap PFNs unreadable (not root)", BN);
	tap_ok(tl_check(dst, H, 2) && tl_zero(dst + H, H) && tl_zero(src, H),
	       "[%s] THP: data moved, tail and source zero", BN);
	munmap(raw, 2 * H);
	munmap(resv, 4 * H);
}

int main(void)
{
	tl_start("module_only");
	if (tl_host && access(DEV, F_OK)) {
		tap_skip("module device and ioctls: module not loaded");
	} else {
		t_device();
		if (dev_fd >= 0) {
			t_info();
			t_move_ioctl();
		}
	}
	if (tl_use_backend(MREMAP_RETAIN_BACKEND_MODULE, "module only"))
		t_thp();
	if (dev_fd >= 0)
		close(dev_fd);
	return tap_done();
}
