/* Fuzz target: reading the header of wa's binary files (src/lib/binfile.h)
 * by both readers, on a file and on a pipe.
 *
 * Input: a mode byte, then the file.  The mode chooses the kind, version
 * and record size asked for and whether the harness first writes the
 * right payload size and CRCs into the header, so that the fuzzer gets
 * past the checksums to the fields behind them.  Checks, beyond no crash
 * and no sanitizer finding:
 *   - bin_map_open, and bin_reader_open with bin_read to the end on the
 *     file and on a pipe, accept exactly the files that a model written
 *     here from the layout in binfile.h accepts: the magic, 64 bytes of
 *     header with its CRC, the kind and version asked for, a payload size
 *     that is the rest of the file, a count of records that makes it, and
 *     the payload's CRC;
 *   - an accepted file's header fields are its bytes read little-endian,
 *     and both readers give the payload bytes of the file, the mapped one
 *     64-byte aligned;
 *   - a refusal is a message "PATH: ...". */
#include <stdbool.h>
#include <zlib.h>

#include "binfile.h"
#include "fuzz.h"

static uint64_t
bin_le(const unsigned char *b, int n)
{
	uint64_t v = 0;
	for (int i = n; i-- > 0;)
		v = v << 8 | b[i];
	return v;
}

static void
bin_put_le(unsigned char *b, uint64_t v, int n)
{
	for (int i = 0; i < n; i++, v >>= 8)
		b[i] = (unsigned char)v;
}

static void
bin_check_refusal(const char *msg, const char *path, const char *who)
{
	size_t pl = strlen(path);
	fuzz_check(strncmp(msg, path, pl) == 0 && msg[pl] == ':' && msg[pl + 1] == ' ',
	    "%s: message \"%.200s\" does not name the file", who, msg);
}

/* Reads the whole payload with the streaming reader; NULL and the payload
 * in *out, or the message. */
static const char *
bin_stream(struct bin_reader *r, const char *path, const char *kind, uint32_t version,
    size_t record_bytes, unsigned char *out, size_t cap, size_t *len)
{
	const char *msg = bin_reader_open(r, path, kind, version, record_bytes);
	*len = 0;
	if (msg)
		return msg;
	for (;;) {
		size_t got, step = 1 + *len % 97;	/* blocks of varying sizes */
		if (step > cap - *len)
			step = cap - *len > 0 ? cap - *len : 1;
		unsigned char spare[97];
		msg = bin_read(r, cap - *len > 0 ? out + *len : spare, step, &got);
		if (msg || got == 0)
			break;
		*len += got;
	}
	bin_reader_close(r);
	return msg;
}

/* The streaming reader on path (the bytes of file, n of them, as a file
 * or a pipe) accepts exactly what the model accepts, and reads the
 * payload as it is. */
static void
check_stream(const char *path, const char *as, const unsigned char *file, size_t n,
    bool model, const char *kind, uint32_t version, size_t record_bytes,
    unsigned char *payload)
{
	struct bin_reader r;
	size_t len;
	const char *msg = bin_stream(&r, path, kind, version, record_bytes, payload, n, &len);

	fuzz_check((msg == NULL) == model, "bin_reader on %s %s, the model %s", as,
	    msg ? msg : "accepts", model ? "accepts" : "refuses");
	if (msg)
		bin_check_refusal(msg, path, "bin_reader");
	else
		fuzz_check(len == n - 64 && memcmp(payload, file + 64, len) == 0,
		    "bin_read on %s gave other payload bytes", as);
}

static int
bin_fuzz_one(const uint8_t *data, size_t size)
{
	static const struct {
		const char *kind;
		uint32_t version;
		size_t record_bytes;
	} asks[] = {
		{ "VEC8", 1, 8 }, { "GRPH", 2, 0 }, { "TEST", 1, 12 }, { "STAT", 3, 1 },
	};
	if (size < 1)
		return 0;
	unsigned mode = data[0];
	const char *kind = asks[mode & 3].kind;
	uint32_t version = asks[mode & 3].version;
	size_t record_bytes = asks[mode & 3].record_bytes;
	size_t n = size - 1;
	unsigned char *file = wa_malloc(n + 1);
	memcpy(file, data + 1, n);
	if ((mode & 4) && n >= BIN_HEADER_BYTES) {
		/* Sizes and checksums made right: the fields behind them count. */
		if (mode & 8)
			bin_put_le(file + 24, n - BIN_HEADER_BYTES, 8);
		bin_put_le(file + 56, crc32(0, file + BIN_HEADER_BYTES,
		    (uInt)(n - BIN_HEADER_BYTES)), 4);
		bin_put_le(file + 60, crc32(0, file, 60), 4);
	}

	static const unsigned char magic[8] = { 0x89, 'W', 'A', 'B', 0x0d, 0x0a, 0x1a, 0x0a };
	bool model = n >= BIN_HEADER_BYTES && memcmp(file, magic, 8) == 0 &&
	    bin_le(file + 60, 4) == crc32(0, file, 60) && memcmp(file + 12, kind, 4) == 0 &&
	    bin_le(file + 8, 4) == version && bin_le(file + 24, 8) == n - BIN_HEADER_BYTES &&
	    bin_le(file + 56, 4) == crc32(0, file + BIN_HEADER_BYTES,
	    (uInt)(n - BIN_HEADER_BYTES));
	if (model && record_bytes) {
		uint64_t count = bin_le(file + 16, 8);
		model = count <= UINT64_MAX / record_bytes &&
		    count * record_bytes == n - BIN_HEADER_BYTES;
	}

	int fd;
	char path[64];
	fuzz_path(file, n, &fd, path);
	struct bin_map m;
	const char *msg = bin_map_open(&m, path, kind, version, record_bytes);
	fuzz_check((msg == NULL) == model, "bin_map_open %s, the model %s",
	    msg ? msg : "accepts", model ? "accepts" : "refuses");
	if (msg) {
		bin_check_refusal(msg, path, "bin_map_open");
	} else {
		fuzz_check(m.h.version == version && strcmp(m.h.kind, kind) == 0 &&
		    m.h.count == bin_le(file + 16, 8) && m.h.payload_bytes == n - 64 &&
		    m.h.aux[0] == bin_le(file + 32, 8) && m.h.aux[1] == bin_le(file + 40, 8) &&
		    m.h.aux[2] == bin_le(file + 48, 8) && m.h.payload_crc == bin_le(file + 56, 4),
		    "bin_map_open: header fields differ from the bytes");
		fuzz_check(((uintptr_t)m.data & 63) == 0, "payload not 64-byte aligned");
		fuzz_check(memcmp(m.data, file + 64, n - 64) == 0, "mapped payload differs");
		bin_map_close(&m);
	}

	unsigned char *payload = wa_malloc(n + 1);
	check_stream(path, "a file", file, n, model, kind, version, record_bytes, payload);
	close(fd);

	/* The same through a pipe, whose size is only known at its end. */
	int p[2];
	if (pipe(p) != 0)
		wa_die_errno("pipe");
	if (write(p[1], file, n) != (ssize_t)n)
		wa_die_errno("pipe write");
	close(p[1]);
	snprintf(path, sizeof path, "/proc/self/fd/%d", p[0]);
	check_stream(path, "a pipe", file, n, model, kind, version, record_bytes, payload);
	close(p[0]);
	free(payload);
	free(file);
	return 0;
}

FUZZ_TARGET(bin_fuzz_one)
