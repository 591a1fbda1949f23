/* SPDX-License-Identifier: MIT */
/*
 * vma_query.c - look up the VMA containing an address with the
 * PROCMAP_QUERY ioctl on /proc/self/maps (Linux 6.11+): one syscall, no text;
 * mr_vma_at() falls back to reading /proc/self/maps where there is none.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"

/* The layout of struct procmap_query in <linux/fs.h>, spelled out here so
 * that the library builds on older headers too. */
struct mr_procmap_query {
	uint64_t size;
	uint64_t query_flags;
	uint64_t query_addr;
	uint64_t vma_start;
	uint64_t vma_end;
	uint64_t vma_flags;
	uint64_t vma_page_size;
	uint64_t vma_offset;
	uint64_t inode;
	uint32_t dev_major;
	uint32_t dev_minor;
	uint32_t vma_name_size;
	uint32_t build_id_size;
	uint64_t vma_name_addr;
	uint64_t build_id_addr;
};

#define MR_PROCMAP_QUERY	_IOWR('f', 17, struct mr_procmap_query)
#define MR_PQ_READ		0x1
#define MR_PQ_WRITE		0x2
#define MR_PQ_EXEC		0x4
#define MR_PQ_SHARED		0x8

/*
 * An open /proc/self/maps describes the mm of the process that opened it,
 * so a child must not use one it inherited (forked.c tells): it opens its
 * own.  -1: cannot be opened.  The lock is held across fork(), so that no
 * child starts with it taken.
 */
static int maps_fd = -1;
static pthread_mutex_t maps_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

static void maps_lock_take(void)
{
	pthread_mutex_lock(&maps_lock);
}

static void maps_lock_give(void)
{
	pthread_mutex_unlock(&maps_lock);
}

static void register_atfork(void)
{
	pthread_atfork(maps_lock_take, maps_lock_give, maps_lock_give);
}

static int get_maps_fd(void)
{
	int fd;

	/* The word first: once it is set, maps_fd is this process's own. */
	if (mr_fork_made_here(MR_FORK_MAPS))
		return __atomic_load_n(&maps_fd, __ATOMIC_ACQUIRE);
	pthread_once(&atfork_once, register_atfork);
	pthread_mutex_lock(&maps_lock);
	if (!mr_fork_made_here(MR_FORK_MAPS)) {
		mr_fork_close_inherited(MR_FORK_MAPS, maps_fd);
		fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
		__atomic_store_n(&maps_fd, fd < 0 ? -1 : fd, __ATOMIC_RELEASE);
		mr_fork_mark(MR_FORK_MAPS, fd);
	}
	fd = maps_fd;
	pthread_mutex_unlock(&maps_lock);
	return fd;
}

static bool query_works = true;

int mr_vma_query(uintptr_t addr, struct mr_vma *v)
{
	struct mr_procmap_query q;
	int fd;

	if (!__atomic_load_n(&query_works, __ATOMIC_RELAXED))
		return ENOTTY;
	fd = get_maps_fd();
	if (fd < 0)
		return ENOTTY;

	memset(&q, 0, sizeof(q));
	q.size = sizeof(q);
	q.query_addr = addr;
	q.vma_name_addr = (uintptr_t)v->name;
	q.vma_name_size = sizeof(v->name);
	if (ioctl(fd, MR_PROCMAP_QUERY, &q)) {
		if (errno == ENAMETOOLONG) {
			/* Only a path is that long: ask again without it. */
			q.vma_name_addr = 0;
			q.vma_name_size = 0;
			if (!ioctl(fd, MR_PROCMAP_QUERY, &q))
				goto found;
		}
		if (errno == ENOENT)
			return EFAULT;
		if (errno == ENOTTY || errno == EINVAL)
			__atomic_store_n(&query_works, false, __ATOMIC_RELAXED);
		return ENOTTY;
	}
found:
	if (!q.vma_name_size)
		v->name[0] = '\0';
	v->start = q.vma_start;
	v->end = q.vma_end;
	v->prot = ((q.vma_flags & MR_PQ_READ) ? PROT_READ : 0) |
		  ((q.vma_flags & MR_PQ_WRITE) ? PROT_WRITE : 0) |
		  ((q.vma_flags & MR_PQ_EXEC) ? PROT_EXEC : 0);
	v->shared = q.vma_flags & MR_PQ_SHARED;
	v->file = q.inode || q.dev_major || q.dev_minor;
	v->page_size = q.vma_page_size;
	return 0;
}

bool mr_vma_query_works(void)
{
	struct mr_vma v;

	if (__atomic_load_n(&query_works, __ATOMIC_RELAXED))
		mr_vma_query((uintptr_t)&query_works, &v);
	return __atomic_load_n(&query_works, __ATOMIC_RELAXED);
}

int mr_vma_at(uintptr_t addr, struct mr_vma *v)
{
	int err = mr_vma_query(addr, v);

	return err == ENOTTY ? mr_vma_maps(addr, v) : err;
}
