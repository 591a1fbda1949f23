// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel-version-dependent half of mremap_retain.
 *
 * Every difference between the kernels we support is settled here, behind
 * the interface of compat.h: the stubs for non-exported functions (with the
 * signature each version has), the variables read through kallsyms, and the
 * inline helpers whose names or arguments changed.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/ksm.h>
#include <linux/rmap.h>
#include <linux/sched/mm.h>
#include <linux/security.h>
#include <linux/static_call.h>
#include <linux/userfaultfd_k.h>
#include <asm/tlbflush.h>

/*
 * struct mmu_gather comes with asm/tlb.h, whose x86 tlb_flush() inline
 * calls a function that asm/tlbflush.h declares for built-in code only.
 * That inline is never used here; the header only needs the declaration.
 */
#ifdef MODULE
void flush_tlb_mm_range(struct mm_struct *mm, unsigned long start,
			unsigned long end, unsigned int stride_shift,
			bool freed_tables);
#endif
#include <asm/tlb.h>

#include "compat.h"
#include "ksyms.h"

/*
 * Private mm/ declarations: not in any headers package, so they are written
 * here from each version's mm/internal.h and mm/vma.h.  move_page_tables()
 * took a struct pagetable_move_control from 6.15 on (see probe.sh).
 */
#if !defined(MRR_HAVE_MOVE_PAGE_TABLES_IN_MM_H) && \
	defined(MRR_HAVE_MOVE_PAGE_TABLES_PMC)
struct pagetable_move_control {
	struct vm_area_struct *old;
	struct vm_area_struct *new;
	unsigned long old_addr;
	unsigned long old_end;
	unsigned long new_addr;
	unsigned long len_in;
	bool need_rmap_locks;
	bool for_stack;
};
#endif

/* Stubs: the first targets of the static calls (ksyms.h). */

#if defined(MRR_HAVE_COPY_VMA_NO_KEEP_SOURCE)
static struct vm_area_struct *
k_copy_vma(struct vm_area_struct **vmap, unsigned long addr, unsigned long len,
	   pgoff_t pgoff, bool *need_rmap_locks)
{
	mrr_stub_reached(__func__);
	return NULL;
}
#else
static struct vm_area_struct *
k_copy_vma(struct vm_area_struct **vmap, unsigned long addr, unsigned long len,
	   pgoff_t pgoff, bool *need_rmap_locks, bool keep_source)
{
	mrr_stub_reached(__func__);
	return NULL;
}
#endif

#if defined(MRR_HAVE_MOVE_PAGE_TABLES_IN_MM_H)
static unsigned long
k_move_page_tables(struct vm_area_struct *vma, unsigned long old_addr,
		   struct vm_area_struct *new_vma, unsigned long new_addr,
		   unsigned long len, bool need_rmap_locks)
{
	mrr_stub_reached(__func__);
	return 0;
}
#elif defined(MRR_HAVE_MOVE_PAGE_TABLES_PMC)
static unsigned long
k_move_page_tables(struct pagetable_move_control *pmc)
{
	mrr_stub_reached(__func__);
	return 0;
}
#else
static unsigned long
k_move_page_tables(struct vm_area_struct *vma, unsigned long old_addr,
		   struct vm_area_struct *new_vma, unsigned long new_addr,
		   unsigned long len, bool need_rmap_locks, bool for_stack)
{
	mrr_stub_reached(__func__);
	return 0;
}
#endif

#if defined(MRR_HAVE_SPLIT_VMA_MM)
static int k_split_vma(struct mm_struct *mm,
				  struct vm_area_struct *vma,
				  unsigned long addr, int new_below)
{
	mrr_stub_reached(__func__);
	return -ENOMEM;
}
#else
static int k_split_vma(struct vma_iterator *vmi,
				  struct vm_area_struct *vma,
				  unsigned long addr, int new_below)
{
	mrr_stub_reached(__func__);
	return -ENOMEM;
}
#endif

/* may_expand_vm() went over to the vma_flags_t bitmap with the type (7.0). */
#if defined(MRR_HAVE_VMA_FLAGS_T)
static bool k_may_expand_vm(struct mm_struct *mm,
				       const vma_flags_t *flags,
				       unsigned long npages)
{
	mrr_stub_reached(__func__);
	return false;
}
#else
static bool k_may_expand_vm(struct mm_struct *mm, vm_flags_t flags,
				       unsigned long npages)
{
	mrr_stub_reached(__func__);
	return false;
}
#endif

