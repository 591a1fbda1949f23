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
 *
 * A child closes the descriptor it inherited only while the number still
 * names what its maker noted: the program may have closed it and opened a
 * file of its own on the same number since (closefrom() in a child is
 * common).  A /proc file has an inode of its own; a userfaultfd has one
 * from 5.12 on, and before shares the one of every anonymous inode, so
 * its link must also read as a userfaultfd.
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

#ifndef MADV_WIPEONFORK
#define MADV_WIPEONFORK		18
#endif

static int *words;
static pid_t owner[MR_FORK_WORDS];
/* What each descriptor named when it was marked. */
static struct {
	dev_t dev;
	ino_t ino;
} made[MR_FORK_WORDS];

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

void mr_fork_mark(int w, int fd)
{
	int *p = __atomic_load_n(&words, __ATOMIC_ACQUIRE);
	struct stat st;

	if (fd < 0 || fstat(fd, &st))
		st.st_dev = st.st_ino = 0;
	made[w].dev = st.st_dev;
	made[w].ino = st.st_ino;
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

void mr_fork_close_inherited(int w, int fd)
{
	char path[32];
	struct stat st;

	if (fd < 0 || fstat(fd, &st) || !made[w].ino ||
	    st.st_dev != made[w].dev || st.st_ino != made[w].ino)
		return;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (w == MR_FORK_UFFD && !mr_link_is_uffd(AT_FDCWD, path))
		return;
	close(fd);
}
