// SPDX-License-Identifier: MIT
/*
 * isolation.c - the device only ever acts on the calling process's own
 * memory (SPEC: "Only the caller's own mm; never another process's").
 * Runs as root and as uid 1000 (it is in both lists of guest.mk); as root
 * it also checks that a child dropped to uid 1000 can use the device.
 *
 *   - a forked child's address given to the MOVE ioctl in the parent: the
 *     parent's mm is used (EFAULT where the parent has nothing; the
 *     parent's own pages where both have a mapping), the child's memory
 *     and mappings unchanged;
 *   - a file opened before fork, used by the child (directly and through
 *     the library), acts on the child's mm, not the opener's;
 *   - a file opened by a child and passed to the parent with SCM_RIGHTS,
 *     used after that child exited, acts on the parent's mm.
 *
 * That the module stays loaded while a file is open is in unload.c.
 */
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>

#include <mremap_retain/ioctl.h>

#include "testlib.h"

#define DEV "/dev/" MREMAP_RETAIN_DEVICE_NAME

static struct tl_snap snap_a, snap_b;

/* The MOVE ioctl on fd; the new address or MAP_FAILED with errno. */
static void *dev_move(int fd, void *old, size_t os, size_t ns)
{
	struct mremap_retain_move m;

	memset(&m, 0, sizeof(m));
	m.old_addr = (uintptr_t)old;
	m.old_size = os;
	m.new_size = ns;
	if (ioctl(fd, MREMAP_RETAIN_IOC_MOVE, &m))
		return MAP_FAILED;
	return (void *)(uintptr_t)m.new_addr;
}

static int xfer(int fd, void *buf, size_t n, int wr)
{
	return (wr ? write(fd, buf, n) : read(fd, buf, n)) == (ssize_t)n;
}

/*
 * A child with its own mapping at an address where the parent has none,
 * and a mapping shared from before the fork, each with the child's own
 * bytes.  The parent moves both addresses through its fd; the child
 * checks its side after.
 */
static void t_child_address(int fd)
{
	size_t len = 8 * ps;
	char *shared = tl_map(len, PROT_READ | PROT_WRITE), *own = NULL, *r;
	int to_c[2], to_p[2], st = 0, e;
	char c = 0;
	pid_t pid;

	tl_fill(shared, len, 1);
	if (pipe(to_c) || pipe(to_p)) {
		tap_ok(0, "child address: pipe: %s", strerror(errno));
		return;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		int rc = 0;

		own = tl_map(len, PROT_READ | PROT_WRITE);
		tl_fill(own, len, 2);
		tl_fill(shared, len, 3);	/* child's private copy */
		tl_snapshot(&snap_a);
		if (!xfer(to_p[1], &own, sizeof(own), 1) ||
		    !xfer(to_c[0], &c, 1, 0))
			_exit(10);
		tl_snapshot(&snap_b);
		if (!tl_check(own, len, 2))
			rc |= 1;
		if (!tl_check(shared, len, 3))
			rc |= 2;
		if (!tl_snap_equal(&snap_a, &snap_b))
			rc |= 4;
		_exit(rc);
	}
	if (!xfer(to_p[0], &own, sizeof(own), 0)) {
		tap_ok(0, "child address: child did not report");
		own = NULL;
	}
	if (own) {
		if (tl_vma(own, NULL, NULL, NULL)) {
			tl_skipf("child address: the parent happens to have a "
				 "mapping at the child's %p", own);
		} else {
			errno = 0;
			r = dev_move(fd, own, len, 2 * len);
			e = errno;
			tap_ok(r == MAP_FAILED && e == EFAULT,
			       "MOVE of an address mapped only in a forked child: "
			       "EFAULT in the parent (%s)",
			       r == MAP_FAILED ? tl_errname(e) : "success");
			tap_ok(!tl_vma(own, NULL, NULL, NULL),
			       "... and nothing appeared there in the parent");
		}
		r = dev_move(fd, shared, len, 2 * len);
		e = errno;
		if (tap_ok(r != MAP_FAILED, "MOVE of an address mapped in both "
			   "parent and child: succeeds in the parent (%s)",
			   r == MAP_FAILED ? tl_errname(e) : "ok")) {
			tap_ok(tl_check(r, len, 1) && tl_zero(shared, len),
			       "... it moved the parent's bytes, not the child's");
			munmap(r, 2 * len);
		}
	}
	xfer(to_c[1], &c, 1, 1);
	waitpid(pid, &st, 0);
	tap_ok(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	       "child's memory and mappings unchanged by the parent's ioctls "
	       "(status %#x: 1 own bytes, 2 shared bytes, 4 maps)", st);
	munmap(shared, len);
	close(to_c[0]);
	close(to_c[1]);
	close(to_p[0]);
	close(to_p[1]);
}

/*
 * A file opened by the parent, used by a forked child: the child's pages
 * move, the parent's (same address, other bytes) stay.
 */
struct fork_arg {
	int fd;
	char *p;
	size_t len;
	int lib;	/* through the library instead of the raw ioctl */
};

static int child_uses_fd(void *arg, char *msg, size_t cap)
{
	struct fork_arg *a = arg;
	char *r;

	tl_fill(a->p, a->len, 5);
	errno = 0;
	r = a->lib ? mremap_retain(a->p, a->len, 2 * a->len, 0, NULL) :
		     dev_move(a->fd, a->p, a->len, 2 * a->len);
	if (r == MAP_FAILED)
		return snprintf(msg, cap, "move in the child: %s",
				tl_errname(errno)), 1;
	if (!tl_check(r, a->len, 5) || !tl_zero(a->p, a->len))
		return snprintf(msg, cap, "child's bytes not moved"), 1;
	return 0;
}

