/* WARC files read (warc.h), gzip or plain.  The reader keeps one record
 * in memory.  Damage is reported once per place ("FILE: offset N:
 * reason"), counted, and passed over: in gzip input to the next member,
 * in the records to the next "WARC/" at a line start or a member start. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libdeflate.h>
#include <zlib.h>

#include "msg.h"
#include "warc.h"

/* Longest record header accepted: real ones are a few hundred bytes. */
#define MAX_HEADER (1 << 20)
/* The input buffer holds whole gzip members for libdeflate, which
 * inflates only whole ones: real members are a few KB, the largest of a
 * crawl of documentation a few hundred.  It grows past this only to keep
 * the members handed out (warc_read_member), none larger. */
#define IN_SIZE (1 << 20)
/* gzip (RFC 1952): the smallest member; flags never set; a header CRC. */
#define GZIP_MIN 20
#define GZIP_FLAG_RESERVED 0xe0
#define GZIP_FLAG_HEADER_CRC 0x02
/* Inflate whole members when this much input is at hand (or the rest of
 * the file); a member not within it is streamed through zlib. */
#define WHOLE_MEMBER_INPUT (IN_SIZE / 4)
/* The output room of a member's first inflating: a handed-over buffer
 * (warc_reader_take_block) stays about that small. */
#define FIRST_OUTPUT_ROOM (1 << 19)
/* Larger members are streamed through zlib, whose memory stays bounded. */
#define WHOLE_MEMBER_MAX_OUTPUT (1 << 24)
#define OUT_CHUNK (1 << 16)

/* Where a gzip member's output begins in the decompressed stream.  A
 * break ends the output of a damaged member: no record may use bytes
 * before it that came from that member. */
struct mark {
	uint64_t upos;		/* decompressed stream offset */
	uint64_t coff;		/* the member's offset in the file */
	bool is_break;
};

struct warc_reader {
	char *name;		/* for messages */
	warc_problem_fn *on_problem;	/* NULL: wa_warn */
	void *problem_arg;
	FILE *fp;
	bool gz, in_eof, out_eof;
	uint64_t errors;
	unsigned char *in;	/* in_cap bytes */
	size_t in_cap, in_pos, in_len;
	uint64_t in_base;	/* file offset of in[0] */
	bool members;		/* members are handed out (warc_read_member) */
	uint64_t retain;	/* file offset of the first member kept for them */
	struct libdeflate_decompressor *whole;	/* whole members, quickly */
	z_stream zs;		/* the rest, and every error message */
	bool in_member;		/* inflate has begun a member */
	bool quiet_resync;	/* passing damaged gzip input already reported */
	uint64_t member_off;
	unsigned char *buf;	/* decompressed (or plain) bytes */
	size_t cap, pos, len;
	uint64_t ubase;		/* stream offset of buf[0] */
	struct mark *marks;
	size_t nmarks, marks_cap;
	struct warc_header_store header;	/* of the record read last */
	uint64_t max_block;	/* longer blocks are cut (warc_reader_max_block) */
	size_t keep;		/* the bytes kept of a cut block */
	unsigned char *cut;	/* those bytes of the last one */
};

