// SPDX-License-Identifier: MIT
/*
 * faults.c - (root) every allocation a call makes may fail, and none of
 * them may leave anything changed: a fault-injection sweep.
 *
 * The kernel's fault injection (CONFIG_FAIL_PAGE_ALLOC, CONFIG_FAILSLAB,
 * /proc/thread-self/fail-nth) fails the N-th page or slab allocation the
 * calling thread makes from the moment N is written.  For each case and
 * backend a child sets N = 1, 2, ... before one call until the call
 * makes fewer than N allocations (fail-nth still set afterwards).  Every
 * call must either keep the whole contract (bytes moved, source fresh and
 * mapped with its protection) or fail with the errno table's ENOMEM and
 * nothing changed: /proc/self/maps, VmSize and VmLck as before, the bytes
 * where they were; a FIXED destination that the call was to replace is
 * either intact or unmapped (man page); and once all is unmapped again,
 * Committed_AS is back where it was (a failure path that restored a
 * mapping's VM_ACCOUNT without its charge would leave it lower).  Page
 * tables, VMAs, anon_vma chains and maple-tree nodes are all in the
 * sweep: it covers the module's failure paths after move_page_tables() on
 * every kernel that has fault injection, where memcg.c reaches them on
 * 5.10/6.1 only.
 *
 * Debian's stock kernels have no fault injection: there the test skips.
 * The debug kernel (tests/vm/mkdebugkernel, release "*-mrr-debug") is
 * built with it, and there a missing knob is a failure.  User pages
 * (__GFP_HIGHMEM) are left out: a failed user fault would be an OOM.
 */
#include <sys/mount.h>
#include <sys/stat.h>

#include "testlib.h"

#define DBG "/sys/kernel/debug"
#define MAXN 2000
#define SEED_SRC 71
#define SEED_DST 72

enum fcase {
	F_GROW, F_REPLACE, F_ALIKE, F_LOCKED, F_SHRINK, F_PARTS,
	F_DECOMMIT, F_DECOMMIT_RETIRED, F_NCASES
};

static const char *const fcase_name[F_NCASES] = {
	"grow 4 MiB to 8 MiB onto a free range off its alignment",
	"move 4 MiB onto an existing read-only mapping (FIXED replaces it)",
	"move 4 MiB onto an alike mapping (FIXED; UFFDIO_MOVE where the module offers it)",
	"move a locked 4 MiB source",
	"shrink 4 MiB to 1 MiB onto a free range",
	"grow a source of three mappings (rw|r--|rw) to 8 MiB",
	"decommit 1 MiB in the middle of a 4 MiB mapping",
	"decommit 2 MiB across a moved-out read-only mapping and a rw one",
};

/* The cases whose failure paths the module's sweep must see (the alike
 * move falls back, page by page, rather than fail). */
static int must_fail(enum fcase c)
{
	return c != F_ALIKE;
}

#define SRC_LEN (4UL << 20)

static struct tl_snap before, after;
static int nth_fd = -1;

static int set_nth(unsigned int n)
{
	char v[16];
	int len = snprintf(v, sizeof(v), "%u", n);

	return pwrite(nth_fd, v, len, 0) == len ? 0 : -1;
}

static long get_nth(void)
{
	char v[16];
	ssize_t r = pread(nth_fd, v, sizeof(v) - 1, 0);

	if (r <= 0)
		return -1;
	v[r] = 0;
	return atol(v);
}

/* A 2 MiB aligned free range of len bytes plus off. */
static char *aligned_range(size_t len, size_t off)
{
	char *p = tl_free_range(len + (4UL << 20));

	return (char *)((((uintptr_t)p + (2UL << 20) - 1) & ~((2UL << 20) - 1)) + off);
}

static char *map_at(char *at, size_t len, int prot)
{
	char *p = mmap(at, len, prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
		       -1, 0);

	if (p != at) {
		tap_diag("mmap at %p: %s", (void *)at, strerror(errno));
		exit(99);
	}
	madvise(p, len, MADV_NOHUGEPAGE);
	return p;
}

struct layout {
	char *src, *dst;
	size_t old_len, new_len, dst_len;
};

