// SPDX-License-Identifier: GPL-2.0
/*
 * Checking the module's declarations against a kernel's BTF (see
 * btf_match.h).  Raw BTF is a header, a type section and a string section;
 * type ids count from 1 in the order of the type section, 0 is void.
 */
#ifdef __KERNEL__
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <uapi/linux/btf.h>
#else
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <linux/btf.h>
#define __printf(a, b) __attribute__((format(printf, a, b)))
#endif

#include "btf_match.h"

/* Kinds newer than some kernels' uapi header; the BTF format is stable. */
#define MRR_BTF_KIND_FLOAT	16
#define MRR_BTF_KIND_DECL_TAG	17
#define MRR_BTF_KIND_TYPE_TAG	18
#define MRR_BTF_KIND_ENUM64	19

#define MRR_BTF_MAX_CHAIN	32	/* modifiers and typedefs followed */
/*
 * The header's first fields, up to str_len, which every BTF has; newer
 * kernels append more (7.3: a layout section), which hdr_len covers.
 */
#define MRR_BTF_HDR_MIN		(offsetof(struct btf_header, str_len) + sizeof(__u32))
#define MRR_DECL_LEN		96	/* a rendered type */

/* snprintf(); messages are cut at their buffer's size, by design. */
static __printf(3, 4)
void mrr_fmt(char *out, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(out, len, fmt, ap);
	va_end(ap);
}

static __u32 kind_of(const struct btf_type *t)
{
	return BTF_INFO_KIND(t->info);
}

static __u32 vlen_of(const struct btf_type *t)
{
	return BTF_INFO_VLEN(t->info);
}

/* Bytes that follow struct btf_type for each kind; -1 for an unknown kind. */
static long extra_size(const struct btf_type *t)
{
	switch (kind_of(t)) {
	case BTF_KIND_INT:
	case BTF_KIND_VAR:
	case MRR_BTF_KIND_DECL_TAG:
		return 4;
	case BTF_KIND_PTR:
	case BTF_KIND_FWD:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC:
	case MRR_BTF_KIND_FLOAT:
	case MRR_BTF_KIND_TYPE_TAG:
		return 0;
	case BTF_KIND_ARRAY:
		return sizeof(struct btf_array);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return (long)vlen_of(t) * sizeof(struct btf_member);
	case BTF_KIND_ENUM:
		return (long)vlen_of(t) * sizeof(struct btf_enum);
	case BTF_KIND_FUNC_PROTO:
		return (long)vlen_of(t) * sizeof(struct btf_param);
	case BTF_KIND_DATASEC:
		return (long)vlen_of(t) * sizeof(struct btf_var_secinfo);
	case MRR_BTF_KIND_ENUM64:
		return (long)vlen_of(t) * 12;
	default:
		return -1;
	}
}

/* Walk the type section; with @offsets, record where each type starts. */
static int walk(const void *data, size_t size, __u32 *offsets, __u32 max,
		__u32 *ntypes, const unsigned char **types, __u32 *types_len,
		const char **strs, __u32 *strs_len, char *msg, size_t msglen)
{
	const struct btf_header *h = data;
	const unsigned char *p;
	__u32 off = 0, n = 0;

	if (size < MRR_BTF_HDR_MIN || h->magic != BTF_MAGIC || h->version != 1 ||
	    h->hdr_len < MRR_BTF_HDR_MIN || h->hdr_len > size ||
	    (size_t)h->type_off + h->type_len > size - h->hdr_len ||
	    (size_t)h->str_off + h->str_len > size - h->hdr_len ||
	    !h->str_len) {
		mrr_fmt(msg, msglen, "the kernel's BTF has no valid header");
		return -EINVAL;
	}
	p = (const unsigned char *)data + h->hdr_len + h->type_off;
	*types = p;
	*types_len = h->type_len;
	*strs = (const char *)data + h->hdr_len + h->str_off;
	*strs_len = h->str_len;
	if ((*strs)[*strs_len - 1]) {
		mrr_fmt(msg, msglen, "the kernel's BTF strings are not terminated");
		return -EINVAL;
	}
	while (off < h->type_len) {
		const struct btf_type *t = (const void *)(p + off);
		long extra;

		if (h->type_len - off < sizeof(*t) || (off & 3))
			goto bad;
		extra = extra_size(t);
		if (extra < 0) {
			mrr_fmt(msg, msglen, "the kernel's BTF has type kind %u, unknown to this module",
				 kind_of(t));
			return -EINVAL;
		}
		if ((size_t)extra > h->type_len - off - sizeof(*t))
			goto bad;
		if (offsets) {
			if (n >= max)
				goto bad;
			offsets[n] = off;
		}
		n++;
		off += sizeof(*t) + extra;
	}
	*ntypes = n;
	return 0;
bad:
	mrr_fmt(msg, msglen, "the kernel's BTF type section is malformed");
	return -EINVAL;
}

