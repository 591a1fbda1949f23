// SPDX-License-Identifier: GPL-2.0
/*
 * The load-time proof that the module calls the running kernel correctly
 * (see verify.h): the kernel's BTF against the module's declarations.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/errno.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "verify.h"

#define MRR_BTF_PATH	"/sys/kernel/btf/vmlinux"
#define MRR_BTF_MAX	(256 << 20)
#define MRR_MSG_LEN	320
#define MRR_MAX_PARAMS	8
#define MRR_MAX_MEMBERS	16

/*
 * For tests: pretend the module was built for another prototype of this
 * function (its first parameter a 'struct mrr_test *'), or another offset
 * of this member ("struct.member", 8 bytes further), to exercise the
 * refusal on a kernel that matches.
 */
static char *test_proto;
module_param(test_proto, charp, 0);
MODULE_PARM_DESC(test_proto, "pretend this function's prototype differs (tests)");
static char *test_member;
module_param(test_member, charp, 0);
MODULE_PARM_DESC(test_member, "pretend this struct.member's offset differs (tests)");

static void *mrr_read_btf(size_t *size)
{
	struct file *f = filp_open(MRR_BTF_PATH, O_RDONLY, 0);
	loff_t pos = 0, len;
	ssize_t n;
	void *buf = NULL;

	if (IS_ERR(f))
		return NULL;
	len = i_size_read(file_inode(f));
	if (len <= 0 || len > MRR_BTF_MAX)
		goto out;
	buf = kvmalloc(len, GFP_KERNEL);
	if (!buf)
		goto out;
	while (pos < len) {
		n = kernel_read(f, buf + pos, len - pos, &pos);
		if (n <= 0)
			break;
	}
	if (pos != len) {
		kvfree(buf);
		buf = NULL;
	}
	*size = len;
out:
	filp_close(f, NULL);
	return buf;
}

/* @f, or the copy the test_proto parameter asks for. */
static const struct mrr_cfunc *mrr_test_func(const struct mrr_cfunc *f,
					     struct mrr_cfunc *copy,
					     struct mrr_cparam *params)
{
	if (!test_proto || strcmp(test_proto, f->name) || !f->nparams ||
	    f->nparams > MRR_MAX_PARAMS)
		return f;
	*copy = *f;
	memcpy(params, f->params, f->nparams * sizeof(*params));
	params[0].type = (struct mrr_ctype) {
		.decl = "struct mrr_test *", .size = sizeof(void *),
		.is_pointer = true,
	};
	copy->params = params;
	return copy;
}

static int mrr_check_func(const struct mrr_btf *btf, const struct mrr_cfunc *f,
			  char *msg)
{
	struct mrr_cparam params[MRR_MAX_PARAMS];
	struct mrr_cfunc copy;

	return mrr_btf_check_func(btf, mrr_test_func(f, &copy, params), msg,
				  MRR_MSG_LEN);
}

/*
 * Choose among the variants of function @deps[i]: exactly one must match;
 * otherwise say how the closest one differs.
 */
static int mrr_select(const struct mrr_btf *btf, struct mrr_kdep *deps,
		      size_t ndeps, size_t i, char *msg)
{
	const char *name = deps[i].decl->name;
	struct mrr_cparam params[MRR_MAX_PARAMS];
	struct mrr_cfunc copy;
	size_t j, chosen = ndeps, closest = i;
	unsigned int matches = 0, best = 0, a;

	for (j = i; j < ndeps; j++) {
		if (strcmp(deps[j].decl->name, name))
			continue;
		if (!mrr_check_func(btf, deps[j].decl, msg)) {
			matches++;
			chosen = j;
		}
		a = mrr_btf_func_agreement(btf, mrr_test_func(deps[j].decl,
							      &copy, params));
		if (a >= best) {
			best = a;
			closest = j;
		}
	}
	if (matches == 1) {
		deps[chosen].selected = true;
		if (deps[chosen].variant)
			*deps[chosen].variant = deps[chosen].id;
		return 0;
	}
	if (matches)
		snprintf(msg, MRR_MSG_LEN, "%s: %u of the module's prototypes match here",
			 name, matches);
	else
		mrr_check_func(btf, deps[closest].decl, msg);
	return -EOPNOTSUPP;
}

