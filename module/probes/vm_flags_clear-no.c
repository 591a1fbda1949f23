// SPDX-License-Identifier: GPL-2.0
/* Probe: no vm_flags_clear(): vm_flags is written directly. */
#include <linux/mm.h>

void mrr_probe(struct vm_area_struct *v);
void mrr_probe(struct vm_area_struct *v)
{
	v->vm_flags &= ~VM_LOCKED;
}
