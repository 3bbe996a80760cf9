/* The fetch log rows of wa-fetch, each written once the WARC holds its
 * records, and the run's clock that dates them (see fetch.h). */
#include <stdio.h>
#include <stdlib.h>

#include "fetch.h"
#include "msg.h"

/* Microseconds of the real clock since the run began; never negative,
 * should the real clock be set back during the run. */
static int64_t
run_elapsed_usec(const struct fetch *f, int64_t sec, long usec)
{
	int64_t us = (sec - (int64_t)f->run_start.tv_sec) * 1000000 + usec -
	    f->run_start.tv_nsec / 1000;
	return us < 0 ? 0 : us;
}

int64_t
fetch_run_time(const struct fetch *f)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	if (f->opt.now < 0)
		return ts.tv_sec;
	return f->opt.now + run_elapsed_usec(f, ts.tv_sec, ts.tv_nsec / 1000) / 1000000;
}

/* A transfer is stamped with the real time it started: --now moves the
 * stamp, which dates its log row and its WARC records, to the run's clock. */
void
fetch_stamp_run_clock(const struct fetch *f, struct transfer *x)
{
	if (f->opt.now < 0)
		return;
	int64_t us = run_elapsed_usec(f, x->sec, x->usec);
	x->sec = f->opt.now + us / 1000000;
	x->usec = (long)(us % 1000000);
}

/* Writes the row, or keeps it until its record is written. */
static void
put_row(struct fetch *f, const struct fetch_row *row, size_t entry, uint64_t record)
{
	if (record <= f->records_written) {
		fetchlog_write(stdout, row);
		return;
	}
	if (f->npending == f->pending_cap) {
		f->pending_cap = f->pending_cap ? 2 * f->pending_cap : 64;
		f->pending = wa_reallocarray(f->pending, f->pending_cap, sizeof *f->pending);
	}
	f->pending[f->npending++] = (struct pending_row){ fetchlog_format(row), record,
	    entry };
}

/* A retried URL's row counts its requests that came to an end: the
 * retried ones, and its own if the row tells one. */
void
fetch_log_row(struct fetch *f, const struct fetch_row *row, size_t entry,
    uint64_t record)
{
	struct retried *r = f->retried ? &f->retried[entry] : NULL;
	f->entries[entry].logged = true;
	progress_set(&f->pg, ++f->logged_rows);
	if (!r || r->count == 0) {
		put_row(f, row, entry, record);
		return;
	}
	struct fetch_row with = *row;
	with.attempts = r->count + (row->time >= 0);
	with.retried = r->statuses;
	put_row(f, &with, entry, record);
	free(r->statuses);
	r->statuses = NULL;
}

void
fetch_flush_rows(struct fetch *f)
{
	const char *error;
	if (!f->warc)
		return;
	f->records_written = warc_writer_written(f->warc, &error);
	for (; f->pending_head < f->npending &&
	    f->pending[f->pending_head].record <= f->records_written; f->pending_head++) {
		fputs(f->pending[f->pending_head].line, stdout);
		free(f->pending[f->pending_head].line);
	}
	if (f->pending_head == f->npending)
		f->pending_head = f->npending = 0;
	if (error && !f->warc_error) {
		f->warc_error = error;
		wa_warn("%s: the crawl stops; the file keeps its whole records, and "
		    "the URLs whose records are lost are logged as interrupted", error);
	}
}

const char *
fetch_hop_url(const struct job *job)
{
	return job->hops > 0 ? job->url : NULL;
}

void
fetch_log_unfetched(struct fetch *f, size_t entry, const char *why,
    const char *robots, const char *led_to)
{
	struct fetch_row row = { .url = f->entries[entry].url, .time = -1,
	    .status = why, .bytes = -1, .last_modified = -1, .changed = -1,
	    .robots = robots, .redirect = led_to };
	fetch_log_row(f, &row, entry, 0);
}

void
fetch_log_lost_rows(struct fetch *f)
{
	for (size_t i = f->pending_head; i < f->npending; i++) {
		struct fetch_row row = { .url = f->entries[f->pending[i].entry].url,
		    .time = -1, .status = "interrupted", .bytes = -1,
		    .last_modified = -1, .changed = -1 };
		fetchlog_write(stdout, &row);
		free(f->pending[i].line);
	}
	free(f->pending);
}
