/* The parts of wa-extract, sharing one run (struct extract_run): the WARC
 * files and their warcinfo records (input.c), a response or resource
 * record to its links and its page row (record.c), the records parsed on
 * several threads (jobs.c), and the summary and the exit status
 * (summary.c).  src/wa-extract.c reads the options and drives the phases.
 * The streams written are those of linkstream.h. */
#ifndef WA_EXTRACT_RUN_H
#define WA_EXTRACT_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "atomic.h"
#include "extract.h"
#include "progress.h"
#include "url.h"
#include "warc.h"

/* Errors shown one by one before only counting them (without -v). */
#define ERRORS_SHOWN 5

/* The types of the records skipped, the last one for any other. */
#define NSKIPPED 7
extern const char *const skipped_types[NSKIPPED];

/* Parses records, on one thread at a time. */
struct record_parser {
	struct extract *ex;
	char *agent;		/* the robots agent ex obeys, NULL before the first */
	unsigned char *decoded;	/* bodies decoded, reused from record to record */
	size_t decoded_cap;
};

/* What the parse of a record gave, counted and reported in the order of
 * the records (run_count_record). */
struct record_outcome {
	enum { RECORD_SKIPPED, RECORD_NOT_HTTP, RECORD_PAGE } kind;
	size_t skipped;		/* RECORD_SKIPPED: the index in skipped_types */
	bool parse_error;	/* a page error to report: info.error says why */
	char url[URL_BUFSIZE];
	struct extract_info info;
	char digest[WARC_DIGEST_SIZE];	/* computed, "" if not */
};

/* The options, the outputs and the counts of a run. */
struct extract_run {
	uint64_t max_size;
	unsigned nthreads;	/* -j */
	const char *pages_path;	/* -p */
	const char *hints_path;	/* --hints */
	bool salvage;		/* -k */
	bool robots_tags;	/* not --ignore-robots-tags */
	const char *robots_agent;	/* --robots-agent */
	/* Else the token of the file's warcinfo record, "" if none. */
	char info_agent[64];

	struct atomic_file *pages_file;
	FILE *pages;		/* its stream, or NULL */
	struct atomic_file *hints_file;
	FILE *hints;		/* its stream, or NULL */
	struct progress pg;
	struct record_parser parser;	/* of -j 1 */

	uint64_t nrecords, nlinks, ntype[PAGE_TYPES], nnofollow;
	uint64_t nrefused, nrefused_pages;
	uint64_t nhints, nbad_hints, nbad_hint_pages;
	uint64_t nskipped_not_http;
	uint64_t nskipped[NSKIPPED];
	uint64_t unreadable;	/* records that could not be read */
};

/* The extraction's callback (extract_new, arg the run): a row of the
 * links stream on stdout. */
void run_put_link(void *arg, const char *src, const char *dst, const char *how);

/* The extraction's callback of sitemap hints (arg the run): a row of the
 * hints file. */
void run_put_hint(void *arg, const struct hint_row *row);

/* An extractor giving its links to fn(arg, ...), and its sitemap hints to
 * hint_fn(arg, ...) unless hint_fn is NULL. */
void record_parser_init(struct record_parser *p, extract_link_fn *fn,
    extract_hint_fn *hint_fn, void *arg);
void record_parser_free(struct record_parser *p);
/* The robots agent the records are read for, as the records read so far
 * left it: --robots-agent, else the file's warcinfo record's, "" if none. */
const char *run_agent(const struct extract_run *run);
/* The part of a record that depends on the records before it, done in
 * their order before its parse: a warcinfo record sets the agent. */
void run_follow_record(struct extract_run *run, const struct warc_record *rec);
/* Whether run_follow_record reads the record's block, not only its
 * header. */
bool run_follows_block(const struct extract_run *run, const struct warc_record *rec);
/* Parses a record for the agent given (run_agent when it was read):
 * its links go to the parser's callback, the rest into out.  Reads the
 * run's options only, so that the parsers of several threads may run at
 * once. */
void record_parse(struct record_parser *p, const struct extract_run *run,
    const char *agent, const struct warc_record *rec, struct record_outcome *out);
/* Counts a record parsed, reports its errors and writes its page row, in
 * the order of the records.  file is its WARC file, NULL for stdin. */
void run_count_record(struct extract_run *run, const char *file,
    const struct warc_record *rec, const struct record_outcome *out);
/* A record on this thread: its links, its page row (-j 1). */
void run_record(struct extract_run *run, const char *file, const struct warc_record *rec);

/* Reads the records of the WARC files named, or stdin if none (input.c). */
void run_read_inputs(struct extract_run *run, int npaths, char **paths);

/* The records of a WARC file parsed on run->nthreads threads, the links,
 * the page rows, the hint rows and the messages written in the order of
 * the records, as run_record writes them (jobs.c).  Up to 128 * nthreads
 * + 2 records are read ahead, and no more than 4 MiB a thread of their
 * input but for the last (a gzip member handed out, else the record);
 * their buffers keep no more than 4 MiB a thread for the next records;
 * each thread has a member inflated and a body decoded. */
struct record_jobs;
struct record_jobs *record_jobs_start(struct extract_run *run);
/* Reads the records of r (file NULL: stdin). */
void record_jobs_read(struct record_jobs *jobs, struct warc_reader *r, const char *file);
/* Writes what every record read gave. */
void record_jobs_drain(struct record_jobs *jobs);
void record_jobs_stop(struct record_jobs *jobs);

/* Flushes the links; commits the pages file if it is the whole of its
 * inputs or -k asks for what could be read, else leaves the old one
 * (summary.c). */
void run_finish_outputs(struct extract_run *run);
/* The summary, and the counts of what was shown only in part. */
void run_summarize(const struct extract_run *run);
/* Records that could not be read are an error, unless -k. */
int run_exit_status(const struct extract_run *run);
void run_free(struct extract_run *run);

#endif
