/* Messages, exit codes and the options every tool shares (DESIGN.md). */
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

/* Sets the program name, the usage text printed by -h, and the handlers
 * that remove temporary files when the tool is interrupted. */
void wa_init(int argc, char **argv, const char *usage);

/* The default case of a tool's getopt switch: -h, --version, -q, -v,
 * unknown options and missing arguments. */
void wa_common_option(int opt);

noreturn void wa_usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
noreturn void wa_die(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
/* wa_die with ": strerror(errno)" appended. */
noreturn void wa_die_errno(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
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
