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

/* The rows of an input may instead be split on other threads: the
 * reader hands out blocks of whole lines in order (tsv_next_block), any
 * thread splits their lines (tsv_split), and the caller, taking the rows
 * back in order, sets line and rows and calls tsv_reject for those that
 * are unusable, so that the messages and the counts are tsv_next's.  Not
 * for a stream checked for order. */
struct tsv_block {
	char *text;		/* whole lines, the last one's \n missing at the end of input */
	size_t len;		/* valid until the next call */
	/* No text: a line longer than the buffer, skipped; tsv_split(t,
	 * NULL, SIZE_MAX, ...) gives the reason to reject it. */
	bool long_line;
};
/* The next lines, about want bytes of them and at least one; false at
 * the end of the input. */
bool tsv_next_block(struct tsv *t, size_t want, struct tsv_block *b);

/* The columns of a row split by tsv_split, which reuses the arrays. */
struct tsv_row {
	char **col;
	size_t *len;
	size_t ncol, cap;
};
#define TSV_WHY_SIZE 256
/* Splits line[0..len), a line without its \n of t's input, in place into
 * row's columns, with tsv_next's checks; NULL, or why the row is unusable
 * (in why, or a constant). */
const char *tsv_split(const struct tsv *t, char *line, size_t len, struct tsv_row *row,
    char why[TSV_WHY_SIZE]);
void tsv_row_free(struct tsv_row *row);
/* Rejects the current row (the tool found it unusable). */
void tsv_reject(struct tsv *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Dies with "FILE:LINE: message". */
_Noreturn void tsv_die(struct tsv *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Closes and reports the rejected rows; dies if every line was rejected. */
void tsv_close(struct tsv *t);
/* Closes without a word: for a caller that judged the rows itself. */
void tsv_discard(struct tsv *t);

#endif
