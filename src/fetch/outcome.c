/* The decisions of wa-fetch on each finished request: the robots.txt
 * rules of its site, the page's fetch log row and WARC records, a
 * redirect to follow, and what the outcome means for the site (see
 * fetch.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fetch.h"
#include "msg.h"
#include "robots.h"
#include "robotscache.h"
#include "url.h"
#include "wa.h"

/* Whether a failed request found no server at all: its name does not
 * resolve, its port refuses, its TLS fails, or its address is refused. */
static const char *
no_server(const struct transfer *x, CURLcode rc, long code)
{
	if (x->refused_private)
		return "private-address";
	if (code == 0 && (rc == CURLE_COULDNT_RESOLVE_HOST ||
	    rc == CURLE_COULDNT_CONNECT || transfer_tls_status(transfer_error_name(x, rc))))
		return transfer_error_name(x, rc);
	return NULL;
}

/* The number of the transfer's last record written, for fetch_log_row;
 * 0 without -o.  prev: the -P row of its URL, or NULL. */
static uint64_t
archive(struct fetch *f, const struct transfer *x, const char *target,
    const char *digest, const char *truncated, enum record_kind kind,
    const struct fetch_prev *prev)
{
	return f->warc ? transfer_archive(x, f->warc, target, digest, truncated, kind,
	    prev ? prev->time : -1) : 0;
}

/* Counts the request against the connection it used (--per-connection). */
static void
count_connection(struct transfer *x)
{
	long connects = 0;
	curl_easy_getinfo(x->easy, CURLINFO_NUM_CONNECTS, &connects);
	site_count_request(x->site, connects > 0, x->forbid_reuse);
}

/* A request that found no socket here (EMFILE, ENFILE: out of file
 * descriptors) says nothing of its site: it is queued again, and the run
 * goes on with the connections that are open, idle ones kept as many.
 * With no other connection open the run stops as on a signal, the URL
 * logged as interrupted for --resume. */
static bool
local_failure(struct fetch *f, struct transfer *x, CURLcode rc, double now)
{
	size_t others = f->ninflight - 1;
	if (!x->local_errno || rc == CURLE_OK)
		return false;
	if (others == 0) {
		wa_warn("%s: no socket: %s, with no other connection open: the "
		    "crawl stops", x->site->origin, strerror(x->local_errno));
		f->local_fault = true;
		if (x->kind == TRANSFER_PAGE)
			fetch_log_unfetched(f, x->job.entry, "interrupted", NULL,
			    fetch_hop_url(&x->job));
		return true;
	}
	if (others < f->connections) {
		wa_warn("no socket: %s: at most %zu connections from now on (-r %lu)",
		    strerror(x->local_errno), others, f->opt.parallel);
		f->connections = others;
		curl_multi_setopt(f->multi, CURLMOPT_MAXCONNECTS, (long)f->connections);
	}
	if (x->kind == TRANSFER_PAGE) {
		sites_push(&f->sites, x->site, x->job.entry, x->job.url, x->job.hops);
		x->job.url = NULL;
	}
	sites_done(&f->sites, x->site, now, 0);
	return true;
}

/* The rules an answer to robots.txt gives, RFC 9309 sec. 2.3.1: a file
 * (2xx) is parsed; "unavailable" (4xx, or too many redirects) allows
 * everything; "unreachable" (5xx, 429, no answer in time) disallows
 * everything.  *cache_status: the status to keep in the cache, 0 for
 * none. */
static struct robots *
robots_from_answer(struct fetch *f, const struct transfer *x, CURLcode rc,
    long code, bool answered, const char *url, const char *text, size_t text_len,
    int *cache_status)
{
	const char *origin = x->site->origin;
	*cache_status = 0;
	if (answered && code >= 200 && code < 300) {
		if (x->truncated)
			wa_note("%s: longer than %d KiB: the rules past that are ignored "
			    "(RFC 9309 sec. 2.5)", url, ROBOTS_MAX_BYTES / 1024);
		*cache_status = (int)code;
		return robots_parse(text, text_len, f->opt.robots_token);
	}
	if (answered && code >= 400 && code < 500 && code != 429) {
		*cache_status = (int)code;
		return robots_all(true);
	}
	if (rc == CURLE_TOO_MANY_REDIRECTS || (answered && code >= 300 && code < 400)) {
		*cache_status = 404;	/* unavailable, like a 4xx */
		return robots_all(true);
	}
	if (answered)
		wa_warn("%s/robots.txt: status %ld: the site is disallowed for "
		    "this run", origin, code);
	else
		wa_warn("%s/robots.txt: %s: the site is disallowed for this run",
		    origin, curl_easy_strerror(rc));
	return robots_all(false);
}

