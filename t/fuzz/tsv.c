/* Fuzz target: TSV reading (src/lib/tsv.h), plain and gzip.
 *
 * Input: a mode byte (plain, one gzip member, or two members split where
 * the second byte says), a byte of reader settings (columns, a URL
 * column, the line limit), then the text.  The reader's rows are compared
 * with those of a model written here from man/wa-formats.5 and tsv.h:
 * lines end in LF; a line is rejected if longer than the limit, empty,
 * holding a NUL, ending in CR, with too few or too many columns, or with
 * a URL column that is empty, holds a byte <= 0x20 or 0x7f, is no valid
 * UTF-8 or does not start with a scheme (RFC 3986: a letter, then
 * letters, digits, '+', '-' or '.', then ':').  An input whose every line
 * is rejected is fatal in tsv_close by design, so the target closes such
 * a reader with tsv_discard.  Checks, beyond no crash and no sanitizer
 * finding:
 *   - the reader returns exactly the model's rows, field by field, with
 *     their line numbers, and rejects as many lines;
 *   - no field holds a tab, a LF or a NUL (by construction of the model
 *     and checked directly);
 *   - utf8_invalid_at agrees with an independent validator (the table of
 *     well-formed byte sequences, Unicode 15 table 3-7).
 * Gzip data the fuzzer damages is fatal by design (tsv.h), so damage is
 * left out: the plain mode skips texts that start with the gzip magic. */
#include <ctype.h>
#include <stdbool.h>
#include <string.h>
#include <zlib.h>

#include "fuzz.h"
#include "tsv.h"
#include "utf8.h"

/* Unicode 15 table 3-7, the multi-byte rows: a lead byte in
 * [lead_lo, lead_hi] starts a sequence of len bytes whose second byte is
 * in [lo, hi] and whose others are in 80..BF. */
struct utf8_sequence {
	unsigned char lead_lo, lead_hi, len, lo, hi;
};

static const struct utf8_sequence utf8_sequences[] = {
	{ 0xc2, 0xdf, 2, 0x80, 0xbf },
	{ 0xe0, 0xe0, 3, 0xa0, 0xbf },
	{ 0xe1, 0xec, 3, 0x80, 0xbf },
	{ 0xed, 0xed, 3, 0x80, 0x9f },
	{ 0xee, 0xef, 3, 0x80, 0xbf },
	{ 0xf0, 0xf0, 4, 0x90, 0xbf },
	{ 0xf1, 0xf3, 4, 0x80, 0xbf },
	{ 0xf4, 0xf4, 4, 0x80, 0x8f },
};

/* The offset of the first byte of s[0..n) that is not part of a
 * well-formed UTF-8 sequence, or -1. */
static long
tsv_utf8_model(const unsigned char *s, size_t n)
{
	const struct utf8_sequence *end = utf8_sequences + sizeof utf8_sequences /
	    sizeof *utf8_sequences;
	size_t i = 0;
	while (i < n) {
		unsigned char c = s[i];
		if (c <= 0x7f) {
			i++;
			continue;
		}
		const struct utf8_sequence *q = utf8_sequences;
		while (q < end && (c < q->lead_lo || c > q->lead_hi))
			q++;
		if (q == end)
			return (long)i;
		size_t len = q->len;
		if (i + len > n || s[i + 1] < q->lo || s[i + 1] > q->hi)
			return (long)i;
		for (size_t k = 2; k < len; k++)
			if (s[i + k] < 0x80 || s[i + k] > 0xbf)
				return (long)i;
		i += len;
	}
	return -1;
}

static bool
tsv_url_ok(const char *f, size_t n)
{
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)f[i] <= 0x20 || f[i] == 0x7f)
			return false;
	if (tsv_utf8_model((const unsigned char *)f, n) >= 0)
		return false;
	size_t k = 0;
	if (!isalpha((unsigned char)f[0]))
		return false;
	while (++k < n && (isalnum((unsigned char)f[k]) || strchr("+-.", f[k])))
		;
	return k < n && f[k] == ':';
}

/* gzip of text[0..n) as one member, appended to out at *len. */
static void
tsv_gzip_member(const unsigned char *text, size_t n, unsigned char *out, size_t *len,
    size_t cap)
{
	z_stream z = { 0 };
	if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		abort();
	z.next_in = (unsigned char *)text;
	z.avail_in = (uInt)n;
	z.next_out = out + *len;
	z.avail_out = (uInt)(cap - *len);
	if (deflate(&z, Z_FINISH) != Z_STREAM_END)
		abort();
	*len = cap - z.avail_out;
	deflateEnd(&z);
}

