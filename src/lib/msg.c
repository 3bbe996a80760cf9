#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msg.h"

const char *wa_prog = "wa";
bool wa_quiet;
int wa_verbose;
static const char *usage_text = "";
static void (*die_hook)(void);

void
wa_init(int argc, char **argv, const char *usage)
{
	(void)argc;
	if (argv[0] && *argv[0]) {
		const char *slash = strrchr(argv[0], '/');
		wa_prog = slash ? slash + 1 : argv[0];
	}
	usage_text = usage;
}

void
wa_at_die(void (*fn)(void))
{
	die_hook = fn;
}

static noreturn void
die_exit(int status)
{
	if (die_hook)
		die_hook();
	exit(status);
}

static void
print_usage(FILE *f)
{
	fputs(usage_text, f);
}

void
wa_common_option(int opt)
{
	switch (opt) {
	case 'h':
		print_usage(stdout);
		exit(WA_EXIT_OK);
	case WA_OPT_VERSION:
		printf("%s (wa) %s\n", wa_prog, WA_VERSION);
		exit(WA_EXIT_OK);
	case 'q':
		wa_quiet = true;
		return;
	case 'v':
		wa_verbose++;
		return;
	default:
		/* getopt has already named the bad option. */
		fprintf(stderr, "usage: %s -h for help\n", wa_prog);
		exit(WA_EXIT_USAGE);
	}
}

void
wa_vwarn(const char *fmt, va_list ap)
{
	fflush(stdout);
	fprintf(stderr, "%s: ", wa_prog);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void
wa_warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	wa_vwarn(fmt, ap);
	va_end(ap);
}

void
wa_note(const char *fmt, ...)
{
	va_list ap;
	if (wa_quiet)
		return;
	va_start(ap, fmt);
	wa_vwarn(fmt, ap);
	va_end(ap);
}

noreturn void
wa_usage_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	wa_vwarn(fmt, ap);
	va_end(ap);
	fprintf(stderr, "usage: %s -h for help\n", wa_prog);
	die_exit(WA_EXIT_USAGE);
}

noreturn void
wa_die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	wa_vwarn(fmt, ap);
	va_end(ap);
	die_exit(WA_EXIT_ERROR);
}

noreturn void
wa_die_errno(const char *fmt, ...)
{
	int err = errno;
	va_list ap;
	fflush(stdout);
	fprintf(stderr, "%s: ", wa_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s\n", strerror(err));
	die_exit(WA_EXIT_ERROR);
}

static void *
check_alloc(void *p)
{
	if (!p)
		wa_die("out of memory");
	return p;
}

void *wa_malloc(size_t n) { return check_alloc(malloc(n ? n : 1)); }
void *wa_calloc(size_t n, size_t size) { return check_alloc(calloc(n ? n : 1, size ? size : 1)); }
void *wa_realloc(void *p, size_t n) { return check_alloc(realloc(p, n ? n : 1)); }
void *wa_reallocarray(void *p, size_t n, size_t size)
{
	return check_alloc(reallocarray(p, n ? n : 1, size ? size : 1));
}
char *wa_strdup(const char *s) { return check_alloc(strdup(s)); }
char *wa_strndup(const char *s, size_t n) { return check_alloc(strndup(s, n)); }

char *
wa_asprintf(const char *fmt, ...)
{
	char *s;
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		wa_die("out of memory");
	return s;
}
