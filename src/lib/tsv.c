#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "ascii.h"
#include "msg.h"
#include "tsv.h"
#include "utf8.h"

#define READ_BLOCK (1u << 20)
#define ZIN_BLOCK (256u << 10)

struct tsv_private {
	int fd;
	bool gzip, gzip_ended, eof;
	z_stream z;
	unsigned char *zin;
	uint64_t raw_offset;		/* compressed bytes consumed, for messages */

	char *buf;
	size_t cap, start, end, scanned;
	bool skipping;			/* inside an over-long line */

	size_t min_cols, max_cols, max_line;
	struct tsv_row row;		/* the current row's columns */
	unsigned flags;

	long sorted_col;
	bool unique;
	char *prev;
	size_t prev_len, prev_cap;
	bool have_prev;
	uint64_t url_cols;		/* bit i: column i is a URL */

	/* The first rejections, held until the input ends: an input whose
	 * every line is rejected is then refused with one line, not a list. */
	char *held[TSV_SHOWN_REJECTS];
	size_t nheld;
};

static void
show_held(struct tsv_private *p)
{
	for (size_t i = 0; i < p->nheld; i++) {
		wa_warn("%s", p->held[i]);
		free(p->held[i]);
	}
	p->nheld = 0;
}

_Noreturn void
tsv_die(struct tsv *t, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	show_held(t->p);
	wa_die("%s:%llu: %s", t->name, (unsigned long long)t->line, msg);
}

void
tsv_reject(struct tsv *t, const char *fmt, ...)
{
	struct tsv_private *p = t->p;
	char msg[512];
	va_list ap;
	t->rejected++;
	if (!(p->flags & TSV_STRICT) && t->rejected > TSV_SHOWN_REJECTS)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (p->flags & TSV_STRICT)
		wa_die("%s:%llu: %s", t->name, (unsigned long long)t->line, msg);
	p->held[p->nheld++] = wa_asprintf("%s:%llu: %s", t->name, (unsigned long long)t->line,
	    msg);
}

static size_t
read_raw(struct tsv *t, void *dst, size_t n)
{
	for (;;) {
		ssize_t r = read(t->p->fd, dst, n);
		if (r >= 0)
			return (size_t)r;
		if (errno != EINTR)
			wa_die_errno("%s: read error", t->name);
	}
}

static bool
gzip_magic(const unsigned char *b, size_t n)
{
	return n >= 2 && b[0] == 0x1f && b[1] == 0x8b;
}

uint64_t
tsv_text_bytes(const char *path)
{
	struct stat st;
	unsigned char magic[2];
	if (!path || strcmp(path, "-") == 0)
		return UINT64_MAX;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return UINT64_MAX;
	ssize_t got = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ?
	    pread(fd, magic, sizeof magic, 0) : -1;
	close(fd);
	return got < 0 || gzip_magic(magic, (size_t)got) ? UINT64_MAX : (uint64_t)st.st_size;
}

/* The first bytes decide between gzip and plain text. */
static void
detect_gzip(struct tsv *t)
{
	struct tsv_private *p = t->p;
	p->zin = wa_malloc(ZIN_BLOCK);
	size_t got = 0, r;
	while (got < 2 && (r = read_raw(t, p->zin + got, ZIN_BLOCK - got)) > 0)
		got += r;
	if (gzip_magic(p->zin, got)) {
		p->gzip = true;
		if (inflateInit2(&p->z, 15 + 32) != Z_OK)
			wa_die("%s: cannot start zlib", t->name);
		p->z.next_in = p->zin;
		p->z.avail_in = (uInt)got;
		return;
	}
	memcpy(p->buf, p->zin, got);	/* the buffer is larger than ZIN_BLOCK */
	p->end = got;
	p->eof = got == 0;
	free(p->zin);
	p->zin = NULL;
}

