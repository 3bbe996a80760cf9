/* The parts of wa-extract, sharing one run (struct extract_run): the WARC
 * files and their warcinfo records (input.c), a response or resource
 * record to its links and its page row (record.c), and the summary and
 * the exit status (summary.c).  src/wa-extract.c reads the options and
 * drives the phases.  The streams written are those of linkstream.h. */
#ifndef WA_EXTRACT_RUN_H
#define WA_EXTRACT_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "atomic.h"
#include "extract.h"
#include "progress.h"
#include "warc.h"

/* Errors shown one by one before only counting them (without -v). */
#define ERRORS_SHOWN 5

/* The types of the records skipped, the last one for any other. */
#define NSKIPPED 7
extern const char *const skipped_types[NSKIPPED];

/* The options, the outputs and the counts of a run. */
struct extract_run {
	uint64_t max_size;
	const char *pages_path;	/* -p */
	bool salvage;		/* -k */
	bool robots_tags;	/* not --ignore-robots-tags */
	const char *robots_agent;	/* --robots-agent */
	/* Else the token of the file's warcinfo record, "" if none. */
	char info_agent[64];

	struct atomic_file *pages_file;
	FILE *pages;		/* its stream, or NULL */
	struct progress pg;
	struct extract *ex;
	unsigned char *decoded;	/* bodies decoded, reused from record to record */
	size_t decoded_cap;

	uint64_t nrecords, nlinks, ntype[PAGE_TYPES], nnofollow;
	uint64_t nrefused, nrefused_pages;
	uint64_t nskipped_not_http;
	uint64_t nskipped[NSKIPPED];
	uint64_t unreadable;	/* records that could not be read */
};

/* The extraction's callback (extract_new, arg the run): a row of the
 * links stream on stdout. */
void run_put_link(void *arg, const char *src, const char *dst, const char *how);
/* A record of the WARC file (NULL: stdin): its links, its page row. */
void run_record(struct extract_run *run, const char *file, const struct warc_record *rec);

/* Reads the records of the WARC files named, or stdin if none (input.c). */
void run_read_inputs(struct extract_run *run, int npaths, char **paths);

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
