/* Content decoding with zlib and libbrotlidec (see decoded.h). */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "decoded.h"
#include "msg.h"

enum { DECODED_IDENTITY, DECODED_GZIP, DECODED_DEFLATE, DECODED_BROTLI, DECODED_UNKNOWN };

/* The coding of the n bytes at ce. */
static int
mode_of(const char *ce, size_t n)
{
	static const struct { const char *name; int mode; } names[] = {
		{ "identity", DECODED_IDENTITY }, { "gzip", DECODED_GZIP },
		{ "x-gzip", DECODED_GZIP }, { "deflate", DECODED_DEFLATE },
		{ "br", DECODED_BROTLI },
	};
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (strlen(names[i].name) == n && strncasecmp(ce, names[i].name, n) == 0)
			return names[i].mode;
	return n ? DECODED_UNKNOWN : DECODED_IDENTITY;
}

/* The codings of a Content-Encoding list into modes, the last applied
 * first, identity left out; -1 if one is unknown or there are too many. */
static int
parse_list(const char *ce, int modes[DECODED_MAX_CODINGS])
{
	int n = 0, m[DECODED_MAX_CODINGS];
	for (const char *p = ce ? ce : ""; *p;) {
		p += strspn(p, " \t,");
		size_t len = strcspn(p, ",");
		while (len && (p[len - 1] == ' ' || p[len - 1] == '\t'))
			len--;
		int mode = mode_of(p, len);
		if (mode == DECODED_UNKNOWN)
			return -1;
		if (mode != DECODED_IDENTITY) {
			if (n == DECODED_MAX_CODINGS)
				return -1;
			m[n++] = mode;
		}
		p += strcspn(p, ",");
	}
	for (int i = 0; i < n; i++)
		modes[i] = m[n - 1 - i];
	return n;
}

bool
decoded_supported(const char *content_encoding)
{
	int modes[DECODED_MAX_CODINGS];
	return parse_list(content_encoding, modes) >= 0;
}

void
decoded_init(struct decoded *d, const char *content_encoding, unsigned char **out,
    size_t *cap)
{
	int modes[DECODED_MAX_CODINGS];
	memset(d, 0, sizeof *d);
	d->out = out;
	d->cap = cap;
	d->nsteps = parse_list(content_encoding, modes);
	d->unknown = d->nsteps < 0;
	if (d->unknown)
		d->nsteps = 0;
	for (int i = 0; i < d->nsteps; i++) {
		struct decoded_step *s = &d->step[i];
		s->mode = modes[i];
		/* 15 + 16: gzip; 15: zlib, the deflate of RFC 9110. */
		if ((s->mode == DECODED_GZIP || s->mode == DECODED_DEFLATE) &&
		    inflateInit2(&s->z, s->mode == DECODED_GZIP ? 15 + 16 : 15) != Z_OK)
			wa_die("zlib: inflateInit2 failed");
		if (s->mode == DECODED_BROTLI &&
		    !(s->br = BrotliDecoderCreateInstance(NULL, NULL, NULL)))
			wa_die("brotli: cannot create a decoder");
	}
}

/* Counts (and keeps) n decoded bytes, up to limit + 1. */
static bool
emit(struct decoded *d, const unsigned char *p, size_t n, uint64_t limit)
{
	bool within = d->bytes + n <= limit;
	if (!within)
		n = (size_t)(limit + 1 - d->bytes);
	if (d->out && n) {
		size_t need = (size_t)d->bytes + n;
		if (need > *d->cap) {
			size_t cap = *d->cap ? *d->cap : 65536;
			while (cap < need)
				cap *= 2;
			*d->out = wa_realloc(*d->out, cap);
			*d->cap = cap;
		}
		memcpy(*d->out + d->bytes, p, n);
	}
	d->bytes += n;
	return within;
}

static bool feed_step(struct decoded *d, int i, const unsigned char *p, size_t len,
    uint64_t limit);

/* Gives the n bytes step i decoded to the next step, or to emit after the
 * last; false past the limit, on this step's count or a later one's. */
static bool
pass_on(struct decoded *d, int i, const unsigned char *p, size_t n, uint64_t limit)
{
	struct decoded_step *s = &d->step[i];
	if (i + 1 == d->nsteps)
		return emit(d, p, n, limit);
	if (s->bytes + n > limit) {
		s->bytes = limit + 1;
		return false;
	}
	s->bytes += n;
	return feed_step(d, i + 1, p, n, limit);
}

