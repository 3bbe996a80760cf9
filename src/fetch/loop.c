/* The event loop of wa-fetch: sites served while connections are free,
 * libcurl polled, finished transfers decided, rows written (see fetch.h). */
#include <stdio.h>
#include <unistd.h>

#include "fetch.h"
#include "heap.h"
#include "msg.h"
#include "wa.h"

static bool
retry_before(const struct retry *a, const struct retry *b)
{
	return a->at < b->at || (a->at == b->at && a->job.entry < b->job.entry);
}

HEAP_DEFINE(retry_heap, struct retry, retry_before)

void
fetch_retry_at(struct fetch *f, struct site *site, struct job job, double at)
{
	if (f->nretries == f->retries_cap) {
		f->retries_cap = f->retries_cap ? 2 * f->retries_cap : 16;
		f->retries = wa_reallocarray(f->retries, f->retries_cap, sizeof *f->retries);
	}
	retry_heap_push(f->retries, &f->nretries, (struct retry){ at, site, job });
	f->retries_decided++;
}

/* The retries whose time has come join their sites' queues, where the
 * sites' delays hold them as any other job. */
static void
queue_due_retries(struct fetch *f, double now)
{
	while (f->nretries > 0 && f->retries[0].at <= now) {
		struct retry r = retry_heap_pop(f->retries, &f->nretries);
		sites_push(&f->sites, r.site, r.job.entry, r.job.url, r.job.hops);
	}
}

/* The next time something waits for: a site or a retry; -1 if nothing. */
static double
next_wakeup(const struct fetch *f)
{
	double next = sites_next_time(&f->sites);
	if (f->nretries > 0 && (next < 0 || f->retries[0].at < next))
		next = f->retries[0].at;
	return next;
}

static const char *
plural(uint64_t n, const char *one, const char *more)
{
	return n == 1 ? one : more;
}

/* The least time the site's queue still needs: a delay between its jobs,
 * the first once it may be contacted again. */
static double
site_waits_left(const struct site *site, double now)
{
	if (site->njobs == 0 || site->closed)
		return 0;
	double start = site->busy ? now + site->delay :
	    site->next_allowed > now ? site->next_allowed : now;
	return start - now + (double)(site->njobs - 1) * site->delay;
}

/* Counting the active sites walks them all: a few times a second only.
 * The slowest site's waits bound the end of the run. */
static void
show_progress(struct fetch *f)
{
	double now = monotonic_seconds(), waits = 0;
	size_t active = 0;

	if (now - f->progress_shown < 0.1)
		return;
	f->progress_shown = now;
	for (size_t i = 0; i < f->sites.nall; i++) {
		const struct site *site = f->sites.all[i];
		if (site->njobs > 0 || site->busy)
			active++;
		double w = site_waits_left(site, now);
		if (w > waits)
			waits = w;
	}
	for (size_t i = 0; i < f->nretries; i++)
		if (f->retries[i].at - now > waits)
			waits = f->retries[i].at - now;
	progress_wait_left(&f->pg, waits);
	size_t idle = f->connections - f->ninflight;
	char retries[48] = "";
	if (f->nretries > 0)
		snprintf(retries, sizeof retries, ", %zu %s waiting", f->nretries,
		    plural(f->nretries, "retry", "retries"));
	progress_note(&f->pg, "%zu %s active, %zu idle %s%s", active,
	    plural(active, "site", "sites"), idle,
	    plural(idle, "connection", "connections"), retries);
}

/* The final line tells what the run did. */
static void
summarize(struct fetch *f)
{
	size_t sites = f->sites.nall;
	char summary[64];
	int n = snprintf(summary, sizeof summary, "%zu %s", sites,
	    plural(sites, "site", "sites"));
	if (f->retries_decided > 0)
		snprintf(summary + n, sizeof summary - n, ", %llu %s",
		    (unsigned long long)f->retries_decided,
		    plural(f->retries_decided, "retry", "retries"));
	progress_summary(&f->pg, summary);
}

/* How long to poll: until the next site is ready, a second at most. */
static int
poll_ms(const struct fetch *f, double now, double stop_at)
{
	double next = next_wakeup(f);
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
	for (size_t i = 0; i < f->nretries; i++)
		free(f->retries[i].job.url);
	f->nretries = 0;
	for (size_t i = 0; i < f->nentries; i++)
		if (!f->entries[i].logged)
			fetch_log_unfetched(f, i, "interrupted", NULL, NULL);
}

/* True once every job is done; false if a signal or a fault stopped it. */
static bool
run_loop(struct fetch *f)
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
			return false;
		if (stop_at < 0) {
			struct site *site;
			while (f->ninflight < f->connections &&
			    (site = sites_next(&f->sites, now)))
				fetch_serve_site(f, site);
			/* After the sites' turns: a site whose time comes with
			 * a retry's serves another URL first, if it has one. */
			queue_due_retries(f, now);
			if (f->ninflight == 0 && f->sites.pending == 0 &&
			    next_wakeup(f) < 0)
				return true;
		}
		poll_once(f, poll_ms(f, now, stop_at));
		fetch_read_messages(f);
		fetch_flush_rows(f);
		show_progress(f);
	}
}

bool
fetch_run(struct fetch *f)
{
	bool complete = run_loop(f);
	if (!complete)
		abandon(f);
	free(f->retries);
	free(f->retried);
	summarize(f);
	return complete;
}
