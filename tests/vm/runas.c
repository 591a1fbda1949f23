/* SPDX-License-Identifier: MIT */
/*
 * runas UID GID PROGRAM [ARGS...] - run PROGRAM with every user and group id
 * set to UID/GID and no supplementary groups.  Built statically and put in
 * the guest's initramfs by mkinitramfs, because the host's busybox has no
 * applet that drops privileges (its setpriv lacks --reuid).
 */
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static unsigned long id_arg(const char *s)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *s == '\0' || *end != '\0') {
		fprintf(stderr, "runas: bad id '%s'\n", s);
		exit(125);
	}
	return v;
}

int main(int argc, char **argv)
{
	uid_t uid;
	gid_t gid;

	if (argc < 4) {
		fprintf(stderr, "usage: runas UID GID PROGRAM [ARGS...]\n");
		return 125;
	}
	uid = (uid_t)id_arg(argv[1]);
	gid = (gid_t)id_arg(argv[2]);
	if (setgroups(0, NULL) || setresgid(gid, gid, gid) ||
	    setresuid(uid, uid, uid)) {
		fprintf(stderr, "runas: cannot become %lu:%lu: %s\n",
			(unsigned long)uid, (unsigned long)gid, strerror(errno));
		return 125;
	}
	execv(argv[3], argv + 3);
	fprintf(stderr, "runas: %s: %s\n", argv[3], strerror(errno));
	return 127;
}
