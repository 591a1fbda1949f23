/* SPDX-License-Identifier: MIT */
/*
 * uffd.c - does this process hold a userfaultfd?  Registration shows only in
 * smaps, which is slow, so smaps is read only when one of our descriptors is
 * a userfaultfd.  Edge: a range registered through a userfaultfd that only
 * another process still holds is not detected.
 */
#include <dirent.h>
#include <fcntl.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"

#define UFFD_LINK	"anon_inode:[userfaultfd]"

struct mr_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

bool mr_have_uffd(void)
{
	char buf[2048], link[sizeof(UFFD_LINK) + 1];
	bool found = false;
	long n;
	int dfd;

	dfd = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return true;	/* cannot tell: let smaps decide */
	while (!found && (n = syscall(SYS_getdents64, dfd, buf, sizeof(buf))) > 0) {
		long off = 0;

		while (off < n) {
			struct mr_dirent64 *d = (void *)(buf + off);
			ssize_t len;

			off += d->d_reclen;
			if (d->d_type != DT_LNK)
				continue;
			len = readlinkat(dfd, d->d_name, link, sizeof(link));
			if (len == sizeof(UFFD_LINK) - 1 &&
			    !memcmp(link, UFFD_LINK, len)) {
				found = true;
				break;
			}
		}
	}
	close(dfd);
	return found;
}
