/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Calling kernel functions that are not exported.
 *
 * Each such function is reached through a static call (linux/static_call.h)
 * whose initial target is a local stub with the same signature (kdecl.h).
 * At load, once the running kernel's BTF has shown that the module's
 * prototype is the kernel's (verify.h), the function's address is found
 * through kallsyms and the static call is updated to it: the kernel then
 * patches every call site in this module into a direct call to that
 * function, as it does for its own static calls.
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

#include <linux/types.h>

struct mrr_kdep;
struct mrr_cstruct;

struct mrr_kvar {
	const char *name;	/* kernel variable */
	void **addr;		/* where to store its address */
};

#define MRR_KVAR(sym, ptr)	{ .name = (sym), .addr = (void **)(ptr) }

void mrr_stub_reached(const char *name);

/*
 * Check every function of @deps and every structure of @structs against
 * the running kernel's BTF, choose the variants, then resolve the chosen
 * functions and @vars through kallsyms and point the static calls.  On any
 * failure nothing is pointed, one line says why, and -EOPNOTSUPP.
 */
int mrr_ksyms_init(struct mrr_kdep *deps, size_t ndeps,
		   const struct mrr_kvar *vars, size_t nvars,
		   const struct mrr_cstruct *const *structs, size_t nstructs);

#endif /* MRR_KSYMS_H */
