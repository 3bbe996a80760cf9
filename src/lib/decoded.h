/* Content decoding of an HTTP body (RFC 9110 sec. 8.4) as it arrives:
 * gzip and x-gzip (RFC 1952; members in a row are one body), deflate
 * (the zlib format of RFC 1950, or raw deflate as some servers send and
 * browsers accept), br (RFC 7932) and identity.  The decoded bytes are
 * counted, and kept if asked, up to a limit: a gzip bomb stops at the
 * limit with one fixed-size buffer.  wa-fetch counts the decoded size of
 * what it receives; wa-extract decodes the bodies of WARC records. */
#ifndef WA_DECODED_H
#define WA_DECODED_H

#include <brotli/decode.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

/* The Accept-Encoding a crawler may send: every coding decoded here. */
#define DECODED_ACCEPT "gzip, deflate, br"

struct decoded {
	int mode;		/* DECODED_* of decoded.c */
	z_stream z;
	BrotliDecoderState *br;
	bool started;		/* some input was given to the decoder */
	bool failed;		/* the encoded stream is corrupt */
	bool ended;		/* the encoded stream came to its proper end */
	uint64_t bytes;		/* decoded bytes so far */
	unsigned char **out;	/* where to keep them, or NULL */
	size_t *cap;		/* *out's size */
};

/* Whether content_encoding (one coding; NULL or "" for none) is decoded
 * here. */
bool decoded_supported(const char *content_encoding);
/* Starts decoding; with out, the decoded bytes are kept in *out, a
 * malloc'ed buffer of *cap bytes grown as needed (*out may be NULL). */
void decoded_init(struct decoded *d, const char *content_encoding,
    unsigned char **out, size_t *cap);
/* Feeds len encoded bytes; returns false once the decoded size passes
 * limit (the count and the bytes kept then stop at limit + 1). */
bool decoded_feed(struct decoded *d, const void *data, size_t len, uint64_t limit);
/* Whether the encoded stream was whole and sound: not corrupt, and not
 * cut before its end. */
bool decoded_complete(const struct decoded *d);
void decoded_end(struct decoded *d);

#endif
