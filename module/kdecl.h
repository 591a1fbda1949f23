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

/* What the compiler knows of type T. */
#define MRR_CTYPE(T) {							\
	.decl = #T,							\
	.size = sizeof(T),						\
	.is_pointer = __builtin_classify_type((T)0) == 5,		\
	.is_bool = __builtin_types_compatible_p(T, _Bool),		\
	.is_signed = __builtin_choose_expr(				\
		__builtin_classify_type((T)0) == 5, 0, (T)-1 < (T)1),	\
}

/* Up to eight (type, name) pairs, mapped with M and joined with commas. */
#define MRR_NARGS(...) MRR_NARGS_(__VA_ARGS__, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define MRR_NARGS_(_1, _2, _3, _4, _5, _6, _7, _8, n, ...) n
#define MRR_CAT(a, b) MRR_CAT_(a, b)
#define MRR_CAT_(a, b) a##b
#define MRR_MAP(M, ...) MRR_CAT(MRR_MAP, MRR_NARGS(__VA_ARGS__))(M, __VA_ARGS__)
#define MRR_MAP1(M, p) M p
#define MRR_MAP2(M, p, ...) M p, MRR_MAP1(M, __VA_ARGS__)
#define MRR_MAP3(M, p, ...) M p, MRR_MAP2(M, __VA_ARGS__)
#define MRR_MAP4(M, p, ...) M p, MRR_MAP3(M, __VA_ARGS__)
#define MRR_MAP5(M, p, ...) M p, MRR_MAP4(M, __VA_ARGS__)
#define MRR_MAP6(M, p, ...) M p, MRR_MAP5(M, __VA_ARGS__)
#define MRR_MAP7(M, p, ...) M p, MRR_MAP6(M, __VA_ARGS__)
#define MRR_MAP8(M, p, ...) M p, MRR_MAP7(M, __VA_ARGS__)

#define MRR_PARAM_DECL(T, n) T n
#define MRR_PARAM_DESC(T, n) { .type = MRR_CTYPE(T), .name = #n }

#define MRR_CTYPE_VOID { .decl = "void" }

#define MRR_KFUNC_DESC(call, sym, ret_ctype, ...)			\
	static const struct mrr_cparam call##_params[] = {		\
		MRR_MAP(MRR_PARAM_DESC, __VA_ARGS__)			\
	};								\
	static const struct mrr_cfunc call##_decl = {			\
		.name = sym,						\
		.ret = ret_ctype,					\
		.nparams = ARRAY_SIZE(call##_params),			\
		.params = call##_params,				\
	}

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
