// SPDX-License-Identifier: GPL-2.0
/* Probe: zap_page_range(vma, addr, size) (up to 6.2; exported). */
#include <linux/mm.h>

void mrr_probe(struct vm_area_struct *v);
void mrr_probe(struct vm_area_struct *v)
{
	zap_page_range(v, 0, 0);
}
