/* Politeness queues (see sites.h). */
#include <curl/curl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "heap.h"
#include "msg.h"
#include "robots.h"
#include "sites.h"

static bool
item_before(const struct heap_item *a, const struct heap_item *b)
{
	return a->key < b->key || (a->key == b->key && a->tie < b->tie);
}

HEAP_DEFINE(site_heap, struct heap_item, item_before)

static bool
job_before(const struct job *a, const struct job *b)
{
	return a->entry < b->entry;
}

HEAP_DEFINE(job_heap, struct job, job_before)

static void
heap_push(struct heap *h, struct heap_item it)
{
	if (h->n == h->cap) {
		h->cap = h->cap ? 2 * h->cap : 64;
		h->v = wa_reallocarray(h->v, h->cap, sizeof *h->v);
	}
	site_heap_push(h->v, &h->n, it);
}

static struct heap_item
heap_pop(struct heap *h)
{
	return site_heap_pop(h->v, &h->n);
}

void
sites_init(struct sites *s)
{
	memset(s, 0, sizeof *s);
	strmap_init(&s->by_origin);
}

struct site *
sites_get(struct sites *s, const char *origin, double delay)
{
	struct site *site = strmap_get(&s->by_origin, origin);
	if (site)
		return site;
	site = wa_calloc(1, sizeof *site);
	site->origin = wa_strdup(origin);
	site->delay = delay;
	site->sock = -1;
	strmap_put(&s->by_origin, origin, site);
	if (s->nall == s->capall) {
		s->capall = s->capall ? 2 * s->capall : 64;
		s->all = wa_reallocarray(s->all, s->capall, sizeof *s->all);
	}
	s->all[s->nall++] = site;
	return site;
}

/* A site with jobs, neither in flight nor queued, waits for its time. */
static void
queue_site(struct sites *s, struct site *site)
{
	if (site->busy || site->queued || site->njobs == 0)
		return;
	site->queued = true;
	heap_push(&s->waiting, (struct heap_item){ site->next_allowed,
	    site->jobs[0].entry, site });
}

void
sites_push(struct sites *s, struct site *site, size_t entry, char *url,
    unsigned hops)
{
	if (site->njobs == site->cap) {
		site->cap = site->cap ? 2 * site->cap : 8;
		site->jobs = wa_reallocarray(site->jobs, site->cap, sizeof *site->jobs);
	}
	job_heap_push(site->jobs, &site->njobs, (struct job){ entry, url, hops });
	s->pending++;
	queue_site(s, site);
}

bool
site_pop(struct sites *s, struct site *site, struct job *job)
{
	if (site->njobs == 0)
		return false;
	*job = job_heap_pop(site->jobs, &site->njobs);
	s->pending--;
	return true;
}

struct site *
sites_next(struct sites *s, double now)
{
	while (s->waiting.n > 0 && s->waiting.v[0].key <= now) {
		struct site *site = heap_pop(&s->waiting).site;
		heap_push(&s->ready, (struct heap_item){ (double)site->jobs[0].entry,
		    0, site });
	}
	if (s->ready.n == 0)
		return NULL;
	struct site *site = heap_pop(&s->ready).site;
	site->queued = false;
	site->busy = true;
	return site;
}

double
sites_next_time(const struct sites *s)
{
	if (s->ready.n > 0)
		return 0;
	return s->waiting.n > 0 ? s->waiting.v[0].key : -1;
}

void
sites_release(struct sites *s, struct site *site, double now, double backoff)
{
	double wait = site->delay > backoff ? site->delay : backoff;
	if (now + wait > site->next_allowed)
		site->next_allowed = now + wait;
	site->busy = false;
	queue_site(s, site);
}

void
sites_return(struct sites *s, struct site *site)
{
	site->busy = false;
	queue_site(s, site);
}

void
sites_done(struct sites *s, struct site *site, double now, double backoff)
{
	if (site->closed)
		sites_return(s, site);
	else
		sites_release(s, site, now, backoff);
}

bool
site_last_on_connection(const struct site *site, unsigned long per_connection)
{
	return site->conn_pages + 1 >= per_connection;
}

void
site_count_request(struct site *site, bool new_connection, bool closes)
{
	if (new_connection)
		site->conn_pages = 1;
	else
		site->conn_pages++;
	if (closes)
		site->conn_pages = 0;
}

