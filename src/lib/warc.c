/* WARC/1.1 files, written and read (ISO 28500:2017, the IIPC "WARC File
 * Format 1.1").  The layout of a record follows section 4 of the
 * specification: a version line, named fields each ending in CRLF, an
 * empty line, Content-Length bytes of block, and CRLF CRLF.  Digests are
 * "sha1:" with the RFC 4648 base32 of the SHA-1 (section 5.8).  Record ids
 * are RFC 4122 version 4 UUIDs as urn:uuid URIs (section 5.2).  Compressed
 * files follow annex D: one gzip member per record (RFC 1952).
 *
 * The reader keeps one record in memory.  Damage is reported once per
 * place ("FILE: offset N: reason"), counted, and passed over: in gzip input
 * to the next member, in the records to the next "WARC/" at a line start
 * or a member start. */
#include <errno.h>
#include <pthread.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include <libdeflate.h>
#include <openssl/evp.h>
#include <zlib.h>

#include "atomic.h"
#include "msg.h"
#include "thread.h"
#include "warc.h"

/* ------------------------------------------------------------------ */
/* Record ids, digests, dates */

void
warc_new_id(char id[WARC_ID_SIZE])
{
	unsigned char u[16];
	size_t got = 0;
	while (got < sizeof u) {
		ssize_t n = getrandom(u + got, sizeof u - got, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			wa_die_errno("getrandom");
		}
		got += (size_t)n;
	}
	u[6] = (unsigned char)((u[6] & 0x0f) | 0x40);	/* version 4 */
	u[8] = (unsigned char)((u[8] & 0x3f) | 0x80);	/* RFC 4122 variant */
	snprintf(id, WARC_ID_SIZE,
	    "<urn:uuid:%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
	    "%02x%02x%02x%02x%02x%02x>",
	    u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9],
	    u[10], u[11], u[12], u[13], u[14], u[15]);
}

void
warc_digest_format(const unsigned char sha1[20], char out[WARC_DIGEST_SIZE])
{
	static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
	char *o = out + 5;
	memcpy(out, "sha1:", 5);
	/* 160 bits are exactly 32 groups of 5: no padding. */
	for (int bit = 0; bit < 160; bit += 5) {
		int byte = bit / 8, shift = bit % 8;
		unsigned v = (unsigned)sha1[byte] << 8;
		if (byte + 1 < 20)
			v |= sha1[byte + 1];
		*o++ = alphabet[(v >> (11 - shift)) & 31];
	}
	*o = '\0';
}

static void
block_digest(const struct iovec *block, int nblock, char out[WARC_DIGEST_SIZE],
    uint64_t *len)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned mdlen;
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	if (!ctx || !EVP_DigestInit_ex(ctx, EVP_sha1(), NULL))
		wa_die("warc: cannot set up SHA-1 (OpenSSL)");
	*len = 0;
	for (int i = 0; i < nblock; i++) {
		if (block[i].iov_len && !EVP_DigestUpdate(ctx, block[i].iov_base,
		    block[i].iov_len))
			wa_die("warc: SHA-1 failed (OpenSSL)");
		*len += block[i].iov_len;
	}
	if (!EVP_DigestFinal_ex(ctx, md, &mdlen) || mdlen != 20)
		wa_die("warc: SHA-1 failed (OpenSSL)");
	EVP_MD_CTX_free(ctx);
	warc_digest_format(md, out);
}

