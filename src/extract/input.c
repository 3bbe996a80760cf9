/* The WARC files of wa-extract, record by record, and the robots agent
 * their warcinfo records name (extract-run.h). */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "extract-run.h"
#include "robots.h"
#include "wa.h"

/* Of a record whose block is larger than --max-size and this, only this
 * much of its start is read into memory: the HTTP header, whose fields
 * type the page, and the first bytes of the body, which may. */
#define HEAD_KEPT (64 << 10)

/* The value of the field name in a warcinfo block (application/
 * warc-fields: "name: value" lines), into out; false if absent or too
 * long. */
static bool
info_field(const struct warc_record *rec, const char *name, char *out,
    size_t size)
{
	const char *p = (const char *)rec->block, *end = p + rec->block_len;
	size_t n = strlen(name);
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *e = eol ? eol : end;
		if ((size_t)(e - p) > n && p[n] == ':' && strncasecmp(p, name, n) == 0) {
			const char *v = p + n + 1;
			while (v < e && (*v == ' ' || *v == '\t'))
				v++;
			while (e > v && (e[-1] == '\r' || e[-1] == ' ' || e[-1] == '\t'))
				e--;
			if ((size_t)(e - v) >= size)
				return false;
			memcpy(out, v, (size_t)(e - v));
			out[e - v] = '\0';
			return true;
		}
		p = e + 1;
	}
	return false;
}

/* The token wa-fetch obeyed, else that of the User-Agent another crawler
 * names. */
void
run_warcinfo(struct extract_run *run, const struct warc_record *rec)
{
	char ua[512];
	char *token = NULL;
	if (info_field(rec, "wa-fetch-robots-agent", ua, sizeof ua) &&
	    robots_token_valid(ua))
		token = wa_strdup(ua);
	else if (info_field(rec, "http-header-user-agent", ua, sizeof ua))
		token = robots_agent_token(ua);
	snprintf(run->info_agent, sizeof run->info_agent, "%s",
	    token && strlen(token) < sizeof run->info_agent ? token : "");
	free(token);
	extract_obey_robots_tags(run->ex, run->info_agent);
}

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
