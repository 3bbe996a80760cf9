/* The WARC files of wa-extract, record by record (extract-run.h). */
#include <stdlib.h>
#include <string.h>

#include "extract-run.h"
#include "wa.h"

/* Of a record whose block is larger than --max-size and this, only this
 * much of its start is read into memory: the HTTP header, whose fields
 * type the page, and the first bytes of the body, which may. */
#define HEAD_KEPT (64 << 10)

/* Reads the records of a WARC file, stdin if path is NULL; on several
 * threads if jobs. */
static void
read_warc(struct extract_run *run, struct record_jobs *jobs, const char *path)
{
	struct warc_record rec;
	/* Told in order: a file that cannot be opened ends the run after
	 * what the files before it gave. */
	if (jobs)
		record_jobs_drain(jobs);
	struct warc_reader *r = warc_reader_open(path);
	warc_reader_max_block(r, run->max_size > UINT64_MAX - HEAD_KEPT ?
	    UINT64_MAX : run->max_size + HEAD_KEPT, HEAD_KEPT);
	/* A warcinfo record speaks for the records of its file. */
	*run->info_agent = '\0';
	if (jobs) {
		record_jobs_read(jobs, r, path);
	} else {
		while (warc_read(r, &rec)) {
			run_record(run, path, &rec);
			progress_set(&run->pg, run->nrecords);
		}
	}
	run->unreadable += warc_reader_errors(r);
	warc_reader_close(r);
}

void
run_read_inputs(struct extract_run *run, int npaths, char **paths)
{
	struct record_jobs *jobs = run->nthreads > 1 ? record_jobs_start(run) : NULL;
	progress_start(&run->pg, "records", 0);
	if (npaths == 0)
		read_warc(run, jobs, NULL);
	for (int i = 0; i < npaths; i++)
		read_warc(run, jobs, paths[i]);
	if (jobs) {
		record_jobs_drain(jobs);
		record_jobs_stop(jobs);
	}
	progress_end(&run->pg);
}
