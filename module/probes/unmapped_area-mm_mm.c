// SPDX-License-Identifier: GPL-2.0
/* Probe: mm_get_unmapped_area() takes the mm first (6.9 to 6.x). */
#include <linux/mm.h>
#include <linux/sched/mm.h>

unsigned long mrr_probe(struct mm_struct *mm);
unsigned long mrr_probe(struct mm_struct *mm)
{
	return mm_get_unmapped_area(mm, NULL, 0, 1, 0, 0);
}
