/* SPDX-License-Identifier: MIT */
/*
 * vma_maps.c - look up the VMA containing an address by reading
 * /proc/self/maps up to its line: the fallback for kernels without
 * PROCMAP_QUERY.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "internal.h"

struct lookup {
	uintptr_t addr;
	struct mr_vma *v;
	int err;		/* EFAULT until found */
};

/* "start-end perms offset major:minor inode   name" */
static int parse_line(const char *line, size_t len, void *arg)
{
	struct lookup *l = arg;
	struct mr_vma *v = l->v;
	unsigned long start, end, major, minor, inode;
	const char *p = line;
	char *e;

	(void)len;
	start = strtoul(p, &e, 16);
	if (*e != '-')
		return 1;
	end = strtoul(e + 1, &e, 16);
	if (l->addr < start)
		return 1;		/* lines are sorted: not mapped */
	if (l->addr >= end)
		return 0;
	p = e + 1;
	if (strlen(p) < 5)
		return 1;
	v->start = start;
	v->end = end;
	v->prot = (p[0] == 'r' ? PROT_READ : 0) |
		  (p[1] == 'w' ? PROT_WRITE : 0) |
		  (p[2] == 'x' ? PROT_EXEC : 0);
	v->shared = p[3] == 's';
	strtoul(p + 5, &e, 16);			/* offset */
	major = strtoul(e, &e, 16);
	minor = strtoul(e + 1, &e, 16);
	inode = strtoul(e, &e, 10);
	v->file = major || minor || inode;
	v->page_size = 0;
	while (*e == ' ')
		e++;
	if (!strcmp(e, "[vsyscall]"))
		return 1;		/* not a VMA of this mm: EFAULT */
	snprintf(v->name, sizeof(v->name), "%s", e);
	l->err = 0;
	return 1;
}

int mr_vma_maps(uintptr_t addr, struct mr_vma *v)
{
	struct lookup l = { .addr = addr, .v = v, .err = EFAULT };
	int err = mr_proc_lines("/proc/self/maps", parse_line, &l);

	return err ? ENOTSUP : l.err;
}
