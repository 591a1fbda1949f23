/* SPDX-License-Identifier: MIT */
/*
 * backend.c - which backend serves the calls: chosen once on first use
 * (module, else dontunmap, else copy), forced by MREMAP_RETAIN_BACKEND, or
 * set by mremap_retain_set_backend().
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* The backend number, plus MR_UNAVAILABLE when it was forced but cannot
 * run here; 0 with MR_UNAVAILABLE for an unknown forced name. */
#define MR_UNAVAILABLE	0x100

static const char *const names[] = {
	[MREMAP_RETAIN_BACKEND_MODULE] = "module",
	[MREMAP_RETAIN_BACKEND_DONTUNMAP] = "dontunmap",
	[MREMAP_RETAIN_BACKEND_COPY] = "copy",
};

static pthread_once_t choose_once = PTHREAD_ONCE_INIT;
static int state;

static bool available(int backend)
{
	switch (backend) {
	case MREMAP_RETAIN_BACKEND_MODULE:
		return mr_module_available();
	case MREMAP_RETAIN_BACKEND_DONTUNMAP:
		return mr_dontunmap_available();
	case MREMAP_RETAIN_BACKEND_COPY:
		return true;
	}
	return false;
}

static void choose(void)
{
	const char *env = getenv("MREMAP_RETAIN_BACKEND");
	int b, s;

	if (env && *env) {
		for (b = MREMAP_RETAIN_BACKEND_COPY; b > 0; b--)
			if (!strcmp(env, names[b]))
				break;
		s = available(b) ? b : b | MR_UNAVAILABLE;
	} else if (mr_module_available()) {
		s = MREMAP_RETAIN_BACKEND_MODULE;
	} else if (mr_dontunmap_available()) {
		s = MREMAP_RETAIN_BACKEND_DONTUNMAP;
	} else {
		s = MREMAP_RETAIN_BACKEND_COPY;
	}
	__atomic_store_n(&state, s, __ATOMIC_RELEASE);
}

static int current_state(void)
{
	pthread_once(&choose_once, choose);
	return __atomic_load_n(&state, __ATOMIC_ACQUIRE);
}

int mr_backend_current(void)
{
	int s = current_state();

	return (s & MR_UNAVAILABLE) ? 0 : s;
}

MR_API int mremap_retain_backend(void)
{
	return current_state() & ~MR_UNAVAILABLE;
}

MR_API int mremap_retain_set_backend(int backend)
{
	if (!mremap_retain_backend_name(backend)) {
		errno = EINVAL;
		return -1;
	}
	pthread_once(&choose_once, choose);
	if (!available(backend)) {
		errno = ENOTSUP;
		return -1;
	}
	__atomic_store_n(&state, backend, __ATOMIC_RELEASE);
	return 0;
}

MR_API const char *mremap_retain_backend_name(int backend)
{
	if (backend < MREMAP_RETAIN_BACKEND_MODULE ||
	    backend > MREMAP_RETAIN_BACKEND_COPY)
		return NULL;
	return names[backend];
}
