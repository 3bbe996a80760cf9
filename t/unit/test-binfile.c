/* The binary file format: layout, round trips through both readers, and
 * the message for every kind of damage. */
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "binfile.h"
#include "msg.h"
#include "tap.h"

#define NREC 100

static char dir[256];
static uint64_t rec[NREC];

static const char *
in_dir(const char *name)
{
	static char buf[4][PATH_MAX];
	static int next;
	char *p = buf[next++ % 4];
	snprintf(p, PATH_MAX, "%s/%s", dir, name);
	return p;
}

static int
not_dots(const struct dirent *d)
{
	return strcmp(d->d_name, ".") != 0 && strcmp(d->d_name, "..") != 0;
}

/* The names in the directory, sorted, separated by spaces. */
static char *
listing(void)
{
	struct dirent **ents;
	int n = scandir(dir, &ents, not_dots, alphasort);
	char *s = wa_strdup("");
	for (int i = 0; i < n; i++) {
		char *t = wa_asprintf("%s%s%s", s, i ? " " : "", ents[i]->d_name);
		free(s);
		s = t;
		free(ents[i]);
	}
	free(ents);
	return s;
}

/* How many entries of the directory are temporaries of name. */
static int
temporaries(const char *name)
{
	struct dirent **ents;
	int n = scandir(dir, &ents, not_dots, alphasort), found = 0;
	size_t len = strlen(name);
	for (int i = 0; i < n; i++) {
		const char *e = ents[i]->d_name;
		found += e[0] == '.' && strncmp(e + 1, name, len) == 0 && e[len + 1] == '.' &&
		    strlen(e + len + 2) == 6;
		free(ents[i]);
	}
	free(ents);
	return found;
}

static bool
exists(const char *name)
{
	struct stat st;
	return stat(in_dir(name), &st) == 0;
}

static unsigned char *
slurp(const char *path, size_t *len)
{
	struct stat st;
	int fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st) != 0)
		wa_die_errno("%s", path);
	unsigned char *b = wa_malloc((size_t)st.st_size);
	if (read(fd, b, (size_t)st.st_size) != st.st_size)
		wa_die_errno("%s", path);
	close(fd);
	*len = (size_t)st.st_size;
	return b;
}

static void
spill(int fd, const unsigned char *b, size_t len)
{
	while (len > 0) {
		ssize_t k = write(fd, b, len);
		if (k <= 0)
			return;
		b += k;
		len -= (size_t)k;
	}
}

static void
write_bytes(const char *path, const unsigned char *b, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		wa_die_errno("%s", path);
	spill(fd, b, len);
	close(fd);
}

/* Writes len payload bytes in pieces of chunk bytes (and an empty one). */
static void
write_file(const char *name, const char *kind, uint32_t version, const void *data,
    size_t len, size_t chunk, uint64_t count, const uint64_t aux[3])
{
	struct bin_writer *w = bin_create(in_dir(name), kind, version);
	bin_write(w, data, 0);
	for (size_t off = 0; off < len; off += chunk)
		bin_write(w, (const char *)data + off, len - off < chunk ? len - off : chunk);
	bin_commit(w, count, aux);
}

static uint64_t
le(const unsigned char *p, int n)
{
	uint64_t v = 0;
	while (n-- > 0)
		v = v << 8 | p[n];
	return v;
}

/* Both readers return a message or NULL; these keep a copy of it. */
static char *
map_msg(const char *path, const char *kind, uint32_t version, size_t rbytes)
{
	struct bin_map m;
	const char *msg = bin_map_open(&m, path, kind, version, rbytes);
	if (msg)
		return wa_strdup(msg);
	bin_map_close(&m);
	return NULL;
}

/* Reads the payload in blocks of 40 bytes into out, if not NULL. */
static char *
stream_msg(const char *path, const char *kind, uint32_t version, size_t rbytes,
    unsigned char *out)
{
	struct bin_reader r;
	unsigned char block[40];
	size_t got, off = 0;
	const char *msg = bin_reader_open(&r, path, kind, version, rbytes);
	while (!msg && !(msg = bin_read(&r, block, sizeof block, &got)) && got > 0) {
		if (out)
			memcpy(out + off, block, got);
		off += got;
	}
	char *copy = msg ? wa_strdup(msg) : NULL;
	bin_reader_close(&r);
	return copy;
}

