/* SPDX-License-Identifier: MIT */
/*
 * testlib.h - helpers shared by the guest test programs.
 *
 * Everything that reads /proc does so with open/read into static buffers,
 * never through malloc or stdio, so that a helper called between two
 * snapshots of /proc/self/maps does not itself change the address space.
 *
 * Backends: tl_run("what", fn) calls fn once per backend (module,
 * dontunmap, copy) after selecting it; BN names the current one and every
 * test point puts it in its description.  A backend that cannot be
 * selected is one failed point, except the module when the environment has
 * MREMAP_RETAIN_TEST_HOST=1 (development on a host without the module),
 * where it is a skip.
 */
#ifndef MREMAP_RETAIN_GUEST_TESTLIB_H
#define MREMAP_RETAIN_GUEST_TESTLIB_H

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <mremap_retain.h>

#include "../tap.h"

#define TL_UNUSED __attribute__((unused))

static size_t ps;		/* page size */
static int tl_host;		/* MREMAP_RETAIN_TEST_HOST=1 */
static const char *BN = "?";	/* name of the backend under test */
static char tl_kernel[128];

/* ---- skips with a formatted reason ---- */

__attribute__((format(printf, 1, 2), unused))
static void tl_skipf(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	tap_skip(buf);
}

TL_UNUSED static const char *tl_errname(int e)
{
	switch (e) {
	case 0: return "0";
	case EINVAL: return "EINVAL";
	case EFAULT: return "EFAULT";
	case ENOMEM: return "ENOMEM";
	case EAGAIN: return "EAGAIN";
	case EEXIST: return "EEXIST";
	case EPERM: return "EPERM";
	case ENOTSUP: return "ENOTSUP";
	case ENOSYS: return "ENOSYS";
	case EBUSY: return "EBUSY";
	case ENOTTY: return "ENOTTY";
	case EACCES: return "EACCES";
	case ENOENT: return "ENOENT";
	case EBADF: return "EBADF";
	case ENODEV: return "ENODEV";
	case ENXIO: return "ENXIO";
	case ESRCH: return "ESRCH";
	default: {
		static char b[32];
		snprintf(b, sizeof(b), "errno %d", e);
		return b;
	}
	}
}

/* ---- /proc readers (no malloc) ---- */

/* Reads a whole file into buf (NUL-terminated); length or -1. */
static ssize_t tl_slurp(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t n = 0;
	ssize_t r;

	if (fd < 0)
		return -1;
	while (n + 1 < cap && (r = read(fd, buf + n, cap - 1 - n)) > 0)
		n += r;
	close(fd);
	buf[n] = 0;
	return n;
}

/* "Field:  123 kB" in a status-like file; -1 if absent. */
static long tl_field_kb(const char *path, const char *field)
{
	static char buf[16384];
	size_t fl = strlen(field);
	char *p;

	if (tl_slurp(path, buf, sizeof(buf)) < 0)
		return -1;
	for (p = buf; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, field, fl) && p[fl] == ':')
			return strtol(p + fl + 1, NULL, 10);
	return -1;
}

TL_UNUSED static long tl_status_kb(const char *field)
{
	return tl_field_kb("/proc/self/status", field);
}

TL_UNUSED static long tl_meminfo_kb(const char *field)
{
	return tl_field_kb("/proc/meminfo", field);
}

static char tl_mapsbuf[1 << 20];

/*
 * The mapping of /proc/self/maps that contains addr: start, end and the
 * four permission characters ("rw-p").  1 if found, 0 if addr is unmapped.
 */
