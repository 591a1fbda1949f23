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
 *
 * The source may be several adjacent VMAs with no hole between them (its
 * parts), as Linux 6.17's mremap() moves them: each part becomes a VMA of
 * its own at the same offset in the destination, with its own flags, and
 * growth goes to the part that holds the last byte moved.
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
	unsigned long nparts;		/* VMAs the source range spans */
	/*
	 * The VMA that holds old_addr, looked up once; NULL where a step
	 * may have replaced it (a split, an unmap, an undo), so that the
	 * next lookup is a real one.
	 */
	struct vm_area_struct *first;
	bool locked;			/* some part is VM_LOCKED */
	bool tail_locked;		/* the part that takes growth is */
	unsigned long src_locked;	/* pages of the source that are locked */
	unsigned long new_locked;	/* ... of the destination, once moved */
	unsigned long new_acct;		/* ... of the destination with VM_ACCOUNT */
	unsigned long new_data;		/* ... that count as data (RLIMIT_DATA) */
	struct vm_area_struct *data_vma, *other_vma;	/* one of each kind */
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
 * One part of the source: [start, end) is the share of the source range in
 * @vma; the first @moved bytes of it (all, but for a shrink) go to
 * [new_start, new_start + new_len), new_len taking the growth in the part
 * that holds the last byte moved.
 */
struct mrr_part {
	struct vm_area_struct *vma;
	unsigned long start, end;
	unsigned long moved;
	unsigned long new_start, new_len;
};

/* The part at @addr of the source range; false at a hole. */
static bool mrr_part_at(struct mm_struct *mm, const struct mrr_plan *p,
			unsigned long addr, struct mrr_part *part)
{
	unsigned long move_end = p->old_addr + p->move_len;

	part->vma = addr == p->old_addr && p->first ? p->first :
		    mrr_vma_lookup(mm, addr);
	if (!part->vma)
		return false;
	part->start = addr;
	part->end = min(p->old_addr + p->old_len, part->vma->vm_end);
	part->moved = addr < move_end ? min(part->end, move_end) - addr : 0;
	part->new_start = p->new_addr + (addr - p->old_addr);
	part->new_len = part->moved;
	if (part->moved && part->start + part->moved == move_end)
		part->new_len += p->new_len - p->move_len;
	return true;
}

/*
 * The part at @addr where mrr_check_parts() found no hole, with mmap_lock
 * held since: a hole now is a bug, warned once and never dereferenced.
 */
static bool mrr_part_known(struct mm_struct *mm, const struct mrr_plan *p,
			   unsigned long addr, struct mrr_part *part)
{
	return !WARN_ON_ONCE(!mrr_part_at(mm, p, addr, part));
}

/*
 * Only private anonymous memory can be left behind as fresh memory.  A
 * sealed source is EPERM before anything else, as mremap() has it.
 */