static void setup(enum fcase c, struct layout *l)
{
	l->old_len = SRC_LEN;
	l->new_len = c == F_GROW || c == F_PARTS ? 2 * SRC_LEN :
		     c == F_SHRINK ? SRC_LEN / 4 : SRC_LEN;
	l->src = map_at(aligned_range(SRC_LEN, 0), SRC_LEN, PROT_READ | PROT_WRITE);
	tl_fill(l->src, SRC_LEN, SEED_SRC);
	if (c == F_PARTS)
		mprotect(l->src + SRC_LEN / 4, SRC_LEN / 2, PROT_READ);
	l->dst = NULL;
	l->dst_len = 0;
	if (c == F_DECOMMIT_RETIRED) {
		/*
		 * The first half read-only, then moved out and back to
		 * fresh memory: a mapping that keeps VM_ACCOUNT without an
		 * anon_vma, whose charge PROT_NONE gives back (mprotect()).
		 */
		char *r;

		/* Not the copy backend, which leaves the anon_vma. */
		if (mremap_retain_set_backend(MREMAP_RETAIN_BACKEND_MODULE))
			mremap_retain_set_backend(MREMAP_RETAIN_BACKEND_DONTUNMAP);
		mprotect(l->src, SRC_LEN / 2, PROT_READ);
		r = mremap_retain(l->src, SRC_LEN / 2, SRC_LEN / 2, 0, NULL);
		if (r == MAP_FAILED) {
			tap_diag("setup move: %s", strerror(errno));
			exit(99);
		}
		munmap(r, SRC_LEN / 2);
	}
	if (c == F_DECOMMIT || c == F_DECOMMIT_RETIRED)
		return;
	/* 4 KiB past a 2 MiB boundary: every PTE table is a new one. */
	l->dst = aligned_range(l->new_len, ps);
	if (c == F_REPLACE || c == F_ALIKE) {
		l->dst_len = l->new_len;
		map_at(l->dst, l->dst_len, PROT_READ | PROT_WRITE);
		tl_fill(l->dst, l->dst_len, SEED_DST);
		/* Not alike: the module replaces it by page tables. */
		if (c == F_REPLACE)
			mprotect(l->dst, l->dst_len, PROT_READ);
	}
	if (c == F_LOCKED && mlock(l->src, SRC_LEN)) {
		tap_diag("mlock: %s", strerror(errno));
		exit(99);
	}
}

static void teardown(struct layout *l)
{
	munmap(l->src, l->old_len);
	if (l->dst)
		munmap(l->dst, l->new_len);
}

static int call(enum fcase c, struct layout *l)
{
	if (c == F_DECOMMIT)
		return mremap_retain_decommit(l->src + SRC_LEN / 2 - (512UL << 10), 1UL << 20);
	if (c == F_DECOMMIT_RETIRED)
		return mremap_retain_decommit(l->src + SRC_LEN / 4, SRC_LEN / 2);
	return mremap_retain(l->src, l->old_len, l->new_len, MREMAP_RETAIN_FIXED,
			     l->dst) == l->dst ? 0 : -1;
}

