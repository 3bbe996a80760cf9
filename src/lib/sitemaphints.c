/* Sitemap hints: their datetimes, their change frequencies and their rows
 * (sitemaphints.h). */
#include <string.h>
#include <time.h>

#include "opt.h"
#include "sitemaphints.h"

/* The rate of each changefreq, in changes a day.  "always" (changes at
 * each access) is taken as every quarter of an hour, "never" (archived)
 * as once in ten years: a Gamma prior needs a finite nonzero mean. */
static const struct {
	const char *name;
	double rate;
} changefreqs[] = {
	{ "always", 96.0 }, { "hourly", 24.0 }, { "daily", 1.0 },
	{ "weekly", 1.0 / 7 }, { "monthly", 12.0 / 365.25 },
	{ "yearly", 1.0 / 365.25 }, { "never", 1.0 / 3652.5 },
};

static bool
is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* s[0..len) without the white space around it. */
static void
trim(const char **s, size_t *len)
{
	while (*len && is_space(**s)) {
		(*s)++;
		(*len)--;
	}
	while (*len && is_space((*s)[*len - 1]))
		(*len)--;
}

/* n decimal digits at *p into *v, advancing *p; false unless all are. */
static bool
digits(const char **p, const char *end, int n, int *v)
{
	*v = 0;
	if (end - *p < n)
		return false;
	for (int i = 0; i < n; i++, (*p)++) {
		if (**p < '0' || **p > '9')
			return false;
		*v = *v * 10 + (**p - '0');
	}
	return true;
}

/* Whether *p is c, advancing past it. */
static bool
take(const char **p, const char *end, char c)
{
	if (*p == end || **p != c)
		return false;
	(*p)++;
	return true;
}

static int
days_in_month(int y, int m)
{
	static const int days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
	return m == 2 && leap ? 29 : days[m - 1];
}

/* The time of day and zone after a 'T', hh:mm[:ss[.s+]]TZD, as the
 * seconds of the UTC day (negative or past a day by the zone's offset). */
static bool
time_of_day(const char *p, const char *end, int64_t *secs)
{
	int hh, mm, ss = 0, zh, zm;
	if (!digits(&p, end, 2, &hh) || !take(&p, end, ':') ||
	    !digits(&p, end, 2, &mm) || hh > 23 || mm > 59)
		return false;
	if (take(&p, end, ':')) {
		if (!digits(&p, end, 2, &ss) || ss > 59)
			return false;
		if (take(&p, end, '.')) {
			const char *start = p;
			while (p < end && *p >= '0' && *p <= '9')
				p++;
			if (p == start)
				return false;
		}
	}
	*secs = hh * 3600 + mm * 60 + ss;
	if (take(&p, end, 'Z'))
		return p == end;
	int sign = p < end && *p == '-' ? -1 : 1;
	if (!take(&p, end, '+') && !take(&p, end, '-'))
		return false;
	if (!digits(&p, end, 2, &zh) || !take(&p, end, ':') ||
	    !digits(&p, end, 2, &zm) || zh > 23 || zm > 59 || p != end)
		return false;
	*secs -= sign * (zh * 3600 + zm * 60);
	return true;
}

bool
w3c_datetime(const char *s, size_t len, int64_t *t)
{
	trim(&s, &len);
	const char *p = s, *end = s + len;
	int y, m = 1, d = 1;
	int64_t secs = 0;
	if (!digits(&p, end, 4, &y) || y < 1970)
		return false;
	if (take(&p, end, '-')) {
		if (!digits(&p, end, 2, &m) || m < 1 || m > 12)
			return false;
		if (take(&p, end, '-')) {
			if (!digits(&p, end, 2, &d) || d < 1 || d > days_in_month(y, m))
				return false;
			if (p < end && (!take(&p, end, 'T') ||
			    !time_of_day(p, end, &secs)))
				return false;
			p = end;
		}
	}
	if (p != end)
		return false;
	struct tm day = { .tm_year = y - 1900, .tm_mon = m - 1, .tm_mday = d };
	*t = (int64_t)timegm(&day) + secs;
	return *t >= 0;
}

double
changefreq_rate(const char *s, size_t len, char name[CHANGEFREQ_SIZE])
{
	trim(&s, &len);
	for (size_t i = 0; i < sizeof changefreqs / sizeof *changefreqs; i++)
		if (strlen(changefreqs[i].name) == len &&
		    memcmp(changefreqs[i].name, s, len) == 0) {
			memcpy(name, s, len);
			name[len] = '\0';
			return changefreqs[i].rate;
		}
	return 0;
}

void
hints_write(FILE *f, const struct hint_row *row)
{
	fprintf(f, "%s\t%s\t", row->url, row->sitemap);
	if (row->lastmod >= 0)
		fprintf(f, "%lld", (long long)row->lastmod);
	else
		putc('-', f);
	fprintf(f, "\t%s\n", *row->changefreq ? row->changefreq : "-");
}

bool
hints_parse(char *const *col, struct hint_row *row, const char **why)
{
	row->url = col[0];
	row->sitemap = col[1];
	row->lastmod = -1;
	*row->changefreq = '\0';
	if (strcmp(col[2], "-") != 0 &&
	    (!parse_i64(col[2], &row->lastmod) || row->lastmod < 0)) {
		*why = "lastmod is not a Unix time";
		return false;
	}
	if (strcmp(col[3], "-") != 0 &&
	    !changefreq_rate(col[3], strlen(col[3]), row->changefreq)) {
		*why = "changefreq is not always, hourly, daily, weekly, monthly, "
		    "yearly or never";
		return false;
	}
	return true;
}