/* Keeps an answer in --robots-cache; a cache that fails once is not
 * written again in the run. */
static void
keep_robots(struct fetch *f, const char *origin, int status, const char *text,
    size_t text_len)
{
	if (f->opt.robots_cache && status > 0 && !f->robots_cache_failed &&
	    !robotscache_store(f->opt.robots_cache, origin, fetch_run_time(f),
	    status, text, status < 300 ? text_len : 0)) {
		wa_warn("--robots-cache: robots.txt files are not kept for the rest "
		    "of the run");
		f->robots_cache_failed = true;
	}
}

static void
finish_robots(struct fetch *f, struct transfer *x, CURLcode rc, double now)
{
	struct site *site = x->site;
	long code = 0;
	int cache_status;
	char *url = NULL;
	bool answered = rc == CURLE_OK || (rc == CURLE_WRITE_ERROR && x->truncated);
	const char *why_not;
	char message[CURL_ERROR_SIZE + 128];

	if (local_failure(f, x, rc, now))
		return;
	rc = transfer_result(x, rc);
	curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &code);
	curl_easy_getinfo(x->easy, CURLINFO_EFFECTIVE_URL, &url);
	count_connection(x);
	if (wa_verbose)
		fprintf(stderr, "%s: %s/robots.txt %ld\n", wa_prog, site->origin, code);
	if ((why_not = no_server(x, rc, code))) {
		/* Nobody to ask: the site's pages would fail the same way. */
		if (x->refused_private)
			wa_warn("%s: refused: the host has a non-public address "
			    "(--allow-private or --allow-net allows it)", site->origin);
		else
			wa_warn("%s/robots.txt: %s", site->origin,
			    transfer_error_message(x, rc, message, sizeof message));
		site_unreachable(site, why_not);
		sites_done(&f->sites, site, now, 0);
		return;
	}
	if (code > 0 && answered) {
		unsigned char sha1[20];
		char digest[WARC_DIGEST_SIZE];
		EVP_DigestFinal_ex(x->sha1, sha1, NULL);
		warc_digest_format(sha1, digest);
		archive(f, x, url, digest, x->truncated ? "length" : NULL,
		    RECORD_RESPONSE, NULL);
	}
	/* The file decoded, should it come with a Content-Encoding unasked;
	 * as sent if that coding is a lie. */
	const char *text = x->decoded.failed ? x->body.p : (const char *)x->plain;
	size_t text_len = x->decoded.failed ? x->body.len :
	    x->decoded.bytes > x->cap ? x->cap : x->decoded.bytes;
	if (!text)
		text = "";
	struct robots *r = robots_from_answer(f, x, rc, code, answered, url, text,
	    text_len, &cache_status);
	keep_robots(f, site->origin, cache_status, text, text_len);
	site_set_robots(site, r, f->opt.max_crawl_delay);
	sites_done(&f->sites, site, now, 0);
}

/* -L: the target is fetched as the same input URL, one hop further, in
 * the queue of its own site (and after its robots.txt). */
static void
follow_redirect(struct fetch *f, struct job *job, char *target)
{
	char *origin = url_origin(target);
	struct site *site = sites_get(&f->sites, origin, f->opt.wait);
	free(origin);
	sites_push(&f->sites, site, job->entry, target, job->hops + 1);
}

/* The status column: the HTTP code, or why there is none. */
static const char *
page_status(const struct transfer *x, CURLcode rc, long code, char *buf, size_t size)
{
	if (x->refused_private)
		return "private-address";
	if (rc == CURLE_OK) {
		snprintf(buf, size, "%ld", code);
		return buf;
	}
	return x->truncated ? "too-large" : transfer_error_name(x, rc);
}

/* Change detection against the previous row: the changed column, the
 * columns a 304 carries over, and the kind of record to archive. */
