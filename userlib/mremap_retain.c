/* SPDX-License-Identifier: MIT */
/*
 * mremap_retain.c - the entry point: fetch the arguments, check them, hand
 * the request to the backend in use.
 */
#include <errno.h>
#include <stdarg.h>
#include <sys/mman.h>

#include "internal.h"

MR_API void *mremap_retain(void *old_address, size_t old_size, size_t new_size,
			   int flags, ...)
{
	struct mr_req r;
	void *new_address = NULL, *res;
	int backend, err;

	/*
	 * A variadic function cannot tell whether the fifth argument was
	 * passed, so it is read only when FIXED says it must be there.
	 */
	if (flags & MREMAP_RETAIN_FIXED) {
		va_list ap;

		va_start(ap, flags);
		new_address = va_arg(ap, void *);
		va_end(ap);
	}

	backend = mr_backend_current();
	if (!backend) {
		err = ENOTSUP;
		goto fail;
	}
	err = mr_args(&r, old_address, old_size, new_size, flags, new_address);
	if (err)
		goto fail;

	switch (backend) {
	case MREMAP_RETAIN_BACKEND_MODULE:
		err = mr_module_move(&r, &res);
		break;
	case MREMAP_RETAIN_BACKEND_DONTUNMAP:
		err = mr_dontunmap_move(&r, &res);
		break;
	default:
		err = mr_copy_move(&r, &res);
		break;
	}
	if (!err)
		return res;
fail:
	errno = err;
	return MAP_FAILED;
}
