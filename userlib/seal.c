/* SPDX-License-Identifier: MIT */
/*
 * seal.c - does the running kernel have mseal() (Linux 6.10+)?  Probed once
 * with an empty range, which only checks the arguments.
 */
#include <errno.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"

#ifndef SYS_mseal
#define SYS_mseal 462
#endif

static pthread_once_t probe_once = PTHREAD_ONCE_INIT;
static bool have_mseal;

static void probe(void)
{
	long ps = (long)mr_page_size();

	/* An aligned, empty range succeeds where mseal exists. */
	have_mseal = syscall(SYS_mseal, ps, 0, 0) == 0 ||
		     (errno != ENOSYS && errno != EPERM);
}

bool mr_mseal_supported(void)
{
	pthread_once(&probe_once, probe);
	return have_mseal;
}
