/* SPDX-License-Identifier: MIT */
/*
 * sigreader.h - a thread whose signal handler reads the range it is
 * moving, signalled all the time by another thread.  While the library
 * holds such a range registered with its userfaultfd for missing faults,
 * a read of an empty page there waits for ever: no handler may run then.
 * sigreader_watched() runs the moves in a child with a watchdog, so that
 * a hang is a failure and not a stopped test run.
 */
#ifndef MREMAP_RETAIN_TESTS_SIGREADER_H
#define MREMAP_RETAIN_TESTS_SIGREADER_H

#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The range the handler reads, a page at a time: set it around a move. */
static char *volatile sigreader_range;
static size_t sigreader_pages, sigreader_page;
static volatile sig_atomic_t sigreader_runs, sigreader_stop;

static void sigreader_on_usr1(int sig)
{
	char *p = sigreader_range;

	(void)sig;
	if (p)
		(void)*(volatile char *)(p + (size_t)(sigreader_runs %
				sigreader_pages) * sigreader_page);
	sigreader_runs++;
}

static void *sigreader_signaller(void *arg)
{
	pthread_t mover = *(pthread_t *)arg;

	/* Often enough to land between any two of the library's system
	 * calls, not so often that the mover spends its time in handlers. */
	while (!sigreader_stop) {
		pthread_kill(mover, SIGUSR1);
		nanosleep(&(struct timespec){ .tv_nsec = 20000 }, NULL);
	}
	return NULL;
}

/* In the child: handler and signaller for the calling thread, whose
 * ranges are @pages pages of @page bytes. */
static void sigreader_start(pthread_t *t, pthread_t *self, size_t pages,
			    size_t page)
{
	struct sigaction sa = { .sa_handler = sigreader_on_usr1,
				.sa_flags = SA_RESTART };

	sigreader_pages = pages;
	sigreader_page = page;
	*self = pthread_self();
	sigaction(SIGUSR1, &sa, NULL);
	pthread_create(t, NULL, sigreader_signaller, self);
}

/* The number of signals handled. */
static int sigreader_end(pthread_t t)
{
	sigreader_stop = 1;
	pthread_join(t, NULL);
	return (int)sigreader_runs;
}

/* Runs @moves in a child, killed after @secs seconds: its exit status,
 * or -1 if it hung, -2 if it died of a signal. */
static int sigreader_watched(int (*moves)(void), int secs)
{
	int st = 0, waited;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(moves());
	for (waited = 0; waited < 10 * secs; waited++) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			break;
		nanosleep(&(struct timespec){ .tv_nsec = 100000000 }, NULL);
	}
	if (waited == 10 * secs) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		return -1;
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : -2;
}

#endif /* MREMAP_RETAIN_TESTS_SIGREADER_H */
