/* WARC/1.1 writing and reading (warc.h): records written and read back,
 * their exact bytes, digests against known SHA-1 values, gzip members,
 * rotation, and damaged input of many kinds.
 *
 *   test-warc               the TAP tests
 *   test-warc write DIR     writes the sample files that t/warc-files.t
 *                           gives to warcio, an independent reader
 *   test-warc read FILE...  prints each record: offset, WARC-Type,
 *                           WARC-Target-URI, block length, SHA-1 of the
 *                           block; then "records N errors M" */
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <zlib.h>

#include "msg.h"
#include "tap.h"
#include "warc.h"

static char dir[PATH_MAX];

static char *
path_in(const char *name)
{
	return wa_asprintf("%s/%s", dir, name);
}

static void
sha1_digest(const void *p, size_t n, char out[WARC_DIGEST_SIZE])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned mdlen;
	if (!EVP_Digest(p, n, md, &mdlen, EVP_sha1(), NULL))
		wa_die("EVP_Digest");
	warc_digest_format(md, out);
}

static unsigned char *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	unsigned char *buf = NULL;
	size_t cap = 0, n = 0, got;
	do {
		if (cap - n < 65536)
			buf = wa_realloc(buf, cap = 2 * cap + 65536);
		got = fread(buf + n, 1, cap - n, f);
		n += got;
	} while (got);
	fclose(f);
	*len = n;
	return buf;
}

static void
spew(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(p, 1, n, f) != n || fclose(f) != 0)
		wa_die_errno("%s", path);
}

/* A growing byte string. */
struct bytes {
	unsigned char *p;
	size_t len, cap;
};