/* After a success: the contract of the case.  Returns 1 if kept. */
static int kept(enum fcase c, struct layout *l, char *msg, size_t cap)
{
	size_t moved = l->new_len < l->old_len ? l->new_len : l->old_len;
	char *mid = l->src + SRC_LEN / 2 - (512UL << 10);

	if (c == F_DECOMMIT_RETIRED) {
		if (!tl_zero(l->src, SRC_LEN / 4) || strcmp(tl_perms(l->src), "r--p") ||
		    strcmp(tl_perms(l->src + SRC_LEN / 4), "---p") ||
		    strcmp(tl_perms(l->src + SRC_LEN / 2), "---p") ||
		    !tl_check_range(l->src, 3 * SRC_LEN / 4, SRC_LEN, SEED_SRC))
			return snprintf(msg, cap, "decommit succeeded but the range is %s|%s or the rest changed",
					tl_perms(l->src + SRC_LEN / 4),
					tl_perms(l->src + SRC_LEN / 2)), 0;
		return 1;
	}
	if (c == F_DECOMMIT) {
		if (!tl_check_range(l->src, 0, mid - l->src, SEED_SRC) ||
		    !tl_check_range(l->src, mid + (1UL << 20) - l->src, SRC_LEN, SEED_SRC) ||
		    strcmp(tl_perms(mid), "---p"))
			return snprintf(msg, cap, "decommit succeeded but the range is %s or the rest changed",
					tl_perms(mid)), 0;
		return 1;
	}
	if (!tl_check(l->dst, moved, SEED_SRC) || !tl_zero(l->dst + moved, l->new_len - moved) ||
	    strcmp(tl_perms(l->src), "rw-p") || !tl_zero(l->src, l->old_len))
		return snprintf(msg, cap, "moved but the destination's bytes or the fresh source are wrong (source %s)",
				tl_perms(l->src)), 0;
	if (c == F_LOCKED && (!tl_smaps_flag(l->dst, "lo") || tl_smaps_flag(l->src, "lo")))
		return snprintf(msg, cap, "moved but the lock did not go with the pages"), 0;
	return 1;
}

/* Drops the maps line of the mapping that starts at addr. */
static void drop_line(struct tl_snap *s, const void *addr)
{
	char key[32], *p, *nl;
	int n = snprintf(key, sizeof(key), "%lx-", (unsigned long)(uintptr_t)addr);

	for (p = s->buf; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (!nl)
			return;
		if (!strncmp(p, key, n)) {
			memmove(p, nl + 1, s->buf + s->n - (nl + 1) + 1);
			s->n -= nl + 1 - p;
			return;
		}
	}
}

/* "start-end perms" of a line of plain anonymous memory; 0 if not one. */
static int plain_anon(const char *line, const char *nl, unsigned long *start,
		      unsigned long *end, char perms[5])
{
	int tail = 0;

	if (sscanf(line, "%lx-%lx %4s 00000000 00:00 0%n", start, end, perms, &tail) != 3 ||
	    !tail)
		return 0;
	for (line += tail; line < nl; line++)
		if (*line != ' ')
			return 0;
	return 1;
}

/*
 * Joins adjacent lines of plain anonymous memory with the same permissions:
 * a failure may leave a mapping split in two at the range's edge, as
 * mprotect(2) and mremap(2) leave it, which changes nothing a program sees.
 */
static void coalesce(struct tl_snap *s)
{
	static char out[sizeof(s->buf)];
	unsigned long a0, a1, b0, b1;
	char pa[5], pb[5];
	size_t n = 0;
	char *p, *nl;

	for (p = s->buf; *p && (nl = strchr(p, '\n')); p = nl + 1) {
		if (!plain_anon(p, nl, &a0, &a1, pa)) {
			memcpy(out + n, p, nl + 1 - p);
			n += nl + 1 - p;
			continue;
		}
		for (;;) {
			char *nl2 = strchr(nl + 1, '\n');

			if (!nl2 || !plain_anon(nl + 1, nl2, &b0, &b1, pb) ||
			    b0 != a1 || strcmp(pa, pb))
				break;
			a1 = b1;
			nl = nl2;
		}
		n += snprintf(out + n, sizeof(out) - n, "%lx-%lx %s anon\n", a0, a1, pa);
	}
	memcpy(s->buf, out, n);
	s->buf[n] = 0;
	s->n = n;
}

