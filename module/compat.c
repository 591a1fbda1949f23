// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel-version-dependent half of mremap_retain.
 *
 * Every difference between the kernels we support is settled here, behind
 * the interface of compat.h, and each kernel fact is stated once:
 *  - what the headers declare (inlines, exported functions, structure
 *    members) is probed at build time, exactly one variant per fact
 *    (probe.sh, generated/compat-config.h);
 *  - the non-exported functions are declared below, each once, with one
 *    entry per prototype a kernel has had; at load the running kernel's BTF
 *    picks the one entry that matches, or the module refuses to load
 *    (verify.h).  mrr_kv records the choices, and each call site below
 *    dispatches on them;
 *  - the private structure the module lays out (struct
 *    pagetable_move_control), and the members of public ones it reads,
 *    are checked against the BTF too.
 * Two facts are neither in the headers nor in BTF and go by version; their
 * reasons are given where they are used (mrr_vma_forget_pages(),
 * mrr_uffd_move_sound()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/mempolicy.h>
#include <linux/ksm.h>
#include <linux/pagemap.h>
#include <linux/rmap.h>
#include <linux/sched/mm.h>
#include <linux/security.h>
#include <linux/static_call.h>
#include <linux/userfaultfd_k.h>
#include <linux/version.h>
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
#include "kdecl.h"
#include "pmc.h"
#include "ksyms.h"
#include "verify.h"

/*
 * mm/internal.h's struct pagetable_move_control (6.15+), which no headers
 * package ships: declared in pmc.h, and checked member by member against
 * the running kernel's BTF before move_page_tables() is ever called with
 * it (a member left out here would show as a different member count).
 */
static const struct mrr_cmember mrr_pmc_members[] = {
	MRR_CMEMBER(struct pagetable_move_control, struct vm_area_struct *, old),
	MRR_CMEMBER(struct pagetable_move_control, struct vm_area_struct *, new),
	MRR_CMEMBER(struct pagetable_move_control, unsigned long, old_addr),
	MRR_CMEMBER(struct pagetable_move_control, unsigned long, old_end),
	MRR_CMEMBER(struct pagetable_move_control, unsigned long, new_addr),
	MRR_CMEMBER(struct pagetable_move_control, unsigned long, len_in),
	MRR_CMEMBER(struct pagetable_move_control, bool, need_rmap_locks),
	MRR_CMEMBER(struct pagetable_move_control, bool, for_stack),
};

/* The variants this kernel has (chosen at load, see mrr_deps below). */
enum {
	MRR_V5, MRR_V6, MRR_V7, MRR_VPMC, MRR_VMM, MRR_VVMI, MRR_VTLB,
	MRR_VFLAGS, MRR_VBITMAP,
};

static struct {
	int copy_vma, move_page_tables, split_vma, may_expand_vm;
	int mprotect_fixup;
} mrr_kv;

/* Laid out only for the move_page_tables() that takes it. */
static const struct mrr_cstruct mrr_pmc_layout = {
	.name = "pagetable_move_control",
	.size = sizeof(struct pagetable_move_control),
	.whole = true,
	.nmembers = ARRAY_SIZE(mrr_pmc_members),
	.members = mrr_pmc_members,
	.variant = &mrr_kv.move_page_tables,
	.id = MRR_VPMC,
};

/* Public structures, read through the headers: the members we use. */
static const struct mrr_cmember mrr_vma_members[] = {
	MRR_CMEMBER_SIZED(struct vm_area_struct, vm_start),
	MRR_CMEMBER_SIZED(struct vm_area_struct, vm_end),
	MRR_CMEMBER_SIZED(struct vm_area_struct, vm_mm),
	MRR_CMEMBER_SIZED(struct vm_area_struct, vm_flags),
	MRR_CMEMBER_SIZED(struct vm_area_struct, vm_pgoff),
	MRR_CMEMBER_SIZED(struct vm_area_struct, vm_file),
	MRR_CMEMBER_SIZED(struct vm_area_struct, vm_ops),
	MRR_CMEMBER_SIZED(struct vm_area_struct, anon_vma),
	MRR_CMEMBER_SIZED(struct vm_area_struct, vm_page_prot),
#ifdef CONFIG_NUMA
	MRR_CMEMBER_SIZED(struct vm_area_struct, vm_policy),
#endif
#ifdef CONFIG_ANON_VMA_NAME
	MRR_CMEMBER_SIZED(struct vm_area_struct, anon_name),
#endif
#ifdef CONFIG_USERFAULTFD
	MRR_CMEMBER_SIZED(struct vm_area_struct, vm_userfaultfd_ctx),
#endif
#ifdef MRR_VMA_ANON_PGOFF_YES
	MRR_CMEMBER_SIZED(struct vm_area_struct, __vm_anon_pgoff_lo),
	MRR_CMEMBER_SIZED(struct vm_area_struct, __vm_anon_pgoff_hi),
#endif
};

static const struct mrr_cstruct mrr_vma_layout = {
	.name = "vm_area_struct",
	.nmembers = ARRAY_SIZE(mrr_vma_members),
	.members = mrr_vma_members,
};

static const struct mrr_cmember mrr_mm_members[] = {
	MRR_CMEMBER_SIZED(struct mm_struct, map_count),
	MRR_CMEMBER_SIZED(struct mm_struct, total_vm),
	MRR_CMEMBER_SIZED(struct mm_struct, locked_vm),
};

static const struct mrr_cstruct mrr_mm_layout = {
	.name = "mm_struct",
	.nmembers = ARRAY_SIZE(mrr_mm_members),
	.members = mrr_mm_members,
};

static const struct mrr_cstruct *const mrr_layouts[] = {
	&mrr_pmc_layout, &mrr_vma_layout, &mrr_mm_layout,
};

/*
 * The non-exported functions, each prototype once.  Names in the kernel's
 * words; where kernels differ, the variants are numbered by what sets them
 * apart, and mrr_kv says which one this kernel has.
 */
MRR_KFUNC(k_copy_vma_5, "copy_vma", struct vm_area_struct *,
	  (struct vm_area_struct **, vmap), (unsigned long, addr),
	  (unsigned long, len), (pgoff_t, pgoff), (bool *, need_rmap_locks));
MRR_KFUNC(k_copy_vma_6, "copy_vma", struct vm_area_struct *,
	  (struct vm_area_struct **, vmap), (unsigned long, addr),
	  (unsigned long, len), (pgoff_t, pgoff), (bool *, need_rmap_locks),
	  (bool, keep_source));
#ifdef MRR_VMA_ANON_PGOFF_YES
MRR_KFUNC(k_copy_vma_7, "copy_vma", struct vm_area_struct *,
	  (struct vm_area_struct **, vmap), (unsigned long, addr),
	  (unsigned long, len), (pgoff_t, pgoff), (pgoff_t, anon_pgoff),
	  (bool *, need_rmap_locks), (bool, keep_source));
#endif

MRR_KFUNC(k_move_page_tables_6, "move_page_tables", unsigned long,
	  (struct vm_area_struct *, vma), (unsigned long, old_addr),
	  (struct vm_area_struct *, new_vma), (unsigned long, new_addr),
	  (unsigned long, len), (bool, need_rmap_locks));
MRR_KFUNC(k_move_page_tables_7, "move_page_tables", unsigned long,
	  (struct vm_area_struct *, vma), (unsigned long, old_addr),
	  (struct vm_area_struct *, new_vma), (unsigned long, new_addr),
	  (unsigned long, len), (bool, need_rmap_locks), (bool, for_stack));
MRR_KFUNC(k_move_page_tables_pmc, "move_page_tables", unsigned long,
	  (struct pagetable_move_control *, pmc));

MRR_KFUNC(k_split_vma_mm, "split_vma", int,
	  (struct mm_struct *, mm), (struct vm_area_struct *, vma),
	  (unsigned long, addr), (int, new_below));
#ifdef MRR_VMA_ITER_YES
MRR_KFUNC(k_split_vma_vmi, "split_vma", int,
	  (struct vma_iterator *, vmi), (struct vm_area_struct *, vma),
	  (unsigned long, addr), (int, new_below));
#endif

MRR_KFUNC(k_may_expand_vm_flags, "may_expand_vm", bool,
	  (struct mm_struct *, mm), (vm_flags_t, flags),
	  (unsigned long, npages));
#ifdef MRR_VMA_FLAGS_BITMAP
MRR_KFUNC(k_may_expand_vm_bitmap, "may_expand_vm", bool,
	  (struct mm_struct *, mm), (const vma_flags_t *, vma_flags),
	  (unsigned long, npages));
#endif

#ifdef MRR_VMA_ITER_NO
MRR_KFUNC(k_mprotect_fixup_5, "mprotect_fixup", int,
	  (struct vm_area_struct *, vma), (struct vm_area_struct **, pprev),
	  (unsigned long, start), (unsigned long, end),
	  (unsigned long, newflags));
#else
MRR_KFUNC(k_mprotect_fixup_tlb, "mprotect_fixup", int,
	  (struct mmu_gather *, tlb), (struct vm_area_struct *, vma),
	  (struct vm_area_struct **, pprev), (unsigned long, start),
	  (unsigned long, end), (vm_flags_t, newflags));
MRR_KFUNC(k_mprotect_fixup_vmi, "mprotect_fixup", int,
	  (struct vma_iterator *, vmi), (struct mmu_gather *, tlb),
	  (struct vm_area_struct *, vma), (struct vm_area_struct **, pprev),
	  (unsigned long, start), (unsigned long, end),
	  (vm_flags_t, newflags));
/* With an mmu_gather (6.1+), mprotect_fixup() needs these two. */
MRR_KFUNC_VOID(k_tlb_gather_mmu, "tlb_gather_mmu",
	       (struct mmu_gather *, tlb), (struct mm_struct *, mm));
MRR_KFUNC_VOID(k_tlb_finish_mmu, "tlb_finish_mmu",
	       (struct mmu_gather *, tlb));
#endif

MRR_KFUNC(k_do_munmap, "do_munmap", int,
	  (struct mm_struct *, mm), (unsigned long, start), (size_t, len),
	  (struct list_head *, uf));
MRR_KFUNC_VOID(k_vm_stat_account, "vm_stat_account",
	       (struct mm_struct *, mm), (vm_flags_t, flags), (long, npages));
MRR_KFUNC(k_security_vm_enough_memory_mm, "security_vm_enough_memory_mm",
	  int, (struct mm_struct *, mm), (long, pages));
MRR_KFUNC_VOID(k_unlink_anon_vmas, "unlink_anon_vmas",
	       (struct vm_area_struct *, vma));
MRR_KFUNC(k_anon_vma_prepare, "__anon_vma_prepare", int,
	  (struct vm_area_struct *, vma));
MRR_KFUNC(k_mm_populate, "__mm_populate", int,
	  (unsigned long, start), (unsigned long, len), (int, ignore_errors));
#ifdef CONFIG_SECURITY
MRR_KFUNC(k_security_file_mprotect, "security_file_mprotect", int,
	  (struct vm_area_struct *, vma), (unsigned long, reqprot),
	  (unsigned long, prot));
#define mrr_security_file_mprotect static_call(k_security_file_mprotect)
#else
/* Without CONFIG_SECURITY the header's inline stands in for the hook. */
#define mrr_security_file_mprotect security_file_mprotect
#endif
#ifdef CONFIG_USERFAULTFD
MRR_KFUNC_VOID(k_userfaultfd_unmap_complete, "userfaultfd_unmap_complete",
	       (struct mm_struct *, mm), (struct list_head *, uf));
#endif

static struct mrr_kdep mrr_deps[] = {
	MRR_KDEP(k_copy_vma_5, &mrr_kv.copy_vma, MRR_V5),
	MRR_KDEP(k_copy_vma_6, &mrr_kv.copy_vma, MRR_V6),
#ifdef MRR_VMA_ANON_PGOFF_YES
	MRR_KDEP(k_copy_vma_7, &mrr_kv.copy_vma, MRR_V7),
#endif
	MRR_KDEP(k_move_page_tables_6, &mrr_kv.move_page_tables, MRR_V6),
	MRR_KDEP(k_move_page_tables_7, &mrr_kv.move_page_tables, MRR_V7),
	MRR_KDEP(k_move_page_tables_pmc, &mrr_kv.move_page_tables, MRR_VPMC),
	MRR_KDEP(k_split_vma_mm, &mrr_kv.split_vma, MRR_VMM),
#ifdef MRR_VMA_ITER_YES
	MRR_KDEP(k_split_vma_vmi, &mrr_kv.split_vma, MRR_VVMI),
#endif
	MRR_KDEP(k_may_expand_vm_flags, &mrr_kv.may_expand_vm, MRR_VFLAGS),
#ifdef MRR_VMA_FLAGS_BITMAP
	MRR_KDEP(k_may_expand_vm_bitmap, &mrr_kv.may_expand_vm, MRR_VBITMAP),
#endif
#ifdef MRR_VMA_ITER_NO
	MRR_KDEP(k_mprotect_fixup_5, &mrr_kv.mprotect_fixup, MRR_V5),
#else
	MRR_KDEP(k_mprotect_fixup_tlb, &mrr_kv.mprotect_fixup, MRR_VTLB),
	MRR_KDEP(k_mprotect_fixup_vmi, &mrr_kv.mprotect_fixup, MRR_VVMI),
	MRR_KDEP(k_tlb_gather_mmu, NULL, 0),
	MRR_KDEP(k_tlb_finish_mmu, NULL, 0),
#endif
	MRR_KDEP(k_do_munmap, NULL, 0),
	MRR_KDEP(k_vm_stat_account, NULL, 0),
	MRR_KDEP(k_security_vm_enough_memory_mm, NULL, 0),
	MRR_KDEP(k_unlink_anon_vmas, NULL, 0),
	MRR_KDEP(k_anon_vma_prepare, NULL, 0),
	MRR_KDEP(k_mm_populate, NULL, 0),
#ifdef CONFIG_SECURITY
	MRR_KDEP(k_security_file_mprotect, NULL, 0),
#endif
#ifdef CONFIG_USERFAULTFD
	MRR_KDEP(k_userfaultfd_unmap_complete, NULL, 0),
#endif
};

/*
 * Variables read through kallsyms.  BTF describes no global variable but
 * per-CPU ones, so these are typed by the kernel's own declarations
 * (mm.h/internal.h, security.h, mman.h); they are only read, and
 * vm_committed_as is changed through its exported percpu_counter API.
 */
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
	return mrr_ksyms_init(mrr_deps, ARRAY_SIZE(mrr_deps),
			      mrr_vars, ARRAY_SIZE(mrr_vars),
			      mrr_layouts, ARRAY_SIZE(mrr_layouts));
}

