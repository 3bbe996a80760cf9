/* wa-fetch: fetches the URLs of a fetch list politely, writes what it got
 * to WARC/1.1 files and one fetch log row per URL to stdout.
 *
 * The politeness model is seed 002's (Castillo, ch. 6.2: w seconds between
 * requests to a site, c pages per connection, r connections, never two at
 * once to a site), robots.txt is RFC 9309, the records are WARC 1.1 (ISO
 * 28500:2017), conditional requests RFC 9110 sec. 13.  One process, one
 * libcurl multi handle, one event loop.
 *
 * Here: the options, the input, the event loop and the decisions on each
 * outcome.  The politeness queues are in sites.c, one request and its
 * WARC records in transfer.c, the fetch log in fetchlog.c, the robots.txt
 * cache in robotscache.c. */
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <openssl/evp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fetchlog.h"
#include "robots.h"
#include "robotscache.h"
#include "sites.h"
#include "transfer.h"
#include "url.h"
#include "utf8.h"
#include "wa.h"
#include "warc.h"

static const char usage[] =
    "usage: wa-fetch [options] [URLS...]\n"
    "Fetches the URLs of the first column of URLS (or stdin) politely, in that\n"
    "order of priority; WARC records to -o, the fetch log to stdout.\n"
    "  -o WARC         WARC/1.1 output (.warc.gz: a gzip member per record)\n"
    "  -p LOG          previous fetch log: conditional requests, changed column\n"
    "  -w SECONDS      wait between two requests to a site (5s)\n"
    "  -r N            connections, at most one per site (32)\n"
    "  -c N            requests per connection (100)\n"
    "  -L N            follow up to N redirects (0: log them, do not follow)\n"
    "  -A AGENT        User-Agent (wa-fetch/VERSION; --contact URL adds (+URL))\n"
    "  --robots-agent TOKEN      robots.txt product token (default: from AGENT)\n"
    "  --allow-private (every address not public)  --insecure (no TLS checks)\n"
    "  --allow-net CIDR          also allow the non-public addresses of CIDR\n"
    "  --resolve HOST:PORT:ADDR  connect to ADDR for HOST:PORT (repeatable)\n"
    "  --max-size SIZE           cap on a body, encoded or decoded (10M)\n"
    "  --max-crawl-delay SECONDS largest Crawl-delay, Retry-After obeyed (30s)\n"
    "  --warc-max-size SIZE      start a new WARC file past SIZE (1G)\n"
    "  --robots-cache DIR        keep robots.txt files in DIR for 24 hours\n"
    "  --resume LOG              skip the URLs LOG has an outcome for\n"
    "  --now TIME                the clock starts at TIME (log, WARC-Date)\n"
    "  --connect-timeout SECONDS (10s)   --timeout SECONDS per request (120s)\n"
    "  --low-speed-limit SIZE (1K), --low-speed-time SECONDS (30s): abort slower\n"
    "  -q  no progress;  -v  a line per request;  -h  help;  --version\n"
    "See wa-fetch(1).\n";

enum {
	OPT_ALLOW_PRIVATE = WA_OPT_FIRST_TOOL, OPT_ALLOW_NET, OPT_INSECURE, OPT_RESOLVE,
	OPT_MAX_SIZE, OPT_MAX_CRAWL_DELAY, OPT_WARC_MAX_SIZE, OPT_ROBOTS_CACHE,
	OPT_RESUME, OPT_CONNECT_TIMEOUT, OPT_TIMEOUT, OPT_LOW_SPEED_LIMIT,
	OPT_LOW_SPEED_TIME, OPT_ROBOTS_AGENT, OPT_CONTACT,
};

/* After SIGINT or SIGTERM, requests in flight get this long to finish. */
#define STOP_GRACE_SECONDS 5.0
/* robots.txt redirects followed (RFC 9309 sec. 2.3.1.2). */
#define ROBOTS_MAX_REDIRECTS 5

static struct {
	const char *warc, *previous, *robots_cache, *resume;
	double wait, max_crawl_delay, connect_timeout, timeout, low_speed_time;
	unsigned long parallel, per_connection, follow;
	uint64_t max_size, warc_max_size, low_speed_limit;
	bool allow_private, insecure;
	const char *agent, *contact;
	char *agent_buf, *robots_token;
	struct curl_slist *resolve;
	struct netaddr_block *allowed;
	size_t nallowed;
	int64_t now;		/* --now; -1: the real clock */
} opt = {
	.wait = 5, .max_crawl_delay = 30, .connect_timeout = 10, .timeout = 120,
	.low_speed_time = 30, .parallel = 32, .per_connection = 100,
	.max_size = 10 << 20, .warc_max_size = 1 << 30, .low_speed_limit = 1024,
	.agent = "wa-fetch/" WA_VERSION, .now = -1,
};

