// SPDX-License-Identifier: GPL-2.0
/* Probe: linux/mm.h declares copy_vma() with the keep_source argument (5.10: no; Debian 6.1: yes; 6.12+: private header). */
#include <linux/mm.h>

struct vm_area_struct *mrr_probe(struct vm_area_struct **v, bool *b);
struct vm_area_struct *mrr_probe(struct vm_area_struct **v, bool *b)
{
	return copy_vma(v, 0, 0, 0, b, true);
}
