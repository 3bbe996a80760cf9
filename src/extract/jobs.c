/* The records of wa-extract parsed on several threads (extract-run.h).
 *
 * In a file of one gzip member per record, this thread only finds the
 * members and hands each one to the pool (thread.h) with the robots agent
 * of the records before it (warc_read_member); a pool thread inflates it
 * into a buffer of that thread, reads its record and parses it with the
 * extractor of that thread, keeping its links in the job.  Inflating is
 * most of the reading: here it would hold up the threads.  This thread
 * then takes the records in their order: a member that was not one whole
 * record, as warc_read would have read it there, is read again from its
 * start, and the jobs handed out after it are dropped
 * (warc_reader_rewind); a warcinfo record sets the agent, and a page
 * parsed for another one is parsed again here, both inflated again.
 *
 * Other records (plain input, one gzip member for all, the first of a
 * file, those read again) this thread reads with warc_read: the reader's
 * buffer that holds the block goes with the record to the pool, and the
 * reader goes on in the one a record written before left
 * (warc_reader_take_block), so that no block is copied.  The reader's
 * messages of the records it cannot read are kept with the next record
 * and told before it, in their place (warc_reader_on_problem).
 *
 * This thread counts the records, writes their links and page rows and
 * tells their errors in their order, as run_record does one after the
 * other. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libdeflate.h>

#include "extract-run.h"
#include "linkstream.h"
#include "thread.h"
#include "wa.h"

/* Records read ahead a thread, so that the others have work while one is
 * on a long page: on the crawl of real documents, with 16 the processors
 * of -j 2 were idle 5% of the run, with 128 1% (4: -j 2 1.35 times the
 * speed of -j 1, 16: 1.5). */
#define RECORDS_AHEAD 128
/* And no more than this of their input a thread, whatever their size. */
#define BYTES_AHEAD (4u << 20)
/* The largest buffer kept from one record to the next. */
#define KEPT_RECORD_BYTES (1u << 20)

struct record_jobs;

/* A record in the ring: read, then parsed, then written. */
struct record_job {
	struct record_jobs *jobs;
	unsigned generation;	/* the jobs' when handed out */
	const char *file;	/* NULL: stdin */
	bool has_record;	/* else it only holds messages */
	bool member;		/* read from gz by the pool thread */
	struct warc_member gz;
	enum warc_member_state state;	/* what the pool thread found in gz */
	struct warc_record rec;	/* its fields in mem, its block in block */
	struct warc_field *fields;
	size_t fields_cap;
	struct warc_buffer mem;	/* its version, fields and a block cut short */
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
	uint64_t kept;		/* kept_bytes once written */
};

/* A parser of each pool thread: its extractor's tables and buffers stay
 * in the cache of the processor that thread runs on, as they do with
 * one thread, rather than going from job to job.  Each on cache lines of
 * its own, which only its thread writes. */
struct record_worker {
	_Alignas(WA_CACHE_LINE) struct record_parser parser;	/* made on the thread's first parse */
	struct libdeflate_decompressor *inflater;	/* made on the thread's first member */
	/* The members it takes are inflated here, one after the other, not
	 * into their jobs: the record stays in this processor's cache from
	 * inflating to parsing, where the ring's buffers, one per job, would
	 * be cold by the time their job came round again. */
	struct warc_buffer inflated;
	struct record_job *job;	/* the job it parses */
};