static void
check_msg(const char *reader, const char *what, char *got, const char *path,
    const char *want)
{
	size_t n = strlen(path);
	bool pass = got && strncmp(got, path, n) == 0 && got[n] == ':' && strstr(got, want);
	ok(pass, "%s reader refuses %s: %s", reader, what, want);
	if (!pass)
		diag("got: %s", got ? got : "(accepted)");
	free(got);
}

static void
refuse(const char *what, const char *name, const char *kind, uint32_t version,
    size_t rbytes, const char *want)
{
	const char *path = in_dir(name);
	check_msg("mapped", what, map_msg(path, kind, version, rbytes), path, want);
	check_msg("streaming", what, stream_msg(path, kind, version, rbytes, NULL), path,
	    want);
}

enum change { KEEP, FLIP, CUT, APPEND, DROP };

/* bad.vec: x.vec with one change at byte at (CUT: the new length; APPEND:
 * how many bytes; FLIP: xor with arg). */
static unsigned char *
changed(enum change how, size_t at, unsigned arg, size_t *len)
{
	unsigned char *b = slurp(in_dir("x.vec"), len);
	switch (how) {
	case KEEP:
		break;
	case FLIP:
		b[at] ^= (unsigned char)arg;
		break;
	case CUT:
		*len = at;
		break;
	case APPEND:
		b = wa_realloc(b, *len + at);
		memset(b + *len, 0xaa, at);
		*len += at;
		break;
	case DROP:
		memmove(b + at, b + at + 1, --*len - at);
		break;
	}
	return b;
}

static void
refuse_changed(const char *what, enum change how, size_t at, unsigned arg, const char *want)
{
	size_t len;
	unsigned char *b = changed(how, at, arg, &len);
	write_bytes(in_dir("bad.vec"), b, len);
	free(b);
	refuse(what, "bad.vec", "VEC8", 1, 8, want);
}

/* The streaming reader on a pipe, which has no size to check at the open. */
static char *
fifo_msg(enum change how, size_t at, unsigned char *out)
{
	size_t len;
	unsigned char *b = changed(how, at, 1, &len);
	const char *path = in_dir("pipe");
	if (mkfifo(path, 0600) != 0)
		wa_die_errno("%s", path);
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		/* Quietly, under valgrind too, should the reader stop early. */
		signal(SIGPIPE, SIG_IGN);
		int fd = open(path, O_WRONLY);
		spill(fd, b, len);
		free(b);
		_exit(0);
	}
	free(b);
	char *msg = stream_msg(path, "VEC8", 1, 8, out);
	waitpid(pid, NULL, 0);
	unlink(path);
	return msg;
}

static void
test_layout(void)
{
	static const uint64_t aux[3] = { 0x0102030405060708, 6, 7 };
	write_file("x.vec", "VEC8", 1, rec, sizeof rec, 24, NREC, aux);

	size_t len;
	unsigned char *b = slurp(in_dir("x.vec"), &len);
	static const unsigned char magic[8] = { 0x89, 'W', 'A', 'B', 0x0d, 0x0a, 0x1a, 0x0a };
	static const unsigned char aux0[8] = { 8, 7, 6, 5, 4, 3, 2, 1 };
	ok(len == BIN_HEADER_BYTES + sizeof rec, "file is the header and the payload (%zu bytes)",
	    len);
	ok(memcmp(b, magic, 8) == 0, "magic at offset 0");
	ok(le(b + 8, 4) == 1, "version at offset 8");
	ok(memcmp(b + 12, "VEC8", 4) == 0, "kind at offset 12");
	ok(le(b + 16, 8) == NREC, "count at offset 16");
	ok(le(b + 24, 8) == sizeof rec, "payload bytes at offset 24");
	ok(memcmp(b + 32, aux0, 8) == 0, "aux[0] at offset 32, little-endian");
	ok(le(b + 40, 8) == 6 && le(b + 48, 8) == 7, "aux[1] and aux[2] at offsets 40 and 48");
	ok(le(b + 56, 4) == crc32(0, (const unsigned char *)rec, sizeof rec),
	    "payload CRC-32 at offset 56");
	ok(le(b + 60, 4) == crc32(0, b, 60), "header CRC-32 of bytes 0..59 at offset 60");
	ok(memcmp(b + 64, rec, sizeof rec) == 0, "payload at offset 64");
	free(b);
}

