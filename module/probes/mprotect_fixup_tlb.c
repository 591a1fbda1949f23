// SPDX-License-Identifier: GPL-2.0
/* Probe: mprotect_fixup() takes an mmu_gather but no vma iterator (6.1). */
#include <linux/mm.h>

int mrr_probe(struct mmu_gather *tlb, struct vm_area_struct *v);
int mrr_probe(struct mmu_gather *tlb, struct vm_area_struct *v)
{
	struct vm_area_struct *prev = NULL;

	return mprotect_fixup(tlb, v, &prev, 0, 0, 0);
}