int mrr_btf_count(const void *data, size_t size, __u32 *ntypes,
		  char *msg, size_t msglen)
{
	const unsigned char *types;
	const char *strs;
	__u32 tl, sl;

	return walk(data, size, NULL, 0, ntypes, &types, &tl, &strs, &sl,
		    msg, msglen);
}

int mrr_btf_open(struct mrr_btf *btf, const void *data, size_t size,
		 __u32 *offsets, __u32 ntypes, char *msg, size_t msglen)
{
	btf->offsets = offsets;
	return walk(data, size, offsets, ntypes, &btf->ntypes, &btf->types,
		    &btf->types_len, &btf->strs, &btf->strs_len, msg, msglen);
}

static const struct btf_type *type_by_id(const struct mrr_btf *btf, __u32 id)
{
	if (!id || id > btf->ntypes)
		return NULL;
	return (const void *)(btf->types + btf->offsets[id - 1]);
}

static const char *name_of(const struct mrr_btf *btf, const struct btf_type *t)
{
	return t->name_off < btf->strs_len ? btf->strs + t->name_off : "";
}

static bool is_modifier(__u32 kind)
{
	return kind == BTF_KIND_CONST || kind == BTF_KIND_VOLATILE ||
	       kind == BTF_KIND_RESTRICT || kind == MRR_BTF_KIND_TYPE_TAG;
}

/* Follow const/volatile/restrict (and with @typedefs, typedefs too). */
static __u32 skip(const struct mrr_btf *btf, __u32 id, bool typedefs)
{
	int i;

	for (i = 0; i < MRR_BTF_MAX_CHAIN; i++) {
		const struct btf_type *t = type_by_id(btf, id);

		if (!t || !(is_modifier(kind_of(t)) ||
			    (typedefs && kind_of(t) == BTF_KIND_TYPEDEF)))
			return id;
		id = t->type;
	}
	return id;
}

static __u32 int_encoding(const struct btf_type *t)
{
	return *(const __u32 *)(t + 1);
}

static size_t type_size(const struct mrr_btf *btf, __u32 id, int depth)
{
	const struct btf_type *t = type_by_id(btf, skip(btf, id, true));
	const struct btf_array *a;

	if (!t || depth > MRR_BTF_MAX_CHAIN)
		return 0;
	switch (kind_of(t)) {
	case BTF_KIND_PTR:
		return sizeof(void *);
	case BTF_KIND_ARRAY:
		a = (const void *)(t + 1);
		return a->nelems * type_size(btf, a->type, depth + 1);
	case BTF_KIND_INT:
	case BTF_KIND_ENUM:
	case MRR_BTF_KIND_ENUM64:
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
	case MRR_BTF_KIND_FLOAT:
		return t->size;
	default:
		return 0;
	}
}

/*
 * An integer type's name in one spelling: the compiler's DWARF names
 * ("long unsigned int") and the module's ("unsigned long") come out alike.
 * Other names are copied unchanged, and false returned.
 */
static bool canonical_int(const char *in, char *out, size_t len)
{
	int nlong = 0, nshort = 0, nchar = 0, nint = 0, nbool = 0;
	int nunsigned = 0, nsigned = 0, other = 0;
	const char *w = in;

	while (*w) {
		size_t n;

		while (*w == ' ')
			w++;
		n = strcspn(w, " ");
		if (!n)
			break;
#define MRR_WORD(s) (n == sizeof(s) - 1 && !strncmp(w, s, n))
		if (MRR_WORD("long"))
			nlong++;
		else if (MRR_WORD("short"))
			nshort++;
		else if (MRR_WORD("char"))
			nchar++;
		else if (MRR_WORD("int"))
			nint++;
		else if (MRR_WORD("unsigned"))
			nunsigned++;
		else if (MRR_WORD("signed"))
			nsigned++;
		else if (MRR_WORD("_Bool") || MRR_WORD("bool"))
			nbool++;
		else
			other++;
#undef MRR_WORD
		w += n;
	}
	if (other || !(nlong || nshort || nchar || nint || nbool ||
		       nunsigned || nsigned)) {
		mrr_fmt(out, len, "%s", in);
		return false;
	}
	if (nbool)
		mrr_fmt(out, len, "bool");
	else if (nchar)
		mrr_fmt(out, len, "%schar", nunsigned ? "unsigned " :
					     nsigned ? "signed " : "");
	else
		mrr_fmt(out, len, "%s%s", nunsigned ? "unsigned " : "",
			 nshort ? "short" : nlong >= 2 ? "long long" :
			 nlong ? "long" : "int");
	return true;
}

