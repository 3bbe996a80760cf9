/* TAP output for the C unit tests: each test program prints a plan and
 * one "ok"/"not ok" line per check, and prove reads them. */
#ifndef WA_TAP_H
#define WA_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_count __attribute__((unused)), tap_failed __attribute__((unused));

static inline bool __attribute__((format(printf, 2, 3)))
ok(bool pass, const char *fmt, ...)
{
	va_list ap;
	printf("%sok %d - ", pass ? "" : "not ", ++tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	tap_failed += !pass;
	return pass;
}

/* Like ok() for two strings; shows both when they differ.  NULL stands
 * for "no value" (an error). */
static inline bool __attribute__((format(printf, 3, 4)))
is_str(const char *got, const char *want, const char *fmt, ...)
{
	va_list ap;
	bool pass = (!got && !want) || (got && want && strcmp(got, want) == 0);
	printf("%sok %d - ", pass ? "" : "not ", ++tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (!pass)
		printf("#   got:      %s\n#   expected: %s\n", got ? got : "(error)",
		    want ? want : "(error)");
	tap_failed += !pass;
	return pass;
}

static inline void __attribute__((format(printf, 1, 2)))
diag(const char *fmt, ...)
{
	va_list ap;
	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static inline int
done_testing(void)
{
	printf("1..%d\n", tap_count);
	return tap_failed ? 1 : 0;
}

#endif