static void
add(struct bytes *b, const void *p, size_t n)
{
	if (b->cap - b->len < n + 1) {
		b->cap = 2 * (b->len + n) + 64;
		b->p = wa_realloc(b->p, b->cap);
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
	b->p[b->len] = 0;
}

static void
adds(struct bytes *b, const char *s)
{
	add(b, s, strlen(s));
}

/* One gzip member holding p, made here with zlib's own gzip framing. */
static void
add_gzip(struct bytes *b, const void *p, size_t n)
{
	z_stream zs = { 0 };
	if (deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		wa_die("deflateInit2");
	uLong bound = deflateBound(&zs, (uLong)n) + 32;
	unsigned char *out = wa_malloc(bound);
	zs.next_in = (unsigned char *)(uintptr_t)p;
	zs.avail_in = (unsigned)n;
	zs.next_out = out;
	zs.avail_out = (unsigned)bound;
	if (deflate(&zs, Z_FINISH) != Z_STREAM_END)
		wa_die("deflate");
	add(b, out, zs.total_out);
	deflateEnd(&zs);
	free(out);
}

/* The output of the gzip member at p, or NULL if it is not one. */
static char *
gunzip_member(const unsigned char *p, size_t n)
{
	z_stream zs = { 0 };
	struct bytes out = { 0 };
	unsigned char buf[4096];
	if (inflateInit2(&zs, 15 + 16) != Z_OK)
		wa_die("inflateInit2");
	zs.next_in = (unsigned char *)(uintptr_t)p;
	zs.avail_in = (unsigned)n;
	int rc;
	do {
		zs.next_out = buf;
		zs.avail_out = sizeof buf;
		rc = inflate(&zs, Z_NO_FLUSH);
		add(&out, buf, sizeof buf - zs.avail_out);
	} while (rc == Z_OK);
	inflateEnd(&zs);
	if (rc != Z_STREAM_END) {
		free(out.p);
		return NULL;
	}
	add(&out, "", 0);
	return (char *)out.p;
}

/* A record in WARC's form, built by hand here rather than by the writer. */
static void
add_record(struct bytes *b, const char *type, const char *content_length,
    const void *block, size_t n)
{
	char head[512];
	snprintf(head, sizeof head, "WARC/1.1\r\nWARC-Type: %s\r\n"
	    "WARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-000000000000>\r\n"
	    "WARC-Date: 2023-11-14T22:13:20Z\r\nContent-Length: %s\r\n\r\n",
	    type, content_length);
	adds(b, head);
	add(b, block, n);
	adds(b, "\r\n\r\n");
}

static void
add_record_ok(struct bytes *b, const char *type, const char *block)
{
	char len[32];
	snprintf(len, sizeof len, "%zu", strlen(block));
	add_record(b, type, len, block, strlen(block));
}

/* What a reader gave: the WARC-Types and offsets of the records, its
 * error count, and what it said on stderr. */
struct seen {
	char types[4096];
	uint64_t offsets[64];
	size_t n;
	uint64_t errors;
	char *err;
};

static void
read_file(const char *path, struct seen *s)
{
	char *errpath = path_in("stderr");
	fflush(stderr);
	int saved = dup(2), fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dup2(fd, 2);
	close(fd);

	memset(s, 0, sizeof *s);
	struct warc_reader *r = warc_reader_open(path);
	struct warc_record rec;
	while (warc_read(r, &rec)) {
		const char *t = warc_field(&rec, "WARC-Type");
		if (s->n < 64)
			s->offsets[s->n] = rec.offset;
		s->n++;
		if (strlen(s->types) + 64 < sizeof s->types)
			snprintf(s->types + strlen(s->types), 64, "%s%s",
			    *s->types ? " " : "", t ? t : "?");
	}
	/* The end stays the end. */
	if (warc_read(r, &rec))
		snprintf(s->types + strlen(s->types), 32, " (record after the end)");
	s->errors = warc_reader_errors(r);
	warc_reader_close(r);

	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	size_t n;
	s->err = (char *)slurp(errpath, &n);
	s->err = wa_realloc(s->err, n + 1);
	s->err[n] = '\0';
	free(errpath);
}

/* Reads the bytes b as a file and checks the types read, the error count
 * and a piece of the message. */
static void __attribute__((format(printf, 5, 6)))
check_damaged(const char *what, const struct bytes *b, const char *want_types,
    uint64_t want_errors, const char *want_msg, ...)
{
	char *path = path_in("damaged");
	struct seen s;
	spew(path, b->p, b->len);
	read_file(path, &s);
	char *msg = NULL;
	if (want_msg) {
		char text[512];
		va_list ap;
		va_start(ap, want_msg);
		vsnprintf(text, sizeof text, want_msg, ap);
		va_end(ap);
		msg = wa_asprintf("%s: %s", path, text);
	}
	bool pass = strcmp(s.types, want_types) == 0 && s.errors == want_errors &&
	    (!msg || strstr(s.err, msg));
	ok(pass, "%s: records \"%s\", %" PRIu64 " error(s)", what, want_types,
	    want_errors);
	if (!pass)
		diag("got records \"%s\", %" PRIu64 " errors, stderr: %s", s.types,
		    s.errors, s.err);
	free(msg);
	free(s.err);
	free(path);
}

/* ------------------------------------------------------------------ */
/* The sample records, also written for warcio by "test-warc write". */

static const char http_response[] =
    "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 5\r\n\r\nhello";
static const char http_request[] =
    "GET /a HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n";
static unsigned char binary_block[256 + 18];

struct sample {
	const char *type, *uri, *content_type;
	const void *block;
	size_t len;
	const char *date;	/* as it must be written */
	const char *digest;	/* SHA-1 of the block, known independently */
};

static struct sample samples[] = {
	{ "response", "http://127.0.0.1:8080/a", "application/http;msgtype=response",
	  http_response, sizeof http_response - 1, "2023-11-14T22:13:20.000000Z",
	  "sha1:V5N4DU7OHW5EE7ZB4C2DOGZXS2FPKE2Y" },
	{ "request", "http://127.0.0.1:8080/a", "application/http;msgtype=request",
	  http_request, sizeof http_request - 1, "2023-11-14T22:13:21.000001Z",
	  "sha1:NUEM4XBKR5TALMBBB5AK5LNOUNGOLZKH" },
	{ "resource", "http://127.0.0.1:8080/bytes", "application/octet-stream",
	  binary_block, sizeof binary_block, "2023-11-14T22:13:22.123456Z",
	  "sha1:LVNR2K3RVHLDPCB7NMCYEDQBXWFDJJAY" },
	{ "metadata", "http://127.0.0.1:8080/empty", NULL, "", 0,
	  "2023-11-14T22:13:23.999999Z", "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ" },
};
#define NSAMPLES (sizeof samples / sizeof samples[0])
static const long sample_usec[NSAMPLES] = { 0, 1, 123456, 999999 };

static const struct warc_field info[] = {
	{ "software", "wa-test 1" },
	{ "format", "WARC File Format 1.1" },
};
static const char info_block[] = "software: wa-test 1\r\nformat: WARC File Format 1.1\r\n";

static void
init_samples(void)
{
	for (int i = 0; i < 256; i++)
		binary_block[i] = (unsigned char)i;
	/* A record inside a block must stay inside it. */
	memcpy(binary_block + 256, "\r\n\r\nWARC/1.1\r\n\r\n\r\n", 18);
}

static void
write_sample(struct warc_writer *w, size_t i)
{
	const struct sample *s = &samples[i];
	struct warc_field f[3] = {
		{ "WARC-Target-URI", s->uri },
		{ "WARC-IP-Address", "127.0.0.1" },
		{ "WARC-Payload-Digest", "sha1:VL2MMHO4YXUKFWV63YHTWSBM3GXKSQ2N" },
	};
	/* The block in two pieces, to use the iovec. */
	struct iovec iov[2] = {
		{ (void *)(uintptr_t)s->block, s->len / 2 },
		{ (char *)(uintptr_t)s->block + s->len / 2, s->len - s->len / 2 },
	};
	warc_write(w, s->type, NULL, 1700000000 + (int64_t)i, sample_usec[i], f,
	    i == 0 ? 3 : 2, s->content_type, iov, 2);
}

static void
write_samples(const char *path, uint64_t max_size, int rounds)
{
	struct warc_writer *w = warc_writer_open(path, max_size, info, 2, NULL);
	for (int r = 0; r < rounds; r++)
		for (size_t i = 0; i < NSAMPLES; i++)
			write_sample(w, i);
	warc_writer_close(w);
}

/* ------------------------------------------------------------------ */

static void
test_digests(void)
{
	char d[WARC_DIGEST_SIZE];
	/* SHA-1 test vectors (FIPS 180), in RFC 4648 base32. */
	sha1_digest("", 0, d);
	is_str(d, "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ", "digest of the empty string");
	sha1_digest("abc", 3, d);
	is_str(d, "sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5", "digest of \"abc\"");
	sha1_digest("The quick brown fox jumps over the lazy dog", 43, d);
	is_str(d, "sha1:F7KODRT2FUUPZ3MET3Q3W5XHHENZH2YS", "digest of the fox sentence");
	sha1_digest(http_response + sizeof http_response - 6, 5, d);
	is_str(d, "sha1:VL2MMHO4YXUKFWV63YHTWSBM3GXKSQ2N", "digest of \"hello\"");
	sha1_digest(binary_block, 256, d);
	is_str(d, "sha1:JELNNPNX66HGQA3JRSVTFUKYN2SFPX6I", "digest of the bytes 0 to 255");
}

static bool
id_well_formed(const char *id)
{
	static const char form[] = "<urn:uuid:xxxxxxxx-xxxx-4xxx-Vxxx-xxxxxxxxxxxx>";
	if (strlen(id) != sizeof form - 1)
		return false;
	for (size_t i = 0; form[i]; i++) {
		char c = id[i];
		if (form[i] == 'x') {
			if (!strchr("0123456789abcdef", c))
				return false;
		} else if (form[i] == 'V') {
			if (!strchr("89ab", c))
				return false;
		} else if (c != form[i]) {
			return false;
		}
	}
	return true;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
test_ids(void)
{
	enum { N = 2000 };
	static char ids[N][WARC_ID_SIZE];
	static char *sorted[N];
	bool formed = true, distinct = true;
	for (int i = 0; i < N; i++) {
		warc_new_id(ids[i]);
		formed &= id_well_formed(ids[i]);
		sorted[i] = ids[i];
	}
	qsort(sorted, N, sizeof *sorted, cmp_str);
	for (int i = 1; i < N; i++)
		distinct &= strcmp(sorted[i - 1], sorted[i]) != 0;
	ok(formed, "record ids are urn:uuid version 4 (%s)", ids[0]);
	ok(distinct, "%d record ids are distinct", N);
	/* Each of the 122 random bits must take both values; the version
	 * (4) and the variant (10xx) bits are fixed. */
	unsigned char set[36] = { 0 }, unset[36] = { 0 };
	static const char hex[] = "0123456789abcdef";
	for (int i = 0; i < N; i++)
		for (int j = 0; j < 36; j++) {
			const char *c = strchr(hex, ids[i][10 + j]);
			if (c && *c) {
				set[j] |= (unsigned char)(c - hex);
				unset[j] |= (unsigned char)(~(c - hex) & 0xf);
			}
		}
	bool varied = true;
	for (int j = 0; j < 36; j++) {
		if (j == 8 || j == 13 || j == 18 || j == 23)
			continue;
		unsigned want_set = j == 14 ? 0x4 : j == 19 ? 0xb : 0xf;
		unsigned want_unset = j == 14 ? 0xb : j == 19 ? 0x7 : 0xf;
		varied &= set[j] == want_set && unset[j] == want_unset;
	}
	ok(varied, "every random bit of the ids varies");
}

/* The writer's output read back, record by record. */
static void
check_round_trip(const char *name)
{
	char *path = path_in(name);
	bool gz = strstr(name, ".gz") != NULL;
	write_samples(path, 0, 1);

	size_t flen;
	unsigned char *file = slurp(path, &flen);
	ok(file != NULL, "%s is there after the close", name);
	if (!file)
		return;

	struct warc_reader *r = warc_reader_open(path);
	struct warc_record rec;
	ok(warc_read(r, &rec), "%s: the first record", name);
	is_str(rec.version, "WARC/1.1", "%s: version", name);
	is_str(warc_field(&rec, "WARC-Type"), "warcinfo", "%s: warcinfo first", name);
	is_str(warc_field(&rec, "WARC-Filename"), name, "%s: WARC-Filename", name);
	is_str(warc_field(&rec, "Content-Type"), "application/warc-fields",
	    "%s: warcinfo Content-Type", name);
	ok(rec.block_len == strlen(info_block) && memcmp(rec.block, info_block,
	    rec.block_len) == 0, "%s: warcinfo block holds the fields given", name);
	ok(rec.offset == 0, "%s: warcinfo at offset 0", name);
	ok(id_well_formed(warc_field(&rec, "WARC-Record-ID")), "%s: warcinfo has an id", name);

	char ids[NSAMPLES + 1][WARC_ID_SIZE];
	snprintf(ids[0], WARC_ID_SIZE, "%s", warc_field(&rec, "WARC-Record-ID"));
	uint64_t last_offset = 0;
	for (size_t i = 0; i < NSAMPLES; i++) {
		const struct sample *s = &samples[i];
		char want_digest[WARC_DIGEST_SIZE], want_len[32];
		if (!ok(warc_read(r, &rec), "%s: record %zu read", name, i + 1))
			break;
		sha1_digest(s->block, s->len, want_digest);
		is_str(want_digest, s->digest, "%s: record %zu: the known digest", name, i + 1);
		snprintf(want_len, sizeof want_len, "%zu", s->len);
		is_str(warc_field(&rec, "WARC-Type"), s->type, "%s: record %zu: type", name, i + 1);
		is_str(warc_field(&rec, "warc-target-uri"), s->uri, "%s: record %zu: uri", name, i + 1);
		is_str(warc_field(&rec, "WARC-Date"), s->date, "%s: record %zu: date", name, i + 1);
		is_str(warc_field(&rec, "WARC-IP-Address"), "127.0.0.1", "%s: record %zu: ip", name, i + 1);
		is_str(warc_field(&rec, "Content-Type"), s->content_type,
		    "%s: record %zu: Content-Type", name, i + 1);
		is_str(warc_field(&rec, "WARC-Block-Digest"), want_digest,
		    "%s: record %zu: block digest", name, i + 1);
		is_str(warc_field(&rec, "Content-Length"), want_len,
		    "%s: record %zu: Content-Length", name, i + 1);
		is_str(warc_field(&rec, "WARC-Payload-Digest"),
		    i == 0 ? "sha1:VL2MMHO4YXUKFWV63YHTWSBM3GXKSQ2N" : NULL,
		    "%s: record %zu: payload digest as given", name, i + 1);
		ok(rec.block_len == s->len && memcmp(rec.block, s->block, s->len) == 0,
		    "%s: record %zu: block bytes", name, i + 1);
		ok(strcmp(rec.fields[0].name, "WARC-Type") == 0 &&
		    strcmp(rec.fields[1].name, "WARC-Record-ID") == 0 &&
		    strcmp(rec.fields[2].name, "WARC-Date") == 0 &&
		    strcmp(rec.fields[rec.nfields - 1].name, "Content-Length") == 0,
		    "%s: record %zu: field order", name, i + 1);
		snprintf(ids[i + 1], WARC_ID_SIZE, "%s", warc_field(&rec, "WARC-Record-ID"));
		ok(id_well_formed(ids[i + 1]) && strcmp(ids[i + 1], ids[i]) != 0,
		    "%s: record %zu: a fresh id", name, i + 1);

		/* The offset: a record begins there, after the previous one. */
		bool offset_ok = rec.offset > last_offset && rec.offset < flen;
		if (offset_ok && gz) {
			char *text = gunzip_member(file + rec.offset, flen - rec.offset);
			char *want = wa_asprintf("WARC/1.1\r\nWARC-Type: %s\r\n", s->type);
			offset_ok = text && strncmp(text, want, strlen(want)) == 0;
			free(text);
			free(want);
		} else if (offset_ok) {
			offset_ok = memcmp(file + rec.offset, "WARC/1.1\r\n", 10) == 0 &&
			    memcmp(file + rec.offset - 4, "\r\n\r\n", 4) == 0;
		}
		ok(offset_ok, "%s: record %zu: offset %" PRIu64 " is where it begins",
		    name, i + 1, rec.offset);
		last_offset = rec.offset;
	}
	ok(!warc_read(r, &rec) && !warc_read(r, &rec), "%s: then the end", name);
	ok(warc_reader_errors(r) == 0, "%s: no errors", name);
	warc_reader_close(r);

	if (gz) {
		/* One member per record, and nothing else in the file. */
		size_t at = 0, members = 0;
		z_stream zs = { 0 };
		unsigned char buf[4096];
		inflateInit2(&zs, 15 + 16);
		bool whole = true;
		while (at < flen && whole) {
			inflateReset(&zs);
			zs.next_in = file + at;
			zs.avail_in = (unsigned)(flen - at);
			int rc;
			do {
				zs.next_out = buf;
				zs.avail_out = sizeof buf;
				rc = inflate(&zs, Z_NO_FLUSH);
			} while (rc == Z_OK);
			whole = rc == Z_STREAM_END;
			at = flen - zs.avail_in;
			members++;
		}
		inflateEnd(&zs);
		ok(whole && members == NSAMPLES + 1, "%s: %zu gzip members for %zu records",
		    name, members, NSAMPLES + 1);
	} else {
		/* The exact bytes of one record, from the specification's
		 * grammar (section 4). */
		struct warc_writer *w = warc_writer_open(path, 0, NULL, 0, NULL);
		const char *wpath = warc_writer_path(w);
		struct iovec iov = { (void *)(uintptr_t)"abc", 3 };
		struct warc_field f = { "WARC-Target-URI", "http://127.0.0.1/x" };
		warc_write(w, "resource", "<urn:uuid:12345678-1234-4234-8234-123456789abc>",
		    1700000000, 5, &f, 1, "text/plain", &iov, 1);
		is_str(wpath, path, "%s: warc_writer_path names the file", name);
		warc_writer_close(w);
		free(file);
		file = slurp(path, &flen);
		static const char want[] =
		    "WARC/1.1\r\n"
		    "WARC-Type: resource\r\n"
		    "WARC-Record-ID: <urn:uuid:12345678-1234-4234-8234-123456789abc>\r\n"
		    "WARC-Date: 2023-11-14T22:13:20.000005Z\r\n"
		    "WARC-Target-URI: http://127.0.0.1/x\r\n"
		    "Content-Type: text/plain\r\n"
		    "WARC-Block-Digest: sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5\r\n"
		    "Content-Length: 3\r\n"
		    "\r\n"
		    "abc\r\n\r\n";
		size_t wl = sizeof want - 1;
		ok(flen > wl && memcmp(file + flen - wl, want, wl) == 0,
		    "%s: a record's exact bytes", name);
		static const char want_info[] =
		    "WARC/1.1\r\nWARC-Type: warcinfo\r\nWARC-Record-ID: <urn:uuid:";
		static const char want_info2[] =
		    "Z\r\nWARC-Filename: plain.warc\r\n"
		    "Content-Type: application/warc-fields\r\n"
		    "WARC-Block-Digest: sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ\r\n"
		    "Content-Length: 0\r\n\r\n\r\n\r\n";
		size_t w2 = sizeof want_info2 - 1;
		static const char want_info_mid[] = ">\r\nWARC-Date: ";
		size_t w0 = sizeof want_info - 1, wm = sizeof want_info_mid - 1;
		/* Between them: the 36 characters of a uuid, and 26 of the date
		 * before its Z. */
		ok(flen == w0 + 36 + wm + 26 + w2 + wl && memcmp(file, want_info, w0) == 0 &&
		    memcmp(file + w0 + 36, want_info_mid, wm) == 0 &&
		    memcmp(file + flen - wl - w2, want_info2, w2) == 0,
		    "%s: an empty warcinfo's exact bytes", name);
	}
	free(file);
	free(path);
}

/* A temporary beside the final name while the file is open, the final
 * name only after the close. */
static void
test_atomic(void)
{
	char *path = path_in("atomic.warc.gz");
	struct warc_writer *w = warc_writer_open(path, 0, info, 2, NULL);
	write_sample(w, 0);
	bool hidden = access(path, F_OK) != 0;
	size_t temps = 0;
	DIR *d = opendir(dir);
	struct dirent *e;
	while ((e = readdir(d)))
		temps += strncmp(e->d_name, ".atomic.warc.gz.", 16) == 0;
	closedir(d);
	warc_writer_close(w);
	ok(hidden && temps == 1, "no file under the final name while it is written");
	ok(access(path, F_OK) == 0, "the file is there after the close");
	free(path);
}

static void
test_many(void)
{
	enum { N = 3000 };
	char *path = path_in("many.warc.gz");
	struct warc_writer *w = warc_writer_open(path, 0, NULL, 0, NULL);
	/* Blocks of up to 69000 bytes from offsets up to 3000. */
	unsigned char *block = wa_malloc(72000);
	uint32_t x = 1;
	for (size_t i = 0; i < 72000; i++) {
		x = x * 1664525 + 1013904223;
		block[i] = (unsigned char)(x >> 24);
	}
	for (int i = 0; i < N; i++) {
		char uri[64];
		snprintf(uri, sizeof uri, "http://127.0.0.1/%d", i);
		struct warc_field f = { "WARC-Target-URI", uri };
		struct iovec iov = { block + i, (size_t)(i * 7919) % 69000 };
		warc_write(w, "resource", NULL, 1700000000 + i, i % 1000000, &f, 1,
		    "application/octet-stream", &iov, 1);
	}
	warc_writer_close(w);

	/* Read through stdin, as wa-extract - does. */
	int saved = dup(0), fd = open(path, O_RDONLY);
	dup2(fd, 0);
	close(fd);
	clearerr(stdin);
	struct warc_reader *r = warc_reader_open("-");
	struct warc_record rec;
	int n = -1;
	bool right = true;
	while (warc_read(r, &rec)) {
		if (n >= 0) {
			char uri[64];
			size_t len = (size_t)(n * 7919) % 69000;
			snprintf(uri, sizeof uri, "http://127.0.0.1/%d", n);
			const char *u = warc_field(&rec, "WARC-Target-URI");
			right &= u && strcmp(u, uri) == 0 && rec.block_len == len &&
			    memcmp(rec.block, block + n, len) == 0;
		}
		n++;
	}
	ok(n == N && right && warc_reader_errors(r) == 0,
	    "%d records of up to 69000 bytes read back through stdin (%d)", N, n);
	warc_reader_close(r);
	dup2(saved, 0);
	close(saved);
	clearerr(stdin);

	/* The same records as one gzip member. */
	char *plain = path_in("many.warc");
	w = warc_writer_open(plain, 0, NULL, 0, NULL);
	for (int i = 0; i < 200; i++) {
		struct iovec iov = { block, (size_t)i * 300 };
		warc_write(w, "resource", NULL, 1700000000, 0, NULL, 0, NULL, &iov, 1);
	}
	warc_writer_close(w);
	size_t len;
	unsigned char *text = slurp(plain, &len);
	struct bytes one = { 0 };
	add_gzip(&one, text, len);
	char *onepath = path_in("one-member.warc.gz");
	spew(onepath, one.p, one.len);
	r = warc_reader_open(onepath);
	n = 0;
	right = true;
	while (warc_read(r, &rec)) {
		right &= rec.offset == 0;
		if (n > 0)
			right &= rec.block_len == (size_t)(n - 1) * 300 &&
			    memcmp(rec.block, block, rec.block_len) == 0;
		n++;
	}
	ok(n == 201 && right && warc_reader_errors(r) == 0,
	    "201 records in one gzip member, all at offset 0 (%d)", n);
	warc_reader_close(r);
	free(one.p);
	free(text);
	free(onepath);
	free(plain);
	free(block);
	free(path);
}

/* The records of one rotated set of files. */
static void
check_rotation(const char *name, uint64_t max, int records, const char *const *want_names,
    size_t nfiles)
{
	char *path = path_in(name);
	struct warc_writer *w = warc_writer_open(path, max, info, 2, NULL);
	char *where[64];
	for (int i = 0; i < records; i++) {
		where[i] = wa_strdup(warc_writer_path(w));
		write_sample(w, 2);
	}
	warc_writer_close(w);

	bool files_ok = true, sizes_ok = true, paths_ok = true;
	int total = 0;
	for (size_t f = 0; f < nfiles; f++) {
		char *fp = path_in(want_names[f]);
		struct stat st;
		if (stat(fp, &st) != 0) {
			files_ok = false;
			diag("%s is missing", fp);
			free(fp);
			continue;
		}
		struct warc_reader *r = warc_reader_open(fp);
		struct warc_record rec;
		int n = 0;
		uint64_t last_offset = 0;
		while (warc_read(r, &rec)) {
			const char *t = warc_field(&rec, "WARC-Type");
			if (n == 0) {
				const char *fn = warc_field(&rec, "WARC-Filename");
				files_ok &= strcmp(t, "warcinfo") == 0 && fn &&
				    strcmp(fn, want_names[f]) == 0;
			} else {
				files_ok &= strcmp(t, "resource") == 0;
				paths_ok &= total < records && strcmp(where[total], fp) == 0;
				total++;
			}
			last_offset = rec.offset;
			n++;
		}
		files_ok &= warc_reader_errors(r) == 0 && n >= 2;
		/* Full files: over the limit, but not before their last record. */
		if (max > 1 && f + 1 < nfiles)
			sizes_ok &= (uint64_t)st.st_size >= max && last_offset < max;
		warc_reader_close(r);
		free(fp);
	}
	ok(files_ok && total == records, "%s rotated at %" PRIu64 " bytes: %zu files "
	    "(%s...), each starting with its warcinfo", name, max, nfiles, want_names[nfiles - 1]);
	ok(sizes_ok, "%s: each full file reached the limit with its last record", name);
	ok(paths_ok, "%s: warc_writer_path named the file of the next record", name);
	for (int i = 0; i < records; i++)
		free(where[i]);
	free(path);
}

static void
test_rotation(void)
{
	static const char *const plain[] = { "rot.warc", "rot-00001.warc",
		"rot-00002.warc", "rot-00003.warc" };
	check_rotation("rot.warc", 1800, 10, plain, 4);
	static const char *const gz[] = { "rot.warc.gz", "rot-00001.warc.gz",
		"rot-00002.warc.gz" };
	check_rotation("rot.warc.gz", 1000, 5, gz, 3);
	static const char *const other[] = { "out.gz", "out-00001.gz", "out-00002.gz" };
	check_rotation("out.gz", 1, 3, other, 3);
	static const char *const bare[] = { "crawl", "crawl-00001" };
	check_rotation("crawl", 1, 2, bare, 2);
}

static void
test_damage(void)
{
	struct bytes r1 = { 0 }, r2 = { 0 }, r3 = { 0 }, b = { 0 };
	add_record_ok(&r1, "response", "one\r\n\r\nWARC/1.0 inside");
	add_record_ok(&r2, "request", "");
	add_record_ok(&r3, "resource", "three");
	char off1[64];
	snprintf(off1, sizeof off1, "offset %zu: ", r1.len);

#define RESET(x) ((x).len = 0)
	/* A damaged record after r1, then r2 (and r3): the reader goes on. */
	static const struct {
		const char *what;
		const char *raw;	/* the damaged record as is; NULL: one of */
		const char *content_length, *block;	/* these, typed "bad" */
		size_t block_len, records_after;
		const char *want_types, *want_msg;
	} bad_records[] = {
		{ "garbage between records", "garbage line\r\nmore\r\n", NULL, NULL, 0, 1,
		  "response request", "not a WARC record" },
		{ "Content-Length not a number", NULL, "12x", "123456789012", 12, 1,
		  "response request", "bad Content-Length \"12x\"" },
		{ "Content-Length too large", NULL, "25", "0123456789", 10, 2,
		  "response request resource", "no CRLF CRLF after the 25 bytes" },
		{ "Content-Length too small", NULL, "5", "0123456789", 10, 1,
		  "response request", "no CRLF CRLF after the 5 bytes" },
		{ "huge Content-Length", NULL, "99999999999999", "x", 1, 1,
		  "response request", "Content-Length 99999999999999 is over the limit" },
		{ "Content-Length of 21 digits", NULL, "123456789012345678901", "x", 1, 1,
		  "response request", "bad Content-Length" },
		{ "no Content-Length", "WARC/1.1\r\nWARC-Type: bad\r\n\r\nabc\r\n\r\n", NULL,
		  NULL, 0, 1, "response request", "no Content-Length" },
		{ "bad version line", "WARC/x\r\nContent-Length: 0\r\n\r\n\r\n\r\n", NULL, NULL,
		  0, 1, "response request", "header line 1: bad version line" },
		{ "header line without a colon", "WARC/1.1\r\nWARC-Type: bad\r\nno colon here\r\n"
		  "Content-Length: 0\r\n\r\n\r\n\r\n", NULL, NULL, 0, 1, "response request",
		  "header line 3: header line without a field name" },
	};
	const struct bytes *after[] = { &r2, &r3 };
	for (size_t i = 0; i < sizeof bad_records / sizeof *bad_records; i++) {
		RESET(b);
		add(&b, r1.p, r1.len);
		if (bad_records[i].raw)
			adds(&b, bad_records[i].raw);
		else
			add_record(&b, "bad", bad_records[i].content_length, bad_records[i].block,
			    bad_records[i].block_len);
		for (size_t k = 0; k < bad_records[i].records_after; k++)
			add(&b, after[k]->p, after[k]->len);
		check_damaged(bad_records[i].what, &b, bad_records[i].want_types, 1, "%s%s", off1,
		    bad_records[i].want_msg);
	}

	RESET(b); add(&b, r1.p, r1.len); add(&b, r2.p, r2.len / 2);
	check_damaged("truncated record", &b, "response", 1,
	    "%struncated record header", off1);

	RESET(b); add(&b, r1.p, r1.len); add(&b, r3.p, r3.len - 6);
	check_damaged("truncated block", &b, "response", 1,
	    "%struncated record: Content-Length 5 but 3 bytes left", off1);

	RESET(b); add(&b, "\0\1xxWARC/1.1 \r\n\0\r\n", 18); add(&b, r2.p, r2.len);
	check_damaged("binary garbage first", &b, "request", 1, "offset 0: not a WARC record");

	RESET(b);
	check_damaged("empty file", &b, "", 0, NULL);
	RESET(b); adds(&b, "\r\n\r\n\n");
	check_damaged("only blank lines", &b, "", 0, NULL);
	RESET(b); adds(&b, "WARC");
	check_damaged("four bytes", &b, "", 1, "offset 0: not a WARC record");

	/* Tolerated: LF line ends, folded fields, blank lines between. */
	RESET(b); adds(&b, "\r\n\r\nWARC/1.1\nWARC-Type: lf\nX-Folded: one\n two\r\n\tthree \n"
	    "Content-Length: 3\n\nabc\n\n"); add(&b, r2.p, r2.len); adds(&b, "\r\n");
	check_damaged("LF line ends and folded fields", &b, "lf request", 0, NULL);
	{
		char *path = path_in("damaged");
		struct warc_reader *r = warc_reader_open(path);
		struct warc_record rec;
		warc_read(r, &rec);
		is_str(warc_field(&rec, "x-folded"), "one two three", "a folded field is joined");
		ok(rec.block_len == 3 && memcmp(rec.block, "abc", 3) == 0 && rec.offset == 4,
		    "the block and offset of an LF record");
		warc_reader_close(r);
		free(path);
	}

	/* gzip damage. */
	struct bytes m1 = { 0 }, m2 = { 0 }, m3 = { 0 };
	add_gzip(&m1, r1.p, r1.len);
	add_gzip(&m2, r2.p, r2.len);
	add_gzip(&m3, r3.p, r3.len);
	char goff[64];
	snprintf(goff, sizeof goff, "offset %zu: ", m1.len);

	RESET(b); add(&b, m1.p, m1.len); add(&b, m2.p, m2.len); add(&b, m3.p, m3.len);
	check_damaged("three gzip members", &b, "response request resource", 0, NULL);
	{
		char *path = path_in("damaged");
		struct seen s;
		read_file(path, &s);
		ok(s.offsets[0] == 0 && s.offsets[1] == m1.len && s.offsets[2] == m1.len + m2.len,
		    "gzip record offsets are member offsets");
		free(s.err);
		free(path);
	}

	RESET(b); add(&b, m1.p, m1.len); add(&b, m2.p, m2.len / 2);
	check_damaged("truncated gzip member", &b, "response", 1,
	    "%struncated gzip member", goff);

	RESET(b); add(&b, m1.p, m1.len); adds(&b, "junk!"); add(&b, m2.p, m2.len);
	check_damaged("garbage between gzip members", &b, "response request", 1,
	    "%snot a gzip member", goff);

	RESET(b); add(&b, m1.p, m1.len); add(&b, m2.p, m2.len); b.p[b.len - 6] ^= 0x55;
	add(&b, m3.p, m3.len);
	check_damaged("gzip member with a bad CRC", &b, "response resource", 1,
	    "%sbad gzip member (incorrect data check)", goff);

	RESET(b); add(&b, m1.p, m1.len); add(&b, m2.p, 10); adds(&b, "\xff\xff\xff\xff\xff\xff");
	add(&b, m2.p + 10, m2.len - 10); add(&b, m3.p, m3.len);
	check_damaged("gzip member with bad deflate data", &b, "response resource", 1,
	    "%sbad gzip member", goff);

	RESET(b); add(&b, m1.p, m1.len); add_gzip(&b, "hello\r\n", 7); add(&b, m3.p, m3.len);
	check_damaged("a gzip member that holds no record", &b, "response resource", 1,
	    "%snot a WARC record", goff);

	RESET(b); add(&b, m1.p, m1.len);
	for (int i = 0; i < 512; i++)
		add(&b, "", 1);
	check_damaged("zeros after the last member", &b, "response", 1,
	    "%snot a gzip member", goff);

	RESET(b); add(&b, "\x1f\x8b\x08\x00garbage garbage garbage", 27);
	check_damaged("only a gzip magic", &b, "", 1, "offset 0: bad gzip member");

	/* One member for 60 records, cut at two thirds: the records
	 * before the cut, one error. */
	{
		struct bytes all = { 0 };
		uint32_t y = 7;
		for (int i = 0; i < 60; i++) {
			/* Blocks that do not compress to nothing. */
			char text[201];
			for (int k = 0; k < 200; k++) {
				y = y * 1664525 + 1013904223;
				text[k] = "0123456789abcdef"[y >> 28];
			}
			text[200] = '\0';
			add_record_ok(&all, "resource", text);
		}
		RESET(b);
		add_gzip(&b, all.p, all.len);
		b.len = b.len * 2 / 3;
		char *path = path_in("damaged");
		struct seen s;
		spew(path, b.p, b.len);
		read_file(path, &s);
		ok(s.n >= 10 && s.n < 60 && s.errors == 1 && strstr(s.err, "offset 0: truncated gzip member"),
		    "a cut single-member file: %zu of 60 records, 1 error", s.n);
		free(s.err);
		free(path);
		free(all.p);
	}

	/* Random damage of every kind: the reader ends, without a crash
	 * (the sanitizer build checks memory) and without a loop. */
	struct bytes good = { 0 }, goodgz = { 0 };
	for (int i = 0; i < 20; i++) {
		add(&good, r1.p, r1.len); add(&good, r2.p, r2.len); add(&good, r3.p, r3.len);
		add(&goodgz, m1.p, m1.len); add(&goodgz, m2.p, m2.len); add(&goodgz, m3.p, m3.len);
	}
	uint32_t x = 12345;
	bool ended = true;
	for (int round = 0; round < 400; round++) {
		const struct bytes *src = round % 2 ? &goodgz : &good;
		RESET(b);
		add(&b, src->p, src->len);
		for (int k = 0; k < 1 + round % 7; k++) {
			x = x * 1664525 + 1013904223;
			size_t at = (x >> 8) % b.len;
			switch ((x >> 4) % 4) {
			case 0: b.p[at] ^= (unsigned char)(1 + (x >> 24) % 255); break;
			case 1: b.len = at + 1; break;
			case 2: memmove(b.p + at, b.p + at + 1, b.len - at - 1); b.len--; break;
			default: b.p[at] = (unsigned char)"\r\n\x1f\x8bW"[(x >> 20) % 5]; break;
			}
		}
		char *path = path_in("fuzz");
		struct seen s;
		spew(path, b.p, b.len);
		read_file(path, &s);
		ended &= s.n <= 60;
		free(s.err);
		free(path);
	}
	ok(ended, "400 randomly damaged files read to their end");
	free(good.p); free(goodgz.p);
	free(m1.p); free(m2.p); free(m3.p);
	free(r1.p); free(r2.p); free(r3.p); free(b.p);
}

/* ------------------------------------------------------------------ */

static void
write_for_warcio(const char *d)
{
	char *p = wa_asprintf("%s/plain.warc", d);
	write_samples(p, 0, 1);
	free(p);
	p = wa_asprintf("%s/members.warc.gz", d);
	write_samples(p, 0, 1);
	free(p);
	/* Two rounds of the samples in files of at most 700 bytes but for
	 * their last record: rot.warc.gz holds the response and the request,
	 * rot-00001 the resource, rot-00002 the metadata and the response,
	 * rot-00003 the request and the resource, rot-00004 the metadata. */
	p = wa_asprintf("%s/rot.warc.gz", d);
	write_samples(p, 700, 2);
	free(p);
}

static int
read_and_print(int argc, char **argv)
{
	for (int i = 0; i < argc; i++) {
		struct warc_reader *r = warc_reader_open(argv[i]);
		struct warc_record rec;
		uint64_t n = 0;
		while (warc_read(r, &rec)) {
			char d[WARC_DIGEST_SIZE];
			const char *t = warc_field(&rec, "WARC-Type");
			const char *u = warc_field(&rec, "WARC-Target-URI");
			sha1_digest(rec.block, rec.block_len, d);
			printf("%" PRIu64 "\t%s\t%s\t%zu\t%s\n", rec.offset, t ? t : "-",
			    u ? u : "-", rec.block_len, d);
			n++;
		}
		printf("records %" PRIu64 " errors %" PRIu64 "\n", n, warc_reader_errors(r));
		warc_reader_close(r);
	}
	return 0;
}

static void
remove_tree(const char *d)
{
	DIR *dp = opendir(d);
	struct dirent *e;
	if (!dp)
		return;
	while ((e = readdir(dp)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			char *p = wa_asprintf("%s/%s", d, e->d_name);
			unlink(p);
			free(p);
		}
	closedir(dp);
	rmdir(d);
}

int
main(int argc, char **argv)
{
	wa_init(argc, argv, "usage: test-warc [write DIR | read FILE...]\n");
	init_samples();
	if (argc == 3 && strcmp(argv[1], "write") == 0) {
		write_for_warcio(argv[2]);
		return 0;
	}
	if (argc >= 3 && strcmp(argv[1], "read") == 0)
		return read_and_print(argc - 2, argv + 2);
	if (argc != 1) {
		fputs("usage: test-warc [write DIR | read FILE...]\n", stderr);
		return 2;
	}

	const char *t = getenv("TMPDIR");
	snprintf(dir, sizeof dir, "%s/test-warc.XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(dir))
		wa_die_errno("%s", dir);

	test_digests();
	test_ids();
	check_round_trip("plain.warc");
	check_round_trip("members.warc.gz");
	test_atomic();
	test_many();
	test_rotation();
	test_damage();

	remove_tree(dir);
	return done_testing();
}
