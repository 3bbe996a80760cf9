/* Canonical URLs (man/wa-formats.5, "Canonical URLs").
 *
 * Canonical form: an absolute http or https URL, normalised as RFC 3986
 * section 6 says, the way a crawler wants it:
 *   - scheme and host in lower case; no userinfo (credentials never enter
 *     a stream); no fragment; no default port (80 for http, 443 for https);
 *   - the host percent-decoded, IDN labels in punycode (UTS #46
 *     non-transitional mapping, so "fass.de" and "faß.de" stay apart,
 *     with IDNA2008's validity as libidn2 checks it: symbols refused), one
 *     trailing dot removed; an A-label ("xn--") must decode to a U-label
 *     that encodes to it again; a host must be made of a-z 0-9 - . _ ~
 *     with no empty label; IPv4 in dotted decimal ("0x7f.1" and
 *     "0177.0.0.1" are 127.0.0.1), and a host whose last label is a
 *     decimal, octal or hexadecimal number but that is no IPv4 address
 *     refused; IPv6 in brackets as inet_ntop writes it, which is RFC
 *     5952's form (lower case, no leading zeros, the longest run of zero
 *     fields as "::") with the IPv4-mapped and IPv4-compatible addresses
 *     in mixed notation ("[::ffff:1.2.3.4]", "[::127.0.0.1]"), no zone;
 *   - dot-segments removed (a %2E counts as a dot), the empty path as "/",
 *     the empty query ("?" alone) dropped;
 *   - in path and query, a %XX of an unreserved character (A-Z a-z 0-9
 *     - . _ ~) decoded, every other %xx in upper case, a '%' without two
 *     hex digits after it written %25, and every byte outside the
 *     unreserved, sub-delims and ":@/?[]" sets percent-encoded: controls,
 *     space, non-ASCII bytes, " < > \ ^ ` { | } and DEL become %XX ('+'
 *     is left as it is: it is no space in a URL; '[' and ']' too, as
 *     browsers leave them);
 *   - at most URL_MAX bytes, input and result alike.
 * Before parsing, C0 controls and spaces around the input are trimmed and
 * tabs, CRs and LFs inside it removed, as browsers do with an href.  So a
 * canonical URL never holds a space, a tab or a newline, and canonicalising
 * it again changes nothing.  A URL with an empty host ("http:///x",
 * "http:g") is refused, as RFC 7230 section 2.7.1 asks.
 *
 * The parts of a canonical URL and its SURT key: urlparts.h.
 *
 * A thread has a libcurl URL handle of its own, freed when it ends; the
 * public-suffix list is loaded once.  url_cleanup frees both at the end of
 * the program (for valgrind). */
#ifndef WA_URL_H
#define WA_URL_H

#include <stdbool.h>
#include <stddef.h>

#include "urlparts.h"

#define URL_MAX 8192
#define URL_BUFSIZE (URL_MAX + 1)

/* Writes the canonical form of the absolute URL in to out (URL_BUFSIZE
 * bytes).  On failure returns false and points *why at a short reason:
 * "empty URL", "no scheme", "unsupported scheme", "no host", "bad host",
 * "bad port", "URL longer than 8192 bytes", "malformed URL". */
bool url_canon(const char *in, char *out, const char **why);
/* Whether url_canon may return an input that is canonical already without
 * libcurl's parse (default true); the tests turn it off to compare. */
extern bool url_fast_path;
/* Whether url_canon would give s (n bytes, then a NUL) as it is, known
 * without libcurl's parse; false says nothing. */
bool url_is_canonical(const char *s, size_t n);

/* Resolves the reference ref (RFC 3986 section 5) against base, which is
 * canonicalised first, and canonicalises the result.  An empty or
 * fragment-only ref gives the base.  *why is "bad base URL" if the base
 * is the problem. */
bool url_resolve(const char *base, const char *ref, char *out, const char **why);

/* The CDX key of a WARC record's target URI (man/wa-formats.5, "CDXJ
 * indexes"), malloc'ed: the key pywb and warcio.js's cdx-index look
 * records up by.  Like warcio.js, "www", digits and a dot after
 * "http://" or "https://" are cut (before the case is lowered, so
 * "WWW." stays), then the whole URL is lower-cased (a backslash before
 * the query taken as '/', as WHATWG's URL parser does) and parsed: the
 * host's labels reversed and joined by ',' (IPv4 addresses too), then
 * ":PORT" for a non-default port, then ')', the path, and the query's
 * '&'-separated arguments sorted in byte order; no scheme, no fragment:
 *   http://www.Example.com:8080/A?b=2&a=1  com,example:8080)/a?a=1&b=2
 * The port stands before the ')' here, and after it in url_surt's key,
 * whose order puts a domain and its subdomains together.  The URL is
 * parsed by url_canon, where warcio.js uses the WHATWG URL parser: the
 * keys are the same for a URL canonical once lower-cased, and may differ
 * in the percent-encoding of others (url_canon decodes "%7e" and encodes
 * '|' and a backslash in the query, which that parser leaves), in a
 * trailing dot of the host (url_canon drops it) and in an IPv6 address
 * with an IPv4 part (url_canon writes "::ffff:1.2.3.4", WHATWG
 * "::ffff:102:304").  A URL that is no
 * "http://" or "https://" URL, or that url_canon refuses, is its own
 * key, as in warcio.js (after the cut of "www"). */
char *url_cdx_key(const char *url);

/* The registrable domain of a canonical URL's host by the public-suffix
 * list, private suffixes included ("www.example.co.uk" -> "example.co.uk",
 * "a.blogspot.com" stays).  An IP literal is its own domain, and so is a
 * host that is a public suffix itself or has no registrable domain
 * ("localhost"). */
bool url_registrable_domain(const char *url, char *out);

/* Writes s[0..n), a path and query, to out (3 * n + 1 bytes) with its
 * percent-encoding as a canonical URL has it: %XX of an unreserved byte
 * decoded, other escapes in upper case, a '%' without two hex digits and
 * every byte a URL may not hold encoded.  Returns the length written. */
size_t url_norm_percent(const char *s, size_t n, char *out);
void url_cleanup(void);

#endif
