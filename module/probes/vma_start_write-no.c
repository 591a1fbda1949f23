// SPDX-License-Identifier: GPL-2.0
/* Probe: no per-VMA locks (vma_start_write is free). */
#include <linux/mm.h>

int vma_start_write;
