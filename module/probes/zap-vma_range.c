// SPDX-License-Identifier: GPL-2.0
/* Probe: zap_vma_range(vma, addr, size) (7.x; exported), without the older two. */
#include <linux/mm.h>

void mrr_probe(struct vm_area_struct *v);
void mrr_probe(struct vm_area_struct *v)
{
	zap_vma_range(v, 0, 0);
}

/* The names that must be free. */
int zap_page_range;
int zap_page_range_single;
