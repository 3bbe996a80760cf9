/* The records of wa-extract parsed on several threads (extract-run.h).
 *
 * This thread reads the records, in order, and hands each one to the
 * pool (thread.h) with the robots agent it is read for: the reader's
 * buffer that holds its block goes with it, and the reader goes on in the
 * one a record written before left (warc_reader_take_block), so that no
 * block is copied; a pool thread parses it with the extractor of that
 * thread, keeping its links in the job; this thread then counts the
 * records, writes their links and page rows and tells their errors in the
 * order they were read, as run_record does one after the other.  The reader's messages of the
 * records it cannot read are kept with the next record and told before
 * it, in their place (warc_reader_on_problem). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extract-run.h"
#include "linkstream.h"
#include "thread.h"
#include "wa.h"

/* Records read ahead a thread: on the crawl of real documents 16 took
 * -j 2 from 1.3 to 1.5 times the speed of -j 1 (4: 1.35, 64: no better),
 * as the reader runs on while a thread is on a long page. */
#define RECORDS_AHEAD 16
/* A record's memory of more than this is freed once written, so that the
 * memory of the ring stays small whatever the records. */
#define KEPT_RECORD_BYTES (1 << 20)

struct record_jobs;

/* A record in the ring: read, then parsed, then written. */
struct record_job {
	struct record_jobs *jobs;
	const char *file;	/* NULL: stdin */
	bool has_record;	/* else it only holds messages */
	struct warc_record rec;	/* its fields in mem, its block in block */
	struct warc_field *fields;
	size_t fields_cap;
	unsigned char *mem;	/* its version, fields and a block cut short */
	size_t mem_cap;
	struct warc_buffer block;	/* the reader's buffer with its block */
	char info_agent[sizeof ((struct extract_run *)0)->info_agent];
	const char *agent;	/* run_agent when it was read */
	char *told;		/* the reader's messages before it, each ending in NUL */
	size_t told_len, told_cap;

	struct record_outcome out;
	/* The rows of its links, written on the pool thread so that this
	 * thread only copies them out (opened on the job's first parse). */
	FILE *rows;
	char *rows_text;
	size_t rows_len, nlinks;
	/* The rows of its sitemap hints, likewise (NULL without --hints). */
	FILE *hint_rows;
	char *hint_text;
	size_t hint_len, nhints;
};

/* A parser of each pool thread: its extractor's tables and buffers stay
 * in the cache of the processor that thread runs on, as they do with
 * one thread, rather than going from job to job. */
struct record_worker {
	struct record_parser parser;	/* made on the thread's first parse */
	struct record_job *job;	/* the job it parses */
};

struct record_jobs {
	struct extract_run *run;
	struct wa_pool pool;
	struct record_worker *workers;	/* run->nthreads */
	struct record_job *reading;	/* the job the reader fills */
};

static void
append(char **buf, size_t *len, size_t *cap, const char *s, size_t n)
{
	if (n == 0)
		return;
	if (*len + n > *cap) {
		*cap = *len + n > 2 * *cap ? *len + n : 2 * *cap;
		*buf = wa_realloc(*buf, *cap);
	}
	memcpy(*buf + *len, s, n);
	*len += n;
}

/* The extractor's callback: a link of the worker's page, kept. */
static void
keep_link(void *arg, const char *src, const char *dst, const char *how)
{
	struct record_job *job = ((struct record_worker *)arg)->job;
	links_write(job->rows, src, dst, how);
	job->nlinks++;
}

/* The extractor's callback: a sitemap hint of the worker's page, kept. */
static void
keep_hint(void *arg, const struct hint_row *row)
{
	struct record_job *job = ((struct record_worker *)arg)->job;
	hints_write(job->hint_rows, row);
	job->nhints++;
}

/* A string of rec into the job's memory at *at. */
static const char *
copy_string(struct record_job *job, size_t *at, const char *s)
{
	size_t n = strlen(s) + 1;
	char *copy = (char *)job->mem + *at;
	memcpy(copy, s, n);
	*at += n;
	return copy;
}

/* rec, the record r read, into the job: its block by taking the reader's
 * buffer, its fields and a block cut short copied into the job's memory. */
static void
take_record(struct record_job *job, struct warc_reader *r, const struct warc_record *rec)
{
	bool taken = warc_reader_take_block(r, rec, &job->block);
	size_t size = (taken ? 0 : rec->block_len) + strlen(rec->version) + 1;
	for (size_t i = 0; i < rec->nfields; i++)
		size += strlen(rec->fields[i].name) + strlen(rec->fields[i].value) + 2;
	if (size > job->mem_cap) {
		free(job->mem);
		job->mem = wa_malloc(size);
		job->mem_cap = size;
	}
	if (rec->nfields > job->fields_cap) {
		job->fields = wa_reallocarray(job->fields, rec->nfields, sizeof *job->fields);
		job->fields_cap = rec->nfields;
	}
	job->rec = *rec;
	size_t at = 0;
	if (!taken) {
		memcpy(job->mem, rec->block, rec->block_len);
		job->rec.block = job->mem;
		at = rec->block_len;
	}
	job->rec.version = copy_string(job, &at, rec->version);
	for (size_t i = 0; i < rec->nfields; i++) {
		job->fields[i].name = copy_string(job, &at, rec->fields[i].name);
		job->fields[i].value = copy_string(job, &at, rec->fields[i].value);
	}
	job->rec.fields = job->fields;
}

