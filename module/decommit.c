// SPDX-License-Identifier: GPL-2.0
/*
 * The chunk release of a chunk allocator: what mprotect(PROT_NONE) followed
 * by madvise(MADV_DONTNEED) does, in one call and under one mmap_write_lock.
 * The range stays mapped (reserved), its pages and swap entries are freed,
 * and every access faults until the caller mprotect()s it back.
 *
 * Every check runs before anything changes: a hole, a sealed mapping or a
 * mapping left to user space fails the call with nothing done, where the
 * two system calls could stop halfway.  The pages go first and the
 * protection after, which spares one TLB flush (see mrr_decommit_locked());
 * so an allocation failure in the split of a mapping, the one error left
 * after the checks, leaves the range released but accessible.  Only private anonymous memory that
 * is neither locked, executable, a shadow stack nor registered with
 * userfaultfd is released here; for the rest the library uses the system
 * calls, which know how to unlock, notify a userfaultfd monitor or reset an
 * execute-only protection key.
 */
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/sched.h>

#include "compat.h"
#include "decommit.h"

#define MRR_DECOMMIT_LEFT_TO_USER \
	(VM_LOCKED | VM_LOCKONFAULT | VM_EXEC | VM_SHARED | MRR_VM_SHADOW_STACK)

/*
 * The errno of the two system calls, in their order: a hole anywhere is
 * ENOMEM (the library checks for holes first); a sealed mapping is EPERM.
 * EOPNOTSUPP hands the whole range back to user space.
 */
static int mrr_decommit_check(struct mm_struct *mm, unsigned long start,
			      unsigned long end)
{
	bool sealed = false, left = false;
	unsigned long addr;

	for (addr = start; addr < end; ) {
		struct vm_area_struct *vma = mrr_vma_lookup(mm, addr);

		if (!vma)
			return -ENOMEM;
		if (mrr_vma_sealed(vma))
			sealed = true;
		if (!vma_is_anonymous(vma) || vma->vm_file ||
		    (vma->vm_flags & MRR_DECOMMIT_LEFT_TO_USER) ||
		    mrr_vma_uffd_registered(vma))
			left = true;
		addr = vma->vm_end;
	}
	if (left)
		return -EOPNOTSUPP;
	if (sealed)
		return -EPERM;
	/*
	 * Splitting off the range adds at most two mappings; where a merge
	 * would make room, mprotect() itself may still succeed.
	 */
	if (mm->map_count + 2 > mrr_max_map_count())
		return -EOPNOTSUPP;
	/* The LSM decides before anything is discarded, as mprotect() asks it first. */
	for (addr = start; addr < end; ) {
		struct vm_area_struct *vma = mrr_vma_lookup(mm, addr);
		int err = mrr_security_protect_none(vma);

		if (err)
			return err;
		addr = vma->vm_end;
	}
	return 0;
}

static int mrr_decommit_locked(struct mm_struct *mm, unsigned long start,
			       unsigned long end)
{
	struct vm_area_struct *vma;
	unsigned long addr, next;
	int err;

	err = mrr_decommit_check(mm, start, end);
	if (err)
		return err;
	/*
	 * Pages first, then protection: with no page left, mprotect_fixup()
	 * changes no entry and flushes no TLB, so the release costs one
	 * flush where the two system calls pay two.  Nothing can refill the
	 * range in between: faults wait for mmap_lock, or, with per-VMA
	 * locks, for the VMA write locks taken here first.
	 */
	for (addr = start; addr < end; addr = next) {
		vma = mrr_vma_lookup(mm, addr);
		next = min(end, vma->vm_end);
		mrr_vma_start_write(vma);
		mrr_zap(vma, addr, next - addr);
	}
	for (addr = start; addr < end; addr = next) {
		vma = mrr_vma_lookup(mm, addr);
		next = min(end, vma->vm_end);
		err = mrr_protect_none(mm, addr, next);
		if (err)
			return err;
	}
	return 0;
}

long mrr_decommit(u64 addr, u64 size)
{
	struct mm_struct *mm = current->mm;
	unsigned long start = addr, end;
	long err;

	if (offset_in_page(addr) || !size || start != addr)
		return -EINVAL;
	if (size > TASK_SIZE || start > TASK_SIZE - PAGE_ALIGN(size))
		return -ENOMEM;
	end = start + PAGE_ALIGN(size);

	if (mmap_write_lock_killable(mm))
		return -EINTR;
	err = mrr_decommit_locked(mm, start, end);
	mmap_write_unlock(mm);
	return err;
}