static int k_do_munmap(struct mm_struct *mm, unsigned long start,
				  size_t len, struct list_head *uf)
{
	mrr_stub_reached(__func__);
	return -ENOMEM;
}

static void k_vm_stat_account(struct mm_struct *mm,
					 vm_flags_t flags, long npages)
{
	mrr_stub_reached(__func__);
}

static int k_security_vm_enough_memory_mm(struct mm_struct *mm,
						     long pages)
{
	mrr_stub_reached(__func__);
	return -ENOMEM;
}

/* Before 6.1 unlink_anon_vmas() is for teardown only (see probe.sh). */
#ifdef MRR_HAVE_UNLINK_ANON_VMAS_ON_LIVE_VMA
static void k_unlink_anon_vmas(struct vm_area_struct *vma)
{
	mrr_stub_reached(__func__);
}
#endif

static int k_anon_vma_prepare(struct vm_area_struct *vma)
{
	mrr_stub_reached(__func__);
	return -ENOMEM;
}

static int k_mm_populate(unsigned long start, unsigned long len,
				    int ignore_errors)
{
	mrr_stub_reached(__func__);
	return -ENOMEM;
}

/* mprotect_fixup() took an mmu_gather in 6.1 and a vma iterator in 6.4. */
#if defined(MRR_HAVE_MPROTECT_FIXUP_VMI)
static int
k_mprotect_fixup(struct vma_iterator *vmi, struct mmu_gather *tlb,
		 struct vm_area_struct *vma, struct vm_area_struct **pprev,
		 unsigned long start, unsigned long end, vm_flags_t newflags)
{
	mrr_stub_reached(__func__);
	return -ENOMEM;
}
#elif defined(MRR_HAVE_MPROTECT_FIXUP_TLB)
static int
k_mprotect_fixup(struct mmu_gather *tlb, struct vm_area_struct *vma,
		 struct vm_area_struct **pprev, unsigned long start,
		 unsigned long end, unsigned long newflags)
{
	mrr_stub_reached(__func__);
	return -ENOMEM;
}
#else
static int
k_mprotect_fixup(struct vm_area_struct *vma, struct vm_area_struct **pprev,
		 unsigned long start, unsigned long end, unsigned long newflags)
{
	mrr_stub_reached(__func__);
	return -ENOMEM;
}
#endif

#if defined(MRR_HAVE_MPROTECT_FIXUP_VMI) || defined(MRR_HAVE_MPROTECT_FIXUP_TLB)
#define MRR_MPROTECT_GATHERS
static void k_tlb_gather_mmu(struct mmu_gather *tlb,
					      struct mm_struct *mm)
{
	mrr_stub_reached(__func__);
}

static void k_tlb_finish_mmu(struct mmu_gather *tlb)
{
	mrr_stub_reached(__func__);
}
#endif

/* Without CONFIG_SECURITY the header's inline stands in for the hook. */
#ifdef CONFIG_SECURITY
static int
k_security_file_mprotect(struct vm_area_struct *vma, unsigned long reqprot,
			 unsigned long prot)
{
	mrr_stub_reached(__func__);
	return -EPERM;
}
#endif

/* The static calls that reach them, each starting at its stub. */
DEFINE_STATIC_CALL(k_copy_vma, k_copy_vma);
DEFINE_STATIC_CALL(k_move_page_tables, k_move_page_tables);
DEFINE_STATIC_CALL(k_split_vma, k_split_vma);
DEFINE_STATIC_CALL(k_may_expand_vm, k_may_expand_vm);
DEFINE_STATIC_CALL(k_do_munmap, k_do_munmap);
DEFINE_STATIC_CALL(k_vm_stat_account, k_vm_stat_account);
DEFINE_STATIC_CALL(k_security_vm_enough_memory_mm,
		   k_security_vm_enough_memory_mm);
