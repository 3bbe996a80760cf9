/* The requests of wa-fetch: a site's turn starts its robots.txt fetch or
 * its next page that may be fetched (see fetch.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fetch.h"
#include "msg.h"
#include "robots.h"
#include "robotscache.h"
#include "url.h"
#include "wa.h"

static void
launch(struct fetch *f, struct transfer *x)
{
	if (curl_multi_add_handle(f->multi, x->easy) != CURLM_OK)
		wa_die("libcurl could not start a transfer");
	f->inflight[f->ninflight++] = x;
}

void
fetch_retire(struct fetch *f, struct transfer *x)
{
	for (size_t i = 0; i < f->ninflight; i++)
		if (f->inflight[i] == x) {
			f->inflight[i] = f->inflight[--f->ninflight];
			break;
		}
	curl_multi_remove_handle(f->multi, x->easy);
	transfer_free(x);
}

static void
start_page(struct fetch *f, struct site *site, struct job *job)
{
	struct transfer *x = transfer_new(&f->tcfg, site, job->url,
	    site_resolve(site, f->opt.resolve), f->opt.max_size, true,
	    site_last_on_connection(site, f->opt.per_connection));
	struct fetch_prev *prev = strmap_get(&f->previous, f->entries[job->entry].url);

	fetch_stamp_run_clock(f, x);
	x->kind = TRANSFER_PAGE;
	x->job = *job;
	/* Validators belong to the URL that answered them: only a first hop
	 * to a URL that was not redirected last time sends them. */
	if (prev && job->hops == 0 && !prev->redirect &&
	    (strcmp(prev->status, "200") == 0 || strcmp(prev->status, "304") == 0)) {
		char date[64];
		if (prev->etag)
			transfer_add_header(x, "If-None-Match", prev->etag);
		if (prev->last_modified >= 0) {
			format_time(prev->last_modified, "%a, %d %b %Y %H:%M:%S GMT", date, sizeof date);
			transfer_add_header(x, "If-Modified-Since", date);
		}
	}
	launch(f, x);
}

static void
start_robots(struct fetch *f, struct site *site)
{
	char *url = wa_asprintf("%s/robots.txt", site->origin);
	/* It follows redirects, to any host: every entry. */
	struct transfer *x = transfer_new(&f->tcfg, site, url, f->opt.resolve,
	    ROBOTS_MAX_BYTES, false, site_last_on_connection(site, f->opt.per_connection));
	free(url);
	fetch_stamp_run_clock(f, x);
	x->kind = TRANSFER_ROBOTS;
	if (curl_easy_setopt(x->easy, CURLOPT_FOLLOWLOCATION, 1L) != CURLE_OK ||
	    curl_easy_setopt(x->easy, CURLOPT_MAXREDIRS, (long)ROBOTS_MAX_REDIRECTS) != CURLE_OK)
		wa_die("libcurl cannot follow redirects");
	launch(f, x);
}

static bool
robots_from_cache(struct fetch *f, struct site *site)
{
	int status;
	char *body;
	size_t len;

	if (!f->opt.robots_cache || !robotscache_load(f->opt.robots_cache, site->origin,
	    fetch_run_time(f), &status, &body, &len))
		return false;
	site_set_robots(site, status < 300 ?
	    robots_parse(body ? body : "", len, f->opt.robots_token) : robots_all(true),
	    f->opt.max_crawl_delay);
	free(body);
	return true;
}

void
fetch_serve_site(struct fetch *f, struct site *site)
{
	struct job job;

	if (site->robots_state == ROBOTS_UNKNOWN && !robots_from_cache(f, site)) {
		start_robots(f, site);
		return;
	}
	while (site_pop(&f->sites, site, &job)) {
		if (site->closed) {
			fetch_log_unfetched(f, job.entry, site->closed, NULL, fetch_hop_url(&job));
			free(job.url);
			continue;
		}
		if (!robots_allowed(site->robots, url_path(job.url))) {
			fetch_log_unfetched(f, job.entry, "robots", "disallow", fetch_hop_url(&job));
			free(job.url);
			continue;
		}
		start_page(f, site, &job);
		return;
	}
	sites_return(&f->sites, site);
}
