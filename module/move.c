// SPDX-License-Identifier: GPL-2.0
/*
 * The retain-move.
 *
 * This is mremap(MREMAP_MAYMOVE | MREMAP_DONTUNMAP) generalised to a new
 * size different from the old one: the page tables of the source move to a
 * new VMA of the new size, and the source range stays mapped, now empty, so
 * it reads as zero-fill memory again.  It follows mm/mremap.c: every check
 * that can fail runs before anything changes, accounting is that of mremap
 * (charge the whole new mapping, since the source keeps its own), and a
 * failure after the destination exists moves the page tables back and
 * unmaps the destination.
 */
#include <linux/capability.h>
#include <linux/err.h>
#include <linux/hugetlb.h>
#include <linux/mm.h>
#include <linux/sched/signal.h>
#include <linux/uaccess.h>

#include <mremap_retain/ioctl.h>

#include "compat.h"
#include "move.h"

/* Sizes and addresses after rounding, and what the move has to do. */
struct mrr_plan {
	unsigned long old_addr;
	unsigned long old_len;
	unsigned long new_addr;
	unsigned long new_len;
	unsigned long move_len;		/* min(old_len, new_len) */
	unsigned int flags;
	bool locked;			/* source is VM_LOCKED */
	bool populate;			/* fault in the locked growth after unlock */
	bool stored;			/* the result is in the caller's memory */
	bool store_failed;		/* ... could not be put there under the lock */
	/* What a FIXED destination's unmap gives back, in pages. */
	unsigned long dest_pages, dest_locked, dest_acct;
};

static bool mrr_fixed(const struct mrr_plan *p)
{
	return p->flags & MREMAP_RETAIN_MOVE_FIXED;
}

/* The checks that need no lock: the errno rows about the arguments. */
static long mrr_plan_request(const struct mrr_move *req, struct mrr_plan *p)
{
	p->flags = req->flags;
	if ((p->flags & MREMAP_RETAIN_MOVE_NOREPLACE) && !mrr_fixed(p))
		return -EINVAL;
	if (offset_in_page(req->old_addr))
		return -EINVAL;
	if (!req->old_size || !req->new_size)
		return -EINVAL;
	if (req->new_size > TASK_SIZE)
		return -ENOMEM;
	if (req->old_size > TASK_SIZE)
		return -EFAULT;

	p->old_addr = req->old_addr;
	p->old_len = PAGE_ALIGN(req->old_size);
	p->new_len = PAGE_ALIGN(req->new_size);
	p->move_len = min(p->old_len, p->new_len);
	if (p->old_addr > TASK_SIZE - p->old_len)
		return -EFAULT;

	p->new_addr = req->new_addr;
	if (!mrr_fixed(p))
		return 0;
	if (offset_in_page(p->new_addr))
		return -EINVAL;
	if (p->new_addr > TASK_SIZE - p->new_len)
		return -ENOMEM;
	if (p->old_addr + p->old_len > p->new_addr &&
	    p->new_addr + p->new_len > p->old_addr)
		return -EINVAL;
	if (p->new_addr < mrr_mmap_min_addr())
		return -EPERM;
	return 0;
}

/*
 * Only private anonymous memory can be left behind as fresh memory.  A
 * sealed source is EPERM before anything else, as mremap() has it.
 */
static long mrr_check_source(struct vm_area_struct *vma)
{
	if (mrr_vma_sealed(vma))
		return -EPERM;
	if (!vma_is_anonymous(vma) || vma->vm_file)
		return -EINVAL;
	if (vma->vm_flags & (VM_SHARED | VM_MAYSHARE | VM_IO | VM_PFNMAP |
			     VM_MIXEDMAP | VM_DONTEXPAND | VM_HUGETLB))
		return -EINVAL;
	if (is_vm_hugetlb_page(vma) || mrr_vma_uffd_registered(vma))
		return -EINVAL;
	return 0;
}

