// SPDX-License-Identifier: GPL-2.0
/* Probe: VMAs are walked with a vma_iterator (maple tree, 6.1+). */
#include <linux/mm.h>

struct vm_area_struct *mrr_probe(struct mm_struct *mm);
struct vm_area_struct *mrr_probe(struct mm_struct *mm)
{
	VMA_ITERATOR(vmi, mm, 0);

	vma_find(&vmi, 1);
	return vma_prev(&vmi);
}