static int
tsv_fuzz_one(const uint8_t *data, size_t size)
{
	static const size_t max_lines[] = { 8, 64, 300, TSV_MAX_LINE_DEFAULT };
	if (size < 2)
		return 0;
	unsigned mode = data[0], settings = data[1];
	const char *text = (const char *)data + 2;
	size_t n = size - 2;
	size_t min_cols = 1 + (settings & 3), max_cols = (settings >> 2) & 3;
	if (max_cols)
		max_cols = min_cols + max_cols - 1;
	bool url_col = settings & 0x10;
	size_t max_line = max_lines[(settings >> 5) & 3];

	fuzz_check(utf8_invalid_at(text, n) == tsv_utf8_model((const unsigned char *)text, n),
	    "utf8_invalid_at says %ld, the model %ld", utf8_invalid_at(text, n),
	    tsv_utf8_model((const unsigned char *)text, n));

	unsigned char *file = (unsigned char *)text;
	size_t file_len = n;
	switch (mode % 3) {
	case 0:
		if (n >= 2 && file[0] == 0x1f && file[1] == 0x8b)
			return 0;
		break;
	default: {
		size_t cap = 2 * n + 256, split = mode % 3 == 2 ? (size_t)(mode / 3) % (n + 1) : n;
		file = wa_malloc(cap);
		file_len = 0;
		tsv_gzip_member((const unsigned char *)text, split, file, &file_len, cap);
		if (split < n)
			tsv_gzip_member((const unsigned char *)text + split, n - split, file,
			    &file_len, cap);
	}
	}
	int fd;
	char path[64];
	fuzz_path(file, file_len, &fd, path);
	if (file != (unsigned char *)text)
		free(file);

	struct tsv *t = tsv_open(path, min_cols, max_cols, 0);
	tsv_set_max_line(t, max_line);
	if (url_col)
		tsv_check_url(t, 0);
	uint64_t line_no = 0, rejected = 0, rows = 0;
	for (size_t start = 0; start < n;) {
		const char *nl = memchr(text + start, '\n', n - start);
		size_t len = nl ? (size_t)(nl - text) - start : n - start;
		const char *line = text + start;
		start += len + 1;
		line_no++;
		size_t ncol = 1;
		for (size_t i = 0; i < len; i++)
			ncol += line[i] == '\t';
		size_t first = memchr(line, '\t', len) ? (size_t)((const char *)memchr(line, '\t',
		    len) - line) : len;
		if (len > max_line || len == 0 || memchr(line, '\0', len) ||
		    line[len - 1] == '\r' || ncol < min_cols || (max_cols && ncol > max_cols) ||
		    (url_col && !tsv_url_ok(line, first))) {
			rejected++;
			continue;
		}
		fuzz_check(tsv_next(t), "line %llu: the reader ended, the model has a row",
		    (unsigned long long)line_no);
		rows++;
		fuzz_check(t->line == line_no, "row at line %llu, the model's at %llu",
		    (unsigned long long)t->line, (unsigned long long)line_no);
		fuzz_check(t->ncol == ncol, "line %llu: %zu columns, the model %zu",
		    (unsigned long long)line_no, t->ncol, ncol);
		const char *f = line;
		for (size_t c = 0; c < ncol; c++) {
			size_t flen = strcspn(t->col[c], "\t\n");
			fuzz_check(strchr(t->col[c], '\t') == NULL && strchr(t->col[c], '\n') == NULL,
			    "line %llu column %zu holds a tab or LF", (unsigned long long)line_no, c);
			size_t left = (size_t)(line + len - f);
			fuzz_check(flen <= left && memcmp(t->col[c], f, flen) == 0 &&
			    (flen == left || f[flen] == '\t'), "line %llu column %zu differs",
			    (unsigned long long)line_no, c);
			f += flen + 1;
		}
	}
	fuzz_check(!tsv_next(t), "the reader has a row at line %llu past the model's end",
	    (unsigned long long)t->line);
	fuzz_check(t->rows == rows && t->rejected == rejected,
	    "%llu rows and %llu rejected, the model %llu and %llu",
	    (unsigned long long)t->rows, (unsigned long long)t->rejected,
	    (unsigned long long)rows, (unsigned long long)rejected);
	if (rejected && !rows)
		tsv_discard(t);
	else
		tsv_close(t);
	close(fd);
	return 0;
}

FUZZ_TARGET(tsv_fuzz_one)
