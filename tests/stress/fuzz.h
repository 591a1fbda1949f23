/* SPDX-License-Identifier: MIT */
/*
 * fuzz.h - what the two halves of the ioctl fuzzer share: fuzz.c (hostile
 * arguments, one thread) calls fz_race() of fuzz_race.c (ioctls racing
 * munmap, mprotect and fork of the same ranges).
 */
#ifndef MREMAP_RETAIN_FUZZ_H
#define MREMAP_RETAIN_FUZZ_H

#include <stddef.h>
#include <stdint.h>

struct fz_race_result {
	uint64_t calls, ok, errs, threads_ops, forks;
	uint64_t bad_errno;		/* an errno outside the contract's */
	uint64_t bad_addr;		/* a success with an unaligned result */
	uint64_t efault_moved;		/* EFAULT although the move was done */
	uint64_t efault_checked;	/* EFAULTs of the targeted race */
	char first[256];		/* first problem, for the diagnostics */
};

/* Runs the concurrent phase for `seconds' on /dev/mremap_retain fd. */
void fz_race(int fd, size_t ps, double seconds, uint64_t seed,
	     struct fz_race_result *res);

#endif /* MREMAP_RETAIN_FUZZ_H */