/* One input URL: the row it gets in the log is decided once. */
struct entry {
	char *url;		/* canonical; as given if bad */
	bool bad;
	bool logged;
};

static struct entry *entries;
static size_t nentries;
static struct sites sites;
static struct strmap previous;		/* -p rows by URL */
static CURLM *multi;
static CURLSH *share;
static struct warc_writer *warc;
static struct transfer_config tcfg;
static struct transfer **inflight;
static size_t ninflight;
static size_t connections;	/* -r, or fewer once file descriptors ran out */
static struct progress pg;
static uint64_t logged_rows;
static volatile sig_atomic_t signals_seen;
/* A fault of this host's, not of the sites': the run stops as on a signal
 * (no file descriptor left), or at once (the WARC cannot be written). */
static bool local_fault;
static const char *warc_error;
static bool robots_cache_failed;
/* Rows waiting for their records to be written, in the order given, so
 * that the log never names a record the WARC lacks. */
struct pending_row {
	char *line;
	uint64_t record;	/* the number warc_write gave its last record */
	size_t entry;
};
static struct pending_row *pending;
static size_t pending_head, npending, pending_cap;
static uint64_t records_written;
static int wake_pipe[2] = { -1, -1 };
static struct timespec run_start;	/* real time the run began (--now) */

/* Microseconds of the real clock since the run began; never negative,
 * should the real clock be set back during the run. */
static int64_t
run_elapsed_usec(int64_t sec, long usec)
{
	int64_t us = (sec - (int64_t)run_start.tv_sec) * 1000000 + usec -
	    run_start.tv_nsec / 1000;
	return us < 0 ? 0 : us;
}

/* The run's clock in Unix seconds: --now plus the real seconds elapsed
 * since the run began, or the real time.  It dates what the run records;
 * politeness delays and timeouts keep to the real clock. */
static int64_t
run_time(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	if (opt.now < 0)
		return ts.tv_sec;
	return opt.now + run_elapsed_usec(ts.tv_sec, ts.tv_nsec / 1000) / 1000000;
}

/* A transfer is stamped with the real time it started: --now moves the
 * stamp, which dates its log row and its WARC records, to the run's clock. */
static void
stamp_run_clock(struct transfer *x)
{
	if (opt.now < 0)
		return;
	int64_t us = run_elapsed_usec(x->sec, x->usec);
	x->sec = opt.now + us / 1000000;
	x->usec = (long)(us % 1000000);
}

/* record: the number of the row's last WARC record, 0 if it has none. */
static void
log_row(const struct fetch_row *row, size_t entry, uint64_t record)
{
	entries[entry].logged = true;
	progress_set(&pg, ++logged_rows);
	if (record <= records_written) {
		fetchlog_write(stdout, row);
		return;
	}
	if (npending == pending_cap) {
		pending_cap = pending_cap ? 2 * pending_cap : 64;
		pending = wa_reallocarray(pending, pending_cap, sizeof *pending);
	}
	pending[npending++] = (struct pending_row){ fetchlog_format(row), record, entry };
}

/* Writes the rows whose records are written; a write error of the WARC
 * stops the run. */
static void
flush_rows(void)
{
	const char *error;
	if (!warc)
		return;
	records_written = warc_writer_written(warc, &error);
	for (; pending_head < npending && pending[pending_head].record <= records_written;
	    pending_head++) {
		fputs(pending[pending_head].line, stdout);
		free(pending[pending_head].line);
	}
	if (pending_head == npending)
		pending_head = npending = 0;
	if (error && !warc_error) {
		warc_error = error;
		wa_warn("%s: the crawl stops; the file keeps its whole records, and "
		    "the URLs whose records are lost are logged as interrupted", error);
	}
}

/* A row for a URL that got no request: why is its status. */
/* Column 10 of a job's row: the URL its redirects led to, if any. */
static const char *
hop_url(const struct job *job)
{
	return job->hops > 0 ? job->url : NULL;
}

static void
log_unfetched(size_t entry, const char *why, const char *robots, const char *led_to)
{
	struct fetch_row row = { .url = entries[entry].url, .time = -1,
	    .status = why, .bytes = -1, .last_modified = -1, .changed = -1,
	    .robots = robots, .redirect = led_to };
	log_row(&row, entry, 0);
}

static void
launch(struct transfer *x)
{
	if (curl_multi_add_handle(multi, x->easy) != CURLM_OK)
		wa_die("libcurl could not start a transfer");
	inflight[ninflight++] = x;
}

static void
retire(struct transfer *x)
{
	for (size_t i = 0; i < ninflight; i++)
		if (inflight[i] == x) {
			inflight[i] = inflight[--ninflight];
			break;
		}
	curl_multi_remove_handle(multi, x->easy);
	transfer_free(x);
}

