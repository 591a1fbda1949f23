/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Declaring a kernel function that is not exported, once.
 *
 *	MRR_KFUNC(call, "symbol", ret, (type, name), ...);
 *
 * defines, from that one declaration:
 *  - a stub with this signature (it warns if it ever runs: see ksyms.h);
 *  - the static call @call, which starts at the stub and is pointed at the
 *    kernel's function at load;
 *  - call##_decl, the description of the signature (struct mrr_cfunc) that
 *    the module checks against the running kernel's BTF before it points
 *    the static call anywhere (btf_match.h).
 * MRR_KFUNC_VOID is the same for a function that returns nothing.
 *
 * MRR_CMEMBER() describes a structure member the same way, from the
 * compiler's own view of the structure.
 */
#ifndef MRR_KDECL_H
#define MRR_KDECL_H

#include <linux/build_bug.h>
#include <linux/stddef.h>
#include <linux/static_call.h>

#include "btf_match.h"
#include "ksyms.h"

#define MRR_KFUNC(call, sym, ret, ...)					\
	static ret call(MRR_MAP(MRR_PARAM_DECL, __VA_ARGS__))		\
	{								\
		mrr_stub_reached(sym);					\
		return (ret)0;						\
	}								\
	DEFINE_STATIC_CALL(call, call);					\
	MRR_KFUNC_DESC(call, sym, MRR_CTYPE(ret), __VA_ARGS__)

#define MRR_KFUNC_VOID(call, sym, ...)					\
	static void call(MRR_MAP(MRR_PARAM_DECL, __VA_ARGS__))		\
	{								\
		mrr_stub_reached(sym);					\
	}								\
	DEFINE_STATIC_CALL(call, call);					\
	MRR_KFUNC_DESC(call, sym, MRR_CTYPE_VOID, __VA_ARGS__)

/* Member @m of struct type S, declared as type T there (checked). */
#define MRR_CMEMBER(S, T, m) {						\
	.type = MRR_CTYPE(T),						\
	.name = #m,							\
	.offset = offsetof(S, m) + BUILD_BUG_ON_ZERO(			\
		!__builtin_types_compatible_p(typeof(((S *)0)->m), T)),	\
}
/* The same, known by size only (a member read through the headers). */
#define MRR_CMEMBER_SIZED(S, m) {					\
	.type = { .size = sizeof_field(S, m),				\
		  .is_pointer = __builtin_classify_type(((S *)0)->m) == 5 }, \
	.name = #m,							\
	.offset = offsetof(S, m),					\
}

#endif /* MRR_KDECL_H */