static void t_fork_fd(int fd, int lib)
{
	struct fork_arg a = { fd, NULL, 8 * ps, lib };
	char msg[512];
	int rc;

	a.p = tl_map(a.len, PROT_READ | PROT_WRITE);
	tl_fill(a.p, a.len, 4);
	tl_snapshot(&snap_a);
	rc = tl_child(child_uses_fd, &a, msg, sizeof(msg));
	tl_snapshot(&snap_b);
	tap_ok(rc == 0, "%s inherited over fork, used by the child: the "
	       "child's own pages move %s", lib ? "library's device file" :
	       "device file", msg);
	tap_ok(tl_check(a.p, a.len, 4) && tl_snap_equal(&snap_a, &snap_b),
	       "... the opener's bytes and mappings unchanged");
	munmap(a.p, a.len);
}

/* A file received with SCM_RIGHTS from a child that has exited. */
static int send_fd(int sock, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))], b = 'f';
	struct iovec iov = { &b, 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);

	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	return sendmsg(sock, &mh, 0) == 1 ? 0 : -1;
}

static int recv_fd(int sock)
{
	char cbuf[CMSG_SPACE(sizeof(int))], b;
	struct iovec iov = { &b, 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm;
	int fd;

	if (recvmsg(sock, &mh, 0) != 1)
		return -1;
	cm = CMSG_FIRSTHDR(&mh);
	if (!cm || cm->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}

static void t_scm_rights(void)
{
	size_t len = 8 * ps;
	char *p = tl_map(len, PROT_READ | PROT_WRITE), *r;
	int sv[2], fd, st = 0;
	pid_t pid;

	tl_fill(p, len, 6);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		tap_ok(0, "SCM_RIGHTS: socketpair: %s", strerror(errno));
		return;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		int cfd = open(DEV, O_RDWR | O_CLOEXEC);

		/* the child's copy of p, different bytes: must not move */
		tl_fill(p, len, 7);
		_exit(cfd < 0 || send_fd(sv[1], cfd) ? 1 : 0);
	}
	close(sv[1]);
	fd = recv_fd(sv[0]);
	close(sv[0]);
	waitpid(pid, &st, 0);
	if (!tap_ok(fd >= 0 && WIFEXITED(st) && !WEXITSTATUS(st),
		    "SCM_RIGHTS: a child opened the device, passed the file "
		    "and exited (fd %d, status %#x)", fd, st)) {
		munmap(p, len);
		return;
	}
	errno = 0;
	r = dev_move(fd, p, len, 2 * len);
	if (tap_ok(r != MAP_FAILED, "SCM_RIGHTS: MOVE through the exited "
		   "opener's file works for the receiver (%s)",
		   r == MAP_FAILED ? tl_errname(errno) : "ok")) {
		tap_ok(tl_check(r, len, 6) && tl_zero(r + len, len) &&
		       tl_zero(p, len), "SCM_RIGHTS: the receiver's own bytes "
		       "moved");
		munmap(r, 2 * len);
	}
	close(fd);
	munmap(p, len);
}

/* As root: a child with every id 1000 and no capabilities uses it. */
static int child_unprivileged(void *arg, char *msg, size_t cap)
{
	size_t len = 8 * ps;
	char *p = tl_map(len, PROT_READ | PROT_WRITE), *r;
	int fd;

	(void)arg;
	tl_fill(p, len, 8);
	if (setresgid(1000, 1000, 1000) || setresuid(1000, 1000, 1000))
		return snprintf(msg, cap, "setresuid: %s", strerror(errno)), 1;
	prctl(PR_SET_DUMPABLE, 1);
	fd = open(DEV, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return snprintf(msg, cap, "open as uid 1000: %s",
				strerror(errno)), 1;
	r = dev_move(fd, p, len, 2 * len);
	if (r == MAP_FAILED)
		return snprintf(msg, cap, "MOVE as uid 1000: %s",
				tl_errname(errno)), 1;
	if (!tl_check(r, len, 8) || !tl_zero(p, len))
		return snprintf(msg, cap, "bytes not moved"), 1;
	return 0;
}

int main(void)
{
	char msg[512];
	int fd, rc;

	tl_start("isolation");
	if (tl_host && access(DEV, F_OK)) {
		tap_skip("isolation: module not loaded");
		return tap_done();
	}
	fd = open(DEV, O_RDWR | O_CLOEXEC);
	if (!tap_ok(fd >= 0, "uid %d opens " DEV " (%s)", (int)getuid(),
		    fd < 0 ? strerror(errno) : "ok"))
		return tap_done();
	if (geteuid() == 0) {
		rc = tl_child(child_unprivileged, NULL, msg, sizeof(msg));
		tap_ok(rc == 0, "a child dropped to uid 1000 opens the device "
		       "and moves its memory %s", msg);
	}
	t_child_address(fd);
	t_fork_fd(fd, 0);
	if (tl_use_backend(MREMAP_RETAIN_BACKEND_MODULE, "isolation"))
		t_fork_fd(fd, 1);
	t_scm_rights();
	close(fd);
	return tap_done();
}
