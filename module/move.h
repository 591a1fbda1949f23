/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MRR_MOVE_H
#define MRR_MOVE_H

#include <linux/compiler.h>
#include <linux/types.h>

/* One retain-move request, as the ioctl received it. */
struct mrr_move {
	unsigned long old_addr;
	u64 old_size;
	u64 new_size;
	unsigned long new_addr;		/* hint or FIXED address; result */
	unsigned int flags;		/* MREMAP_RETAIN_MOVE_* */
	u64 __user *result;		/* where the caller wants new_addr */
};

/* What mrr_move() returns for MREMAP_RETAIN_MOVE_ALIKE, nothing moved. */
#define MRR_MOVE_ALIKE	1

long mrr_move(struct mrr_move *req);

#endif /* MRR_MOVE_H */
