#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "msg.h"
#include "opt.h"

bool
parse_u64(const char *s, uint64_t *v)
{
	char *end;
	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	unsigned long long n = strtoull(s, &end, 10);
	if (errno || *end)
		return false;
	*v = n;
	return true;
}

bool
parse_i64(const char *s, int64_t *v)
{
	char *end;
	if (!isdigit((unsigned char)s[*s == '-']))
		return false;
	errno = 0;
	long long n = strtoll(s, &end, 10);
	if (errno || *end)
		return false;
	*v = n;
	return true;
}

/* strtod accepts hex, inf, nan and leading blanks; streams and options
 * have only plain decimals. */
static bool
plain_decimal(const char *s)
{
	const char *p = s + (*s == '-' || *s == '+');
	if (!isdigit((unsigned char)*p) && !(*p == '.' && isdigit((unsigned char)p[1])))
		return false;
	return strspn(p, "0123456789.eE+-") == strlen(p);
}

bool
parse_double(const char *s, double *v)
{
	char *end;
	if (!plain_decimal(s))
		return false;
	errno = 0;
	double d = strtod(s, &end);
	if (*end || errno == ERANGE || !isfinite(d))
		return false;
	*v = d;
	return true;
}

bool
parse_duration(const char *s, double *seconds)
{
	double total = 0;
	const char *p = s;
	if (!*p)
		return false;
	while (*p) {
		char *end;
		if (!isdigit((unsigned char)*p) && *p != '.')
			return false;
		double n = strtod(p, &end);
		if (end == p || !isfinite(n))
			return false;
		double unit;
		switch (*end) {
		case 's': unit = 1; break;
		case 'm': unit = 60; break;
		case 'h': unit = 3600; break;
		case 'd': unit = 86400; break;
		case '\0':
			/* A bare number is seconds, but only on its own. */
			if (p != s)
				return false;
			unit = 1;
			end--;
			break;
		default: return false;
		}
		total += n * unit;
		p = end + 1;
	}
	if (!isfinite(total))
		return false;
	*seconds = total;
	return true;
}

bool
parse_size(const char *s, uint64_t *bytes)
{
	char *end;
	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	unsigned long long n = strtoull(s, &end, 10);
	if (errno)
		return false;
	int shift = 0;
	switch (toupper((unsigned char)*end)) {
	case '\0': break;
	case 'K': shift = 10; break;
	case 'M': shift = 20; break;
	case 'G': shift = 30; break;
	case 'T': shift = 40; break;
	default: return false;
	}
	if (*end && end[1])
		return false;
	if (shift && n > (UINT64_MAX >> shift))
		return false;
	*bytes = (uint64_t)n << shift;
	return true;
}

bool
parse_time(const char *s, int64_t *t)
{
	if (parse_i64(s, t))
		return true;
	struct tm tm = { 0 };
	const char *end = strptime(s, "%Y-%m-%d", &tm);
	if (!end)
		return false;
	if (*end == 'T' || *end == ' ') {
		const char *e = strptime(end + 1, "%H:%M:%S", &tm);
		if (!e)
			e = strptime(end + 1, "%H:%M", &tm);
		if (!e)
			return false;
		end = e;
	}
	if (*end == 'Z')
		end++;
	if (*end)
		return false;
	*t = timegm(&tm);
	return true;
}

double
opt_duration(const char *opt, const char *arg)
{
	double v;
	if (!parse_duration(arg, &v))
		wa_usage_error("%s: bad duration '%s' (like 90s, 15m, 6h, 7d)", opt, arg);
	return v;
}

uint64_t
opt_size(const char *opt, const char *arg)
{
	uint64_t v;
	if (!parse_size(arg, &v))
		wa_usage_error("%s: bad size '%s' (like 512K, 64M, 2G)", opt, arg);
	return v;
}

int64_t
opt_time(const char *opt, const char *arg)
{
	int64_t v;
	if (!parse_time(arg, &v))
		wa_usage_error("%s: bad time '%s' (Unix seconds or YYYY-MM-DDTHH:MM:SSZ)",
		    opt, arg);
	/* The clock dates the records: a WARC-Date (ISO 8601 as W3C-DTF)
	 * has four digits of year. */
	if (v > INT64_C(253402300799))
		wa_usage_error("%s: '%s' is after 9999-12-31T23:59:59Z, the last time a "
		    "WARC-Date can hold", opt, arg);
	return v;
}

uint64_t
opt_count(const char *opt, const char *arg, uint64_t min, uint64_t max)
{
	uint64_t v;
	if (!parse_u64(arg, &v) || v < min || v > max)
		wa_usage_error("%s: '%s' is not an integer from %" PRIu64 " to %" PRIu64,
		    opt, arg, min, max);
	return v;
}

double
opt_double(const char *opt, const char *arg, double min, double max)
{
	double v;
	if (!parse_double(arg, &v) || v < min || v > max)
		wa_usage_error("%s: '%s' is not a number from %g to %g", opt, arg, min, max);
	return v;
}

int
opt_rename(int opt, const struct opt_renamed *table)
{
	for (; table->old; table++)
		if (table->old == opt) {
			wa_warn("-%c is now %s; the old spelling goes in the next release",
			    table->old, table->spelling);
			return table->now;
		}
	return opt;
}

void
format_time(int64_t t, const char *fmt, char *out, size_t size)
{
	time_t tt = (time_t)t;
	struct tm tm;
	/* The callers' formats are checked where they are written (the
	 * attribute in opt.h). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	if (!gmtime_r(&tt, &tm) || strftime(out, size, fmt, &tm) == 0)
		snprintf(out, size, "%" PRId64, t);
#pragma GCC diagnostic pop
}
