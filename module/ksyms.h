/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Calling kernel functions that are not exported.
 *
 * Each such function gets a local stub with the same signature.  At load the
 * function's address is found through kallsyms, and an ftrace callback on
 * the stub rewrites the saved instruction pointer to that address, as
 * livepatch does: callers call the stub directly and arrive in the kernel
 * function through the ftrace trampoline's return, never through an indirect
 * call.  That matters on kernels built with CONFIG_X86_KERNEL_IBT, which
 * remove the ENDBR of functions whose address is never taken, so that an
 * indirect call to them raises a control-protection fault.
 *
 * A stub body runs only if its redirect is missing, which mrr_ksyms_init()
 * rules out before the device is registered; it warns and fails safe.
 *
 * An indirect call is cheaper (the ftrace trampoline costs about 0.1 us a
 * call, with a full register save before 5.11), so where nothing forbids
 * it the resolved address is called through a typed pointer instead
 * (mrr_ksym.direct): on kernels without IBT (Debian's 5.10 and 6.1) for
 * every function, and with IBT for those that still begin with ENDBR (the
 * kernel seals the others at boot).  Kernels with Clang's CFI, whose
 * indirect calls check a type hash in front of the target, always redirect.
 * kallsyms_lookup_name() itself is reached through a redirect, at load.
 */
#ifndef MRR_KSYMS_H
#define MRR_KSYMS_H

#include <linux/ftrace.h>
#include <linux/types.h>


struct mrr_ksym {
	const char *name;	/* kernel symbol */
	void *stub;		/* local function redirected to it */
	unsigned long addr;	/* resolved address */
	struct ftrace_ops ops;
	bool registered;
	bool direct;		/* called through addr, not redirected */
};

struct mrr_kvar {
	const char *name;	/* kernel variable */
	void **addr;		/* where to store its address */
};

#define MRR_KSYM(sym, stub_fn)	{ .name = (sym), .stub = (void *)(stub_fn) }
#define MRR_KVAR(sym, ptr)	{ .name = (sym), .addr = (void **)(ptr) }

/*
 * Stubs must survive the optimiser as distinct, really called functions:
 * declare them "static noinline __noipa" (no inlining, cloning, folding of
 * identical bodies, or conclusions drawn from what their bodies return).
 */
void mrr_stub_reached(const char *name);

int mrr_ksyms_init(struct mrr_ksym *syms, size_t nsyms,
		   const struct mrr_kvar *vars, size_t nvars);
void mrr_ksyms_exit(struct mrr_ksym *syms, size_t nsyms);

#endif /* MRR_KSYMS_H */