#ifdef MRR_HAVE_UNLINK_ANON_VMAS_ON_LIVE_VMA
DEFINE_STATIC_CALL(k_unlink_anon_vmas, k_unlink_anon_vmas);
#endif
DEFINE_STATIC_CALL(k_anon_vma_prepare, k_anon_vma_prepare);
DEFINE_STATIC_CALL(k_mm_populate, k_mm_populate);
DEFINE_STATIC_CALL(k_mprotect_fixup, k_mprotect_fixup);
#ifdef MRR_MPROTECT_GATHERS
DEFINE_STATIC_CALL(k_tlb_gather_mmu, k_tlb_gather_mmu);
DEFINE_STATIC_CALL(k_tlb_finish_mmu, k_tlb_finish_mmu);
#endif
#ifdef CONFIG_SECURITY
DEFINE_STATIC_CALL(k_security_file_mprotect, k_security_file_mprotect);
#define mrr_security_file_mprotect static_call(k_security_file_mprotect)
#else
#define mrr_security_file_mprotect security_file_mprotect
#endif

#if !defined(MRR_HAVE_MM_GET_UNMAPPED_AREA_MM) && \
	!defined(MRR_HAVE_MM_GET_UNMAPPED_AREA)
/* Exported before 6.12 (and not an inline yet): called directly. */
#define MRR_GET_UNMAPPED_AREA_EXPORTED
#endif

static struct mrr_ksym mrr_syms[] = {
	MRR_KSYM("copy_vma", k_copy_vma),
	MRR_KSYM("move_page_tables", k_move_page_tables),
	MRR_KSYM("split_vma", k_split_vma),
	MRR_KSYM("may_expand_vm", k_may_expand_vm),
	MRR_KSYM("do_munmap", k_do_munmap),
	MRR_KSYM("vm_stat_account", k_vm_stat_account),
	MRR_KSYM("security_vm_enough_memory_mm", k_security_vm_enough_memory_mm),
#ifdef MRR_HAVE_UNLINK_ANON_VMAS_ON_LIVE_VMA
	MRR_KSYM("unlink_anon_vmas", k_unlink_anon_vmas),
#endif
	MRR_KSYM("__anon_vma_prepare", k_anon_vma_prepare),
	MRR_KSYM("__mm_populate", k_mm_populate),
	MRR_KSYM("mprotect_fixup", k_mprotect_fixup),
#ifdef MRR_MPROTECT_GATHERS
	MRR_KSYM("tlb_gather_mmu", k_tlb_gather_mmu),
	MRR_KSYM("tlb_finish_mmu", k_tlb_finish_mmu),
#endif
#ifdef CONFIG_SECURITY
	MRR_KSYM("security_file_mprotect", k_security_file_mprotect),
#endif
};

static int *mrr_sysctl_max_map_count;
static unsigned long *mrr_mmap_min_addr_p;
static struct percpu_counter *mrr_committed_as;
static s32 *mrr_committed_as_batch;

static const struct mrr_kvar mrr_vars[] = {
	MRR_KVAR("sysctl_max_map_count", &mrr_sysctl_max_map_count),
	MRR_KVAR("mmap_min_addr", &mrr_mmap_min_addr_p),
	MRR_KVAR("vm_committed_as", &mrr_committed_as),
	MRR_KVAR("vm_committed_as_batch", &mrr_committed_as_batch),
};

int mrr_compat_init(void)
{
	return mrr_ksyms_init(mrr_syms, ARRAY_SIZE(mrr_syms),
			      mrr_vars, ARRAY_SIZE(mrr_vars));
}

struct vm_area_struct *mrr_vma_lookup(struct mm_struct *mm, unsigned long addr)
{
#ifdef MRR_HAVE_VMA_LOOKUP
	return vma_lookup(mm, addr);
#else
	struct vm_area_struct *vma = find_vma(mm, addr);

	return vma && vma->vm_start <= addr ? vma : NULL;
#endif
}

void mrr_vma_start_write(struct vm_area_struct *vma)
{
#ifdef MRR_HAVE_VMA_START_WRITE
	vma_start_write(vma);
#endif
}

void mrr_vma_clear_flags(struct vm_area_struct *vma, vm_flags_t flags)
{
#ifdef MRR_HAVE_VM_FLAGS_SET
	vm_flags_clear(vma, flags);
#else
	vma->vm_flags &= ~flags;
#endif
}

