// SPDX-License-Identifier: GPL-2.0
/*
 * Resolve non-exported kernel symbols once at load and point our static
 * calls at them, after the BTF check (see ksyms.h and verify.h).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/kprobes.h>
#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/printk.h>
#include <linux/string.h>

#include "kdecl.h"
#include "ksyms.h"
#include "verify.h"

/* Size of the endbr64 instruction that opens functions on IBT kernels. */
#define MRR_ENDBR_SIZE 4

/*
 * For tests: treat this symbol as missing, to exercise the refusal to load
 * (and its cleanup) on a kernel that has everything.
 */
static char *fail_symbol;
module_param(fail_symbol, charp, 0);
MODULE_PARM_DESC(fail_symbol, "pretend this kernel symbol is missing (tests)");

void mrr_stub_reached(const char *name)
{
	WARN_ONCE(1, KBUILD_MODNAME ": stub %s ran, its static call unset\n",
		  name);
}

/* kallsyms_lookup_name() is not exported either; a kprobe reveals it. */
static unsigned long mrr_find_kallsyms_lookup_name(void)
{
	struct kprobe kp = { .symbol_name = "kallsyms_lookup_name" };
	unsigned long addr;

	if (register_kprobe(&kp) < 0)
		return 0;
	addr = (unsigned long)kp.addr;
	unregister_kprobe(&kp);
	return addr;
}

MRR_KFUNC(k_kallsyms_lookup_name, "kallsyms_lookup_name", unsigned long,
	  (const char *, name));

static unsigned long mrr_lookup(const char *name)
{
	if (fail_symbol && !strcmp(name, fail_symbol))
		return 0;
	return static_call(k_kallsyms_lookup_name)(name);
}

static void mrr_point(struct mrr_kdep *k)
{
	__static_call_update(k->key, k->tramp, (void *)k->addr);
}

/* The BTF checks: kallsyms_lookup_name() first, as it is called first. */
static int mrr_ksyms_verify(struct mrr_kdep *lookup, struct mrr_kdep *deps,
			    size_t ndeps,
			    const struct mrr_cstruct *const *structs,
			    size_t nstructs)
{
	struct mrr_btf *btf = mrr_btf_load();
	int err;

	if (IS_ERR(btf))
		return PTR_ERR(btf);
	err = mrr_verify_funcs(btf, lookup, 1);
	if (!err)
		err = mrr_verify_funcs(btf, deps, ndeps);
	if (!err)
		err = mrr_verify_structs(btf, structs, nstructs);
	mrr_btf_unload(btf);
	return err;
}

int mrr_ksyms_init(struct mrr_kdep *deps, size_t ndeps,
		   const struct mrr_kvar *vars, size_t nvars,
		   const struct mrr_cstruct *const *structs, size_t nstructs)
{
	struct mrr_kdep lookup = MRR_KDEP(k_kallsyms_lookup_name, NULL, 0);
	unsigned long addr;
	size_t i;
	int err;

	err = mrr_ksyms_verify(&lookup, deps, ndeps, structs, nstructs);
	if (err)
		return err;

	lookup.addr = mrr_find_kallsyms_lookup_name();
	if (!lookup.addr) {
		pr_err("cannot find kallsyms_lookup_name (kprobes disabled?)\n");
		return -EOPNOTSUPP;
	}
	mrr_point(&lookup);
	/*
	 * The first call proves that the static call works at all.  On
	 * kernels with IBT, kprobes sit after the function's ENDBR, so the
	 * address found may be that much past the symbol's.
	 */
	addr = mrr_lookup("kallsyms_lookup_name");
	if (!addr || (addr != lookup.addr &&
		      addr + MRR_ENDBR_SIZE != lookup.addr)) {
		pr_err("static calls to kernel functions do not work here\n");
		return -EOPNOTSUPP;
	}

	for (i = 0; i < nvars; i++) {
		*vars[i].addr = (void *)mrr_lookup(vars[i].name);
		if (!*vars[i].addr) {
			pr_err("kernel symbol %s not found: kernel not supported\n",
			       vars[i].name);
			return -EOPNOTSUPP;
		}
	}
	/* All found before any is pointed at: a refusal leaves no trace. */
	for (i = 0; i < ndeps; i++) {
		if (!deps[i].selected)
			continue;
		deps[i].addr = mrr_lookup(deps[i].decl->name);
		if (!deps[i].addr) {
			pr_err("kernel function %s not found: kernel not supported\n",
			       deps[i].decl->name);
			return -EOPNOTSUPP;
		}
	}
	for (i = 0; i < ndeps; i++)
		if (deps[i].selected)
			mrr_point(&deps[i]);
	return 0;
}
