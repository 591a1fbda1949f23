/* SPDX-License-Identifier: MIT */
/*
 * tap.h - the few TAP helpers every test program uses.
 *
 *	tap_ok(cond, "what %s", ...);	one test point
 *	tap_skip("why");		a point that cannot run here (counted)
 *	return tap_done();		prints "N passed, N failed", exit status
 *
 * The plan line comes last ("1..N"), which TAP allows, so a program need
 * not count its points in advance.
 */
#ifndef MREMAP_RETAIN_TAP_H
#define MREMAP_RETAIN_TAP_H

#include <stdarg.h>
#include <stdio.h>

static int tap_n, tap_failed, tap_skipped;

__attribute__((format(printf, 2, 3), unused))
static int tap_ok(int cond, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", cond ? "" : "not ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	if (!cond)
		tap_failed++;
	return cond;
}

__attribute__((format(printf, 1, 2), unused))
static void tap_diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

__attribute__((unused))
static void tap_skip(const char *why)
{
	printf("ok %d # SKIP %s\n", ++tap_n, why);
	fflush(stdout);
	tap_skipped++;
}

__attribute__((unused))
static int tap_done(void)
{
	printf("1..%d\n", tap_n);
	printf("%d passed, %d failed", tap_n - tap_failed - tap_skipped,
	       tap_failed);
	if (tap_skipped)
		printf(", %d skipped", tap_skipped);
	putchar('\n');
	fflush(stdout);
	return tap_failed ? 1 : 0;
}

#endif /* MREMAP_RETAIN_TAP_H */
