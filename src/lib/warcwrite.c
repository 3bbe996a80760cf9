/* WARC files written (warc.h): one gzip member per record in a
 * compressed file, as annex D of the specification has it (RFC 1952). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libdeflate.h>
#include <openssl/evp.h>

#include "atomic.h"
#include "msg.h"
#include "scratch.h"
#include "thread.h"
#include "warc.h"

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

struct warc_writer {
	char *path;		/* the first file's name, or the prefix, as given */
	char *stamp_host;	/* with a prefix: "TIMESTAMP-HOST.warc.gz", or NULL */
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
	char *copy_path;	/* where every record goes too, or NULL */
	int copy_fd;
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

/* libdeflate's fastest level.  On the 230 MB of a crawl of documentation
 * it compressed 2.4 times as fast as level 6 (zlib's default), to files
 * 8% larger (22.6% of the plain size instead of 21.0%); compression was a
 * third of the fetch's CPU time at level 6. */
#define WARC_GZIP_LEVEL 1

/* The caller waits while this much is queued, so that memory stays bounded
 * when the disk or the compression is slower than the crawl. */
#define QUEUE_MAX_BYTES (64u << 20)

static bool
ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* The name of file number seq.  After a prefix: PREFIX-TIMESTAMP-SERIAL-HOST
 * and ".warc.gz".  After a path: "-00001" goes before the last ".warc" of
 * the base name, or else before a final ".gz", or else at the end. */
static char *
file_name(const struct warc_writer *w, unsigned seq)
{
	if (w->stamp_host)
		return wa_asprintf("%s-%.17s-%05u%s", w->path, w->stamp_host, seq,
		    w->stamp_host + 17);
	const char *path = w->path;
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

/* The timestamp of Heritrix's names (yyyyMMddHHmmssSSS, UTC) and
 * "-HOST.warc.gz", the host's bytes other than letters, digits, '.' and
 * '-' made '_': a name of the file system, on one line. */
static char *
stamp_and_host(const char *host)
{
	static const char host_chars[] =
	    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-";
	struct timespec now;
	struct tm tm;
	char stamp[16];
	clock_gettime(CLOCK_REALTIME, &now);
	if (!gmtime_r(&now.tv_sec, &tm) || !strftime(stamp, sizeof stamp, "%Y%m%d%H%M%S", &tm))
		wa_die("warc: the clock is out of range");
	char *s = wa_asprintf("%.14s%03ld-%s.warc.gz", stamp, now.tv_nsec / 1000000,
	    *host ? host : "_");
	char *end = s + strlen(s) - strlen(".warc.gz");
	for (char *p = s + 18; p < end; p++)
		if (!strchr(host_chars, *p))
			*p = '_';
	return s;
}

static void
check_field(const char *what, const char *s)
{
	if (strpbrk(s, "\r\n"))
		wa_die("warc: %s \"%.100s\" holds a line break", what, s);
}

static void
check_name(const char *name)
{
	if (!warc_field_name_valid(name, strlen(name)))
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
	const char *failed_path = w->cur;
	int err = 0;
	if (fwrite(rec, 1, len, fp) != len || fflush(fp) != 0)
		err = errno;
	else if (w->copy_path && !write_full(w->copy_fd, rec, len)) {
		err = errno;
		failed_path = w->copy_path;
	}
	if (err) {
		__fpurge(fp);
		clearerr(fp);
		if (ftruncate(fileno(fp), (off_t)start) != 0 ||
		    fseeko(fp, (off_t)start, SEEK_SET) != 0)
			err = errno;
		w->failed = wa_asprintf("%s: %s", failed_path, strerror(err));
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
	w->cur = file_name(w, w->seq);
	w->next = file_name(w, w->seq + 1);
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
 * caller learns of it from warc_writer_written. */
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

/* host NULL: the files are path and its numbered followers; else path
 * is the prefix of names with a timestamp and host. */
static struct warc_writer *
open_writer(const char *path, const char *host, uint64_t max_size,
    const struct warc_field *info, size_t ninfo, const char *copy_path)
{
	struct warc_writer *w = wa_calloc(1, sizeof *w);
	w->path = wa_strdup(path);
	if (host)
		w->stamp_host = stamp_and_host(host);
	if (copy_path) {
		w->copy_fd = open(copy_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
		if (w->copy_fd < 0)
			wa_die_errno("%s", copy_path);
		w->copy_path = wa_strdup(copy_path);
	}
	w->max_size = max_size;
	w->gz = host || ends_with(path, ".gz");
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

struct warc_writer *
warc_writer_open(const char *path, uint64_t max_size,
    const struct warc_field *info, size_t ninfo, const char *copy_path)
{
	return open_writer(path, NULL, max_size, info, ninfo, copy_path);
}

struct warc_writer *
warc_writer_open_named(const char *prefix, const char *host, uint64_t max_size,
    const struct warc_field *info, size_t ninfo, const char *copy_path)
{
	return open_writer(prefix, host, max_size, info, ninfo, copy_path);
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
	free(w->stamp_host);
	/* The copy's reader sees its end only now, after the last record. */
	if (w->copy_path)
		close(w->copy_fd);
	free(w->copy_path);
	free(w);
}
