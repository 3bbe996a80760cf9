/* The parts of wa-fetch, sharing one run (struct fetch): the input
 * (input.c), the requests a site's turn starts (requests.c), the
 * decisions on each outcome (outcome.c), the fetch log rows in WARC
 * order (rows.c) and the event loop (loop.c).  src/wa-fetch.c reads the
 * options and drives the phases. */
#ifndef WA_FETCH_H
#define WA_FETCH_H

#include <curl/curl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "fetchlog.h"
#include "netaddr.h"
#include "progress.h"
#include "scope.h"
#include "sites.h"
#include "strmap.h"
#include "transfer.h"
#include "warc.h"

/* After SIGINT or SIGTERM, requests in flight get this long to finish. */
#define STOP_GRACE_SECONDS 5.0
/* robots.txt redirects followed (RFC 9309 sec. 2.3.1.2). */
#define ROBOTS_MAX_REDIRECTS 5
/* The wait before a URL's first retry when its site's delay is shorter;
 * each further retry waits twice as long as the one before. */
#define RETRY_MIN_WAIT 1.0

struct fetch_options {
	const char *warc, *warc_copy, *previous, *robots_cache, *resume;
	double wait, max_crawl_delay, connect_timeout, timeout, low_speed_time;
	unsigned long parallel, per_connection, follow, retries;
	uint64_t max_size, warc_max_size, low_speed_limit;
	bool allow_private, insecure;
	const char *agent, *contact;
	char *agent_buf, *robots_token;
	struct curl_slist *resolve;
	struct netaddr_block *allowed;
	size_t nallowed;
	int64_t now;		/* --now; -1: the real clock */
	struct scope scope;	/* --scope, --include, --exclude */
};

/* One input URL: the row it gets in the log is decided once. */
struct entry {
	char *url;		/* canonical; as given if bad */
	bool bad;
	bool logged;
};

/* The retries decided on for an input URL. */
struct retried {
	unsigned count;
	char *statuses;		/* "503,timeout"; NULL: none */
};

/* A job waiting to be queued again in its site, at a monotonic time. */
struct retry {
	double at;
	struct site *site;
	struct job job;
};

/* A row waiting for its records to be written. */
struct pending_row {
	char *line;
	uint64_t record;	/* the number warc_write gave its last record */
	size_t entry;
};

struct fetch {
	struct fetch_options opt;
	struct entry *entries;
	size_t nentries;
	struct sites sites;
	struct strmap previous;		/* -P rows by URL */
	CURLM *multi;
	CURLSH *share;
	struct warc_writer *warc;
	struct transfer_config tcfg;
	struct transfer **inflight;
	size_t ninflight;
	size_t connections;	/* -r, or fewer once file descriptors ran out */
	struct progress pg;
	double progress_shown;	/* monotonic seconds of the last note */
	uint64_t logged_rows;
	/* Set by the signal handler; the loop also wakes on wake_fd. */
	const volatile sig_atomic_t *signals_seen;
	int wake_fd;
	/* A fault of this host's, not of the sites': the run stops as on a
	 * signal (no file descriptor left), or at once (the WARC cannot be
	 * written). */
	bool local_fault;
	const char *warc_error;
	bool robots_cache_failed;
	/* Rows waiting for their records to be written, in the order given,
	 * so that the log never names a record the WARC lacks. */
	struct pending_row *pending;
	size_t pending_head, npending, pending_cap;
	uint64_t records_written;
	struct timespec run_start;	/* real time the run began (--now) */
	/* The retries waiting for their time, a min-heap by it. */
	struct retry *retries;
	size_t nretries, retries_cap;
	uint64_t retries_decided;
	/* By entry, once a retry is decided; a row takes its statuses. */
	struct retried *retried;
};

/* input.c */
/* Reads the URL lists (none: stdin), skipping the URLs the --resume log
 * has an outcome for and repeated ones, into f->entries; loads -P. */
void fetch_read_input(struct fetch *f, char **lists, int nlists);
/* Logs the bad URLs and those out of scope, and queues the others in
 * their sites. */
void fetch_queue_entries(struct fetch *f);

/* requests.c */
/* The site was picked: decide its next job.  Jobs that cannot be fetched
 * get their row now, without a request; the first one that can starts. */
void fetch_serve_site(struct fetch *f, struct site *site);
/* Takes the transfer out of the multi handle and frees it. */
void fetch_retire(struct fetch *f, struct transfer *x);

/* outcome.c */
/* Decides on every transfer libcurl has finished. */
void fetch_read_messages(struct fetch *f);

/* rows.c */
/* The run's clock in Unix seconds: --now plus the real seconds elapsed
 * since the run began, or the real time.  It dates what the run records;
 * politeness delays and timeouts keep to the real clock. */
int64_t fetch_run_time(const struct fetch *f);
/* Moves the transfer's start stamp, real time, to the run's clock. */
void fetch_stamp_run_clock(const struct fetch *f, struct transfer *x);
/* Logs row for entry; record: the number of the row's last WARC record,
 * 0 if it has none: the row waits until that record is written.  The row
 * of a retried entry gets its attempts and retried statuses (columns 12
 * and 13 of the fetch log). */
void fetch_log_row(struct fetch *f, const struct fetch_row *row, size_t entry,
    uint64_t record);
/* A row for a URL that got no request: why is its status; led_to the
 * URL its redirects led to, or NULL. */
void fetch_log_unfetched(struct fetch *f, size_t entry, const char *why,
    const char *robots, const char *led_to);
/* Column 10 of a job's row: the URL its redirects led to, if any. */
const char *fetch_hop_url(const struct job *job);
/* Writes the rows whose records are written; a write error of the WARC
 * stops the run. */
void fetch_flush_rows(struct fetch *f);
/* Logs the URLs whose rows a WARC write error lost as interrupted. */
void fetch_log_lost_rows(struct fetch *f);

/* loop.c */
/* Queues job (its url taken over) again in site once the monotonic time
 * at has come, after the turns of the sites ready then. */
void fetch_retry_at(struct fetch *f, struct site *site, struct job job, double at);
/* Runs until every job is done or a signal stops it; false if stopped,
 * the URLs not done then logged as interrupted. */
bool fetch_run(struct fetch *f);

#endif
