/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one place where kernel versions differ.
 *
 * move.c and decommit.c speak only this interface; compat.c implements it
 * for 5.10 up to 7.x, choosing by what the headers declare
 * (generated/compat-config.h, see probe.sh) and, for the functions that no
 * headers package declares or exports, by what the running kernel's BTF
 * says (verify.h).
 */
#ifndef MRR_COMPAT_H
#define MRR_COMPAT_H

#include <linux/mm.h>

#include "compat-config.h"

int mrr_compat_init(void);

/* VMA lookup, locking and flags. */
struct vm_area_struct *mrr_vma_lookup(struct mm_struct *mm, unsigned long addr);
void mrr_vma_start_write(struct vm_area_struct *vma);
void mrr_vma_clear_flags(struct vm_area_struct *vma, vm_flags_t flags);
bool mrr_vma_sealed(struct vm_area_struct *vma);
bool mrr_vma_uffd_registered(struct vm_area_struct *vma);
/*
 * The same NUMA policy and the same name (anonymous VMA names, 5.17+)?
 * Each by its object: two equal copies count as different.
 */
bool mrr_vma_same_policy(struct vm_area_struct *a, struct vm_area_struct *b);
bool mrr_vma_same_name(struct vm_area_struct *a, struct vm_area_struct *b);
/* May user space rely on this kernel's UFFDIO_MOVE (MREMAP_RETAIN_FEAT_ALIKE)? */
bool mrr_uffd_move_sound(void);
int mrr_vma_may_split(struct vm_area_struct *vma, unsigned long addr);

/* Limits and accounting, as mremap applies them. */
int mrr_max_map_count(void);
unsigned long mrr_mmap_min_addr(void);
bool mrr_may_expand_vm(struct mm_struct *mm, struct vm_area_struct *vma,
		       unsigned long npages);
int mrr_vm_enough_memory(struct mm_struct *mm, long pages);
void mrr_vm_acct_memory(long pages);
void mrr_vm_unacct_memory(long pages);
void mrr_vm_stat_account(struct mm_struct *mm, vm_flags_t flags, long npages);

/* Address space changes. */
unsigned long mrr_get_unmapped_area(unsigned long addr, unsigned long len,
				    unsigned long pgoff);
/*
 * munmap; a userfaultfd monitor of what it unmapped is queued on @uf and
 * told by mrr_userfaultfd_unmap_complete(), which must run after
 * mmap_lock is released.
 */
int mrr_do_munmap(struct mm_struct *mm, unsigned long start, size_t len,
		  struct list_head *uf);
void mrr_userfaultfd_unmap_complete(struct mm_struct *mm, struct list_head *uf);
int mrr_split_vma(struct mm_struct *mm, struct vm_area_struct *vma,
		  unsigned long addr, int new_below);
int mrr_ksm_unmerge(struct vm_area_struct *vma, unsigned long start,
		    unsigned long end);
int mrr_anon_vma_prepare(struct vm_area_struct *vma);
/*
 * @vma has no pages left: drop its anon_vma links so that it is as fresh as
 * a new mapping (where the kernel allows it; otherwise it keeps them, as
 * that kernel's own MREMAP_DONTUNMAP does).
 */
void mrr_vma_forget_pages(struct vm_area_struct *vma);
void mrr_zap(struct vm_area_struct *vma, unsigned long start,
	     unsigned long size);
int mrr_mm_populate(unsigned long start, unsigned long len);
/* The LSM's word on mprotect(PROT_NONE) of @vma (0: allowed). */
int mrr_security_protect_none(struct vm_area_struct *vma);
/*
 * What mprotect() does to [@start, @end), inside one VMA that is mapped,
 * anonymous, not executable and not sealed, once the LSM has allowed it:
 * the VMA's flags become @newflags.
 */
int mrr_protect(struct mm_struct *mm, unsigned long start, unsigned long end,
		vm_flags_t newflags);

/* VMAs that may hold guard region markers (7.x). */
#ifdef VM_MAYBE_GUARD
#define MRR_VM_MAYBE_GUARD	VM_MAYBE_GUARD
#else
#define MRR_VM_MAYBE_GUARD	VM_NONE
#endif

/* Shadow stacks (6.6+) are anonymous too, but not released like memory. */
#ifdef VM_SHADOW_STACK
#define MRR_VM_SHADOW_STACK	VM_SHADOW_STACK
#else
#define MRR_VM_SHADOW_STACK	VM_NONE
#endif

/*
 * Create the destination VMA at @addr as a copy of @*vmap's range that
 * starts at @old_addr.  The source is given an anon_vma first, so that it
 * cannot merge with the destination; the caller checks that it did not.
 */
struct vm_area_struct *mrr_copy_vma(struct vm_area_struct **vmap,
				    unsigned long old_addr, unsigned long addr,
				    unsigned long len, pgoff_t pgoff,
				    bool *need_rmap_locks);
unsigned long mrr_move_page_tables(struct vm_area_struct *vma,
				   unsigned long old_addr,
				   struct vm_area_struct *new_vma,
				   unsigned long new_addr, unsigned long len,
				   bool need_rmap_locks);

#endif /* MRR_COMPAT_H */
