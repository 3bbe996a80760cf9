/* Messages, exit codes and the options every tool shares (wa.7,
 * "CONVENTIONS").  The base of the library: it depends on no other
 * module of it. */
#ifndef WA_MSG_H
#define WA_MSG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdnoreturn.h>

enum { WA_EXIT_OK = 0, WA_EXIT_ERROR = 1, WA_EXIT_USAGE = 2 };

/* Long-only options get codes above the char range. */
enum { WA_OPT_VERSION = 0x100, WA_OPT_NOW, WA_OPT_FIRST_TOOL = 0x200 };

/* The long options every tool accepts; end a tool's table with it. */
#define WA_COMMON_LONGOPTS \
	{ "help", no_argument, NULL, 'h' }, \
	{ "version", no_argument, NULL, WA_OPT_VERSION }, \
	{ NULL, 0, NULL, 0 }

extern const char *wa_prog;	/* "wa-NAME", for messages */
extern bool wa_quiet;		/* -q: no progress, no notes */
extern int wa_verbose;		/* -v count */

/* Sets the program name and the usage text printed by -h. */
void wa_init(int argc, char **argv, const char *usage);

/* The default case of a tool's getopt switch: -h, --version, -q, -v,
 * unknown options and missing arguments. */
void wa_common_option(int opt);

/* wa_usage_error, wa_die and wa_die_errno print the message, run the
 * function given to wa_at_die, if any, and exit (WA_EXIT_USAGE,
 * WA_EXIT_ERROR). */
noreturn void wa_usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
noreturn void wa_die(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
/* wa_die with ": strerror(errno)" appended. */
noreturn void wa_die_errno(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
/* Sets the function the process runs when it dies on an error, so that a
 * module above this one (atomic.h) removes what a failed run must not
 * leave; a later call replaces it. */
void wa_at_die(void (*fn)(void));
void wa_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void wa_vwarn(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
/* A note shown unless -q: for summaries at the end of a run. */
void wa_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

void *wa_malloc(size_t n);
void *wa_calloc(size_t n, size_t size);
void *wa_realloc(void *p, size_t n);
void *wa_reallocarray(void *p, size_t n, size_t size);
char *wa_strdup(const char *s);
char *wa_strndup(const char *s, size_t n);
/* Formats into a fresh string. */
char *wa_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
