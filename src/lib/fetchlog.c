/* Reading and writing fetch logs (see fetchlog.h). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "fetchlog.h"
#include "msg.h"
#include "opt.h"
#include "tsv.h"

static void
put_text(FILE *fp, const char *s)
{
	if (!s || !*s) {
		putc('-', fp);
		return;
	}
	for (; *s; s++)
		putc(*s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s, fp);
}

static void
put_int(FILE *fp, int64_t v)
{
	if (v < 0)
		putc('-', fp);
	else
		fprintf(fp, "%" PRId64, v);
}

void
fetchlog_write(FILE *fp, const struct fetch_row *r)
{
	put_text(fp, r->url);
	putc('\t', fp);
	put_int(fp, r->time);
	putc('\t', fp);
	put_text(fp, r->status);
	putc('\t', fp);
	put_text(fp, r->mime);
	putc('\t', fp);
	put_int(fp, r->bytes);
	putc('\t', fp);
	put_text(fp, r->digest);
	putc('\t', fp);
	put_int(fp, r->last_modified);
	putc('\t', fp);
	put_text(fp, r->etag);
	putc('\t', fp);
	put_int(fp, r->changed);
	putc('\t', fp);
	put_text(fp, r->redirect);
	putc('\t', fp);
	put_text(fp, r->robots);
	putc('\n', fp);
}

/* A column that may be '-' for none. */
static char *
text_or_null(const char *s)
{
	return strcmp(s, "-") == 0 ? NULL : wa_strdup(s);
}

static bool
int_or_none(const char *s, int64_t *v)
{
	if (strcmp(s, "-") == 0) {
		*v = -1;
		return true;
	}
	return parse_i64(s, v) && *v >= 0;
}

void
fetchlog_load_previous(const char *path, struct strmap *map)
{
	struct tsv *t = tsv_open(path, FETCHLOG_COLUMNS, 0, TSV_STRICT);
	while (tsv_next(t)) {
		char **c = t->col;
		struct fetch_prev p;
		if (!int_or_none(c[1], &p.time) || !int_or_none(c[4], &p.bytes) ||
		    !int_or_none(c[6], &p.last_modified)) {
			tsv_die(t, "not a fetch log row (bad number)");
		}
		if (strcmp(c[5], "-") != 0 && strncmp(c[5], "sha1:", 5) != 0) {
			tsv_die(t, "not a fetch log row (bad digest '%.50s')", c[5]);
		}
		struct fetch_prev *old = strmap_get(map, c[0]);
		if (old)
			fetchlog_prev_free(old);
		struct fetch_prev *np = wa_malloc(sizeof *np);
		*np = p;
		np->status = wa_strdup(c[2]);
		np->mime = text_or_null(c[3]);
		np->digest = text_or_null(c[5]);
		np->etag = text_or_null(c[7]);
		np->redirect = text_or_null(c[9]);
		strmap_put(map, c[0], np);
	}
	tsv_close(t);
}

void
fetchlog_load_done(const char *path, struct strmap *set)
{
	static char present;
	struct tsv *t = tsv_open(path, FETCHLOG_COLUMNS, 0, TSV_STRICT);
	while (tsv_next(t))
		if (strcmp(t->col[2], "interrupted") != 0)
			strmap_put(set, t->col[0], &present);
	tsv_close(t);
}

void
fetchlog_prev_free(void *prev)
{
	struct fetch_prev *p = prev;
	free(p->status);
	free(p->mime);
	free(p->digest);
	free(p->etag);
	free(p->redirect);
	free(p);
}
