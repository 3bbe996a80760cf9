/* Counting decoded body bytes with zlib (see decoded.h). */
#include <string.h>
#include <strings.h>

#include "decoded.h"

enum { DECODED_IDENTITY, DECODED_ZLIB, DECODED_UNKNOWN };

static int
mode_of(const char *ce)
{
	if (!ce || !*ce || strcasecmp(ce, "identity") == 0)
		return DECODED_IDENTITY;
	if (strcasecmp(ce, "gzip") == 0 || strcasecmp(ce, "x-gzip") == 0 ||
	    strcasecmp(ce, "deflate") == 0)
		return DECODED_ZLIB;
	return DECODED_UNKNOWN;
}

void
decoded_init(struct decoded *d, const char *content_encoding)
{
	memset(d, 0, sizeof *d);
	d->mode = mode_of(content_encoding);
	/* 15 + 32: a zlib or a gzip header, whichever comes. */
	if (d->mode == DECODED_ZLIB && inflateInit2(&d->z, 15 + 32) != Z_OK)
		d->failed = true;
}

static bool
inflate_some(struct decoded *d, const void *data, size_t len, uint64_t limit)
{
	unsigned char out[16384];

	d->z.next_in = (unsigned char *)(uintptr_t)data;
	d->z.avail_in = (uInt)len;
	while (d->z.avail_in > 0) {
		d->z.next_out = out;
		d->z.avail_out = sizeof out;
		int rc = inflate(&d->z, Z_NO_FLUSH);
		d->bytes += sizeof out - d->z.avail_out;
		if (rc == Z_DATA_ERROR && !d->started && d->bytes == 0) {
			/* "deflate" sent as raw deflate, without the zlib header. */
			d->started = true;
			if (inflateReset2(&d->z, -15) != Z_OK)
				break;
			d->z.next_in = (unsigned char *)(uintptr_t)data;
			d->z.avail_in = (uInt)len;
			continue;
		}
		d->started = true;
		if (d->bytes > limit) {
			d->bytes = limit + 1;
			return false;
		}
		if (rc == Z_STREAM_END)
			return true;	/* trailing bytes after the stream are ignored */
		if (rc != Z_OK && rc != Z_BUF_ERROR)
			break;
		if (rc == Z_BUF_ERROR && d->z.avail_out != 0)
			return true;	/* needs more input */
	}
	if (d->z.avail_in > 0)
		d->failed = true;
	return true;
}

bool
decoded_feed(struct decoded *d, const void *data, size_t len, uint64_t limit)
{
	if (d->mode == DECODED_ZLIB && !d->failed) {
		/* zlib counts input in uInt: feed in pieces. */
		const unsigned char *p = data;
		while (len > 0) {
			size_t n = len > (1u << 30) ? (1u << 30) : len;
			if (!inflate_some(d, p, n, limit))
				return false;
			if (d->failed)
				break;
			p += n;
			len -= n;
		}
		return true;
	}
	if (d->mode == DECODED_ZLIB)
		return true;	/* corrupt: the count stays where decoding stopped */
	d->bytes += len;
	if (d->bytes > limit) {
		d->bytes = limit + 1;
		return false;
	}
	return true;
}

void
decoded_end(struct decoded *d)
{
	if (d->mode == DECODED_ZLIB)
		inflateEnd(&d->z);
}
