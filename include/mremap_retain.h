/* SPDX-License-Identifier: MIT */
/*
 * mremap_retain.h - move pages like mremap(2), but keep the source mapped.
 *
 * mremap_retain() moves the pages of [old_address, old_address + old_size)
 * to a mapping of new_size bytes and leaves the source range mapped, with its
 * protection, as fresh zero-fill memory: no copy, and no hole in a reserved
 * address range.  See mremap_retain(3).
 */
#ifndef MREMAP_RETAIN_H
#define MREMAP_RETAIN_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MREMAP_RETAIN_FIXED     0x1  /* new_address is the destination; whatever is mapped there is replaced */
#define MREMAP_RETAIN_NOREPLACE 0x2  /* with FIXED: fail with EEXIST instead of replacing */

/*
 * Returns the destination, or MAP_FAILED with errno set and nothing changed.
 * The fifth argument, void *new_address, is read only when flags has
 * MREMAP_RETAIN_FIXED; without FIXED the call chooses the destination (a
 * variadic function cannot tell whether a hint was passed, so none is read).
 */
void *mremap_retain(void *old_address, size_t old_size, size_t new_size,
		    int flags, ... /* void *new_address */);

enum mremap_retain_backend {
	MREMAP_RETAIN_BACKEND_MODULE    = 1, /* one ioctl on /dev/mremap_retain */
	MREMAP_RETAIN_BACKEND_DONTUNMAP = 2, /* kernel >= 5.7: reserve + mremap(MREMAP_DONTUNMAP|MREMAP_FIXED) */
	MREMAP_RETAIN_BACKEND_COPY      = 3, /* any kernel: mmap + memcpy + madvise(MADV_DONTNEED) */
};

/* The backend in use: chosen on first use, or forced by
 * MREMAP_RETAIN_BACKEND=module|dontunmap|copy in the environment. */
int mremap_retain_backend(void);
/* 0, or -1 with errno ENOTSUP if that backend is unavailable here. */
int mremap_retain_set_backend(int backend);
/* "module", "dontunmap", "copy", or NULL for an unknown value. */
const char *mremap_retain_backend_name(int backend);

/*
 * Release a chunk: discard the contents of [addr, addr + len), make every
 * access fault (PROT_NONE) until mprotect() re-enables it, and keep the
 * address range reserved.  0, or -1 with errno set.
 */
int mremap_retain_decommit(void *addr, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* MREMAP_RETAIN_H */