bool mrr_vma_sealed(struct vm_area_struct *vma)
{
#ifdef VM_SEALED
	return vma->vm_flags & VM_SEALED;
#else
	return false;		/* mseal came with 6.10 */
#endif
}

bool mrr_vma_uffd_registered(struct vm_area_struct *vma)
{
#ifdef CONFIG_USERFAULTFD
	return vma->vm_userfaultfd_ctx.ctx || userfaultfd_armed(vma);
#else
	return false;
#endif
}

/* Whether munmap may split @vma at @addr (hugetlb and some drivers refuse). */
int mrr_vma_may_split(struct vm_area_struct *vma, unsigned long addr)
{
#ifdef MRR_HAVE_VM_OPS_MAY_SPLIT
	if (vma->vm_ops && vma->vm_ops->may_split)
		return vma->vm_ops->may_split(vma, addr);
#else
	if (vma->vm_ops && vma->vm_ops->split)
		return vma->vm_ops->split(vma, addr);
#endif
	return 0;
}

int mrr_max_map_count(void)
{
	return READ_ONCE(*mrr_sysctl_max_map_count);
}

unsigned long mrr_mmap_min_addr(void)
{
	return READ_ONCE(*mrr_mmap_min_addr_p);
}

bool mrr_may_expand_vm(struct mm_struct *mm, struct vm_area_struct *vma,
		       unsigned long npages)
{
#ifdef MRR_HAVE_VMA_FLAGS_T
	return static_call(k_may_expand_vm)(mm, &vma->flags, npages);
#else
	return static_call(k_may_expand_vm)(mm, vma->vm_flags, npages);
#endif
}

int mrr_vm_enough_memory(struct mm_struct *mm, long pages)
{
	return static_call(k_security_vm_enough_memory_mm)(mm, pages);
}

/* vm_unacct_memory() is an inline on variables that are not exported. */
void mrr_vm_unacct_memory(long pages)
{
	percpu_counter_add_batch(mrr_committed_as, -pages,
				 READ_ONCE(*mrr_committed_as_batch));
}

void mrr_vm_stat_account(struct mm_struct *mm, vm_flags_t flags, long npages)
{
	static_call(k_vm_stat_account)(mm, flags, npages);
}

unsigned long mrr_get_unmapped_area(unsigned long addr, unsigned long len,
				    unsigned long pgoff)
{
#if defined(MRR_HAVE_MM_GET_UNMAPPED_AREA_MM)
	return mm_get_unmapped_area(current->mm, NULL, addr, len, pgoff, 0);
#elif defined(MRR_HAVE_MM_GET_UNMAPPED_AREA)
	return mm_get_unmapped_area(NULL, addr, len, pgoff, 0);
#else
	return get_unmapped_area(NULL, addr, len, pgoff, 0);
#endif
}

int mrr_do_munmap(struct mm_struct *mm, unsigned long start, size_t len)
{
	return static_call(k_do_munmap)(mm, start, len, NULL);
}

int mrr_split_vma(struct mm_struct *mm, struct vm_area_struct *vma,
		  unsigned long addr, int new_below)
{
#ifdef MRR_HAVE_SPLIT_VMA_MM
	return static_call(k_split_vma)(mm, vma, addr, new_below);
#else
	VMA_ITERATOR(vmi, mm, addr);

	return static_call(k_split_vma)(&vmi, vma, addr, new_below);
#endif
}

int mrr_ksm_unmerge(struct vm_area_struct *vma, unsigned long start,
		    unsigned long end)
{
	/* A copy: KSM may merge source and destination again later. */
	vm_flags_t flags = vma->vm_flags;

	return ksm_madvise(vma, start, end, MADV_UNMERGEABLE, &flags);
}

int mrr_anon_vma_prepare(struct vm_area_struct *vma)
{
	if (likely(vma->anon_vma))
		return 0;
	return static_call(k_anon_vma_prepare)(vma);
}

void mrr_vma_forget_pages(struct vm_area_struct *vma)
{
#ifdef MRR_HAVE_UNLINK_ANON_VMAS_ON_LIVE_VMA
	mrr_vma_start_write(vma);
	static_call(k_unlink_anon_vmas)(vma);
	/* The invariant of an unfaulted anonymous VMA. */
	vma->vm_pgoff = vma->vm_start >> PAGE_SHIFT;
#endif
}