struct tsv *
tsv_open(const char *path, size_t min_cols, size_t max_cols, unsigned flags)
{
	struct tsv *t = wa_calloc(1, sizeof *t);
	struct tsv_private *p = t->p = wa_calloc(1, sizeof *p);
	if (!path || strcmp(path, "-") == 0) {
		t->name = "stdin";
		p->fd = STDIN_FILENO;
	} else {
		t->name = path;
		p->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (p->fd < 0)
			wa_die_errno("%s", path);
		posix_fadvise(p->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	}
	p->min_cols = min_cols ? min_cols : 1;
	p->max_cols = max_cols;
	p->flags = flags;
	p->max_line = TSV_MAX_LINE_DEFAULT;
	p->cap = READ_BLOCK;
	p->buf = wa_malloc(p->cap);
	p->sorted_col = -1;
	detect_gzip(t);
	return t;
}

void
tsv_row_free(struct tsv_row *row)
{
	free(row->col);
	free(row->len);
	*row = (struct tsv_row){ 0 };
}

void
tsv_set_max_line(struct tsv *t, size_t bytes)
{
	t->p->max_line = bytes;
}

void
tsv_check_sorted(struct tsv *t, size_t col, bool unique)
{
	t->p->sorted_col = (long)col;
	t->p->unique = unique;
}

void
tsv_check_url(struct tsv *t, size_t col)
{
	if (col >= 64)
		wa_die("internal error: URL column %zu out of range", col);
	t->p->url_cols |= (uint64_t)1 << col;
}

static size_t
read_gzip(struct tsv *t, char *dst, size_t n)
{
	struct tsv_private *p = t->p;
	p->z.next_out = (unsigned char *)dst;
	p->z.avail_out = (uInt)n;
	while (p->z.avail_out == n) {
		if (p->z.avail_in == 0) {
			size_t r = read_raw(t, p->zin, ZIN_BLOCK);
			if (r == 0) {
				if (!p->gzip_ended)
					wa_die("%s: truncated gzip data at byte %llu", t->name,
					    (unsigned long long)p->raw_offset);
				p->eof = true;
				break;
			}
			p->z.next_in = p->zin;
			p->z.avail_in = (uInt)r;
		}
		if (p->gzip_ended) {	/* another gzip member follows */
			inflateReset(&p->z);
			p->gzip_ended = false;
		}
		uInt before = p->z.avail_in;
		int rc = inflate(&p->z, Z_NO_FLUSH);
		p->raw_offset += before - p->z.avail_in;
		if (rc == Z_STREAM_END)
			p->gzip_ended = true;
		else if (rc != Z_OK && rc != Z_BUF_ERROR)
			wa_die("%s: corrupt gzip data near byte %llu: %s", t->name,
			    (unsigned long long)p->raw_offset, p->z.msg ? p->z.msg : "error");
	}
	return n - p->z.avail_out;
}

/* Appends input to the buffer, first moving the unread part to its start
 * and growing it for a line up to max_line. */
static void
fill(struct tsv *t)
{
	struct tsv_private *p = t->p;
	if (p->start > 0) {
		memmove(p->buf, p->buf + p->start, p->end - p->start);
		p->end -= p->start;
		p->scanned -= p->start;
		p->start = 0;
	}
	if (p->cap - p->end < READ_BLOCK / 2) {
		p->cap *= 2;
		p->buf = wa_realloc(p->buf, p->cap);
	}
	char *dst = p->buf + p->end;
	size_t room = p->cap - p->end;
	if (p->gzip) {
		p->end += read_gzip(t, dst, room);
	} else {
		size_t got = read_raw(t, dst, room);
		p->eof = got == 0;
		p->end += got;
	}
}

/* Whether column i of row is a URL; if not, why. */
static bool
check_url_field(const struct tsv_row *row, size_t i, char *why)
{
	const unsigned char *s = (const unsigned char *)row->col[i];
	if (!*s) {
		snprintf(why, TSV_WHY_SIZE, "empty URL in column %zu", i + 1);
		return false;
	}
	/* Eight bytes at a time (Mycroft's tests on a word); the offending
	 * byte is looked for only on error. */
	size_t n = row->len[i], k = 0;
	uint64_t bad = 0, high = 0, ones = 0x0101010101010101ULL, tops = ones << 7;
	for (; k + 8 <= n; k += 8) {
		uint64_t w, del;
		memcpy(&w, s + k, 8);
		del = w ^ 0x7f * ones;
		/* a byte below 0x21, a byte 0x7f (Mycroft's "has less") */
		bad |= ((w - 0x21 * ones) & ~w & tops) | ((del - ones) & ~del & tops);
		high |= w;
	}
	for (; k < n; k++) {
		bad |= (s[k] <= 0x20) | (s[k] == 0x7f);
		high |= s[k];
	}
	if (bad) {
		k = 0;
		while (s[k] > 0x20 && s[k] != 0x7f)
			k++;
		snprintf(why, TSV_WHY_SIZE,
		    "URL in column %zu has a space or control byte at offset %zu", i + 1, k);
		return false;
	}
	long at = high & 0x8080808080808080ULL ? utf8_invalid_at((const char *)s, n) : -1;
	if (at >= 0) {
		snprintf(why, TSV_WHY_SIZE, "URL in column %zu has invalid UTF-8 at offset %ld",
		    i + 1, at);
		return false;
	}
	/* An absolute URL starts with its scheme (RFC 3986, section 3.1):
	 * a number or a path in the column is the wrong file's. */
	size_t scheme = 1;
	while (is_alpha(s[scheme]) || is_digit(s[scheme]) || s[scheme] == '+' ||
	    s[scheme] == '-' || s[scheme] == '.')
		scheme++;
	if (!is_alpha(*s) || s[scheme] != ':') {
		snprintf(why, TSV_WHY_SIZE, "not a URL in column %zu (no scheme): %.80s", i + 1, s);
		return false;
	}
	return true;
}

static void
check_order(struct tsv *t)
{
	struct tsv_private *p = t->p;
	const char *key = t->col[p->sorted_col];
	size_t len = t->len[p->sorted_col];
	if (p->have_prev) {
		size_t n = len < p->prev_len ? len : p->prev_len;
		int c = memcmp(key, p->prev, n);
		if (c == 0)
			c = (len > p->prev_len) - (len < p->prev_len);
		if (c < 0 || (c == 0 && p->unique))
			tsv_die(t, "not sorted: column %ld '%.200s' %s '%.200s' on the line before "
			    "(sort with LC_ALL=C sort -t '<TAB>' -k%ld,%ld)",
			    p->sorted_col + 1, key, c < 0 ? "sorts before" : "repeats",
			    p->prev, p->sorted_col + 1, p->sorted_col + 1);
	}
	if (len + 1 > p->prev_cap) {
		p->prev_cap = len + 1 > 2 * p->prev_cap ? len + 1 : 2 * p->prev_cap;
		p->prev = wa_realloc(p->prev, p->prev_cap);
	}
	memcpy(p->prev, key, len + 1);
	p->prev_len = len;
	p->have_prev = true;
}

const char *
tsv_split(const struct tsv *t, char *line, size_t len, struct tsv_row *row,
    char why[TSV_WHY_SIZE])
{
	const struct tsv_private *p = t->p;
	if (len > p->max_line) {
		snprintf(why, TSV_WHY_SIZE, "line longer than %zu bytes", p->max_line);
		return why;
	}
	if (len == 0)
		return "empty line";
	const char *nul = memchr(line, '\0', len);
	if (nul) {
		snprintf(why, TSV_WHY_SIZE, "NUL byte at offset %td", nul - line);
		return why;
	}
	if (line[len - 1] == '\r')
		return "CR LF line end (lines end in \\n only)";
	line[len] = '\0';
	row->ncol = 0;
	for (char *f = line;;) {
		if (row->ncol == row->cap) {
			row->cap = row->cap ? 2 * row->cap : 8;
			row->col = wa_reallocarray(row->col, row->cap, sizeof *row->col);
			row->len = wa_reallocarray(row->len, row->cap, sizeof *row->len);
		}
		char *tab = memchr(f, '\t', (size_t)(line + len - f));
		row->col[row->ncol] = f;
		row->len[row->ncol++] = (size_t)((tab ? tab : line + len) - f);
		if (!tab)
			break;
		*tab = '\0';
		f = tab + 1;
	}
	size_t n = row->ncol;
	if (n < p->min_cols || (p->max_cols && n > p->max_cols)) {
		const char *plural = n == 1 ? "" : "s";
		if (p->min_cols == p->max_cols)
			snprintf(why, TSV_WHY_SIZE, "found %zu column%s, expected %zu", n, plural,
			    p->min_cols);
		else if (n < p->min_cols)
			snprintf(why, TSV_WHY_SIZE, "found %zu column%s, expected at least %zu", n,
			    plural, p->min_cols);
		else
			snprintf(why, TSV_WHY_SIZE, "found %zu column%s, expected at most %zu", n,
			    plural, p->max_cols);
		return why;
	}
	for (uint64_t m = p->url_cols; m; m &= m - 1) {
		size_t i = (size_t)__builtin_ctzll(m);
		if (i < n && !check_url_field(row, i, why))
			return why;
	}
	return NULL;
}

/* Splits line[0..len) into fields; false if the row was rejected. */
static bool
split_row(struct tsv *t, char *line, size_t len)
{
	struct tsv_private *p = t->p;
	char why[TSV_WHY_SIZE];
	const char *bad = tsv_split(t, line, len, &p->row, why);
	t->col = p->row.col;
	t->len = p->row.len;
	t->ncol = p->row.ncol;
	if (bad) {
		tsv_reject(t, "%s", bad);
		return false;
	}
	if (p->sorted_col >= 0)
		check_order(t);
	return true;
}

bool
tsv_next_block(struct tsv *t, size_t want, struct tsv_block *b)
{
	struct tsv_private *p = t->p;
	if (p->sorted_col >= 0)
		wa_die("internal error: %s: blocks of a sorted stream", t->name);
	for (;;) {
		size_t avail = p->end - p->start;
		char *base = p->buf + p->start;
		if (avail == 0 && p->eof)
			return false;
		if (p->skipping) {
			/* The rest of a line too long to hold, up to its end. */
			char *nl = memchr(base, '\n', avail);
			if (!nl && !p->eof) {
				p->start = p->scanned = p->end;
				fill(t);
				continue;
			}
			p->start = nl ? (size_t)(nl + 1 - p->buf) : p->end;
			p->scanned = p->start;
			p->skipping = false;
			*b = (struct tsv_block){ .long_line = true };
			return true;
		}
		/* Whole lines, as many as make want bytes if there are. */
		char *last = avail ? memrchr(base, '\n', avail < want ? avail : want) : NULL;
		if (!last && avail > want)
			last = memchr(base + want, '\n', avail - want);
		if (last || (p->eof && avail)) {
			size_t len = last ? (size_t)(last + 1 - base) : avail;
			*b = (struct tsv_block){ .text = base, .len = len };
			p->start += len;
			p->scanned = p->start;
			return true;
		}
		if (avail > p->max_line) {
			p->skipping = true;
			continue;
		}
		/* More input; the buffer grows up to a line of max_line. */
		p->scanned = p->end;
		fill(t);
	}
}

/* Rejects the line begun at p->start, whose end is skipped then: its
 * message is tsv_split's. */
static void
reject_long_line(struct tsv *t)
{
	struct tsv_private *p = t->p;
	char why[TSV_WHY_SIZE];
	t->line++;
	tsv_reject(t, "%s", tsv_split(t, NULL, SIZE_MAX, &p->row, why));
	p->skipping = true;
}

bool
tsv_next(struct tsv *t)
{
	struct tsv_private *p = t->p;
	for (;;) {
		char *base = p->buf + p->start;
		char *nl = memchr(p->buf + p->scanned, '\n', p->end - p->scanned);
		size_t len;
		if (nl) {
			len = (size_t)(nl - base);
		} else if (p->eof) {
			if (p->start == p->end)
				return false;
			len = p->end - p->start;	/* a last line without \n */
		} else if (p->end - p->start > p->max_line) {
			if (!p->skipping)
				reject_long_line(t);
			p->start = p->scanned = p->end;
			fill(t);
			continue;
		} else {
			p->scanned = p->end;
			fill(t);
			continue;
		}
		if (len > p->max_line && !p->skipping)
			reject_long_line(t);
		p->start += len + (nl != NULL);
		p->scanned = p->start;
		if (p->skipping) {
			p->skipping = false;
			continue;
		}
		t->line++;
		if (split_row(t, base, len)) {
			t->rows++;
			return true;
		}
	}
}

void
tsv_discard(struct tsv *t)
{
	struct tsv_private *p = t->p;
	for (size_t i = 0; i < p->nheld; i++)
		free(p->held[i]);
	if (p->gzip)
		inflateEnd(&p->z);
	if (p->fd != STDIN_FILENO)
		close(p->fd);
	free(p->zin);
	free(p->buf);
	free(p->prev);
	tsv_row_free(&p->row);
	free(p);
	free(t);
}

void
tsv_close(struct tsv *t)
{
	struct tsv_private *p = t->p;
	/* Nothing of such an input is usable: it is the wrong file (a WARC,
	 * another tool's stream, CR LF line ends), and the tool must not go
	 * on to replace its output with an empty one. */
	if (t->rejected && t->rejected >= t->line) {
		char first[700];
		unsigned long long n = t->rejected;
		snprintf(first, sizeof first, "%s", p->held[0]);
		tsv_discard(t);
		wa_die("%s (no line usable: all %llu rejected)", first, n);
	}
	show_held(p);
	if (t->rejected)
		wa_warn("%s: %llu line%s rejected%s", t->name, (unsigned long long)t->rejected,
		    t->rejected == 1 ? "" : "s",
		    t->rejected > TSV_SHOWN_REJECTS ? " (the first ones are shown above)" : "");
	tsv_discard(t);
}
