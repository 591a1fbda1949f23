// SPDX-License-Identifier: GPL-2.0
/* Probe: linux/mm.h declares the five-argument copy_vma() of 5.10. */
#include <linux/mm.h>

struct vm_area_struct *mrr_probe(struct vm_area_struct **v, bool *b);
struct vm_area_struct *mrr_probe(struct vm_area_struct **v, bool *b)
{
	return copy_vma(v, 0, 0, 0, b);
}