TL_UNUSED static int tl_vma(const void *addr, uintptr_t *start, uintptr_t *end,
			    char perms[5])
{
	uintptr_t a = (uintptr_t)addr;
	char *p;

	if (tl_slurp("/proc/self/maps", tl_mapsbuf, sizeof(tl_mapsbuf)) < 0)
		return 0;
	for (p = tl_mapsbuf; *p; ) {
		char *nl = strchr(p, '\n');
		uintptr_t s, e;
		char *q;

		s = strtoull(p, &q, 16);
		e = strtoull(q + 1, &q, 16);
		if (a >= s && a < e) {
			if (start)
				*start = s;
			if (end)
				*end = e;
			if (perms) {
				memcpy(perms, q + 1, 4);
				perms[4] = 0;
			}
			return 1;
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	return 0;
}

/* Permissions of the mapping at addr, or "none" if unmapped. */
TL_UNUSED static const char *tl_perms(const void *addr)
{
	static char perms[5];

	if (!tl_vma(addr, NULL, NULL, perms))
		return "none";
	return perms;
}

TL_UNUSED static int tl_count_maps(void)
{
	int n = 0;
	char *p;

	if (tl_slurp("/proc/self/maps", tl_mapsbuf, sizeof(tl_mapsbuf)) < 0)
		return -1;
	for (p = tl_mapsbuf; *p; p++)
		n += *p == '\n';
	return n;
}

/*
 * The smaps block of the mapping containing addr, copied into a static
 * buffer; NULL if not found.
 */
static char *tl_smaps_block(const void *addr)
{
	static char buf[4 << 20];
	static char block[8192];
	uintptr_t a = (uintptr_t)addr;
	char *p;

	if (tl_slurp("/proc/self/smaps", buf, sizeof(buf)) < 0)
		return NULL;
	for (p = buf; *p; ) {
		char *nl = strchr(p, '\n');
		uintptr_t s, e;
		char *q, *next;

		/* header lines start with a hex address and a '-' */
		s = strtoull(p, &q, 16);
		if (*q == '-' && q > p) {
			e = strtoull(q + 1, NULL, 16);
			if (a >= s && a < e) {
				/* block ends at the next header line */
				next = nl;
				while (next && next[1]) {
					char *r;
					strtoull(next + 1, &r, 16);
					if (*r == '-' && r > next + 1)
						break;
					next = strchr(next + 1, '\n');
				}
				size_t len = next ? (size_t)(next - p) : strlen(p);
				if (len >= sizeof(block))
					len = sizeof(block) - 1;
				memcpy(block, p, len);
				block[len] = 0;
				return block;
			}
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	return NULL;
}

/* A "Field:   N kB" line of the smaps entry of addr's mapping; -1 if none. */
TL_UNUSED static long tl_smaps_kb(const void *addr, const char *field)
{
	char *b = tl_smaps_block(addr), *p;
	size_t fl = strlen(field);

	for (p = b; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, field, fl) && p[fl] == ':')
			return strtol(p + fl + 1, NULL, 10);
	return -1;
}

/* Whether addr's mapping has the two-letter VmFlags flag (e.g. "lo"). */
TL_UNUSED static int tl_smaps_flag(const void *addr, const char *flag)
{
	char *b = tl_smaps_block(addr), *p;

	if (!b || !(p = strstr(b, "VmFlags:")))
		return 0;
	p += 8;
	for (;;) {
		while (*p == ' ')
			p++;
		if (!*p || *p == '\n')
			return 0;
		if (p[0] == flag[0] && p[1] == flag[1] &&
		    (p[2] == ' ' || p[2] == '\n' || !p[2]))
			return 1;
		while (*p && *p != ' ' && *p != '\n')
			p++;
	}
}

/*
 * PFN of the page at addr from /proc/self/pagemap: the PFN, 0 if the page
 * is not present or PFNs are hidden (not root), -1 on error.
 */
TL_UNUSED static int64_t tl_pfn(const void *addr)
{
	uint64_t e;
	int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	off_t off = (uintptr_t)addr / ps * 8;

	if (fd < 0)
		return -1;
	if (pread(fd, &e, 8, off) != 8) {
		close(fd);
		return -1;
	}
	close(fd);
	if (!(e >> 63 & 1))
		return 0;
	return e & ((1ULL << 55) - 1);
}

/* ---- /proc/sys knobs ---- */

TL_UNUSED static int tl_read_sys(const char *path, char *buf, size_t cap)
{
	ssize_t n = tl_slurp(path, buf, cap);

	if (n < 0)
		return -1;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = 0;
	return 0;
}

TL_UNUSED static int tl_write_sys(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, val, strlen(val));
	close(fd);
	return n == (ssize_t)strlen(val) ? 0 : -1;
}

/* ---- /proc/self/maps snapshots ---- */

struct tl_snap {
	char buf[1 << 19];
	size_t n;
};

/* Snapshot of /proc/self/maps without the [stack] line (it may grow). */
TL_UNUSED static void tl_snapshot(struct tl_snap *s)
{
	static char raw[1 << 19];
	char *p;

	s->n = 0;
	s->buf[0] = 0;
	if (tl_slurp("/proc/self/maps", raw, sizeof(raw)) < 0)
		return;
	for (p = raw; *p; ) {
		char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p + 1) : strlen(p);

		if (!memmem(p, len, "[stack]", 7) && s->n + len < sizeof(s->buf)) {
			memcpy(s->buf + s->n, p, len);
			s->n += len;
		}
		p += len;
	}
	s->buf[s->n] = 0;
}

/* 1 if equal; otherwise prints the differing lines as diagnostics. */
TL_UNUSED static int tl_snap_equal(const struct tl_snap *a,
				   const struct tl_snap *b)
{
	const char *p;
	int shown = 0;

	if (a->n == b->n && !memcmp(a->buf, b->buf, a->n))
		return 1;
	for (p = a->buf; *p && shown < 8; ) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		if (!memmem(b->buf, b->n, p, len)) {
			tap_diag("maps before only: %.*s", (int)len, p);
			shown++;
		}
		p += len + (nl != NULL);
	}
	for (p = b->buf; *p && shown < 16; ) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		if (!memmem(a->buf, a->n, p, len)) {
			tap_diag("maps after only:  %.*s", (int)len, p);
			shown++;
		}
		p += len + (nl != NULL);
	}
	return 0;
}

