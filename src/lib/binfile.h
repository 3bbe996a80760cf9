/* Binary files: graph, vectors, state (the layout is in man/wa-formats.5,
 * "BINARY FILES").
 *
 * A 64-byte header, then the payload:
 *
 *	 0  8 bytes  magic 0x89 'W' 'A' 'B' 0x0D 0x0A 0x1A 0x0A
 *	 8  u32      format version of this record kind, from 1
 *	12  4 bytes  record kind, four ASCII characters ("VEC8")
 *	16  u64      count: number of records
 *	24  u64      payload bytes
 *	32  u64 x3   aux[0..2]: kind-specific counts
 *	56  u32      CRC-32 (zlib) of the payload
 *	60  u32      CRC-32 of header bytes 0..59
 *	64           payload
 *
 * All integers are little-endian.  The header is encoded byte by byte,
 * but tools use the payload in place as an array of records (mmap), so
 * wa builds only on little-endian hosts.
 *
 * A writer writes to a temporary name beside the final one (atomic.h) and
 * dies on a write error.  The readers check everything and, on a bad file,
 * return a message "PATH: what is wrong" that the caller may show and go
 * on, or die with: if ((msg = bin_map_open(...))) wa_die("%s", msg);
 * The message lives in the reader's struct.  A reader whose open failed
 * holds nothing; closing it anyway is harmless. */
#ifndef WA_BINFILE_H
#define WA_BINFILE_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "wa uses binary payloads in place as little-endian arrays: big-endian hosts are not supported"
#endif

#define BIN_HEADER_BYTES 64
#define BIN_MSG_MAX (PATH_MAX + 200)

struct bin_header {
	uint32_t version;
	char kind[5];		/* four characters and a NUL */
	uint64_t count;		/* records */
	uint64_t payload_bytes;
	uint64_t aux[3];	/* kind-specific counts */
	uint32_t payload_crc;
};

/* Writing.  kind is four printable ASCII characters, version from 1. */
struct bin_writer *bin_create(const char *path, const char *kind, uint32_t version);
/* Appends payload bytes; the CRC and the byte count follow along. */
void bin_write(struct bin_writer *w, const void *buf, size_t n);
/* Fills in the header (aux NULL for none) and renames the file into place. */
void bin_commit(struct bin_writer *w, uint64_t count, const uint64_t aux[3]);
/* Drops the file: nothing appears under the final name. */
void bin_abort(struct bin_writer *w);

/* Reading the whole file through a read-only private mapping.  The open
 * checks everything, the payload CRC included (one pass over the data), so
 * the payload is trusted afterwards; for files larger than memory use the
 * streaming reader.  record_bytes is the size of one record, or 0 when
 * records vary in size.  wa never changes a file in place (its writers
 * rename), so a mapped file does not shrink under its reader. */
struct bin_map {
	struct bin_header h;
	const void *data;	/* h.payload_bytes of payload, 64-byte aligned */
	void *base;		/* the mapping, header included */
	size_t len;
	char msg[BIN_MSG_MAX];
};

const char *bin_map_open(struct bin_map *m, const char *path, const char *kind,
    uint32_t version, size_t record_bytes);
void bin_map_close(struct bin_map *m);

/* Reading the payload sequentially, in blocks of the caller's size, for
 * passes over data that does not fit in memory.  The open checks the
 * header and the file size; the payload CRC, and that the file ends with
 * the payload, are checked by the bin_read that returns the last payload
 * bytes, which then fails instead.  So the caller must not make the
 * results of a pass final (bin_commit) before the pass has read to the
 * end.  Works on pipes too: their size is only known at the end. */
struct bin_reader {
	struct bin_header h;
	uint64_t left;		/* payload bytes not yet read */
	int fd;
	uint32_t crc;
	char *path;
	char msg[BIN_MSG_MAX];
};

const char *bin_reader_open(struct bin_reader *r, const char *path, const char *kind,
    uint32_t version, size_t record_bytes);
/* Reads min(n, r->left) bytes (n > 0), so that *got is 0 only at the end
 * of the payload.  Returns NULL, or a message with *got 0. */
const char *bin_read(struct bin_reader *r, void *buf, size_t n, size_t *got);
void bin_reader_close(struct bin_reader *r);

#endif
