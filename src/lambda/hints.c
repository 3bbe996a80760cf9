/* The sitemap hints (man/wa-formats.5, "Sitemap hints") merged with the
 * history by URL: each observation of a page takes the latest lastmod the
 * hints give it at or before its time, and the page the changefreq of the
 * last row with one (wa-lambda(1), "Sitemap hints"). */
#include <stdlib.h>
#include <string.h>

#include "lambda.h"

/* The number of a sitemap, added to the table if new. */
static size_t
sitemap_number(struct lambda *l, const char *sitemap)
{
	size_t i = strmap_add(&l->sitemaps, sitemap, NULL);
	if (i >= l->trust_cap) {
		size_t old = l->trust_cap;
		l->trust_cap = 2 * i + 8;
		l->trust = wa_reallocarray(l->trust, l->trust_cap, sizeof *l->trust);
		memset(l->trust + old, 0, (l->trust_cap - old) * sizeof *l->trust);
	}
	return i;
}

/* The next row of the hints into l->hint_*, checking its order; false at
 * the end. */
static bool
hints_advance(struct lambda *l)
{
	struct tsv *t = l->hints;
	struct hint_row row;
	const char *why;

	while (tsv_next(t)) {
		if (!hints_parse(t->col, &row, &why)) {
			tsv_reject(t, "%s: %.80s", why,
			    t->col[strncmp(why, "lastmod", 7) == 0 ? 2 : 3]);
			continue;
		}
		/* A "-" sorts with 0, among the dates: it is left out of the
		 * order, which only a URL's dates keep. */
		int64_t latest = l->hint_have && strcmp(row.url, l->hint_url) == 0 ?
		    l->hint_url_latest : -1;
		if (row.lastmod >= 0 && row.lastmod < latest)
			tsv_die(t, "not sorted by lastmod within %.200s: %lld after %lld",
			    row.url, (long long)row.lastmod, (long long)latest);
		l->hint_url_latest = row.lastmod > latest ? row.lastmod : latest;
		free(l->hint_url);
		l->hint_url = wa_strdup(row.url);
		l->hint_lastmod = row.lastmod;
		l->hint_rate = *row.changefreq ?
		    changefreq_rate(row.changefreq, strlen(row.changefreq), row.changefreq) : 0;
		if (l->hint_rate > 0)
			l->hint_sitemap = sitemap_number(l, row.sitemap);
		return l->hint_have = true;
	}
	return l->hint_have = false;
}

void
hints_open(struct lambda *l)
{
	if (!l->hints_path)
		return;
	if (!l->sitemaps.slot)
		strmap_init(&l->sitemaps);
	l->hints = tsv_open(l->hints_path, 4, 0, 0);
	tsv_check_url(l->hints, 0);
	tsv_check_sorted(l->hints, 0, false);
	l->hint_have = false;
	hints_advance(l);
}

void
hints_close(struct lambda *l, bool report)
{
	if (!l->hints)
		return;
	if (report)
		tsv_close(l->hints);
	else
		tsv_discard(l->hints);
	l->hints = NULL;
	free(l->hint_url);
	l->hint_url = NULL;
}

int64_t
hints_until(struct lambda *l, struct page *p, int64_t t)
{
	while (l->hint_have) {
		int cmp = strcmp(l->hint_url, p->url);
		if (cmp > 0 || (cmp == 0 && l->hint_lastmod > t))
			break;
		if (cmp == 0 && l->hint_lastmod >= 0)
			p->hint_lastmod = l->hint_lastmod;
		if (cmp == 0 && l->hint_rate > 0) {
			p->hint_rate = l->hint_rate;
			p->hint_sitemap = l->hint_sitemap;
		}
		hints_advance(l);
	}
	return p->hint_lastmod;
}

bool
sitemap_trusted(const struct lambda *l, size_t i)
{
	return 2 * l->trust[i].refuted <= l->trust[i].checked;
}

void
hints_free(struct lambda *l)
{
	if (!l->sitemaps.slot)
		return;
	for (size_t i = 0; i < l->sitemaps.count; i++)
		if (!sitemap_trusted(l, i))
			wa_note("%s: changefreq refuted on %llu of the %llu pages that "
			    "tell: not believed", strmap_key(&l->sitemaps, i),
			    (unsigned long long)l->trust[i].refuted,
			    (unsigned long long)l->trust[i].checked);
	strmap_free(&l->sitemaps, NULL);
	free(l->trust);
}
