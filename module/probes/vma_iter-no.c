// SPDX-License-Identifier: GPL-2.0
/* Probe: VMAs are linked through vm_prev (up to 6.0). */
#include <linux/mm.h>

struct vm_area_struct *mrr_probe(struct vm_area_struct *v);
struct vm_area_struct *mrr_probe(struct vm_area_struct *v)
{
	return v->vm_prev;
}
