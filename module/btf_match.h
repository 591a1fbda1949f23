/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Checking the module's declarations against a kernel's BTF.
 *
 * The module describes each kernel function it calls and each kernel
 * structure whose layout it relies on (struct mrr_cfunc, mrr_cstruct: made
 * by the compiler from the very declarations the module is built with, see
 * kdecl.h).  btf_match.c compares them with the kernel's own BTF, read raw
 * from /sys/kernel/btf/vmlinux: for a function the return type, the number
 * of parameters and each parameter (integer size and signedness, bool,
 * pointer depth and the name of the struct, union, enum or typedef pointed
 * to); for a structure its size (where the module lays it out), member
 * names, offsets and sizes.  The first difference is described in one line.
 *
 * This file and btf_match.c use nothing of the kernel but the BTF format
 * (uapi/linux/btf.h) and a few string functions, so the host tests build
 * them too and check them against the BTF of every kernel of the matrix.
 */
#ifndef MRR_BTF_MATCH_H
#define MRR_BTF_MATCH_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif
#endif

/* A C type as the module spells it, with what the compiler says of it. */
struct mrr_ctype {
	const char *decl;	/* "struct vm_area_struct **", or NULL: by size only */
	unsigned short size;	/* sizeof */
	bool is_signed;		/* for integers */
	bool is_bool;
	bool is_pointer;
};

struct mrr_cparam {
	struct mrr_ctype type;
	const char *name;
};

struct mrr_cfunc {
	const char *name;		/* the kernel's symbol */
	struct mrr_ctype ret;
	unsigned int nparams;
	const struct mrr_cparam *params;
};

struct mrr_cmember {
	struct mrr_ctype type;
	const char *name;
	size_t offset;
};

struct mrr_cstruct {
	const char *name;	/* struct tag */
	size_t size;
	/*
	 * The module lays the structure out itself (a private declaration of
	 * mm/): its size and its whole member list must match.  Otherwise it
	 * only reads the listed members through the kernel's headers.
	 */
	bool whole;
	unsigned int nmembers;
	const struct mrr_cmember *members;
	/* Checked only where *variant == id (a function's chosen variant). */
	const int *variant;
	int id;
};

/*
 * Describing a declaration: what the compiler knows of type T, and a
 * function's whole prototype from its (type, name) pairs.  The module's
 * MRR_KFUNC (kdecl.h) builds on these; so do the host tests.
 */
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

/* A kernel's BTF, indexed. */
struct mrr_btf {
	const unsigned char *types;	/* the type section */
	const char *strs;
	__u32 types_len, strs_len;
	__u32 ntypes;			/* ids 1..ntypes */
	const __u32 *offsets;		/* [id - 1]: offset in types */
};

/*
 * Count the types of raw BTF @data (for the caller to allocate the
 * index), then index them into @offsets.  0, or -EINVAL with @msg set.
 */
int mrr_btf_count(const void *data, size_t size, __u32 *ntypes,
		  char *msg, size_t msglen);
int mrr_btf_open(struct mrr_btf *btf, const void *data, size_t size,
		 __u32 *offsets, __u32 ntypes, char *msg, size_t msglen);

/*
 * 0 when the kernel's function or structure is the one described; -ENOENT
 * when the BTF has none of that name; -EINVAL when it differs.  Except for
 * 0, @msg holds one line naming it and the first difference.  A name
 * that the BTF holds more than once must match every time.
 */
int mrr_btf_check_func(const struct mrr_btf *btf, const struct mrr_cfunc *f,
		       char *msg, size_t msglen);
int mrr_btf_check_struct(const struct mrr_btf *btf,
			 const struct mrr_cstruct *s, char *msg, size_t msglen);

/* The id of the first type of BTF_KIND_* @kind named @name, or 0. */
__u32 mrr_btf_find(const struct mrr_btf *btf, __u32 kind, const char *name);

/*
 * How far @f matches the kernel's function: the number of leading items
 * (return type, then each parameter) that agree, to name the variant that
 * comes closest when none matches.
 */
unsigned int mrr_btf_func_agreement(const struct mrr_btf *btf,
				    const struct mrr_cfunc *f);

#endif /* MRR_BTF_MATCH_H */