/* The module's spelling of a type, taken apart. */
struct decl {
	int depth;		/* pointer levels */
	__u32 tag;		/* BTF_KIND_STRUCT/UNION/ENUM, or 0 */
	char base[MRR_DECL_LEN];
};

static void parse_decl(const char *s, struct decl *d)
{
	char word[MRR_DECL_LEN];
	size_t used = 0;

	d->depth = 0;
	d->tag = 0;
	d->base[0] = 0;
	while (*s) {
		size_t n;

		if (*s == '*') {
			d->depth++;
			s++;
			continue;
		}
		if (*s == ' ') {
			s++;
			continue;
		}
		n = strcspn(s, " *");
		mrr_fmt(word, sizeof(word), "%.*s", (int)n, s);
		s += n;
		if (!strcmp(word, "const") || !strcmp(word, "volatile") ||
		    !strcmp(word, "restrict"))
			continue;
		if (!strcmp(word, "struct")) {
			d->tag = BTF_KIND_STRUCT;
			continue;
		}
		if (!strcmp(word, "union")) {
			d->tag = BTF_KIND_UNION;
			continue;
		}
		if (!strcmp(word, "enum")) {
			d->tag = BTF_KIND_ENUM;
			continue;
		}
		mrr_fmt(d->base + used, sizeof(d->base) - used, "%s%s",
			used ? " " : "", word);
		used = strlen(d->base);
	}
}

/* The kernel's type as C would spell it, for messages. */
static void render(const struct mrr_btf *btf, __u32 id, char *out, size_t len,
		   int depth)
{
	const struct btf_type *t = type_by_id(btf, id);
	char inner[MRR_DECL_LEN];
	size_t n;

	if (!id) {
		mrr_fmt(out, len, "void");
		return;
	}
	if (!t || depth > MRR_BTF_MAX_CHAIN) {
		mrr_fmt(out, len, "?");
		return;
	}
	switch (kind_of(t)) {
	case BTF_KIND_PTR:
		render(btf, t->type, inner, sizeof(inner), depth + 1);
		n = strlen(inner);
		mrr_fmt(out, len, "%s%s", inner,
			 n && inner[n - 1] == '*' ? "*" : " *");
		return;
	case BTF_KIND_CONST:
		render(btf, t->type, inner, sizeof(inner), depth + 1);
		mrr_fmt(out, len, "const %s", inner);
		return;
	case BTF_KIND_VOLATILE:
		render(btf, t->type, inner, sizeof(inner), depth + 1);
		mrr_fmt(out, len, "volatile %s", inner);
		return;
	case BTF_KIND_RESTRICT:
	case MRR_BTF_KIND_TYPE_TAG:
		render(btf, t->type, out, len, depth + 1);
		return;
	case BTF_KIND_INT:
		canonical_int(name_of(btf, t), out, len);
		return;
	case BTF_KIND_STRUCT:
		mrr_fmt(out, len, "struct %s", name_of(btf, t));
		return;
	case BTF_KIND_UNION:
		mrr_fmt(out, len, "union %s", name_of(btf, t));
		return;
	case BTF_KIND_FWD:
		mrr_fmt(out, len, "%s %s", BTF_INFO_KFLAG(t->info) ?
			 "union" : "struct", name_of(btf, t));
		return;
	case BTF_KIND_ENUM:
	case MRR_BTF_KIND_ENUM64:
		mrr_fmt(out, len, "enum %s", name_of(btf, t));
		return;
	case BTF_KIND_FUNC_PROTO:
		mrr_fmt(out, len, "a function");
		return;
	default:
		mrr_fmt(out, len, "%s", name_of(btf, t));
		return;
	}
}

