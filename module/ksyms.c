// SPDX-License-Identifier: GPL-2.0
/*
 * Resolve non-exported kernel symbols once at load and point our static
 * calls at them (see ksyms.h for why static calls, rather than function
 * pointers).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kprobes.h>
#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/printk.h>
#include <linux/string.h>

#include "ksyms.h"

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

static unsigned long mrr_kallsyms_lookup_name(const char *name)
{
	mrr_stub_reached(__func__);
	return 0;
}

DEFINE_STATIC_CALL(mrr_kallsyms_lookup_name, mrr_kallsyms_lookup_name);

static unsigned long mrr_lookup(const char *name)
{
	if (fail_symbol && !strcmp(name, fail_symbol))
		return 0;
	return static_call(mrr_kallsyms_lookup_name)(name);
}

static void mrr_point(struct mrr_ksym *k)
{
	__static_call_update(k->key, k->tramp, (void *)k->addr);
}

int mrr_ksyms_init(struct mrr_ksym *syms, size_t nsyms,
		   const struct mrr_kvar *vars, size_t nvars)
{
	struct mrr_ksym lookup = MRR_KSYM("kallsyms_lookup_name",
					  mrr_kallsyms_lookup_name);
	unsigned long addr;
	size_t i;

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
	for (i = 0; i < nsyms; i++) {
		syms[i].addr = mrr_lookup(syms[i].name);
		if (!syms[i].addr) {
			pr_err("kernel function %s not found: kernel not supported\n",
			       syms[i].name);
			return -EOPNOTSUPP;
		}
	}
	for (i = 0; i < nsyms; i++)
		mrr_point(&syms[i]);
	return 0;
}