/* After a failure: nothing changed but, with FIXED, the destination gone. */
static int unchanged(enum fcase c, struct layout *l, long vm0, long lck0,
		     char *msg, size_t cap)
{
	long vm1 = tl_status_kb("VmSize"), lck1 = tl_status_kb("VmLck");
	int replaces = c == F_REPLACE || c == F_ALIKE;
	int dst_gone = replaces && !strcmp(tl_perms(l->dst), "none");

	if (c == F_DECOMMIT_RETIRED ?
	    !tl_zero(l->src, SRC_LEN / 2) ||
	    !tl_check_range(l->src, SRC_LEN / 2, SRC_LEN, SEED_SRC) :
	    !tl_check(l->src, l->old_len, SEED_SRC))
		return snprintf(msg, cap, "the source's bytes changed"), 0;
	if (replaces && !dst_gone && !tl_check(l->dst, l->dst_len, SEED_DST))
		return snprintf(msg, cap, "the destination that was not replaced changed"), 0;
	if (dst_gone)
		vm1 += l->dst_len >> 10;
	if (vm1 != vm0 || lck1 != lck0)
		return snprintf(msg, cap, "VmSize %ld -> %ld kB, VmLck %ld -> %ld kB",
				vm0, vm1, lck0, lck1), 0;
	tl_snapshot(&after);
	if (dst_gone)
		drop_line(&before, l->dst);
	coalesce(&before);
	coalesce(&after);
	if (!tl_snap_equal(&before, &after))
		return snprintf(msg, cap, "/proc/self/maps changed (diagnostics above)"), 0;
	return 1;
}

struct sweep {
	enum fcase c;
	int backend;		/* moves */
	const char *method;	/* decommit: MREMAP_RETAIN_DECOMMIT */
};

static int run_sweep(void *arg, char *msg, size_t cap)
{
	const struct sweep *s = arg;
	int injected = 0, failed = 0, gone = 0, e, rc;
	long vm0, lck0, c0, c1;
	struct layout l;
	unsigned int n;

	if (s->method)
		setenv("MREMAP_RETAIN_DECOMMIT", s->method, 1);
	else if (mremap_retain_set_backend(s->backend))
		return snprintf(msg, cap, "set_backend: %s", tl_errname(errno)), 1;
	nth_fd = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	if (nth_fd < 0)
		return snprintf(msg, cap, "open fail-nth: %s", strerror(errno)), 1;
	/* Once without injection: first-use paths, and the case works at all. */
	setup(s->c, &l);
	if (call(s->c, &l))
		return snprintf(msg, cap, "without injection: %s", tl_errname(errno)), 1;
	if (!kept(s->c, &l, msg, cap))
		return 1;
	teardown(&l);

	for (n = 1; n <= MAXN; n++) {
		c0 = tl_committed_exact_kb();
		setup(s->c, &l);
		tl_snapshot(&before);
		vm0 = tl_status_kb("VmSize");
		lck0 = tl_status_kb("VmLck");
		if (set_nth(n))
			return snprintf(msg, cap, "write fail-nth: %s", strerror(errno)), 1;
		errno = 0;
		rc = call(s->c, &l);
		e = errno;
		if (get_nth() > 0) {
			/* Fewer than n allocations: the sweep is complete. */
			set_nth(0);
			if (rc)
				return snprintf(msg, cap, "failed with %s without an injected fault",
						tl_errname(e)), 1;
			if (!kept(s->c, &l, msg, cap))
				return 1;
			teardown(&l);
			break;
		}
		injected++;
		if (rc == 0) {
			if (!kept(s->c, &l, msg, cap))
				return snprintf(msg + strlen(msg), cap - strlen(msg),
						" (allocation %u failed)", n), 1;
		} else {
			failed++;
			if (e != ENOMEM)
				return snprintf(msg, cap, "allocation %u failed: the call says %s, not ENOMEM",
						n, tl_errname(e)), 1;
			/* mprotect() failing on the second mapping leaves the
			 * first PROT_NONE, its bytes intact (man page). */
			if (s->c == F_DECOMMIT_RETIRED && s->method && !strcmp(s->method, "mprotect"))
				mprotect(l.src + SRC_LEN / 4, SRC_LEN / 4, PROT_READ);
			if (!unchanged(s->c, &l, vm0, lck0, msg, cap))
				return snprintf(msg + strlen(msg), cap - strlen(msg),
						" (allocation %u failed)", n), 1;
			gone += l.dst_len && !strcmp(tl_perms(l.dst), "none");
		}
		teardown(&l);
		/*
		 * The call's charge given back with its mappings: a failure
		 * path that left a mapping flagged VM_ACCOUNT without its
		 * charge (or the other way round) shows here.
		 */
		c1 = tl_committed_exact_kb();
		if (c0 < 0 || c1 < 0)
			return snprintf(msg, cap, "cannot read Committed_AS exactly"), 1;
		if (labs(c1 - c0) > 256)
			return snprintf(msg, cap, "allocation %u failed (the call: %s): Committed_AS %ld -> %ld kB once all is unmapped",
					n, rc ? tl_errname(e) : "succeeded", c0, c1), 1;
	}
	if (n > MAXN)
		return snprintf(msg, cap, "more than %d allocations in one call", MAXN), 1;
	/* The module's failure paths are what the sweep is for. */
	if (!failed && must_fail(s->c) &&
	    (s->method ? !strcmp(s->method, "module") :
	     s->backend == MREMAP_RETAIN_BACKEND_MODULE))
		return snprintf(msg, cap, "%d allocations failed one at a time, and the call never failed: the sweep saw no failure path",
				injected), 1;
	snprintf(msg, cap, "%d allocations failed one at a time: %d calls ENOMEM with nothing changed%s, %d succeeded anyway with the contract kept; Committed_AS back each time",
		 injected, failed, gone ? " (some with the replaced destination unmapped)" : "",
		 injected - failed);
	return 0;
}

