// SPDX-License-Identifier: MIT
/*
 * stress.c - the stress program: one forked process per backend (the
 * backend is process-wide in libmremap_retain), each running several
 * worker threads that apply random operations to memory they own and check
 * every byte against their model (see stress.h), for a bounded time.
 *
 *	stress [--seconds N] [--seed S] [--workers W] [--ops N]
 *	       [--backends module,dontunmap,copy]
 *
 * Run as `stress_short' it defaults to 15 seconds (the guest suite's form).
 * The seed is printed first; each worker draws its operations from its own
 * generator seeded from (seed, backend, worker), so rerunning with the same
 * seed repeats every worker's sequence of operations (add --ops N to stop
 * at the same point).  Only outcomes that depend on other threads differ:
 * a NOREPLACE onto a just-unmapped hole that another thread took (EEXIST,
 * counted as "hole-raced") and the timing of the racing writes.
 *
 * Output: operations per kind and mismatches per class for each backend,
 * then TAP: one passing point per clean worker, one failing point per
 * mismatch class seen by a worker, one per crashed or hung process; the
 * last line is "N passed, N failed".  Exit status 1 on any failure.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <mremap_retain.h>

#include "../tap.h"
#include "stress.h"

size_t st_ps;
uint64_t st_max_ops;

static const char *const op_names[OP_NKINDS] = {
	"mmap", "munmap", "trim-munmap", "write", "verify", "mprotect",
	"dontneed", "free", "pageout", "hugepage",
	"move-same", "move-grow", "move-shrink",
	"move-anywhere", "move-fixed", "noreplace-eexist", "noreplace-hole",
	"fixed-overlap-einval", "move-enomem", "hole-raced",
	"fork", "race", "race-writes",
};

static const char *const mis_names[MIS_NCLASSES] = {
	"content", "source-not-zero", "errno", "failed-call-changed-state",
	"protection", "placement", "race-model", "fork-child", "stray-write",
};

/* 1 under QEMU's TCG (its CPU model name says so), where stray writes
 * come from the emulator: see race.c. */
static int under_tcg(void)
{
	static char buf[8192];
	int fd = open("/proc/cpuinfo", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	return strstr(buf, "QEMU TCG CPU") != NULL;
}

/*
 * The mismatch classes that QEMU's multi-threaded TCG produces with the
 * copy backend's racing writes (stale-TLB stores into reused frames), which
 * can then also break the copy backend's race rule: skipped under TCG, and
 * only there; the module and dontunmap rules are held strictly everywhere.
 */
static int tcg_artifact(int k, const char *backend)
{
	if ((k != MIS_STRAY && k != MIS_RACE) || strcmp(backend, "copy"))
		return 0;
	return under_tcg();
}

static const int all_backends[ST_MAX_BACKENDS] = {
	MREMAP_RETAIN_BACKEND_MODULE,
	MREMAP_RETAIN_BACKEND_DONTUNMAP,
	MREMAP_RETAIN_BACKEND_COPY,
};

static struct st_shared *sh;
static double deadline;
static unsigned long long seed;
static int nworkers = 2;

void st_out(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(buf) - 1)
		n = sizeof(buf) - 1;
	if (write(1, buf, n) < 0)
		_exit(98);
}

void st_mis(struct st_worker *w, enum st_mis cls, const char *fmt, ...)
{
	char buf[768];
	va_list ap;

	if (w->in_child)
		cls = MIS_FORK;
	__atomic_fetch_add(&w->st->mis[cls], 1, __ATOMIC_RELAXED);
	if (++w->diags > 20)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	st_out("# MISMATCH [%s worker %d%s, op #%llu] %s: %s\n",
	       st_bname(w->backend), w->id, w->in_child ? " fork child" : "",
	       (unsigned long long)w->st->nops, mis_names[cls], buf);
}

void st_count(struct st_worker *w, enum st_op op)
{
	__atomic_fetch_add(&w->st->ops[op], 1, __ATOMIC_RELAXED);
}

