/* Streaming reader of TSV streams (man/wa-formats.5).
 *
 * Files or stdin, plain or gzip (detected by magic, multi-member), read in
 * large blocks.  Each row is split in place into NUL-terminated fields.
 * A row that cannot be used (too few or too many columns, a NUL byte, an
 * over-long line, a carriage return, a bad URL column, or whatever the tool
 * rejects with tsv_reject) is skipped and counted; tsv_close shows the
 * first few as "FILE:LINE: reason" and tells the count.  An input whose
 * every line is rejected is the wrong file: tsv_close dies naming its first
 * line, before the tool writes anything from it.  With TSV_STRICT the first
 * unusable row is fatal.  A sortedness violation is always fatal. */
#ifndef WA_TSV_H
#define WA_TSV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
	TSV_STRICT = 1,		/* an unusable row stops the tool */
};

#define TSV_MAX_LINE_DEFAULT (1u << 20)
#define TSV_SHOWN_REJECTS 5

struct tsv {
	const char *name;	/* the path, or "stdin" */
	uint64_t line;		/* current line number, from 1 */
	char **col;		/* the current row */
	size_t *len;		/* the lengths of its columns */
	size_t ncol;
	uint64_t rows;		/* rows returned so far */
	uint64_t rejected;	/* rows skipped */
	struct tsv_private *p;
};

/* path NULL or "-" reads stdin.  Rows need min_cols..max_cols columns;
 * max_cols 0 accepts any number of appended columns (man/wa-formats.5, "Text
 * streams": streams only grow at the end). */
struct tsv *tsv_open(const char *path, size_t min_cols, size_t max_cols, unsigned flags);
/* The bytes of text in the file at PATH, or UINT64_MAX when they are not
 * known before reading it: standard input ("-" or NULL), a pipe, gzip,
 * a file that cannot be opened (tsv_open says why). */
uint64_t tsv_text_bytes(const char *path);
void tsv_set_max_line(struct tsv *t, size_t bytes);
/* Column col must be non-decreasing in byte order (strictly increasing if
 * unique), as LC_ALL=C sort -t TAB -k N,N leaves it. */
void tsv_check_sorted(struct tsv *t, size_t col, bool unique);
/* Column col must be a URL: a scheme, valid UTF-8, no spaces or control
 * bytes. */
void tsv_check_url(struct tsv *t, size_t col);

/* Reads the next usable row; false at the end of the input. */
bool tsv_next(struct tsv *t);
/* Rejects the current row (the tool found it unusable). */
void tsv_reject(struct tsv *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Dies with "FILE:LINE: message". */
_Noreturn void tsv_die(struct tsv *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Closes and reports the rejected rows; dies if every line was rejected. */
void tsv_close(struct tsv *t);
/* Closes without a word: for a caller that judged the rows itself. */
void tsv_discard(struct tsv *t);

#endif
