// SPDX-License-Identifier: MIT
/*
 * unload.c - (root; run last) the module cannot be unloaded while a file
 * is open on its device, can be once it is closed, and loads again from
 * /lib/mremap_retain.ko (where the harness puts it) and works after that.
 */
#include <sys/klog.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "testlib.h"

#define DEV "/dev/mremap_retain"
#define KO "/lib/mremap_retain.ko"

static int loaded(void)
{
	static char buf[1 << 16];
	char *p;

	if (tl_slurp("/proc/modules", buf, sizeof(buf)) < 0)
		return -1;
	for (p = buf; p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, "mremap_retain ", 14))
			return 1;
	return 0;
}

static int unload(void)
{
	return syscall(SYS_delete_module, "mremap_retain", O_NONBLOCK);
}

/* Waits up to 3 s for the device node to (dis)appear. */
static int wait_dev(int present)
{
	int i;

	for (i = 0; i < 30; i++) {
		if ((access(DEV, F_OK) == 0) == present)
			return 1;
		usleep(100000);
	}
	return 0;
}

static int move_works(void)
{
	size_t os = 4 * ps, ns = 8 * ps;
	char *src = tl_map(os, PROT_READ | PROT_WRITE), *r;
	int ok;

	tl_fill(src, os, 1);
	r = mremap_retain(src, os, ns, 0, NULL);
	if (r == MAP_FAILED) {
		tap_diag("move: %s", strerror(errno));
		munmap(src, os);
		return 0;
	}
	ok = tl_check(r, os, 1) && tl_zero(r + os, ns - os) && tl_zero(src, os);
	munmap(r, ns);
	munmap(src, os);
	return ok;
}

static int child_no_module(void *arg, char *msg, size_t cap)
{
	(void)arg;
	errno = 0;
	if (mremap_retain_set_backend(MREMAP_RETAIN_BACKEND_MODULE) != -1 ||
	    errno != ENOTSUP)
		return snprintf(msg, cap, "set_backend(module): %s",
				tl_errname(errno)), 1;
	if (mremap_retain_backend() == MREMAP_RETAIN_BACKEND_MODULE)
		return snprintf(msg, cap, "default backend still module"), 1;
	if (!move_works())
		return snprintf(msg, cap, "fallback backend move failed"), 1;
	return 0;
}

/* Whether the kernel log's last line mentioning @needle exists. */
static int klog_has(const char *needle)
{
	static char buf[1 << 20];
	int n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, sizeof(buf) - 1);

	if (n < 0)
		return 0;
	buf[n] = 0;
	return strstr(buf, needle) != NULL;
}

/*
 * The module's promise on a kernel it cannot prove it calls correctly:
 * the load fails with one clear line, and nothing of it stays behind (so
 * the library falls back, see child_no_module()).  Test-only parameters
 * make a kernel that has everything look otherwise: fail_symbol= a
 * missing symbol, test_proto= a function whose prototype differs from the
 * module's, test_member= a structure member at another offset.
 */
static void refused(const char *params, const char *line)
{
	int kfd, rc, e;

	kfd = open(KO, O_RDONLY | O_CLOEXEC);
	errno = 0;
	rc = kfd < 0 ? -1 : (int)syscall(SYS_finit_module, kfd, params, 0);
	e = errno;
	if (kfd >= 0)
		close(kfd);
	tap_ok(rc == -1 && e == EOPNOTSUPP,
	       "load with %s fails with EOPNOTSUPP (%s)", params,
	       rc ? tl_errname(e) : "loaded");
	tap_ok(klog_has(line), "kernel log says \"%s\"", line);
	tap_ok(loaded() == 0 && access(DEV, F_OK) != 0,
	       "nothing left after the failed load (%s)", params);
}

static void missing_symbol(const char *sym, const char *kind)
{
	char params[128], line[160];

	snprintf(params, sizeof(params), "fail_symbol=%s", sym);
	snprintf(line, sizeof(line), "mremap_retain: kernel %s %s not found",
		 kind, sym);
	refused(params, line);
}

