// SPDX-License-Identifier: GPL-2.0
/* Probe: ftrace_regs_set_instruction_pointer() (the 6.7+ name). */
#include <linux/ftrace.h>

void mrr_probe(struct ftrace_regs *fregs);
void mrr_probe(struct ftrace_regs *fregs)
{
	ftrace_regs_set_instruction_pointer(fregs, 0);
}