/* ---- memory and patterns ---- */

TL_UNUSED static void *tl_map(size_t len, int prot)
{
	void *p = mmap(NULL, len, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		tap_diag("mmap(%zu) failed: %s", len, strerror(errno));
		exit(99);
	}
	return p;
}

/* A free, page-aligned address range of len bytes (mapped then unmapped). */
TL_UNUSED static char *tl_free_range(size_t len)
{
	char *p = tl_map(len + 2 * ps, PROT_NONE);

	munmap(p, len + 2 * ps);
	return p + ps;
}

static inline uint64_t tl_word(uint64_t seed, size_t i)
{
	uint64_t x = (seed + 1) * 0x9E3779B97F4A7C15ULL ^ (i + 1) * 0xD6E8FEB86659FD93ULL;

	return x ^ (x >> 29);
}

/* Pattern by 8-byte word index relative to base, for [base+from, base+to). */
TL_UNUSED static void tl_fill_range(void *base, size_t from, size_t to,
				    uint64_t seed)
{
	uint64_t *w = base;
	size_t i;

	for (i = from / 8; i < to / 8; i++)
		w[i] = tl_word(seed, i);
}

TL_UNUSED static void tl_fill(void *base, size_t len, uint64_t seed)
{
	tl_fill_range(base, 0, len, seed);
}

/* 1 if [base+from, base+to) holds the pattern; else diag of first miss. */
TL_UNUSED static int tl_check_range(const void *base, size_t from, size_t to,
				    uint64_t seed)
{
	const volatile uint64_t *w = base;
	size_t i;

	for (i = from / 8; i < to / 8; i++)
		if (w[i] != tl_word(seed, i)) {
			tap_diag("pattern %llu mismatch at offset %#zx of %p: %#llx",
				 (unsigned long long)seed, i * 8, base,
				 (unsigned long long)w[i]);
			return 0;
		}
	return 1;
}

TL_UNUSED static int tl_check(const void *base, size_t len, uint64_t seed)
{
	return tl_check_range(base, 0, len, seed);
}

TL_UNUSED static int tl_zero(const void *p, size_t len)
{
	const volatile uint64_t *w = p;
	size_t i;

	for (i = 0; i < len / 8; i++)
		if (w[i]) {
			tap_diag("non-zero at offset %#zx of %p: %#llx", i * 8, p,
				 (unsigned long long)w[i]);
			return 0;
		}
	return 1;
}

/* 1 if every page of [p, p+len) is resident (mincore). */
/* How many pages of [p, p + len) are resident; -1 if mincore fails. */
TL_UNUSED static long tl_resident_pages(void *p, size_t len)
{
	static unsigned char vec[1 << 16];
	size_t i, n = (len + ps - 1) / ps;
	long r = 0;

	if (n > sizeof(vec) || mincore(p, len, vec))
		return -1;
	for (i = 0; i < n; i++)
		r += vec[i] & 1;
	return r;
}

TL_UNUSED static int tl_resident(void *p, size_t len)
{
	return tl_resident_pages(p, len) == (long)((len + ps - 1) / ps);
}

/* ---- access probes ---- */

static sigjmp_buf tl_jb;

static void tl_fault(int sig)
{
	(void)sig;
	siglongjmp(tl_jb, 1);
}

/* 1 if a read of *p works, 0 if it faults (SIGSEGV/SIGBUS). */
TL_UNUSED static int tl_can_read(const void *p)
{
	if (sigsetjmp(tl_jb, 1))
		return 0;
	(void)*(const volatile char *)p;
	return 1;
}

