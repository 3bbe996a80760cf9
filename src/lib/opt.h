/* Parsing numbers, durations, sizes and times from the command line and
 * from TSV fields.  The parse_* functions return false on anything but a
 * whole, well-formed value; the opt_* ones die with a usage error that
 * names the option. */
#ifndef WA_OPT_H
#define WA_OPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* "90s", "15m", "6h", "7d", "1h30m", "2.5s"; a bare number is seconds. */
bool parse_duration(const char *s, double *seconds);
/* "512K", "64M", "2G", "1T" (powers of 1024); a bare number is bytes. */
bool parse_size(const char *s, uint64_t *bytes);
/* Unix seconds ("1700000000") or UTC "YYYY-MM-DD[THH:MM[:SS]][Z]". */
bool parse_time(const char *s, int64_t *unix_seconds);
/* Writes the Unix time t in UTC as strftime's fmt says. */
void format_time(int64_t t, const char *fmt, char *out, size_t size)
	__attribute__((format(strftime, 2, 0)));
bool parse_u64(const char *s, uint64_t *v);
bool parse_i64(const char *s, int64_t *v);
/* A finite decimal number. */
bool parse_double(const char *s, double *v);

double opt_duration(const char *opt, const char *arg);
uint64_t opt_size(const char *opt, const char *arg);
/* Refuses times after 9999-12-31T23:59:59Z. */
int64_t opt_time(const char *opt, const char *arg);
/* An integer in [min, max]. */
uint64_t opt_count(const char *opt, const char *arg, uint64_t min, uint64_t max);
/* A number in [min, max]. */
double opt_double(const char *opt, const char *arg, double min, double max);

/* An option renamed in this release: its old letter is still taken for
 * one more release, with a warning. */
struct opt_renamed {
	int old;		/* the old letter, as getopt returns it */
	int now;		/* the code getopt returns for the new spelling */
	const char *spelling;	/* the new spelling, as "-P (--previous)" */
};
/* The code of the new spelling if opt is an old letter of table, whose
 * last entry has old 0, after one line on stderr: "wa-NAME: -p is now -P
 * (--previous); the old spelling goes in the next release"; else opt. */
int opt_rename(int opt, const struct opt_renamed *table);

#endif
