// SPDX-License-Identifier: GPL-2.0
/* Probe: linux/mm.h declares the six-argument move_page_tables() (up to 6.1). */
#include <linux/mm.h>

unsigned long mrr_probe(struct vm_area_struct *v, struct vm_area_struct *n);
unsigned long mrr_probe(struct vm_area_struct *v, struct vm_area_struct *n)
{
	return move_page_tables(v, 0, n, 0, 0, false);
}