static void
start_page(struct site *site, struct job *job)
{
	struct transfer *x = transfer_new(&tcfg, site, job->url,
	    site_resolve(site, opt.resolve), opt.max_size, true,
	    site_last_on_connection(site, opt.per_connection));
	struct fetch_prev *prev = strmap_get(&previous, entries[job->entry].url);

	stamp_run_clock(x);
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
	launch(x);
}

static void
start_robots(struct site *site)
{
	char *url = wa_asprintf("%s/robots.txt", site->origin);
	/* It follows redirects, to any host: every entry. */
	struct transfer *x = transfer_new(&tcfg, site, url, opt.resolve,
	    ROBOTS_MAX_BYTES, false, site_last_on_connection(site, opt.per_connection));
	free(url);
	stamp_run_clock(x);
	x->kind = TRANSFER_ROBOTS;
	if (curl_easy_setopt(x->easy, CURLOPT_FOLLOWLOCATION, 1L) != CURLE_OK ||
	    curl_easy_setopt(x->easy, CURLOPT_MAXREDIRS, (long)ROBOTS_MAX_REDIRECTS) != CURLE_OK)
		wa_die("libcurl cannot follow redirects");
	launch(x);
}

static bool
robots_from_cache(struct site *site)
{
	int status;
	char *body;
	size_t len;

	if (!opt.robots_cache || !robotscache_load(opt.robots_cache, site->origin,
	    run_time(), &status, &body, &len))
		return false;
	site_set_robots(site, status < 300 ?
	    robots_parse(body ? body : "", len, opt.robots_token) : robots_all(true),
	    opt.max_crawl_delay);
	free(body);
	return true;
}

/* The site was picked: decide its next job.  Jobs that cannot be fetched
 * get their row now, without a request; the first one that can starts. */
static void
serve_site(struct site *site)
{
	struct job job;

	if (site->robots_state == ROBOTS_UNKNOWN && !robots_from_cache(site)) {
		start_robots(site);
		return;
	}
	while (site_pop(&sites, site, &job)) {
		if (site->closed) {
			log_unfetched(job.entry, site->closed, NULL, hop_url(&job));
			free(job.url);
			continue;
		}
		if (!robots_allowed(site->robots, url_path(job.url))) {
			log_unfetched(job.entry, "robots", "disallow", hop_url(&job));
			free(job.url);
			continue;
		}
		start_page(site, &job);
		return;
	}
	sites_return(&sites, site);
}

/* The number of the last record written, for log_row; 0 without -o. */
static uint64_t
archive(const struct transfer *x, const char *target, const char *digest,
    const char *truncated, enum record_kind kind, const struct fetch_prev *prev)
{
	return warc ? transfer_archive(x, warc, target, digest, truncated, kind,
	    prev ? prev->time : -1) : 0;
}

/* Counts the request against the connection it used (-c). */
static void
count_connection(struct transfer *x)
{
	long connects = 0;
	curl_easy_getinfo(x->easy, CURLINFO_NUM_CONNECTS, &connects);
	site_count_request(x->site, connects > 0, x->forbid_reuse);
}

/* Whether a failed request found no server at all: its name does not
 * resolve, its port refuses, its TLS fails, or its address is refused. */
static const char *
no_server(const struct transfer *x, CURLcode rc, long code)
{
	if (x->refused_private)
		return "private-address";
	if (code == 0 && (rc == CURLE_COULDNT_RESOLVE_HOST ||
	    rc == CURLE_COULDNT_CONNECT || strcmp(transfer_error_name(rc), "tls") == 0))
		return transfer_error_name(rc);
	return NULL;
}

/* A request that found no socket here (EMFILE, ENFILE: out of file
 * descriptors) says nothing of its site: it is queued again, and the run
 * goes on with the connections that are open, idle ones kept as many.
 * With no other connection open the run stops as on a signal, the URL
 * logged as interrupted for --resume. */
static bool
local_failure(struct transfer *x, CURLcode rc, double now)
{
	size_t others = ninflight - 1;
	if (!x->local_errno || rc == CURLE_OK)
		return false;
	if (others == 0) {
		wa_warn("%s: no socket: %s, with no other connection open: the "
		    "crawl stops", x->site->origin, strerror(x->local_errno));
		local_fault = true;
		if (x->kind == TRANSFER_PAGE)
			log_unfetched(x->job.entry, "interrupted", NULL, hop_url(&x->job));
		return true;
	}
	if (others < connections) {
		wa_warn("no socket: %s: at most %zu connections from now on (-r %lu)",
		    strerror(x->local_errno), others, opt.parallel);
		connections = others;
		curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS, (long)connections);
	}
	if (x->kind == TRANSFER_PAGE) {
		sites_push(&sites, x->site, x->job.entry, x->job.url, x->job.hops);
		x->job.url = NULL;
	}
	sites_done(&sites, x->site, now, 0);
	return true;
}

