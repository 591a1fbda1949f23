/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Calling kernel functions that are not exported.
 *
 * Each such function is reached through a static call (linux/static_call.h)
 * whose initial target is a local stub with the same signature.  At load the
 * function's address is found through kallsyms and the static call is
 * updated to it: the kernel then patches every call site in this module into
 * a direct call to that function, as it does for its own static calls.
 *
 * A direct call is what matters on kernels built with CONFIG_X86_KERNEL_IBT:
 * they remove the ENDBR of functions whose address is never taken, so an
 * indirect call to them (through a function pointer) raises a
 * control-protection fault.  A direct call needs no ENDBR, and costs what a
 * call between two kernel functions costs.
 *
 * A stub body runs only if its static call was never updated, which
 * mrr_ksyms_init() rules out before the device is registered; it warns and
 * fails safe.
 */
#ifndef MRR_KSYMS_H
#define MRR_KSYMS_H

#include <linux/static_call.h>
#include <linux/types.h>

struct mrr_ksym {
	const char *name;		/* kernel symbol */
	struct static_call_key *key;	/* the static call that reaches it */
	void *tramp;
	unsigned long addr;		/* resolved address */
};

struct mrr_kvar {
	const char *name;	/* kernel variable */
	void **addr;		/* where to store its address */
};

/* @call: a static call defined with DEFINE_STATIC_CALL(call, stub). */
#define MRR_KSYM(sym, call) { .name = (sym), .key = &STATIC_CALL_KEY(call), \
			      .tramp = STATIC_CALL_TRAMP_ADDR(call) }
#define MRR_KVAR(sym, ptr)	{ .name = (sym), .addr = (void **)(ptr) }

void mrr_stub_reached(const char *name);

int mrr_ksyms_init(struct mrr_ksym *syms, size_t nsyms,
		   const struct mrr_kvar *vars, size_t nvars);

#endif /* MRR_KSYMS_H */