uint64_t st_rand(struct st_worker *w)
{
	/* splitmix64 */
	uint64_t z = (w->rng += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

size_t st_below(struct st_worker *w, size_t n)
{
	return n ? st_rand(w) % n : 0;
}

const char *st_bname(int backend)
{
	const char *n = mremap_retain_backend_name(backend);

	return n ? n : "?";
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *worker(void *arg)
{
	struct st_worker *w = arg;
	int k, i;

	w->mapscap = 1 << 20;
	w->mapsbuf = malloc(w->mapscap);
	if (!w->mapsbuf)
		return NULL;
	while (now() < deadline && (!st_max_ops || w->st->nops < st_max_ops)) {
		w->st->nops++;
		op_trim(w);
		k = st_below(w, 100);
		w->st->last_op = k;
		if (k < 10)
			op_mmap(w);
		else if (k < 14)
			op_munmap(w);
		else if (k < 28)
			op_write(w);
		else if (k < 40)
			op_verify(w);
		else if (k < 48)
			op_mprotect(w);
		else if (k < 58)
			op_madvise(w);
		else if (k < 92)
			op_move(w);
		else if (k < 93)
			op_fork(w);
		else
			op_race(w);
	}
	/* Last look at everything, with unreadable regions made readable. */
	for (i = 0; i < w->nr; i++) {
		if (!(w->r[i].prot & PROT_READ))
			mprotect((void *)w->r[i].start, w->r[i].n * st_ps, PROT_READ);
		w->r[i].prot |= PROT_READ;
		st_verify(w, i, MIS_CONTENT, "final check");
		munmap((void *)w->r[i].start, w->r[i].n * st_ps);
	}
	w->st->done = 1;
	return NULL;
}

/* The process of backend index bi: its workers, then exit 0 (77: no backend). */
static void backend_process(int bi)
{
	static struct st_worker ws[ST_MAX_WORKERS];
	pthread_t th[ST_MAX_WORKERS];
	int b = all_backends[bi], i;

	if (mremap_retain_set_backend(b))
		_exit(77);
	for (i = 0; i < nworkers; i++) {
		ws[i].id = i;
		ws[i].backend = b;
		ws[i].bidx = bi;
		ws[i].st = &sh->w[bi][i];
		ws[i].rng = seed ^ (0xA0761D6478BD642FULL * (bi + 1)) ^
			    (0xE7037ED1A0B428DBULL * (i + 1));
		if (pthread_create(&th[i], NULL, worker, &ws[i]))
			_exit(96);
	}
	for (i = 0; i < nworkers; i++)
		pthread_join(th[i], NULL);
	_exit(0);
}

static int parse_backends(const char *s, int *use)
{
	int i, any = 0;

	for (i = 0; i < ST_MAX_BACKENDS; i++) {
		const char *n = st_bname(all_backends[i]), *p = strstr(s, n);

		use[i] = p && (p == s || p[-1] == ',') &&
			 (p[strlen(n)] == 0 || p[strlen(n)] == ',');
		any |= use[i];
	}
	return any;
}

static void report(int bi, int status, int host)
{
	const char *bn = st_bname(all_backends[bi]);
	uint64_t ops[OP_NKINDS] = { 0 }, mis[MIS_NCLASSES] = { 0 }, n = 0;
	char line[2048];
	size_t len = 0;
	int i, k;

	if (WIFEXITED(status) && WEXITSTATUS(status) == 77) {
		if (host && all_backends[bi] == MREMAP_RETAIN_BACKEND_MODULE) {
			tap_skip("[module] backend not available (host without the module)");
			return;
		}
		tap_ok(0, "[%s] backend can be selected", bn);
		return;
	}
	for (i = 0; i < nworkers; i++) {
		struct st_wstat *s = &sh->w[bi][i];

		for (k = 0; k < OP_NKINDS; k++)
			ops[k] += s->ops[k];
		for (k = 0; k < MIS_NCLASSES; k++)
			mis[k] += s->mis[k];
		n += s->nops;
	}
	len = snprintf(line, sizeof(line), "# [%s] %llu operations:", bn,
		       (unsigned long long)n);
	for (k = 0; k < OP_NKINDS && len < sizeof(line) - 64; k++)
		len += snprintf(line + len, sizeof(line) - len, " %s %llu",
				op_names[k], (unsigned long long)ops[k]);
	printf("%s\n# [%s] mismatches:", line, bn);
	for (k = 0; k < MIS_NCLASSES; k++)
		printf(" %s %llu", mis_names[k], (unsigned long long)mis[k]);
	printf("\n");
	fflush(stdout);

	if (WIFSIGNALED(status) || !WIFEXITED(status) || WEXITSTATUS(status)) {
		for (i = 0; i < nworkers; i++)
			if (!sh->w[bi][i].done)
				tap_diag("[%s] worker %d was at op #%llu (choice %d)",
					 bn, i,
					 (unsigned long long)sh->w[bi][i].nops,
					 sh->w[bi][i].last_op);
		tap_ok(0, "[%s] process ended normally (%s %d)", bn,
		       WIFSIGNALED(status) ? "signal" : "exit status",
		       WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
	}
	for (i = 0; i < nworkers; i++) {
		struct st_wstat *s = &sh->w[bi][i];
		int clean = 1;

		for (k = 0; k < MIS_NCLASSES; k++)
			if (s->mis[k] && tcg_artifact(k, bn)) {
				char why[200];

				snprintf(why, sizeof(why),
					 "[%s] worker %d: %llu %s mismatches of racing writes under QEMU TCG (an emulator TLB artifact, see race.c): not checkable here",
					 bn, i, (unsigned long long)s->mis[k],
					 mis_names[k]);
				tap_skip(why);
			} else if (s->mis[k]) {
				clean = 0;
				tap_ok(0, "[%s] worker %d: %llu %s mismatches", bn, i,
				       (unsigned long long)s->mis[k], mis_names[k]);
			}
		if (clean)
			tap_ok(s->done && s->nops > 0,
			       "[%s] worker %d: %llu operations, every byte as modelled%s",
			       bn, i, (unsigned long long)s->nops,
			       s->mis[MIS_STRAY] ? " (but for the stray writes)" : "");
	}
}

int main(int argc, char **argv)
{
	const char *prog = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	const char *hostenv = getenv("MREMAP_RETAIN_TEST_HOST");
	int host = hostenv && !strcmp(hostenv, "1");
	int seconds = strcmp(prog, "stress_short") ? 60 : 15;
	int use[ST_MAX_BACKENDS] = { 1, 1, 1 }, status[ST_MAX_BACKENDS];
	pid_t pid[ST_MAX_BACKENDS] = { 0 };
	char backends[64] = "module,dontunmap,copy";
	int i, left = 0, killed = 0;
	struct utsname u;
	double end;

	seed = (unsigned long long)time(NULL) * 2654435761ULL ^ getpid();
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!v)
			goto usage;
		if (!strcmp(a, "--seconds"))
			seconds = atoi(v);
		else if (!strcmp(a, "--seed"))
			seed = strtoull(v, NULL, 0);
		else if (!strcmp(a, "--workers"))
			nworkers = atoi(v);
		else if (!strcmp(a, "--ops"))
			st_max_ops = strtoull(v, NULL, 0);
		else if (!strcmp(a, "--backends"))
			snprintf(backends, sizeof(backends), "%s", v);
		else
			goto usage;
		i++;
	}
	if (seconds < 1 || nworkers < 1 || nworkers > ST_MAX_WORKERS ||
	    !parse_backends(backends, use))
		goto usage;

	st_ps = sysconf(_SC_PAGESIZE);
	if (uname(&u) == 0)
		printf("# kernel: %s\n", u.release);
	printf("# stress: seed %llu, %d s, %d workers per backend, backends %s\n",
	       seed, seconds, nworkers, backends);
	printf("# rerun: %s --seed %llu --seconds %d --workers %d --backends %s\n",
	       prog, seed, seconds, nworkers, backends);
	fflush(stdout);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	deadline = now() + seconds;
	for (i = 0; i < ST_MAX_BACKENDS; i++) {
		if (!use[i])
			continue;
		pid[i] = fork();
		if (pid[i] < 0) {
			perror("fork");
			return 2;
		}
		if (pid[i] == 0)
			backend_process(i);
		left++;
	}
	/* A process still running two minutes after the deadline is hung. */
	end = deadline + 120;
	while (left) {
		int st;
		pid_t p = waitpid(-1, &st, WNOHANG);

		if (p > 0) {
			for (i = 0; i < ST_MAX_BACKENDS; i++)
				if (pid[i] == p) {
					status[i] = st;
					left--;
				}
			continue;
		}
		if (now() > end && !killed) {
			for (i = 0; i < ST_MAX_BACKENDS; i++)
				if (pid[i] > 0 && kill(pid[i], 0) == 0) {
					tap_diag("[%s] still running 120 s after the deadline: killed (hung)",
						 st_bname(all_backends[i]));
					kill(pid[i], SIGKILL);
				}
			killed = 1;
		}
		usleep(100000);
	}
	for (i = 0; i < ST_MAX_BACKENDS; i++)
		if (use[i])
			report(i, status[i], host);
	if (tap_failed)
		printf("# rerun: %s --seed %llu --seconds %d --workers %d --backends %s\n",
		       prog, seed, seconds, nworkers, backends);
	return tap_done();
usage:
	fprintf(stderr, "usage: %s [--seconds N] [--seed S] [--workers W] [--ops N] [--backends module,dontunmap,copy]\n",
		prog);
	return 2;
}