static void
finish_robots(struct transfer *x, CURLcode rc, double now)
{
	struct site *site = x->site;
	long code = 0;
	int cache_status = 0;	/* 0: not kept */
	char *url = NULL;
	bool answered = rc == CURLE_OK || (rc == CURLE_WRITE_ERROR && x->truncated);
	const char *why_not;
	struct robots *r;

	if (local_failure(x, rc, now))
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
			wa_warn("%s/robots.txt: %s", site->origin, curl_easy_strerror(rc));
		site_unreachable(site, why_not);
		sites_done(&sites, site, now, 0);
		return;
	}
	if (code > 0 && answered) {
		unsigned char sha1[20];
		char digest[WARC_DIGEST_SIZE];
		EVP_DigestFinal_ex(x->sha1, sha1, NULL);
		warc_digest_format(sha1, digest);
		archive(x, url, digest, x->truncated ? "length" : NULL,
		    RECORD_RESPONSE, NULL);
	}
	/* RFC 9309 sec. 2.3.1: a file (2xx) is parsed; "unavailable" (4xx,
	 * or too many redirects) allows everything; "unreachable" (5xx, 429,
	 * no answer in time) disallows everything. */
	/* The file decoded, should it come with a Content-Encoding unasked;
	 * as sent if that coding is a lie. */
	const char *text = x->decoded.failed ? x->body.p : (const char *)x->plain;
	size_t text_len = x->decoded.failed ? x->body.len :
	    x->decoded.bytes > x->cap ? x->cap : x->decoded.bytes;
	if (!text)
		text = "";
	if (answered && code >= 200 && code < 300) {
		if (x->truncated)
			wa_note("%s: longer than %d KiB: the rules past that are ignored "
			    "(RFC 9309 sec. 2.5)", url, ROBOTS_MAX_BYTES / 1024);
		r = robots_parse(text, text_len, opt.robots_token);
		cache_status = (int)code;
	} else if (answered && code >= 400 && code < 500 && code != 429) {
		r = robots_all(true);
		cache_status = (int)code;
	} else if (rc == CURLE_TOO_MANY_REDIRECTS || (answered && code >= 300 && code < 400)) {
		r = robots_all(true);
		cache_status = 404;	/* unavailable, like a 4xx */
	} else {
		if (answered)
			wa_warn("%s/robots.txt: status %ld: the site is disallowed for "
			    "this run", site->origin, code);
		else
			wa_warn("%s/robots.txt: %s: the site is disallowed for this run",
			    site->origin, curl_easy_strerror(rc));
		r = robots_all(false);
	}
	if (opt.robots_cache && cache_status > 0 && !robots_cache_failed &&
	    !robotscache_store(opt.robots_cache, site->origin, run_time(),
	    cache_status, text, cache_status < 300 ? text_len : 0)) {
		wa_warn("--robots-cache: robots.txt files are not kept for the rest "
		    "of the run");
		robots_cache_failed = true;
	}
	site_set_robots(site, r, opt.max_crawl_delay);
	sites_done(&sites, site, now, 0);
}

/* -L: the target is fetched as the same input URL, one hop further, in
 * the queue of its own site (and after its robots.txt). */
