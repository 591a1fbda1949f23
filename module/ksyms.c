// SPDX-License-Identifier: GPL-2.0
/*
 * Resolve non-exported kernel symbols once at load and redirect our stubs to
 * them (see ksyms.h for why the redirect, rather than a function pointer).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kprobes.h>
#include <linux/kernel.h>
#include <linux/uaccess.h>
#include <linux/moduleparam.h>
#include <linux/printk.h>
#include <linux/string.h>

#include "compat.h"
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
	WARN_ONCE(1, KBUILD_MODNAME ": stub %s ran without its redirect\n",
		  name);
}

static int mrr_redirect_one(struct mrr_ksym *k)
{
	int err;

	mrr_ftrace_ops_init(&k->ops);
	/*
	 * PERMANENT: ftrace cannot be switched off under us (sysctl
	 * kernel.ftrace_enabled=0 is refused while we are loaded).
	 */
	k->ops.flags = mrr_ftrace_flags() | FTRACE_OPS_FL_IPMODIFY |
		       FTRACE_OPS_FL_PERMANENT;
	err = ftrace_set_filter_ip(&k->ops, (unsigned long)k->stub, 0, 0);
	if (err) {
		pr_err("cannot attach ftrace to the stub of %s (%d)\n",
		       k->name, err);
		return err;
	}
	err = register_ftrace_function(&k->ops);
	if (err) {
		pr_err("cannot redirect calls to %s (%d)\n", k->name, err);
		ftrace_set_filter_ip(&k->ops, (unsigned long)k->stub, 1, 0);
		return err;
	}
	k->registered = true;
	return 0;
}

/* The encoding of endbr64 (f3 0f 1e fa), read as a little-endian u32. */
#define MRR_ENDBR64 0xfa1e0ff3U

/* Whether an indirect call to the kernel function at @addr is allowed. */
static bool mrr_may_call_directly(unsigned long addr)
{
	u32 insn;

	if (IS_ENABLED(CONFIG_CFI_CLANG))
		return false;
	if (!IS_ENABLED(CONFIG_X86_KERNEL_IBT))
		return true;
	if (copy_from_kernel_nofault(&insn, (void *)addr, sizeof(insn)))
		return false;
	return insn == MRR_ENDBR64;
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

static noinline __noipa unsigned long mrr_kallsyms_lookup_name(const char *name)
{
	mrr_stub_reached(__func__);
	return 0;
}

static struct mrr_ksym mrr_lookup_sym =
	MRR_KSYM("kallsyms_lookup_name", mrr_kallsyms_lookup_name);

static unsigned long mrr_lookup(const char *name)
{
	if (fail_symbol && !strcmp(name, fail_symbol))
		return 0;
	return mrr_kallsyms_lookup_name(name);
}

void mrr_ksyms_exit(struct mrr_ksym *syms, size_t nsyms)
{
	size_t i;

	for (i = 0; i < nsyms; i++) {
		if (!syms[i].registered)
			continue;
		unregister_ftrace_function(&syms[i].ops);
		mrr_ftrace_drop_filter(&syms[i].ops,
				       (unsigned long)syms[i].stub);
		syms[i].registered = false;
	}
	if (mrr_lookup_sym.registered) {
		unregister_ftrace_function(&mrr_lookup_sym.ops);
		mrr_ftrace_drop_filter(&mrr_lookup_sym.ops,
				       (unsigned long)mrr_lookup_sym.stub);
		mrr_lookup_sym.registered = false;
	}
}

int mrr_ksyms_init(struct mrr_ksym *syms, size_t nsyms,
		   const struct mrr_kvar *vars, size_t nvars)
{
	unsigned long addr;
	size_t i, n;
	int err;

	mrr_lookup_sym.addr = mrr_find_kallsyms_lookup_name();
	if (!mrr_lookup_sym.addr) {
		pr_err("cannot find kallsyms_lookup_name (kprobes disabled?)\n");
		return -EOPNOTSUPP;
	}
	err = mrr_redirect_one(&mrr_lookup_sym);
	if (err)
		return err;
	/*
	 * The first call proves that the redirect works at all.  On kernels
	 * with IBT, kprobes sit after the function's ENDBR, so the address
	 * found may be that much past the symbol's.
	 */
	addr = mrr_kallsyms_lookup_name("kallsyms_lookup_name");
	if (!addr || (addr != mrr_lookup_sym.addr &&
		      addr + MRR_ENDBR_SIZE != mrr_lookup_sym.addr)) {
		pr_err("ftrace redirect does not work on this kernel\n");
		err = -EOPNOTSUPP;
		goto fail;
	}
	mrr_lookup_sym.addr = addr;

	for (i = 0; i < nvars; i++) {
		*vars[i].addr = (void *)mrr_lookup(vars[i].name);
		if (!*vars[i].addr) {
			pr_err("kernel symbol %s not found: kernel not supported\n",
			       vars[i].name);
			err = -EOPNOTSUPP;
			goto fail;
		}
	}
	for (i = 0; i < nsyms; i++) {
		syms[i].addr = mrr_lookup(syms[i].name);
		if (!syms[i].addr) {
			pr_err("kernel function %s not found: kernel not supported\n",
			       syms[i].name);
			err = -EOPNOTSUPP;
			goto fail;
		}
		syms[i].direct = mrr_may_call_directly(syms[i].addr);
		if (syms[i].direct)
			continue;
		err = mrr_redirect_one(&syms[i]);
		if (err)
			goto fail;
	}
	for (i = 0, n = 0; i < nsyms; i++)
		n += syms[i].direct;
	pr_info("%zu kernel functions resolved, %zu called directly\n",
		nsyms, n);
	return 0;
fail:
	mrr_ksyms_exit(syms, nsyms);
	return err;
}
