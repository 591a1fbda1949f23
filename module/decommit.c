// SPDX-License-Identifier: GPL-2.0
/*
 * The chunk release of a chunk allocator: what mprotect(PROT_NONE) followed
 * by madvise(MADV_DONTNEED) does, in one call and under one mmap_write_lock.
 * The range stays mapped (reserved), its pages and swap entries are freed,
 * and every access faults until the caller mprotect()s it back.
 *
 * Every check runs before anything changes: a hole, a sealed mapping or a
 * mapping left to user space fails the call with nothing done, where the
 * two system calls could stop halfway.  The protection changes first: it is
 * the step that can still fail (an allocation in a split or a merge), and
 * until the pages go it can be put back, so a failure leaves the range as
 * it was (perhaps split, as mprotect() leaves it).  Then the pages go,
 * which cannot fail.  Only private anonymous memory that
 * is neither locked, executable, a shadow stack nor registered with
 * userfaultfd is released here; for the rest the library uses the system
 * calls, which know how to unlock, notify a userfaultfd monitor or reset an
 * execute-only protection key.
 */
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "compat.h"
#include "decommit.h"

#define MRR_DECOMMIT_LEFT_TO_USER \
	(VM_LOCKED | VM_LOCKONFAULT | VM_EXEC | VM_SHARED | MRR_VM_SHADOW_STACK)

/* One VMA's part of the range, its VMA as the checks found it, its flags. */
struct mrr_piece {
	unsigned long start, end;
	struct vm_area_struct *vma;
	vm_flags_t flags;
};

#define MRR_DECOMMIT_STACK_PIECES 8

/*
 * Walk the range's VMAs once: note each part in @pieces while there is
 * room for it (@room), and say what the whole range is, in the errno of the
 * two system calls and their order: a hole anywhere is ENOMEM (the library
 * checks a longer range for holes first, and mprotect() fails on one page
 * in a hole); a sealed mapping is EPERM.  EOPNOTSUPP hands the whole range
 * back to user space.  *@n: how many parts.
 */
static int mrr_decommit_walk(struct mm_struct *mm, unsigned long start,
			     unsigned long end, struct mrr_piece *pieces,
			     int room, int *n)
{
	bool sealed = false, left = false;
	struct vm_area_struct *vma;
	unsigned long addr;

	for (*n = 0, addr = start; addr < end; addr = vma->vm_end, ++*n) {
		vma = mrr_vma_lookup(mm, addr);
		if (!vma)
			return -ENOMEM;
		if (mrr_vma_sealed(vma))
			sealed = true;
		if (!vma_is_anonymous(vma) || vma->vm_file ||
		    (vma->vm_flags & MRR_DECOMMIT_LEFT_TO_USER) ||
		    mrr_vma_uffd_registered(vma))
			left = true;
		if (*n < room)
			pieces[*n] = (struct mrr_piece) {
				.start = addr,
				.end = min(end, vma->vm_end),
				.vma = vma,
				.flags = vma->vm_flags,
			};
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
	return 0;
}

static int mrr_decommit_locked(struct mm_struct *mm, unsigned long start,
			       unsigned long end)
{
	struct mrr_piece stack[MRR_DECOMMIT_STACK_PIECES], *pieces = stack;
	struct vm_area_struct *vma;
	unsigned long addr;
	int n, i, err;

	err = mrr_decommit_walk(mm, start, end, stack,
				MRR_DECOMMIT_STACK_PIECES, &n);
	if (err)
		return err;
	if (n > MRR_DECOMMIT_STACK_PIECES) {
		/* vm.max_map_count may allow more than kmalloc() can give. */
		pieces = kvmalloc_array(n, sizeof(*pieces), GFP_KERNEL);
		if (!pieces)
			return -ENOMEM;
		/* Nothing changed since: the lock is held. */
		err = mrr_decommit_walk(mm, start, end, pieces, n, &i);
		if (!err && WARN_ON_ONCE(i != n))
			err = -ENOMEM;
		if (err)
			goto out;
	}
	/* The LSM decides before anything is discarded, as mprotect() asks it first. */
	for (i = 0; i < n; i++) {
		err = mrr_security_protect_none(pieces[i].vma);
		if (err)
			goto out;
	}
	/* The pkey stays: it is reset only for execute-only mappings. */
	for (i = 0; i < n; i++) {
		err = mrr_protect(mm, pieces[i].start, pieces[i].end,
				  pieces[i].flags & ~VM_ACCESS_FLAGS);
		if (err)
			break;
	}
	if (err) {
		/*
		 * Put back what was protected; with nothing zapped yet, a
		 * second failure here would leave the bytes, inaccessible.
		 * Only the access bits go back, onto the flags the mapping
		 * has now, as mprotect() would put them: PROT_NONE may have
		 * dropped VM_ACCOUNT and its charge (an anonymous mapping
		 * without anon_vma), which mprotect_fixup() charges again
		 * only where write access returns.
		 */
		while (i--) {
			vma = mrr_vma_lookup(mm, pieces[i].start);
			if (WARN_ON_ONCE(!vma))
				continue;
			mrr_protect(mm, pieces[i].start, pieces[i].end,
				    (vma->vm_flags & ~VM_ACCESS_FLAGS) |
				    (pieces[i].flags & VM_ACCESS_FLAGS));
		}
		goto out;
	}
	/*
	 * Now the pages.  Nothing can refill the range in between: it is
	 * PROT_NONE, and faults wait for mmap_lock, or, with per-VMA locks,
	 * for the VMA write locks mprotect_fixup() took.  The protection
	 * change may have split or merged VMAs: look them up again.
	 */
	for (addr = start; addr < end; addr = vma->vm_end) {
		vma = mrr_vma_lookup(mm, addr);
		if (WARN_ON_ONCE(!vma))
			break;
		mrr_vma_start_write(vma);
		mrr_zap(vma, addr, min(end, vma->vm_end) - addr);
	}
out:
	if (pieces != stack)
		kvfree(pieces);
	return err;
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
