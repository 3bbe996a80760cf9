/* WARC/1.1 files (ISO 28500:2017): writing for wa-fetch, reading for
 * wa-extract.  One module in three files: the records and their fields
 * (warc.c), the writer (warcwrite.c), the reader (warcread.c).
 *
 * Writing: each record is its own gzip member when the file name ends in
 * ".gz" (so a reader may seek to any record), plain otherwise.  Every file
 * begins with a warcinfo record.  A file is written under a temporary name
 * and renamed into place when it is closed (atomic.h), so a killed run
 * never leaves a half file under a final name.  When a file has reached
 * the size limit, the next record opens a new file.  The files are named
 * either after a path, the first file PATH itself, the next ones with
 * "-00001", "-00002"... before the ".warc" ("crawl.warc.gz",
 * "crawl-00001.warc.gz"); or after a prefix, as Heritrix names its files
 * and the IIPC recommends, PREFIX-TIMESTAMP-SERIAL-HOST.warc.gz
 * ("wa-20261126162657123-00000-crawler1.warc.gz"): TIMESTAMP the UTC time
 * the writer opened its first file, to the millisecond, yyyyMMddHHmmssSSS;
 * SERIAL 00000, 00001... for the files in turn.  The files of one writer
 * thus sort by name in the order written, and those of writers on other
 * hosts, or started at other times, have other names.  A thread of the
 * writer's own compresses and writes the records in the order given:
 * warc_write copies the block and returns, waiting only while 64 MiB are
 * queued; warc_writer_close writes the rest.  A write error does not end
 * the process from that thread: the caller asks warc_writer_written.
 *
 * Reading: files or stdin, gzip (one member per record or one member for
 * all) or plain, detected by magic.  A record that cannot be read is
 * reported as "FILE: offset N: reason" and the reader skips to the next
 * record it can find. */
#ifndef WA_WARC_H
#define WA_WARC_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

/* "<urn:uuid:xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx>" and its NUL. */
#define WARC_ID_SIZE 48
/* "sha1:" and 32 base32 characters and a NUL. */
#define WARC_DIGEST_SIZE 38
/* Largest record block the reader accepts. */
#define WARC_MAX_BLOCK (1ULL << 30)

/* ---- Records (warc.c) ---- */

struct warc_field {
	const char *name, *value;
};

struct warc_record {
	uint64_t offset;	/* where the record starts in the file */
	/* Where it ends, so that [offset, end) is the record alone, the
	 * bytes an index points a reader to.  Plain input: the end of the
	 * block (the CRLF CRLF after it not counted, as warcio and pywb
	 * count a record's length).  Gzip input: the end of the record's
	 * member, which is where the next member begins (so damaged bytes
	 * between the two count too) or the end of the input; 0 if the
	 * record does not end its member (a member of several records). */
	uint64_t end;
	const char *version;	/* "WARC/1.1" */
	struct warc_field *fields;	/* the header fields, in order */
	size_t nfields;
	const unsigned char *block;	/* the block, Content-Length bytes */
	size_t block_len;	/* less than length if the block was cut */
	uint64_t length;	/* Content-Length */
};

/* A fresh record id. */
void warc_new_id(char id[WARC_ID_SIZE]);
/* "sha1:" and the base32 of a SHA-1 digest. */
void warc_digest_format(const unsigned char sha1[20], char out[WARC_DIGEST_SIZE]);
/* Whether name[0, len) is a field name: one or more token characters of
 * RFC 2616 (sec. 2.2), printable ASCII but the separators. */
bool warc_field_name_valid(const char *name, size_t len);
/* The value of the header field name (case-insensitive), or NULL. */
const char *warc_field(const struct warc_record *rec, const char *name);
/* The record's WARC-Target-URI (malloc'ed), out of the angle brackets
 * that WARC 1.0 writers (wget) put around it; NULL if it has none or an
 * empty one. */
char *warc_target_uri(const struct warc_record *rec);

/* ---- Writing (warcwrite.c) ---- */

