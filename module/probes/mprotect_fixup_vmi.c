// SPDX-License-Identifier: GPL-2.0
/* Probe: mprotect_fixup() takes a vma iterator and an mmu_gather (6.4+). */
#include <linux/mm.h>

int mrr_probe(struct vma_iterator *vmi, struct mmu_gather *tlb,
	      struct vm_area_struct *v);
int mrr_probe(struct vma_iterator *vmi, struct mmu_gather *tlb,
	      struct vm_area_struct *v)
{
	struct vm_area_struct *prev = NULL;

	return mprotect_fixup(vmi, tlb, v, &prev, 0, 0, 0);
}
