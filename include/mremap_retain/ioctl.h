/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * mremap_retain/ioctl.h - the ABI between libmremap_retain and the
 * mremap_retain kernel module (/dev/mremap_retain).
 *
 * Every ioctl acts on the mm of the calling process only.
 */
#ifndef _UAPI_MREMAP_RETAIN_IOCTL_H
#define _UAPI_MREMAP_RETAIN_IOCTL_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define MREMAP_RETAIN_DEVICE_NAME	"mremap_retain"

/*
 * The ABI version changes only on an incompatible change; new operations
 * are announced by feature bits instead.
 */
#define MREMAP_RETAIN_ABI_VERSION	1

#define MREMAP_RETAIN_FEAT_MOVE		(1U << 0)	/* MREMAP_RETAIN_IOC_MOVE */
#define MREMAP_RETAIN_FEAT_DECOMMIT	(1U << 1)	/* MREMAP_RETAIN_IOC_DECOMMIT */
#define MREMAP_RETAIN_FEAT_ALIKE	(1U << 2)	/* MREMAP_RETAIN_MOVE_ALIKE */

/*
 * Flags of struct mremap_retain_move (FIXED and NOREPLACE have the
 * library's values).
 */
#define MREMAP_RETAIN_MOVE_FIXED	0x1U	/* new_addr is the destination */
#define MREMAP_RETAIN_MOVE_NOREPLACE	0x2U	/* with FIXED: EEXIST if occupied */
#define MREMAP_RETAIN_MOVE_ALIKE	0x4U	/* with FIXED: 1 if alike, see below */
#define MREMAP_RETAIN_MOVE_FLAGS	(MREMAP_RETAIN_MOVE_FIXED | \
					 MREMAP_RETAIN_MOVE_NOREPLACE | \
					 MREMAP_RETAIN_MOVE_ALIKE)

/*
 * Move [old_addr, old_addr + old_size) to a new mapping of new_size bytes and
 * leave the source mapped as fresh zero-fill anonymous memory.  Sizes are
 * rounded up to the page size.  new_addr is a hint, or the destination with
 * MREMAP_RETAIN_MOVE_FIXED; on success it is set to the destination.
 *
 * With MREMAP_RETAIN_MOVE_ALIKE (only where MREMAP_RETAIN_FEAT_ALIKE is
 * announced, EINVAL elsewhere) and FIXED without NOREPLACE, a source that
 * is one VMA and a destination inside one VMA alike to it (private
 * anonymous, readable and writable, not locked, sealed, registered with
 * userfaultfd, mergeable by KSM or holding guard regions, and the same
 * flags but soft-dirty, page protection, NUMA policy and name), for a
 * move that would not carry a huge PMD whole, are left as they are and
 * the ioctl returns 1, once every check of the move has passed (an error
 * comes first): the caller may move the pages into the destination's
 * own mapping (UFFDIO_MOVE), which ends as this move would but for its
 * VMA boundaries.  Otherwise the flag changes nothing.
 */
struct mremap_retain_move {
	__u64 old_addr;
	__u64 old_size;
	__u64 new_size;
	__u64 new_addr;		/* in: hint or FIXED address; out: result */
	__u32 flags;		/* MREMAP_RETAIN_MOVE_* */
	__u32 reserved;		/* must be zero (EINVAL otherwise) */
};

/*
 * Release [addr, addr + size) as mprotect(PROT_NONE) and then
 * madvise(MADV_DONTNEED) would, under one lock: the contents are discarded,
 * the range stays mapped and every access faults until it is mprotect()ed
 * back.  The errors below change nothing: ENOMEM if part of the range is
 * not mapped, EPERM if part is sealed, EOPNOTSUPP if part is memory the
 * module leaves to those two system calls (anything but private anonymous
 * memory that is unlocked, not executable and not registered with
 * userfaultfd, or no room in vm.max_map_count for a split).  If the
 * kernel runs out of memory while splitting a mapping (ENOMEM, after the
 * checks), the contents stay and the protection is put back (a mapping may
 * be left split, as mprotect() leaves it); only should putting it back
 * fail too may part of the range stay PROT_NONE, its contents intact.
 */
struct mremap_retain_decommit {
	__u64 addr;
	__u64 size;
	__u64 reserved;		/* must be zero (EINVAL otherwise) */
};

struct mremap_retain_info {
	__u32 abi_version;	/* out: MREMAP_RETAIN_ABI_VERSION */
	__u32 features;		/* out: MREMAP_RETAIN_FEAT_* */
	__u64 reserved[2];	/* out: zero */
};

/*
 * Magic 0xBC: unassigned in Documentation/userspace-api/ioctl/
 * ioctl-number.rst of every kernel we support (checked up to 7.2).
 */
#define MREMAP_RETAIN_IOC_MAGIC		0xBC

#define MREMAP_RETAIN_IOC_INFO	_IOR(MREMAP_RETAIN_IOC_MAGIC, 0x00, struct mremap_retain_info)
#define MREMAP_RETAIN_IOC_MOVE	_IOWR(MREMAP_RETAIN_IOC_MAGIC, 0x01, struct mremap_retain_move)
#define MREMAP_RETAIN_IOC_DECOMMIT	_IOW(MREMAP_RETAIN_IOC_MAGIC, 0x02, struct mremap_retain_decommit)

#endif /* _UAPI_MREMAP_RETAIN_IOCTL_H */