static void
follow_redirect(struct job *job, char *target)
{
	char *origin = url_origin(target);
	struct site *site = sites_get(&sites, origin, opt.wait);
	free(origin);
	sites_push(&sites, site, job->entry, target, job->hops + 1);
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
	return x->truncated ? "too-large" : transfer_error_name(rc);
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

/* What the page's outcome means for its site (sites_outcome). */
static void
site_outcome(struct site *site, struct transfer *x, CURLcode rc, long code,
    bool answered, const char *status, double now)
{
	curl_off_t retry_after = 0;
	if ((code == 429 || code == 503) &&
	    curl_easy_getinfo(x->easy, CURLINFO_RETRY_AFTER, &retry_after) != CURLE_OK)
		retry_after = 0;
	struct site_request r = { .code = code, .answered = answered,
	    .broken = rc != CURLE_OK && !x->truncated,
	    .retry_after = (int64_t)retry_after, .status = status };
	sites_outcome(&sites, site, now, &r, opt.max_crawl_delay);
}

static void
finish_page(struct transfer *x, CURLcode rc, double now)
{
	struct job *job = &x->job;
	struct fetch_prev *prev = strmap_get(&previous, entries[job->entry].url);
	long code = 0;
	char status[24], digest[WARC_DIGEST_SIZE], *mime = NULL, *target = NULL;
	unsigned char sha1[20];
	curl_off_t lm = -1;
	struct fetch_row row = { .url = entries[job->entry].url, .time = x->sec,
	    .bytes = -1, .last_modified = -1, .changed = -1, .robots = "allow" };

	if (local_failure(x, rc, now))
		return;
	rc = transfer_result(x, rc);
	curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &code);
	count_connection(x);
	bool answered = code > 0 && !x->refused_private;
	row.status = page_status(x, rc, code, status, sizeof status);
	if (wa_verbose)
		fprintf(stderr, "%s: %s %s\n", wa_prog, job->url, row.status);
	if (!answered) {
		/* No response: nothing to archive, the row says why. */
		log_row(&row, job->entry, 0);
		site_outcome(x->site, x, rc, code, answered, row.status, now);
		return;
	}

	EVP_DigestFinal_ex(x->sha1, sha1, NULL);
	warc_digest_format(sha1, digest);
	curl_easy_getinfo(x->easy, CURLINFO_FILETIME_T, &lm);
	row.mime = mime = transfer_mime(x);
	row.bytes = (int64_t)(x->decoded.bytes > opt.max_size ? opt.max_size :
	    x->decoded.bytes);
	row.digest = digest;
	row.last_modified = lm;
	row.etag = transfer_header(x, "ETag");
	const char *refused;
	row.redirect = target = transfer_redirect_target(x, code, &refused);
	enum record_kind kind = compare_previous(&row, prev, code, !transfer_truncation(x, rc));

	if (target && opt.follow > 0 && rc == CURLE_OK) {
		if (job->hops < opt.follow) {
			archive(x, job->url, digest, NULL, RECORD_RESPONSE, NULL);
			follow_redirect(job, target);	/* takes target */
			free(mime);
			site_outcome(x->site, x, rc, code, answered, row.status, now);
			return;
		}
		row.status = "too-many-redirects";
	} else if (refused && opt.follow > 0 && rc == CURLE_OK) {
		row.status = "bad-redirect";
		wa_warn("%s: Location refused: %s: %.200s", job->url, refused,
		    transfer_header(x, "Location"));
	}
	if (!row.redirect)
		row.redirect = hop_url(job);
	log_row(&row, job->entry, archive(x, job->url, digest,
	    transfer_truncation(x, rc), kind, prev));
	free(mime);
	free(target);
	site_outcome(x->site, x, rc, code, answered, row.status, now);
}

static void
read_messages(void)
{
	CURLMsg *m;
	int left;
	while ((m = curl_multi_info_read(multi, &left))) {
		struct transfer *x;
		if (m->msg != CURLMSG_DONE)
			continue;
		curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&x);
		CURLcode rc = m->data.result;
		double now = monotonic_seconds();
		if (x->kind == TRANSFER_ROBOTS)
			finish_robots(x, rc, now);
		else
			finish_page(x, rc, now);
		retire(x);
	}
}

/* Input */

/* The fetch log's name for an input that is no URL: the input, with its
 * control bytes and bytes that are not UTF-8 percent-encoded, cut past
 * URL_MAX bytes and then ended by a hash of the whole, so that the log
 * stays UTF-8 with lines of bounded length. */
static char *
bad_url_name(const char *in)
{
	size_t n = strlen(in), len = 0, i = 0;
	char *out = wa_malloc(3 * n + 1);

	while (i < n) {
		long bad = utf8_invalid_at(in + i, n - i);
		size_t end = bad < 0 ? n : i + (size_t)bad;
		for (; i <= end && i < n; i++) {
			unsigned char c = (unsigned char)in[i];
			if (i == end || c < 0x20 || c == 0x7f)
				len += (size_t)sprintf(out + len, "%%%02X", c);
			else
				out[len++] = (char)c;
		}
	}
	out[len] = '\0';
	if (len > URL_MAX) {
		size_t cut = URL_MAX - 20;
		/* Not inside an escape or a UTF-8 sequence. */
		while (out[cut - 1] == '%' || out[cut - 2] == '%' ||
		    ((unsigned char)out[cut] & 0xc0) == 0x80)
			cut--;
		snprintf(out + cut, 20, "...%016" PRIx64, strmap_hash(in, n));
	}
	return out;
}

static void
read_urls(const char *path, struct strmap *done, struct strmap *seen,
    uint64_t *bad, uint64_t *skipped, uint64_t *dups)
{
	struct tsv *t = tsv_open(path, 1, 0, 0);
	char canon[URL_BUFSIZE];
	const char *why;
	static char present;

	while (tsv_next(t)) {
		bool ok = url_canon(t->col[0], canon, &why);
		char *key = ok ? wa_strdup(canon) : bad_url_name(t->col[0]);
		/* Rejected for the report, and still logged as bad-url; a
		 * list with no URL at all is refused by tsv_close. */
		if (!ok)
			tsv_reject(t, "bad URL: %s: %.200s", why, key);
		bool resumed = strmap_get(done, key), repeated = strmap_get(seen, key);
		if (resumed || repeated) {
			++*(resumed ? skipped : dups);
			free(key);
			continue;
		}
		strmap_put(seen, key, &present);
		*bad += !ok;
		if ((nentries & (nentries - 1)) == 0)
			entries = wa_reallocarray(entries, nentries ? 2 * nentries : 1,
			    sizeof *entries);
		entries[nentries++] = (struct entry){ key, !ok, false };
	}
	tsv_close(t);
}