/* 1 if a write to *p works (writes back the byte read... if readable). */
TL_UNUSED static int tl_can_write(void *p)
{
	if (sigsetjmp(tl_jb, 1))
		return 0;
	*(volatile char *)p = 0;
	return 1;
}

/* ---- child processes ---- */

/*
 * Runs fn(arg, msg, cap) in a forked child.  fn returns 0 (pass), 1 (fail)
 * or 2 (skip) and may write a reason into msg.  A child killed by a signal
 * counts as a failure.
 */
TL_UNUSED static int tl_child(int (*fn)(void *arg, char *msg, size_t cap),
			      void *arg, char *msg, size_t cap)
{
	int pfd[2], st;
	pid_t pid;
	ssize_t n;

	msg[0] = 0;
	if (pipe(pfd))
		return snprintf(msg, cap, "pipe: %s", strerror(errno)), 1;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return snprintf(msg, cap, "fork: %s", strerror(errno)), 1;
	if (pid == 0) {
		char m[512] = "";
		int rc;

		close(pfd[0]);
		rc = fn(arg, m, sizeof(m));
		if (write(pfd[1], m, strlen(m)) < 0)
			rc = 1;
		_exit(rc);
	}
	close(pfd[1]);
	n = read(pfd[0], msg, cap - 1);
	msg[n > 0 ? n : 0] = 0;
	close(pfd[0]);
	if (waitpid(pid, &st, 0) != pid)
		return snprintf(msg, cap, "waitpid: %s", strerror(errno)), 1;
	if (WIFSIGNALED(st)) {
		snprintf(msg, cap, "child killed by signal %d", WTERMSIG(st));
		return 1;
	}
	return WEXITSTATUS(st) > 2 ? 1 : WEXITSTATUS(st);
}

/* ---- backends ---- */

static const int tl_backends[3] = {
	MREMAP_RETAIN_BACKEND_MODULE,
	MREMAP_RETAIN_BACKEND_DONTUNMAP,
	MREMAP_RETAIN_BACKEND_COPY,
};

/* Selects backend b; 1 if its tests should run, else reports why not. */
TL_UNUSED static int tl_use_backend(int b, const char *what)
{
	const char *n = mremap_retain_backend_name(b);
	int e;

	BN = n ? n : "?";
	errno = 0;
	if (mremap_retain_set_backend(b) == 0)
		return 1;
	e = errno;
	if (b == MREMAP_RETAIN_BACKEND_MODULE && tl_host) {
		tl_skipf("[%s] %s: module not loaded", BN, what);
		return 0;
	}
	tap_ok(0, "[%s] %s: backend can be selected (set_backend: %s)", BN,
	       what, tl_errname(e));
	return 0;
}

/* Runs fn for each of the three backends. */
TL_UNUSED static void tl_run(const char *what, void (*fn)(void))
{
	int i;

	for (i = 0; i < 3; i++)
		if (tl_use_backend(tl_backends[i], what))
			fn();
}

TL_UNUSED static int tl_is_module(void)
{
	return !strcmp(BN, "module");
}

/* mseal(2), Linux 6.10+: 0, or -1 with errno (ENOSYS before 6.10). */
TL_UNUSED static int tl_mseal(void *p, size_t len)
{
	return syscall(462, p, len, 0UL);
}

/* Prints the kernel line and sets up the common state. */
TL_UNUSED static void tl_start(const char *prog)
{
	struct utsname u;
	struct sigaction sa;
	const char *h = getenv("MREMAP_RETAIN_TEST_HOST");

	ps = sysconf(_SC_PAGESIZE);
	tl_host = h && !strcmp(h, "1");
	if (uname(&u) == 0)
		snprintf(tl_kernel, sizeof(tl_kernel), "%s", u.release);
	printf("# kernel: %s\n", tl_kernel);
	printf("# %s (uid %d%s)\n", prog, (int)getuid(),
	       tl_host ? ", host mode: MREMAP_RETAIN_TEST_HOST=1" : "");
	fflush(stdout);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = tl_fault;
	sa.sa_flags = SA_NODEFER;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	/* Warm up the paths that allocate on first use. */
	(void)tl_status_kb("VmSize");
}

/* Kernel version as major*1000+minor. */
TL_UNUSED static int tl_kver(void)
{
	int a = 0, b = 0;

	sscanf(tl_kernel, "%d.%d", &a, &b);
	return a * 1000 + b;
}

/* ---- raw pagemap entries (appended) ---- */

