/* SPDX-License-Identifier: MIT */
/*
 * test_threads.c - concurrent moves and decommits from several threads on
 * every host backend, including the first call (backend choice, probes);
 * and a moving thread whose signal handler reads the source, signalled
 * all the time by another thread: while the library holds the source
 * registered with its userfaultfd (its check), such a read would wait for
 * ever, so no handler may run then.
 */
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../tap.h"
#include "util.h"

#define THREADS	4
#define ROUNDS	200

static int errors;

static void *worker(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg;
	size_t len = (seed % 3 + 1) * PS;
	char *p = map_anon(len, PROT_READ | PROT_WRITE), *r;

	for (int i = 0; i < ROUNDS; i++) {
		fill(p, len, seed + i);
		r = mremap_retain(p, len, len + PS, 0);
		if (r == MAP_FAILED || !has_pattern(r, len, seed + i) || !is_zero(p, len) ||
		    !is_zero(r + len, PS)) {
			__atomic_add_fetch(&errors, 1, __ATOMIC_RELAXED);
			break;
		}
		if (mremap_retain_decommit(r, len + PS))
			__atomic_add_fetch(&errors, 1, __ATOMIC_RELAXED);
		munmap(r, len + PS);
	}
	munmap(p, len);
	return NULL;
}

static void run(const char *what)
{
	pthread_t t[THREADS];

	errors = 0;
	for (uintptr_t i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, worker, (void *)(i + 1));
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	tap_ok(errors == 0, "%s: %d threads x %d moves and decommits (%d errors)",
	       what, THREADS, ROUNDS, errors);
}

#define SIG_PAGES	64
#define SIG_MOVES	2000

static char *volatile sig_src;
static volatile sig_atomic_t sig_runs, sig_stop;

/* Reads a page of the source not read before: a hole, until then. */
static void on_usr1(int sig)
{
	char *p = sig_src;

	(void)sig;
	if (p)
		(void)*(volatile char *)(p + (size_t)(sig_runs % SIG_PAGES) * PS);
	sig_runs++;
}

static void *signaller(void *arg)
{
	pthread_t mover = *(pthread_t *)arg;

	/* Often enough to land between any two of the library's system
	 * calls, not so often that the mover spends its time in handlers. */
	while (!sig_stop) {
		pthread_kill(mover, SIGUSR1);
		nanosleep(&(struct timespec){ .tv_nsec = 20000 }, NULL);
	}
	return NULL;
}

/* In a child: SIG_MOVES moves of an untouched source, signalled. */
static int signalled_moves(void)
{
	struct sigaction sa = { .sa_handler = on_usr1, .sa_flags = SA_RESTART };
	pthread_t me = pthread_self(), t;
	size_t len = SIG_PAGES * PS;

	sigaction(SIGUSR1, &sa, NULL);
	pthread_create(&t, NULL, signaller, &me);
	for (int i = 0; i < SIG_MOVES; i++) {
		char *p = map_anon(len, PROT_READ | PROT_WRITE), *r;

		sig_src = p;
		r = mremap_retain(p, len, len, 0);
		sig_src = NULL;
		if (r == MAP_FAILED)
			return 1;
		munmap(r, len);
		munmap(p, len);
	}
	sig_stop = 1;
	pthread_join(t, NULL);
	printf("# %d signals handled during %d moves\n", (int)sig_runs, SIG_MOVES);
	fflush(stdout);
	return sig_runs ? 0 : 1;
}

static void run_signalled(const char *what)
{
	int st = -1, waited;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(signalled_moves());
	for (waited = 0; waited < 600; waited++) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			break;
		nanosleep(&(struct timespec){ .tv_nsec = 100000000 }, NULL);
	}
	if (waited == 600) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
	}
	tap_ok(waited < 600 && WIFEXITED(st) && !WEXITSTATUS(st),
	       "%s: %d moves, a handler reading the source signalled throughout%s",
	       what, SIG_MOVES, waited == 600 ? " (hung: killed after 60 s)" : "");
}

int main(void)
{
	int b;

	run("first use from threads");
	for_each_backend(b)
		run(mremap_retain_backend_name(b));
	for_each_backend(b)
		run_signalled(mremap_retain_backend_name(b));
	return tap_done();
}
