/* A directory of robots.txt files kept across runs of wa-fetch: RFC 9309
 * sec. 2.4 lets a crawler reuse a robots.txt for up to 24 hours.
 *
 * One file per origin, named after it ("https_example.com_8443"; ':',
 * '[' and ']' of IPv6 hosts become '_'), written under a temporary name
 * and renamed into place.  Its first line is "wa-robots 1 TIME STATUS"
 * (the Unix time of the fetch, the final HTTP status), the file's body
 * follows, content coding undone.
 * Only answers that describe the file are kept (2xx and 4xx): a server
 * error or an unreachable site is asked again on the next run. */
#ifndef WA_ROBOTSCACHE_H
#define WA_ROBOTSCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ROBOTSCACHE_MAX_AGE (24 * 3600)

/* Reads the entry of origin if it was fetched in the ROBOTSCACHE_MAX_AGE
 * seconds before now; *body is malloc'ed (NULL when empty).  A damaged
 * entry is reported and treated as missing. */
bool robotscache_load(const char *dir, const char *origin, int64_t now,
    int *status, char **body, size_t *len);
/* Keeps an entry; a cache that cannot be written is no reason to stop a
 * crawl: false, with a warning saying why. */
bool robotscache_store(const char *dir, const char *origin, int64_t now,
    int status, const char *body, size_t len);

#endif