static void __attribute__((format(printf, 3, 4)))
reader_error(struct warc_reader *r, uint64_t offset, const char *fmt, ...)
{
	char why[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	char *msg = wa_asprintf("%s: offset %" PRIu64 ": %s", r->name, offset, why);
	if (r->on_problem)
		r->on_problem(r->problem_arg, msg);
	else
		wa_warn("%s", msg);
	free(msg);
	r->errors++;
}

static void
add_mark(struct warc_reader *r, uint64_t coff, bool is_break)
{
	uint64_t upos = r->ubase + r->len;
	if (r->nmarks && r->marks[r->nmarks - 1].upos == upos) {
		/* Nothing came out of the previous member (an empty or a
		 * damaged one): the new one replaces it, a break stays. */
		r->marks[r->nmarks - 1].coff = coff;
		r->marks[r->nmarks - 1].is_break |= is_break;
		return;
	}
	if (r->nmarks == r->marks_cap) {
		r->marks_cap = r->marks_cap ? 2 * r->marks_cap : 16;
		r->marks = wa_reallocarray(r->marks, r->marks_cap, sizeof *r->marks);
	}
	r->marks[r->nmarks++] = (struct mark){ upos, coff, is_break };
}

/* Reads more input after in[in_len], dropping what is read but for the
 * members kept; false at the end of the input. */
static bool
read_input(struct warc_reader *r)
{
	if (r->in_eof)
		return false;
	size_t drop = r->in_pos;
	if (r->members && r->retain < r->in_base + drop)
		drop = (size_t)(r->retain - r->in_base);
	if (drop) {
		memmove(r->in, r->in + drop, r->in_len - drop);
		r->in_base += drop;
		r->in_len -= drop;
		r->in_pos -= drop;
	}
	if (r->in_len == r->in_cap) {
		if (r->in_pos == 0)
			return true;
		r->in_cap *= 2;
		r->in = wa_realloc(r->in, r->in_cap);
	}
	size_t n = fread(r->in + r->in_len, 1, r->in_cap - r->in_len, r->fp);
	if (n == 0) {
		if (ferror(r->fp))
			wa_die_errno("%s: read error", r->name);
		r->in_eof = true;
		return false;
	}
	r->in_len += n;
	return true;
}

static void
reserve(struct warc_reader *r, size_t more)
{
	if (r->cap - r->len >= more)
		return;
	size_t cap = r->cap ? r->cap : OUT_CHUNK;
	while (cap - r->len < more)
		cap *= 2;
	r->buf = wa_realloc(r->buf, cap);
	r->cap = cap;
}

/* Reports damaged gzip input at off, once for a stretch of damage. */
static void
gzip_error(struct warc_reader *r, uint64_t off, const char *why)
{
	if (!r->quiet_resync)
		reader_error(r, off, "%s", why);
	r->quiet_resync = true;
}

/* The member being inflated is damaged.  If it gave output, a break
 * after that output keeps records out of it. */
static void
member_damaged(struct warc_reader *r, const char *why)
{
	gzip_error(r, r->member_off, why);
	r->in_member = false;
	if (r->nmarks && r->marks[r->nmarks - 1].upos < r->ubase + r->len)
		add_mark(r, r->member_off, true);
}

/* Skips input to the next gzip magic (1f 8b 08). */
static void
skip_to_member(struct warc_reader *r)
{
	r->in_member = false;
	inflateReset(&r->zs);
	for (;;) {
		while (r->in_len - r->in_pos >= 3) {
			unsigned char *p = memchr(r->in + r->in_pos, 0x1f,
			    r->in_len - r->in_pos - 2);
			if (!p) {
				r->in_pos = r->in_len - 2;
				break;
			}
			r->in_pos = (size_t)(p - r->in);
			if (p[1] == 0x8b && p[2] == 8)
				return;
			r->in_pos++;
		}
		if (!read_input(r)) {
			r->in_pos = r->in_len;
			return;
		}
	}
}

/* Inflates the gzip member at in[in_pos] whole onto the end of buf, and
 * returns the bytes it gave, or SIZE_MAX to leave the member to zlib:
 * one that is damaged, cut, larger than the input at hand or than
 * WHOLE_MEMBER_MAX_OUTPUT, or has a header CRC, which libdeflate does
 * not check.  zlib then reads it as it always did, so what is reported
 * of damaged input does not depend on this path. */
static size_t
inflate_whole_member(struct warc_reader *r)
{
	if (r->in_len - r->in_pos < WHOLE_MEMBER_INPUT)
		read_input(r);
	const unsigned char *member = r->in + r->in_pos;
	size_t avail = r->in_len - r->in_pos;
	if (avail < 4 || (member[3] & GZIP_FLAG_HEADER_CRC))
		return SIZE_MAX;
	/* Room for most members at the first try, whatever the input at
	 * hand: a member is a record of a few KB that compressed 3-10 times.
	 * A larger one is inflated again with twice the room, and the buffer
	 * grows to the largest record and stays. */
	size_t want = FIRST_OUTPUT_ROOM;
	for (;;) {
		if (want > WHOLE_MEMBER_MAX_OUTPUT)
			want = WHOLE_MEMBER_MAX_OUTPUT;
		reserve(r, want);
		size_t in_used, produced;
		enum libdeflate_result rc = libdeflate_gzip_decompress_ex(r->whole,
		    member, avail, r->buf + r->len, r->cap - r->len, &in_used,
		    &produced);
		if (rc == LIBDEFLATE_SUCCESS) {
			r->in_pos += in_used;
			r->len += produced;
			r->in_member = false;
			r->quiet_resync = false;
			return produced;
		}
		if (rc != LIBDEFLATE_INSUFFICIENT_SPACE ||
		    r->cap - r->len >= WHOLE_MEMBER_MAX_OUTPUT)
			return SIZE_MAX;
		want = 2 * (r->cap - r->len);
	}
}

/* Decompresses some more input onto the end of buf; false at the end. */
static bool
produce_gz(struct warc_reader *r)
{
	for (;;) {
		if (r->in_pos == r->in_len && !read_input(r)) {
			if (r->in_member)
				member_damaged(r, "truncated gzip member");
			return false;
		}
		if (!r->in_member) {
			if (r->in_len - r->in_pos < 3 && read_input(r))
				continue;
			const unsigned char *p = r->in + r->in_pos;
			uint64_t off = r->in_base + r->in_pos;
			if (r->in_len - r->in_pos < 3 || p[0] != 0x1f || p[1] != 0x8b ||
			    p[2] != 8) {
				gzip_error(r, off, "not a gzip member: skipped to the next one");
				skip_to_member(r);
				continue;
			}
			r->in_member = true;
			r->member_off = off;
			add_mark(r, off, false);
			size_t whole = inflate_whole_member(r);
			if (whole != SIZE_MAX) {
				if (whole)
					return true;
				continue;
			}
		}
		reserve(r, OUT_CHUNK);
		r->zs.next_in = r->in + r->in_pos;
		r->zs.avail_in = (unsigned)(r->in_len - r->in_pos);
		r->zs.next_out = r->buf + r->len;
		r->zs.avail_out = OUT_CHUNK;
		int rc = inflate(&r->zs, Z_NO_FLUSH);
		size_t produced = OUT_CHUNK - r->zs.avail_out;
		r->in_pos = (size_t)(r->zs.next_in - r->in);
		r->len += produced;
		if (rc == Z_STREAM_END) {
			r->in_member = false;
			r->quiet_resync = false;
			inflateReset(&r->zs);
		} else if (rc == Z_DATA_ERROR || rc == Z_NEED_DICT) {
			char why[200];
			snprintf(why, sizeof why, "bad gzip member (%s): skipped to the next one",
			    r->zs.msg ? r->zs.msg : "data error");
			/* At least one byte on, so that the same magic is not
			 * taken again. */
			if (r->in_base + r->in_pos == r->member_off)
				r->in_pos++;
			member_damaged(r, why);
			skip_to_member(r);
		} else if (rc == Z_MEM_ERROR) {
			wa_die("%s: out of memory in inflate", r->name);
		}
		if (produced)
			return true;
	}
}

static bool
produce(struct warc_reader *r)
{
	if (r->out_eof)
		return false;
	bool more;
	if (r->gz) {
		more = produce_gz(r);
	} else {
		reserve(r, OUT_CHUNK);
		if (r->in_pos == r->in_len)
			read_input(r);
		size_t n = r->in_len - r->in_pos;
		if (n > OUT_CHUNK)
			n = OUT_CHUNK;
		memcpy(r->buf + r->len, r->in + r->in_pos, n);
		r->in_pos += n;
		r->len += n;
		more = n > 0;
	}
	if (!more)
		r->out_eof = true;
	return more;
}

/* Makes buf[at, at + n) available; false if the input ends first. */
static bool
have(struct warc_reader *r, size_t at, size_t n)
{
	while (r->len - at < n)
		if (!produce(r))
			return false;
	return true;
}

/* Drops buf[0, pos) and the marks before it but the one that covers pos. */
static void
compact(struct warc_reader *r)
{
	if (r->pos) {
		memmove(r->buf, r->buf + r->pos, r->len - r->pos);
		r->ubase += r->pos;
		r->len -= r->pos;
		r->pos = 0;
	}
	size_t keep = 0;
	while (keep + 1 < r->nmarks && r->marks[keep + 1].upos <= r->ubase)
		keep++;
	if (keep) {
		memmove(r->marks, r->marks + keep, (r->nmarks - keep) * sizeof *r->marks);
		r->nmarks -= keep;
	}
}

/* The file offset reported for a record that starts at buf[at]. */
static uint64_t
offset_of(const struct warc_reader *r, size_t at)
{
	uint64_t u = r->ubase + at, off = 0;
	if (!r->gz)
		return u;
	for (size_t i = 0; i < r->nmarks && r->marks[i].upos <= u; i++)
		off = r->marks[i].coff;
	return off;
}

/* The first break after buf[from], as a buf index, or SIZE_MAX. */
static size_t
next_break(const struct warc_reader *r, size_t from)
{
	uint64_t u = r->ubase + from;
	for (size_t i = 0; i < r->nmarks; i++)
		if (r->marks[i].is_break && r->marks[i].upos > u)
			return (size_t)(r->marks[i].upos - r->ubase);
	return SIZE_MAX;
}

static bool
at_member_start(const struct warc_reader *r, size_t at)
{
	uint64_t u = r->ubase + at;
	for (size_t i = 0; i < r->nmarks && r->marks[i].upos <= u; i++)
		if (r->marks[i].upos == u)
			return true;
	return false;
}

/* The end of the record whose block ends at buf[block_end] and is
 * followed by its line ends up to buf[after] (warc_record.end);
 * member_start tells whether it began a gzip member. */
static uint64_t
record_end(const struct warc_reader *r, bool member_start, size_t block_end,
    size_t after)
{
	uint64_t u = r->ubase + after;
	if (!r->gz)
		return r->ubase + block_end;
	if (!member_start)
		return 0;
	for (size_t i = 0; i < r->nmarks && r->marks[i].upos <= u; i++)
		if (r->marks[i].upos == u)
			return r->marks[i].coff;
	return r->out_eof && after == r->len ? r->in_base + r->in_len : 0;
}

/* Moves pos to the next place at or after from (at least 1) where a
 * record may begin: "WARC/" at a line start or at a gzip member start.
 * Memory stays bounded: what has been searched is dropped. */
static void
resync(struct warc_reader *r, size_t from)
{
	for (;;) {
		if (!have(r, from, 5)) {
			r->pos = r->len;
			return;
		}
		size_t last = r->len - 5;
		for (size_t at = from; at <= last; at++)
			if (r->buf[at] == 'W' && memcmp(r->buf + at, "WARC/", 5) == 0 &&
			    (r->buf[at - 1] == '\n' || at_member_start(r, at))) {
				r->pos = at;
				return;
			}
		/* Keep buf[last]: it tells whether a line starts after it. */
		r->pos = last;
		compact(r);
		from = 1;
	}
}

static void
add_field(struct warc_header_store *h, size_t nfields, char *name, char *value)
{
	if (nfields == h->fields_cap) {
		h->fields_cap = h->fields_cap ? 2 * h->fields_cap : 32;
		h->fields = wa_reallocarray(h->fields, h->fields_cap, sizeof *h->fields);
	}
	h->fields[nfields] = (struct warc_field){ name, value };
}

/* Parses the header src[0, len) (its lines, without the empty line)
 * into h.  Lines may end in CRLF or LF alone; lines
 * that begin with a space or a tab continue the previous field (RFC 822
 * folding, which WARC allows), joined by one space.  Returns the number
 * of fields, or -1 with *why set. */
static long
parse_header(struct warc_header_store *h, const unsigned char *src, size_t len,
    const char **why, size_t *line_no)
{
	if (h->text_cap <= len) {
		h->text_cap = len + 1;
		h->text = wa_realloc(h->text, h->text_cap);
	}
	memcpy(h->text, src, len);
	h->text[len] = '\0';
	char *text = h->text, *eol;
	size_t n = 0;
	*line_no = 1;
	if (memchr(text, '\0', len)) {
		*why = "NUL byte in the record header";
		return -1;
	}
	/* The version line: "WARC/" major "." minor. */
	eol = strchr(text, '\n');
	*eol = '\0';
	if (eol > text && eol[-1] == '\r')
		eol[-1] = '\0';
	const char *v = text + 5;
	size_t d1 = strspn(v, "0123456789");
	if (d1 == 0 || v[d1] != '.' || strspn(v + d1 + 1, "0123456789") == 0 ||
	    v[d1 + 1 + strspn(v + d1 + 1, "0123456789")] != '\0') {
		*why = "bad version line";
		return -1;
	}
	char *line = eol + 1;
	char *last_value = NULL;
	while (*line) {
		++*line_no;
		eol = strchr(line, '\n');
		*eol = '\0';
		char *next = eol + 1;
		if (eol > line && eol[-1] == '\r')
			*--eol = '\0';
		if (strchr(line, '\r')) {
			*why = "carriage return inside a header line";
			return -1;
		}
		if (*line == ' ' || *line == '\t') {
			if (!last_value) {
				*why = "continuation line before any field";
				return -1;
			}
			/* Folded text: the previous value runs on, joined by a
			 * space (none after an empty value, which would start
			 * with it); the copy moves left over the removed bytes. */
			char *s = line + strspn(line, " \t");
			size_t vlen = strlen(last_value);
			if (*s) {
				size_t slen = strlen(s);
				if (vlen)
					last_value[vlen++] = ' ';
				memmove(last_value + vlen, s, slen + 1);
				vlen += slen;
			}
			while (vlen && (last_value[vlen - 1] == ' ' ||
			    last_value[vlen - 1] == '\t'))
				last_value[--vlen] = '\0';
			line = next;
			continue;
		}
		char *colon = strchr(line, ':');
		if (!colon || colon == line) {
			*why = "header line without a field name and a colon";
			return -1;
		}
		if (!warc_field_name_valid(line, (size_t)(colon - line))) {
			*why = "bad character in a field name";
			return -1;
		}
		*colon = '\0';
		char *value = colon + 1 + strspn(colon + 1, " \t");
		size_t vlen = strlen(value);
		while (vlen && (value[vlen - 1] == ' ' || value[vlen - 1] == '\t'))
			value[--vlen] = '\0';
		add_field(h, n++, line, value);
		last_value = value;
		line = next;
	}
	return (long)n;
}

/* The length of the line end at buf[at] (CRLF or LF), 0 if none within
 * buf[0, len). */
static size_t
line_end(const unsigned char *buf, size_t len, size_t at)
{
	if (at < len && buf[at] == '\n')
		return 1;
	if (at + 1 < len && buf[at] == '\r' && buf[at + 1] == '\n')
		return 2;
	return 0;
}

/* The Content-Length of rec into *clen: NULL, or why it has none that can
 * be read (in why). */
static const char *
content_length(const struct warc_record *rec, uint64_t *clen, char why[100])
{
	const char *cl = warc_field(rec, "Content-Length");
	if (!cl)
		return "no Content-Length";
	size_t digits = strspn(cl, "0123456789");
	*clen = strtoull(cl, NULL, 10);
	if (digits == 0 || cl[digits] || digits > 19)
		snprintf(why, 100, "bad Content-Length \"%.40s\"", cl);
	else if (*clen > WARC_MAX_BLOCK)
		snprintf(why, 100, "Content-Length %" PRIu64 " is over the limit of %llu",
		    *clen, (unsigned long long)WARC_MAX_BLOCK);
	else
		return NULL;
	return why;
}

enum parse { PARSE_OK, PARSE_EOF, PARSE_BAD, PARSE_BROKEN };

/* Keeps the first r->keep bytes of the block of clen bytes at buf[block]
 * in r->cut, and passes over the rest, dropping it as it comes, so that a
 * block of any size takes no more memory than a small one; *tail is then
 * the block's end in buf.  PARSE_OK, or as parse_record. */
static enum parse
pass_block(struct warc_reader *r, uint64_t off, size_t block, uint64_t clen,
    size_t *tail)
{
	uint64_t start = r->ubase + block, end = start + clen;
	bool more = have(r, 0, block + r->keep);
	if (more)
		memcpy(r->cut, r->buf + block, r->keep);
	for (;;) {
		size_t brk = next_break(r, 0);
		if (brk != SIZE_MAX && r->ubase + brk < end) {
			r->pos = brk;
			return PARSE_BROKEN;
		}
		if (r->ubase + r->len >= end)
			break;
		if (!more) {
			reader_error(r, off, "truncated record: Content-Length %" PRIu64
			    " but %" PRIu64 " bytes left", clen, r->ubase + r->len - start);
			r->pos = r->len;
			return PARSE_BAD;
		}
		r->pos = r->len;
		compact(r);
		more = produce(r);
	}
	*tail = (size_t)(end - r->ubase);
	return PARSE_OK;
}

/* Reads the record at the start of buf.  PARSE_BAD: a problem, reported,
 * and pos is where the search for the next record starts; PARSE_BROKEN:
 * the record runs into damaged gzip input, already reported, and pos is
 * past the damage. */
static enum parse
parse_record(struct warc_reader *r, struct warc_record *rec)
{
	/* Blank lines between records are passed over. */
	for (;;) {
		compact(r);
		if (!have(r, 0, 1))
			return PARSE_EOF;
		while (r->pos < r->len && (r->buf[r->pos] == '\r' || r->buf[r->pos] == '\n'))
			r->pos++;
		if (r->pos < r->len)
			break;
	}
	compact(r);
	uint64_t off = offset_of(r, 0);
	bool member_start = at_member_start(r, 0);
	r->pos = 1;
	have(r, 0, 5);
	size_t brk = next_break(r, 0);
	if (brk < 5) {
		r->pos = brk;
		return PARSE_BROKEN;
	}
	if (r->len < 5 || memcmp(r->buf, "WARC/", 5) != 0) {
		reader_error(r, off, "not a WARC record (no \"WARC/\" version line)");
		return PARSE_BAD;
	}

	/* The header ends at an empty line. */
	size_t scanned = 0, end, hend;
	for (;;) {
		unsigned char *nl = memchr(r->buf + scanned, '\n', r->len - scanned);
		if (nl) {
			end = (size_t)(nl - r->buf) + 1;
			have(r, end, 2);
			if ((hend = line_end(r->buf, r->len, end)))
				break;
			scanned = end;
			continue;
		}
		scanned = r->len;
		brk = next_break(r, 0);
		if (brk <= scanned) {
			r->pos = brk;
			return PARSE_BROKEN;
		}
		if (scanned > MAX_HEADER) {
			reader_error(r, off, "no end of the record header in %d bytes",
			    MAX_HEADER);
			return PARSE_BAD;
		}
		if (!produce(r)) {
			if ((brk = next_break(r, 0)) != SIZE_MAX) {
				r->pos = brk;
				return PARSE_BROKEN;
			}
			reader_error(r, off, "truncated record header");
			r->pos = r->len;
			return PARSE_BAD;
		}
	}
	brk = next_break(r, 0);
	if (brk < end + hend) {
		r->pos = brk;
		return PARSE_BROKEN;
	}

	const char *why = "malformed header";
	size_t line_no;
	long nf = parse_header(&r->header, r->buf, end, &why, &line_no);
	if (nf < 0) {
		reader_error(r, off, "header line %zu: %s", line_no, why);
		return PARSE_BAD;
	}
	rec->fields = r->header.fields;
	rec->nfields = (size_t)nf;
	uint64_t clen;
	char cl_why[100];
	if ((why = content_length(rec, &clen, cl_why))) {
		reader_error(r, off, "%s", why);
		return PARSE_BAD;
	}

	/* The block, then two line ends, CRLF CRLF (LF LF tolerated). */
	size_t block = end + hend, tail = block + (size_t)clen;
	bool cut = clen > r->max_block;
	if (cut) {
		enum parse p = pass_block(r, off, block, clen, &tail);
		if (p != PARSE_OK)
			return p;
	}
	bool complete = have(r, 0, tail);
	/* One byte past the record if there is one: a member that ends
	 * with the record is then checked to its CRC. */
	if (complete)
		have(r, 0, tail + 5);
	brk = next_break(r, 0);
	if (brk < tail) {
		r->pos = brk;
		return PARSE_BROKEN;
	}
	if (!complete) {
		reader_error(r, off, "truncated record: Content-Length %" PRIu64
		    " but %zu bytes left", clen, r->len - block);
		r->pos = r->len;
		return PARSE_BAD;
	}
	size_t e1 = line_end(r->buf, r->len, tail);
	size_t e2 = e1 ? line_end(r->buf, r->len, tail + e1) : 0;
	if (!e1 || !e2 || tail + e1 + e2 >= brk) {
		if (brk <= tail + 4) {
			r->pos = brk;
			return PARSE_BROKEN;
		}
		reader_error(r, off, "no CRLF CRLF after the %" PRIu64
		    " bytes of the block (wrong Content-Length?)", clen);
		return PARSE_BAD;
	}
	rec->offset = off;
	rec->end = record_end(r, member_start, tail, tail + e1 + e2);
	rec->version = r->header.text;
	rec->block = cut ? r->cut : r->buf + block;
	rec->block_len = cut ? r->keep : (size_t)clen;
	rec->length = clen;
	r->pos = tail + e1 + e2;
	return PARSE_OK;
}

bool
warc_read(struct warc_reader *r, struct warc_record *rec)
{
	for (;;) {
		switch (parse_record(r, rec)) {
		case PARSE_OK:
			return true;
		case PARSE_EOF:
			return false;
		case PARSE_BAD:
			if (r->pos < r->len)
				resync(r, r->pos);
			break;
		case PARSE_BROKEN:
			break;
		}
	}
}

bool
warc_reader_take_block(struct warc_reader *r, const struct warc_record *rec,
    struct warc_buffer *buf)
{
	if (rec->block_len < rec->length)
		return false;
	struct warc_buffer taken = { r->buf, r->cap, r->len };
	size_t rest = r->len - r->pos;
	r->ubase += r->pos;
	r->pos = r->len = 0;
	/* A spare too small is replaced, not grown: its bytes are stale. */
	if (buf->data && buf->cap < rest) {
		free(buf->data);
		*buf = (struct warc_buffer){ 0 };
	}
	r->buf = buf->data;
	r->cap = buf->data ? buf->cap : 0;
	reserve(r, rest);
	if (rest)
		memcpy(r->buf, taken.data + taken.used - rest, rest);
	r->len = rest;
	*buf = taken;
	return true;
}

void
warc_reader_max_block(struct warc_reader *r, uint64_t max, size_t keep)
{
	if (keep > max)
		wa_die("warc_reader_max_block: %zu bytes kept of at most %" PRIu64,
		    keep, max);
	r->max_block = max;
	r->keep = keep;
	free(r->cut);
	r->cut = wa_malloc(keep ? keep : 1);
}

uint64_t
warc_reader_errors(const struct warc_reader *r)
{
	return r->errors;
}

void
warc_reader_on_problem(struct warc_reader *r, warc_problem_fn *fn, void *arg)
{
	r->on_problem = fn;
	r->problem_arg = arg;
}

/* b has room for n bytes, its old ones dropped. */
static void
buffer_room(struct warc_buffer *b, size_t n)
{
	if (b->cap < n) {
		free(b->data);
		b->data = wa_malloc(n);
		b->cap = n;
	}
}

bool
warc_read_member(struct warc_reader *r, struct warc_member *m)
{
	if (!r->members)
		return false;
	/* The member runs to the next gzip magic: scanned from in_pos. */
	size_t scanned = GZIP_MIN, len = 0;
	bool ends_input = false;
	while (!len) {
		const unsigned char *p = r->in + r->in_pos;
		size_t avail = r->in_len - r->in_pos;
		while (!len && scanned + 4 <= avail) {
			const unsigned char *q = memchr(p + scanned, 0x1f, avail - 3 - scanned);
			scanned = q ? (size_t)(q - p) : avail - 3;
			if (q && q[1] == 0x8b && q[2] == 8 && !(q[3] & GZIP_FLAG_RESERVED))
				len = scanned;
			else if (q)
				scanned++;
		}
		if (len || (avail < IN_SIZE && read_input(r)))
			continue;
		if (avail == 0 || avail >= IN_SIZE) {
			r->members = false;
			return false;
		}
		ends_input = true;
		len = avail;
	}
	uint64_t off = r->in_base + r->in_pos;
	if (off < r->retain)
		r->retain = off;
	*m = (struct warc_member){ .offset = off, .end = off + len, .ends_input = ends_input,
	    .max_block = r->max_block, .keep = r->keep, .bytes = m->bytes, .header = m->header };
	buffer_room(&m->bytes, len);
	memcpy(m->bytes.data, r->in + r->in_pos, len);
	m->bytes.used = len;
	r->in_pos += len;
	return true;
}

void
warc_reader_release(struct warc_reader *r, uint64_t offset)
{
	r->retain = offset;
}

void
warc_reader_rewind(struct warc_reader *r, uint64_t offset)
{
	if (offset < r->in_base || offset > r->in_base + r->in_len)
		wa_die("%s: offset %" PRIu64 ": the member is no longer kept", r->name, offset);
	r->in_pos = (size_t)(offset - r->in_base);
	r->ubase += r->len;
	r->pos = r->len = 0;
	r->nmarks = 0;
	r->in_member = r->quiet_resync = r->out_eof = r->members = false;
	r->retain = UINT64_MAX;
	inflateReset(&r->zs);
}

bool
warc_reader_resume(struct warc_reader *r)
{
	/* The member read past the record, whole and undamaged, is unread. */
	if (!r->gz || r->in_member || r->pos == r->len || !r->nmarks)
		return false;
	const struct mark *last = &r->marks[r->nmarks - 1];
	if (last->upos != r->ubase + r->pos || last->is_break || last->coff < r->in_base)
		return false;
	r->in_pos = (size_t)(last->coff - r->in_base);
	r->len = r->pos;
	r->nmarks--;
	r->out_eof = false;
	r->members = true;
	r->retain = UINT64_MAX;
	return true;
}

/* Whether out, a member's whole output, is one record as parse_record
 * reads it, with no byte before or after; if so, in rec. */
static bool
member_record(struct warc_member *m, const struct warc_buffer *out, struct warc_record *rec)
{
	const unsigned char *buf = out->data, *nl;
	size_t len = out->used, end = 0, hend = 0, line_no;
	if (memcmp(buf, "WARC/", 5) != 0)
		return false;
	while (!hend && (nl = memchr(buf + end, '\n', len - end))) {
		end = (size_t)(nl - buf) + 1;
		hend = line_end(buf, len, end);
	}
	const char *why;
	long nf;
	if (!hend || end + hend > MAX_HEADER ||
	    (nf = parse_header(&m->header, buf, end, &why, &line_no)) < 0)
		return false;
	*rec = (struct warc_record){ .fields = m->header.fields, .nfields = (size_t)nf };
	uint64_t clen;
	char cl_why[100];
	if (content_length(rec, &clen, cl_why) || clen > len)
		return false;
	size_t tail = end + hend + (size_t)clen, e1 = line_end(buf, len, tail);
	size_t e2 = e1 ? line_end(buf, len, tail + e1) : 0;
	if (!e2 || tail + e1 + e2 != len)
		return false;
	*rec = (struct warc_record){ .offset = m->offset, .end = m->end,
	    .version = m->header.text, .fields = rec->fields, .nfields = rec->nfields,
	    .block = buf + end + hend, .length = clen,
	    .block_len = clen > m->max_block ? m->keep : (size_t)clen };
	return true;
}

enum warc_member_state
warc_member_read(struct libdeflate_decompressor *d, struct warc_member *m,
    struct warc_buffer *out, struct warc_record *rec)
{
	const unsigned char *p = m->bytes.data;
	size_t n = m->bytes.used;
	/* A member ends with the size of its output (modulo 2^32). */
	size_t size = n < GZIP_MIN ? 0 : (size_t)p[n - 4] | (size_t)p[n - 3] << 8 |
	    (size_t)p[n - 2] << 16 | (size_t)p[n - 1] << 24;
	if (size < 5 || size > WHOLE_MEMBER_MAX_OUTPUT || (p[3] & GZIP_FLAG_HEADER_CRC))
		return WARC_MEMBER_BAD;
	buffer_room(out, size);
	size_t in_used;
	if (libdeflate_gzip_decompress_ex(d, p, n, out->data, size, &in_used,
	    &out->used) != LIBDEFLATE_SUCCESS || in_used != n)
		return WARC_MEMBER_BAD;
	return member_record(m, out, rec) ? WARC_MEMBER_RECORD : WARC_MEMBER_OTHER;
}

void
warc_member_free(struct warc_member *m)
{
	free(m->bytes.data);
	free(m->header.text);
	free(m->header.fields);
}

struct warc_reader *
warc_reader_open(const char *path)
{
	struct warc_reader *r = wa_calloc(1, sizeof *r);
	r->in = wa_malloc(r->in_cap = IN_SIZE);
	r->max_block = WARC_MAX_BLOCK;
	r->retain = UINT64_MAX;
	if (!path || strcmp(path, "-") == 0) {
		r->name = wa_strdup("stdin");
		r->fp = stdin;
	} else {
		r->name = wa_strdup(path);
		r->fp = fopen(path, "rb");
		if (!r->fp)
			wa_die_errno("%s", path);
	}
	while (r->in_len < 2 && read_input(r))
		;
	r->gz = r->in_len >= 2 && r->in[0] == 0x1f && r->in[1] == 0x8b;
	/* windowBits 15 + 16: gzip only; members are found by their magic. */
	if (r->gz && inflateInit2(&r->zs, 15 + 16) != Z_OK)
		wa_die("%s: inflateInit2 failed", r->name);
	if (r->gz && !(r->whole = libdeflate_alloc_decompressor()))
		wa_die("%s: out of memory", r->name);
	return r;
}

void
warc_reader_close(struct warc_reader *r)
{
	if (!r)
		return;
	if (r->fp && r->fp != stdin)
		fclose(r->fp);
	if (r->gz)
		inflateEnd(&r->zs);
	libdeflate_free_decompressor(r->whole);
	free(r->in);
	free(r->buf);
	free(r->marks);
	free(r->header.text);
	free(r->header.fields);
	free(r->cut);
	free(r->name);
	free(r);
}
