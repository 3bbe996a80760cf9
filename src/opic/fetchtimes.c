/* wa-opic -t: the times of the reads, taken from a wa-fetch log. */
#include <stdlib.h>
#include <string.h>

#include "fetchlog.h"
#include "opic-run.h"

/* The times of the fetch log's rows that have one, by URL.  A row of a
 * redirect chain followed by wa-fetch -L (a redirect URL and a status that
 * is no 3xx) gives its time to the URL the chain led to as well: that is
 * the page whose links wa-extract writes. */
void
fetch_times_load(struct opic_run *r)
{
	struct fetch_times *fl = &r->fl;
	struct tsv *t = tsv_open(r->log, FETCHLOG_COLUMNS, 0, TSV_STRICT);
	uint32_t *id = NULL;
	double *time = NULL;
	size_t rows = 0, cap = 0;
	strmap_init(&fl->urls);
	while (tsv_next(t)) {
		const char *time_text = t->col[FETCHLOG_TIME];
		const char *status = t->col[FETCHLOG_STATUS];
		const char *redirect = t->col[FETCHLOG_REDIRECT];
		if (strcmp(time_text, "-") == 0)
			continue;
		int64_t v;
		if (!parse_i64(time_text, &v) || v < 0)
			tsv_die(t, "not a fetch log row: bad time '%.40s'", time_text);
		bool followed = strcmp(redirect, "-") != 0 && status[0] != '3';
		for (int k = 0; k < 1 + followed; k++) {
			if (rows == cap) {
				cap = cap ? 2 * cap : 1024;
				id = wa_reallocarray(id, cap, sizeof *id);
				time = wa_reallocarray(time, cap, sizeof *time);
			}
			bool added;
			size_t i = strmap_add(&fl->urls, k ? redirect : t->col[FETCHLOG_URL], &added);
			if (added && i == OPIC_MAX_PAGES)
				wa_die("more than %zu URLs", (size_t)OPIC_MAX_PAGES);
			id[rows] = (uint32_t)i;
			time[rows++] = (double)v;
		}
	}
	tsv_close(t);
	/* In order of URL, each URL's times in the log's order. */
	size_t n = fl->urls.count;
	fl->first = wa_calloc(n + 1, sizeof *fl->first);
	fl->next = wa_reallocarray(NULL, n + 1, sizeof *fl->next);
	fl->time = wa_reallocarray(NULL, rows + 1, sizeof *fl->time);
	for (size_t k = 0; k < rows; k++)
		fl->first[id[k] + 1]++;
	for (size_t i = 0; i < n; i++)
		fl->first[i + 1] += fl->first[i];
	memcpy(fl->next, fl->first, (n + 1) * sizeof *fl->next);
	for (size_t k = 0; k < rows; k++)
		fl->time[fl->next[id[k]]++] = time[k];
	memcpy(fl->next, fl->first, (n + 1) * sizeof *fl->next);
	free(id);
	free(time);
}

double
fetch_time(struct opic_run *r, const char *links, uint64_t line, const char *src)
{
	struct fetch_times *fl = &r->fl;
	size_t i = strmap_find(&fl->urls, src);
	unsigned long long l = (unsigned long long)line;
	if (i == STRMAP_NONE)
		wa_die("%s:%llu: no fetch time for %s in %s", links, l, src, r->log);
	size_t have = fl->first[i + 1] - fl->first[i];
	if (fl->next[i] == fl->first[i + 1])
		wa_die("%s:%llu: read %zu of %s in this run, but %s has %zu fetch time%s"
		    " for it", links, l, have + 1, src, r->log, have, have == 1 ? "" : "s");
	return fl->time[fl->next[i]++];
}

void
fetch_times_free(struct opic_run *r)
{
	if (!r->log)
		return;
	strmap_free(&r->fl.urls, NULL);
	free(r->fl.first);
	free(r->fl.next);
	free(r->fl.time);
}
