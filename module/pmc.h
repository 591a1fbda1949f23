/* SPDX-License-Identifier: GPL-2.0 */
/*
 * struct pagetable_move_control, the argument of move_page_tables() from
 * 6.15 on, as mm/internal.h declares it (the same from 6.15 to 7.3): its
 * members in order, for X(type, name).  compat.c lays the structure out
 * from this list and describes it for the BTF check; nothing else does.
 */
#ifndef MRR_PMC_H
#define MRR_PMC_H

#define MRR_PMC_MEMBERS(X)					\
	X(struct vm_area_struct *, old)				\
	X(struct vm_area_struct *, new)				\
	X(unsigned long, old_addr)				\
	X(unsigned long, old_end)				\
	X(unsigned long, new_addr)				\
	X(unsigned long, len_in)				\
	X(bool, need_rmap_locks)				\
	X(bool, for_stack)

#endif /* MRR_PMC_H */