/* W3C ISO 8601 with microseconds, which WARC 1.1 (section 5.4) allows. */
static void
format_date(int64_t sec, long usec, char out[32])
{
	struct tm tm;
	time_t t = (time_t)sec;
	if (usec < 0 || usec > 999999 || !gmtime_r(&t, &tm) ||
	    tm.tm_year + 1900 < 0 || tm.tm_year + 1900 > 9999)
		wa_die("warc: date %" PRId64 ".%06ld is out of range", sec, usec);
	size_t n = strftime(out, 32, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(out + n, 32 - n, ".%06ldZ", usec);
}

/* ------------------------------------------------------------------ */
/* Writer */

struct warc_writer {
	char *path;		/* the first file's name, as given */
	char *cur, *next;	/* the current file's name, the next one's */
	unsigned seq;		/* number of the current file, 0 first */
	uint64_t max_size;
	struct warc_field *info;
	size_t ninfo;
	bool gz;
	struct libdeflate_compressor *zc;
	unsigned char *zout;	/* the compressed record */
	size_t zcap;
	struct atomic_file *af;
	uint64_t size;		/* bytes in the current file */
	uint64_t records;	/* records in the current file, warcinfo included */

	/* Records wait here for the writing thread, in order. */
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t changed;
	struct job *first, *last;
	size_t queued_bytes;
	bool busy;		/* the thread holds a record out of the queue */
	bool closing;
	uint64_t given, written;	/* records of warc_write; those on disk */
	char *failed;		/* the thread's: why writing stopped, or NULL */
	char *error;		/* failed, once the thread has told */
};

struct job;

/* zlib's default level: files as small as other crawlers' and no slower
 * to read. */
#define WARC_GZIP_LEVEL 6

/* The caller waits while this much is queued, so that memory stays bounded
 * when the disk or the compression is slower than the crawl. */
#define QUEUE_MAX_BYTES (64u << 20)

static bool
ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* The name of file number seq: "-00001" goes before the last ".warc" of
 * the base name, or else before a final ".gz", or else at the end. */
static char *
numbered_name(const char *path, unsigned seq)
{
	if (seq == 0)
		return wa_strdup(path);
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	const char *at = NULL;
	for (const char *p = base; (p = strstr(p, ".warc")); p++)
		at = p;
	if (!at)
		at = ends_with(base, ".gz") ? path + strlen(path) - 3 : path + strlen(path);
	return wa_asprintf("%.*s-%05u%s", (int)(at - path), path, seq, at);
}

static void
check_field(const char *what, const char *s)
{
	if (strpbrk(s, "\r\n"))
		wa_die("warc: %s \"%.100s\" holds a line break", what, s);
}

static bool is_token_char(unsigned char c);

static void
check_name(const char *name)
{
	const char *c = name;
	while (is_token_char((unsigned char)*c))
		c++;
	if (c == name || *c)
		wa_die("warc: \"%.100s\" is not a field name", name);
}

/* One record, whole: in a .gz file one gzip member (libdeflate compresses
 * a buffer in one call, twice as fast as zlib's stream).  It reaches the
 * kernel before the next one is taken, so that a write error (a full
 * disk) is known to spare the records before it.  False on a write error:
 * the file is then cut back to the record's start, and its buffer
 * dropped, so that it ends with a whole record. */
static bool
emit_record(struct warc_writer *w, const unsigned char *rec, size_t len)
{
	FILE *fp = w->af->fp;
	uint64_t start = w->size;

	if (w->gz) {
		size_t bound = libdeflate_gzip_compress_bound(w->zc, len);
		if (bound > w->zcap) {
			free(w->zout);
			w->zout = wa_malloc(bound);
			w->zcap = bound;
		}
		len = libdeflate_gzip_compress(w->zc, rec, len, w->zout, w->zcap);
		if (len == 0)
			wa_die("%s: gzip compression failed", w->cur);
		rec = w->zout;
	}
	if (fwrite(rec, 1, len, fp) != len || fflush(fp) != 0) {
		int err = errno;
		__fpurge(fp);
		clearerr(fp);
		if (ftruncate(fileno(fp), (off_t)start) != 0 ||
		    fseeko(fp, (off_t)start, SEEK_SET) != 0)
			err = errno;
		w->failed = wa_asprintf("%s: %s", w->cur, strerror(err));
		return false;
	}
	w->size += len;
	w->records++;
	return true;
}

/* A record as given to warc_write, with copies of its strings and block;
 * the writing thread makes the header and the digest in front of the
 * block, where header_room bytes are kept free. */
struct job {
	struct job *next;
	const char *type, *id, *content_type;
	char date[32];
	struct warc_field *fields;
	size_t nfields;
	size_t header_room, block_len;
	unsigned char *block;	/* header_room bytes after the start, 4 before the end */
};

/* The fixed part of a header, digest and length included. */
#define HEADER_FIXED 256

static size_t
copy_string(char **at, const char *s)
{
	size_t n = strlen(s) + 1;
	memcpy(*at, s, n);
	*at += n;
	return n;
}

/* Checks a record's fields (so that a bad one stops the caller, not the
 * thread) and copies it into one allocation. */
static struct job *
make_job(const char *type, const char *id, int64_t date_sec, long date_usec,
    const struct warc_field *fields, size_t nfields, const char *content_type,
    const struct iovec *block, int nblock)
{
	size_t strings = strlen(type) + strlen(id) + 2, block_len = 0;
	check_field("WARC-Type", type);
	check_field("WARC-Record-ID", id);
	if (content_type) {
		check_field("Content-Type", content_type);
		strings += strlen(content_type) + 1;
	}
	for (size_t i = 0; i < nfields; i++) {
		check_name(fields[i].name);
		check_field(fields[i].name, fields[i].value);
		strings += strlen(fields[i].name) + strlen(fields[i].value) + 2;
	}
	for (int i = 0; i < nblock; i++)
		block_len += block[i].iov_len;
	/* Every string appears in the header with at most 4 bytes around it. */
	size_t header_room = HEADER_FIXED + strings + 4 * (nfields + 3);
	struct job *j = wa_malloc(sizeof *j + nfields * sizeof *j->fields + strings +
	    header_room + block_len + 4);
	j->next = NULL;
	j->fields = (struct warc_field *)(j + 1);
	char *at = (char *)(j->fields + nfields);
	j->type = at;
	copy_string(&at, type);
	j->id = at;
	copy_string(&at, id);
	j->content_type = NULL;
	if (content_type) {
		j->content_type = at;
		copy_string(&at, content_type);
	}
	for (size_t i = 0; i < nfields; i++) {
		j->fields[i].name = at;
		copy_string(&at, fields[i].name);
		j->fields[i].value = at;
		copy_string(&at, fields[i].value);
	}
	j->nfields = nfields;
	format_date(date_sec, date_usec, j->date);
	j->header_room = header_room;
	j->block_len = block_len;
	j->block = (unsigned char *)at + header_room;
	for (int i = 0, off = 0; i < nblock; off += (int)block[i].iov_len, i++)
		memcpy(j->block + off, block[i].iov_base, block[i].iov_len);
	memcpy(j->block + block_len, "\r\n\r\n", 4);
	return j;
}

/* Makes the job's header right before its block and writes the record;
 * false on a write error. */
static bool
write_job(struct warc_writer *w, struct job *j)
{
	char digest[WARC_DIGEST_SIZE], *header = (char *)j->block - j->header_room;
	struct iovec block = { j->block, j->block_len };
	uint64_t len;
	block_digest(&block, 1, digest, &len);
	size_t n = (size_t)snprintf(header, j->header_room,
	    "WARC/1.1\r\nWARC-Type: %s\r\nWARC-Record-ID: %s\r\nWARC-Date: %s\r\n",
	    j->type, j->id, j->date);
	for (size_t i = 0; i < j->nfields; i++)
		n += (size_t)snprintf(header + n, j->header_room - n, "%s: %s\r\n",
		    j->fields[i].name, j->fields[i].value);
	if (j->content_type)
		n += (size_t)snprintf(header + n, j->header_room - n,
		    "Content-Type: %s\r\n", j->content_type);
	n += (size_t)snprintf(header + n, j->header_room - n,
	    "WARC-Block-Digest: %s\r\nContent-Length: %" PRIu64 "\r\n\r\n", digest, len);
	if (n >= j->header_room)
		wa_die("%s: a WARC header outgrew its room", w->cur);
	unsigned char *rec = j->block - n;
	memmove(rec, header, n);
	return emit_record(w, rec, n + j->block_len + 4);
}

/* False on a write error. */
static bool
open_file(struct warc_writer *w)
{
	struct timespec now;
	free(w->cur);
	free(w->next);
	w->cur = numbered_name(w->path, w->seq);
	w->next = numbered_name(w->path, w->seq + 1);
	w->size = 0;
	if (!(w->af = atomic_try_open(w->cur))) {
		w->failed = wa_asprintf("%s: %s: %s", w->cur, atomic_open_failure(w->cur),
		    strerror(errno));
		return false;
	}
	w->records = 0;

	/* The warcinfo block is application/warc-fields: "name: value" lines. */
	char *text = NULL;
	size_t tlen = 0;
	FILE *h = open_memstream(&text, &tlen);
	if (!h)
		wa_die_errno("open_memstream");
	for (size_t i = 0; i < w->ninfo; i++)
		fprintf(h, "%s: %s\r\n", w->info[i].name, w->info[i].value);
	if (fclose(h) != 0)
		wa_die_errno("open_memstream");
	const char *base = strrchr(w->cur, '/');
	struct warc_field name = { "WARC-Filename", base ? base + 1 : w->cur };
	struct iovec block = { text, tlen };
	char id[WARC_ID_SIZE];
	warc_new_id(id);
	clock_gettime(CLOCK_REALTIME, &now);
	struct job *j = make_job("warcinfo", id, now.tv_sec, now.tv_nsec / 1000,
	    &name, 1, "application/warc-fields", &block, 1);
	bool written = write_job(w, j);
	free(j);
	free(text);
	return written;
}

/* A full file takes no more records once it holds one besides its
 * warcinfo, so that a limit below a warcinfo's size cannot loop. */
static bool
file_full(const struct warc_writer *w)
{
	return w->max_size && w->size >= w->max_size && w->records > 1;
}

/* Closes the current file and opens the next; false on a write error.
 * The flush and fsync come first: a file that fails them stays open, cut
 * back to its whole records like any file after a write error. */
static bool
next_file(struct warc_writer *w)
{
	FILE *fp = w->af->fp;
	if (fflush(fp) != 0 || fsync(fileno(fp)) != 0) {
		w->failed = wa_asprintf("%s: %s", w->cur, strerror(errno));
		return false;
	}
	w->failed = atomic_try_commit(w->af);
	w->af = NULL;
	if (w->failed)
		return false;
	w->seq++;
	return open_file(w);
}

/* Compression costs more than the rest of a fetch (a gzip member per
 * record): a thread of its own writes the records, so that the crawl's
 * event loop never waits for zlib or for the disk.  The thread never ends
 * the process: after a write error it drops the records given, and the
 * caller learns of it from warc_writer_error. */
static void *
writer_thread(void *arg)
{
	struct warc_writer *w = arg;
	pthread_mutex_lock(&w->lock);
	for (;;) {
		while (!w->first && !w->closing)
			pthread_cond_wait(&w->changed, &w->lock);
		struct job *j = w->first;
		if (!j)
			break;
		w->first = j->next;
		if (!w->first)
			w->last = NULL;
		w->busy = true;
		pthread_mutex_unlock(&w->lock);

		bool written = !w->failed && (!file_full(w) || next_file(w)) &&
		    write_job(w, j);

		pthread_mutex_lock(&w->lock);
		w->queued_bytes -= j->block_len;
		w->written += written;
		w->error = w->failed;
		w->busy = false;
		pthread_cond_broadcast(&w->changed);
		free(j);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

static uint64_t
enqueue(struct warc_writer *w, struct job *j)
{
	pthread_mutex_lock(&w->lock);
	while (w->first && w->queued_bytes + j->block_len > QUEUE_MAX_BYTES)
		pthread_cond_wait(&w->changed, &w->lock);
	if (w->last)
		w->last->next = j;
	else
		w->first = j;
	w->last = j;
	w->queued_bytes += j->block_len;
	uint64_t seq = ++w->given;
	pthread_cond_broadcast(&w->changed);
	pthread_mutex_unlock(&w->lock);
	return seq;
}

void
warc_writer_wait(struct warc_writer *w)
{
	pthread_mutex_lock(&w->lock);
	while (w->first || w->busy)
		pthread_cond_wait(&w->changed, &w->lock);
	pthread_mutex_unlock(&w->lock);
}

struct warc_writer *
warc_writer_open(const char *path, uint64_t max_size,
    const struct warc_field *info, size_t ninfo)
{
	struct warc_writer *w = wa_calloc(1, sizeof *w);
	w->path = wa_strdup(path);
	w->max_size = max_size;
	w->gz = ends_with(path, ".gz");
	w->info = wa_reallocarray(NULL, ninfo ? ninfo : 1, sizeof *w->info);
	for (size_t i = 0; i < ninfo; i++) {
		check_name(info[i].name);
		check_field(info[i].name, info[i].value);
		w->info[i].name = wa_strdup(info[i].name);
		w->info[i].value = wa_strdup(info[i].value);
	}
	w->ninfo = ninfo;
	if (w->gz && !(w->zc = libdeflate_alloc_compressor(WARC_GZIP_LEVEL)))
		wa_die("%s: cannot set up gzip compression", path);
	if (!open_file(w))
		wa_die("%s", w->failed);
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->changed, NULL);
	int rc = wa_thread_start(&w->thread, writer_thread, w);
	if (rc != 0) {
		errno = rc;
		wa_die_errno("%s: cannot start the writing thread", path);
	}
	return w;
}

uint64_t
warc_write(struct warc_writer *w, const char *type, const char *id,
    int64_t date_sec, long date_usec, const struct warc_field *fields,
    size_t nfields, const char *content_type, const struct iovec *block,
    int nblock)
{
	char idbuf[WARC_ID_SIZE];
	if (!id) {
		warc_new_id(idbuf);
		id = idbuf;
	}
	return enqueue(w, make_job(type, id, date_sec, date_usec, fields, nfields,
	    content_type, block, nblock));
}

uint64_t
warc_writer_written(struct warc_writer *w, const char **error)
{
	pthread_mutex_lock(&w->lock);
	uint64_t n = w->written;
	*error = w->error;
	pthread_mutex_unlock(&w->lock);
	return n;
}

const char *
warc_writer_path(struct warc_writer *w)
{
	warc_writer_wait(w);
	return file_full(w) ? w->next : w->cur;
}

void
warc_writer_close(struct warc_writer *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	w->closing = true;
	pthread_cond_broadcast(&w->changed);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	pthread_mutex_destroy(&w->lock);
	pthread_cond_destroy(&w->changed);
	/* After a write error the file holds whole records, or none; or
	 * there is no file, when the next one could not be made. */
	if (!w->af)
		;
	else if (w->error && w->size == 0)
		atomic_abort(w->af);
	else
		atomic_commit(w->af);
	free(w->error);
	libdeflate_free_compressor(w->zc);
	free(w->zout);
	for (size_t i = 0; i < w->ninfo; i++) {
		free((char *)(uintptr_t)w->info[i].name);
		free((char *)(uintptr_t)w->info[i].value);
	}
	free(w->info);
	free(w->cur);
	free(w->next);
	free(w->path);
	free(w);
}

/* ------------------------------------------------------------------ */
/* Reader */

/* Longest record header accepted: real ones are a few hundred bytes. */
#define MAX_HEADER (1 << 20)
#define IN_SIZE (1 << 16)
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
	FILE *fp;
	bool gz, in_eof, out_eof;
	uint64_t errors;

	unsigned char in[IN_SIZE];
	size_t in_pos, in_len;
	uint64_t in_base;	/* file offset of in[0] */
	z_stream zs;
	bool in_member;		/* inflate has begun a member */
	bool quiet_resync;	/* passing damaged gzip input already reported */
	uint64_t member_off;

	unsigned char *buf;	/* decompressed (or plain) bytes */
	size_t cap, pos, len;
	uint64_t ubase;		/* stream offset of buf[0] */

	struct mark *marks;
	size_t nmarks, marks_cap;

	char *hdr;		/* the record's header fields, NUL-separated */
	size_t hdr_cap;
	struct warc_field *fields;
	size_t fields_cap;

	uint64_t max_block;	/* longer blocks are cut (warc_reader_max_block) */
	size_t keep;		/* the bytes kept of a cut block */
	unsigned char *cut;	/* those bytes of the last one */
};

static void __attribute__((format(printf, 3, 4)))
reader_error(struct warc_reader *r, uint64_t offset, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	wa_warn("%s: offset %" PRIu64 ": %s", r->name, offset, msg);
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

static bool
read_input(struct warc_reader *r)
{
	if (r->in_eof)
		return false;
	if (r->in_pos == 0 && r->in_len == sizeof r->in)
		return true;
	if (r->in_pos == r->in_len) {
		r->in_base += r->in_len;
		r->in_pos = r->in_len = 0;
	} else if (r->in_pos > 0) {
		memmove(r->in, r->in + r->in_pos, r->in_len - r->in_pos);
		r->in_base += r->in_pos;
		r->in_len -= r->in_pos;
		r->in_pos = 0;
	}
	size_t n = fread(r->in + r->in_len, 1, sizeof r->in - r->in_len, r->fp);
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

static bool
is_token_char(unsigned char c)
{
	return c > 32 && c < 127 && !strchr("()<>@,;:\\\"/[]?={}", c);
}

static void
hdr_reserve(struct warc_reader *r, size_t n)
{
	if (r->hdr_cap < n) {
		r->hdr_cap = n;
		r->hdr = wa_realloc(r->hdr, n);
	}
}

static void
add_field(struct warc_reader *r, size_t nfields, char *name, char *value)
{
	if (nfields == r->fields_cap) {
		r->fields_cap = r->fields_cap ? 2 * r->fields_cap : 32;
		r->fields = wa_reallocarray(r->fields, r->fields_cap, sizeof *r->fields);
	}
	r->fields[nfields] = (struct warc_field){ name, value };
}

/* Parses the header buf[start, end) (its lines, without the empty line)
 * into r->hdr and r->fields.  Lines may end in CRLF or LF alone; lines
 * that begin with a space or a tab continue the previous field (RFC 822
 * folding, which WARC allows), joined by one space.  Returns the number
 * of fields, or -1 with *why set. */
static long
parse_header(struct warc_reader *r, size_t start, size_t end, const char **why,
    size_t *line_no)
{
	hdr_reserve(r, end - start + 1);
	memcpy(r->hdr, r->buf + start, end - start);
	r->hdr[end - start] = '\0';
	char *text = r->hdr, *eol;
	size_t n = 0;
	*line_no = 1;
	if (memchr(text, '\0', end - start)) {
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
		for (char *c = line; c < colon; c++)
			if (!is_token_char((unsigned char)*c)) {
				*why = "bad character in a field name";
				return -1;
			}
		*colon = '\0';
		char *value = colon + 1 + strspn(colon + 1, " \t");
		size_t vlen = strlen(value);
		while (vlen && (value[vlen - 1] == ' ' || value[vlen - 1] == '\t'))
			value[--vlen] = '\0';
		add_field(r, n++, line, value);
		last_value = value;
		line = next;
	}
	return (long)n;
}

/* The length of the line end at buf[at] (CRLF or LF), 0 if none; needs
 * the bytes to be there. */
static size_t
line_end(const struct warc_reader *r, size_t at)
{
	if (at < r->len && r->buf[at] == '\n')
		return 1;
	if (at + 1 < r->len && r->buf[at] == '\r' && r->buf[at + 1] == '\n')
		return 2;
	return 0;
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
			if ((hend = line_end(r, end)))
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
	long nf = parse_header(r, 0, end, &why, &line_no);
	if (nf < 0) {
		reader_error(r, off, "header line %zu: %s", line_no, why);
		return PARSE_BAD;
	}
	rec->fields = r->fields;
	rec->nfields = (size_t)nf;
	const char *cl = warc_field(rec, "Content-Length");
	if (!cl) {
		reader_error(r, off, "no Content-Length");
		return PARSE_BAD;
	}
	size_t digits = strspn(cl, "0123456789");
	uint64_t clen = strtoull(cl, NULL, 10);
	if (digits == 0 || cl[digits] || digits > 19) {
		reader_error(r, off, "bad Content-Length \"%.40s\"", cl);
		return PARSE_BAD;
	}
	if (clen > WARC_MAX_BLOCK) {
		reader_error(r, off, "Content-Length %" PRIu64 " is over the limit of %llu",
		    clen, (unsigned long long)WARC_MAX_BLOCK);
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
	size_t e1 = line_end(r, tail), e2 = e1 ? line_end(r, tail + e1) : 0;
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
	rec->version = r->hdr;
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

const char *
warc_field(const struct warc_record *rec, const char *name)
{
	for (size_t i = 0; i < rec->nfields; i++)
		if (strcasecmp(rec->fields[i].name, name) == 0)
			return rec->fields[i].value;
	return NULL;
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

struct warc_reader *
warc_reader_open(const char *path)
{
	struct warc_reader *r = wa_calloc(1, sizeof *r);
	r->max_block = WARC_MAX_BLOCK;
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
	free(r->buf);
	free(r->marks);
	free(r->hdr);
	free(r->fields);
	free(r->cut);
	free(r->name);
	free(r);
}