/* The HOST:PORT of a --resolve entry ("HOST:PORT:ADDR", a leading '+'
 * for curl's timeout form) equals hostport, or its host is curl's
 * wildcard "*" and the ports agree. */
static bool
resolve_entry_for(const char *entry, const char *hostport, size_t hostlen)
{
	const char *port = hostport + hostlen;	/* ":PORT" */
	size_t portlen = strlen(port);
	if (*entry == '+')
		entry++;
	if (strncasecmp(entry, hostport, hostlen) == 0 &&
	    strncmp(entry + hostlen, port, portlen) == 0 && entry[hostlen + portlen] == ':')
		return true;
	return entry[0] == '*' && strncmp(entry + 1, port, portlen) == 0 &&
	    entry[1 + portlen] == ':';
}

struct curl_slist *
site_resolve(struct site *site, const struct curl_slist *resolve)
{
	if (site->resolve_known)
		return site->resolve;
	site->resolve_known = true;
	const char *host = strstr(site->origin, "://") + 3;
	const char *v6end = *host == '[' ? strchr(host, ']') : NULL;
	const char *colon = strchr(v6end ? v6end : host, ':');
	char *hostport = colon ? wa_strdup(host) : wa_asprintf("%s:%s", host,
	    strncmp(site->origin, "https:", 6) == 0 ? "443" : "80");
	size_t hostlen = colon ? (size_t)(colon - host) : strlen(host);
	for (const struct curl_slist *e = resolve; e; e = e->next) {
		if (!resolve_entry_for(e->data, hostport, hostlen))
			continue;
		struct curl_slist *l = curl_slist_append(site->resolve, e->data);
		if (!l)
			wa_die("out of memory");
		site->resolve = l;
	}
	free(hostport);
	return site->resolve;
}

void
site_set_robots(struct site *site, struct robots *r, double max_crawl_delay)
{
	site->robots = r;
	site->robots_state = ROBOTS_KNOWN;
	double cd = robots_crawl_delay(r);
	if (cd > max_crawl_delay) {
		wa_warn("%s: robots.txt asks for a Crawl-delay of %gs, more than "
		    "--max-crawl-delay %gs: site deferred", site->origin, cd,
		    max_crawl_delay);
		site->closed = "crawl-delay";
	} else if (cd > site->delay)
		site->delay = cd;
}

void
site_unreachable(struct site *site, const char *why)
{
	site->closed = why;
	site->robots = robots_all(false);
	site->robots_state = ROBOTS_KNOWN;
}

void
sites_outcome(struct sites *s, struct site *site, double now,
    const struct site_request *r, double max_crawl_delay)
{
	double backoff = 0;

	/* A response cut short fails too: a server that sends its header and
	 * then stalls would cost a --timeout per URL. */
	if (r->code >= 500 || !r->answered || r->broken)
		site->failures++;
	else
		site->failures = 0;
	if ((r->code == 429 || r->code == 503) && r->retry_after > 0) {
		if (r->retry_after > max_crawl_delay && !site->closed) {
			wa_warn("%s: Retry-After %" PRId64 "s is more than "
			    "--max-crawl-delay %gs: site deferred", site->origin,
			    r->retry_after, max_crawl_delay);
			site->closed = "retry-after";
		}
		backoff = (double)r->retry_after;
	}
	if (site->failures >= SITE_MAX_FAILURES && !site->closed) {
		wa_warn("%s: given up after %d failed requests in a row (last: %s)",
		    site->origin, SITE_MAX_FAILURES, r->status);
		site->closed = "site-failed";
	}
	sites_done(s, site, now, backoff);
}

static void
site_free(void *p)
{
	struct site *site = p;
	for (size_t i = 0; i < site->njobs; i++)
		free(site->jobs[i].url);
	free(site->jobs);
	if (site->robots)
		robots_free(site->robots);
	curl_slist_free_all(site->resolve);
	free(site->origin);
	free(site);
}

void
sites_free(struct sites *s)
{
	strmap_free(&s->by_origin, site_free);
	free(s->all);
	free(s->waiting.v);
	free(s->ready.v);
	memset(s, 0, sizeof *s);
}
