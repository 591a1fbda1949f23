// SPDX-License-Identifier: GPL-2.0
/* Probe: VMAs carry an anonymous page offset of their own (7.3+). */
#include <linux/mm.h>
#include <linux/pagemap.h>

pgoff_t mrr_probe(struct vm_area_struct *v);
pgoff_t mrr_probe(struct vm_area_struct *v)
{
	v->__vm_anon_pgoff_lo = 0;
	v->__vm_anon_pgoff_hi = 0;
	return __linear_anon_page_index(v, 0);
}
