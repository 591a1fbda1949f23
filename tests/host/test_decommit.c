/* SPDX-License-Identifier: MIT */
/*
 * test_decommit.c - mremap_retain_decommit(): errors, and both methods
 * giving the same result (contents gone, every access faults, range still
 * reserved, readable zero after mprotect), including locked ranges.
 */
#include "../tap.h"
#include "util.h"
#include "internal.h"

static const char *const mname[] = { "", "mmap", "mprotect" };

static void method(int m)
{
	size_t len = 4 * PS;
	char *p = map_anon(len, PROT_READ | PROT_WRITE), *q;

	fill(p, len, 40);
	tap_ok(mr_decommit_with(m, p + PS, 2 * PS) == 0, "%s: decommit succeeds", mname[m]);
	tap_ok(read_faults(p + PS) && read_faults(p + 2 * PS) && !read_faults(p) &&
	       !read_faults(p + 3 * PS), "%s: exactly the range faults", mname[m]);
	q = mmap(p + PS, PS, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	tap_ok(q == MAP_FAILED && errno == EEXIST, "%s: range still reserved", mname[m]);
	tap_ok(mprotect(p + PS, 2 * PS, PROT_READ | PROT_WRITE) == 0 &&
	       is_zero(p + PS, 2 * PS) && has_pattern(p, PS, 40) &&
	       p[3 * PS] == (char)pat(3 * PS, 40), "%s: reads zero after mprotect, "
	       "neighbours intact", mname[m]);
	tap_ok(!write_faults(p + PS, 2 * PS, 1) && p[2 * PS] == 1,
	       "%s: writable again", mname[m]);

	tap_ok(mlock(p, len) == 0 && vmflag(p, "lo") == 1, "%s: range locked", mname[m]);
	tap_ok(mr_decommit_with(m, p, len) == 0 && read_faults(p) && vmflag(p, "lo") == 0,
	       "%s: locked range decommitted and unlocked", mname[m]);
	mprotect(p, len, PROT_READ);
	tap_ok(is_zero(p, len), "%s: locked range reads zero", mname[m]);
	munmap(p, len);
}

/* Forced to the module where there is none: ENOTSUP, nothing changed. */
static int forced_module(void *arg)
{
	char *p = arg;
	int rc;

	setenv("MREMAP_RETAIN_DECOMMIT", "module", 1);
	rc = mremap_retain_decommit(p, PS);
	if (mr_module_decommit_available())
		return 77;
	return !(rc == -1 && errno == ENOTSUP && has_pattern(p, PS, 41));
}

/*
 * A failure after the first mapping of a range: the system calls change
 * the mappings in turn, so the ones before it may be left PROT_NONE, their
 * bytes intact (man page; the module's ioctl checks everything first).
 */
static void sealed_tail(void)
{
	size_t len = 4 * PS;
	char *p = map_anon(len, PROT_READ | PROT_WRITE);
	int rc;

	fill(p, len, 43);
	if (syscall(462, p + 2 * PS, 2 * PS, 0UL)) {
		tap_skip("no mseal() (Linux 6.10+)");
		return;
	}
	rc = mremap_retain_decommit(p, len);
	tap_ok(rc == -1 && errno == EPERM && !mprotect(p, 2 * PS, PROT_READ | PROT_WRITE) &&
	       has_pattern(p, len, 43),
	       "a sealed second mapping -> EPERM, the bytes intact");
}

/* At vm.max_map_count: [A: two pages, a mapping of its own][the first
 * page of B, two pages]: A changes, then B cannot be split. */
static int at_map_count(void *arg)
{
	char *a, *q;
	int i;

	(void)arg;
	a = map_anon(4 * PS, PROT_READ | PROT_WRITE);
	fill(a, 4 * PS, 44);
	/* Flags of their own: neither merges with the other or a neighbour. */
	if (madvise(a, 2 * PS, MADV_DONTDUMP) || madvise(a + 2 * PS, 2 * PS, MADV_DONTFORK))
		return 3;
	/* Single pages of alternating protections, until none is left. */
	for (i = 0; ; i++) {
		q = mmap(NULL, PS, i & 1 ? PROT_READ : PROT_NONE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (q == MAP_FAILED)
			break;
	}
	if (errno != ENOMEM)
		return 4;
	if (mremap_retain_decommit(a, 3 * PS) != -1 || errno != ENOMEM)
		return 1;
	/* The first mapping may be left PROT_NONE, its bytes intact. */
	if (vmflag(a, "wr") != 1 && mprotect(a, 2 * PS, PROT_READ | PROT_WRITE))
		return 5;
	return !has_pattern(a, 4 * PS, 44);
}

int main(void)
{
	size_t len = 4 * PS;
	char *p;
	int m;

	/* First: the choice is made once per process, on first use. */
	p = map_anon(PS, PROT_READ | PROT_WRITE);
	fill(p, PS, 41);
	m = in_child(forced_module, p);
	if (m == 77)
		tap_skip("MREMAP_RETAIN_DECOMMIT=module: the module is loaded");
	else
		tap_ok(m == 0, "MREMAP_RETAIN_DECOMMIT=module without the module: "
		       "ENOTSUP, nothing changed");
	munmap(p, PS);

	p = map_anon(len, PROT_READ | PROT_WRITE);
	fill(p, len, 41);
	errno = 0;
	tap_ok(mremap_retain_decommit(p + 1, PS) == -1 && errno == EINVAL, "unaligned -> EINVAL");
	tap_ok(mremap_retain_decommit(p, 0) == -1 && errno == EINVAL, "len 0 -> EINVAL");
	tap_ok(mremap_retain_decommit(p, SIZE_MAX) == -1 && errno == EINVAL, "len SIZE_MAX -> EINVAL");
	tap_ok(mremap_retain_decommit(p, UINTPTR_MAX - (uintptr_t)p) == -1 && errno == EINVAL,
	       "range wraps -> EINVAL");
	munmap(p + 2 * PS, PS);
	tap_ok(mremap_retain_decommit(p, len) == -1 && errno == ENOMEM &&
	       has_pattern(p, 2 * PS, 41) && is_unmapped(p + 2 * PS, PS),
	       "hole -> ENOMEM, nothing changed");
	tap_ok(mremap_retain_decommit(p, PS + 1) == 0 && read_faults(p) && read_faults(p + PS) &&
	       !read_faults(p + 3 * PS), "length rounded up to a page");
	munmap(p, len);

	/* One page needs no hole check: it is in one mapping or in none. */
	p = map_anon(len, PROT_READ | PROT_WRITE);
	fill(p, len, 42);
	munmap(p + PS, PS);
	tap_ok(mremap_retain_decommit(p + PS, PS) == -1 && errno == ENOMEM &&
	       is_unmapped(p + PS, PS) && has_pattern(p, PS, 42) &&
	       p[2 * PS] == (char)pat(2 * PS, 42) && vmflag(p, "wr") == 1 &&
	       vmflag(p + 2 * PS, "wr") == 1,
	       "one unmapped page -> ENOMEM, neighbours unchanged");
	tap_ok(mremap_retain_decommit(p + 2 * PS, PS) == 0 && read_faults(p + 2 * PS) &&
	       !read_faults(p + 3 * PS) && has_pattern(p, PS, 42),
	       "one page beside a hole: released alone");
	munmap(p, len);

	sealed_tail();
	m = in_child(at_map_count, NULL);
	tap_ok(m == 0, "at vm.max_map_count, a range whose second mapping cannot be split -> ENOMEM, "
	       "the bytes intact (child status %d)", m);

	for (m = MR_DECOMMIT_MMAP; m <= MR_DECOMMIT_MPROTECT; m++)
		method(m);
	for (len = PS; len <= 2 * PS; len += PS) {
		m = mr_decommit_method(len);
		tap_ok(m == MR_DECOMMIT_MPROTECT ||
		       (m == MR_DECOMMIT_MODULE && mr_module_decommit_available()),
		       "calibration chose %s for %s", m == MR_DECOMMIT_MODULE ?
		       "module" : mname[m], len == PS ? "one page" : "more");
	}
	return tap_done();
}
