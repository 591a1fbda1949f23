// SPDX-License-Identifier: GPL-2.0
/* Probe: vma_lookup() exists (5.14+). */
#include <linux/mm.h>

struct vm_area_struct *mrr_probe(struct mm_struct *mm);
struct vm_area_struct *mrr_probe(struct mm_struct *mm)
{
	return vma_lookup(mm, 0);
}
