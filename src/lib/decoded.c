/* Content decoding with zlib and libbrotlidec (see decoded.h). */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "decoded.h"
#include "msg.h"

enum { DECODED_IDENTITY, DECODED_GZIP, DECODED_DEFLATE, DECODED_BROTLI, DECODED_UNKNOWN };

static int
mode_of(const char *ce)
{
	if (!ce || !*ce || strcasecmp(ce, "identity") == 0)
		return DECODED_IDENTITY;
	if (strcasecmp(ce, "gzip") == 0 || strcasecmp(ce, "x-gzip") == 0)
		return DECODED_GZIP;
	if (strcasecmp(ce, "deflate") == 0)
		return DECODED_DEFLATE;
	if (strcasecmp(ce, "br") == 0)
		return DECODED_BROTLI;
	return DECODED_UNKNOWN;
}

bool
decoded_supported(const char *content_encoding)
{
	return mode_of(content_encoding) != DECODED_UNKNOWN;
}

void
decoded_init(struct decoded *d, const char *content_encoding, unsigned char **out,
    size_t *cap)
{
	memset(d, 0, sizeof *d);
	d->mode = mode_of(content_encoding);
	d->out = out;
	d->cap = cap;
	d->ended = d->mode == DECODED_IDENTITY;
	/* 15 + 16: gzip; 15: zlib, the deflate of RFC 9110. */
	if ((d->mode == DECODED_GZIP || d->mode == DECODED_DEFLATE) &&
	    inflateInit2(&d->z, d->mode == DECODED_GZIP ? 15 + 16 : 15) != Z_OK)
		wa_die("zlib: inflateInit2 failed");
	if (d->mode == DECODED_BROTLI &&
	    !(d->br = BrotliDecoderCreateInstance(NULL, NULL, NULL)))
		wa_die("brotli: cannot create a decoder");
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

static bool
feed_zlib(struct decoded *d, const unsigned char *data, size_t len, uint64_t limit)
{
	unsigned char out[16384];
	d->z.next_in = (unsigned char *)(uintptr_t)data;
	d->z.avail_in = (uInt)len;
	while (d->z.avail_in > 0 && !d->failed) {
		if (d->ended) {
			/* Another gzip member (RFC 1952 sec. 2.2); anything
			 * else after the end is ignored. */
			if (d->mode != DECODED_GZIP || d->z.avail_in < 2 ||
			    d->z.next_in[0] != 0x1f || d->z.next_in[1] != 0x8b)
				return true;
			inflateReset(&d->z);
			d->ended = false;
		}
		d->z.next_out = out;
		d->z.avail_out = sizeof out;
		int rc = inflate(&d->z, Z_NO_FLUSH);
		if (rc == Z_DATA_ERROR && d->mode == DECODED_DEFLATE && !d->started &&
		    d->bytes == 0 && d->z.avail_out == sizeof out) {
			/* "deflate" sent as raw deflate, without the zlib
			 * header: start again on the same input. */
			d->started = true;
			if (inflateReset2(&d->z, -15) != Z_OK)
				wa_die("zlib: inflateReset2 failed");
			d->z.next_in = (unsigned char *)(uintptr_t)data;
			d->z.avail_in = (uInt)len;
			continue;
		}
		if (!emit(d, out, sizeof out - d->z.avail_out, limit))
			return false;
		if (rc == Z_STREAM_END)
			d->ended = true;
		else if (rc == Z_BUF_ERROR && d->z.avail_out != 0)
			break;		/* needs more input */
		else if (rc != Z_OK && rc != Z_BUF_ERROR)
			d->failed = true;
	}
	d->started = true;
	return true;
}

static bool
feed_brotli(struct decoded *d, const unsigned char *data, size_t len, uint64_t limit)
{
	unsigned char out[16384];
	const uint8_t *in = data;
	size_t avail_in = len;
	while (!d->ended && !d->failed) {
		uint8_t *next_out = out;
		size_t avail_out = sizeof out;
		BrotliDecoderResult rc = BrotliDecoderDecompressStream(d->br, &avail_in,
		    &in, &avail_out, &next_out, NULL);
		if (!emit(d, out, sizeof out - avail_out, limit))
			return false;
		if (rc == BROTLI_DECODER_RESULT_SUCCESS)
			d->ended = true;
		else if (rc == BROTLI_DECODER_RESULT_ERROR)
			d->failed = true;
		else if (rc == BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT)
			break;
	}
	d->started = true;
	return true;
}

bool
decoded_feed(struct decoded *d, const void *data, size_t len, uint64_t limit)
{
	const unsigned char *p = data;
	switch (d->mode) {
	case DECODED_GZIP:
	case DECODED_DEFLATE:
		/* zlib counts input in uInt: feed in pieces. */
		while (len > 0) {
			size_t n = len > (1u << 30) ? (1u << 30) : len;
			if (!feed_zlib(d, p, n, limit))
				return false;
			p += n;
			len -= n;
		}
		return true;
	case DECODED_BROTLI:
		return feed_brotli(d, p, len, limit);
	default:
		/* identity, or a coding not decoded here: the bytes as they
		 * are. */
		return emit(d, p, len, limit);
	}
}

bool
decoded_complete(const struct decoded *d)
{
	return d->ended && !d->failed;
}

void
decoded_end(struct decoded *d)
{
	if (d->mode == DECODED_GZIP || d->mode == DECODED_DEFLATE)
		inflateEnd(&d->z);
	if (d->br)
		BrotliDecoderDestroyInstance(d->br);
	d->br = NULL;
}
