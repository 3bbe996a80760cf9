/* The fetch log of wa-fetch (man/wa-formats.5, "Fetch log"): writing a
 * row, and reading an earlier log for change detection (-P) or to resume
 * an interrupted run (--resume). */
#ifndef WA_FETCHLOG_H
#define WA_FETCHLOG_H

#include <stdint.h>
#include <stdio.h>

#include "strmap.h"

/* The columns, in their order. */
enum fetchlog_column {
	FETCHLOG_URL, FETCHLOG_TIME, FETCHLOG_STATUS, FETCHLOG_MIME, FETCHLOG_BYTES,
	FETCHLOG_DIGEST, FETCHLOG_LAST_MODIFIED, FETCHLOG_ETAG, FETCHLOG_CHANGED,
	FETCHLOG_REDIRECT, FETCHLOG_ROBOTS, FETCHLOG_COLUMNS
};

struct fetch_row {
	const char *url;
	int64_t time;		/* -1: not fetched */
	const char *status;	/* "200", "timeout", ... */
	const char *mime;	/* NULL: none */
	int64_t bytes;		/* -1: no response */
	const char *digest;	/* NULL: none */
	int64_t last_modified;	/* -1: none */
	const char *etag;	/* NULL: none */
	int changed;		/* 1, 0, or -1 for '-' */
	const char *redirect;	/* NULL: none */
	const char *robots;	/* "allow", "disallow" or NULL */
	/* Written as columns 12 and 13 only when retried is not NULL: a row
	 * of a URL that was not retried keeps the 11 columns. */
	unsigned attempts;	/* the URL's requests that came to an end */
	const char *retried;	/* the statuses of those retried, "503,503" */
};

/* Writes row as one TSV line of 11 columns, 13 if it was retried; a tab,
 * CR or LF inside a text field (an ETag may hold one) becomes a space. */
void fetchlog_write(FILE *fp, const struct fetch_row *row);
/* The same line in a malloc'ed string. */
char *fetchlog_format(const struct fetch_row *row);

/* What a previous run learnt about a URL (the last row for it). */
struct fetch_prev {
	int64_t time;
	char *status;
	char *mime;
	int64_t bytes;
	char *digest;
	int64_t last_modified;
	char *etag;
	char *redirect;
};

/* Loads the rows of log into map, keyed by URL (column 1); a row that
 * is no fetch log row stops the tool. */
void fetchlog_load_previous(const char *path, struct strmap *map);
/* Loads the URLs of log that have an outcome, that is every row but the
 * interrupted ones, into set (the values are not used). */
void fetchlog_load_done(const char *path, struct strmap *set);
void fetchlog_prev_free(void *prev);

#endif
