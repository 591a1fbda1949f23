/* SPDX-License-Identifier: MIT */
/*
 * internal.h - declarations shared by the files of libmremap_retain.
 *
 * Internal functions return 0 or a positive errno value; only the API
 * functions set errno.
 */
#ifndef MREMAP_RETAIN_INTERNAL_H
#define MREMAP_RETAIN_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <mremap_retain.h>

#define MR_API __attribute__((visibility("default")))

/* Fallbacks for older libc headers. */
#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP	4
#endif
#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE	0x100000
#endif

/* A request that passed mr_args(): sizes rounded up to the page size. */
struct mr_req {
	uintptr_t old;
	size_t old_size;
	size_t new_size;
	uintptr_t new_addr;	/* the FIXED destination, else 0 (no hint) */
	int flags;		/* MREMAP_RETAIN_FIXED | MREMAP_RETAIN_NOREPLACE */
};

/* What mr_source_check() found out about a valid source. */
struct mr_src {
	unsigned int nparts;	/* mappings it spans; the rest is of one */
	int prot;
	bool locked;		/* VM_LOCKED */
	bool onfault;		/* locked with MLOCK_ONFAULT */
};

/* One VMA as /proc reports it. */
struct mr_vma {
	uintptr_t start, end;
	int prot;
	bool shared;
	bool file;		/* has a backing file (or device) */
	size_t page_size;	/* 0 if unknown */
	char name[96];		/* "" for plain anonymous memory */
};

/* smaps VmFlags bits that matter here. */
#define MR_VMF_UFFD		0x1	/* um, uw or ui */
#define MR_VMF_LOCKONFAULT	0x2	/* lf */
#define MR_VMF_SEALED		0x4	/* sl */

/* args.c */
size_t mr_page_size(void);
int mr_args(struct mr_req *r, void *old, size_t old_size, size_t new_size,
	    int flags, void *new_addr);

/* backend.c */
int mr_backend_current(void);	/* a backend, or 0: calls fail with ENOTSUP */

/* backend_*.c */
bool mr_module_available(void);
int mr_module_move(const struct mr_req *r, void **out);
bool mr_module_decommit_available(void);
int mr_module_decommit(void *addr, size_t len);
bool mr_dontunmap_available(void);
int mr_dontunmap_move(const struct mr_req *r, void **out);
int mr_copy_move(const struct mr_req *r, void **out);
/* move_into.c: a FIXED move into a mapping the module found alike to the
 * source's.  mr_move_into() returns 0, or 1: nothing moved (the
 * destination perhaps emptied), the module must move by page tables. */
#define MR_INTO_MAX	((size_t)32 << 20)
bool mr_move_into_fits(const struct mr_req *r);
int mr_move_into(const struct mr_req *r, void **out);

/* source.c, vma_query.c, vma_maps.c, smaps.c, uffd.c, seal.c */
/* @kernel_seals: the caller moves a plain one-mapping source by mremap(),
 * which refuses a sealed one itself before changing anything. */
int mr_source_check(const struct mr_req *r, struct mr_src *s,
		    bool kernel_seals);
int mr_vma_query(uintptr_t addr, struct mr_vma *v);	/* ENOTTY: no ioctl */
/* Is a lookup one PROCMAP_QUERY here (else it reads /proc/self/maps)? */
bool mr_vma_query_works(void);
int mr_vma_maps(uintptr_t addr, struct mr_vma *v);
/* The VMA containing @addr by either of the two (EFAULT: none). */
int mr_vma_at(uintptr_t addr, struct mr_vma *v);
int mr_vmflags(uintptr_t addr, unsigned int *vmf);
/* Is any of [start, start + len) registered with a userfaultfd?
 * 0 and the answer, ENOMEM, or ENOTSUP: cannot tell.  With @shared, also
 * whether a part may be shmem or hugetlbfs memory (true: it is, or the
 * question could not be put); false means a part is neither, which on a
 * range of one mapping is private anonymous memory (or a private mapping
 * of /dev/zero) where mr_uffd_tells_shmem() says the kernel can tell. */