static bool
feed_zlib(struct decoded *d, int i, const unsigned char *data, size_t len,
    uint64_t limit)
{
	struct decoded_step *s = &d->step[i];
	unsigned char out[16384];
	s->z.next_in = (unsigned char *)(uintptr_t)data;
	s->z.avail_in = (uInt)len;
	while (s->z.avail_in > 0 && !d->failed) {
		if (s->ended) {
			/* Another gzip member (RFC 1952 sec. 2.2); anything
			 * else after the end is ignored. */
			if (s->mode != DECODED_GZIP || s->z.avail_in < 2 ||
			    s->z.next_in[0] != 0x1f || s->z.next_in[1] != 0x8b)
				return true;
			inflateReset(&s->z);
			s->ended = false;
		}
		s->z.next_out = out;
		s->z.avail_out = sizeof out;
		int rc = inflate(&s->z, Z_NO_FLUSH);
		if (rc == Z_DATA_ERROR && s->mode == DECODED_DEFLATE && !s->started &&
		    s->z.total_out == 0 && s->z.avail_out == sizeof out) {
			/* "deflate" sent as raw deflate, without the zlib
			 * header: start again on the same input. */
			s->started = true;
			if (inflateReset2(&s->z, -15) != Z_OK)
				wa_die("zlib: inflateReset2 failed");
			s->z.next_in = (unsigned char *)(uintptr_t)data;
			s->z.avail_in = (uInt)len;
			continue;
		}
		if (!pass_on(d, i, out, sizeof out - s->z.avail_out, limit))
			return false;
		if (rc == Z_STREAM_END)
			s->ended = true;
		else if (rc == Z_BUF_ERROR && s->z.avail_out != 0)
			break;		/* needs more input */
		else if (rc != Z_OK && rc != Z_BUF_ERROR)
			d->failed = true;
	}
	s->started = true;
	return true;
}

static bool
feed_brotli(struct decoded *d, int i, const unsigned char *data, size_t len,
    uint64_t limit)
{
	struct decoded_step *s = &d->step[i];
	unsigned char out[16384];
	const uint8_t *in = data;
	size_t avail_in = len;
	while (!s->ended && !d->failed) {
		uint8_t *next_out = out;
		size_t avail_out = sizeof out;
		BrotliDecoderResult rc = BrotliDecoderDecompressStream(s->br, &avail_in,
		    &in, &avail_out, &next_out, NULL);
		if (!pass_on(d, i, out, sizeof out - avail_out, limit))
			return false;
		if (rc == BROTLI_DECODER_RESULT_SUCCESS)
			s->ended = true;
		else if (rc == BROTLI_DECODER_RESULT_ERROR)
			d->failed = true;
		else if (rc == BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT)
			break;
	}
	s->started = true;
	return true;
}

/* Feeds len bytes to step i. */
static bool
feed_step(struct decoded *d, int i, const unsigned char *p, size_t len,
    uint64_t limit)
{
	if (d->step[i].mode == DECODED_BROTLI)
		return feed_brotli(d, i, p, len, limit);
	/* zlib counts input in uInt: fed in pieces. */
	while (len > 0) {
		size_t n = len > (1u << 30) ? (1u << 30) : len;
		if (!feed_zlib(d, i, p, n, limit))
			return false;
		p += n;
		len -= n;
	}
	return true;
}

bool
decoded_feed(struct decoded *d, const void *data, size_t len, uint64_t limit)
{
	/* No coding, or one not decoded here: the bytes as they are. */
	if (d->nsteps == 0)
		return emit(d, data, len, limit);
	return feed_step(d, 0, data, len, limit);
}

bool
decoded_complete(const struct decoded *d)
{
	if (d->unknown || d->failed)
		return false;
	for (int i = 0; i < d->nsteps; i++)
		if (!d->step[i].ended)
			return false;
	return true;
}

void
decoded_end(struct decoded *d)
{
	for (int i = 0; i < d->nsteps; i++) {
		struct decoded_step *s = &d->step[i];
		if (s->mode == DECODED_GZIP || s->mode == DECODED_DEFLATE)
			inflateEnd(&s->z);
		if (s->br)
			BrotliDecoderDestroyInstance(s->br);
		s->br = NULL;
	}
}
