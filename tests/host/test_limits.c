/* SPDX-License-Identifier: MIT */
/*
 * test_limits.c - the ENOMEM row on every host backend: RLIMIT_AS, refused
 * overcommit, vm.max_map_count (also when only the move itself needs the
 * last slot, which exercises the undo path).  Nothing may change.
 */
#include <sys/resource.h>

#include "../tap.h"
#include "util.h"
#include "internal.h"

static int count_line(const char *line, size_t len, void *arg)
{
	(void)line;
	(void)len;
	++*(long *)arg;
	return 0;
}

static long map_count(void)
{
	long n = 0;

	mr_proc_lines("/proc/self/maps", count_line, &n);
	return n;
}

static int rlimit_as(void *arg)
{
	size_t len = 4 * PS;
	char *src = map_anon(len, PROT_READ | PROT_WRITE), *r;
	struct rlimit rl;

	if (mremap_retain_set_backend(*(int *)arg))
		return 77;
	fill(src, len, 30);
	rl.rlim_cur = rl.rlim_max = (rlim_t)status_kb("VmSize") * 1024 + 64 * PS;
	if (setrlimit(RLIMIT_AS, &rl))
		return 77;
	r = mremap_retain(src, len, 256 * PS, 0);
	if (!FAILS_WITH(r, ENOMEM, src, len, 30))
		return 1;
	r = mremap_retain(src, len, 8 * PS, 0);
	return r != MAP_FAILED && has_pattern(r, len, 30) ? 0 : 2;
}

/*
 * A FIXED growth into an existing mapping with RLIMIT_AS one page above
 * VmSize: mremap() itself judges it net of the mapping it replaces and
 * makes it, so the call must too (SPEC 5).
 */
static int rlimit_as_fixed(void *arg)
{
	char *src = map_anon(64 * PS, PROT_READ | PROT_WRITE), *r;
	char *dst = map_anon(128 * PS, PROT_READ | PROT_WRITE);
	struct rlimit rl;

	if (mremap_retain_set_backend(*(int *)arg))
		return 77;
	fill(src, 64 * PS, 31);
	rl.rlim_cur = rl.rlim_max = (rlim_t)status_kb("VmSize") * 1024 + PS;
	if (setrlimit(RLIMIT_AS, &rl))
		return 77;
	r = mremap_retain(src, 64 * PS, 128 * PS, MREMAP_RETAIN_FIXED, dst);
	if (r == MAP_FAILED)
		return 100 + errno;
	return r == dst && has_pattern(dst, 64 * PS, 31) && is_zero(dst + 64 * PS, 64 * PS) &&
	       is_zero(src, 64 * PS) ? 0 : 2;
}

/* Fill the map count up to the limit minus spare, with a 1-page source
 * VMA ready; then try to move it. */
static int max_maps(void *arg)
{
	int spare = *(int *)arg >> 8;
	size_t n = 1 << 17, len = PS;
	char *frag = map_anon(n * PS, PROT_NONE), *src, *r;
	size_t i;
	long before;

	if (mremap_retain_set_backend(*(int *)arg & 0xff))
		return 77;
	src = map_anon(3 * PS, PROT_READ);
	mprotect(src + PS, PS, PROT_READ | PROT_WRITE);
	src += PS;
	fill(src, len, 31);
	for (i = 1; i < n; i += 2)
		if (mprotect(frag + i * PS, PS, PROT_READ))
			break;
	if (i >= n)
		return 76;	/* the limit is above what n pages can split into */
	/* mprotect stops splitting one VMA short of the limit: take the
	 * rest with unmergeable single pages. */
	for (int k = 0; k < 64; k++)
		if (mmap(NULL, PS, k & 1 ? PROT_READ : PROT_NONE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) == MAP_FAILED)
			break;
	/* Free spare slots: unmap PROT_READ pages between PROT_NONE ones. */
	for (int k = 0; k < spare; k++)
		munmap(frag + (1 + 2 * k) * PS, PS);
	before = map_count();
	r = mremap_retain(src, len, 2 * PS, 0);
	if (spare && r != MAP_FAILED)
		return has_pattern(r, len, 31) && is_zero(src, len) ? 10 : 3;
	if (!FAILS_WITH(r, ENOMEM, src, len, 31))
		return 1;
	if (map_count() != before || vmflag(src, "wr") != 1)
		return 2;
	return 0;
}

int main(void)
{
	size_t len = 4 * PS;
	int b, rc, arg;

	for_each_backend(b) {
		const char *bn = mremap_retain_backend_name(b);
		char *src = map_anon(len, PROT_READ | PROT_WRITE);
		void *r;

		rc = in_child(rlimit_as, &b);
		tap_ok(rc == 0, "%s: RLIMIT_AS -> ENOMEM, nothing changed (child %d)", bn, rc);
		rc = in_child(rlimit_as_fixed, &b);
		tap_ok(rc == 0, "%s: a FIXED growth into a mapping, RLIMIT_AS a page above VmSize: "
		       "moved, as mremap() would (child %d)", bn, rc);

		fill(src, len, 32);
		r = mremap_retain(src, len, (size_t)1 << 42, 0);
		tap_ok(FAILS_WITH(r, ENOMEM, src, len, 32),
		       "%s: 4 TiB destination refused (overcommit) -> ENOMEM", bn);
		munmap(src, len);

		for (int spare = 0; spare <= 1; spare++) {
			arg = b | spare << 8;
			rc = in_child(max_maps, &arg);
			if (rc == 76)
				tap_skip("vm.max_map_count is above the 2^17 "
					 "mappings this test makes (the guests' "
					 "limits test lowers it)");
			else if (rc == 77)
				tap_ok(0, "%s: vm.max_map_count: the backend "
				       "could not be selected in the child", bn);
			else if (rc == 10)
				tap_ok(spare == 1, "%s: vm.max_map_count, %d spare: one VMA was enough", bn, spare);
			else
				tap_ok(rc == 0, "%s: vm.max_map_count reached (%d spare) -> ENOMEM, "
				       "nothing changed (child %d)", bn, spare, rc);
		}
	}
	return tap_done();
}
