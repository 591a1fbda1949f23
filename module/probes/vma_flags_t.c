// SPDX-License-Identifier: GPL-2.0
/* Probe: the vma_flags_t bitmap type exists (7.x); may_expand_vm() takes it. */
#include <linux/mm_types.h>

unsigned long mrr_probe(vma_flags_t *f);
unsigned long mrr_probe(vma_flags_t *f)
{
	return sizeof(*f);
}
