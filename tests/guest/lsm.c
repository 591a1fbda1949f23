// SPDX-License-Identifier: MIT
/*
 * lsm.c - (root) a release asks the LSM before anything is discarded.
 *
 * mprotect(PROT_NONE) consults security_file_mprotect() before it changes
 * anything; mremap_retain_decommit() and the module's DECOMMIT ioctl,
 * which discard the contents and then change the protection, must ask it
 * first too, so that a refusal leaves the contents intact.  A BPF LSM
 * program on file_mprotect (the kernel's own hook; Debian's kernels have
 * "bpf" among their LSMs) refuses PROT_NONE for this process only.
 */
#include <linux/bpf.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>

#include "testlib.h"
#include <mremap_retain/ioctl.h>

/* The matcher of the module, for one BTF id. */
#include "../../module/btf_match.c"

#define INSN(c, d, s, o, i) ((struct bpf_insn) { .code = (c), .dst_reg = (d), \
	.src_reg = (s), .off = (o), .imm = (i) })

static char log_buf[1 << 16];

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(SYS_bpf, cmd, attr, sizeof(*attr));
}

/* The BTF id of the kernel's bpf_lsm_file_mprotect(), or 0. */
static __u32 hook_id(void)
{
	static char raw[64 << 20];
	static __u32 offsets[1 << 21];
	struct mrr_btf btf;
	char msg[320];
	ssize_t n = tl_slurp("/sys/kernel/btf/vmlinux", raw, sizeof(raw));
	__u32 nt;

	if (n <= 0 || mrr_btf_count(raw, n, &nt, msg, sizeof(msg)) ||
	    nt > sizeof(offsets) / sizeof(offsets[0]) ||
	    mrr_btf_open(&btf, raw, n, offsets, nt, msg, sizeof(msg)))
		return 0;
	return mrr_btf_find(&btf, BTF_KIND_FUNC, "bpf_lsm_file_mprotect");
}

/*
 * file_mprotect(vma, reqprot, prot): -EPERM when prot is PROT_NONE and the
 * caller is this process, else 0.
 */
static int load_refuser(__u32 btf_id)
{
	struct bpf_insn prog[] = {
		INSN(BPF_ALU64 | BPF_MOV | BPF_X, 6, 1, 0, 0),	/* r6 = ctx */
		INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_get_current_pid_tgid),
		INSN(BPF_ALU64 | BPF_RSH | BPF_K, 0, 0, 0, 32),	/* r0 = tgid */
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, 1, 0, 0, getpid()),
		INSN(BPF_JMP | BPF_JNE | BPF_X, 0, 1, 4, 0),	/* other: allow */
		INSN(BPF_LDX | BPF_MEM | BPF_DW, 2, 6, 16, 0),	/* r2 = prot */
		INSN(BPF_JMP | BPF_JNE | BPF_K, 2, 0, 2, 0),	/* not NONE: allow */
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, -EPERM),
		INSN(BPF_JMP | BPF_JA, 0, 0, 1, 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_LSM;
	a.expected_attach_type = BPF_LSM_MAC;
	a.insns = (uintptr_t)prog;
	a.insn_cnt = sizeof(prog) / sizeof(prog[0]);
	a.license = (uintptr_t)"GPL";
	a.attach_btf_id = btf_id;
	a.log_buf = (uintptr_t)log_buf;
	a.log_size = sizeof(log_buf);
	a.log_level = 1;
	return sys_bpf(BPF_PROG_LOAD, &a);
}

static int attach(int prog)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.raw_tracepoint.prog_fd = prog;
	return sys_bpf(BPF_RAW_TRACEPOINT_OPEN, &a);
}

static void refused_release(int dev)
{
	size_t len = 4 * ps;
	char *p = tl_map(len, PROT_READ | PROT_WRITE);
	struct mremap_retain_decommit d = { .addr = (uintptr_t)p, .size = len };
	int rc, e;

	tl_fill(p, len, 31);
	errno = 0;
	rc = ioctl(dev, MREMAP_RETAIN_IOC_DECOMMIT, &d);
	e = errno;
	tap_ok(rc == -1 && e == EPERM, "DECOMMIT ioctl refused by the LSM: EPERM (%s)",
	       rc ? tl_errname(e) : "released");
	tap_ok(tl_check(p, len, 31) && !strcmp(tl_perms(p), "rw-p"),
	       "... contents intact, protection unchanged (%s)", tl_perms(p));

	errno = 0;
	rc = mremap_retain_decommit(p, len);
	e = errno;
	tap_ok(rc == -1 && e == EPERM,
	       "mremap_retain_decommit refused by the LSM: EPERM (%s)",
	       rc ? tl_errname(e) : "released");
	tap_ok(tl_check(p, len, 31) && !strcmp(tl_perms(p), "rw-p"),
	       "... contents intact, protection unchanged (%s)", tl_perms(p));
	munmap(p, len);
}

int main(void)
{
	char lsms[512] = "";
	int dev, prog, link;
	__u32 id;
	char *q;

	tl_start("lsm");
	if (geteuid() || tl_host) {
		tap_skip("lsm: needs root in the guest (BPF LSM)");
		return tap_done();
	}
	tl_slurp("/sys/kernel/security/lsm", lsms, sizeof(lsms));
	if (!strstr(lsms, "bpf")) {
		tl_skipf("lsm: the bpf LSM is not active here (%s)", lsms);
		return tap_done();
	}
	id = hook_id();
	if (!tap_ok(id != 0, "bpf_lsm_file_mprotect in the kernel's BTF (id %u)", id))
		return tap_done();
	dev = open("/dev/mremap_retain", O_RDWR | O_CLOEXEC);
	if (!tap_ok(dev >= 0, "open /dev/mremap_retain (%s)", dev < 0 ? strerror(errno) : "ok"))
		return tap_done();
	prog = load_refuser(id);
	if (prog < 0) {
		q = log_buf + strlen(log_buf);
		while (q > log_buf && q - log_buf > (long)strlen(log_buf) - 300)
			q--;
		tap_ok(0, "load the BPF LSM program: %s (%s)", strerror(errno), q);
		return tap_done();
	}
	link = attach(prog);
	if (!tap_ok(link >= 0, "attach it to file_mprotect (%s)",
		    link < 0 ? strerror(errno) : "ok"))
		return tap_done();
	{
		char *s = tl_map(ps, PROT_READ | PROT_WRITE);

		tap_ok(mprotect(s, ps, PROT_NONE) == -1 && errno == EPERM &&
		       mprotect(s, ps, PROT_READ) == 0,
		       "the program refuses PROT_NONE for this process, allows the rest");
		munmap(s, ps);
	}
	refused_release(dev);
	close(link);
	close(prog);
	{
		size_t len = 2 * ps;
		char *p = tl_map(len, PROT_READ | PROT_WRITE);

		tl_fill(p, len, 32);
		tap_ok(mremap_retain_decommit(p, len) == 0 && !strcmp(tl_perms(p), "---p"),
		       "without the program the release works (%s)", tl_perms(p));
		munmap(p, len);
	}
	close(dev);
	return tap_done();
}