static enum record_kind
compare_previous(struct fetch_row *row, const struct fetch_prev *prev,
    long code, bool complete)
{
	if (!prev)
		return RECORD_RESPONSE;
	if (code == 304) {
		/* The page is what it was: its columns carry over, so that the
		 * next run sends the same validators. */
		row->changed = 0;
		row->mime = prev->mime;
		row->bytes = prev->bytes;
		row->digest = prev->digest;
		if (row->last_modified < 0)
			row->last_modified = prev->last_modified;
		if (!row->etag)
			row->etag = prev->etag;
		return RECORD_NOT_MODIFIED;
	}
	if (!prev->digest)
		return RECORD_RESPONSE;
	row->changed = strcmp(row->digest, prev->digest) != 0;
	return !row->changed && code >= 200 && code < 300 && complete ?
	    RECORD_SAME_DIGEST : RECORD_RESPONSE;
}

/* The Retry-After of a 429 or 503 in seconds; 0 if none. */
static int64_t
retry_after(const struct transfer *x, long code)
{
	curl_off_t seconds = 0;
	if ((code == 429 || code == 503) &&
	    curl_easy_getinfo(x->easy, CURLINFO_RETRY_AFTER, &seconds) != CURLE_OK)
		seconds = 0;
	return (int64_t)seconds;
}

/* What the page's outcome means for its site (sites_outcome). */
static void
page_site_outcome(struct fetch *f, struct transfer *x, CURLcode rc, long code,
    bool answered, const char *status, double now)
{
	struct site_request r = { .code = code, .answered = answered,
	    .broken = rc != CURLE_OK && !x->truncated,
	    .retry_after = retry_after(x, code), .status = status };
	sites_outcome(&f->sites, x->site, now, &r, f->opt.max_crawl_delay);
}

/* Whether a failure may pass: no answer in time, a connection refused or
 * cut short, a 5xx but 501 and 505 (the request will never do), or a 429
 * or 503 whose Retry-After is within --max-crawl-delay (a longer one
 * defers the site to a later run). */
static bool
transient(const struct fetch *f, const struct transfer *x, CURLcode rc, long code)
{
	if (x->refused_private || x->truncated)
		return false;
	if (code == 429 || code == 503)
		return retry_after(x, code) <= f->opt.max_crawl_delay;
	if (code >= 500)
		return code != 501 && code != 505;
	switch (rc) {
	case CURLE_OPERATION_TIMEDOUT:
	case CURLE_COULDNT_CONNECT:
	case CURLE_PARTIAL_FILE:
	case CURLE_GOT_NOTHING:
	case CURLE_SEND_ERROR:
	case CURLE_RECV_ERROR:
		return true;
	default:
		return false;
	}
}

/* A transient failure of a URL with retries left (--retries): the URL
 * waits while its site serves others, then joins the site's queue again,
 * where the site's delay holds it as any job.  The wait doubles with each
 * retry, from the site's delay (RETRY_MIN_WAIT at least), and is no
 * shorter than the Retry-After.  The failed request leaves no record: the
 * WARC holds the URL's last attempt, the one its row tells; the row lists
 * the statuses of the others (fetch_log_row). */
static bool
retry_later(struct fetch *f, struct transfer *x, CURLcode rc, long code,
    bool answered, const char *status, double now)
{
	struct site *site = x->site;
	if (f->opt.retries == 0 || !transient(f, x, rc, code))
		return false;
	if (!f->retried)
		f->retried = wa_calloc(f->nentries, sizeof *f->retried);
	struct retried *r = &f->retried[x->job.entry];
	if (r->count >= f->opt.retries)
		return false;
	double wait = ldexp(site->delay > RETRY_MIN_WAIT ? site->delay : RETRY_MIN_WAIT,
	    (int)r->count);
	if ((double)retry_after(x, code) > wait)
		wait = (double)retry_after(x, code);
	char *statuses = r->statuses ? wa_asprintf("%s,%s", r->statuses, status) :
	    wa_strdup(status);
	free(r->statuses);
	r->statuses = statuses;
	r->count++;
	if (wa_verbose)
		fprintf(stderr, "%s: %s: retry %u of %lu in %gs\n", wa_prog, x->job.url,
		    r->count, f->opt.retries, wait);
	page_site_outcome(f, x, rc, code, answered, status, now);
	/* A site given up meanwhile logs the URL as it logs its others. */
	fetch_retry_at(f, site, x->job, site->closed ? now : now + wait);
	x->job.url = NULL;
	return true;
}

