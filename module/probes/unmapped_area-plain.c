// SPDX-License-Identifier: GPL-2.0
/* Probe: get_unmapped_area() is the exported function, no mm_get_unmapped_area() (up to 6.8). */
#include <linux/mm.h>
#include <linux/sched/mm.h>

unsigned long mrr_probe(void);
unsigned long mrr_probe(void)
{
	return get_unmapped_area(NULL, 0, 1, 0, 0);
}

/* The name that must be free. */
int mm_get_unmapped_area;
