// SPDX-License-Identifier: GPL-2.0
/* Probe: per-VMA locks: vma_start_write() exists (6.4+). */
#include <linux/mm.h>

void mrr_probe(struct vm_area_struct *v);
void mrr_probe(struct vm_area_struct *v)
{
	vma_start_write(v);
}