/* The columns of an answered page's row; *mime and *target are
 * malloc'ed for the caller.  Returns the kind of record to archive. */
static enum record_kind
answered_row(struct fetch *f, const struct transfer *x, CURLcode rc, long code,
    const struct fetch_prev *prev, struct fetch_row *row, char *digest,
    char **mime, char **target, const char **refused)
{
	unsigned char sha1[20];
	curl_off_t lm = -1;

	EVP_DigestFinal_ex(x->sha1, sha1, NULL);
	warc_digest_format(sha1, digest);
	curl_easy_getinfo(x->easy, CURLINFO_FILETIME_T, &lm);
	row->mime = *mime = transfer_mime(x);
	row->bytes = (int64_t)(x->decoded.bytes > f->opt.max_size ? f->opt.max_size :
	    x->decoded.bytes);
	row->digest = digest;
	row->last_modified = lm;
	row->etag = transfer_header(x, "ETag");
	row->redirect = *target = transfer_redirect_target(x, code, refused);
	return compare_previous(row, prev, code, !transfer_truncation(x, rc));
}

static void
finish_page(struct fetch *f, struct transfer *x, CURLcode rc, double now)
{
	struct job *job = &x->job;
	struct fetch_prev *prev = strmap_get(&f->previous, f->entries[job->entry].url);
	long code = 0;
	char status[24], digest[WARC_DIGEST_SIZE], *mime = NULL, *target = NULL;
	struct fetch_row row = { .url = f->entries[job->entry].url, .time = x->sec,
	    .bytes = -1, .last_modified = -1, .changed = -1, .robots = "allow" };

	if (local_failure(f, x, rc, now))
		return;
	rc = transfer_result(x, rc);
	curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &code);
	count_connection(x);
	bool answered = code > 0 && !x->refused_private;
	row.status = page_status(x, rc, code, status, sizeof status);
	if (wa_verbose)
		fprintf(stderr, "%s: %s %s\n", wa_prog, job->url, row.status);
	if (retry_later(f, x, rc, code, answered, row.status, now))
		return;
	if (!answered) {
		/* No response: nothing to archive, the row says why. */
		fetch_log_row(f, &row, job->entry, 0);
		page_site_outcome(f, x, rc, code, answered, row.status, now);
		return;
	}

	const char *refused;
	enum record_kind kind = answered_row(f, x, rc, code, prev, &row, digest, &mime,
	    &target, &refused);
	/* A redirect out of scope is logged as with -L 0, not followed. */
	if (target && f->opt.follow > 0 && rc == CURLE_OK &&
	    scope_decide(&f->opt.scope, target) != SCOPE_OUT) {
		if (job->hops < f->opt.follow) {
			archive(f, x, job->url, digest, NULL, RECORD_RESPONSE, NULL);
			follow_redirect(f, job, target);	/* takes target */
			free(mime);
			page_site_outcome(f, x, rc, code, answered, row.status, now);
			return;
		}
		row.status = "too-many-redirects";
	} else if (refused && f->opt.follow > 0 && rc == CURLE_OK) {
		row.status = "bad-redirect";
		wa_warn("%s: Location refused: %s: %.200s", job->url, refused,
		    transfer_header(x, "Location"));
	}
	if (!row.redirect)
		row.redirect = fetch_hop_url(job);
	fetch_log_row(f, &row, job->entry, archive(f, x, job->url, digest,
	    transfer_truncation(x, rc), kind, prev));
	free(mime);
	free(target);
	page_site_outcome(f, x, rc, code, answered, row.status, now);
}

void
fetch_read_messages(struct fetch *f)
{
	CURLMsg *m;
	int left;
	while ((m = curl_multi_info_read(f->multi, &left))) {
		struct transfer *x;
		if (m->msg != CURLMSG_DONE)
			continue;
		curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&x);
		CURLcode rc = m->data.result;
		double now = monotonic_seconds();
		if (x->kind == TRANSFER_ROBOTS)
			finish_robots(f, x, rc, now);
		else
			finish_page(f, x, rc, now);
		fetch_retire(f, x);
	}
}
