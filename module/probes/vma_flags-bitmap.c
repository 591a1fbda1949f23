// SPDX-License-Identifier: GPL-2.0
/* Probe: VMAs carry a vma_flags_t bitmap, vma->flags (7.x). */
#include <linux/mm.h>

const vma_flags_t *mrr_probe(struct vm_area_struct *v);
const vma_flags_t *mrr_probe(struct vm_area_struct *v)
{
	return &v->flags;
}
