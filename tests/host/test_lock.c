/* SPDX-License-Identifier: MIT */
/*
 * test_lock.c - SPEC point 4 and the EAGAIN row on every host backend: a
 * locked source gives a locked destination (same lock kind), the retained
 * source is unlocked, VmLck counts the destination once, and growth past
 * RLIMIT_MEMLOCK without CAP_IPC_LOCK fails with EAGAIN, changing nothing.
 */
#include <linux/capability.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include "../tap.h"
#include "util.h"

/* Sum of smaps "Locked:" over the VMAs inside [p, p + len). */
static long locked_kb(const char *p, size_t len)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	unsigned long s, e;
	int inside = 0;
	long sum = 0;

	while (f && fgets(line, sizeof(line), f)) {
		if (line[0] != 'V' && sscanf(line, "%lx-%lx ", &s, &e) == 2)
			inside = s >= (uintptr_t)p && e <= (uintptr_t)p + len;
		else if (inside && !strncmp(line, "Locked:", 7))
			sum += strtol(line + 7, NULL, 10);
	}
	if (f)
		fclose(f);
	return sum;
}

static void locked_move(const char *bn, size_t old_pages, size_t new_pages, int onfault)
{
	size_t old_len = old_pages * PS, new_len = new_pages * PS;
	size_t n = old_len < new_len ? old_len : new_len;
	char *src = map_anon(old_len, PROT_READ | PROT_WRITE), *r;
	long base = status_kb("VmLck");
	const char *kind = onfault ? "MLOCK_ONFAULT" : "mlock";

	fill(src, old_len, 20);
	if (onfault)
		syscall(SYS_mlock2, src, old_len, 1);
	else
		mlock(src, old_len);
	r = mremap_retain(src, old_len, new_len, 0);
	if (!tap_ok(r != MAP_FAILED, "%s %s %zu->%zu pages: succeeds", bn, kind, old_pages, new_pages))
		return;
	tap_ok(vmflag(r, "lo") == 1 && vmflag(r + new_len - PS, "lo") == 1 &&
	       vmflag(r, "lf") == onfault, "%s %s %zu->%zu: destination locked the same way",
	       bn, kind, old_pages, new_pages);
	tap_ok(vmflag(src, "lo") == 0, "%s %s %zu->%zu: retained source unlocked",
	       bn, kind, old_pages, new_pages);
	tap_ok(status_kb("VmLck") - base == (long)(new_len / 1024),
	       "%s %s %zu->%zu: VmLck counts the destination once (%ld kB)",
	       bn, kind, old_pages, new_pages, status_kb("VmLck") - base);
	if (!onfault) {
		tap_ok(locked_kb(r, new_len) == (long)(new_len / 1024),
		       "%s %s %zu->%zu: every destination page resident and locked",
		       bn, kind, old_pages, new_pages);
	}
	tap_ok(has_pattern(r, n, 20) && is_zero(r + n, new_len - n) && is_zero(src, old_len),
	       "%s %s %zu->%zu: bytes moved, rest zero", bn, kind, old_pages, new_pages);
	munmap(r, new_len);
	munmap(src, old_len);
	tap_ok(status_kb("VmLck") == base, "%s %s %zu->%zu: VmLck back after munmap",
	       bn, kind, old_pages, new_pages);
}

static int drop_cap_ipc_lock(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		return -1;
	d[CAP_TO_INDEX(CAP_IPC_LOCK)].effective &= ~CAP_TO_MASK(CAP_IPC_LOCK);
	d[CAP_TO_INDEX(CAP_IPC_LOCK)].permitted &= ~CAP_TO_MASK(CAP_IPC_LOCK);
	return (int)syscall(SYS_capset, &h, d);
}

/* In a child: limit 16 pages of locked memory, 8 locked. */
static int memlock_limit(void *arg)
{
	int b = *(int *)arg;
	size_t len = 8 * PS;
	struct rlimit rl = { 16 * PS, 16 * PS };
	char *src, *r;
	long vmlck;

	if (mremap_retain_set_backend(b) || drop_cap_ipc_lock() ||
	    setrlimit(RLIMIT_MEMLOCK, &rl) || status_kb("VmLck") != 0)
		return 77;
	src = map_anon(len, PROT_READ | PROT_WRITE);
	fill(src, len, 21);
	if (mlock(src, len))
		return 3;
	vmlck = status_kb("VmLck");
	r = mremap_retain(src, len, 17 * PS, 0);
	if (!FAILS_WITH(r, EAGAIN, src, len, 21))
		return 4;
	if (vmflag(src, "lo") != 1 || status_kb("VmLck") != vmlck)
		return 5;
	/* Exactly at the limit is allowed, and not counted twice on the way. */
	r = mremap_retain(src, len, 16 * PS, 0);
	if (r == MAP_FAILED || !has_pattern(r, len, 21) || vmflag(r, "lo") != 1)
		return 6;
	if (status_kb("VmLck") != (long)(16 * PS / 1024))
		return 7;
	return 0;
}

int main(void)
{
	int b, rc;

	if (status_kb("VmLck") != 0)
		printf("Bail out! VmLck is not 0 at start\n");
	for_each_backend(b) {
		const char *bn = mremap_retain_backend_name(b);

		locked_move(bn, 4, 4, 0);
		locked_move(bn, 4, 12, 0);
		locked_move(bn, 12, 4, 0);
		locked_move(bn, 4, 12, 1);
		rc = in_child(memlock_limit, &b);
		if (rc == 77)
			tap_skip("cannot drop CAP_IPC_LOCK / set RLIMIT_MEMLOCK");
		else
			tap_ok(rc == 0, "%s: RLIMIT_MEMLOCK without CAP_IPC_LOCK: EAGAIN past it, "
			       "nothing changed; fine up to it (child status %d)", bn, rc);
	}
	return tap_done();
}
