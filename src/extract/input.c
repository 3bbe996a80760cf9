/* The WARC files of wa-extract, record by record (extract-run.h). */
#include <stdlib.h>
#include <string.h>

#include "extract-run.h"
#include "wa.h"

/* Of a record whose block is larger than --max-size and this, only this
 * much of its start is read into memory: the HTTP header, whose fields
 * type the page, and the first bytes of the body, which may. */
#define HEAD_KEPT (64 << 10)

/* Reads the records of a WARC file, stdin if path is NULL. */
static void
read_warc(struct extract_run *run, const char *path)
{
	struct warc_reader *r = warc_reader_open(path);
	struct warc_record rec;
	warc_reader_max_block(r, run->max_size > UINT64_MAX - HEAD_KEPT ?
	    UINT64_MAX : run->max_size + HEAD_KEPT, HEAD_KEPT);
	/* A warcinfo record speaks for the records of its file. */
	if (run->robots_tags && !run->robots_agent && *run->info_agent) {
		*run->info_agent = '\0';
		extract_obey_robots_tags(run->ex, NULL);
	}
	while (warc_read(r, &rec)) {
		run_record(run, path, &rec);
		progress_set(&run->pg, run->nrecords);
	}
	run->unreadable += warc_reader_errors(r);
	warc_reader_close(r);
}

void
run_read_inputs(struct extract_run *run, int npaths, char **paths)
{
	progress_start(&run->pg, "records", 0);
	if (npaths == 0)
		read_warc(run, NULL);
	for (int i = 0; i < npaths; i++)
		read_warc(run, paths[i]);
	progress_end(&run->pg);
}