static void
test_map(void)
{
	struct bin_map m;
	const char *msg = bin_map_open(&m, in_dir("x.vec"), "VEC8", 1, 8);
	if (!ok(!msg, "mapped reader accepts the file"))
		diag("%s", msg);
	if (msg)
		return;
	ok(m.h.version == 1 && strcmp(m.h.kind, "VEC8") == 0, "header: kind and version");
	ok(m.h.count == NREC && m.h.payload_bytes == sizeof rec, "header: count and size");
	ok(m.h.aux[0] == 0x0102030405060708 && m.h.aux[1] == 6 && m.h.aux[2] == 7,
	    "header: aux counts");
	ok((uintptr_t)m.data % 8 == 0, "payload is aligned for an array of u64");
	ok(memcmp(m.data, rec, sizeof rec) == 0, "payload bytes as written");
	ok(((const uint64_t *)m.data)[NREC - 1] == rec[NREC - 1], "payload used as an array");
	bin_map_close(&m);
	m = (struct bin_map){ 0 };
	msg = bin_map_open(&m, in_dir("x.vec"), "VEC8", 1, 0);
	ok(!msg, "mapped reader accepts it as variable-size records");
	bin_map_close(&m);
}

static void
test_stream(void)
{
	struct bin_reader r;
	unsigned char all[sizeof rec], block[24];
	size_t got, off = 0, reads = 0, last = 0;
	const char *msg = bin_reader_open(&r, in_dir("x.vec"), "VEC8", 1, 8);
	ok(!msg && r.h.count == NREC && r.h.aux[2] == 7, "streaming reader accepts the header");
	while (!msg && !(msg = bin_read(&r, block, sizeof block, &got)) && got > 0) {
		memcpy(all + off, block, got);
		off += got;
		reads++;
		last = got;
	}
	ok(!msg, "streaming reader verifies the payload");
	ok(reads == 34 && last == 8, "blocks of the caller's size, a short one at the end");
	ok(off == sizeof rec && memcmp(all, rec, sizeof rec) == 0, "payload bytes as written");
	msg = bin_read(&r, block, sizeof block, &got);
	ok(!msg && got == 0, "reading past the end gives nothing");
	bin_reader_close(&r);

	msg = bin_reader_open(&r, in_dir("x.vec"), "VEC8", 1, 8);
	unsigned char big[4096];
	if (!msg)
		msg = bin_read(&r, big, sizeof big, &got);
	ok(!msg && got == sizeof rec && memcmp(big, rec, sizeof rec) == 0,
	    "a block larger than the payload reads it whole");
	bin_reader_close(&r);
}

static void
test_empty(void)
{
	struct bin_writer *w = bin_create(in_dir("e.vec"), "VEC8", 1);
	bin_commit(w, 0, NULL);
	struct stat st;
	ok(stat(in_dir("e.vec"), &st) == 0 && st.st_size == BIN_HEADER_BYTES,
	    "empty payload: the file is the header alone");

	struct bin_map m;
	const char *msg = bin_map_open(&m, in_dir("e.vec"), "VEC8", 1, 8);
	ok(!msg && m.h.count == 0 && m.h.payload_bytes == 0 && m.h.aux[0] == 0 &&
	    m.h.aux[2] == 0 && m.data, "empty payload: mapped reader accepts it");
	bin_map_close(&m);

	struct bin_reader r;
	size_t got = 1;
	unsigned char block[8];
	msg = bin_reader_open(&r, in_dir("e.vec"), "VEC8", 1, 8);
	if (!msg)
		msg = bin_read(&r, block, sizeof block, &got);
	ok(!msg && got == 0, "empty payload: streaming reader reads nothing");
	bin_reader_close(&r);
}