/*
 * A FIXED destination is unmapped first; refuse here whatever that unmap
 * would refuse, so that it cannot fail once we have started, and count
 * what it will give back, so that the limits are judged net of it, as
 * mremap() judges them after its unmap.
 */
static long mrr_check_destination(struct mm_struct *mm, struct mrr_plan *p)
{
	unsigned long start = p->new_addr, end = p->new_addr + p->new_len;
	struct vm_area_struct *vma;
	unsigned long pages;
	int err;

	for (vma = find_vma(mm, start); vma && vma->vm_start < end;
	     vma = find_vma(mm, vma->vm_end)) {
		if (p->flags & MREMAP_RETAIN_MOVE_NOREPLACE)
			return -EEXIST;
		pages = (min(end, vma->vm_end) - max(start, vma->vm_start)) >>
			PAGE_SHIFT;
		p->dest_pages += pages;
		if (vma->vm_flags & VM_LOCKED)
			p->dest_locked += pages;
		if (vma->vm_flags & VM_ACCOUNT)
			p->dest_acct += pages;
		if (mrr_vma_sealed(vma))
			return -EPERM;
		if (vma->vm_start < start) {
			err = mrr_vma_may_split(vma, start);
			if (err)
				return err;
		}
		if (vma->vm_end > end) {
			err = mrr_vma_may_split(vma, end);
			if (err)
				return err;
		}
	}
	return 0;
}

/*
 * Without FIXED: a free range, at the hint if it fits.  With no hint, put
 * the destination at the source's offset within a PMD, so that whole page
 * tables (and huge pages) move instead of single entries.
 */
static long mrr_choose_destination(struct vm_area_struct *vma,
				   struct mrr_plan *p)
{
	unsigned long pgoff = vma->vm_pgoff +
			      ((p->old_addr - vma->vm_start) >> PAGE_SHIFT);
	unsigned long min_addr = mrr_mmap_min_addr();
	unsigned long hint = p->new_addr & PAGE_MASK;
	unsigned long addr;

	if (hint && hint < min_addr)
		hint = PAGE_ALIGN(min_addr);
	if (hint > TASK_SIZE - p->new_len)
		hint = 0;
	if (!hint && p->move_len >= PMD_SIZE &&
	    p->new_len <= TASK_SIZE - PMD_SIZE) {
		addr = mrr_get_unmapped_area(0, p->new_len + PMD_SIZE, pgoff);
		if (!IS_ERR_VALUE(addr)) {
			p->new_addr = addr +
				((p->old_addr - addr) & (PMD_SIZE - 1));
			return 0;
		}
	}
	addr = mrr_get_unmapped_area(hint, p->new_len, pgoff);
	if (IS_ERR_VALUE(addr))
		return -ENOMEM;
	p->new_addr = addr;
	return 0;
}

/*
 * Store the destination in the caller's argument before anything changes,
 * so that a result that cannot be delivered fails the call with nothing
 * moved.  Under mmap_write_lock no fault may be taken: if the field is not
 * present and writable now, mrr_move() faults it in and tries again.
 */
static long mrr_store_result(struct mrr_plan *p, u64 __user *result)
{
	int err;

	pagefault_disable();
	err = put_user((u64)p->new_addr, result);
	pagefault_enable();
	if (err) {
		p->store_failed = true;
		return -EFAULT;
	}
	p->stored = true;
	return 0;
}

/* RLIMIT_MEMLOCK for a locked mapping growing by @bytes (mlock's rule). */
static bool mrr_mlock_ok(struct mm_struct *mm, unsigned long bytes)
{
	unsigned long limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;

	if (capable(CAP_IPC_LOCK))
		return true;
	return mm->locked_vm + (bytes >> PAGE_SHIFT) <= limit;
}

