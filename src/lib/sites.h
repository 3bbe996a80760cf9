/* The politeness queues of wa-fetch: the model of Castillo ("Effective Web
 * Crawling", 2004, ch. 6.2): at most one connection to a site at a time, at
 * least a delay between two requests to it, and many sites served at once
 * so that the r connections stay busy.
 *
 * A site is an origin (scheme, host, port: the scope of one robots.txt,
 * RFC 9309 sec. 2.3).  Each site keeps its jobs in a heap by input
 * position, the crawl priority.  A site with jobs that is not being
 * fetched waits in a heap by the time it may be contacted again; once
 * that time has come it moves to a ready heap ordered by the position of
 * its first job, so the most important page that may be fetched now goes
 * first. */
#ifndef WA_SITES_H
#define WA_SITES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "strmap.h"

struct curl_slist;
struct robots;

/* A site failing this many requests in a row is given up for the run. */
#define SITE_MAX_FAILURES 3

struct job {
	size_t entry;		/* input position: the priority */
	char *url;		/* canonical; a redirect target after a hop */
	unsigned hops;		/* redirects followed to get here */
};

enum robots_state { ROBOTS_UNKNOWN, ROBOTS_KNOWN };

struct site {
	char *origin;		/* "https://example.com:8443" */
	struct job *jobs;	/* a min-heap by entry */
	size_t njobs, cap;
	bool busy;		/* a request is in flight, or being decided */
	bool queued;		/* in the waiting or the ready heap */
	double next_allowed;	/* monotonic seconds */
	double delay;		/* between the end of a request and the next */
	enum robots_state robots_state;
	struct robots *robots;
	const char *closed;	/* why the rest of its jobs are not fetched */
	unsigned conn_pages;	/* pages over the open connection */
	unsigned failures;	/* consecutive failed requests */
	int sock;		/* its last connection's socket while open, or -1 */
	struct curl_slist *resolve;	/* --resolve entries for its host:port */
	bool resolve_known;	/* resolve has been worked out */
};

struct heap_item {
	double key;
	size_t tie;
	struct site *site;
};

struct heap {
	struct heap_item *v;
	size_t n, cap;
};

struct sites {
	struct strmap by_origin;
	struct site **all;
	size_t nall, capall;
	struct heap waiting, ready;
	size_t pending;		/* jobs in all queues */
};

void sites_init(struct sites *s);
/* The site of origin, created on first use with the given delay. */
struct site *sites_get(struct sites *s, const char *origin, double delay);
/* Adds a job (its url is taken over) and queues the site if idle. */
void sites_push(struct sites *s, struct site *site, size_t entry, char *url,
    unsigned hops);
/* Takes the site's first job; false if it has none. */
bool site_pop(struct sites *s, struct site *site, struct job *job);
/* The ready site whose first job comes first in the input, marked busy;
 * NULL if none may be contacted at time now. */
struct site *sites_next(struct sites *s, double now);
/* When the next waiting site becomes ready; -1 if none waits. */
double sites_next_time(const struct sites *s);
/* The site's request ended at now: it may be contacted again after
 * max(its delay, backoff). */
void sites_release(struct sites *s, struct site *site, double now, double backoff);
/* The site was picked but made no request: it keeps its time. */
void sites_return(struct sites *s, struct site *site);
/* The site's request ended at now: a closed site is returned, for the
 * rest of its rows need no request; another is released with backoff. */
void sites_done(struct sites *s, struct site *site, double now, double backoff);

/* Whether the site's next request is the last of its connection: one
 * connection carries at most per_connection requests. */
bool site_last_on_connection(const struct site *site, unsigned long per_connection);
/* Counts a request of the site against its connection: new_connection,
 * the request opened one; closes, the connection ends with it. */
void site_count_request(struct site *site, bool new_connection, bool closes);
/* The entries of resolve (CURLOPT_RESOLVE's "HOST:PORT:ADDR", a leading
 * '+' allowed) for the site's host and port, curl's wildcard host "*"
 * included; worked out on the first call, kept by the site.  Its
 * requests do not follow redirects, so they need no other. */
struct curl_slist *site_resolve(struct site *site, const struct curl_slist *resolve);
/* Gives the site its robots.txt rules r (taken over) and raises its
 * delay to their Crawl-delay; a Crawl-delay above max_crawl_delay closes
 * it ("crawl-delay", with a warning): it is for a later run. */
void site_set_robots(struct site *site, struct robots *r, double max_crawl_delay);
/* No server answers for the site: it is closed for why (the fetch log
 * status, "dns"...) and its rules disallow everything. */
void site_unreachable(struct site *site, const char *why);

/* What a request of a site came to, as sites_outcome weighs it. */
struct site_request {
	long code;		/* the HTTP status; 0: no response */
	bool answered;		/* a response came from the site */
	bool broken;		/* the transfer failed, not by passing the size cap */
	int64_t retry_after;		/* Retry-After in seconds; 0: none */
	const char *status;	/* its fetch log status, for the warning */
};

/* The site's request ended at now with r: a 5xx, no answer or a broken
 * transfer is a failure, and SITE_MAX_FAILURES in a row close the site
 * ("site-failed"); any other outcome resets the count.  A 429 or 503
 * with a Retry-After holds the site back that long, and closes it
 * ("retry-after") past max_crawl_delay.  Then the site is done
 * (sites_done).  Each closing comes with a warning. */
void sites_outcome(struct sites *s, struct site *site, double now,
    const struct site_request *r, double max_crawl_delay);
void sites_free(struct sites *s);

#endif
