// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/mremap_retain: module setup and the ioctl interface.
 *
 * The device is world-usable (0666): every ioctl acts on the calling
 * process's own address space and nothing else.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/uaccess.h>

#include <mremap_retain/ioctl.h>

#include "compat.h"
#include "decommit.h"
#include "move.h"

static long mrr_ioctl_info(struct mremap_retain_info __user *uarg)
{
	struct mremap_retain_info info = {
		.abi_version = MREMAP_RETAIN_ABI_VERSION,
		.features = MREMAP_RETAIN_FEAT_MOVE | MREMAP_RETAIN_FEAT_DECOMMIT,
	};

	if (mrr_uffd_move_sound())
		info.features |= MREMAP_RETAIN_FEAT_ALIKE;

	return copy_to_user(uarg, &info, sizeof(info)) ? -EFAULT : 0;
}

static long mrr_ioctl_move(struct mremap_retain_move __user *uarg)
{
	struct mremap_retain_move arg;
	struct mrr_move req;

	if (copy_from_user(&arg, uarg, sizeof(arg)))
		return -EFAULT;
	if (arg.reserved || (arg.flags & ~MREMAP_RETAIN_MOVE_FLAGS))
		return -EINVAL;
	if ((arg.flags & MREMAP_RETAIN_MOVE_ALIKE) && !mrr_uffd_move_sound())
		return -EINVAL;
	req = (struct mrr_move) {
		.old_addr = arg.old_addr,
		.old_size = arg.old_size,
		.new_size = arg.new_size,
		.new_addr = arg.new_addr,
		.flags = arg.flags,
		.result = &uarg->new_addr,
	};
	/* Addresses beyond the unsigned long range are not user addresses. */
	if (req.old_addr != arg.old_addr)
		return -EFAULT;
	if (req.new_addr != arg.new_addr)
		return (arg.flags & MREMAP_RETAIN_MOVE_FIXED) ? -ENOMEM : -EINVAL;

	/* mrr_move() stores the result before it changes anything. */
	return mrr_move(&req);
}

static long mrr_ioctl_decommit(struct mremap_retain_decommit __user *uarg)
{
	struct mremap_retain_decommit arg;

	if (copy_from_user(&arg, uarg, sizeof(arg)))
		return -EFAULT;
	if (arg.reserved)
		return -EINVAL;
	return mrr_decommit(arg.addr, arg.size);
}

static long mrr_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;

	/* Every operation is on the caller's own mm; a kernel thread has none. */
	if (!current->mm || (current->flags & PF_KTHREAD))
		return -EINVAL;
	switch (cmd) {
	case MREMAP_RETAIN_IOC_INFO:
		return mrr_ioctl_info(uarg);
	case MREMAP_RETAIN_IOC_MOVE:
		return mrr_ioctl_move(uarg);
	case MREMAP_RETAIN_IOC_DECOMMIT:
		return mrr_ioctl_decommit(uarg);
	default:
		return -ENOTTY;
	}
}

static const struct file_operations mrr_fops = {
	.owner = THIS_MODULE,
	.open = nonseekable_open,
	.unlocked_ioctl = mrr_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};

static struct miscdevice mrr_device = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = MREMAP_RETAIN_DEVICE_NAME,
	.fops = &mrr_fops,
	.mode = 0666,
};

static int __init mrr_init(void)
{
	int err;

	err = mrr_compat_init();
	if (err)
		return err;
	err = misc_register(&mrr_device);
	if (err) {
		pr_err("cannot register /dev/%s (%d)\n",
		       MREMAP_RETAIN_DEVICE_NAME, err);
		return err;
	}
	return 0;
}

static void __exit mrr_exit(void)
{
	misc_deregister(&mrr_device);
}

module_init(mrr_init);
module_exit(mrr_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("mremap that keeps the source mapped as fresh memory");
MODULE_VERSION(MRR_VERSION);
