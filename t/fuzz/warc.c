/* Fuzz target: the WARC reader (src/lib/warc.h), plain and gzip.
 *
 * Input: a mode byte, then the file.  Mode 0 reads the file as it is
 * (plain, or gzip if it starts with the magic, damaged or not); mode 1
 * reads it compressed into one gzip member and mode 2 with a gzip member
 * for each record (a member starts at every "WARC/" that starts a line),
 * as wa-fetch writes them.  Checks, beyond no crash, no hang and no
 * sanitizer finding:
 *   - a record has a "WARC/" version, a Content-Length of digits equal to
 *     its block's length, field names of token characters, values with
 *     no CR or LF and no blanks around them, and warc_field finds each
 *     name;
 *   - offsets increase; in a plain file the record starts at its offset
 *     and its block is found after it; in gzip, the offset is that of a
 *     gzip member, and offsets do not decrease;
 *   - compressing changes nothing: modes 1 and 2 give the records and the
 *     error count of the plain reading of the same text. */
#include <stdbool.h>
#include <zlib.h>

#include "fuzz.h"
#include "warc.h"

struct warc_seen {
	char *text;	/* each record: version, fields, block, as "name\0value\0" */
	size_t len, cap;
	size_t records;
	uint64_t errors;
};

static void
warc_append(struct warc_seen *s, const void *p, size_t n)
{
	if (s->len + n > s->cap) {
		s->cap = 2 * (s->len + n) + 64;
		s->text = wa_realloc(s->text, s->cap);
	}
	memcpy(s->text + s->len, p, n);
	s->len += n;
}

static bool
warc_token_char(unsigned char c)
{
	return c > 32 && c < 127 && !strchr("()<>@,;:\\\"/[]?={}", c);
}

/* Reads the file data[0..n) and checks its records; gz: how it was
 * written (the plain text of modes 1 and 2 is not at hand here). */
static void
warc_read_all(const unsigned char *data, size_t n, struct warc_seen *seen)
{
	int fd;
	char path[64];
	fuzz_path(data, n, &fd, path);
	struct warc_reader *r = warc_reader_open(path);
	bool gz = n >= 2 && data[0] == 0x1f && data[1] == 0x8b;
	struct warc_record rec;
	uint64_t last_off = 0;
	while (warc_read(r, &rec)) {
		fuzz_check(strncmp(rec.version, "WARC/", 5) == 0, "version \"%.40s\"", rec.version);
		fuzz_check(rec.offset < n, "offset %llu past the end",
		    (unsigned long long)rec.offset);
		if (seen->records > 0)
			fuzz_check(gz ? rec.offset >= last_off : rec.offset > last_off,
			    "offset %llu after %llu", (unsigned long long)rec.offset,
			    (unsigned long long)last_off);
		last_off = rec.offset;
		if (gz) {
			fuzz_check(rec.offset + 3 <= n && data[rec.offset] == 0x1f &&
			    data[rec.offset + 1] == 0x8b && data[rec.offset + 2] == 8,
			    "offset %llu is no gzip member", (unsigned long long)rec.offset);
		} else {
			fuzz_check(memcmp(data + rec.offset, "WARC/", 5) == 0,
			    "no record at offset %llu", (unsigned long long)rec.offset);
			fuzz_check(rec.block_len == 0 || memmem(data + rec.offset, n - rec.offset,
			    rec.block, rec.block_len), "block not in the file after offset %llu",
			    (unsigned long long)rec.offset);
		}
		const char *cl = warc_field(&rec, "content-length");
		fuzz_check(cl && *cl && strspn(cl, "0123456789") == strlen(cl) &&
		    strtoull(cl, NULL, 10) == rec.block_len, "Content-Length \"%.40s\", block %zu",
		    cl ? cl : "(none)", rec.block_len);
		warc_append(seen, rec.version, strlen(rec.version) + 1);
		for (size_t i = 0; i < rec.nfields; i++) {
			const char *name = rec.fields[i].name, *value = rec.fields[i].value;
			size_t vl = strlen(value);
			fuzz_check(*name != '\0', "empty field name");
			for (const char *c = name; *c; c++)
				fuzz_check(warc_token_char((unsigned char)*c),
				    "field name \"%.60s\"", name);
			fuzz_check(!strpbrk(value, "\r\n") && (vl == 0 ||
			    (!strchr(" \t", value[0]) && !strchr(" \t", value[vl - 1]))),
			    "value \"%.60s\" of %s", value, name);
			const char *found = warc_field(&rec, name);
			fuzz_check(found != NULL, "warc_field misses %s", name);
			warc_append(seen, name, strlen(name) + 1);
			warc_append(seen, value, vl + 1);
		}
		warc_append(seen, rec.block, rec.block_len);
		warc_append(seen, "\n", 1);
		seen->records++;
	}
	seen->errors = warc_reader_errors(r);
	warc_reader_close(r);
	close(fd);
}

static void
warc_gzip_member(const unsigned char *text, size_t n, unsigned char **out, size_t *len,
    size_t *cap)
{
	size_t need = *len + compressBound((uLong)n) + 64;
	if (need > *cap) {
		*cap = 2 * need;
		*out = wa_realloc(*out, *cap);
	}
	z_stream z = { 0 };
	if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		abort();
	z.next_in = (unsigned char *)text;
	z.avail_in = (uInt)n;
	z.next_out = *out + *len;
	z.avail_out = (uInt)(*cap - *len);
	if (deflate(&z, Z_FINISH) != Z_STREAM_END)
		abort();
	*len = *cap - z.avail_out;
	deflateEnd(&z);
}

static int
warc_fuzz_one(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	unsigned mode = data[0] % 3;
	const unsigned char *text = data + 1;
	size_t n = size - 1;
	struct warc_seen plain = { 0 }, packed = { 0 };
	warc_read_all(text, n, &plain);
	if (mode != 0 && !(n >= 2 && text[0] == 0x1f && text[1] == 0x8b)) {
		unsigned char *gz = NULL;
		size_t len = 0, cap = 0, start = 0;
		for (size_t i = 1; mode == 2 && i + 5 <= n; i++)
			if (text[i - 1] == '\n' && memcmp(text + i, "WARC/", 5) == 0) {
				warc_gzip_member(text + start, i - start, &gz, &len, &cap);
				start = i;
			}
		warc_gzip_member(text + start, n - start, &gz, &len, &cap);
		warc_read_all(gz, len, &packed);
		fuzz_check(packed.records == plain.records && packed.len == plain.len &&
		    (plain.len == 0 || memcmp(packed.text, plain.text, plain.len) == 0),
		    "gzip gave %zu records, plain %zu, or other ones", packed.records,
		    plain.records);
		fuzz_check(packed.errors == plain.errors, "gzip gave %llu errors, plain %llu",
		    (unsigned long long)packed.errors, (unsigned long long)plain.errors);
		free(gz);
	}
	free(plain.text);
	free(packed.text);
	return 0;
}

FUZZ_TARGET(warc_fuzz_one)
