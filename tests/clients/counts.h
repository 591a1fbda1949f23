/* SPDX-License-Identifier: MIT */
/*
 * counts.h - how many reallocations a patched allocator moved with
 * mremap_retain and how many fell back to memcpy: jemalloc's mallctl
 * "stats.mremap_retain_moves" / "_fallbacks", TCMalloc's numeric
 * properties "tcmalloc.mremap_retain_moves" / "_fallbacks" (either linked
 * in or preloaded; both weak).
 */
#ifndef MREMAP_RETAIN_CLIENTS_COUNTS_H
#define MREMAP_RETAIN_CLIENTS_COUNTS_H

#include <stddef.h>

extern int mallctl(const char *name, void *old, size_t *oldlen, void *new,
		   size_t newlen) __attribute__((weak));
extern int MallocExtension_GetNumericProperty(const char *name, size_t *value)
	__attribute__((weak));

/* 1 with *moves and *fallbacks set, 0 if the allocator counts neither. */
static inline int move_counts(size_t *moves, size_t *fallbacks)
{
	size_t sz = sizeof(size_t);

	if (mallctl)
		return !mallctl("stats.mremap_retain_moves", moves, &sz, NULL, 0) &&
		       !mallctl("stats.mremap_retain_fallbacks", fallbacks, &sz, NULL, 0);
	if (MallocExtension_GetNumericProperty)
		return MallocExtension_GetNumericProperty("tcmalloc.mremap_retain_moves",
							  moves) &&
		       MallocExtension_GetNumericProperty("tcmalloc.mremap_retain_fallbacks",
							  fallbacks);
	return 0;
}

#endif /* MREMAP_RETAIN_CLIENTS_COUNTS_H */
