/* The records of wa-extract parsed on several threads (extract-run.h).
 *
 * This thread reads the records, in order, and hands each one, copied,
 * to the pool (thread.h) with the robots agent it is read for; a pool
 * thread parses it with the extractor of its job, keeping its links in
 * the job; this thread then counts the records, writes their links and
 * page rows and tells their errors in the order they were read, as
 * run_record does one after the other.  The reader tells of the records
 * it cannot read as it reads them: those messages are kept with the next
 * record and told before it, in their place. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extract-run.h"
#include "linkstream.h"
#include "thread.h"
#include "wa.h"

/* A record in the ring: read, then parsed, then written. */
struct record_job {
	const struct extract_run *run;
	const char *file;	/* NULL: stdin */
	bool has_record;	/* else it only holds messages */
	struct warc_record rec;	/* its fields and block in mem */
	struct warc_field *fields;
	size_t fields_cap;
	unsigned char *mem;
	size_t mem_cap;
	char info_agent[sizeof ((struct extract_run *)0)->info_agent];
	const char *agent;	/* run_agent when it was read */
	char *told;		/* the reader's messages before it */
	size_t told_len, told_cap;

	struct record_parser parser;	/* made on the job's first parse */
	struct record_outcome out;
	char *links;		/* "dst\0how\0" each */
	size_t links_len, links_cap, nlinks;
};

struct record_jobs {
	struct extract_run *run;
	struct wa_pool pool;
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

/* The extractor's callback: a link of the job's page, kept. */
static void
keep_link(void *arg, const char *src, const char *dst, const char *how)
{
	struct record_job *job = arg;
	(void)src;		/* the job's URL */
	append(&job->links, &job->links_len, &job->links_cap, dst, strlen(dst) + 1);
	append(&job->links, &job->links_len, &job->links_cap, how, strlen(how) + 1);
	job->nlinks++;
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

/* rec into the job, its fields and block in the job's memory. */
static void
copy_record(struct record_job *job, const struct warc_record *rec)
{
	size_t size = rec->block_len + strlen(rec->version) + 1;
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
	job->rec.block = job->mem;
	memcpy(job->mem, rec->block, rec->block_len);
	size_t at = rec->block_len;
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
	if (!job->parser.ex)
		record_parser_init(&job->parser, keep_link, job);
	job->links_len = job->nlinks = 0;
	record_parse(&job->parser, job->run, job->agent, &job->rec, &job->out);
}

/* On this thread, in the order of the records. */
static void
write_job(void *arg, void *job_arg)
{
	struct extract_run *run = arg;
	struct record_job *job = job_arg;
	if (job->told_len) {
		fflush(stdout);
		fwrite(job->told, 1, job->told_len, stderr);
		job->told_len = 0;
	}
	if (!job->has_record)
		return;
	for (const char *p = job->links; p < job->links + job->links_len; ) {
		const char *how = p + strlen(p) + 1;
		links_write(stdout, job->out.url, p, how);
		p = how + strlen(how) + 1;
	}
	run->nlinks += job->nlinks;
	run_count_record(run, job->file, &job->rec, &job->out);
	progress_set(&run->pg, run->nrecords);
}

static void
clear_job(void *arg)
{
	struct record_job *job = arg;
	if (job->parser.ex)
		record_parser_free(&job->parser);
	free(job->fields);
	free(job->mem);
	free(job->told);
	free(job->links);
}

struct record_jobs *
record_jobs_start(struct extract_run *run)
{
	struct record_jobs *jobs = wa_calloc(1, sizeof *jobs);
	jobs->run = run;
	wa_pool_start(&jobs->pool, run->nthreads, sizeof(struct record_job), parse_job,
	    write_job, run);
	return jobs;
}

/* The next record of r into rec; the reader's messages on the way are
 * added to the job's, not written. */
static bool
read_keeping_messages(struct warc_reader *r, struct warc_record *rec,
    struct record_job *job)
{
	char *text = NULL;
	size_t len = 0;
	FILE *messages = open_memstream(&text, &len);
	if (!messages)
		wa_die_errno("open_memstream");
	FILE *real = stderr;
	stderr = messages;
	bool got = warc_read(r, rec);
	stderr = real;
	if (fclose(messages) == EOF)
		wa_die_errno("open_memstream");
	append(&job->told, &job->told_len, &job->told_cap, text, len);
	free(text);
	return got;
}

void
record_jobs_read(struct record_jobs *jobs, struct warc_reader *r, const char *file)
{
	struct extract_run *run = jobs->run;
	struct warc_record rec;
	for (;;) {
		struct record_job *job = wa_pool_next(&jobs->pool);
		job->run = run;
		job->file = file;
		bool got = read_keeping_messages(r, &rec, job);
		job->has_record = got;
		if (!got && !job->told_len)
			return;
		if (got) {
			copy_record(job, &rec);
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
	free(jobs);
}
