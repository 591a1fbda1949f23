/* SPDX-License-Identifier: MIT */
/*
 * test_args.c - argument errors (EINVAL, ENOMEM, EFAULT rows of SPEC) give
 * the same errno on every host backend and change nothing.
 */
#include "../tap.h"
#include "util.h"

int main(void)
{
	const size_t ps = PS, len = 4 * PS;
	int b;

	for_each_backend(b) {
		const char *bn = mremap_retain_backend_name(b);
		char *other = map_anon(2 * len, PROT_READ | PROT_WRITE);
		char *src = other + len;
		void *r;

		munmap(other, len);	/* a free address just below the source */
		fill(src, len, 1);

		r = mremap_retain(src, len, len, 0x4, NULL);
		tap_ok(FAILS_WITH(r, EINVAL, src, len, 1), "%s: unknown flag -> EINVAL", bn);
		r = mremap_retain(src, len, len, -1, NULL);
		tap_ok(FAILS_WITH(r, EINVAL, src, len, 1), "%s: flags -1 -> EINVAL", bn);
		r = mremap_retain(src, len, len, MREMAP_RETAIN_NOREPLACE, other);
		tap_ok(FAILS_WITH(r, EINVAL, src, len, 1), "%s: NOREPLACE without FIXED -> EINVAL", bn);
		r = mremap_retain(src + 1, len - ps, len, 0);
		tap_ok(FAILS_WITH(r, EINVAL, src, len, 1), "%s: unaligned old_address -> EINVAL", bn);
		r = mremap_retain(src, 0, len, 0);
		tap_ok(FAILS_WITH(r, EINVAL, src, len, 1), "%s: old_size 0 -> EINVAL", bn);
		r = mremap_retain(src, len, 0, 0);
		tap_ok(FAILS_WITH(r, EINVAL, src, len, 1), "%s: new_size 0 -> EINVAL", bn);
		r = mremap_retain(src, len, SIZE_MAX, 0);
		tap_ok(FAILS_WITH(r, ENOMEM, src, len, 1), "%s: new_size SIZE_MAX -> ENOMEM", bn);
		r = mremap_retain(src, len, SIZE_MAX / 2 + 1, 0);
		tap_ok(FAILS_WITH(r, ENOMEM, src, len, 1), "%s: new_size over half the address space -> ENOMEM", bn);
		r = mremap_retain(src, SIZE_MAX - ps, len, 0);
		tap_ok(FAILS_WITH(r, EFAULT, src, len, 1), "%s: source wraps around -> EFAULT", bn);
		r = mremap_retain(src, SIZE_MAX, len, 0);
		tap_ok(FAILS_WITH(r, EFAULT, src, len, 1), "%s: old_size SIZE_MAX -> EFAULT", bn);
		r = mremap_retain(src, len, len, MREMAP_RETAIN_FIXED, other + 1);
		tap_ok(FAILS_WITH(r, EINVAL, src, len, 1) && is_unmapped(other, len),
		       "%s: FIXED unaligned new_address -> EINVAL", bn);
		r = mremap_retain(src, len, 2 * ps, MREMAP_RETAIN_FIXED,
				  (void *)(UINTPTR_MAX - ps + 1));
		tap_ok(FAILS_WITH(r, ENOMEM, src, len, 1), "%s: FIXED destination wraps -> ENOMEM", bn);
#ifdef __x86_64__
		/* Past the top of the address space (56 bits with 5-level
		 * paging, 47 without), as the module answers; mremap() itself
		 * says EINVAL there, which the same size and a shrink reached. */
		r = mremap_retain(src, len, len, MREMAP_RETAIN_FIXED,
				  (void *)((1UL << 56) - ps));
		tap_ok(FAILS_WITH(r, ENOMEM, src, len, 1),
		       "%s: FIXED destination past the top of the address space -> ENOMEM", bn);
		r = mremap_retain(src, len, 2 * ps, MREMAP_RETAIN_FIXED,
				  (void *)((1UL << 56) - ps));
		tap_ok(FAILS_WITH(r, ENOMEM, src, len, 1),
		       "%s: ... a shrink into it -> ENOMEM", bn);
		r = mremap_retain(src, len, 2 * len, MREMAP_RETAIN_FIXED,
				  (void *)((1UL << 56) - len));
		tap_ok(FAILS_WITH(r, ENOMEM, src, len, 1),
		       "%s: ... a growth into it -> ENOMEM", bn);
#endif
		r = mremap_retain(src, len, len, MREMAP_RETAIN_FIXED, src);
		tap_ok(FAILS_WITH(r, EINVAL, src, len, 1), "%s: FIXED destination = source -> EINVAL", bn);
		r = mremap_retain(src, len, len, MREMAP_RETAIN_FIXED, src + 2 * ps);
		tap_ok(FAILS_WITH(r, EINVAL, src, len, 1), "%s: FIXED destination overlaps source end -> EINVAL", bn);
		r = mremap_retain(src + ps, ps + 1, ps, MREMAP_RETAIN_FIXED, src + 2 * ps);
		tap_ok(FAILS_WITH(r, EINVAL, src, len, 1),
		       "%s: FIXED destination in the rounded-up source -> EINVAL", bn);
		r = mremap_retain(src, ps, ps + 1, MREMAP_RETAIN_FIXED | MREMAP_RETAIN_NOREPLACE,
				  src - ps);
		tap_ok(FAILS_WITH(r, EINVAL, src, len, 1) && is_unmapped(src - ps, ps),
		       "%s: FIXED rounded-up destination overlaps source start -> EINVAL", bn);
		r = mremap_retain(src, len, len, MREMAP_RETAIN_FIXED | MREMAP_RETAIN_NOREPLACE, other);
		tap_ok(r == other && is_zero(src, len) && has_pattern(r, len, 1),
		       "%s: FIXED destination just below the source is fine", bn);
		munmap(r, len);
		munmap(src, len);
	}
	return tap_done();
}
