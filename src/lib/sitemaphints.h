/* Sitemap hints (man/wa-formats.5, "Sitemap hints"): what a sitemap says
 * of each of its URLs (sitemaps.org protocol 0.9), its <lastmod> and its
 * <changefreq>, as wa-extract writes them and wa-lambda reads them.  The
 * format's writer, its row reader and the meaning of its values. */
#ifndef WA_SITEMAPHINTS_H
#define WA_SITEMAPHINTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Longest changefreq name, with its NUL. */
#define CHANGEFREQ_SIZE 8

/* One row: lastmod is -1 and changefreq "" when the sitemap gave none. */
struct hint_row {
	const char *url, *sitemap;
	int64_t lastmod;
	char changefreq[CHANGEFREQ_SIZE];
};

/* A W3C datetime (Wolf and Wicksteed, "Date and Time Formats", W3C note,
 * 1997): YYYY, YYYY-MM, YYYY-MM-DD, or YYYY-MM-DDThh:mm[:ss[.s+]]TZD with
 * TZD Z, +hh:mm or -hh:mm, from 1970 on, as Unix seconds (the fraction
 * dropped; a date alone is its first second, UTC), with white space
 * around it allowed; false for anything else. */
bool w3c_datetime(const char *s, size_t len, int64_t *t);

/* The rate in changes a day that a changefreq value (always, hourly,
 * daily, weekly, monthly, yearly, never; lower case, white space around
 * it allowed) stands for, written into name without the white space;
 * 0 if s is none of them. */
double changefreq_rate(const char *s, size_t len, char name[CHANGEFREQ_SIZE]);

void hints_write(FILE *f, const struct hint_row *row);

/* The columns of a row read (url, sitemap, lastmod, changefreq) into
 * row, pointing into them; false with *why set if a value is not what the
 * format says. */
bool hints_parse(char *const *col, struct hint_row *row, const char **why);

#endif