struct record_jobs {
	struct extract_run *run;
	struct wa_pool pool;
	struct record_worker *workers;	/* run->nthreads */
	struct warc_reader *reader;
	struct record_job *reading;	/* the job the reader fills */
	/* A member's record is inflated again on this thread for what reads
	 * its block here: a warcinfo record, a page parsed again. */
	struct libdeflate_decompressor *inflater;
	struct warc_buffer inflated;
	/* The bytes the jobs written keep for their next records, and the
	 * most they may. */
	uint64_t kept, max_kept;
	/* Jobs handed out before the reader went back to a member are of
	 * an older generation: dropped, not parsed if not begun. */
	atomic_uint generation;
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

/* b emptied and freed if it holds more than limit bytes. */
static void
free_larger(struct warc_buffer *b, size_t limit)
{
	if (b->cap > limit) {
		free(b->data);
		*b = (struct warc_buffer){ 0 };
	}
}

/* *d, made on first use: a thread's decompressor. */
static struct libdeflate_decompressor *
inflater(struct libdeflate_decompressor **d)
{
	if (!*d && !(*d = libdeflate_alloc_decompressor()))
		wa_die("out of memory");
	return *d;
}

/* A string of rec into the job's memory at *at. */
static const char *
copy_string(struct record_job *job, size_t *at, const char *s)
{
	size_t n = strlen(s) + 1;
	char *copy = (char *)job->mem.data + *at;
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
	if (size > job->mem.cap) {
		free(job->mem.data);
		job->mem = (struct warc_buffer){ wa_malloc(size), size, 0 };
	}
	if (rec->nfields > job->fields_cap) {
		job->fields = wa_reallocarray(job->fields, rec->nfields, sizeof *job->fields);
		job->fields_cap = rec->nfields;
	}
	job->rec = *rec;
	size_t at = 0;
	if (!taken) {
		memcpy(job->mem.data, rec->block, rec->block_len);
		job->rec.block = job->mem.data;
		at = rec->block_len;
	}
	job->rec.version = copy_string(job, &at, rec->version);
	for (size_t i = 0; i < rec->nfields; i++) {
		job->fields[i].name = copy_string(job, &at, rec->fields[i].name);
		job->fields[i].value = copy_string(job, &at, rec->fields[i].value);
	}
	job->rec.fields = job->fields;
}

/* The job's record parsed with the worker's parser, its rows kept. */
static void
parse_record(struct record_job *job, struct record_worker *w, const struct extract_run *run)
{
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

/* On a pool thread. */
static void
parse_job(void *arg)
{
	struct record_job *job = arg;
	const struct extract_run *run = job->jobs->run;
	struct record_worker *w = &job->jobs->workers[wa_pool_thread(&job->jobs->pool)];
	if (job->generation != atomic_load(&job->jobs->generation))
		return;
	if (!job->member) {
		if (job->has_record)
			parse_record(job, w, run);
		return;
	}
	job->state = warc_member_read(inflater(&w->inflater), &job->gz, &w->inflated, &job->rec);
	if (job->state != WARC_MEMBER_RECORD)
		return;
	parse_record(job, w, run);
	/* The block is the worker's, where its next member goes. */
	job->rec.block = NULL;
	free_larger(&w->inflated, KEPT_RECORD_BYTES);
}

/* The bytes of its input a job holds until written: its member, or its
 * block. */
static uint64_t
input_held(const struct record_job *job)
{
	if (job->member)
		return job->gz.bytes.used;
	if (!job->has_record)
		return 0;
	return (job->rec.block == job->mem.data ? 0 : job->block.used) + job->mem.cap;
}

/* A job's agent: run_agent, copied if it is the file's. */
static void
set_agent(struct record_job *job, const struct extract_run *run)
{
	const char *agent = run_agent(run);
	job->agent = agent == run->info_agent ? strcpy(job->info_agent, agent) : agent;
}

/* The block of a member's record, which its worker inflated where the
 * next member went, inflated again on this thread. */
static void
inflate_again(struct record_jobs *jobs, struct record_job *job)
{
	if (warc_member_read(inflater(&jobs->inflater), &job->gz, &jobs->inflated, &job->rec) !=
	    WARC_MEMBER_RECORD)
		wa_die("%s: offset %llu: the gzip member did not give its record again",
		    job->file ? job->file : "stdin", (unsigned long long)job->gz.offset);
}

/* A member read on a pool thread, in its place: whether its record is the
 * one warc_read gives there, which this thread then follows (*reparse if
 * the record is a page parsed for another agent than that of the records
 * before it).  Else the reader goes back to the member.  warc_read reads
 * past a record into the next member, and may tell something of it before
 * the record's messages: the next member is looked at too. */
static bool
settle_member(struct record_jobs *jobs, struct record_job *job, bool *reparse)
{
	const struct record_job *next = wa_pool_await_next(&jobs->pool);
	if (job->state != WARC_MEMBER_RECORD || !(next ? next->member &&
	    next->state != WARC_MEMBER_BAD : job->gz.ends_input)) {
		warc_reader_rewind(jobs->reader, job->gz.offset);
		jobs->generation++;
		return false;
	}
	warc_reader_release(jobs->reader, job->gz.end);
	struct extract_run *run = jobs->run;
	if (run_follows_block(run, &job->rec)) {
		inflate_again(jobs, job);
		run_follow_record(run, &job->rec);
	}
	*reparse = job->out.kind == RECORD_PAGE && run->robots_tags &&
	    strcmp(job->agent, run_agent(run)) != 0;
	if (*reparse)
		inflate_again(jobs, job);
	return true;
}

/* A job's record written (or dropped, after the reader went back). */
static void
write_record(struct record_jobs *jobs, struct record_job *job)
{
	struct extract_run *run = jobs->run;
	bool reparse = false;
	if (job->generation != jobs->generation ||
	    (job->member && !settle_member(jobs, job, &reparse)))
		return;
	for (const char *m = job->told; m < job->told + job->told_len; m += strlen(m) + 1)
		wa_warn("%s", m);
	if (!job->has_record)
		return;
	if (reparse) {
		record_parse(&run->parser, run, run_agent(run), &job->rec, &job->out);
	} else {
		fwrite(job->rows_text, 1, job->rows_len, stdout);
		run->nlinks += job->nlinks;
		if (run->hints)
			fwrite(job->hint_text, 1, job->hint_len, run->hints);
		run->nhints += job->nhints;
	}
	run_count_record(run, job->file, &job->rec, &job->out);
	progress_set(&run->pg, run->nrecords);
}

/* The streams of a job's rows closed and freed (opened again by its next
 * parse). */
static void
close_rows(struct record_job *job)
{
	if (job->rows)
		fclose(job->rows);
	if (job->hint_rows)
		fclose(job->hint_rows);
	free(job->rows_text);
	free(job->hint_text);
	job->rows = job->hint_rows = NULL;
	job->rows_text = job->hint_text = NULL;
	job->rows_len = job->hint_len = 0;
}

/* The bytes a job written keeps for the next record of its slot. */
static uint64_t
kept_bytes(const struct record_job *job)
{
	return job->gz.bytes.cap + job->block.cap + job->mem.cap + job->rows_len +
	    job->hint_len;
}

/* Frees a job's buffers larger than limit. */
static void
free_buffers(struct record_job *job, size_t limit)
{
	free_larger(&job->gz.bytes, limit);
	free_larger(&job->block, limit);
	free_larger(&job->mem, limit);
	if (job->rows_len > limit || job->hint_len > limit)
		close_rows(job);
}

/* A job written keeps its buffers for the next record of its slot, but
 * those larger than KEPT_RECORD_BYTES, and none if the ring would keep
 * more than BYTES_AHEAD a thread. */
static void
keep_buffers(struct record_jobs *jobs, struct record_job *job)
{
	free_buffers(job, KEPT_RECORD_BYTES);
	if (jobs->kept + kept_bytes(job) > jobs->max_kept)
		free_buffers(job, 0);
	job->kept = kept_bytes(job);
	jobs->kept += job->kept;
}

/* On this thread, in the order of the records. */
static void
write_job(void *arg, void *job_arg)
{
	struct record_jobs *jobs = arg;
	struct record_job *job = job_arg;
	write_record(jobs, job);
	free_larger(&jobs->inflated, KEPT_RECORD_BYTES);
	keep_buffers(jobs, job);
}

static void
clear_job(void *arg)
{
	struct record_job *job = arg;
	close_rows(job);
	free(job->fields);
	free(job->mem.data);
	free(job->block.data);
	free(job->told);
	warc_member_free(&job->gz);
}

struct record_jobs *
record_jobs_start(struct extract_run *run)
{
	struct record_jobs *jobs = wa_calloc(1, sizeof *jobs);
	jobs->run = run;
	jobs->workers = wa_lines_calloc(run->nthreads, sizeof *jobs->workers);
	wa_pool_start(&jobs->pool, run->nthreads, RECORDS_AHEAD, sizeof(struct record_job),
	    parse_job, write_job, jobs);
	jobs->max_kept = (uint64_t)BYTES_AHEAD * run->nthreads;
	wa_pool_limit(&jobs->pool, jobs->max_kept);
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
	bool members = false;	/* handed out since the last warc_read */
	jobs->reader = r;
	warc_reader_on_problem(r, keep_problem, jobs);
	for (;;) {
		struct record_job *job = wa_pool_next(&jobs->pool);
		jobs->kept -= job->kept;
		job->kept = 0;
		job->jobs = jobs;
		job->file = file;
		job->told_len = 0;
		jobs->reading = job;
		job->member = job->has_record = warc_read_member(r, &job->gz);
		if (job->member) {
			members = true;
		} else {
			/* The reader may go back to a member handed out. */
			if (members)
				wa_pool_drain(&jobs->pool);
			members = false;
			job->has_record = warc_read(r, &rec);
			if (!job->has_record && !job->told_len)
				return;
			if (job->has_record) {
				take_record(job, r, &rec);
				run_follow_record(run, &job->rec);
				warc_reader_resume(r);
			}
		}
		/* The file's agent changes with its warcinfo records. */
		set_agent(job, run);
		job->generation = jobs->generation;
		wa_pool_submit(&jobs->pool, input_held(job));
		if (!job->has_record)
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
	for (unsigned i = 0; i < jobs->run->nthreads; i++) {
		if (jobs->workers[i].parser.ex)
			record_parser_free(&jobs->workers[i].parser);
		libdeflate_free_decompressor(jobs->workers[i].inflater);
		free(jobs->workers[i].inflated.data);
	}
	libdeflate_free_decompressor(jobs->inflater);
	free(jobs->inflated.data);
	free(jobs->workers);
	free(jobs);
}