/* On a pool thread. */
static void
parse_job(void *arg)
{
	struct record_job *job = arg;
	if (!job->has_record)
		return;
	const struct extract_run *run = job->jobs->run;
	struct record_worker *w = &job->jobs->workers[wa_pool_thread(&job->jobs->pool)];
	if (!w->parser.ex)
		record_parser_init(&w->parser, keep_link, run->hints ? keep_hint : NULL, w);
	if (!job->rows) {
		job->rows = open_memstream(&job->rows_text, &job->rows_len);
		if (run->hints)
			job->hint_rows = open_memstream(&job->hint_text, &job->hint_len);
		if (!job->rows || (run->hints && !job->hint_rows))
			wa_die_errno("open_memstream");
	}
	rewind(job->rows);
	if (job->hint_rows)
		rewind(job->hint_rows);
	job->nlinks = job->nhints = 0;
	w->job = job;
	record_parse(&w->parser, run, job->agent, &job->rec, &job->out);
	if (fflush(job->rows) == EOF || (job->hint_rows && fflush(job->hint_rows) == EOF))
		wa_die_errno("open_memstream");
}

/* On this thread, in the order of the records. */
static void
write_job(void *arg, void *job_arg)
{
	struct extract_run *run = arg;
	struct record_job *job = job_arg;
	for (const char *m = job->told; m < job->told + job->told_len; m += strlen(m) + 1)
		wa_warn("%s", m);
	job->told_len = 0;
	if (!job->has_record)
		return;
	fwrite(job->rows_text, 1, job->rows_len, stdout);
	run->nlinks += job->nlinks;
	if (run->hints)
		fwrite(job->hint_text, 1, job->hint_len, run->hints);
	run->nhints += job->nhints;
	run_count_record(run, job->file, &job->rec, &job->out);
	progress_set(&run->pg, run->nrecords);
	if (job->mem_cap > KEPT_RECORD_BYTES) {
		free(job->mem);
		job->mem = NULL;
		job->mem_cap = 0;
	}
	if (job->block.cap > KEPT_RECORD_BYTES) {
		free(job->block.data);
		job->block = (struct warc_buffer){ 0 };
	}
}

static void
clear_job(void *arg)
{
	struct record_job *job = arg;
	if (job->rows)
		fclose(job->rows);
	if (job->hint_rows)
		fclose(job->hint_rows);
	free(job->rows_text);
	free(job->hint_text);
	free(job->fields);
	free(job->mem);
	free(job->block.data);
	free(job->told);
}

struct record_jobs *
record_jobs_start(struct extract_run *run)
{
	struct record_jobs *jobs = wa_calloc(1, sizeof *jobs);
	jobs->run = run;
	jobs->workers = wa_calloc(run->nthreads, sizeof *jobs->workers);
	wa_pool_start(&jobs->pool, run->nthreads, RECORDS_AHEAD, sizeof(struct record_job),
	    parse_job, write_job, run);
	return jobs;
}

/* The reader's callback: a message kept with the record being read. */
static void
keep_problem(void *arg, const char *message)
{
	struct record_jobs *jobs = arg;
	struct record_job *job = jobs->reading;
	append(&job->told, &job->told_len, &job->told_cap, message, strlen(message) + 1);
}

void
record_jobs_read(struct record_jobs *jobs, struct warc_reader *r, const char *file)
{
	struct extract_run *run = jobs->run;
	struct warc_record rec;
	warc_reader_on_problem(r, keep_problem, jobs);
	for (;;) {
		struct record_job *job = wa_pool_next(&jobs->pool);
		job->jobs = jobs;
		job->file = file;
		jobs->reading = job;
		bool got = warc_read(r, &rec);
		job->has_record = got;
		if (!got && !job->told_len)
			return;
		if (got) {
			take_record(job, r, &rec);
			run_follow_record(run, &job->rec);
			/* The file's agent changes with its warcinfo records. */
			const char *agent = run_agent(run);
			job->agent = agent == run->info_agent ?
			    strcpy(job->info_agent, agent) : agent;
		}
		wa_pool_submit(&jobs->pool);
		if (!got)
			return;
	}
}

void
record_jobs_drain(struct record_jobs *jobs)
{
	wa_pool_drain(&jobs->pool);
}

void
record_jobs_stop(struct record_jobs *jobs)
{
	wa_pool_stop(&jobs->pool, clear_job);
	for (unsigned i = 0; i < jobs->run->nthreads; i++)
		if (jobs->workers[i].parser.ex)
			record_parser_free(&jobs->workers[i].parser);
	free(jobs->workers);
	free(jobs);
}