/* "TYPE NAME", with no space after a '*'. */
static void join(char *out, size_t len, const char *type, const char *name)
{
	size_t n = strlen(type);

	mrr_fmt(out, len, "%s%s%s", type,
		 (n && type[n - 1] == '*') || !*name ? "" : " ", name);
}

static bool named(const struct mrr_btf *btf, const struct btf_type *t,
		  const char *name)
{
	return !strcmp(name_of(btf, t), name);
}

/* The first type from id @from on of @kind named @name, or 0. */
static __u32 next_named(const struct mrr_btf *btf, __u32 kind,
			const char *name, __u32 from)
{
	__u32 id;

	for (id = from; id <= btf->ntypes; id++) {
		const struct btf_type *t = type_by_id(btf, id);

		if (kind_of(t) == kind && named(btf, t, name))
			return id;
	}
	return 0;
}

/* Does the kernel's type @id agree with the module's @ct? */
static bool type_matches(const struct mrr_btf *btf, const struct mrr_ctype *ct,
			 __u32 id)
{
	const struct btf_type *t;
	char a[MRR_DECL_LEN], b[MRR_DECL_LEN];
	struct decl d;
	__u32 kind;
	int i;

	if (!ct->decl) {
		t = type_by_id(btf, skip(btf, id, true));
		return t && type_size(btf, id, 0) == ct->size &&
		       (kind_of(t) == BTF_KIND_PTR) == ct->is_pointer;
	}
	parse_decl(ct->decl, &d);
	if (!d.depth) {
		if (!d.tag && !strcmp(d.base, "void"))
			return !id;
		t = type_by_id(btf, skip(btf, id, true));
		if (!t)
			return false;
		kind = kind_of(t);
		if (d.tag)
			return kind == d.tag && named(btf, t, d.base);
		if (kind == BTF_KIND_INT) {
			__u32 enc = BTF_INT_ENCODING(int_encoding(t));

			if (t->size != ct->size ||
			    !!(enc & BTF_INT_BOOL) != ct->is_bool)
				return false;
			return ct->is_bool || !!(enc & BTF_INT_SIGNED) == ct->is_signed;
		}
		if (kind == BTF_KIND_ENUM || kind == MRR_BTF_KIND_ENUM64)
			return t->size == ct->size && !ct->is_bool;
		return false;
	}
	for (i = 0; i < d.depth; i++) {
		id = skip(btf, id, false);
		t = type_by_id(btf, id);
		if (!t || kind_of(t) != BTF_KIND_PTR)
			return false;
		id = t->type;
	}
	id = skip(btf, id, false);
	if (!d.tag && !strcmp(d.base, "void"))
		return !id;
	t = type_by_id(btf, id);
	if (!t)
		return false;
	kind = kind_of(t);
	switch (d.tag) {
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		if (kind == BTF_KIND_FWD)
			kind = BTF_INFO_KFLAG(t->info) ? BTF_KIND_UNION :
							 BTF_KIND_STRUCT;
		return kind == d.tag && named(btf, t, d.base);
	case BTF_KIND_ENUM:
		return (kind == BTF_KIND_ENUM || kind == MRR_BTF_KIND_ENUM64) &&
		       named(btf, t, d.base);
	}
	if (kind == BTF_KIND_TYPEDEF && named(btf, t, d.base))
		return true;
	/* A builtin integer ("bool *"): the same, through typedefs or not. */
	if (!canonical_int(d.base, b, sizeof(b)))
		return false;
	t = type_by_id(btf, skip(btf, id, true));
	if (!t || kind_of(t) != BTF_KIND_INT)
		return false;
	canonical_int(name_of(btf, t), a, sizeof(a));
	return !strcmp(a, b);
}

static const struct btf_type *proto_of(const struct mrr_btf *btf,
				       const struct btf_type *func)
{
	const struct btf_type *p = type_by_id(btf, func->type);

	return p && kind_of(p) == BTF_KIND_FUNC_PROTO ? p : NULL;
}

static const struct btf_param *params_of(const struct btf_type *proto)
{
	return (const void *)(proto + 1);
}

/* Leading items of @f that agree with the kernel's @func. */
static unsigned int agreement(const struct mrr_btf *btf,
			      const struct btf_type *func,
			      const struct mrr_cfunc *f)
{
	const struct btf_type *proto = proto_of(btf, func);
	unsigned int i, n = 0;

	if (!proto || !type_matches(btf, &f->ret, proto->type))
		return 0;
	n++;
	for (i = 0; i < f->nparams && i < vlen_of(proto); i++) {
		if (!params_of(proto)[i].type ||
		    !type_matches(btf, &f->params[i].type,
				  params_of(proto)[i].type))
			break;
		n++;
	}
	if (i == f->nparams && i == vlen_of(proto))
		n++;
	return n;
}

