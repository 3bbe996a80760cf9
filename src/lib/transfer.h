/* One HTTP request of wa-fetch and what came back, on a libcurl easy
 * handle: the request as sent, the status line and header fields as
 * received, the body as sent (content coding kept, chunking undone) up
 * to a cap, its SHA-1 and its size after content decoding (decoded.h);
 * and the WARC records made from them (WARC 1.1 sec. 6: request,
 * response, revisit).
 *
 * The connection is refused at connect time, redirects and robots.txt
 * included, when its address is not public, not in an allowed block and
 * private addresses are not allowed (netaddr.h).  A site's idle
 * connection with bytes waiting when its next request starts is shut and
 * not reused (see check_idle_connection). */
#ifndef WA_TRANSFER_H
#define WA_TRANSFER_H

#include <curl/curl.h>
#include <openssl/evp.h>
#include <stdbool.h>
#include <stdint.h>

#include "decoded.h"
#include "netaddr.h"
#include "sites.h"
#include "warc.h"

/* What every request of a run shares. */
struct transfer_config {
	const char *agent;
	double connect_timeout, timeout, low_speed_time;	/* seconds */
	uint64_t low_speed_limit;	/* bytes per second */
	bool insecure, allow_private;
	const struct netaddr_block *allowed;	/* let through though not public */
	size_t nallowed;
	CURLSH *share;			/* DNS cache, TLS sessions */
	/* The file and directory of certificate authorities trusted in
	 * place of libcurl's defaults (CURLOPT_CAINFO, CURLOPT_CAPATH), or
	 * NULL for the default. */
	const char *cainfo, *capath;
	struct curl_slist *headers;	/* "Name: value" lines every request sends */
};

struct buf {
	char *p;
	size_t len, cap;
};

enum transfer_kind { TRANSFER_PAGE, TRANSFER_ROBOTS };

struct transfer {
	CURL *easy;
	enum transfer_kind kind;
	struct site *site;
	struct job job;			/* TRANSFER_PAGE */
	struct curl_slist *headers;
	struct buf request, head, body;	/* as sent, as received */
	uint64_t cap;			/* body bytes kept, encoded or decoded */
	bool decode;			/* count the decoded size */
	struct decoded decoded;
	unsigned char *plain;		/* !decode: the body decoded, decoded.bytes */
	size_t plain_cap;
	bool body_started;
	EVP_MD_CTX *sha1;
	bool truncated;			/* the body passed the cap */
	const struct transfer_config *cfg;
	bool refused_private;		/* the connection was refused */
	int local_errno;		/* no socket for it here (EMFILE...), or 0 */
	char error[CURL_ERROR_SIZE];	/* libcurl's account of a failure */
	bool forbid_reuse;		/* the connection closes after it */
	int64_t sec;			/* when the request started */
	long usec;
};

/* A GET of url for site, not started; decode: ask for DECODED_ACCEPT and
 * count the decoded size of the body, or else ask for no coding and keep
 * the body decoded all the same in plain, for a server may send one
 * unasked (robots.txt); resolve: HOST:PORT:ADDR entries
 * (CURLOPT_RESOLVE) or NULL.  libcurl parses every entry of the list
 * anew for each request, so a caller with many gives a request only
 * those it may need.  The handle's private pointer is the transfer. */
struct transfer *transfer_new(const struct transfer_config *cfg,
    struct site *site, const char *url, struct curl_slist *resolve,
    uint64_t cap, bool decode, bool forbid_reuse);
void transfer_add_header(struct transfer *x, const char *name, const char *value);
/* Why the request header field line, given as "Name: value" for every
 * request, is refused (malformed, or a field that wa-fetch or libcurl
 * sets itself: Host, the hop-by-hop fields of RFC 9110 sec. 7.6.1...),
 * or NULL if it may be sent. */
const char *transfer_header_refused(const char *line);
/* Whether path can serve as CURLOPT_CAINFO (a file of PEM certificates)
 * or, dir, as CURLOPT_CAPATH (a directory); false with a message in
 * why[0..size). */
bool transfer_ca_usable(const char *path, bool dir, char *why, size_t size);
void transfer_free(struct transfer *x);

/* The value of the last response's header field name, or NULL. */
const char *transfer_header(const struct transfer *x, const char *name);
/* Content-Type without parameters, in lower case (malloc'ed), or NULL. */
char *transfer_mime(const struct transfer *x);
/* A 3xx's Location target, canonical (malloc'ed), or NULL: none, or one
 * refused, with the reason in *refused. */
char *transfer_redirect_target(const struct transfer *x, long code,
    const char **refused);
/* The status name of a transfer that failed with rc: "timeout", "dns"...;
 * a failed TLS handshake or certificate check gets one of its own:
 * "tls-untrusted" (signed by no trusted authority, self-signed included),
 * "tls-name" (for another host name), "tls-expired" (outside its dates),
 * "tls-handshake" (no handshake: not TLS, no common protocol or cipher),
 * "tls" (any other, such as a revoked certificate or a CA file libcurl
 * cannot read). */
const char *transfer_error_name(const struct transfer *x, CURLcode rc);
/* Whether the status name is one of a TLS failure. */
bool transfer_tls_status(const char *status);
/* What failed, for a message: the meaning of the status and libcurl's own
 * words, in buf[0..size). */
const char *transfer_error_message(const struct transfer *x, CURLcode rc,
    char *buf, size_t size);
/* The outcome of the transfer: rc, or a partial transfer that libcurl
 * missed. */
CURLcode transfer_result(const struct transfer *x, CURLcode rc);
/* What WARC-Truncated says for the response, or NULL if it is whole. */
const char *transfer_truncation(const struct transfer *x, CURLcode rc);

enum record_kind { RECORD_RESPONSE, RECORD_NOT_MODIFIED, RECORD_SAME_DIGEST };

/* Writes a request record and a response record (or a revisit record of
 * the kind given, without the body) for target, linked by
 * WARC-Concurrent-To.  refers_time is the Unix time of the fetch a
 * revisit refers to, or -1.  Returns the number warc_write gave the
 * second record. */
uint64_t transfer_archive(const struct transfer *x, struct warc_writer *w,
    const char *target, const char *digest, const char *truncated,
    enum record_kind kind, int64_t refers_time);

#endif