struct warc_writer;

/* Opens PATH (then its numbered followers); max_size 0 is no limit.  info are the fields of the
 * warcinfo record's block ("software", "format", "operator"...).  With
 * copy_path, every record is written there too, right after it is written
 * to its file, as the same bytes: the copy is the concatenation of the
 * files, for a reader that works while they are written (a pipe,
 * /dev/fd/N).  It is opened for writing (created if need be; dies if it
 * cannot be) and closed by warc_writer_close; a record that cannot be
 * written to it is a write error, as one to the file is. */
struct warc_writer *warc_writer_open(const char *path, uint64_t max_size,
    const struct warc_field *info, size_t ninfo, const char *copy_path);
/* The same, the files named PREFIX-TIMESTAMP-SERIAL-HOST.warc.gz (gzip):
 * prefix may begin with a directory ("state/cycle-3/wa"); in host, the
 * bytes other than ASCII letters, digits, '.' and '-' become '_' (an empty
 * host is "_"). */
struct warc_writer *warc_writer_open_named(const char *prefix, const char *host,
    uint64_t max_size, const struct warc_field *info, size_t ninfo,
    const char *copy_path);
/* Writes one record: WARC/1.1, WARC-Type type, WARC-Record-ID id (a fresh
 * one if NULL), WARC-Date date (Unix seconds, microseconds), the fields
 * given (WARC-Target-URI, WARC-IP-Address, WARC-Payload-Digest...),
 * Content-Type content_type, WARC-Block-Digest and Content-Length of the
 * block, which is the concatenation of the iov pieces.  Returns the
 * record's number, 1 for the first given; a bad field ends the process. */
uint64_t warc_write(struct warc_writer *w, const char *type, const char *id,
    int64_t date_sec, long date_usec, const struct warc_field *fields,
    size_t nfields, const char *content_type, const struct iovec *block,
    int nblock);
/* The name of the file the next record goes to, once the records given
 * so far are written. */
const char *warc_writer_path(struct warc_writer *w);
/* How many of the records given are written (handed to the kernel, in
 * order); *error is NULL, or the file and the reason ("crawl.warc.gz: No
 * space left on device") of the write error that stopped the writing, after
 * which the records given are dropped and the file ends with its last
 * whole record. */
uint64_t warc_writer_written(struct warc_writer *w, const char **error);
/* Waits until every record given so far is written (or dropped). */
void warc_writer_wait(struct warc_writer *w);
/* Closes and renames the current file into place (after a write error,
 * one with no record is removed). */
void warc_writer_close(struct warc_writer *w);

/* ---- Reading (warcread.c) ---- */

struct warc_reader;

/* path NULL or "-" reads stdin.  Dies if the file cannot be opened. */
struct warc_reader *warc_reader_open(const char *path);
/* The next record; false at the end of the input.  The record's memory
 * is the reader's until the next call. */
bool warc_read(struct warc_reader *r, struct warc_record *rec);
/* A buffer of the reader's, handed over with a record's block. */
struct warc_buffer {
	unsigned char *data;	/* malloc'ed, or NULL */
	size_t cap;		/* its size */
	size_t used;		/* the bytes in it: the record's and those read past it */
};
/* Hands the buffer that holds the block of rec, the record warc_read gave
 * last, over to the caller, so that a caller who keeps records need not
 * copy their blocks: rec->block stays valid in *buf, which becomes the
 * caller's, while the reader goes on in the buffer that *buf held (data
 * NULL: none), into which it moves the bytes it has read past the record.
 * The record's version and fields stay the reader's, until the next call.
 * False, and *buf left as it was, for a block cut by warc_reader_max_block,
 * which the reader keeps apart. */
bool warc_reader_take_block(struct warc_reader *r, const struct warc_record *rec,
    struct warc_buffer *buf);
/* From now on, a block of more than max bytes is cut: the record holds
 * its first keep bytes (keep <= max), and the rest is read past, never held
 * whole.  By default no block is cut. */
