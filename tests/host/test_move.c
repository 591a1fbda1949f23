/* SPDX-License-Identifier: MIT */
/*
 * test_move.c - SPEC points 1-6 on every host backend: bytes moved (same
 * pages for dontunmap), growth reads zero, source retained and zero, shrink,
 * protection kept, FIXED / NOREPLACE / hint, sizes rounded up.
 */
#include "../tap.h"
#include "util.h"

static void grow_shrink(int b, size_t old_len, size_t new_len)
{
	const char *bn = mremap_retain_backend_name(b);
	size_t n = old_len < new_len ? old_len : new_len;
	char *src = map_anon(old_len, PROT_READ | PROT_WRITE);
	uint64_t pfn0, pfn1;
	char *r;

	fill(src, old_len, 2);
	pfn0 = pfn_of(src);
	r = mremap_retain(src, old_len, new_len, 0);
	if (!tap_ok(r != MAP_FAILED, "%s %zu->%zu: succeeds", bn, old_len, new_len))
		return;
	pfn1 = pfn_of(r);
	tap_ok(((uintptr_t)r & (PS - 1)) == 0, "%s %zu->%zu: page aligned", bn, old_len, new_len);
	tap_ok(has_pattern(r, n, 2), "%s %zu->%zu: bytes moved (1)", bn, old_len, new_len);
	tap_ok(new_len <= old_len || is_zero(r + old_len, new_len - old_len),
	       "%s %zu->%zu: growth reads zero (1)", bn, old_len, new_len);
	if (b == MREMAP_RETAIN_BACKEND_DONTUNMAP && pfn0)
		tap_ok(pfn0 == pfn1, "%s %zu->%zu: same physical page (1)", bn, old_len, new_len);
	else if (b == MREMAP_RETAIN_BACKEND_DONTUNMAP)
		tap_skip("dontunmap: same physical page: pagemap shows no PFN (not root)");
	tap_ok(is_mapped(src, old_len) && is_zero(src, old_len),
	       "%s %zu->%zu: source mapped and zero (2, 3)", bn, old_len, new_len);
	tap_ok(!write_faults(src, old_len, 0x5a) && has_pattern(r, n, 2) &&
	       src[old_len - 1] == 0x5a,
	       "%s %zu->%zu: source writable, independent (2)", bn, old_len, new_len);
	tap_ok(!write_faults(r, new_len, 0xa5) && is_mapped(r, new_len),
	       "%s %zu->%zu: destination writable", bn, old_len, new_len);
	munmap(r, new_len);
	munmap(src, old_len);
}

static void protection(int b, int prot, const char *pn)
{
	const char *bn = mremap_retain_backend_name(b);
	size_t len = 2 * PS;
	char *src = map_anon(len, PROT_READ | PROT_WRITE), *r;

	fill(src, len, 3);
	mprotect(src, len, prot);
	r = mremap_retain(src, len, 2 * len, 0);
	if (!tap_ok(r != MAP_FAILED, "%s %s: succeeds", bn, pn))
		return;
	tap_ok(vmflag(r, "rd") == !!(prot & PROT_READ) &&
	       vmflag(r, "wr") == !!(prot & PROT_WRITE) &&
	       vmflag(r + len, "wr") == !!(prot & PROT_WRITE) &&
	       vmflag(src, "wr") == !!(prot & PROT_WRITE) &&
	       vmflag(src, "rd") == !!(prot & PROT_READ),
	       "%s %s: destination and source keep the protection (4, 2)", bn, pn);
	if (prot == PROT_NONE)
		tap_ok(read_faults(r) && read_faults(r + len) && read_faults(src),
		       "%s %s: every access faults", bn, pn);
	mprotect(r, 2 * len, PROT_READ);
	mprotect(src, len, PROT_READ);
	tap_ok(has_pattern(r, len, 3) && is_zero(r + len, len) && is_zero(src, len),
	       "%s %s: bytes moved, source zero", bn, pn);
	munmap(r, 2 * len);
	munmap(src, len);
}