void mrr_zap(struct vm_area_struct *vma, unsigned long start,
	     unsigned long size)
{
#if defined(MRR_HAVE_ZAP_VMA_RANGE)
	zap_vma_range(vma, start, size);
#elif defined(MRR_HAVE_ZAP_PAGE_RANGE)
	zap_page_range(vma, start, size);
#else
	zap_page_range_single(vma, start, size, NULL);
#endif
}

int mrr_mm_populate(unsigned long start, unsigned long len)
{
	return static_call(k_mm_populate)(start, len, 1);
}

struct vm_area_struct *mrr_copy_vma(struct vm_area_struct **vmap,
				    unsigned long addr, unsigned long len,
				    pgoff_t pgoff, bool *need_rmap_locks)
{
#ifdef MRR_HAVE_COPY_VMA_NO_KEEP_SOURCE
	/*
	 * Without keep_source, copy_vma() may merge the destination with an
	 * unfaulted source (it realigns pgoff to the new address to allow
	 * merging).  A source with an anon_vma keeps its pgoff, which can
	 * never be contiguous with the destination's, so give it one.
	 */
	if (mrr_anon_vma_prepare(*vmap))
		return NULL;
	return static_call(k_copy_vma)(vmap, addr, len, pgoff, need_rmap_locks);
#else
	return static_call(k_copy_vma)(vmap, addr, len, pgoff, need_rmap_locks, true);
#endif
}

unsigned long mrr_move_page_tables(struct vm_area_struct *vma,
				   unsigned long old_addr,
				   struct vm_area_struct *new_vma,
				   unsigned long new_addr, unsigned long len,
				   bool need_rmap_locks)
{
#if defined(MRR_HAVE_MOVE_PAGE_TABLES_IN_MM_H)
	return static_call(k_move_page_tables)(vma, old_addr, new_vma, new_addr, len,
				  need_rmap_locks);
#elif defined(MRR_HAVE_MOVE_PAGE_TABLES_PMC)
	struct pagetable_move_control pmc = {
		.old = vma,
		.new = new_vma,
		.old_addr = old_addr,
		.old_end = old_addr + len,
		.new_addr = new_addr,
		.len_in = len,
		.need_rmap_locks = need_rmap_locks,
	};

	return static_call(k_move_page_tables)(&pmc);
#else
	return static_call(k_move_page_tables)(vma, old_addr, new_vma, new_addr, len,
				  need_rmap_locks, false);
#endif
}

int mrr_protect_none(struct mm_struct *mm, unsigned long start,
		     unsigned long end)
{
	struct vm_area_struct *vma, *prev;
	vm_flags_t newflags;
	int err;
#ifdef MRR_MPROTECT_GATHERS
	VMA_ITERATOR(vmi, mm, start);
	struct mmu_gather tlb;

	/* Find prev and leave the iterator on vma, as do_mprotect_pkey(). */
	vma = vma_find(&vmi, end);
	prev = vma_prev(&vmi);
	if (start > vma->vm_start)
		prev = vma;
	vma = vma_find(&vmi, end);
#else
	vma = find_vma(mm, start);
	prev = start > vma->vm_start ? vma : vma->vm_prev;
#endif
	/* The pkey stays: it is reset only for execute-only mappings. */
	newflags = vma->vm_flags & ~VM_ACCESS_FLAGS;
	err = mrr_security_file_mprotect(vma, PROT_NONE, PROT_NONE);
	if (err)
		return err;
#if defined(MRR_HAVE_MPROTECT_FIXUP_VMI)
	static_call(k_tlb_gather_mmu)(&tlb, mm);
	err = static_call(k_mprotect_fixup)(&vmi, &tlb, vma, &prev, start, end, newflags);
	static_call(k_tlb_finish_mmu)(&tlb);
#elif defined(MRR_HAVE_MPROTECT_FIXUP_TLB)
	static_call(k_tlb_gather_mmu)(&tlb, mm);
	err = static_call(k_mprotect_fixup)(&tlb, vma, &prev, start, end, newflags);
	static_call(k_tlb_finish_mmu)(&tlb);
#else
	err = static_call(k_mprotect_fixup)(vma, &prev, start, end, newflags);
#endif
	return err;
}