static void
test_visibility(void)
{
	struct bin_writer *w = bin_create(in_dir("y.vec"), "VEC8", 1);
	bin_write(w, rec, sizeof rec);
	ok(temporaries("y.vec") == 1 && !exists("y.vec"),
	    "while writing, only a hidden temporary beside the final name");
	bin_commit(w, NREC, NULL);
	ok(temporaries("y.vec") == 0 && exists("y.vec"),
	    "after commit, the final name and no temporary");

	char *before = listing();
	w = bin_create(in_dir("z.vec"), "VEC8", 1);
	bin_write(w, rec, sizeof rec);
	ok(temporaries("z.vec") == 1 && !exists("z.vec"), "a temporary exists before abort");
	bin_abort(w);
	char *after = listing();
	is_str(after, before, "abort leaves the directory as it was");
	free(after);
	free(before);
}

static void
test_damage(void)
{
	refuse_changed("a changed magic byte", FLIP, 1, 1, "not a wa binary file (bad magic)");
	refuse_changed("the last magic byte changed", FLIP, 7, 1,
	    "damaged wa binary file (bad magic: bytes changed as by a text-mode");
	refuse_changed("the high bit of the magic stripped", FLIP, 0, 0x80,
	    "damaged wa binary file (bad magic: bytes changed as by a text-mode or 7-bit");
	refuse_changed("CR LF turned into LF", DROP, 4, 0,
	    "damaged wa binary file (bad magic: bytes changed as by a text-mode");

	static const struct { size_t at; const char *field; } hdr[] = {
		{ 8, "version" }, { 11, "version" }, { 12, "kind" }, { 15, "kind" },
		{ 16, "count" }, { 23, "count" }, { 24, "payload bytes" },
		{ 31, "payload bytes" }, { 32, "aux[0]" }, { 40, "aux[1]" },
		{ 55, "aux[2]" }, { 56, "payload CRC" }, { 59, "payload CRC" },
		{ 60, "header CRC" }, { 63, "header CRC" },
	};
	for (size_t i = 0; i < sizeof hdr / sizeof hdr[0]; i++) {
		char what[80];
		snprintf(what, sizeof what, "a flipped byte %zu (%s)", hdr[i].at, hdr[i].field);
		refuse_changed(what, FLIP, hdr[i].at, 1,
		    "header checksum mismatch: the header is corrupt");
	}

	static const size_t payload[] = { 64, 64 + sizeof rec / 2, 64 + sizeof rec - 1 };
	for (size_t i = 0; i < 3; i++) {
		char what[80];
		snprintf(what, sizeof what, "a flipped payload byte %zu", payload[i]);
		refuse_changed(what, FLIP, payload[i], 0x40,
		    "payload checksum mismatch: the data is corrupt");
	}

	static const size_t in_header[] = { 0, 5, 8, 63 };
	for (size_t i = 0; i < 4; i++) {
		char what[80], want[80];
		snprintf(what, sizeof what, "a cut at byte %zu", in_header[i]);
		snprintf(want, sizeof want, "file shorter than the 64-byte header (%zu bytes)",
		    in_header[i]);
		refuse_changed(what, CUT, in_header[i], 0, want);
	}
	static const size_t in_payload[] = { 0, 1, 512, sizeof rec - 1 };
	for (size_t i = 0; i < 4; i++) {
		char what[80], want[100];
		snprintf(what, sizeof what, "a cut at payload byte %zu", in_payload[i]);
		snprintf(want, sizeof want, "truncated: the header promises 800 payload bytes, "
		    "the file has %zu", in_payload[i]);
		refuse_changed(what, CUT, 64 + in_payload[i], 0, want);
	}

	refuse_changed("one byte appended", APPEND, 1, 0, "1 byte after the end of the payload");
	refuse_changed("12 bytes appended", APPEND, 12, 0,
	    "12 bytes after the end of the payload");
	refuse_changed("a header's worth appended", APPEND, 64, 0,
	    "64 bytes after the end of the payload");
}

