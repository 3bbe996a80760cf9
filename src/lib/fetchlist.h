/* The fetch list (man/wa-formats.5, "Fetch list"): url, reason, priority,
 * due, written by wa-schedule in fetch order and read by wa-fetch. */
#ifndef WA_FETCHLIST_H
#define WA_FETCHLIST_H

#include <stdint.h>
#include <stdio.h>

#include "tsv.h"

enum { FETCHLIST_URL, FETCHLIST_REASON, FETCHLIST_PRIORITY, FETCHLIST_DUE };

/* Writes one row to fp; due < 0 is written '-' (no due time). */
void fetchlist_write(FILE *fp, const char *url, const char *reason, uint64_t priority,
    int64_t due);

/* Opens path (stdin if NULL or "-") as a fetch list for reading.  Only the
 * URL column is required, so that a plain list of URLs, one a line, is a
 * fetch list too; the reader checks the URLs itself, since a bad one is
 * still a row of the fetch log. */
struct tsv *fetchlist_open(const char *path);

#endif
