// SPDX-License-Identifier: GPL-2.0
/* Probe: no anonymous page offset apart from vm_pgoff. */
#include <linux/mm.h>
#include <linux/pagemap.h>

int __linear_anon_page_index;
