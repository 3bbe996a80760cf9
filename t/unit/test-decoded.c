/* The decoded-size counter of decoded.c against zlib's own compressor
 * and a body made by libbrotlienc: each coding decodes to its length,
 * fed in pieces as a network would, and stops just past a cap. */
#include <stdint.h>
#include <stdlib.h>
#include <zlib.h>

#include "decoded.h"
#include "tap.h"
#include "wa.h"

/* Compresses n bytes of text with zlib: gzip, zlib or raw deflate. */
static unsigned char *
compress_with(int window_bits, const unsigned char *in, size_t n, size_t *out_len)
{
	z_stream z = { 0 };
	size_t cap = n + 1024;
	unsigned char *out = wa_malloc(cap);
	if (deflateInit2(&z, 9, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		abort();
	z.next_in = (unsigned char *)(uintptr_t)in;
	z.avail_in = (uInt)n;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	if (deflate(&z, Z_FINISH) != Z_STREAM_END)
		abort();
	*out_len = cap - z.avail_out;
	deflateEnd(&z);
	return out;
}

/* Feeds the encoded body in pieces of step bytes, as a network would. */
static uint64_t
count(const char *coding, const unsigned char *data, size_t n, size_t step,
    uint64_t limit, bool *within)
{
	struct decoded d;
	decoded_init(&d, coding, NULL, NULL);
	*within = true;
	for (size_t i = 0; i < n && *within; i += step)
		*within = decoded_feed(&d, data + i, n - i < step ? n - i : step, limit);
	decoded_end(&d);
	return d.bytes;
}

static void
test_decoded(void)
{
	size_t n = 200000, len;
	unsigned char *text = wa_malloc(n);
	bool within;
	for (size_t i = 0; i < n; i++)
		text[i] = "a crawler counts decoded bytes\n"[i % 31];

	static const struct { const char *coding; int bits; } kinds[] = {
		{ "gzip", 15 + 16 }, { "x-gzip", 15 + 16 }, { "deflate", 15 },
		{ "deflate", -15 }, { "GZIP", 15 + 16 },
	};
	for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
		unsigned char *z = compress_with(kinds[k].bits, text, n, &len);
		uint64_t got = count(kinds[k].coding, z, len, 1000, 1 << 20, &within);
		ok(got == n && within, "%s (window bits %d): %zu encoded bytes decode to %zu "
		    "(got %llu)", kinds[k].coding, kinds[k].bits, len, n,
		    (unsigned long long)got);
		got = count(kinds[k].coding, z, len, 7, 50000, &within);
		ok(got == 50001 && !within, "%s with a cap of 50000: stops past the cap "
		    "(got %llu)", kinds[k].coding, (unsigned long long)got);
		free(z);
	}
	ok(count(NULL, text, n, 4096, 1 << 20, &within) == n && within,
	    "no coding counts the bytes as they are");
	ok(count("identity", text, n, 4096, 1000, &within) == 1001 && !within,
	    "and caps them too");
	/* Made by libbrotlienc (quality 11) from a 43-byte text. */
	static const unsigned char br[] = "\x1b\x2a\x00\xf8\xc5\x6d\x6c\x5d\xf9\xde"
	    "\xa3\xad\xa0\x10\xa2\x94\xa4\x14\x79\xd2\x81\x12\x70\x22\x14\x2a\xbb"
	    "\xa7\x3d\x5f\x7e\x9a\x00";
	ok(count("br", br, sizeof br - 1, 1, 1 << 20, &within) == 43 && within,
	    "br fed a byte at a time decodes to its 43 bytes");
	ok(count("br", br, sizeof br - 1, 7, 40, &within) == 41 && !within,
	    "br stops at the cap");
	ok(count("compress", text, 5000, 4096, 1 << 20, &within) == 5000 && within,
	    "an unknown coding counts the bytes as they are");
	ok(count("gzip", text, 5000, 4096, 1 << 20, &within) == 0 && within,
	    "a body that is no gzip decodes to nothing, without an error");
	free(text);
}

int
main(void)
{
	test_decoded();
	return done_testing();
}
