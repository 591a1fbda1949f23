// SPDX-License-Identifier: GPL-2.0
/* Probe: no vma_lookup() (the name is free). */
#include <linux/mm.h>

int vma_lookup;