static int compare_func(const struct mrr_btf *btf, const struct btf_type *func,
			const struct mrr_cfunc *f, char *msg, size_t msglen)
{
	const struct btf_type *proto = proto_of(btf, func);
	char here[MRR_DECL_LEN], ours[MRR_DECL_LEN];
	char a[2 * MRR_DECL_LEN], b[2 * MRR_DECL_LEN];
	unsigned int i, n;

	if (!proto) {
		mrr_fmt(msg, msglen, "%s: its BTF has no prototype", f->name);
		return -EINVAL;
	}
	if (!type_matches(btf, &f->ret, proto->type)) {
		render(btf, proto->type, here, sizeof(here), 0);
		mrr_fmt(msg, msglen, "%s: returns '%s' here, the module was built for '%s'",
			 f->name, here, f->ret.decl);
		return -EINVAL;
	}
	n = vlen_of(proto);
	for (i = 0; i < n && i < f->nparams; i++) {
		const struct btf_param *p = &params_of(proto)[i];

		if (p->type && type_matches(btf, &f->params[i].type, p->type))
			continue;
		if (p->type)
			render(btf, p->type, here, sizeof(here), 0);
		else
			mrr_fmt(here, sizeof(here), "...");
		join(a, sizeof(a), here, p->type && p->name_off < btf->strs_len ?
		     btf->strs + p->name_off : "");
		join(b, sizeof(b), f->params[i].type.decl, f->params[i].name);
		mrr_fmt(msg, msglen, "%s: parameter %u is '%s' here, the module was built for '%s'",
			 f->name, i + 1, a, b);
		return -EINVAL;
	}
	if (n != f->nparams) {
		if (n > f->nparams) {
			const struct btf_param *p = &params_of(proto)[i];

			if (p->type)
				render(btf, p->type, here, sizeof(here), 0);
			else
				mrr_fmt(here, sizeof(here), "...");
			join(a, sizeof(a), here, p->name_off < btf->strs_len ?
			     btf->strs + p->name_off : "");
			mrr_fmt(ours, sizeof(ours), "'%s' is parameter %u here", a, i + 1);
		} else {
			join(b, sizeof(b), f->params[i].type.decl, f->params[i].name);
			mrr_fmt(ours, sizeof(ours), "no parameter %u '%s' here", i + 1, b);
		}
		mrr_fmt(msg, msglen, "%s: %u parameters here, the module was built for %u (%s)",
			 f->name, n, f->nparams, ours);
		return -EINVAL;
	}
	return 0;
}

__u32 mrr_btf_find(const struct mrr_btf *btf, __u32 kind, const char *name)
{
	return next_named(btf, kind, name, 1);
}

int mrr_btf_check_func(const struct mrr_btf *btf, const struct mrr_cfunc *f,
		       char *msg, size_t msglen)
{
	__u32 first = next_named(btf, BTF_KIND_FUNC, f->name, 1), id;
	int err;

	for (id = first; id; id = next_named(btf, BTF_KIND_FUNC, f->name, id + 1)) {
		err = compare_func(btf, type_by_id(btf, id), f, msg, msglen);
		if (err)
			return err;
	}
	if (!first) {
		mrr_fmt(msg, msglen, "%s: not in this kernel's BTF", f->name);
		return -ENOENT;
	}
	return 0;
}

unsigned int mrr_btf_func_agreement(const struct mrr_btf *btf,
				    const struct mrr_cfunc *f)
{
	unsigned int best = 0, n;
	__u32 id;

	for (id = next_named(btf, BTF_KIND_FUNC, f->name, 1); id;
	     id = next_named(btf, BTF_KIND_FUNC, f->name, id + 1)) {
		n = agreement(btf, type_by_id(btf, id), f);
		if (n > best)
			best = n;
	}
	return best;
}

static const struct btf_member *members_of(const struct btf_type *t)
{
	return (const void *)(t + 1);
}

static __u32 member_bit_offset(const struct btf_type *t,
			       const struct btf_member *m)
{
	return BTF_INFO_KFLAG(t->info) ? BTF_MEMBER_BIT_OFFSET(m->offset) :
					 m->offset;
}