struct vm_area_struct *mrr_vma_lookup(struct mm_struct *mm, unsigned long addr)
{
#ifdef MRR_VMA_LOOKUP_YES
	return vma_lookup(mm, addr);
#else
	struct vm_area_struct *vma = find_vma(mm, addr);

	return vma && vma->vm_start <= addr ? vma : NULL;
#endif
}

void mrr_vma_start_write(struct vm_area_struct *vma)
{
#ifdef MRR_VMA_START_WRITE_YES
	vma_start_write(vma);
#endif
}

void mrr_vma_clear_flags(struct vm_area_struct *vma, vm_flags_t flags)
{
#ifdef MRR_VM_FLAGS_CLEAR_YES
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

bool mrr_vma_same_policy(struct vm_area_struct *a, struct vm_area_struct *b)
{
#ifdef CONFIG_NUMA
	return vma_policy(a) == vma_policy(b);
#else
	return true;
#endif
}

bool mrr_vma_same_name(struct vm_area_struct *a, struct vm_area_struct *b)
{
#ifdef CONFIG_ANON_VMA_NAME
	return a->anon_name == b->anon_name;
#else
	return true;
#endif
}

bool mrr_uffd_move_sound(void)
{
	/*
	 * The second fact that goes by version, read in each kernel's
	 * mm/userfaultfd.c: a large folio that cannot be split because
	 * something holds an extra reference (a pin) made UFFDIO_MOVE retry
	 * for ever, the caller spinning in the kernel until it is killed.
	 * The fix (EBUSY instead) is in 6.12.118 (not in 6.12.117) and in
	 * 7.3.4 (not in 7.2.13); earlier 6.12.y also had crashes of
	 * UFFDIO_MOVE fixed by then.  Elsewhere the library is not told that
	 * it may move pages that way.
	 */
#ifdef CONFIG_USERFAULTFD
	if (KERNEL_VERSION(6, 12, 118) <= LINUX_VERSION_CODE &&
	    KERNEL_VERSION(6, 13, 0) > LINUX_VERSION_CODE)
		return true;
	return KERNEL_VERSION(7, 3, 4) <= LINUX_VERSION_CODE;
#else
	return false;
#endif
}

/* Whether munmap may split @vma at @addr (hugetlb and some drivers refuse). */
int mrr_vma_may_split(struct vm_area_struct *vma, unsigned long addr)
{
#ifdef MRR_VM_OPS_SPLIT_MAY_SPLIT
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
#ifdef MRR_VMA_FLAGS_BITMAP
	if (mrr_kv.may_expand_vm == MRR_VBITMAP)
		return static_call(k_may_expand_vm_bitmap)(mm, &vma->flags, npages);
#endif
	return static_call(k_may_expand_vm_flags)(mm, vma->vm_flags, npages);
}

int mrr_vm_enough_memory(struct mm_struct *mm, long pages)
{
	return static_call(k_security_vm_enough_memory_mm)(mm, pages);
}

/* vm_[un]acct_memory() are inlines on variables that are not exported. */
void mrr_vm_acct_memory(long pages)
{
	percpu_counter_add_batch(mrr_committed_as, pages,
				 READ_ONCE(*mrr_committed_as_batch));
}

void mrr_vm_unacct_memory(long pages)
{
	mrr_vm_acct_memory(-pages);
}

void mrr_vm_stat_account(struct mm_struct *mm, vm_flags_t flags, long npages)
{
	static_call(k_vm_stat_account)(mm, flags, npages);
}

unsigned long mrr_get_unmapped_area(unsigned long addr, unsigned long len,
				    unsigned long pgoff)
{
#if defined(MRR_UNMAPPED_AREA_MM_MM)
	return mm_get_unmapped_area(current->mm, NULL, addr, len, pgoff, 0);
#elif defined(MRR_UNMAPPED_AREA_MM)
	return mm_get_unmapped_area(NULL, addr, len, pgoff, 0);
#else
	return get_unmapped_area(NULL, addr, len, pgoff, 0);
#endif
}

int mrr_do_munmap(struct mm_struct *mm, unsigned long start, size_t len,
		  struct list_head *uf)
{
	return static_call(k_do_munmap)(mm, start, len, uf);
}

void mrr_userfaultfd_unmap_complete(struct mm_struct *mm, struct list_head *uf)
{
#ifdef CONFIG_USERFAULTFD
	if (!list_empty(uf))
		static_call(k_userfaultfd_unmap_complete)(mm, uf);
#endif
}

int mrr_split_vma(struct mm_struct *mm, struct vm_area_struct *vma,
		  unsigned long addr, int new_below)
{
#ifdef MRR_VMA_ITER_YES
	if (mrr_kv.split_vma == MRR_VVMI) {
		VMA_ITERATOR(vmi, mm, addr);

		return static_call(k_split_vma_vmi)(&vmi, vma, addr, new_below);
	}
#endif
	return static_call(k_split_vma_mm)(mm, vma, addr, new_below);
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
	pgoff_t unfaulted = vma->vm_start >> PAGE_SHIFT;

	/*
	 * One of the two facts neither the headers nor BTF can show: from
	 * 6.1 on unlink_anon_vmas() also clears vma->anon_vma, so that a live
	 * VMA may use it (6.1's MREMAP_DONTUNMAP started to); before, it was
	 * for VMAs being freed, and a retained source keeps its anon_vma, as
	 * that kernel's own MREMAP_DONTUNMAP leaves it.
	 */
	if (KERNEL_VERSION(6, 1, 0) > LINUX_VERSION_CODE)
		return;
	mrr_vma_start_write(vma);
	static_call(k_unlink_anon_vmas)(vma);
	/* The invariants of an unfaulted anonymous VMA. */
#ifdef MRR_VMA_ANON_PGOFF_YES
	vma->__vm_anon_pgoff_hi = unfaulted >> 32;
	vma->__vm_anon_pgoff_lo = unfaulted & GENMASK(31, 0);
#endif
	vma->vm_pgoff = unfaulted;
}

void mrr_zap(struct vm_area_struct *vma, unsigned long start,
	     unsigned long size)
{
#if defined(MRR_ZAP_VMA_RANGE)
	zap_vma_range(vma, start, size);
#elif defined(MRR_ZAP_PAGE_RANGE)
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
				    unsigned long old_addr, unsigned long addr,
				    unsigned long len, pgoff_t pgoff,
				    bool *need_rmap_locks)
{
	/*
	 * copy_vma() may merge the destination with the source itself when
	 * the source has no anon_vma: it then realigns pgoff to the new
	 * address.  keep_source forbids that only on the kernels that have
	 * the fix behind it (6.1.191, 6.12.114, 7.2.11), so give the source
	 * an anon_vma on every kernel: its pgoff stays, and can never be
	 * contiguous with the destination's.  mrr_copy_vma()'s caller checks
	 * the result all the same.
	 */
	if (mrr_anon_vma_prepare(*vmap))
		return NULL;
	switch (mrr_kv.copy_vma) {
	case MRR_V5:
		return static_call(k_copy_vma_5)(vmap, addr, len, pgoff,
						 need_rmap_locks);
#ifdef MRR_VMA_ANON_PGOFF_YES
	case MRR_V7:
		return static_call(k_copy_vma_7)(vmap, addr, len, pgoff,
				__linear_anon_page_index(*vmap, old_addr),
				need_rmap_locks, true);
#endif
	default:
		return static_call(k_copy_vma_6)(vmap, addr, len, pgoff,
						 need_rmap_locks, true);
	}
}

unsigned long mrr_move_page_tables(struct vm_area_struct *vma,
				   unsigned long old_addr,
				   struct vm_area_struct *new_vma,
				   unsigned long new_addr, unsigned long len,
				   bool need_rmap_locks)
{
	struct pagetable_move_control pmc = {
		.old = vma,
		.new = new_vma,
		.old_addr = old_addr,
		.old_end = old_addr + len,
		.new_addr = new_addr,
		.len_in = len,
		.need_rmap_locks = need_rmap_locks,
	};

	switch (mrr_kv.move_page_tables) {
	case MRR_V6:
		return static_call(k_move_page_tables_6)(vma, old_addr, new_vma,
							 new_addr, len,
							 need_rmap_locks);
	case MRR_V7:
		return static_call(k_move_page_tables_7)(vma, old_addr, new_vma,
							 new_addr, len,
							 need_rmap_locks, false);
	default:
		return static_call(k_move_page_tables_pmc)(&pmc);
	}
}

int mrr_security_protect_none(struct vm_area_struct *vma)
{
	return mrr_security_file_mprotect(vma, PROT_NONE, PROT_NONE);
}

int mrr_protect(struct mm_struct *mm, unsigned long start, unsigned long end,
		vm_flags_t newflags)
{
	struct vm_area_struct *vma, *prev;
	int err;
#ifdef MRR_VMA_ITER_YES
	VMA_ITERATOR(vmi, mm, start);
	struct mmu_gather tlb;

	/* Find prev and leave the iterator on vma, as do_mprotect_pkey(). */
	vma = vma_find(&vmi, end);
	if (WARN_ON_ONCE(!vma))
		return -ENOMEM;
	prev = vma_prev(&vmi);
	if (start > vma->vm_start)
		prev = vma;
	vma = vma_find(&vmi, end);
	static_call(k_tlb_gather_mmu)(&tlb, mm);
	if (mrr_kv.mprotect_fixup == MRR_VVMI)
		err = static_call(k_mprotect_fixup_vmi)(&vmi, &tlb, vma, &prev,
							start, end, newflags);
	else
		err = static_call(k_mprotect_fixup_tlb)(&tlb, vma, &prev,
							start, end, newflags);
	static_call(k_tlb_finish_mmu)(&tlb);
#else
	vma = find_vma(mm, start);
	if (WARN_ON_ONCE(!vma || vma->vm_start >= end))
		return -ENOMEM;
	prev = start > vma->vm_start ? vma : vma->vm_prev;
	err = static_call(k_mprotect_fixup_5)(vma, &prev, start, end, newflags);
#endif
	return err;
}
