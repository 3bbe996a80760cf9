/* HTTP responses as a WARC response record's block holds them (RFC 9112):
 * the status line and header fields, read leniently as crawlers must, and
 * the body decoded from its Content-Encoding (gzip, deflate; RFC 9110
 * sec. 8.4) and, if the writer kept it, its chunked Transfer-Encoding. */
#ifndef WA_HTTPRESP_H
#define WA_HTTPRESP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "url.h"

struct http_response {
	int status;			/* 100..999 */
	char media_type[128];		/* lower case, no parameters; "" if none */
	char charset[64];		/* the charset parameter, or "" */
	char content_encoding[64];	/* lower case, as sent; "" if none */
	bool chunked;			/* Transfer-Encoding: chunked */
	char location[URL_BUFSIZE];	/* "" if none, or too long */
	bool location_too_long;
	const unsigned char *body;	/* after the header, as stored */
	size_t body_len;
};

/* Reads the head of a response from block; false, with a reason in *why,
 * if it is no HTTP response. */
bool http_parse_response(const unsigned char *block, size_t len,
    struct http_response *r, const char **why);

/* Calls fn with the value (trimmed, not NUL-terminated) of each field
 * named name (case-insensitive) in the header of a response that
 * http_parse_response read from block, in order; folded lines are not
 * joined. */
void http_each_field(const unsigned char *block, const struct http_response *r,
    const char *name, void (*fn)(void *arg, const char *value, size_t len),
    void *arg);

/* Splits a Content-Type value into its media type (lower case) and its
 * charset parameter (unquoted), each "" if absent or too long. */
void http_content_type(const char *value, char *media, size_t media_size,
    char *charset, size_t charset_size);

/* The body with its chunked framing and content codings undone, in a
 * buffer of *out (grown as needed, *cap its size); at most max bytes.
 * False, with a reason in *why, on an unknown coding, corrupt data or a
 * body decoding to more than max bytes. */
bool http_decode_body(const struct http_response *r, uint64_t max,
    unsigned char **out, size_t *cap, size_t *out_len, const char **why);

#endif
