/* What the fuzz targets of t/fuzz/ share (t/fuzz.mk builds them with clang and
 * libFuzzer; t/unit/fuzz-replay.c includes them into a plain program
 * that replays testdata/fuzz/regressions).
 *
 * A target checks invariants of its parser with fuzz_check: a violated one
 * prints what on stdout (as a TAP comment; `make fuzz` closes the
 * parsers' stderr, which bad input fills with warnings) and aborts, which
 * libFuzzer records as a crash and the replay test as a failure.  fuzz_checks counts the checks that held, so the
 * replay test can tell that something was checked at all.
 *
 * The readers of wa take a path; fuzz_path gives the input one without
 * touching the disk: a memfd, named by /proc/self/fd/N. */
#ifndef WA_FUZZ_H
#define WA_FUZZ_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "msg.h"

static unsigned long fuzz_checks __attribute__((unused));

static void __attribute__((format(printf, 2, 3), unused))
fuzz_check(int cond, const char *fmt, ...)
{
	va_list ap;
	if (cond) {
		fuzz_checks++;
		return;
	}
	fputs("# fuzz: invariant violated: ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	abort();
}

/* A file holding data[0..n), open as *fd (close it after use), named
 * path (64 bytes). */
static void __attribute__((unused))
fuzz_path(const void *data, size_t n, int *fd, char *path)
{
	*fd = memfd_create("fuzz", MFD_CLOEXEC);
	if (*fd < 0)
		wa_die_errno("memfd_create");
	for (size_t done = 0; done < n;) {
		ssize_t k = write(*fd, (const char *)data + done, n - done);
		if (k <= 0)
			wa_die_errno("memfd write");
		done += (size_t)k;
	}
	snprintf(path, 64, "/proc/self/fd/%d", *fd);
}

/* The libFuzzer entry point calling ONE(data, size); the replay program
 * includes every target and calls their functions itself. */
#ifdef FUZZ_REPLAY
#define FUZZ_TARGET(one)
#else
#define FUZZ_TARGET(one) \
	int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size); \
	int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return one(data, size); }
#endif

#endif
