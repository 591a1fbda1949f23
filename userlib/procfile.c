/* SPDX-License-Identifier: MIT */
/*
 * procfile.c - read a /proc text file line by line with a fixed buffer and
 * no allocation, stopping as soon as the caller has what it wants; and
 * what /proc/self/status says of seccomp.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

#define LINE_MAX_KEPT	511

int mr_proc_lines(const char *path,
		  int (*fn)(const char *line, size_t len, void *arg), void *arg)
{
	char buf[4096], line[LINE_MAX_KEPT + 1];
	size_t len = 0;
	int fd, err = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		ssize_t i;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = errno;
			break;
		}
		if (n == 0) {
			if (len)
				fn(line, len, arg);
			break;
		}
		for (i = 0; i < n; i++) {
			if (buf[i] != '\n') {
				if (len < LINE_MAX_KEPT)
					line[len++] = buf[i];
				continue;
			}
			line[len] = '\0';
			if (fn(line, len, arg))
				goto out;
			len = 0;
		}
	}
out:
	close(fd);
	return err;
}

static int seccomp_line(const char *line, size_t len, void *arg)
{
	(void)len;
	if (strncmp(line, "Seccomp:", 8))
		return 0;
	*(bool *)arg = strtol(line + 8, NULL, 10) != 0;
	return 1;
}

bool mr_seccomp_filtered(void)
{
	bool filtered = true;

	return mr_proc_lines("/proc/self/status", seccomp_line, &filtered) ||
	       filtered;
}