static void placement(int b)
{
	const char *bn = mremap_retain_backend_name(b);
	size_t len = 3 * PS;
	char *src = map_anon(len, PROT_READ | PROT_WRITE);
	char *dst = map_anon(2 * len, PROT_READ), *r, *q;

	fill(src, len, 4);
	r = mremap_retain(src, len, len, MREMAP_RETAIN_FIXED, dst + PS);
	tap_ok(r == dst + PS && has_pattern(r, len, 4) && is_zero(src, len) &&
	       vmflag(r, "wr") == 1 && vmflag(dst, "wr") == 0,
	       "%s: FIXED replaces what was there, only that", bn);

	fill(src, len, 5);
	r = mremap_retain(src, len, len, MREMAP_RETAIN_FIXED | MREMAP_RETAIN_NOREPLACE, dst);
	tap_ok(FAILS_WITH(r, EEXIST, src, len, 5) && vmflag(dst, "wr") == 0,
	       "%s: NOREPLACE on occupied destination -> EEXIST, nothing changed", bn);
	munmap(dst + 5 * PS, PS);
	r = mremap_retain(src, len, len, MREMAP_RETAIN_FIXED | MREMAP_RETAIN_NOREPLACE,
			  dst + 3 * PS);
	tap_ok(FAILS_WITH(r, EEXIST, src, len, 5),
	       "%s: NOREPLACE with destination partly occupied -> EEXIST", bn);
	munmap(dst, 2 * len);
	r = mremap_retain(src, len, len, MREMAP_RETAIN_FIXED | MREMAP_RETAIN_NOREPLACE, dst);
	tap_ok(r == dst && has_pattern(r, len, 5) && is_zero(src, len),
	       "%s: NOREPLACE on a free destination", bn);
	munmap(r, len);

	/*
	 * A FIXED destination in the hole where the library may put the
	 * pages on their way (the dontunmap backend's kernel-checked move
	 * before 6.10: a reservation of a page each side of them, at the
	 * highest place that fits, here where this probe went): the
	 * destination lies where the upper page was, and all of it is
	 * mapped after, with the bytes.
	 */
	fill(src, PS, 9);
	q = map_anon(3 * PS, PROT_NONE);
	munmap(q, 3 * PS);
	r = mremap_retain(src, PS, PS, MREMAP_RETAIN_FIXED, q + 2 * PS);
	tap_ok(r == q + 2 * PS && is_mapped(r, PS) && has_pattern(r, PS, 9) &&
	       is_zero(src, PS) && is_unmapped(q, 2 * PS),
	       "%s: FIXED into a hole by the library's own scratch place", bn);
	if (r != MAP_FAILED)
		munmap(r, PS);

	/* Without FIXED the fifth argument is not a destination (5). */
	fill(src, len, 6);
	r = mremap_retain(src, len, len, 0, src + len);
	tap_ok(r != MAP_FAILED && has_pattern(r, len, 6), "%s: without FIXED, new_address is no destination", bn);
	munmap(r, len);

	/* Sizes are rounded up (6). */
	fill(src, len, 7);
	r = mremap_retain(src, 2 * PS + 1, PS + 1, 0);
	tap_ok(r != MAP_FAILED && has_pattern(r, 2 * PS, 7) && is_mapped(r, 2 * PS) &&
	       is_zero(src, len - PS) && has_pattern(src + 2 * PS, PS, 7) == 0,
	       "%s: sizes rounded up to pages (6)", bn);
	munmap(r, 2 * PS);

	/* A range inside a larger mapping; the rest is untouched. */
	fill(src, len, 8);
	r = mremap_retain(src + PS, PS, PS, 0);
	tap_ok(r != MAP_FAILED && is_zero(src + PS, PS) && src[0] == (char)pat(0, 8) &&
	       src[2 * PS] == (char)pat(2 * PS, 8) && r[0] == (char)pat(PS, 8),
	       "%s: middle of a mapping, neighbours untouched", bn);
	munmap(r, PS);
	munmap(src, len);
}

int main(void)
{
	const size_t ps = PS, huge = 2 << 20;
	int b;

	for_each_backend(b) {
		grow_shrink(b, ps, ps);
		grow_shrink(b, 4 * ps, 16 * ps);
		grow_shrink(b, 16 * ps, 4 * ps);
		grow_shrink(b, 2 * huge, 3 * huge);
		grow_shrink(b, 3 * huge, huge + ps);
		protection(b, PROT_READ, "PROT_READ");
		protection(b, PROT_NONE, "PROT_NONE");
		protection(b, PROT_WRITE, "PROT_WRITE");
		protection(b, PROT_READ | PROT_EXEC, "PROT_READ|PROT_EXEC");
		placement(b);
	}
	return tap_done();
}
