/* Reading and writing fetch logs (see fetchlog.h). */
#include <inttypes.h>
#include <stdbool.h>
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
	for (size_t n; *s; s += n) {
		n = strcspn(s, "\t\n\r");
		fwrite(s, 1, n, fp);
		if (s[n]) {
			putc(' ', fp);
			n++;
		}
	}
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
	/* The columns in order; the numeric ones come from number[]. */
	const char *text[FETCHLOG_COLUMNS] = { [FETCHLOG_URL] = r->url,
		[FETCHLOG_STATUS] = r->status, [FETCHLOG_MIME] = r->mime,
		[FETCHLOG_DIGEST] = r->digest, [FETCHLOG_ETAG] = r->etag,
		[FETCHLOG_REDIRECT] = r->redirect, [FETCHLOG_ROBOTS] = r->robots };
	const int64_t number[FETCHLOG_COLUMNS] = { [FETCHLOG_TIME] = r->time,
		[FETCHLOG_BYTES] = r->bytes, [FETCHLOG_LAST_MODIFIED] = r->last_modified,
		[FETCHLOG_CHANGED] = r->changed };
	static const bool numeric[FETCHLOG_COLUMNS] = { [FETCHLOG_TIME] = true,
		[FETCHLOG_BYTES] = true, [FETCHLOG_LAST_MODIFIED] = true,
		[FETCHLOG_CHANGED] = true };
	for (int i = 0; i < FETCHLOG_COLUMNS; i++) {
		if (i)
			putc('\t', fp);
		if (numeric[i])
			put_int(fp, number[i]);
		else
			put_text(fp, text[i]);
	}
	if (r->retried) {
		fprintf(fp, "\t%u\t", r->attempts);
		put_text(fp, r->retried);
	}
	putc('\n', fp);
}

char *
fetchlog_format(const struct fetch_row *row)
{
	char *line = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&line, &len);
	if (!fp)
		wa_die_errno("open_memstream");
	fetchlog_write(fp, row);
	if (fclose(fp) != 0)
		wa_die_errno("open_memstream");
	return line;
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
		if (!int_or_none(c[FETCHLOG_TIME], &p.time) ||
		    !int_or_none(c[FETCHLOG_BYTES], &p.bytes) ||
		    !int_or_none(c[FETCHLOG_LAST_MODIFIED], &p.last_modified)) {
			tsv_die(t, "not a fetch log row (bad number)");
		}
		const char *digest = c[FETCHLOG_DIGEST];
		if (strcmp(digest, "-") != 0 && strncmp(digest, "sha1:", 5) != 0)
			tsv_die(t, "not a fetch log row (bad digest '%.50s')", digest);
		struct fetch_prev *old = strmap_get(map, c[FETCHLOG_URL]);
		if (old)
			fetchlog_prev_free(old);
		struct fetch_prev *np = wa_malloc(sizeof *np);
		*np = p;
		np->status = wa_strdup(c[FETCHLOG_STATUS]);
		np->mime = text_or_null(c[FETCHLOG_MIME]);
		np->digest = text_or_null(digest);
		np->etag = text_or_null(c[FETCHLOG_ETAG]);
		np->redirect = text_or_null(c[FETCHLOG_REDIRECT]);
		strmap_put(map, c[FETCHLOG_URL], np);
	}
	tsv_close(t);
}

void
fetchlog_load_done(const char *path, struct strmap *set)
{
	static char present;
	struct tsv *t = tsv_open(path, FETCHLOG_COLUMNS, 0, TSV_STRICT);
	while (tsv_next(t))
		if (strcmp(t->col[FETCHLOG_STATUS], "interrupted") != 0)
			strmap_put(set, t->col[FETCHLOG_URL], &present);
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