static long mrr_check_source(struct vm_area_struct *vma)
{
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
 * Walk the parts: a hole is EFAULT, a sealed part EPERM before any part's
 * kind is looked at, then each part must be movable.  Sum up what the
 * limits and the accounting need.
 */
static long mrr_check_parts(struct mm_struct *mm, struct mrr_plan *p)
{
	unsigned long old_end = p->old_addr + p->old_len, addr;
	struct mrr_part part;
	long err;

	for (addr = p->old_addr; addr < old_end; addr = part.end) {
		if (!mrr_part_at(mm, p, addr, &part))
			return -EFAULT;
		if (addr == p->old_addr)
			p->first = part.vma;
		if (mrr_vma_sealed(part.vma))
			return -EPERM;
	}
	for (addr = p->old_addr; addr < old_end; addr = part.end) {
		vm_flags_t flags;
		unsigned long new_pages;

		if (!mrr_part_known(mm, p, addr, &part))
			return -EFAULT;
		err = mrr_check_source(part.vma);
		if (err)
			return err;
		flags = part.vma->vm_flags;
		new_pages = part.new_len >> PAGE_SHIFT;
		p->nparts++;
		if (flags & VM_LOCKED) {
			p->locked = true;
			p->src_locked += (part.end - part.start) >> PAGE_SHIFT;
			p->new_locked += new_pages;
			if (part.new_len > part.moved)
				p->tail_locked = true;
		}
		if (flags & VM_ACCOUNT)
			p->new_acct += new_pages;
		if ((flags & (VM_WRITE | VM_SHARED | VM_STACK)) == VM_WRITE) {
			p->new_data += new_pages;
			p->data_vma = part.vma;
		} else {
			p->other_vma = part.vma;
		}
	}
	return 0;
}

/*
 * MREMAP_RETAIN_MOVE_ALIKE: does the destination lie inside one VMA that
 * differs from the source's (one VMA, already checked) in nothing this
 * move would give it?  Then the caller moves the pages into it instead
 * (the UAPI header).  Only read-write memory, so that the caller can
 * always copy back what it could not move back.  Not for KSM memory
 * (UFFDIO_MOVE drops a KSM zero page without its count), nor where guard
 * regions may be (MADV_DONTNEED keeps their markers, which an unmap would
 * drop), nor where this move would take a huge PMD whole (source and
 * destination congruent modulo PMD_SIZE over an aligned PMD), which
 * UFFDIO_MOVE would split.
 */
static bool mrr_alike(struct mm_struct *mm, const struct mrr_plan *p)
{
	const vm_flags_t refused = VM_LOCKED | VM_LOCKONFAULT | VM_MERGEABLE |
				   MRR_VM_MAYBE_GUARD;
	struct vm_area_struct *src = p->first, *dst;

	if (!(p->flags & MREMAP_RETAIN_MOVE_ALIKE) || !mrr_fixed(p) ||
	    (p->flags & MREMAP_RETAIN_MOVE_NOREPLACE) || p->nparts != 1)
		return false;
	if (!((p->old_addr ^ p->new_addr) & ~PMD_MASK) &&
	    ALIGN(p->old_addr, PMD_SIZE) + PMD_SIZE <= p->old_addr + p->move_len)
		return false;
	dst = mrr_vma_lookup(mm, p->new_addr);
	if (!dst || dst->vm_end < p->new_addr + p->new_len)
		return false;
	if ((src->vm_flags & (VM_READ | VM_WRITE)) != (VM_READ | VM_WRITE) ||
	    (src->vm_flags & refused) ||
	    ((src->vm_flags ^ dst->vm_flags) & ~VM_SOFTDIRTY))
		return false;
	return !mrr_check_source(dst) && !mrr_vma_sealed(dst) &&
	       pgprot_val(src->vm_page_prot) == pgprot_val(dst->vm_page_prot) &&
	       mrr_vma_same_policy(src, dst) && mrr_vma_same_name(src, dst);
}

/*
 * RLIMIT_AS over the whole destination and RLIMIT_DATA over its data parts,
 * net of what a FIXED destination gives back (may_expand_vm() judges one
 * kind of mapping at a time).
 */
static bool mrr_limits_ok(struct mm_struct *mm, const struct mrr_plan *p)
{
	unsigned long pages = p->new_len >> PAGE_SHIFT;
	unsigned long net = pages > p->dest_pages ? pages - p->dest_pages : 0;
	unsigned long data = min(p->new_data, net);

	if (!net)
		return true;
	if (!p->other_vma)
		return mrr_may_expand_vm(mm, p->data_vma, net);
	if (p->data_vma && !mrr_may_expand_vm(mm, p->data_vma, data))
		return false;
	return mrr_may_expand_vm(mm, p->other_vma, net);
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
	     vma = vma->vm_end < end ? find_vma(mm, vma->vm_end) : NULL) {
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

/*
 * Give the source range VMAs of its own at both ends, where a part that is
 * locked reaches past them: only the source range loses VM_LOCKED.
 */
static int mrr_isolate(struct mm_struct *mm, const struct mrr_plan *p)
{
	unsigned long end = p->old_addr + p->old_len;
	struct vm_area_struct *vma = mrr_vma_lookup(mm, p->old_addr);
	int err;

	if (WARN_ON_ONCE(!vma))
		return -EFAULT;
	if (vma->vm_start != p->old_addr && (vma->vm_flags & VM_LOCKED)) {
		err = mrr_split_vma(mm, vma, p->old_addr, 1);
		if (err)
			return err;
	}
	vma = mrr_vma_lookup(mm, end - 1);
	if (WARN_ON_ONCE(!vma))
		return -EFAULT;
	if (vma->vm_end != end && (vma->vm_flags & VM_LOCKED))
		return mrr_split_vma(mm, vma, end, 0);
	return 0;
}

/*
 * The moved pages of each part are gone; discard the rest of a shrunk
 * source and leave every part as fresh, unlocked memory.
 */
static void mrr_retire_source(struct mm_struct *mm, const struct mrr_plan *p)
{
	unsigned long old_end = p->old_addr + p->old_len, addr;
	struct mrr_part part;

	for (addr = p->old_addr; addr < old_end; addr = part.end) {
		if (!mrr_part_known(mm, p, addr, &part))
			return;
		/*
		 * Before the zap: with per-VMA locks a fault does not wait
		 * for mmap_lock, and one taken between the zap and
		 * mrr_vma_forget_pages() would map a page naming the
		 * anon_vma that is let go.  The parts that moved are locked
		 * already; those past what moves (a shrink) are not.
		 */
		mrr_vma_start_write(part.vma);
		if (part.moved < part.end - part.start)
			mrr_zap(part.vma, part.start + part.moved,
				part.end - part.start - part.moved);
		if (part.vma->vm_flags & VM_LOCKED)
			mrr_vma_clear_flags(part.vma,
					    VM_LOCKED | VM_LOCKONFAULT);
		if (part.vma->vm_start == part.start &&
		    part.vma->vm_end == part.end)
			mrr_vma_forget_pages(part.vma);
	}
}

/* Does @vma reach into the source range (a destination merged into it)? */
static bool mrr_in_source(const struct mrr_plan *p, struct vm_area_struct *vma)
{
	return vma->vm_start < p->old_addr + p->old_len &&
	       vma->vm_end > p->old_addr;
}

/*
 * Put back the first @moved bytes a failed move had moved, part by part,
 * and unmap the destination (which returns its charge and total_vm).  The
 * destination's locked parts were copies of locked sources: their unmap
 * takes their pages off locked_vm, which the move never added; add them
 * first, as mremap() does.  @made: the bytes of destination mapped so far.
 */
static long mrr_undo(struct mm_struct *mm, struct mrr_plan *p,
		     unsigned long moved, unsigned long made,
		     struct list_head *uf)
{
	unsigned long addr, len, locked = 0;
	struct vm_area_struct *new_vma;
	struct mrr_part part;

	p->first = NULL;	/* the failed step may have changed it */
	for (addr = p->old_addr; addr < p->old_addr + made; addr = part.end) {
		if (!mrr_part_known(mm, p, addr, &part))
			break;
		len = addr < p->old_addr + moved ?
		      min(part.moved, p->old_addr + moved - addr) : 0;
		new_vma = mrr_vma_lookup(mm, part.new_start);
		if (len && new_vma)
			mrr_move_page_tables(new_vma, part.new_start, part.vma,
					     part.start, len, true);
		if (new_vma && (new_vma->vm_flags & VM_LOCKED))
			locked += part.new_len >> PAGE_SHIFT;
	}
	mm->locked_vm += locked;
	/*
	 * This unmap splits nothing (the destination is VMAs of its own,
	 * or a neighbour one merged into would have to split): it can fail
	 * only if the maple tree cannot allocate; retry once.
	 */
	if (mrr_do_munmap(mm, p->new_addr, p->new_len, uf))
		mrr_do_munmap(mm, p->new_addr, p->new_len, uf);
	return -ENOMEM;
}

/*
 * Each part in turn: a new VMA at its place in the destination, its page
 * tables moved there.  0, or the failure undone (the charge of what was not
 * made yet left to the caller: *made says how far it got).
 */
static long mrr_move_parts(struct mm_struct *mm, struct mrr_plan *p,
			   unsigned long *made, struct list_head *uf)
{
	unsigned long move_end = p->old_addr + p->move_len, addr, moved = 0;
	struct vm_area_struct *new_vma;
	unsigned long pgoff, done;
	struct mrr_part part;
	bool need_rmap_locks;

	*made = 0;
	for (addr = p->old_addr; addr < move_end; addr = part.end) {
		if (!mrr_part_known(mm, p, addr, &part))
			return *made ? mrr_undo(mm, p, moved, *made, uf) :
				       -EFAULT;
		mrr_vma_start_write(part.vma);
		pgoff = part.vma->vm_pgoff +
			((part.start - part.vma->vm_start) >> PAGE_SHIFT);
		new_vma = mrr_copy_vma(&part.vma, part.start, part.new_start,
				       part.new_len, pgoff, &need_rmap_locks);
		if (addr == p->old_addr)
			p->first = part.vma;	/* copy_vma() may update it */
		if (!new_vma)
			return *made ? mrr_undo(mm, p, moved, *made, uf) :
				       -ENOMEM;
		*made = part.end - p->old_addr;
		mrr_vm_stat_account(mm, new_vma->vm_flags,
				    part.new_len >> PAGE_SHIFT);
		/* The source must still be the VMAs it was: never merged into. */
		if (mrr_in_source(p, new_vma) || part.vma->vm_start > part.start ||
		    part.vma->vm_end < part.end)
			return mrr_undo(mm, p, moved, *made, uf);
		done = mrr_move_page_tables(part.vma, part.start, new_vma,
					    part.new_start, part.moved,
					    need_rmap_locks);
		moved += done;
		if (done < part.moved)
			return mrr_undo(mm, p, moved, *made, uf);
	}
	return 0;
}

/* Break KSM sharing in what moves, part by part. */
static int mrr_ksm_unmerge_parts(struct mm_struct *mm, struct mrr_plan *p)
{
	unsigned long move_end = p->old_addr + p->move_len, addr;
	struct mrr_part part;
	int err;

	for (addr = p->old_addr; addr < move_end; addr = part.end) {
		if (!mrr_part_known(mm, p, addr, &part))
			return -EFAULT;
		err = mrr_ksm_unmerge(part.vma, part.start,
				      part.start + part.moved);
		if (err)
			return err;
	}
	return 0;
}

/* Pages charged for the destination of the parts from @addr on. */
static unsigned long mrr_acct_from(struct mm_struct *mm, struct mrr_plan *p,
				   unsigned long addr)
{
	unsigned long move_end = p->old_addr + p->move_len, pages = 0;
	struct mrr_part part;

	for (; addr < move_end; addr = part.end) {
		if (!mrr_part_known(mm, p, addr, &part))
			break;
		if (part.vma->vm_flags & VM_ACCOUNT)
			pages += part.new_len >> PAGE_SHIFT;
	}
	return pages;
}

static long mrr_move_locked(struct mm_struct *mm, struct mrr_plan *p,
			    u64 __user *result, struct list_head *uf)
{
	unsigned long grow, made;
	long charged = 0, room;
	long err;

	err = mrr_check_parts(mm, p);
	if (err)
		return err;
	err = mrr_fixed(p) ? mrr_check_destination(mm, p) :
			     mrr_choose_destination(p->first, p);
	if (err)
		return err;

	/*
	 * Worst case: the source split at both ends, one split at the
	 * destination, and a new VMA per part (mremap keeps the same margin).
	 * Signed, as mremap counts: vm.max_map_count may be set below 3.
	 */
	room = (long)mrr_max_map_count() - 3 - mm->map_count;
	if ((long)p->nparts + 1 >= room)
		return -ENOMEM;
	/* The limits, net of what a FIXED destination gives back. */
	if (!mrr_limits_ok(mm, p))
		return -ENOMEM;
	grow = p->tail_locked && p->new_len > p->old_len ?
	       (p->new_len - p->old_len) >> PAGE_SHIFT : 0;
	if (grow > p->dest_locked &&
	    !mrr_mlock_ok(mm, (grow - p->dest_locked) << PAGE_SHIFT))
		return -EAGAIN;
	/* Only now: should the caller's own move fail, this one must not. */
	if (mrr_alike(mm, p))
		return MRR_MOVE_ALIKE;

	err = mrr_store_result(p, result);
	if (err)
		return err;

	/* KSM pages must not turn up, still shared, at the destination. */
	err = mrr_ksm_unmerge_parts(mm, p);
	if (err)
		return err;

	/*
	 * The destination is charged what its accountable parts map, as
	 * mremap(MREMAP_DONTUNMAP) charges it (the source keeps its own
	 * charge).  What the FIXED unmap will give back is taken off the
	 * check, and added again once that unmap has given it back.
	 */
	if (p->new_acct > p->dest_acct) {
		if (mrr_vm_enough_memory(mm, p->new_acct - p->dest_acct))
			return -ENOMEM;
		charged = p->new_acct - p->dest_acct;
	}

	if (p->locked) {
		p->first = NULL;	/* split */
		err = mrr_isolate(mm, p);
		if (err)
			goto unacct;
	}
	if (mrr_fixed(p)) {
		/* An unmap that splits the source's VMA replaces it. */
		if (p->first && p->first->vm_end > p->new_addr &&
		    p->first->vm_start < p->new_addr + p->new_len)
			p->first = NULL;
		err = mrr_do_munmap(mm, p->new_addr, p->new_len, uf);
		if (err)
			goto unacct;
		if (p->new_acct) {
			mrr_vm_acct_memory(p->new_acct - charged);
			charged = p->new_acct;
		}
	}

	err = mrr_move_parts(mm, p, &made, uf);
	if (err) {
		/* The destination's unmap returned the charge of what was made. */
		if (made)
			charged = mrr_acct_from(mm, p, p->old_addr + made);
		goto unacct;
	}

	mrr_retire_source(mm, p);
	if (p->locked) {
		/* The source's lock ends, the destination's begins. */
		mm->locked_vm += p->new_locked - p->src_locked;
		if (grow) {
			struct vm_area_struct *last;

			last = mrr_vma_lookup(mm, p->new_addr + p->new_len - 1);
			p->populate = !WARN_ON_ONCE(!last) &&
				      !(last->vm_flags & VM_LOCKONFAULT);
		}
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