/* Give [start, start + len) a VMA of its own (for a locked source). */
static int mrr_isolate(struct mm_struct *mm, unsigned long start,
		       unsigned long len)
{
	struct vm_area_struct *vma = mrr_vma_lookup(mm, start);
	int err;

	if (vma->vm_start != start) {
		err = mrr_split_vma(mm, vma, start, 1);
		if (err)
			return err;
		vma = mrr_vma_lookup(mm, start);
	}
	if (vma->vm_end != start + len)
		return mrr_split_vma(mm, vma, start + len, 0);
	return 0;
}

/*
 * The pages of [old_addr, old_addr + move_len) are gone; discard the rest of
 * a shrunk source and leave the range as fresh, unlocked memory.
 */
static void mrr_retire_source(struct vm_area_struct *vma,
			      const struct mrr_plan *p)
{
	if (p->move_len < p->old_len)
		mrr_zap(vma, p->old_addr + p->move_len,
			p->old_len - p->move_len);
	if (p->locked)
		mrr_vma_clear_flags(vma, VM_LOCKED | VM_LOCKONFAULT);
	if (vma->vm_start == p->old_addr &&
	    vma->vm_end == p->old_addr + p->old_len)
		mrr_vma_forget_pages(vma);
}

/*
 * Put back what a failed move had moved and unmap the destination (which
 * returns its charge and total_vm).  The destination was a copy of a
 * locked source: its unmap takes its pages off locked_vm, which the move
 * never added; add them first, as mremap() does.
 */
static long mrr_undo(struct mm_struct *mm, struct mrr_plan *p,
		     struct vm_area_struct *vma, struct vm_area_struct *new_vma,
		     unsigned long moved, struct list_head *uf)
{
	if (moved)
		mrr_move_page_tables(new_vma, p->new_addr, vma, p->old_addr,
				     moved, true);
	if (p->locked)
		mm->locked_vm += p->new_len >> PAGE_SHIFT;
	/*
	 * This unmap splits nothing (the destination is a VMA of its own,
	 * or a neighbour it merged into would have to split): it can fail
	 * only if the maple tree cannot allocate; retry once.
	 */
	if (mrr_do_munmap(mm, p->new_addr, p->new_len, uf))
		mrr_do_munmap(mm, p->new_addr, p->new_len, uf);
	return -ENOMEM;
}

