// SPDX-License-Identifier: MIT
/*
 * memcg.c - (root) a move that runs out of memory for page tables part
 * way changes nothing: the module's failure path after move_page_tables().
 *
 * Page tables are charged to the caller's memory cgroup.  A child in a
 * cgroup whose limit leaves room for a few page tables only, with the
 * cgroup's OOM killer disabled (so that the allocation fails instead),
 * moves a locked 256 MiB range to a destination 4 KiB off its 2 MiB
 * alignment, which needs 128 new PTE tables (more than the 64 pages a
 * cgroup keeps charged ahead per CPU).  The module must move back
 * what it had moved and unmap the destination: ENOMEM, the bytes where
 * they were, VmLck and VmSize as before (the unmap of the locked
 * destination used to take its pages off locked_vm, which the move had
 * never added).
 *
 * Disabling the OOM killer of one cgroup is cgroup v1's memory.oom_control;
 * Debian's kernels from 6.12 on are built without v1 memory cgroups, and
 * a v2 limit runs the OOM killer, whose report would fail the run: there
 * the test says so and skips.
 */
#include <sys/mount.h>
#include <sys/stat.h>

#include "testlib.h"

#define V1 "/tmp/memcg-v1"
#define MINE V1 "/mremap_retain-test"
#define LEN (256UL << 20)
#define TRIES 8

static int cg_write(const char *file, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), MINE "/%s", file);
	return tl_write_sys(path, val);
}

static long cg_long(const char *file)
{
	char path[128], buf[64];

	snprintf(path, sizeof(path), MINE "/%s", file);
	return tl_read_sys(path, buf, sizeof(buf)) ? -1 : atol(buf);
}

static int squeezed_move(void *arg, char *msg, size_t cap)
{
	long lck0, vm0, lck1, vm1, use;
	char *base, *src, *dst, *r, v[32];
	int e, i;

	(void)arg;
	if (mremap_retain_set_backend(MREMAP_RETAIN_BACKEND_MODULE))
		return snprintf(msg, cap, "module backend: %s", strerror(errno)), 1;
	/* 2 MiB aligned source; destination 4 KiB past a 2 MiB boundary. */
	base = tl_map(LEN + (2 << 20), PROT_READ | PROT_WRITE);
	src = (char *)(((uintptr_t)base + (2 << 20) - 1) & ~((uintptr_t)(2 << 20) - 1));
	dst = tl_free_range(LEN + (4 << 20));
	dst = (char *)((((uintptr_t)dst + (2 << 20) - 1) & ~((uintptr_t)(2 << 20) - 1)) + 4096);
	madvise(src, LEN, MADV_NOHUGEPAGE);
	tl_fill(src, LEN, 41);
	if (mlock(src, LEN))
		return snprintf(msg, cap, "mlock: %s", strerror(errno)), 1;
	lck0 = tl_status_kb("VmLck");
	vm0 = tl_status_kb("VmSize");
	/* From here on, what this process allocates is the cgroup's. */
	snprintf(v, sizeof(v), "%d", getpid());
	if (cg_write("cgroup.procs", v))
		return snprintf(msg, cap, "enter the cgroup: %s", strerror(errno)), 1;

	/* Room for 4, 8, ... pages: each time the move must fail part way. */
	for (i = 1; i <= TRIES; i++) {
		use = cg_long("memory.usage_in_bytes");
		snprintf(v, sizeof(v), "%ld", use + i * 4 * 4096L);
		if (cg_write("memory.limit_in_bytes", v))
			return snprintf(msg, cap, "set the limit: %s", strerror(errno)), 1;
		errno = 0;
		r = mremap_retain(src, LEN, LEN, MREMAP_RETAIN_FIXED, dst);
		e = errno;
		cg_write("memory.limit_in_bytes", "-1");
		if (r != MAP_FAILED) {
			munmap(r, LEN);
			return snprintf(msg, cap, "the move succeeded with %d pages of room", 4 * i), 1;
		}
		lck1 = tl_status_kb("VmLck");
		vm1 = tl_status_kb("VmSize");
		if (e != ENOMEM || lck1 != lck0 || vm1 != vm0 || !tl_check(src, LEN, 41) ||
		    strcmp(tl_perms(dst), "none"))
			return snprintf(msg, cap, "%s with %d pages of room: VmLck %ld -> %ld kB, VmSize %ld -> %ld kB, bytes %s, destination %s",
					tl_errname(e), 4 * i, lck0, lck1, vm0, vm1,
					tl_check(src, LEN, 41) ? "intact" : "LOST",
					tl_perms(dst)), 1;
	}
	/* And with room enough, it works. */
	r = mremap_retain(src, LEN, LEN, MREMAP_RETAIN_FIXED, dst);
	if (r != dst || !tl_check(dst, LEN, 41) || tl_status_kb("VmLck") != lck0)
		return snprintf(msg, cap, "without the limit: %s, VmLck %ld kB (want %ld)",
				r == MAP_FAILED ? tl_errname(errno) : "moved",
				tl_status_kb("VmLck"), lck0), 1;
	snprintf(msg, cap, "ENOMEM %d times (4 to %d pages of room), each time VmLck %ld kB, VmSize %ld kB, bytes intact, no destination; then moved",
		 TRIES, 4 * TRIES, lck0, vm0);
	return 0;
}

int main(void)
{
	char msg[512];
	int rc;

	tl_start("memcg");
	if (geteuid() || tl_host) {
		tap_skip("memcg: needs root in the guest");
		return tap_done();
	}
	mkdir(V1, 0755);
	if (mount("memcg", V1, "cgroup", 0, "memory")) {
		tl_skipf("memcg: no cgroup v1 memory controller here (%s): a v2 limit would run the OOM killer",
			 strerror(errno));
		return tap_done();
	}
	rmdir(MINE);
	if (!tap_ok(mkdir(MINE, 0755) == 0, "make a v1 memory cgroup") ||
	    !tap_ok(cg_write("memory.oom_control", "1") == 0, "disable its OOM killer")) {
		umount(V1);
		return tap_done();
	}
	rc = tl_child(squeezed_move, NULL, msg, sizeof(msg));
	tap_ok(rc == 0, "[module] out of memory for page tables part way: %s", msg);
	rmdir(MINE);
	umount(V1);
	return tap_done();
}
