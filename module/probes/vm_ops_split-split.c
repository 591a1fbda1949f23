// SPDX-License-Identifier: GPL-2.0
/* Probe: vm_operations_struct has split (up to 5.10). */
#include <linux/mm.h>

int mrr_probe(struct vm_area_struct *v);
int mrr_probe(struct vm_area_struct *v)
{
	return v->vm_ops->split(v, 0);
}