/*
 * Find member @name of the struct or union @id, looking into anonymous
 * members as C does; its offset in bits from the start of @id.
 */
static const struct btf_member *find_member(const struct mrr_btf *btf, __u32 id,
					    const char *name, __u32 *bits,
					    int depth)
{
	const struct btf_type *t = type_by_id(btf, skip(btf, id, true));
	const struct btf_member *m, *found;
	__u32 i, sub;

	if (!t || depth > MRR_BTF_MAX_CHAIN ||
	    (kind_of(t) != BTF_KIND_STRUCT && kind_of(t) != BTF_KIND_UNION))
		return NULL;
	for (i = 0; i < vlen_of(t); i++) {
		m = &members_of(t)[i];
		if (m->name_off && m->name_off < btf->strs_len &&
		    !strcmp(btf->strs + m->name_off, name)) {
			*bits = member_bit_offset(t, m);
			return m;
		}
		if (m->name_off)
			continue;
		found = find_member(btf, m->type, name, &sub, depth + 1);
		if (found) {
			*bits = member_bit_offset(t, m) + sub;
			return found;
		}
	}
	return NULL;
}

static void describe_member(char *out, size_t len,
			    const struct mrr_cmember *cm)
{
	char t[2 * MRR_DECL_LEN];

	if (cm->type.decl)
		join(t, sizeof(t), cm->type.decl, cm->name);
	else
		mrr_fmt(t, sizeof(t), "%s", cm->name);
	mrr_fmt(out, len, "'%s' (%u bytes) at offset %zu", t,
		 cm->type.size, cm->offset);
}

static int compare_struct(const struct mrr_btf *btf, __u32 id,
			  const struct mrr_cstruct *s, char *msg, size_t msglen)
{
	const struct btf_type *t = type_by_id(btf, id);
	char here[MRR_DECL_LEN], a[2 * MRR_DECL_LEN], b[3 * MRR_DECL_LEN];
	const struct btf_member *m;
	__u32 bits;
	unsigned int i;

	if (s->whole && t->size != s->size) {
		mrr_fmt(msg, msglen, "struct %s: %u bytes here, the module was built for %zu",
			 s->name, t->size, s->size);
		return -EINVAL;
	}
	if (s->whole && vlen_of(t) != s->nmembers) {
		mrr_fmt(msg, msglen, "struct %s: %u members here, the module was built for %u",
			 s->name, vlen_of(t), s->nmembers);
		return -EINVAL;
	}
	for (i = 0; i < s->nmembers; i++) {
		const struct mrr_cmember *cm = &s->members[i];

		if (s->whole) {
			m = &members_of(t)[i];
			bits = member_bit_offset(t, m);
			if (m->name_off >= btf->strs_len ||
			    strcmp(btf->strs + m->name_off, cm->name))
				goto differs;
		} else {
			m = find_member(btf, id, cm->name, &bits, 0);
			if (!m) {
				mrr_fmt(msg, msglen, "struct %s: no member '%s' here",
					 s->name, cm->name);
				return -EINVAL;
			}
		}
		if (bits == 8 * cm->offset && type_matches(btf, &cm->type, m->type))
			continue;
differs:
		render(btf, m->type, here, sizeof(here), 0);
		join(a, sizeof(a), here, m->name_off < btf->strs_len ?
		     btf->strs + m->name_off : "?");
		describe_member(b, sizeof(b), cm);
		mrr_fmt(msg, msglen, "struct %s: member '%s' (%zu bytes) at offset %u%s here, the module was built for %s",
			 s->name, a, type_size(btf, m->type, 0), bits / 8,
			 bits % 8 ? " (a bit field)" : "", b);
		return -EINVAL;
	}
	return 0;
}

int mrr_btf_check_struct(const struct mrr_btf *btf,
			 const struct mrr_cstruct *s, char *msg, size_t msglen)
{
	__u32 first = next_named(btf, BTF_KIND_STRUCT, s->name, 1), id;
	int err;

	for (id = first; id; id = next_named(btf, BTF_KIND_STRUCT, s->name, id + 1)) {
		err = compare_struct(btf, id, s, msg, msglen);
		if (err)
			return err;
	}
	if (!first) {
		mrr_fmt(msg, msglen, "struct %s: not in this kernel's BTF", s->name);
		return -ENOENT;
	}
	return 0;
}
