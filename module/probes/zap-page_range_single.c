// SPDX-License-Identifier: GPL-2.0
/* Probe: zap_page_range_single(vma, addr, size, details) (6.3 to 7.1; exported), without zap_page_range(). */
#include <linux/mm.h>

void mrr_probe(struct vm_area_struct *v);
void mrr_probe(struct vm_area_struct *v)
{
	zap_page_range_single(v, 0, 0, NULL);
}

/* The name that must be free. */
int zap_page_range;
