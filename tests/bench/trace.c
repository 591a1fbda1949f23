// SPDX-License-Identifier: MIT
/*
 * trace.c - mrbench trace: where one call's time goes, by the kernel's own
 * function_graph tracer (tracefs, as root; the guests have it).  A
 * diagnostic for the targets the figures miss, not a benchmark: it prints
 * counts and traced times, never figures or verdicts.
 *
 * Each case is one call of the benchmarks: a move of one size and
 * placement (as percall makes it: FIXED onto an empty mapping in a
 * PROT_NONE reservation) by mremap(MAYMOVE) or by mremap_retain() on the
 * module, or a release of the middle chunk of three (as release makes it)
 * by the library's system calls or by the module's ioctl.  After WARM
 * untraced calls, CALLS calls are traced, each alone (tracing_on is set
 * just before the call and cleared just after it, outside the untimed
 * re-map between calls), from every system call the process enters
 * (set_graph_function __x64_sys_*: x86-64's names; set_ftrace_pid) but
 * write(), which switches tracing (set_graph_notrace).  Printed per case
 * and call, on stdout as plain lines (it is no benchmark: bench.h's
 * figures are not what it prints): the system calls (how many, and their
 * traced time), how many kernel functions were entered, the most entered
 * ones, and those that flush TLBs or move pages.  Softirqs that run on
 * the way out of a call are counted with it.  Tracing costs about a
 * microsecond a function entry under TCG, so read the counts as they are
 * and the times only against each other; the tracer sees neither the
 * system call entry and exit (noinstr) nor user space.  Switching the
 * tracer patches kernel text while the other vCPU runs, which TCG has not
 * always followed (tests/clients/suite-run; here once in eight runs on
 * 2026-12-06, an int3 oops in a patched call site as the tracer was
 * switched off at exit, after every case had printed): no run that judges
 * anything traces, and a guest that dies so fails bench-trace.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <mremap_retain.h>

#include "bench.h"
#include "internal.h"

#define WARM	3
#define CALLS	5
#define TOP	12
#define NAMES	4096

static const char *tracefs;
/* What the run changes and the tracer had before it, put back at exit. */
static char old_buffer_kb[32], old_on[8];

/* Writes val to tracefs file f: 0, or -1 and a note saying which. */
static int tset(const char *f, const char *val)
{
	char path[256];
	int fd, ok;

	snprintf(path, sizeof(path), "%s/%s", tracefs, f);
	fd = open(path, O_WRONLY | O_TRUNC);
	ok = fd >= 0 && write(fd, val, strlen(val)) == (ssize_t)strlen(val);
	if (!ok)
		note("trace: cannot write '%s' to %s: %m", val, path);
	if (fd >= 0)
		close(fd);
	return ok ? 0 : -1;
}

/* tracing_on, kept open: the calls that switch it add only a write. */
static int on_fd = -1;

static void tracing(int on)
{
	if (write(on_fd, on ? "1" : "0", 1) != 1)
		die("trace: cannot switch tracing: %m");
}

/* Reads tracefs file f, its first line without the newline, into buf. */
static int tget(const char *f, char *buf, size_t len)
{
	char path[256];
	FILE *in;
	int ok;

	snprintf(path, sizeof(path), "%s/%s", tracefs, f);
	in = fopen(path, "r");
	ok = in && fgets(buf, len, in);
	if (in)
		fclose(in);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

/* Leaves no tracer behind, whatever stopped the run, and the buffer and
 * the switch as they were. */
static void trace_reset(void)
{
	tset("tracing_on", "0");
	tset("current_tracer", "nop");
	tset("set_graph_function", "");
	tset("set_graph_notrace", "");
	tset("set_ftrace_pid", "");
	tset("trace", "");
	tset("buffer_size_kb", old_buffer_kb);
	tset("tracing_on", old_on);
}

static int trace_setup(void)
{
	static const char *const dirs[] = {
		"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
	};
	static const char *const opts[][2] = {
		/* What parse_line() reads, whatever was set before. */
		{ "options/funcgraph-abstime", "0" },
		{ "options/funcgraph-cpu", "1" },
		{ "options/funcgraph-duration", "1" },
		{ "options/funcgraph-overhead", "1" },
		{ "options/funcgraph-proc", "0" },
		{ "options/funcgraph-tail", "1" },
		{ "options/funcgraph-irqs", "0" },
		{ "options/context-info", "1" },
		{ "options/overwrite", "0" },
	};
	char pid[32], on[64];
	size_t i;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]) && !tracefs; i++) {
		char f[64];

		snprintf(f, sizeof(f), "%s/current_tracer", dirs[i]);
		if (access(f, W_OK) && !i)
			mount("tracefs", dirs[i], "tracefs", 0, NULL);
		if (!access(f, W_OK))
			tracefs = dirs[i];
	}
	if (!tracefs) {
		note("trace: no tracefs here (root, CONFIG_FTRACE)");
		return -1;
	}
	/* An unexpanded buffer reads "1408 (expanded: 1408)". */
	if (tget("buffer_size_kb", old_buffer_kb, sizeof(old_buffer_kb)) ||
	    tget("tracing_on", old_on, sizeof(old_on)))
		return -1;
	old_buffer_kb[strspn(old_buffer_kb, "0123456789")] = 0;
	atexit(trace_reset);
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	if (tset("tracing_on", "0") || tset("current_tracer", "nop") ||
	    tset("buffer_size_kb", "65536") ||
	    tset("set_graph_function", "__x64_sys_*") ||
	    tset("set_graph_notrace", "__x64_sys_write") ||
	    tset("set_ftrace_pid", pid) || tset("max_graph_depth", "0") ||
	    tset("current_tracer", "function_graph"))
		return -1;
	for (i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
		if (tset(opts[i][0], opts[i][1]))
			return -1;
	if (tset("trace", ""))	/* the buffer and its lost-event counts */
		return -1;
	snprintf(on, sizeof(on), "%s/tracing_on", tracefs);
	on_fd = open(on, O_WRONLY);
	return on_fd < 0 ? -1 : 0;
}

