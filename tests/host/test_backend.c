/* SPDX-License-Identifier: MIT */
/*
 * test_backend.c - backend choice: the default on this host (no module),
 * mremap_retain_set_backend(), names, and MREMAP_RETAIN_BACKEND (each case
 * in a fresh process, since the choice is made once).
 */
#include "../tap.h"
#include "util.h"

/* Child mode: report what the library does under the given environment. */
static int child(void)
{
	size_t len = PS;
	char *src = map_anon(len, PROT_READ | PROT_WRITE);
	void *r;

	fill(src, len, 50);
	r = mremap_retain(src, len, len, 0);
	if (r != MAP_FAILED)
		return 10 + mremap_retain_backend();
	if (errno != ENOTSUP || !has_pattern(src, len, 50))
		return 1;
	r = mremap_retain(src, 0, len, 0x40);	/* ENOTSUP beats EINVAL */
	if (r != MAP_FAILED || errno != ENOTSUP)
		return 2;
	return 20 + mremap_retain_backend();
}

static int run_with(const char *self, const char *value)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		if (value)
			setenv("MREMAP_RETAIN_BACKEND", value, 1);
		else
			unsetenv("MREMAP_RETAIN_BACKEND");
		execl(self, self, "child", (char *)NULL);
		_exit(99);
	}
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int main(int argc, char **argv)
{
	int rc;

	if (argc > 1)
		return child();

	tap_ok(mremap_retain_backend() == MREMAP_RETAIN_BACKEND_DONTUNMAP,
	       "default on this host: dontunmap (got %d)", mremap_retain_backend());
	errno = 0;
	tap_ok(mremap_retain_set_backend(MREMAP_RETAIN_BACKEND_MODULE) == -1 && errno == ENOTSUP &&
	       mremap_retain_backend() == MREMAP_RETAIN_BACKEND_DONTUNMAP,
	       "set_backend(module) without the module -> ENOTSUP, unchanged");
	tap_ok(mremap_retain_set_backend(0) == -1 && errno == EINVAL &&
	       mremap_retain_set_backend(4) == -1 && errno == EINVAL,
	       "set_backend(not a backend) -> EINVAL");
	tap_ok(mremap_retain_set_backend(MREMAP_RETAIN_BACKEND_COPY) == 0 &&
	       mremap_retain_backend() == MREMAP_RETAIN_BACKEND_COPY, "set_backend(copy)");
	tap_ok(mremap_retain_set_backend(MREMAP_RETAIN_BACKEND_DONTUNMAP) == 0 &&
	       mremap_retain_backend() == MREMAP_RETAIN_BACKEND_DONTUNMAP, "set_backend(dontunmap)");
	tap_ok(!strcmp(mremap_retain_backend_name(1), "module") &&
	       !strcmp(mremap_retain_backend_name(2), "dontunmap") &&
	       !strcmp(mremap_retain_backend_name(3), "copy") &&
	       !mremap_retain_backend_name(0) && !mremap_retain_backend_name(4) &&
	       !mremap_retain_backend_name(-1), "backend names");

	rc = run_with(argv[0], NULL);
	tap_ok(rc == 12, "no MREMAP_RETAIN_BACKEND: dontunmap (child %d)", rc);
	rc = run_with(argv[0], "");
	tap_ok(rc == 12, "empty MREMAP_RETAIN_BACKEND: as unset (child %d)", rc);
	rc = run_with(argv[0], "copy");
	tap_ok(rc == 13, "MREMAP_RETAIN_BACKEND=copy (child %d)", rc);
	rc = run_with(argv[0], "dontunmap");
	tap_ok(rc == 12, "MREMAP_RETAIN_BACKEND=dontunmap (child %d)", rc);
	rc = run_with(argv[0], "module");
	tap_ok(rc == 21, "MREMAP_RETAIN_BACKEND=module without the module: every call "
	       "ENOTSUP, backend() still module (child %d)", rc);
	rc = run_with(argv[0], "bogus");
	tap_ok(rc == 20, "MREMAP_RETAIN_BACKEND=bogus: every call ENOTSUP, backend() 0 "
	       "(child %d)", rc);
	return tap_done();
}
