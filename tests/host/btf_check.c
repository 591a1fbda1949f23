// SPDX-License-Identifier: MIT
/*
 * btf_check.c - the module's BTF matcher (module/btf_match.c) against the
 * BTF of real kernels, with the module's own declarations.
 *
 *	btf_check NAME=BTF-FILE...
 *
 * Each BTF-FILE is a kernel's raw BTF (/sys/kernel/btf/vmlinux of that
 * kernel, or tests/vm/extract-btf of its vmlinuz).  The declarations are
 * every MRR_KFUNC of module/compat.c and module/ksyms.c, extracted at build
 * time (kfuncs.gen.h), and module/pmc.h.  For each kernel: exactly one
 * variant of every function matches (tlb_gather_mmu and tlb_finish_mmu
 * only where mprotect_fixup takes a gather); the chosen one, perturbed,
 * is refused with the right message; pagetable_move_control matches where
 * move_page_tables takes it and is refused when perturbed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tap.h"

/* The kernel types the declarations name, as user space can have them. */
typedef unsigned long pgoff_t;
typedef unsigned long vm_flags_t;
typedef struct { unsigned long __vma_flags[1]; } vma_flags_t;

#include "btf_match.h"

/* As in the kernel, bool is a type, not stdbool.h's macro for _Bool: the
 * declarations are spelt as the module spells them. */
#undef bool
typedef _Bool bool;

#include "pmc.h"

#define MRR_KFUNC(call, sym, ret, ...) \
	MRR_KFUNC_DESC(call, sym, MRR_CTYPE(ret), __VA_ARGS__)
#define MRR_KFUNC_VOID(call, sym, ...) \
	MRR_KFUNC_DESC(call, sym, MRR_CTYPE_VOID, __VA_ARGS__)
#include "kfuncs.gen.h"

struct entry {
	const char *call;
	const struct mrr_cfunc *decl;
};

static const struct entry entries[] = {
#include "kfuncs-list.gen.h"
};
#define NENTRIES (sizeof(entries) / sizeof(entries[0]))

/* The members of pmc.h's structure, as compat.c describes them. */
#define MEMBER(T, m) { .type = MRR_CTYPE(T), .name = #m, \
	.offset = offsetof(struct pagetable_move_control, m) }
static const struct mrr_cmember pmc_members[] = {
	MEMBER(struct vm_area_struct *, old),
	MEMBER(struct vm_area_struct *, new),
	MEMBER(unsigned long, old_addr),
	MEMBER(unsigned long, old_end),
	MEMBER(unsigned long, new_addr),
	MEMBER(unsigned long, len_in),
	MEMBER(bool, need_rmap_locks),
	MEMBER(bool, for_stack),
};

static const struct mrr_cstruct pmc = {
	.name = "pagetable_move_control",
	.size = sizeof(struct pagetable_move_control),
	.whole = true,
	.nmembers = ARRAY_SIZE(pmc_members),
	.members = pmc_members,
};

static void *slurp(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0, r;

	if (!f)
		return NULL;
	for (;;) {
		if (n == cap) {
			cap = cap ? 2 * cap : 1 << 22;
			buf = realloc(buf, cap);
			if (!buf)
				break;
		}
		r = fread(buf + n, 1, cap - n, f);
		if (!r)
			break;
		n += r;
	}
	fclose(f);
	*size = n;
	return buf;
}

/* The chosen entry of function @name, or NULL; @nmatch: how many match. */
static const struct entry *choose(const struct mrr_btf *btf, const char *name,
				  int *nmatch)
{
	const struct entry *chosen = NULL;
	char msg[320];
	size_t i;

	*nmatch = 0;
	for (i = 0; i < NENTRIES; i++) {
		if (strcmp(entries[i].decl->name, name))
			continue;
		if (!mrr_btf_check_func(btf, entries[i].decl, msg, sizeof(msg))) {
			chosen = &entries[i];
			++*nmatch;
		}
	}
	return chosen;
}

static void perturbed(const char *kname, const struct mrr_btf *btf,
		      const struct entry *e)
{
	const struct mrr_cfunc *f = e->decl;
	struct mrr_cparam params[8];
	struct mrr_cfunc copy = *f;
	char msg[320], want[256];
	int err;

	memcpy(params, f->params, f->nparams * sizeof(*params));
	copy.params = params;
	params[0].type = (struct mrr_ctype) { .decl = "struct mrr_test *",
		.size = sizeof(void *), .is_pointer = true };
	err = mrr_btf_check_func(btf, &copy, msg, sizeof(msg));
	snprintf(want, sizeof(want), "the module was built for 'struct mrr_test *%s'",
		 f->params[0].name);
	tap_ok(err == -EINVAL && !strncmp(msg, f->name, strlen(f->name)) &&
	       strstr(msg, ": parameter 1 is '") && strstr(msg, want),
	       "%s: %s, first parameter changed: refused: %s", kname, e->call, msg);

	copy.params = f->params;
	copy.nparams = f->nparams - 1;
	err = mrr_btf_check_func(btf, &copy, msg, sizeof(msg));
	snprintf(want, sizeof(want), "%s: %u parameters here, the module was built for %u",
		 f->name, f->nparams, f->nparams - 1);
	tap_ok(err == -EINVAL && !strncmp(msg, want, strlen(want)),
	       "%s: %s, last parameter dropped: refused: %s", kname, e->call, msg);
}

