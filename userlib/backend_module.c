/* SPDX-License-Identifier: MIT */
/*
 * backend_module.c - one ioctl on /dev/mremap_retain per move (and per
 * decommit, where the module offers it).  The device is opened and its ABI
 * checked once; the module does every check of the range itself.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <mremap_retain/ioctl.h>

#include "internal.h"

static pthread_once_t open_once = PTHREAD_ONCE_INIT;
static int dev_fd = -1;
static unsigned int dev_features;

static void open_device(void)
{
	struct mremap_retain_info info = { 0 };
	int fd;

	fd = open("/dev/" MREMAP_RETAIN_DEVICE_NAME, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return;
	if (ioctl(fd, MREMAP_RETAIN_IOC_INFO, &info) ||
	    info.abi_version != MREMAP_RETAIN_ABI_VERSION ||
	    !(info.features & MREMAP_RETAIN_FEAT_MOVE)) {
		close(fd);
		return;
	}
	dev_features = info.features;
	dev_fd = fd;
}

bool mr_module_available(void)
{
	pthread_once(&open_once, open_device);
	return dev_fd >= 0;
}

/*
 * A FIXED move asks the module first whether the destination's mapping is
 * alike to the source's (where the module can tell); if it is, the pages
 * move into that mapping (move_into.c), else, or if that fails, the
 * module moves them by page tables.
 */
int mr_module_move(const struct mr_req *r, void **out)
{
	struct mremap_retain_move m = {
		.old_addr = r->old,
		.old_size = r->old_size,
		.new_size = r->new_size,
		.new_addr = r->new_addr,
		.flags = ((r->flags & MREMAP_RETAIN_FIXED) ?
			  MREMAP_RETAIN_MOVE_FIXED : 0) |
			 ((r->flags & MREMAP_RETAIN_NOREPLACE) ?
			  MREMAP_RETAIN_MOVE_NOREPLACE : 0),
	};
	int ret;

	if ((dev_features & MREMAP_RETAIN_FEAT_ALIKE) && mr_move_into_fits(r))
		m.flags |= MREMAP_RETAIN_MOVE_ALIKE;
	ret = ioctl(dev_fd, MREMAP_RETAIN_IOC_MOVE, &m);
	if (ret == 1) {
		if (!mr_move_into(r, out))
			return 0;
		m.flags &= ~MREMAP_RETAIN_MOVE_ALIKE;
		ret = ioctl(dev_fd, MREMAP_RETAIN_IOC_MOVE, &m);
	}
	if (ret)
		return errno;
	*out = (void *)(uintptr_t)m.new_addr;
	return 0;
}

bool mr_module_decommit_available(void)
{
	return mr_module_available() &&
	       (dev_features & MREMAP_RETAIN_FEAT_DECOMMIT);
}

int mr_module_decommit(void *addr, size_t len)
{
	struct mremap_retain_decommit d = {
		.addr = (uintptr_t)addr,
		.size = len,
	};

	return ioctl(dev_fd, MREMAP_RETAIN_IOC_DECOMMIT, &d) ? errno : 0;
}
