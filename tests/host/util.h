/* SPDX-License-Identifier: MIT */
/*
 * util.h - helpers shared by the host tests: mappings with known bytes,
 * what /proc says about a range, and running a check in a child process.
 */
#ifndef MREMAP_RETAIN_TEST_UTIL_H
#define MREMAP_RETAIN_TEST_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <mremap_retain.h>

#define PS ((size_t)sysconf(_SC_PAGESIZE))

static const int backends[] = {
	MREMAP_RETAIN_BACKEND_DONTUNMAP, MREMAP_RETAIN_BACKEND_COPY,
};
/* Run the block once per host backend, with that backend selected. */
#define for_each_backend(b) \
	for (size_t b##_i = 0; b##_i < 2 && select_backend((b) = backends[b##_i]); \
	     b##_i++)

static inline int select_backend(int b)
{
	if (mremap_retain_set_backend(b)) {
		printf("Bail out! backend %s unavailable: %s\n",
		       mremap_retain_backend_name(b), strerror(errno));
		exit(1);
	}
	return 1;
}

__attribute__((unused))
static char *map_anon(size_t len, int prot)
{
	char *p = mmap(NULL, len, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(2);
	}
	return p;
}

/* Byte i of a pattern that differs per page and per seed. */
static inline unsigned char pat(size_t i, unsigned seed)
{
	return (unsigned char)((i / 4096) * 7 + i % 251 + seed * 13 + 1);
}

__attribute__((unused))
static void fill(void *p, size_t len, unsigned seed)
{
	for (size_t i = 0; i < len; i++)
		((unsigned char *)p)[i] = pat(i, seed);
}

__attribute__((unused))
static int has_pattern(const void *p, size_t len, unsigned seed)
{
	for (size_t i = 0; i < len; i++)
		if (((const unsigned char *)p)[i] != pat(i, seed))
			return 0;
	return 1;
}

__attribute__((unused))
static int is_zero(const void *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (((const unsigned char *)p)[i])
			return 0;
	return 1;
}

/* Every page of [p, p + len) is mapped. */
__attribute__((unused))
static int is_mapped(const void *p, size_t len)
{
	return msync((void *)p, len, MS_ASYNC) == 0;
}

/* No page of [p, p + len) is mapped. */
__attribute__((unused))
static int is_unmapped(const void *p, size_t len)
{
	for (size_t off = 0; off < len; off += PS)
		if (msync((char *)p + off, PS, MS_ASYNC) == 0 || errno != ENOMEM)
			return 0;
	return 1;
}

/* A field of the smaps entry of the VMA holding p: "VmFlags", "Locked"...
 * Copies the rest of that line into out; 0 if found. */
__attribute__((unused))
static int smaps_field(const void *p, const char *field, char *out, size_t size)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	int inside = 0, ret = -1;
	size_t flen = strlen(field);

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long s, e;

		if (sscanf(line, "%lx-%lx ", &s, &e) == 2 && strchr(line, '-') &&
		    line[0] != 'V') {
			if (inside)
				break;
			inside = (uintptr_t)p >= s && (uintptr_t)p < e;
			continue;
		}
		if (inside && !strncmp(line, field, flen) && line[flen] == ':') {
			snprintf(out, size, "%s", line + flen + 1);
			ret = 0;
			break;
		}
	}
	fclose(f);
	return ret;
}

__attribute__((unused))
static int vmflag(const void *p, const char *flag)
{
	char buf[512], pad[8];

	if (smaps_field(p, "VmFlags", buf, sizeof(buf)))
		return -1;
	snprintf(pad, sizeof(pad), " %s", flag);
	return strstr(buf, pad) != NULL;
}

/* A /proc/self/status field in kB, e.g. "VmLck". */
__attribute__((unused))
static long status_kb(const char *field)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long v = -1;
	size_t flen = strlen(field);

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, field, flen) && line[flen] == ':')
			v = strtol(line + flen + 1, NULL, 10);
	if (f)
		fclose(f);
	return v;
}

/* The physical frame of a present page (root only), or 0. */
__attribute__((unused))
static uint64_t pfn_of(const void *p)
{
	uint64_t e = 0;
	int fd = open("/proc/self/pagemap", O_RDONLY);

	if (fd < 0)
		return 0;
	if (pread(fd, &e, 8, (off_t)((uintptr_t)p / PS * 8)) != 8)
		e = 0;
	close(fd);
	return (e >> 63) ? (e & ((1ULL << 55) - 1)) : 0;
}

/* Where on_fault() returns to: access_faults(), below. */
static sigjmp_buf fault_jmp;

static void on_fault(int sig)
{
	(void)sig;
	siglongjmp(fault_jmp, 1);
}

/* Does reading p, or with len filling [p, p + len) with c, fault?  (SIGSEGV
 * caught: a point that checks access fails rather than kills the program.) */
static int access_faults(const volatile char *p, size_t len, int c)
{
	struct sigaction sa = { .sa_handler = on_fault }, old;
	int faulted = 0;

	sigaction(SIGSEGV, &sa, &old);
	if (sigsetjmp(fault_jmp, 1))
		faulted = 1;
	else if (len)
		memset((char *)p, c, len);
	else
		(void)*p;
	sigaction(SIGSEGV, &old, NULL);
	return faulted;
}

__attribute__((unused))
static int read_faults(const volatile char *p)
{
	return access_faults(p, 0, 0);
}

__attribute__((unused))
static int write_faults(char *p, size_t len, int c)
{
	return access_faults(p, len, c);
}

/* Run fn in a child; its exit status (0 = pass, 77 = skip). */
__attribute__((unused))
static int in_child(int (*fn)(void *), void *arg)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(fn(arg));
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The call failed with err and changed nothing: the source still holds
 * its bytes. */
#define FAILS_WITH(ret, err, src, len, seed) \
	((ret) == MAP_FAILED && errno == (err) && has_pattern(src, len, seed))

#endif /* MREMAP_RETAIN_TEST_UTIL_H */