static long mrr_move_locked(struct mm_struct *mm, struct mrr_plan *p,
			    u64 __user *result, struct list_head *uf)
{
	unsigned long new_pages = p->new_len >> PAGE_SHIFT;
	struct vm_area_struct *vma, *new_vma;
	unsigned long new_pgoff, moved, grow;
	bool need_rmap_locks, account;
	long charged = 0;
	long err;

	vma = mrr_vma_lookup(mm, p->old_addr);
	if (!vma || p->old_addr + p->old_len > vma->vm_end)
		return -EFAULT;
	err = mrr_check_source(vma);
	if (err)
		return err;
	p->locked = vma->vm_flags & VM_LOCKED;
	account = vma->vm_flags & VM_ACCOUNT;

	err = mrr_fixed(p) ? mrr_check_destination(mm, p) :
			     mrr_choose_destination(vma, p);
	if (err)
		return err;

	/* Worst case: the source split in three, one split at the
	 * destination, and the new VMA (mremap keeps the same margin).
	 */
	if (mm->map_count + 2 >= mrr_max_map_count() - 3)
		return -ENOMEM;
	/* The limits, net of what a FIXED destination gives back. */
	if (new_pages > p->dest_pages &&
	    !mrr_may_expand_vm(mm, vma, new_pages - p->dest_pages))
		return -ENOMEM;
	grow = p->locked && p->new_len > p->old_len ?
	       (p->new_len - p->old_len) >> PAGE_SHIFT : 0;
	if (grow > p->dest_locked &&
	    !mrr_mlock_ok(mm, (grow - p->dest_locked) << PAGE_SHIFT))
		return -EAGAIN;

	err = mrr_store_result(p, result);
	if (err)
		return err;

	/* KSM pages must not turn up, still shared, at the destination. */
	err = mrr_ksm_unmerge(vma, p->old_addr, p->old_addr + p->move_len);
	if (err)
		return err;

	/*
	 * The destination is charged new_len, as mremap(MREMAP_DONTUNMAP)
	 * charges it (the source keeps its own charge).  What the FIXED
	 * unmap will give back is taken off the check, and added again once
	 * that unmap has given it back.
	 */
	if (account && new_pages > p->dest_acct) {
		if (mrr_vm_enough_memory(mm, new_pages - p->dest_acct))
			return -ENOMEM;
		charged = new_pages - p->dest_acct;
	}

	/* Only the source range loses VM_LOCKED: split it off first. */
	if (p->locked) {
		err = mrr_isolate(mm, p->old_addr, p->old_len);
		if (err)
			goto unacct;
	}
	if (mrr_fixed(p)) {
		err = mrr_do_munmap(mm, p->new_addr, p->new_len, uf);
		if (err)
			goto unacct;
		if (account) {
			mrr_vm_acct_memory(new_pages - charged);
			charged = new_pages;
		}
	}
	/* Splits and unmaps may have replaced the VMA structures. */
	vma = mrr_vma_lookup(mm, p->old_addr);

	mrr_vma_start_write(vma);
	new_pgoff = vma->vm_pgoff +
		    ((p->old_addr - vma->vm_start) >> PAGE_SHIFT);
	new_vma = mrr_copy_vma(&vma, p->old_addr, p->new_addr, p->new_len,
			       new_pgoff, &need_rmap_locks);
	if (!new_vma) {
		err = -ENOMEM;
		goto unacct;
	}
	mrr_vm_stat_account(mm, new_vma->vm_flags, new_pages);
	/* The source must still be the VMA it was: never merged into. */
	if (new_vma == vma || vma->vm_start > p->old_addr ||
	    vma->vm_end < p->old_addr + p->old_len)
		return mrr_undo(mm, p, vma, new_vma, 0, uf);

	moved = mrr_move_page_tables(vma, p->old_addr, new_vma, p->new_addr,
				     p->move_len, need_rmap_locks);
	if (moved < p->move_len)
		return mrr_undo(mm, p, vma, new_vma, moved, uf);

	mrr_retire_source(vma, p);
	if (p->locked) {
		/* The source's lock ends, the destination's begins. */
		mm->locked_vm += new_pages - (p->old_len >> PAGE_SHIFT);
		p->populate = p->new_len > p->old_len &&
			      !(new_vma->vm_flags & VM_LOCKONFAULT);
	}
	return 0;

unacct:
	if (charged)
		mrr_vm_unacct_memory(charged);
	return err;
}

long mrr_move(struct mrr_move *req)
{
	struct mm_struct *mm = current->mm;
	struct mrr_plan plan;
	LIST_HEAD(uf);
	int tries = 0;
	long err;

	for (;;) {
		plan = (struct mrr_plan) { 0 };
		err = mrr_plan_request(req, &plan);
		if (err)
			return err;
		if (mmap_write_lock_killable(mm))
			return -EINTR;
		err = mrr_move_locked(mm, &plan, req->result, &uf);
		mmap_write_unlock(mm);
		/* A userfaultfd monitor of a replaced destination hears of it. */
		mrr_userfaultfd_unmap_complete(mm, &uf);
		if (!plan.store_failed)
			break;
		/* Fault the field in (EFAULT if it is not writable at all). */
		if (++tries > 3 || put_user((u64)req->new_addr, req->result))
			return -EFAULT;
	}
	if (err) {
		/* The caller's argument is part of "nothing changed". */
		if (plan.stored)
			put_user((u64)req->new_addr, req->result);
		return err;
	}

	/* A locked mapping is resident: fault in what it grew by. */
	if (plan.populate)
		mrr_mm_populate(plan.new_addr + plan.old_len,
				plan.new_len - plan.old_len);
	req->new_addr = plan.new_addr;
	return 0;
}
