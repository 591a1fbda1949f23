// SPDX-License-Identifier: GPL-2.0
/* Probe: mm_get_unmapped_area() without the mm (7.x). */
#include <linux/mm.h>
#include <linux/sched/mm.h>

unsigned long mrr_probe(void);
unsigned long mrr_probe(void)
{
	return mm_get_unmapped_area(NULL, 0, 1, 0, 0);
}