int mr_uffd_registered(uintptr_t start, size_t len, bool *registered,
		       bool *shared);
/* The same for a range within one mapping, in one system call where the
 * kernel can tell so (ENOTSUP: it cannot; ask mr_uffd_registered()). */
int mr_uffd_one_registered(uintptr_t start, size_t len, bool *registered);
bool mr_uffd_tells_shmem(void);
/* This process's own userfaultfd (-1: none to be had here), registered for
 * missing faults with mr_uffd_register() (0 or an errno value; a refusal
 * leaves nothing registered; @ioctls, if not NULL, gets what the range
 * allows) and unregistered with mr_uffd_unregister(). */
int mr_uffd_own(void);
int mr_uffd_register(int fd, uintptr_t start, size_t len, uint64_t *ioctls);
void mr_uffd_unregister(int fd, uintptr_t start, size_t len);
bool mr_mseal_supported(void);
/* Does the symbolic link @path (relative to @dirfd) name a userfaultfd? */
bool mr_link_is_uffd(int dirfd, const char *path);

/* forked.c: a word per descriptor that describes its maker's mm; it reads
 * false in any child until the child marks its own.  Marking notes what
 * @fd names; a child closes the @fd it inherited only while the number
 * still names that, never a file the program opened on it since. */
enum { MR_FORK_UFFD, MR_FORK_MAPS, MR_FORK_WORDS };
void mr_fork_mark(int word, int fd);
bool mr_fork_made_here(int word);
void mr_fork_close_inherited(int word, int fd);

/* procfile.c: calls fn for each line (truncated to 511 bytes) until fn
 * returns nonzero; returns 0 or an errno value. */
int mr_proc_lines(const char *path,
		  int (*fn)(const char *line, size_t len, void *arg), void *arg);
/* Is a seccomp filter installed (or cannot it be told)?  Where one is, the
 * library makes no system call that a filter might kill the process for. */
bool mr_seccomp_filtered(void);

/* lock.c */
int mr_lock_precheck(size_t old_size, size_t new_size);
int mr_lock(void *addr, size_t len, bool onfault);
/* The move of a locked source that passed mr_source_check() (@s). */
int mr_locked_move(const struct mr_req *r, const struct mr_src *s, void **out);

/* parts.c: the move of a source of several mappings, part by part with
 * @move_one (a backend's move of a one-mapping source). */
int mr_parts_move(const struct mr_req *r,
		  int (*move_one)(const struct mr_req *r, void **out),
		  void **out);
/* Put @n bytes moved from @old to @p (protection @prot) back, after a
 * failure; by mremap() (true: the pages went back), else by copying. */
bool mr_move_back(void *p, size_t n, void *old, int prot);

/* dest.c */
int mr_dest_map(const struct mr_req *r, int prot, void **out);

/* decommit.c, decommit_method.c */
enum mr_decommit_method {
	MR_DECOMMIT_MMAP = 1,		/* mmap(PROT_NONE, MAP_FIXED): the benchmark only */
	MR_DECOMMIT_MPROTECT = 2,	/* mprotect(PROT_NONE) + MADV_DONTNEED */
	MR_DECOMMIT_MODULE = 3,		/* MREMAP_RETAIN_IOC_DECOMMIT */
};
/* The method of a release of @len bytes (0: forced to one that is not
 * available here), and the system call method the module hands its
 * exceptions back to. */
int mr_decommit_method(size_t len);
int mr_decommit_fallback(void);
/* One release by @method, without the hole check of the system calls. */
int mr_decommit_with(int method, void *addr, size_t len);
/* One whole release, as mremap_retain_decommit() makes it; what the module
 * hands back goes to @fallback (0: EOPNOTSUPP is returned instead). */
int mr_decommit_range(int method, int fallback, void *addr, size_t len);

#endif /* MREMAP_RETAIN_INTERNAL_H */
