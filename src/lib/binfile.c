#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "atomic.h"
#include "binfile.h"
#include "scratch.h"

#define CRC_STEP (4u << 20)
#include "msg.h"

/* PNG's trick: the high bit catches 7-bit channels, CR LF and LF catch
 * line-end conversion, ^Z stops a DOS "type". */
static const unsigned char magic[8] = { 0x89, 'W', 'A', 'B', 0x0d, 0x0a, 0x1a, 0x0a };

enum {
	OFF_VERSION = 8, OFF_KIND = 12, OFF_COUNT = 16, OFF_PAYLOAD = 24,
	OFF_AUX = 32, OFF_PAYLOAD_CRC = 56, OFF_HEADER_CRC = 60,
};

struct bin_writer {
	struct atomic_file *af;
	unsigned char kind[4];
	uint32_t version;
	uint64_t bytes;
	uint32_t crc;
};

/* The header's numbers are little-endian, of 4 or 8 bytes. */
static void
put_le(unsigned char *p, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		p[i] = (unsigned char)(v >> 8 * i);
}

static uint64_t
get_le(const unsigned char *p, int bytes)
{
	uint64_t v = 0;
	for (int i = bytes - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* A kind comes from the program, not from a file: a bad one is a bug. */
static void
check_kind(const char *kind)
{
	bool good = strlen(kind) == 4;
	for (int i = 0; good && i < 4; i++)
		good = kind[i] > ' ' && kind[i] < 0x7f;
	if (!good)
		wa_die("internal error: record kind '%s' is not four printable ASCII characters",
		    kind);
}

struct bin_writer *
bin_create(const char *path, const char *kind, uint32_t version)
{
	static const unsigned char blank[BIN_HEADER_BYTES];

	check_kind(kind);
	if (version == 0)
		wa_die("internal error: %s: format versions start at 1", kind);
	struct bin_writer *w = wa_calloc(1, sizeof *w);
	memcpy(w->kind, kind, 4);
	w->version = version;
	w->af = atomic_open(path);
	/* The header comes last, when the counts are known; until then the
	 * file has no magic, so not even a copied temporary passes for data. */
	if (fwrite(blank, 1, sizeof blank, w->af->fp) != sizeof blank)
		wa_die_errno("%s: write failed", w->af->path);
	return w;
}

void
bin_write(struct bin_writer *w, const void *buf, size_t n)
{
	/* crc32_z(crc, NULL, 0) would restart the CRC. */
	if (n == 0)
		return;
	if (fwrite(buf, 1, n, w->af->fp) != n)
		wa_die_errno("%s: write failed", w->af->path);
	w->crc = (uint32_t)crc32_z(w->crc, buf, n);
	w->bytes += n;
}

void
bin_commit(struct bin_writer *w, uint64_t count, const uint64_t aux[3])
{
	unsigned char h[BIN_HEADER_BYTES];

	memcpy(h, magic, sizeof magic);
	put_le(h + OFF_VERSION, w->version, 4);
	memcpy(h + OFF_KIND, w->kind, 4);
	put_le(h + OFF_COUNT, count, 8);
	put_le(h + OFF_PAYLOAD, w->bytes, 8);
	for (int i = 0; i < 3; i++)
		put_le(h + OFF_AUX + 8 * i, aux ? aux[i] : 0, 8);
	put_le(h + OFF_PAYLOAD_CRC, w->crc, 4);
	put_le(h + OFF_HEADER_CRC, (uint32_t)crc32(0, h, OFF_HEADER_CRC), 4);
	if (fseeko(w->af->fp, 0, SEEK_SET) != 0 ||
	    fwrite(h, 1, sizeof h, w->af->fp) != sizeof h)
		wa_die_errno("%s: write failed", w->af->path);
	atomic_commit(w->af);
	free(w);
}

void
bin_abort(struct bin_writer *w)
{
	atomic_abort(w->af);
	free(w);
}

static const char * __attribute__((format(printf, 3, 4)))
say(char *msg, const char *path, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(msg, BIN_MSG_MAX, "%s: ", path);
	if (n >= 0 && n < BIN_MSG_MAX) {
		va_start(ap, fmt);
		vsnprintf(msg + n, BIN_MSG_MAX - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return msg;
}

static const char *
after_payload(char *msg, const char *path, uint64_t extra)
{
	return say(msg, path, "%" PRIu64 " byte%s after the end of the payload", extra,
	    extra == 1 ? "" : "s");
}

static const char *
payload_crc_mismatch(char *msg, const char *path)
{
	return say(msg, path, "payload checksum mismatch: the data is corrupt");
}

/* Reads and checks the header at the start of fd.  size is the file's
 * size, or -1 for a pipe, whose payload size is checked at its end. */
static const char *
check_header(int fd, off_t size, const char *path, const char *kind, uint32_t version,
    size_t record_bytes, struct bin_header *h, char *msg)
{
	unsigned char b[BIN_HEADER_BYTES];

	ssize_t got = read_full(fd, b, sizeof b);
	if (got < 0)
		return say(msg, path, "read error: %s", strerror(errno));
	size_t nmagic = (size_t)got < sizeof magic ? (size_t)got : sizeof magic;
	if (memcmp(b, magic, nmagic) != 0) {
		/* The magic's own purpose: name what changed it. */
		if (nmagic == sizeof magic && memcmp(b + 1, magic + 1, 3) == 0)
			return say(msg, path, "damaged wa binary file (bad magic: bytes changed "
			    "as by a text-mode or 7-bit transfer)");
		return say(msg, path, "not a wa binary file (bad magic)");
	}
	if ((size_t)got < sizeof b)
		return say(msg, path, "file shorter than the %d-byte header (%zd bytes)",
		    BIN_HEADER_BYTES, got);
	/* Before any field is believed: a damaged kind or version must not
	 * pass for another kind or version. */
	if (get_le(b + OFF_HEADER_CRC, 4) != (uint32_t)crc32(0, b, OFF_HEADER_CRC))
		return say(msg, path, "header checksum mismatch: the header is corrupt");

	h->version = (uint32_t)get_le(b + OFF_VERSION, 4);
	for (int i = 0; i < 4; i++) {
		unsigned char c = b[OFF_KIND + i];
		h->kind[i] = c > ' ' && c < 0x7f ? (char)c : '?';
	}
	h->kind[4] = '\0';
	h->count = get_le(b + OFF_COUNT, 8);
	h->payload_bytes = get_le(b + OFF_PAYLOAD, 8);
	for (int i = 0; i < 3; i++)
		h->aux[i] = get_le(b + OFF_AUX + 8 * i, 8);
	h->payload_crc = (uint32_t)get_le(b + OFF_PAYLOAD_CRC, 4);

	if (memcmp(b + OFF_KIND, kind, 4) != 0)
		return say(msg, path, "is a '%s' file, expected '%s'", h->kind, kind);
	if (h->version != version)
		return say(msg, path, "format version %" PRIu32 ", this wa reads version %"
		    PRIu32, h->version, version);
	if (size >= 0) {
		/* The file may have shrunk since the header was read. */
		uint64_t have = size > BIN_HEADER_BYTES ? (uint64_t)size - BIN_HEADER_BYTES : 0;
		if (have < h->payload_bytes)
			return say(msg, path, "truncated: the header promises %" PRIu64
			    " payload bytes, the file has %" PRIu64, h->payload_bytes, have);
		if (have > h->payload_bytes)
			return after_payload(msg, path, have - h->payload_bytes);
	}
	if (record_bytes > 0 && (h->count > UINT64_MAX / record_bytes ||
	    h->count * record_bytes != h->payload_bytes))
		return say(msg, path, "%" PRIu64 " records of %zu bytes do not make %" PRIu64
		    " payload bytes", h->count, record_bytes, h->payload_bytes);
	return NULL;
}

/* Drops the whole pages of [addr, addr+len) of a mapping from this
 * process's memory; a file mapping reads them back from the page cache on
 * the next access. */
static void
release(const void *addr, size_t len)
{
	static uintptr_t page;
	if (!page)
		page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t lo = ((uintptr_t)addr + page - 1) & ~(page - 1);
	uintptr_t hi = ((uintptr_t)addr + len) & ~(page - 1);
	if (hi > lo)
		madvise((void *)lo, hi - lo, MADV_DONTNEED);
}

static const char *
map_fd(struct bin_map *m, int fd, const char *path, const char *kind, uint32_t version,
    size_t record_bytes)
{
	struct stat st;

	if (fstat(fd, &st) != 0)
		return say(m->msg, path, "%s", strerror(errno));
	if (!S_ISREG(st.st_mode))
		return say(m->msg, path, "not a regular file, so it cannot be mapped");
	const char *msg = check_header(fd, st.st_size, path, kind, version, record_bytes,
	    &m->h, m->msg);
	if (msg)
		return msg;
#if SIZE_MAX < UINT64_MAX
	if ((uint64_t)st.st_size > SIZE_MAX)
		return say(m->msg, path, "too large to map on this system");
#endif
	/* Not empty: the header is there. */
	void *base = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (base == MAP_FAILED)
		return say(m->msg, path, "cannot map: %s", strerror(errno));
	const unsigned char *data = (const unsigned char *)base + BIN_HEADER_BYTES;
	/* In steps, each dropped from this process's memory once read, so that
	 * checking a file larger than the memory budget does not count against
	 * it; the pages stay in the page cache for the caller. */
	uint32_t crc = (uint32_t)crc32_z(0, NULL, 0);
	for (uint64_t off = 0; off < m->h.payload_bytes; off += CRC_STEP) {
		uint64_t n = m->h.payload_bytes - off < CRC_STEP ? m->h.payload_bytes - off : CRC_STEP;
		crc = (uint32_t)crc32_z(crc, data + off, n);
		release(data + off, n);
	}
	if (crc != m->h.payload_crc) {
		munmap(base, (size_t)st.st_size);
		return payload_crc_mismatch(m->msg, path);
	}
	m->base = base;
	m->len = (size_t)st.st_size;
	m->data = data;
	return NULL;
}

const char *
bin_map_open(struct bin_map *m, const char *path, const char *kind, uint32_t version,
    size_t record_bytes)
{
	check_kind(kind);
	*m = (struct bin_map){ 0 };
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return say(m->msg, path, "cannot open: %s", strerror(errno));
	const char *msg = map_fd(m, fd, path, kind, version, record_bytes);
	close(fd);
	return msg;
}

void
bin_map_close(struct bin_map *m)
{
	if (m->base)
		munmap(m->base, m->len);
	m->base = NULL;
	m->data = NULL;
}

/* At the end of the payload: the file must end too, and the CRC match. */
static const char *
finish(struct bin_reader *r)
{
	unsigned char b[4096];
	uint64_t extra = 0;
	ssize_t k;

	while ((k = read_full(r->fd, b, sizeof b)) > 0)
		extra += (uint64_t)k;
	if (k < 0)
		return say(r->msg, r->path, "read error: %s", strerror(errno));
	if (extra > 0)
		return after_payload(r->msg, r->path, extra);
	if (r->crc != r->h.payload_crc)
		return payload_crc_mismatch(r->msg, r->path);
	return NULL;
}

const char *
bin_reader_open(struct bin_reader *r, const char *path, const char *kind, uint32_t version,
    size_t record_bytes)
{
	struct stat st;
	const char *msg;

	check_kind(kind);
	*r = (struct bin_reader){ .fd = -1 };
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return say(r->msg, path, "cannot open: %s", strerror(errno));
	if (fstat(fd, &st) != 0)
		msg = say(r->msg, path, "%s", strerror(errno));
	else if (S_ISDIR(st.st_mode))
		msg = say(r->msg, path, "is a directory");
	else
		msg = check_header(fd, S_ISREG(st.st_mode) ? st.st_size : -1, path, kind,
		    version, record_bytes, &r->h, r->msg);
	if (msg) {
		close(fd);
		return msg;
	}
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	r->fd = fd;
	r->path = wa_strdup(path);
	r->left = r->h.payload_bytes;
	if (r->left == 0 && (msg = finish(r)))
		bin_reader_close(r);
	return msg;
}

const char *
bin_read(struct bin_reader *r, void *buf, size_t n, size_t *got)
{
	const char *msg;

	*got = 0;
	if (r->left == 0)
		return NULL;
	size_t want = n < r->left ? n : (size_t)r->left;
	ssize_t k = read_full(r->fd, buf, want);
	if (k < 0)
		return say(r->msg, r->path, "read error: %s", strerror(errno));
	if ((size_t)k < want)
		return say(r->msg, r->path, "truncated: the header promises %" PRIu64
		    " payload bytes, the file has %" PRIu64, r->h.payload_bytes,
		    r->h.payload_bytes - r->left + (uint64_t)k);
	r->crc = (uint32_t)crc32_z(r->crc, buf, want);
	r->left -= want;
	if (r->left == 0 && (msg = finish(r)))
		return msg;
	*got = want;
	return NULL;
}

void
bin_reader_close(struct bin_reader *r)
{
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
	free(r->path);
	r->path = NULL;
}
