/* SPDX-License-Identifier: MIT */
/*
 * lock.c - mlock accounting for locked sources: the RLIMIT_MEMLOCK check
 * that mremap(2) makes when it grows a locked mapping (EAGAIN), and locking
 * the destination the way the source was locked.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>

#include "internal.h"

#ifndef MLOCK_ONFAULT
#define MLOCK_ONFAULT 0x01
#endif

static bool cap_ipc_lock(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];

	memset(data, 0, sizeof(data));
	if (syscall(SYS_capget, &hdr, data))
		return false;
	return data[CAP_TO_INDEX(CAP_IPC_LOCK)].effective &
	       CAP_TO_MASK(CAP_IPC_LOCK);
}

static int vmlck_line(const char *line, size_t len, void *arg)
{
	(void)len;
	if (strncmp(line, "VmLck:", 6))
		return 0;
	*(unsigned long long *)arg = strtoull(line + 6, NULL, 10) * 1024;
	return 1;
}

/* Growing a locked source by new - old bytes: within RLIMIT_MEMLOCK? */
int mr_lock_precheck(size_t old_size, size_t new_size)
{
	unsigned long long locked = 0;
	size_t ps = mr_page_size();
	struct rlimit rl;

	if (new_size <= old_size)
		return 0;
	if (getrlimit(RLIMIT_MEMLOCK, &rl) || rl.rlim_cur == RLIM_INFINITY)
		return 0;
	if (cap_ipc_lock())
		return 0;
	if (mr_proc_lines("/proc/self/status", vmlck_line, &locked))
		return 0;	/* cannot tell: mlock() will refuse */
	if ((locked + new_size - old_size) / ps > rl.rlim_cur / ps)
		return EAGAIN;
	return 0;
}

int mr_lock(void *addr, size_t len, bool onfault)
{
	int ret;

	if (onfault)
		ret = (int)syscall(SYS_mlock2, addr, len, MLOCK_ONFAULT);
	else
		ret = mlock(addr, len);
	if (!ret)
		return 0;
	/* Over the limit (ENOMEM, or EPERM with a zero limit). */
	return (errno == ENOMEM || errno == EPERM) ? EAGAIN : errno;
}
