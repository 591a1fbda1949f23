/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Proving, at load, that the module calls the running kernel correctly.
 *
 * Every non-exported kernel function the module calls is an entry of a
 * table (struct mrr_kdep), declared once with MRR_KFUNC (kdecl.h).  Where
 * kernels differ, one function has several entries, its variants, one per
 * prototype the module knows; the running kernel's BTF decides which one
 * applies, and exactly one must.  Every kernel structure whose layout the
 * module relies on is a struct mrr_cstruct.  The checks below read the BTF
 * (/sys/kernel/btf/vmlinux) and run before any static call is pointed at
 * the kernel (ksyms.c); on any difference they print one line naming the
 * function or structure and the first difference, and fail.
 */
#ifndef MRR_VERIFY_H
#define MRR_VERIFY_H

#include <linux/types.h>

#include "btf_match.h"

struct static_call_key;

struct mrr_kdep {
	const struct mrr_cfunc *decl;	/* the prototype it is called with */
	struct static_call_key *key;	/* its static call */
	void *tramp;
	int *variant;		/* where the chosen variant is written, or NULL */
	int id;			/* this entry's variant */
	bool selected;		/* out: this entry is the one to point */
	unsigned long addr;	/* out: the kernel's address (ksyms.c) */
};

#define MRR_KDEP(call, var, vid) {					\
	.decl = &call##_decl,						\
	.key = &STATIC_CALL_KEY(call),					\
	.tramp = STATIC_CALL_TRAMP_ADDR(call),				\
	.variant = (var), .id = (vid),					\
}
/*
 * Read the running kernel's BTF, or say why not (the one line) and return
 * an ERR_PTR.  The checks print the one line on a difference and return
 * -EOPNOTSUPP; mrr_verify_funcs() marks each chosen entry selected and
 * writes its variant.
 */
struct mrr_btf *mrr_btf_load(void);
void mrr_btf_unload(struct mrr_btf *btf);
int mrr_verify_funcs(const struct mrr_btf *btf, struct mrr_kdep *deps,
		     size_t ndeps);
int mrr_verify_structs(const struct mrr_btf *btf,
		       const struct mrr_cstruct *const *structs,
		       size_t nstructs);

#endif /* MRR_VERIFY_H */