static void
queue_entries(void)
{
	for (size_t i = 0; i < nentries; i++) {
		if (entries[i].bad) {
			log_unfetched(i, "bad-url", NULL, NULL);
			continue;
		}
		char *origin = url_origin(entries[i].url);
		struct site *site = sites_get(&sites, origin, opt.wait);
		free(origin);
		sites_push(&sites, site, i, wa_strdup(entries[i].url), 0);
	}
}

/* The event loop */

static void
on_signal(int sig)
{
	int saved = errno;
	(void)sig;
	signals_seen++;
	if (write(wake_pipe[1], "", 1) < 0) {
		/* the loop looks at signals_seen at least once a second */
	}
	errno = saved;
}

static void
catch_signals(void)
{
	struct sigaction sa;
	if (pipe2(wake_pipe, O_CLOEXEC | O_NONBLOCK) != 0)
		wa_die_errno("pipe");
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* Counting the active sites walks them all: a few times a second only. */
static void
show_progress(void)
{
	static double last;
	double now = monotonic_seconds();
	size_t active = 0;

	if (now - last < 0.1)
		return;
	last = now;
	for (size_t i = 0; i < sites.nall; i++)
		if (sites.all[i]->njobs > 0 || sites.all[i]->busy)
			active++;
	progress_note(&pg, "%zu sites active, %zu idle connections", active,
	    connections - ninflight);
}

/* Runs until every job is done or a signal stops it; false if stopped. */
static bool
run(void)
{
	double stop_at = -1;

	for (;;) {
		double now = monotonic_seconds();
		if ((signals_seen || local_fault) && stop_at < 0) {
			if (signals_seen)
				wa_warn("interrupted: no new requests; %zu in flight get "
				    "%gs to finish", ninflight, STOP_GRACE_SECONDS);
			stop_at = now + STOP_GRACE_SECONDS;
		}
		if (warc_error || (stop_at >= 0 && (signals_seen > 1 || now >= stop_at ||
		    ninflight == 0)))
			break;
		if (stop_at < 0) {
			struct site *site;
			while (ninflight < connections && (site = sites_next(&sites, now)))
				serve_site(site);
			if (ninflight == 0 && sites.pending == 0 && sites_next_time(&sites) < 0)
				return true;
		}

		double next = sites_next_time(&sites);
		int wait_ms = 1000;
		if (stop_at < 0 && next >= 0 && ninflight < connections) {
			double ms = (next - now) * 1000 + 1;
			wait_ms = ms < 0 ? 0 : ms > 1000 ? 1000 : (int)ms;
		}
		struct curl_waitfd wake = { wake_pipe[0], CURL_WAIT_POLLIN, 0 };
		if (curl_multi_poll(multi, &wake, 1, wait_ms, NULL) != CURLM_OK)
			wa_die("libcurl: polling failed");
		char drain[16];
		while (read(wake_pipe[0], drain, sizeof drain) > 0)
			continue;
		int running;
		curl_multi_perform(multi, &running);
		read_messages();
		flush_rows();
		show_progress();
	}
	/* Abandoned: requests still in flight leave no record. */
	while (ninflight > 0) {
		struct transfer *x = inflight[0];
		if (x->kind == TRANSFER_PAGE)
			log_unfetched(x->job.entry, "interrupted", NULL, hop_url(&x->job));
		retire(x);
	}
	for (size_t i = 0; i < nentries; i++)
		if (!entries[i].logged)
			log_unfetched(i, "interrupted", NULL, NULL);
	return false;
}

/* Setup */

static void
open_warc(void)
{
	curl_version_info_data *cv = curl_version_info(CURLVERSION_NOW);
	char *software = wa_asprintf("wa-fetch/%s libcurl/%s", WA_VERSION, cv->version);
	char wait[32];
	snprintf(wait, sizeof wait, "%gs", opt.wait);
	const struct warc_field info[] = {
		{ "software", software },
		{ "format", "WARC File Format 1.1" },
		{ "conformsTo", "https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/" },
		{ "robots", "obey" },
		{ "http-header-user-agent", opt.agent },
		{ "wa-fetch-robots-agent", opt.robots_token },
		{ "wa-fetch-wait", wait },
	};
	warc = warc_writer_open(opt.warc, opt.warc_max_size, info,
	    sizeof info / sizeof info[0]);
	free(software);
}

static void
parse_options(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "allow-private", no_argument, NULL, OPT_ALLOW_PRIVATE },
		{ "allow-net", required_argument, NULL, OPT_ALLOW_NET },
		{ "insecure", no_argument, NULL, OPT_INSECURE },
		{ "resolve", required_argument, NULL, OPT_RESOLVE },
		{ "max-size", required_argument, NULL, OPT_MAX_SIZE },
		{ "max-crawl-delay", required_argument, NULL, OPT_MAX_CRAWL_DELAY },
		{ "warc-max-size", required_argument, NULL, OPT_WARC_MAX_SIZE },
		{ "robots-cache", required_argument, NULL, OPT_ROBOTS_CACHE },
		{ "resume", required_argument, NULL, OPT_RESUME },
		{ "connect-timeout", required_argument, NULL, OPT_CONNECT_TIMEOUT },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "low-speed-limit", required_argument, NULL, OPT_LOW_SPEED_LIMIT },
		{ "low-speed-time", required_argument, NULL, OPT_LOW_SPEED_TIME },
		{ "now", required_argument, NULL, WA_OPT_NOW },
		{ "robots-agent", required_argument, NULL, OPT_ROBOTS_AGENT },
		{ "contact", required_argument, NULL, OPT_CONTACT },
		WA_COMMON_LONGOPTS
	};
	bool agent_given = false;
	int c;

	while ((c = getopt_long(argc, argv, "A:c:hL:o:p:qr:vw:", longopts, NULL)) != -1) {
		switch (c) {
		case 'A':
			if (strchr("/ ", *optarg) || strpbrk(optarg, "\r\n"))
				wa_usage_error("-A: the agent must be one line starting "
				    "with a product token ('name/version')");
			opt.agent = optarg;
			agent_given = true;
			break;
		case 'c':
			opt.per_connection = opt_count("-c", optarg, 1, 1000000);
			break;
		case 'L':
			opt.follow = opt_count("-L", optarg, 0, 50);
			break;
		case 'o':
			opt.warc = optarg;
			break;
		case 'p':
			opt.previous = optarg;
			break;
		case 'r':
			opt.parallel = opt_count("-r", optarg, 1, 10000);
			break;
		case 'w':
			opt.wait = opt_duration("-w", optarg);
			break;
		case OPT_ALLOW_PRIVATE:
			opt.allow_private = true;
			break;
		case OPT_ALLOW_NET:
			opt.allowed = wa_reallocarray(opt.allowed, opt.nallowed + 1,
			    sizeof *opt.allowed);
			if (!netaddr_block_parse(optarg, &opt.allowed[opt.nallowed++]))
				wa_usage_error("--allow-net: '%s' is not ADDR or ADDR/BITS "
				    "with no bits set past BITS", optarg);
			break;
		case OPT_INSECURE:
			opt.insecure = true;
			break;
		case OPT_RESOLVE: {
			const char *p = strchr(optarg, ':');
			if (!p || !strchr(p + 1, ':'))
				wa_usage_error("--resolve: '%s' is not HOST:PORT:ADDR", optarg);
			struct curl_slist *l = curl_slist_append(opt.resolve, optarg);
			if (!l)
				wa_die("out of memory");
			opt.resolve = l;
			break;
		}
		case OPT_MAX_SIZE:
			opt.max_size = opt_size("--max-size", optarg);
			if (opt.max_size == 0)
				wa_usage_error("--max-size: must be more than 0");
			break;
		case OPT_MAX_CRAWL_DELAY:
			opt.max_crawl_delay = opt_duration("--max-crawl-delay", optarg);
			break;
		case OPT_WARC_MAX_SIZE:
			opt.warc_max_size = opt_size("--warc-max-size", optarg);
			break;
		case OPT_ROBOTS_CACHE:
			opt.robots_cache = optarg;
			break;
		case OPT_RESUME:
			opt.resume = optarg;
			break;
		case OPT_CONNECT_TIMEOUT:
			opt.connect_timeout = opt_duration("--connect-timeout", optarg);
			break;
		case OPT_TIMEOUT:
			opt.timeout = opt_duration("--timeout", optarg);
			break;
		case OPT_LOW_SPEED_LIMIT:
			opt.low_speed_limit = opt_size("--low-speed-limit", optarg);
			break;
		case OPT_LOW_SPEED_TIME:
			opt.low_speed_time = opt_duration("--low-speed-time", optarg);
			break;
		case WA_OPT_NOW:
			opt.now = opt_time("--now", optarg);
			if (opt.now < 0)
				wa_usage_error("--now: '%s' is before 1970", optarg);
			break;
		case OPT_ROBOTS_AGENT:
			if (!robots_token_valid(optarg))
				wa_usage_error("--robots-agent: '%s' is no product token "
				    "(letters, '_' and '-' only)", optarg);
			free(opt.robots_token);
			opt.robots_token = wa_strdup(optarg);
			break;
		case OPT_CONTACT:
			if (!*optarg || strpbrk(optarg, " \t\r\n()"))
				wa_usage_error("--contact: '%s' is not a URL", optarg);
			opt.contact = optarg;
			break;
		default:
			wa_common_option(c);
		}
	}
	if (opt.contact && agent_given)
		wa_usage_error("--contact: only for the default agent; -A AGENT "
		    "can hold the URL itself");
	if (opt.contact)
		opt.agent = opt.agent_buf = wa_asprintf("wa-fetch/%s (+%s)",
		    WA_VERSION, opt.contact);
	/* The product token: see robots_agent_token. */
	if (!opt.robots_token && !(opt.robots_token = robots_agent_token(opt.agent)))
		wa_usage_error("-A: '%s' starts with no product token of letters, "
		    "'_' and '-': give --robots-agent", opt.agent);
	if (opt.robots_cache && mkdir(opt.robots_cache, 0777) != 0 && errno != EEXIST) {
		wa_warn("--robots-cache: %s: %s: no robots.txt cache in this run",
		    opt.robots_cache, strerror(errno));
		opt.robots_cache = NULL;
	}
}

