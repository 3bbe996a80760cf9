/* The links and pages streams of man/wa-formats.5 ("Links", "Pages"):
 * the writing of their rows, for wa-extract, and what the columns of a
 * row read back mean, for the tools that read them.  The rows are read
 * with the TSV reader (tsv.h); this module opens the streams with the
 * checks of their columns, and names the rows it finds unusable in the
 * words every reader uses.  What a tool does with a row is the tool's. */
#ifndef WA_LINKSTREAM_H
#define WA_LINKSTREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pagetype.h"
#include "tsv.h"

/* Links: src, dst, how; a row may have more columns, and an older one
 * no how. */
enum { LINKS_SRC, LINKS_DST, LINKS_HOW };
#define LINKS_MIN_COLUMNS 2

/* Appended to a how token when the target is an XML suspect ("a+xml"). */
#define LINKS_XML_SUFFIX "+xml"
/* The how of a sitemap's <loc> and of a robots.txt Sitemap line: a hint
 * of a page, no link; with LINKS_XML_SUFFIX it still begins so. */
#define LINKS_HOW_SITEMAP "sitemap"

/* A row of a links stream, pointing into the reader's row. */
struct link_row {
	const char *src, *dst;	/* URLs as written */
	bool xml_target;	/* how ends in LINKS_XML_SUFFIX */
	/* how begins with LINKS_HOW_SITEMAP: the target is a hint of a page,
	 * the row no link between two pages. */
	bool hint;
};

/* Opens path (stdin if NULL or "-") as a links stream whose src and dst
 * must be URLs (tsv_check_url); flags are those of tsv_open. */
struct tsv *links_open(const char *path, unsigned flags);
/* A row of a links stream, its ncol columns (at least LINKS_MIN_COLUMNS)
 * as a tsv reader split them, into row. */
void links_row(char *const *col, size_t ncol, struct link_row *row);
/* Rejects the current row of t, whose URL url in column col (LINKS_SRC or
 * LINKS_DST) cannot be made canonical for the reason why (url_canon):
 * "source: WHY: URL" or "destination: WHY: URL", the URL cut at 200
 * bytes. */
void links_reject_url(struct tsv *t, int col, const char *why, const char *url);
/* Writes a row to f: src, dst, how. */
void links_write(FILE *f, const char *src, const char *dst, const char *how);

/* Pages: url, type, time, digest, outdeg, root, doctype. */
enum { PAGES_URL, PAGES_TYPE };
#define PAGES_MIN_COLUMNS 2

/* A row of a pages stream. */
struct page_row {
	const char *url;
	enum page_type type;
	bool timed;		/* time holds when it was fetched, Unix seconds */
	int64_t time;
	const char *digest;	/* NULL or "" if unknown */
	size_t outdeg;
	const char *root, *doctype;	/* "" if none */
};

/* Opens path (stdin if NULL or "-") as a pages stream whose url must be a
 * URL (tsv_check_url); rows that cannot be used are skipped, as tsv.h
 * says. */
struct tsv *pages_open(const char *path);
/* The type that a type column names, or -1 if it names none a fetched
 * page has (an unknown name, or xml-suspect). */
int pages_type(const char *name);
/* Rejects the current row of t, whose type column name pages_type
 * refused. */
void pages_reject_type(struct tsv *t, const char *name);
/* Rejects the current row of t, whose url cannot be made canonical for
 * the reason why (url_canon): "URL: WHY: URL", cut at 200 bytes. */
void pages_reject_url(struct tsv *t, const char *why, const char *url);
/* Writes row to f. */
void pages_write(FILE *f, const struct page_row *row);

#endif
