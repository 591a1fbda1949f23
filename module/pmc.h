/* SPDX-License-Identifier: GPL-2.0 */
/*
 * struct pagetable_move_control, the argument of move_page_tables() from
 * 6.15 on, as mm/internal.h declares it (the same from 6.15 to 7.3).
 * compat.c describes it, member by member, for the BTF check that must
 * pass before move_page_tables() is called with it.
 */
#ifndef MRR_PMC_H
#define MRR_PMC_H

struct vm_area_struct;

struct pagetable_move_control {
	struct vm_area_struct *old;
	struct vm_area_struct *new;
	unsigned long old_addr;
	unsigned long old_end;
	unsigned long new_addr;
	unsigned long len_in;
	bool need_rmap_locks;
	bool for_stack;
};

#endif /* MRR_PMC_H */