static void check_kernel(const char *kname, const char *path)
{
	struct mrr_btf btf;
	char msg[320];
	const char *done[64];
	size_t ndone = 0, i, j, size = 0;
	const struct entry *mprotect = NULL, *mpt = NULL, *cv = NULL;
	__u32 ntypes, *offsets;
	void *raw = slurp(path, &size);
	int n;

	if (!tap_ok(raw && size, "%s: read %s (%zu bytes)", kname, path, size))
		return;
	if (!tap_ok(!mrr_btf_count(raw, size, &ntypes, msg, sizeof(msg)) &&
		    ntypes > 10000, "%s: %u BTF types %s", kname, ntypes, msg))
		goto out;
	offsets = calloc(ntypes, sizeof(*offsets));
	if (!tap_ok(offsets && !mrr_btf_open(&btf, raw, size, offsets, ntypes,
					       msg, sizeof(msg)),
		    "%s: BTF indexed %s", kname, msg))
		goto out;

	mprotect = choose(&btf, "mprotect_fixup", &n);
	for (i = 0; i < NENTRIES; i++) {
		const char *name = entries[i].decl->name;
		const struct entry *e;
		int gathers = !mprotect || strcmp(mprotect->call, "k_mprotect_fixup_5");

		for (j = 0; j < ndone && strcmp(done[j], name); j++)
			;
		if (j < ndone || ndone == 64)
			continue;
		done[ndone++] = name;
		e = choose(&btf, name, &n);
		if (!gathers && (!strcmp(name, "tlb_gather_mmu") ||
				 !strcmp(name, "tlb_finish_mmu"))) {
			tap_ok(n == 0, "%s: %s: not used here (mprotect_fixup takes no gather), and no variant matches",
			       kname, name);
			continue;
		}
		if (!tap_ok(n == 1, "%s: %s: exactly one variant matches (%d: %s)",
			    kname, name, n, e ? e->call : "none"))
			continue;
		if (!strcmp(name, "move_page_tables"))
			mpt = e;
		if (!strcmp(name, "copy_vma"))
			cv = e;
		perturbed(kname, &btf, e);
	}

	/* The message of the issue that started this: 7.3's copy_vma. */
	if (cv && !strcmp(cv->call, "k_copy_vma_7")) {
		for (i = 0; i < NENTRIES; i++)
			if (!strcmp(entries[i].call, "k_copy_vma_6"))
				break;
		mrr_btf_check_func(&btf, entries[i].decl, msg, sizeof(msg));
		tap_ok(!strcmp(msg, "copy_vma: parameter 5 is 'unsigned long anon_pgoff' here, the module was built for 'bool *need_rmap_locks'"),
		       "%s: the 7.2 copy_vma is refused: %s", kname, msg);
	}

	if (mpt && !strcmp(mpt->call, "k_move_page_tables_pmc")) {
		struct mrr_cmember members[ARRAY_SIZE(pmc_members)];
		struct mrr_cstruct copy = pmc;

		tap_ok(!mrr_btf_check_struct(&btf, &pmc, msg, sizeof(msg)),
		       "%s: struct pagetable_move_control as the module lays it out %s",
		       kname, msg);
		memcpy(members, pmc_members, sizeof(members));
		members[2].offset += 8;
		copy.members = members;
		tap_ok(mrr_btf_check_struct(&btf, &copy, msg, sizeof(msg)) == -EINVAL &&
		       strstr(msg, "struct pagetable_move_control: member 'unsigned long old_addr' (8 bytes) at offset 16 here, the module was built for 'unsigned long old_addr' (8 bytes) at offset 24"),
		       "%s: a moved member is refused: %s", kname, msg);
		copy = pmc;
		copy.size += 8;
		tap_ok(mrr_btf_check_struct(&btf, &copy, msg, sizeof(msg)) == -EINVAL &&
		       strstr(msg, "bytes here, the module was built for"),
		       "%s: another size is refused: %s", kname, msg);
	} else {
		tap_ok(mrr_btf_check_struct(&btf, &pmc, msg, sizeof(msg)) == -ENOENT,
		       "%s: no pagetable_move_control here (%s)", kname, msg);
	}
	{
		struct mrr_cfunc none = *entries[0].decl;

		none.name = "mrr_no_such_function";
		tap_ok(mrr_btf_check_func(&btf, &none, msg, sizeof(msg)) == -ENOENT &&
		       !strcmp(msg, "mrr_no_such_function: not in this kernel's BTF"),
		       "%s: a missing function: %s", kname, msg);
	}
	free(offsets);
out:
	free(raw);
}

int main(int argc, char **argv)
{
	int i;

	if (argc < 2) {
		fprintf(stderr, "usage: btf_check NAME=BTF-FILE...\n");
		return 2;
	}
	tap_diag("%zu declarations from module/compat.c and module/ksyms.c", NENTRIES);
	for (i = 1; i < argc; i++) {
		char *eq = strchr(argv[i], '=');

		if (!eq) {
			tap_ok(0, "argument %s is not NAME=FILE", argv[i]);
			continue;
		}
		*eq = 0;
		check_kernel(argv[i], eq + 1);
	}
	return tap_done();
}
