/* SPDX-License-Identifier: MIT */
/*
 * forked.c - was a descriptor made in this very process?  Some describe
 * the mm of the process that made them (an open /proc/self/maps, a
 * userfaultfd), so a child, however it was forked (a raw clone() runs no
 * pthread_atfork() handlers), must make its own.  Each such descriptor has
 * a word in a MADV_WIPEONFORK page (Linux 4.14+), which reads zero in any
 * child, for the cost of a load; where there is no such page, the process
 * ID is compared (a system call).  The page is mapped when the library is
 * loaded, so that no call takes address space its caller saw free.
 */
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"

#ifndef MADV_WIPEONFORK
#define MADV_WIPEONFORK		18
#endif

static int *words;
static pid_t owner[MR_FORK_WORDS];

__attribute__((constructor))
static void map_words(void)
{
	size_t ps = mr_page_size();
	int *p = mmap(NULL, ps, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	pid_t me = getpid();
	int w;

	if (p == MAP_FAILED)
		return;
	if (madvise(p, ps, MADV_WIPEONFORK)) {
		munmap(p, ps);
		return;
	}
	/* What another library's constructor had made before this one ran. */
	for (w = 0; w < MR_FORK_WORDS; w++)
		p[w] = __atomic_load_n(&owner[w], __ATOMIC_ACQUIRE) == me;
	__atomic_store_n(&words, p, __ATOMIC_RELEASE);
}

void mr_fork_mark(int w)
{
	int *p = __atomic_load_n(&words, __ATOMIC_ACQUIRE);

	__atomic_store_n(&owner[w], getpid(), __ATOMIC_RELEASE);
	if (p)
		__atomic_store_n(&p[w], 1, __ATOMIC_RELEASE);
}

bool mr_fork_made_here(int w)
{
	int *p = __atomic_load_n(&words, __ATOMIC_ACQUIRE);

	if (p)
		return __atomic_load_n(&p[w], __ATOMIC_ACQUIRE) != 0;
	return __atomic_load_n(&owner[w], __ATOMIC_ACQUIRE) == getpid();
}
