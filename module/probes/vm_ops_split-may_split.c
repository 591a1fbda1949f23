// SPDX-License-Identifier: GPL-2.0
/* Probe: vm_operations_struct has may_split (5.11+). */
#include <linux/mm.h>

int mrr_probe(struct vm_area_struct *v);
int mrr_probe(struct vm_area_struct *v)
{
	return v->vm_ops->may_split(v, 0);
}