static int mrr_check_struct(const struct mrr_btf *btf,
			    const struct mrr_cstruct *s, char *msg)
{
	struct mrr_cmember members[MRR_MAX_MEMBERS];
	struct mrr_cstruct copy;
	size_t n = strlen(s->name);
	unsigned int i;

	if (!test_member || strncmp(test_member, s->name, n) ||
	    test_member[n] != '.' || s->nmembers > MRR_MAX_MEMBERS)
		return mrr_btf_check_struct(btf, s, msg, MRR_MSG_LEN);
	copy = *s;
	memcpy(members, s->members, s->nmembers * sizeof(*members));
	for (i = 0; i < s->nmembers; i++)
		if (!strcmp(members[i].name, test_member + n + 1))
			members[i].offset += 8;
	copy.members = members;
	return mrr_btf_check_struct(btf, &copy, msg, MRR_MSG_LEN);
}

struct mrr_kbtf {
	struct mrr_btf btf;
	void *raw;
	__u32 *offsets;
};

struct mrr_btf *mrr_btf_load(void)
{
	struct mrr_kbtf *k;
	char msg[MRR_MSG_LEN];
	size_t size = 0;
	__u32 ntypes;
	int err;

	k = kzalloc(sizeof(*k), GFP_KERNEL);
	if (!k)
		return ERR_PTR(-ENOMEM);
	k->raw = mrr_read_btf(&size);
	if (!k->raw) {
		pr_err("refusing to load: cannot read the kernel's BTF (%s; CONFIG_DEBUG_INFO_BTF)\n",
		       MRR_BTF_PATH);
		err = -EOPNOTSUPP;
		goto fail;
	}
	err = mrr_btf_count(k->raw, size, &ntypes, msg, sizeof(msg));
	if (!err) {
		k->offsets = kvmalloc_array(ntypes, sizeof(*k->offsets),
					    GFP_KERNEL);
		if (!k->offsets) {
			err = -ENOMEM;
			goto fail;
		}
		err = mrr_btf_open(&k->btf, k->raw, size, k->offsets, ntypes,
				   msg, sizeof(msg));
	}
	if (err) {
		pr_err("refusing to load: %s\n", msg);
		err = -EOPNOTSUPP;
		goto fail;
	}
	return &k->btf;
fail:
	mrr_btf_unload(&k->btf);
	return ERR_PTR(err);
}

void mrr_btf_unload(struct mrr_btf *btf)
{
	struct mrr_kbtf *k = container_of(btf, struct mrr_kbtf, btf);

	kvfree(k->offsets);
	kvfree(k->raw);
	kfree(k);
}

int mrr_verify_structs(const struct mrr_btf *btf,
		       const struct mrr_cstruct *const *structs,
		       size_t nstructs)
{
	char msg[MRR_MSG_LEN];
	size_t i;

	for (i = 0; i < nstructs; i++) {
		if (structs[i]->variant && *structs[i]->variant != structs[i]->id)
			continue;
		if (mrr_check_struct(btf, structs[i], msg)) {
			pr_err("refusing to load: %s\n", msg);
			return -EOPNOTSUPP;
		}
	}
	return 0;
}

int mrr_verify_funcs(const struct mrr_btf *btf, struct mrr_kdep *deps,
		     size_t ndeps)
{
	char msg[MRR_MSG_LEN];
	size_t i, j;

	for (i = 0; i < ndeps; i++) {
		for (j = 0; j < i; j++)
			if (!strcmp(deps[j].decl->name, deps[i].decl->name))
				break;
		if (j < i)
			continue;	/* its group is done */
		if (mrr_select(btf, deps, ndeps, i, msg)) {
			pr_err("refusing to load: %s\n", msg);
			return -EOPNOTSUPP;
		}
	}
	return 0;
}