static int knob(const char *attr, const char *file, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), DBG "/%s/%s", attr, file);
	return tl_write_sys(path, val);
}

/* Sets up fail_page_alloc and failslab for fail-nth; 0 or a reason. */
static const char *arm(void)
{
	static const char *const attrs[] = { "fail_page_alloc", "failslab" };
	struct stat st;
	unsigned int i;

	if (stat(DBG "/fail_page_alloc", &st))
		mount("debugfs", DBG, "debugfs", 0, NULL);
	if (stat("/proc/thread-self/fail-nth", &st))
		return "no /proc/thread-self/fail-nth (CONFIG_FAULT_INJECTION)";
	for (i = 0; i < 2; i++) {
		char path[128];

		snprintf(path, sizeof(path), DBG "/%s", attrs[i]);
		if (stat(path, &st))
			return "no fail_page_alloc or failslab in debugfs (CONFIG_FAIL_PAGE_ALLOC, CONFIG_FAILSLAB, CONFIG_FAULT_INJECTION_DEBUG_FS)";
		/* Quiet, and GFP_KERNEL allocations included. */
		if (knob(attrs[i], "verbose", "0") || knob(attrs[i], "ignore-gfp-wait", "N") ||
		    knob(attrs[i], "probability", "0"))
			return "cannot set the fault-injection knobs";
	}
	if (knob("fail_page_alloc", "min-order", "0") ||
	    knob("fail_page_alloc", "ignore-gfp-highmem", "Y"))
		return "cannot set fail_page_alloc's order and highmem knobs";
	return NULL;
}

int main(void)
{
	static const char *const methods[2] = { "module", "mprotect" };
	int debug_kernel, b, c, m;
	const char *why;
	char msg[512];

	tl_start("faults");
	if (geteuid() || tl_host) {
		tap_skip("faults: needs root in the guest");
		return tap_done();
	}
	debug_kernel = strstr(tl_kernel, "-mrr-debug") != NULL;
	why = arm();
	if (why) {
		if (debug_kernel)
			tap_ok(0, "faults: the debug kernel has fault injection: %s", why);
		else
			tl_skipf("faults: %s; the debug kernel (make check-debug) runs this", why);
		return tap_done();
	}
	for (b = 0; b < 3; b++) {
		if (!tl_use_backend(tl_backends[b], "fault injection"))
			continue;
		for (c = 0; c < F_DECOMMIT; c++) {
			struct sweep s = { .c = c, .backend = tl_backends[b] };

			tap_ok(tl_child(run_sweep, &s, msg, sizeof(msg)) == 0,
			       "[%s] %s: %s", BN, fcase_name[c], msg);
		}
	}
	/* Decommit has two methods that keep its contract. */
	for (c = F_DECOMMIT; c < F_NCASES; c++)
		for (m = 0; m < 2; m++) {
			struct sweep s = { .c = c, .method = methods[m] };

			tap_ok(tl_child(run_sweep, &s, msg, sizeof(msg)) == 0,
			       "[decommit %s] %s: %s", methods[m], fcase_name[c], msg);
		}
	return tap_done();
}