void warc_reader_max_block(struct warc_reader *r, uint64_t max, size_t keep);
/* Records skipped because they could not be read. */
uint64_t warc_reader_errors(const struct warc_reader *r);
/* What the reader skips is told as "FILE: offset N: reason" (no program
 * name, no line end) to fn(arg, message), from within warc_read; by
 * default with wa_warn.  A reader that runs ahead of its writer keeps the
 * messages to tell them in their place. */
typedef void warc_problem_fn(void *arg, const char *message);
void warc_reader_on_problem(struct warc_reader *r, warc_problem_fn *fn, void *arg);
void warc_reader_close(struct warc_reader *r);

/* ---- Reading gzip members on other threads (warcread.c) ----
 *
 * In a file of one gzip member per record, the reader may hand out the
 * compressed members, for other threads to inflate and read, rather than
 * inflate them itself.  A gzip header does not tell where its member ends:
 * the reader takes the member to end where the next gzip magic begins,
 * which a thread checks as it inflates.  A member that is not one whole
 * record, alone and undamaged (of which the reader would tell something),
 * is then read again by warc_read from its start, in its place, with what
 * follows: every record and message comes as warc_read alone gives it. */

/* The header fields of a record, parsed: storage reused from record to
 * record. */
struct warc_header_store {
	char *text;		/* the header, NUL-separated */
	size_t text_cap;
	struct warc_field *fields;
	size_t fields_cap;
};

/* A gzip member handed out (warc_read_member). */
struct warc_member {
	uint64_t offset;	/* its place in the file */
	uint64_t end;		/* where the next gzip magic begins, or the input ends */
	bool ends_input;	/* end is the end of the input */
	uint64_t max_block;	/* longer blocks are cut to keep bytes, as */
	size_t keep;		/* the reader cuts them (warc_reader_max_block) */
	struct warc_buffer bytes;	/* the file's bytes [offset, end) */
	struct warc_header_store header;	/* of the record read from it */
};

/* Whether the reader hands out members, from a warc_reader_resume that
 * says so until this says no or warc_reader_rewind.  If so, copies the
 * member at the reader's place into m and passes it; else (the input has
 * ended, or has no gzip magic within 1 MiB) false, and the next record is
 * warc_read's.  Every member handed out is kept, for warc_reader_rewind,
 * until warc_reader_release. */
bool warc_read_member(struct warc_reader *r, struct warc_member *m);
/* The members handed out that begin before offset are done with. */
void warc_reader_release(struct warc_reader *r, uint64_t offset);
/* Goes back to the member handed out at offset, not released, and reads
 * on with warc_read from there, as if nothing after it had been handed
 * out. */
void warc_reader_rewind(struct warc_reader *r, uint64_t offset);
/* Called after warc_read: whether the reader hands out members from now
 * on, which it does if the record read ended a gzip input's member and
 * the next member, which warc_read reads into, was inflated whole and
 * undamaged (warc_read_member then hands that one out first). */
bool warc_reader_resume(struct warc_reader *r);

enum warc_member_state {
	/* Not inflated whole over exactly its bytes, or to less than 5
	 * bytes, or with a header CRC (libdeflate checks none): warc_read
	 * must read it, and may tell something of it as it reads past the
	 * record before it. */
	WARC_MEMBER_BAD,
	/* Inflated, but not one record as warc_read reads it. */
	WARC_MEMBER_OTHER,
	/* One record, alone: in rec, as warc_read gives it if the next
	 * member is not WARC_MEMBER_BAD (or m ends the input). */
	WARC_MEMBER_RECORD,
};
/* Inflates m with d (libdeflate's, one for each thread) into out (its
 * bytes used) and reads its record into rec: the block in out, the fields
 * in m->header. */
struct libdeflate_decompressor;
enum warc_member_state warc_member_read(struct libdeflate_decompressor *d,
    struct warc_member *m, struct warc_buffer *out, struct warc_record *rec);
/* Frees what m holds. */
void warc_member_free(struct warc_member *m);
#endif
