/* Content decoding of an HTTP body (RFC 9110 sec. 8.4) as it arrives:
 * gzip and x-gzip (RFC 1952; members in a row are one body), deflate
 * (the zlib format of RFC 1950, or raw deflate as some servers send and
 * browsers accept), br (RFC 7932) and identity, and a list of them
 * ("gzip, br": applied in that order, undone from the last).  The decoded
 * bytes are counted, and kept if asked, up to a limit: a gzip bomb stops at
 * the limit with one fixed-size buffer, and so does each step of a list,
 * so that a list costs no more than that many codings.  wa-fetch counts the
 * decoded size of what it receives; wa-extract decodes the bodies of WARC
 * records. */
#ifndef WA_DECODED_H
#define WA_DECODED_H

#include <brotli/decode.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

/* The Accept-Encoding a crawler may send: every coding decoded here. */
#define DECODED_ACCEPT "gzip, deflate, br"
/* The codings a list may have (identity aside); a longer list is not
 * decoded. */
#define DECODED_MAX_CODINGS 4

/* One coding of the list. */
struct decoded_step {
	int mode;		/* DECODED_* of decoded.c */
	z_stream z;
	BrotliDecoderState *br;
	bool started;		/* some input was given to the decoder */
	bool ended;		/* the encoded stream came to its proper end */
	uint64_t bytes;		/* its decoded bytes so far */
};

struct decoded {
	struct decoded_step step[DECODED_MAX_CODINGS];	/* the last applied first */
	int nsteps;
	bool unknown;		/* a coding not decoded here, or too many */
	bool failed;		/* the encoded stream is corrupt */
	uint64_t bytes;		/* decoded bytes so far */
	unsigned char **out;	/* where to keep them, or NULL */
	size_t *cap;		/* *out's size */
};

/* Whether content_encoding (a coding or a list of them, as the field has
 * it; NULL or "" for none) is decoded here. */
bool decoded_supported(const char *content_encoding);
/* Starts decoding; with out, the decoded bytes are kept in *out, a
 * malloc'ed buffer of *cap bytes grown as needed (*out may be NULL).  A
 * content_encoding not decoded here gives the bytes as they are. */
void decoded_init(struct decoded *d, const char *content_encoding,
    unsigned char **out, size_t *cap);
/* Feeds len encoded bytes; returns false once the decoded size, or that
 * of a step of a list, passes limit (the count and the bytes kept then
 * stop at limit + 1). */
bool decoded_feed(struct decoded *d, const void *data, size_t len, uint64_t limit);
/* Whether the encoded stream was whole and sound: not corrupt, and not
 * cut before its end. */
bool decoded_complete(const struct decoded *d);
void decoded_end(struct decoded *d);

#endif