/* What one case's trace holds, per function name. */
static struct fn {
	char name[64];
	long entries;
	double us;	/* traced time of the system calls */
} fns[NAMES];
static int nfns;

static struct fn *fn_of(const char *name)
{
	int i;

	for (i = 0; i < nfns; i++)
		if (!strcmp(fns[i].name, name))
			return &fns[i];
	if (nfns == NAMES)
		die("trace: more than %d functions in one case", NAMES);
	snprintf(fns[nfns].name, sizeof(fns[nfns].name), "%s", name);
	fns[nfns].entries = 0;
	fns[nfns].us = 0;
	return &fns[nfns++];
}

/*
 * A function_graph line: "CPU) [duration us] | ", two spaces a level,
 * then "name() {", "name();" or a closing brace with the name in a
 * comment (funcgraph-tail).  Entries are counted; a system call's
 * duration is on its closing line, or on its one line if it called no
 * traced function.
 */
static void parse_line(const char *line)
{
	const char *bar = strchr(line, '|'), *p, *us;
	char name[64];
	int closing, n;
	struct fn *f;

	if (!bar)
		return;
	for (p = bar + 1; *p == ' '; p++)
		;
	closing = *p == '}';
	if (closing)
		n = sscanf(p, "} /* %63[^ *]", name);
	else
		n = strchr(p, '(') ? sscanf(p, "%63[^( ]", name) : 0;
	if (n != 1)
		return;
	f = fn_of(name);
	if (!closing)
		f->entries++;
	us = strstr(line, " us");
	if (us && us < bar && !strncmp(name, "__x64_sys_", 10) &&
	    (closing || strstr(p, "();"))) {
		while (us > line && (us[-1] == '.' || (us[-1] >= '0' &&
							us[-1] <= '9')))
			us--;
		f->us += atof(us);
	}
}

/* Events the ring buffer could not keep, on every CPU (stats files). */
static long lost_events(void)
{
	char path[256], line[128];
	long lost = 0, v;
	FILE *f;
	int cpu;

	for (cpu = 0; ; cpu++) {
		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/stats", tracefs,
			 cpu);
		f = fopen(path, "r");
		if (!f)
			return lost;
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "overrun: %ld", &v) == 1 ||
			    sscanf(line, "dropped events: %ld", &v) == 1)
				lost += v;
		fclose(f);
	}
}

static int by_entries(const void *a, const void *b)
{
	const struct fn *x = a, *y = b;

	return (y->entries > x->entries) - (y->entries < x->entries);
}