#define TL_PM_PRESENT	(1ULL << 63)
#define TL_PM_SWAP	(1ULL << 62)
#define TL_PM_SOFTDIRTY	(1ULL << 55)
#define TL_PM_FRAME	((1ULL << 55) - 1)	/* PFN, or swap type and offset */

/*
 * The raw 64-bit /proc/self/pagemap entry of the page at addr (flags in
 * the top bits; PFN or swap entry in the low 55 bits, zero unless root);
 * 0 on error, which reads as "not present, not swapped".
 */
TL_UNUSED static uint64_t tl_pagemap(const void *addr)
{
	uint64_t e = 0;
	int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	if (pread(fd, &e, 8, (uintptr_t)addr / ps * 8) != 8)
		e = 0;
	close(fd);
	return e;
}

/* The /proc/kpageflags word of pfn (root only); 0 if unreadable. */
TL_UNUSED static uint64_t tl_kpageflags(int64_t pfn)
{
	uint64_t f = 0;
	int fd = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);

	if (fd < 0 || pfn <= 0) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	if (pread(fd, &f, 8, pfn * 8) != 8)
		f = 0;
	close(fd);
	return f;
}

#define TL_KPF_KSM	(1ULL << 21)
#define TL_KPF_THP	(1ULL << 22)

#define TL_HUGE		(2UL << 20)

/*
 * A TL_HUGE-aligned region of a mapping of twice that (*raw), advised
 * MADV_HUGEPAGE and filled with pattern seed, backed by one huge page (by
 * AnonHugePages, and by kpageflags where its PFN can be read); or NULL,
 * the mapping gone, with a SKIP line "<what>: no huge page (...)" where
 * the kernel gave none (transparent_hugepage [never]; the rt kernels).
 */
__attribute__((format(printf, 3, 4), unused))
static char *tl_thp_region(char **raw, uint64_t seed, const char *fmt, ...)
{
	char what[256], mode[256] = "none in this kernel";
	uint64_t kpf = 0;
	int64_t pfn;
	va_list ap;
	long ahp;
	char *p;

	*raw = tl_map(2 * TL_HUGE, PROT_READ | PROT_WRITE);
	p = (char *)(((uintptr_t)*raw + TL_HUGE - 1) & ~(TL_HUGE - 1));
	madvise(p, TL_HUGE, MADV_HUGEPAGE);
	tl_fill(p, TL_HUGE, seed);
	ahp = tl_smaps_kb(p, "AnonHugePages");
	pfn = tl_pfn(p);
	if (pfn > 0)
		kpf = tl_kpageflags(pfn);
	if (ahp >= 2048 && (pfn <= 0 || (kpf & TL_KPF_THP)))
		return p;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	tl_read_sys("/sys/kernel/mm/transparent_hugepage/enabled", mode,
		    sizeof(mode));
	tl_skipf("%s: no huge page (AnonHugePages %ld kB, kpageflags %#llx; "
		 "transparent_hugepage: %s)", what, ahp,
		 (unsigned long long)kpf, mode);
	munmap(*raw, 2 * TL_HUGE);
	return NULL;
}

/*
 * Committed_AS read exactly (root): the kernel folds its per-cpu deltas
 * when vm.overcommit_memory is set to 2, so it is set to 2, read, and set
 * back.  -1 if the sysctl cannot be written.
 */
TL_UNUSED static long tl_committed_exact_kb(void)
{
	static const char *oc = "/proc/sys/vm/overcommit_memory";
	char mode[16];
	long c;

	if (tl_read_sys(oc, mode, sizeof(mode)) || tl_write_sys(oc, "2"))
		return -1;
	c = tl_meminfo_kb("Committed_AS");
	if (strcmp(mode, "2"))
		tl_write_sys(oc, mode);
	return c;
}

/*
 * Committed_AS is the whole system's: wait until the processes of earlier
 * programs are gone from it, 1.5 s without a change (at most 15 s), so that
 * only this program moves it.  The guest's init kills what an earlier
 * program left behind (busybox timeout's watcher, whose exit once took
 * 336 kB off a measurement), but the kernel tears a killed or exited
 * process's mm down after the fact, later still on an RT kernel.
 */
TL_UNUSED static void tl_committed_settle(void)
{
	long c = tl_committed_exact_kb(), d;
	int i, still;

	for (i = 0, still = 0; i < 60 && still < 6; i++, c = d) {
		usleep(250000);
		d = tl_committed_exact_kb();
		still = d == c ? still + 1 : 0;
	}
}

#endif /* MREMAP_RETAIN_GUEST_TESTLIB_H */
