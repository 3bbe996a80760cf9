/* The links and pages streams (linkstream.h). */
#include <string.h>

#include "linkstream.h"

struct tsv *
links_open(const char *path, unsigned flags)
{
	struct tsv *t = tsv_open(path, LINKS_MIN_COLUMNS, 0, flags);
	tsv_check_url(t, LINKS_SRC);
	tsv_check_url(t, LINKS_DST);
	return t;
}

static bool
ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

void
links_row(char *const *col, size_t ncol, struct link_row *row)
{
	const char *how = ncol > LINKS_HOW ? col[LINKS_HOW] : NULL;
	row->src = col[LINKS_SRC];
	row->dst = col[LINKS_DST];
	row->xml_target = how && ends_with(how, LINKS_XML_SUFFIX);
	row->hint = how && strncmp(how, LINKS_HOW_SITEMAP, strlen(LINKS_HOW_SITEMAP)) == 0;
}

/* The column's name in the message first: "source: bad host: http://..." */
static void
reject_url(struct tsv *t, const char *column, const char *why, const char *url)
{
	tsv_reject(t, "%s: %s: %.200s", column, why, url);
}

void
links_reject_url(struct tsv *t, int col, const char *why, const char *url)
{
	reject_url(t, col == LINKS_SRC ? "source" : "destination", why, url);
}

void
links_write(FILE *f, const char *src, const char *dst, const char *how)
{
	fputs(src, f);
	putc('\t', f);
	fputs(dst, f);
	putc('\t', f);
	fputs(how, f);
	putc('\n', f);
}

struct tsv *
pages_open(const char *path)
{
	struct tsv *t = tsv_open(path, PAGES_MIN_COLUMNS, 0, 0);
	tsv_check_url(t, PAGES_URL);
	return t;
}

int
pages_type(const char *name)
{
	int type = page_type_parse(name);
	return type == PAGE_XML_SUSPECT ? -1 : type;
}

void
pages_reject_type(struct tsv *t, const char *name)
{
	tsv_reject(t, "unknown page type '%.40s' (html, xml, dtd, other, error, dead,"
	    " robots, sitemap, noindex or -)", name);
}

void
pages_reject_url(struct tsv *t, const char *why, const char *url)
{
	reject_url(t, "URL", why, url);
}

void
pages_write(FILE *f, const struct page_row *row)
{
	fprintf(f, "%s\t%s\t", row->url, page_type_names[row->type]);
	if (row->timed)
		fprintf(f, "%lld", (long long)row->time);
	else
		putc('-', f);
	fprintf(f, "\t%s\t%zu\t%s\t%s\n", row->digest && *row->digest ? row->digest : "-",
	    row->outdeg, *row->root ? row->root : "-", *row->doctype ? row->doctype : "-");
}