int main(void)
{
	int fd, rc, e, kfd;
	char msg[512];
	struct stat st;

	tl_start("unload");
	if (tl_host && loaded() != 1) {
		tap_skip("unload and reload: module not loaded");
		return tap_done();
	}
	if (geteuid()) {
		tap_skip("unload and reload: needs root");
		return tap_done();
	}
	if (!tap_ok(loaded() == 1, "module listed in /proc/modules"))
		return tap_done();

	fd = open(DEV, O_RDWR | O_CLOEXEC);
	tap_ok(fd >= 0, "device opens (%s)", fd < 0 ? strerror(errno) : "ok");
	errno = 0;
	rc = unload();
	e = errno;
	tap_ok(rc == -1 && (e == EBUSY || e == EAGAIN),
	       "delete_module while a file is open: EBUSY or EAGAIN (%s)",
	       rc ? tl_errname(e) : "unloaded!");
	tap_ok(loaded() == 1 && access(DEV, F_OK) == 0,
	       "module and device still there");
	if (fd >= 0)
		close(fd);

	errno = 0;
	rc = unload();
	tap_ok(rc == 0, "delete_module after close: unloaded (%s)",
	       rc ? tl_errname(errno) : "ok");
	tap_ok(loaded() == 0 && wait_dev(0),
	       "module gone from /proc/modules, device node removed");

	rc = tl_child(child_no_module, NULL, msg, sizeof(msg));
	tap_ok(rc == 0, "without the module: set_backend(module) ENOTSUP, "
	       "default falls back, moves work %s", msg);

	missing_symbol("copy_vma", "function");
	missing_symbol("__mm_populate", "function");
	missing_symbol("vm_committed_as", "symbol");
	/* What the BTF check says; the same on every kernel. */
	refused("test_proto=copy_vma",
		"mremap_retain: refusing to load: copy_vma: parameter 1 is "
		"'struct vm_area_struct **vmap' here, the module was built for "
		"'struct mrr_test *vmap'");
	refused("test_proto=kallsyms_lookup_name",
		"mremap_retain: refusing to load: kallsyms_lookup_name: "
		"parameter 1 is 'const char *name' here, the module was built "
		"for 'struct mrr_test *name'");
	refused("test_member=vm_area_struct.vm_pgoff",
		"mremap_retain: refusing to load: struct vm_area_struct: member "
		"'unsigned long vm_pgoff' (8 bytes) at offset ");
	tap_ok(klog_has("here, the module was built for 'vm_pgoff' (8 bytes) at offset "),
	       "... and names the offset the module was built for");
	rc = tl_child(child_no_module, NULL, msg, sizeof(msg));
	tap_ok(rc == 0, "after the refusals: the library falls back %s", msg);

	kfd = open(KO, O_RDONLY | O_CLOEXEC);
	if (!tap_ok(kfd >= 0, "open " KO " (%s)",
		    kfd < 0 ? strerror(errno) : "ok"))
		return tap_done();
	errno = 0;
	rc = syscall(SYS_finit_module, kfd, "", 0);
	close(kfd);
	tap_ok(rc == 0, "finit_module reloads it (%s)",
	       rc ? tl_errname(errno) : "ok");
	tap_ok(loaded() == 1 && wait_dev(1), "module listed, device back");
	tap_ok(stat(DEV, &st) == 0 && (st.st_mode & 07777) == 0666,
	       "device mode 0666 after reload (%04o)", st.st_mode & 07777);

	errno = 0;
	tap_ok(mremap_retain_backend() == MREMAP_RETAIN_BACKEND_MODULE,
	       "after reload the default backend is module (%d)",
	       mremap_retain_backend());
	tap_ok(mremap_retain_set_backend(MREMAP_RETAIN_BACKEND_MODULE) == 0 &&
	       move_works(), "[module] a move after reload works, data intact");

	/* Whether the library keeps the device open is its business; but a
	 * file we open ourselves must pin the module again. */
	fd = open(DEV, O_RDWR | O_CLOEXEC);
	errno = 0;
	rc = unload();
	e = errno;
	tap_ok(fd >= 0 && rc == -1 && (e == EBUSY || e == EAGAIN),
	       "after reload, an open file pins it again (%s)",
	       rc ? tl_errname(e) : "unloaded!");
	if (fd >= 0)
		close(fd);
	if (loaded() != 1) {
		/* never leave the guest without the module */
		kfd = open(KO, O_RDONLY | O_CLOEXEC);
		if (kfd >= 0) {
			syscall(SYS_finit_module, kfd, "", 0);
			close(kfd);
		}
	}
	return tap_done();
}
