/* The parts of a canonical URL (url.h) and its SURT key (man/wa-formats.5,
 * "SURT keys"), taken apart by string work alone.  They live apart from
 * url.c so that a tool which only reads canonical URLs (the ranking tools,
 * through the page types) does not load libcurl and the libraries it
 * brings.
 *
 * SURT key: the host's labels in reverse order joined by ',' (an IP
 * literal is kept as it is), then ')', then ":PORT" for a non-default
 * port, then the path and the query:
 *   http://www.example.com/a/b     com,example,www)/a/b
 *   http://example.com:8080/x?y=1  com,example):8080/x?y=1
 *   http://127.0.0.2:8080/         127.0.0.2):8080/
 * The scheme is not in the key, so the http and https forms of a page get
 * one key.  Graph ids follow the order of (key, then URL), both in byte
 * order: url_surt_cmp.  In that order all the URLs of a host start with
 * "HOST)" and lie together, and a domain with all its subdomains is one
 * contiguous range ("com,example)" < "com,example,www)" as ')' < ',', and
 * no host character falls between them). */
#ifndef WA_URLPARTS_H
#define WA_URLPARTS_H

#include <stdbool.h>
#include <stddef.h>

/* What follows "http://" or "https://" in s, or NULL. */
const char *url_after_scheme(const char *s);
/* Whether h[0..n) is an IPv4 address in dotted decimal. */
bool url_is_ipv4(const char *h, size_t n);
/* Whether the host h[0..n) is an IP literal: IPv4, or IPv6 in brackets. */
bool url_is_ip(const char *h, size_t n);

/* Splits a canonical URL: the host is [*host, *host_end), the port, if
 * any, follows it with ':', and the path starts at the returned pointer;
 * NULL if url is not in canonical form. */
const char *url_split(const char *url, const char **host, const char **host_end);
/* Writes the labels of the host [h, e) to d in reverse order, joined by
 * ','; returns the end (not terminated). */
char *url_reversed_labels(const char *h, const char *e, char *d);

/* The SURT key of a canonical URL (url.h's URL_BUFSIZE bytes suffice);
 * false if url is not in canonical form. */
bool url_surt(const char *url, char *out);
/* The canonical URL whose SURT key is key and whose scheme is https or
 * http, written to out: url_surt backwards, since the key holds all of a
 * URL but its scheme.  key must be url_surt's key of a canonical URL,
 * and out have room for the URL (url.h's URL_BUFSIZE bytes suffice).
 * Returns the URL's length, 0 if key has no host. */
size_t url_from_surt(const char *key, bool https, char *out);
/* Orders (key, URL) pairs: keys first, then URLs, in byte order. */
int url_surt_cmp(const char *key_a, const char *url_a, const char *key_b,
    const char *url_b);

/* The host of a canonical URL, without the port; IPv6 in brackets. */
bool url_host(const char *url, char *out);
/* The origin of a canonical URL, "scheme://host[:port]" (malloc'ed): the
 * scope of one robots.txt. */
char *url_origin(const char *url);
/* The path and query of a canonical URL ("/a?b"): a pointer into url. */
const char *url_path(const char *url);

#endif