static void
test_expectations(void)
{
	refuse("another kind", "x.vec", "SLCE", 1, 8, "x.vec: is a 'VEC8' file, expected 'SLCE'");
	refuse("an older version", "x.vec", "VEC8", 2, 8,
	    "x.vec: format version 1, this wa reads version 2");
	write_file("v3.vec", "VEC8", 3, rec, sizeof rec, sizeof rec, NREC, NULL);
	refuse("a newer version", "v3.vec", "VEC8", 1, 8,
	    "v3.vec: format version 3, this wa reads version 1");
	refuse("another record size", "x.vec", "VEC8", 1, 12,
	    "x.vec: 100 records of 12 bytes do not make 800 payload bytes");

	unsigned char odd[804] = { 0 };
	write_file("odd.vec", "VEC8", 1, odd, sizeof odd, 100, NREC, NULL);
	refuse("a count that does not fit the size", "odd.vec", "VEC8", 1, 8,
	    "odd.vec: 100 records of 8 bytes do not make 804 payload bytes");
	char *msg = map_msg(in_dir("odd.vec"), "VEC8", 1, 0);
	ok(!msg, "records of varying size may make any size");
	free(msg);
	write_file("huge.vec", "VEC8", 1, rec, sizeof rec, sizeof rec, UINT64_C(1) << 62, NULL);
	refuse("a count whose size overflows", "huge.vec", "VEC8", 1, 8,
	    "huge.vec: 4611686018427387904 records of 8 bytes do not make 800 payload bytes");

	write_bytes(in_dir("text.tsv"), (const unsigned char *)"hello\n", 6);
	refuse("a short text file", "text.tsv", "VEC8", 1, 8, "not a wa binary file (bad magic)");
	refuse("a missing file", "none.vec", "VEC8", 1, 8,
	    "none.vec: cannot open: No such file or directory");
	const char *self = in_dir(".");
	check_msg("mapped", "a directory", map_msg(self, "VEC8", 1, 8), self,
	    "not a regular file, so it cannot be mapped");
	check_msg("streaming", "a directory", stream_msg(self, "VEC8", 1, 8, NULL), self,
	    "is a directory");
}

static void
test_pipe(void)
{
	unsigned char all[sizeof rec + 40];
	const char *path = in_dir("pipe");
	char *msg = fifo_msg(KEEP, 0, all);
	ok(!msg && memcmp(all, rec, sizeof rec) == 0, "a pipe: streaming reader reads it");
	free(msg);
	check_msg("streaming", "a cut pipe", fifo_msg(CUT, 64 + 512, NULL), path,
	    "truncated: the header promises 800 payload bytes, the file has 512");
	check_msg("streaming", "a pipe cut in the header", fifo_msg(CUT, 10, NULL), path,
	    "file shorter than the 64-byte header (10 bytes)");
	check_msg("streaming", "a pipe with more bytes", fifo_msg(APPEND, 12, NULL), path,
	    "12 bytes after the end of the payload");
	check_msg("streaming", "a corrupt pipe", fifo_msg(FLIP, 64 + 100, NULL), path,
	    "payload checksum mismatch: the data is corrupt");
}

static void
remove_all(void)
{
	struct dirent **ents;
	int n = scandir(dir, &ents, not_dots, alphasort);
	for (int i = 0; i < n; i++) {
		unlink(in_dir(ents[i]->d_name));
		free(ents[i]);
	}
	free(ents);
	rmdir(dir);
}

int
main(void)
{
	const char *tmpdir = getenv("TMPDIR");
	snprintf(dir, sizeof dir, "%s/test-binfile.XXXXXX", tmpdir ? tmpdir : "/tmp");
	if (!mkdtemp(dir))
		wa_die_errno("%s", dir);
	for (uint64_t i = 0; i < NREC; i++)
		rec[i] = i * i + 7;

	test_layout();
	test_map();
	test_stream();
	test_empty();
	test_visibility();
	test_damage();
	test_expectations();
	test_pipe();
	remove_all();
	return done_testing();
}
