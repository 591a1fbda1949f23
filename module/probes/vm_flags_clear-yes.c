// SPDX-License-Identifier: GPL-2.0
/* Probe: vm_flags_clear() exists (6.3+; vm_flags is read-only then). */
#include <linux/mm.h>

void mrr_probe(struct vm_area_struct *v);
void mrr_probe(struct vm_area_struct *v)
{
	vm_flags_clear(v, VM_LOCKED);
}