static void report(const char *what)
{
	char path[256], line[512];
	long total = 0;
	int i, shown;
	FILE *f;

	nfns = 0;
	if (lost_events())
		die("trace: %s: the ring buffer lost events", what);
	snprintf(path, sizeof(path), "%s/trace", tracefs);
	f = fopen(path, "r");
	if (!f)
		die("trace: cannot read %s: %m", path);
	while (fgets(line, sizeof(line), f))
		parse_line(line);
	fclose(f);
	if (tset("trace", ""))	/* also clears the stats */
		die("trace: cannot clear the trace");
	qsort(fns, nfns, sizeof(fns[0]), by_entries);
	for (i = 0; i < nfns; i++)
		total += fns[i].entries;
	printf("%s %s: %.1f function entries a call; system calls:",
	       bench_opts.label, what, (double)total / CALLS);
	for (i = 0; i < nfns; i++)
		if (!strncmp(fns[i].name, "__x64_sys_", 10))
			printf(" %s x%.1f (%.1f us)", fns[i].name + 10,
			       (double)fns[i].entries / CALLS, fns[i].us / CALLS);
	printf("\n  most entered, a call:");
	for (i = shown = 0; i < nfns && shown < TOP; i++)
		if (strncmp(fns[i].name, "__x64_sys_", 10)) {
			printf(" %s %.1f", fns[i].name,
			       (double)fns[i].entries / CALLS);
			shown++;
		}
	printf("\n  flushing TLBs and moving pages, a call:");
	for (i = 0; i < nfns; i++)
		if (strstr(fns[i].name, "flush_tlb") ||
		    !strncmp(fns[i].name, "move_", 5))
			printf(" %s %.1f", fns[i].name,
			       (double)fns[i].entries / CALLS);
	printf("\n");
	fflush(stdout);
}

/* Moves between two slots of a reservation, as percall does. */
static void trace_move(int module, size_t n, int misaligned)
{
	char *slot[2], *a, *b, *tmp, what[96], sz[32];
	size_t res_len;
	void *res;
	int i;

	reserve_slots(n, misaligned, 2, slot, &res, &res_len);
	a = slot[0];
	b = slot[1];
	map_slot(a, n, 1);
	map_slot(b, n, 0);
	fill_pages(a, n, n);
	for (i = 0; i < WARM + CALLS; i++) {
		void *r;

		if (i >= WARM)
			tracing(1);
		r = module ? mremap_retain(a, n, n, MREMAP_RETAIN_FIXED, b) :
			     mremap(a, n, n, MREMAP_MAYMOVE | MREMAP_FIXED, b);
		if (i >= WARM)
			tracing(0);
		if (r != b)
			die("trace: move failed: %m");
		if (!module)
			map_slot(a, n, 0);
		tmp = a, a = b, b = tmp;
	}
	if (!check_pages(a, n, n))
		die("trace: the moved data came out wrong");
	munmap(res, res_len);
	snprintf(what, sizeof(what), "%s %s %s",
		 misaligned ? "misaligned" : "aligned",
		 size_name(n, sz, sizeof(sz)),
		 module ? "retain-module" : "mremap");
	report(what);
}

/* Releases the middle chunk of three, as release does. */
static void trace_release(int module, size_t n)
{
	char *base, *p, what[96], sz[32];
	size_t res_len;
	void *res;
	int i;

	base = reserve_aligned(3 * n, 2 * MIB, &res, &res_len);
	map_slot(base, 3 * n, 0);
	p = base + n;
	for (i = 0; i < WARM + CALLS; i++) {
		int err;

		if (release_reuse(p, n))
			die("trace: mprotect: %m");
		if (i >= WARM)
			tracing(1);
		err = module ? mr_module_decommit(p, n) :
			       mr_decommit_range(MR_DECOMMIT_MPROTECT, 0, p, n);
		if (i >= WARM)
			tracing(0);
		if (err)
			die("trace: release failed: %s", strerror(err));
	}
	if (mprotect(p, n, PROT_READ | PROT_WRITE))
		die("trace: mprotect: %m");
	if (!release_zeroed(p, n))
		die("trace: the released chunk kept its data");
	munmap(res, res_len);
	snprintf(what, sizeof(what), "release %s %s", size_name(n, sz, sizeof(sz)),
		 module ? "module-ioctl" : "decommit-syscalls");
	report(what);
}

int trace_bench(void)
{
	static const size_t sizes[] = { 4 * KIB, 64 * KIB, 2 * MIB };
	const size_t nrelease = 2;	/* release's 4 KiB and 64 KiB */
	int module, mis;
	size_t k;

	if (trace_setup())
		return 1;
	module = mremap_retain_set_backend(MREMAP_RETAIN_BACKEND_MODULE) == 0 &&
		 mr_module_decommit_available();
	if (!module)
		note("trace: no module here: mremap and the system calls only");
	for (mis = 0; mis < 2; mis++)
		for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
			trace_move(0, sizes[k], mis);
			if (module)
				trace_move(1, sizes[k], mis);
		}
	/* As release does: its chunks' pages are small ones. */
	if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0))
		die("PR_SET_THP_DISABLE: %m");
	for (k = 0; k < nrelease; k++) {
		trace_release(0, sizes[k]);
		if (module)
			trace_release(1, sizes[k]);
	}
	return 0;
}