int
main(int argc, char **argv)
{
	struct strmap done, seen;
	uint64_t bad = 0, skipped = 0, dups = 0;
	bool complete;

	wa_init(argc, argv, usage);
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		wa_die("libcurl could not start");
	clock_gettime(CLOCK_REALTIME, &run_start);
	parse_options(argc, argv);

	strmap_init(&previous);
	strmap_init(&done);
	strmap_init(&seen);
	if (opt.previous)
		fetchlog_load_previous(opt.previous, &previous);
	if (opt.resume)
		fetchlog_load_done(opt.resume, &done);
	if (optind == argc)
		read_urls(NULL, &done, &seen, &bad, &skipped, &dups);
	for (int i = optind; i < argc; i++)
		read_urls(argv[i], &done, &seen, &bad, &skipped, &dups);
	strmap_free(&done, NULL);
	strmap_free(&seen, NULL);
	if (bad > 0)
		wa_warn("%" PRIu64 " bad URLs, logged with status bad-url", bad);
	if (skipped > 0)
		wa_note("%" PRIu64 " URLs skipped: done in %s", skipped, opt.resume);
	if (dups > 0)
		wa_note("%" PRIu64 " repeated URLs fetched once", dups);

	if (!(multi = curl_multi_init()) || !(share = curl_share_init()))
		wa_die("libcurl could not start");
	curl_share_setopt(share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
	curl_share_setopt(share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
	tcfg = (struct transfer_config){ .agent = opt.agent,
	    .connect_timeout = opt.connect_timeout, .timeout = opt.timeout,
	    .low_speed_time = opt.low_speed_time,
	    .low_speed_limit = opt.low_speed_limit, .insecure = opt.insecure,
	    .allow_private = opt.allow_private, .allowed = opt.allowed,
	    .nallowed = opt.nallowed, .share = share };
	/* Idle connections of sites waiting out their delay stay open. */
	curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS, (long)(2 * opt.parallel));
	inflight = wa_calloc(opt.parallel, sizeof *inflight);
	connections = opt.parallel;
	catch_signals();
	if (opt.warc)
		open_warc();

	sites_init(&sites);
	progress_start(&pg, "pages", nentries);
	queue_entries();
	complete = run();
	progress_end(&pg);

	if (warc) {
		warc_writer_wait(warc);
		flush_rows();
		warc_writer_close(warc);
	}
	/* Rows whose records a write error lost: the URLs are to do again. */
	for (size_t i = pending_head; i < npending; i++) {
		struct fetch_row row = { .url = entries[pending[i].entry].url,
		    .time = -1, .status = "interrupted", .bytes = -1,
		    .last_modified = -1, .changed = -1 };
		fetchlog_write(stdout, &row);
		free(pending[i].line);
	}
	free(pending);
	complete = complete && !warc_error;
	if (fflush(stdout) == EOF || ferror(stdout))
		wa_die_errno("standard output");
	/* Closing the connections calls on_close_socket with their sites. */
	curl_multi_cleanup(multi);
	sites_free(&sites);
	strmap_free(&previous, fetchlog_prev_free);
	for (size_t i = 0; i < nentries; i++)
		free(entries[i].url);
	free(entries);
	free(inflight);
	free(opt.robots_token);
	free(opt.agent_buf);
	curl_slist_free_all(opt.resolve);
	free(opt.allowed);
	curl_share_cleanup(share);
	curl_global_cleanup();
	url_cleanup();
	if (!complete) {
		wa_warn("interrupted: the URLs not done are logged as interrupted");
		return WA_EXIT_ERROR;
	}
	return WA_EXIT_OK;
}
