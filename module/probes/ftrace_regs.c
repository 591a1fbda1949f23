// SPDX-License-Identifier: GPL-2.0
/* Probe: ftrace callbacks take struct ftrace_regs (5.11+) rather than pt_regs. */
#include <linux/ftrace.h>

static void mrr_probe_cb(unsigned long ip, unsigned long pip,
			 struct ftrace_ops *op, struct ftrace_regs *fregs)
{
}

ftrace_func_t mrr_probe(void);
ftrace_func_t mrr_probe(void)
{
	return mrr_probe_cb;
}
