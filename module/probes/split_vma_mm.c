// SPDX-License-Identifier: GPL-2.0
/* Probe: linux/mm.h declares split_vma() taking the mm (before the vma iterator form). */
#include <linux/mm.h>

int mrr_probe(struct mm_struct *mm, struct vm_area_struct *v);
int mrr_probe(struct mm_struct *mm, struct vm_area_struct *v)
{
	return split_vma(mm, v, 0, 1);
}
