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
};

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

/*
 * How far @f matches the kernel's function: the number of leading items
 * (return type, then each parameter) that agree, to name the variant that
 * comes closest when none matches.
 */
unsigned int mrr_btf_func_agreement(const struct mrr_btf *btf,
				    const struct mrr_cfunc *f);

#endif /* MRR_BTF_MATCH_H */
