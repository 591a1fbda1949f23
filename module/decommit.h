/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MRR_DECOMMIT_H
#define MRR_DECOMMIT_H

#include <linux/types.h>

long mrr_decommit(u64 addr, u64 size);

#endif /* MRR_DECOMMIT_H */
