/* SPDX-License-Identifier: MIT */
/*
 * smaps.c - the VmFlags of one VMA from /proc/self/smaps.  Slow (the kernel
 * walks the page tables of every VMA it prints), so it is read only when a
 * flag cannot be learnt otherwise: userfaultfd registration and MLOCK_ONFAULT.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct scan {
	uintptr_t addr;
	bool inside;
	bool found;
	unsigned int vmf;
};

static unsigned int parse_vmflags(const char *p)
{
	unsigned int vmf = 0;

	for (; *p; p++) {
		if (p[0] == ' ' || !p[1])
			continue;
		if (!strncmp(p, "um", 2) || !strncmp(p, "uw", 2) ||
		    !strncmp(p, "ui", 2))
			vmf |= MR_VMF_UFFD;
		else if (!strncmp(p, "lf", 2))
			vmf |= MR_VMF_LOCKONFAULT;
		else if (!strncmp(p, "sl", 2))
			vmf |= MR_VMF_SEALED;
		p++;
	}
	return vmf;
}

static int scan_line(const char *line, size_t len, void *arg)
{
	struct scan *s = arg;
	unsigned long start, end;
	char *e;

	(void)len;
	/* Field names start with a capital; VMA headers with a hex digit. */
	if ((line[0] >= '0' && line[0] <= '9') ||
	    (line[0] >= 'a' && line[0] <= 'f')) {
		if (s->inside)
			return 1;	/* passed it without a VmFlags line */
		start = strtoul(line, &e, 16);
		end = strtoul(e + 1, NULL, 16);
		if (s->addr < start)
			return 1;
		s->inside = s->addr < end;
		return 0;
	}
	if (s->inside && !strncmp(line, "VmFlags:", 8)) {
		s->vmf = parse_vmflags(line + 8);
		s->found = true;
		return 1;
	}
	return 0;
}

int mr_vmflags(uintptr_t addr, unsigned int *vmf)
{
	struct scan s = { .addr = addr };
	int err = mr_proc_lines("/proc/self/smaps", scan_line, &s);

	if (err)
		return err;
	if (!s.found)
		return ENOTSUP;
	*vmf = s.vmf;
	return 0;
}
