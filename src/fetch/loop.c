/* The event loop of wa-fetch: sites served while connections are free,
 * libcurl polled, finished transfers decided, rows written (see fetch.h). */
#include <stdio.h>
#include <unistd.h>

#include "fetch.h"
#include "msg.h"
#include "wa.h"

/* Counting the active sites walks them all: a few times a second only. */
static void
show_progress(struct fetch *f)
{
	double now = monotonic_seconds();
	size_t active = 0;

	if (now - f->progress_shown < 0.1)
		return;
	f->progress_shown = now;
	for (size_t i = 0; i < f->sites.nall; i++)
		if (f->sites.all[i]->njobs > 0 || f->sites.all[i]->busy)
			active++;
	progress_note(&f->pg, "%zu sites active, %zu idle connections", active,
	    f->connections - f->ninflight);
}

/* How long to poll: until the next site is ready, a second at most. */
static int
poll_ms(const struct fetch *f, double now, double stop_at)
{
	double next = sites_next_time(&f->sites);
	if (stop_at < 0 && next >= 0 && f->ninflight < f->connections) {
		double ms = (next - now) * 1000 + 1;
		return ms < 0 ? 0 : ms > 1000 ? 1000 : (int)ms;
	}
	return 1000;
}

/* Waits for libcurl, a signal or the next site, and lets libcurl work. */
static void
poll_once(struct fetch *f, int wait_ms)
{
	struct curl_waitfd wake = { f->wake_fd, CURL_WAIT_POLLIN, 0 };
	if (curl_multi_poll(f->multi, &wake, 1, wait_ms, NULL) != CURLM_OK)
		wa_die("libcurl: polling failed");
	char drain[16];
	while (read(f->wake_fd, drain, sizeof drain) > 0)
		continue;
	int running;
	curl_multi_perform(f->multi, &running);
}

/* Abandoned: requests still in flight leave no record. */
static void
abandon(struct fetch *f)
{
	while (f->ninflight > 0) {
		struct transfer *x = f->inflight[0];
		if (x->kind == TRANSFER_PAGE)
			fetch_log_unfetched(f, x->job.entry, "interrupted", NULL,
			    fetch_hop_url(&x->job));
		fetch_retire(f, x);
	}
	for (size_t i = 0; i < f->nentries; i++)
		if (!f->entries[i].logged)
			fetch_log_unfetched(f, i, "interrupted", NULL, NULL);
}

bool
fetch_run(struct fetch *f)
{
	double stop_at = -1;

	for (;;) {
		double now = monotonic_seconds();
		if ((*f->signals_seen || f->local_fault) && stop_at < 0) {
			if (*f->signals_seen)
				wa_warn("interrupted: no new requests; %zu in flight get "
				    "%gs to finish", f->ninflight, STOP_GRACE_SECONDS);
			stop_at = now + STOP_GRACE_SECONDS;
		}
		if (f->warc_error || (stop_at >= 0 && (*f->signals_seen > 1 ||
		    now >= stop_at || f->ninflight == 0)))
			break;
		if (stop_at < 0) {
			struct site *site;
			while (f->ninflight < f->connections &&
			    (site = sites_next(&f->sites, now)))
				fetch_serve_site(f, site);
			if (f->ninflight == 0 && f->sites.pending == 0 &&
			    sites_next_time(&f->sites) < 0)
				return true;
		}
		poll_once(f, poll_ms(f, now, stop_at));
		fetch_read_messages(f);
		fetch_flush_rows(f);
		show_progress(f);
	}
	abandon(f);
	return false;
}
