/* The size of an HTTP body after content decoding (RFC 9110 sec. 8.4),
 * counted while the encoded body arrives, so that a crawler can cap the
 * decoded size without keeping the decoded bytes: a gzip bomb stops at
 * the cap with one fixed-size buffer.  gzip, x-gzip and deflate (zlib
 * format, or raw deflate as some servers send) are decoded with zlib;
 * identity or no coding counts the bytes as they are. */
#ifndef WA_DECODED_H
#define WA_DECODED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

struct decoded {
	z_stream z;
	int mode;		/* DECODED_* */
	bool started;		/* some input was given to zlib */
	bool failed;		/* the encoded stream is corrupt */
	uint64_t bytes;		/* decoded bytes so far */
};

/* Another coding (br, compress, a list of codings) is counted as it
 * comes: wa-fetch asks for gzip and deflate only. */
void decoded_init(struct decoded *d, const char *content_encoding);
/* Feeds len encoded bytes; returns false once the decoded size passes
 * limit (the count then stops at limit + 1). */
bool decoded_feed(struct decoded *d, const void *data, size_t len, uint64_t limit);
void decoded_end(struct decoded *d);

#endif
