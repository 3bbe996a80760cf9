/* The URL table: urls, urlid and urloff (linkmat.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linkmat.h"
#include "wa.h"
#include "workdir.h"

/* The lines URL<TAB>id of the URL sort. */
struct url_line {
	FILE *in;
	char *line;
	size_t cap, len;
	uint32_t id;
	bool have;
};

static void
url_line_next(struct url_line *u)
{
	ssize_t n = getline(&u->line, &u->cap, u->in);
	u->have = n >= 0;
	if (!u->have)
		return;
	char *tab = memchr(u->line, '\t', (size_t)n);
	if (!tab || u->line[n - 1] != '\n')
		wa_die("internal error: bad URL line from sort: %.200s", u->line);
	*tab = '\0';
	u->len = (size_t)(tab - u->line);
	u->id = (uint32_t)strtoul(tab + 1, NULL, 10);
}

/* The URL table: the URLs in byte order, the new ones from GNU sort and
 * the old ones from the old urls file, merged; the id of each; and, after
 * a sort by id, the offset of each id's URL. */
void
linkmat_url_table(struct linkmat *lm)
{
	struct graph_writer urls, urlid, urloff;
	graph_writer_open(&urls, workdir_path(), "urls", graph_file_kinds[GF_URLS]);
	graph_writer_open(&urlid, workdir_path(), "urlid", graph_file_kinds[GF_URLID]);
	struct extsort *offsets = extsort_new("URL offsets", workdir_path(), 12, SHARE(lm, 1, 8), 0);

	struct url_line nu = { .in = lm->urls.out };
	url_line_next(&nu);
	struct bin_in old_urls;
	char old_url[URL_BUFSIZE];
	size_t old_len = 0;
	const uint8_t *old_rec = NULL;
	if (lm->old_path) {
		old_member(&lm->old, GF_URLS, 0, &old_urls);
		old_rec = extsort_next(lm->oldurl);
		if (old_rec)
			old_len = bin_in_line(&old_urls, old_url);
	}
	progress_start(&lm->pg, "URLs", lm->n);
	uint64_t off = 0, count = 0;
	while (nu.have || old_rec) {
		int c = !old_rec ? 1 : !nu.have ? -1 : strcmp(old_url, nu.line);
		if (c == 0)
			wa_die("internal error: %s is both an old and a new node", old_url);
		const char *url;
		size_t n;
		uint32_t id;
		if (c < 0) {
			/* The old URLs come in the order of their offsets. */
			if (get64(old_rec + 4) != old_urls.consumed - old_len - 1)
				wa_die("%s: urloff and urls disagree at offset %" PRIu64,
				    old_urls.r.path, get64(old_rec + 4));
			url = old_url;
			n = old_len;
			id = get32(old_rec);
		} else {
			url = nu.line;
			n = nu.len;
			id = nu.id;
		}
		graph_writer_put(&urls, url, n);
		graph_writer_put(&urls, "\n", 1);
		graph_writer_put(&urlid, &id, 4);
		uint8_t rec[12];
		put64(rec, off);
		put32(rec + 8, id);
		extsort_add(offsets, rec);
		off += n + 1;
		if (c < 0) {
			old_rec = extsort_next(lm->oldurl);
			if (old_rec)
				old_len = bin_in_line(&old_urls, old_url);
		} else {
			url_line_next(&nu);
		}
		progress_set(&lm->pg, ++count);
	}
	progress_end(&lm->pg);
	free(nu.line);
	sorter_finish(&lm->urls);
	if (lm->old_path) {
		if (old_urls.consumed != old_urls.r.h.payload_bytes)
			wa_die("%s: URLs that no id has", old_urls.r.path);
		bin_in_close(&old_urls);
		extsort_free(lm->oldurl);
		lm->oldurl = NULL;
	}
	if (count != lm->n)
		wa_die("internal error: %" PRIu64 " URLs for %" PRIu64 " nodes", count, lm->n);
	graph_writer_commit(&urls, lm->n, NULL);
	graph_writer_commit(&urlid, lm->n, NULL);

	extsort_finish(offsets);
	graph_writer_open(&urloff, workdir_path(), "urloff", graph_file_kinds[GF_URLOFF]);
	for (uint64_t id = 0; id < lm->n; id++) {
		const uint8_t *rec = extsort_next(offsets);
		if (!rec || get32(rec + 8) != id)
			wa_die("internal error: no URL offset for id %" PRIu64, id);
		uint64_t o = get64(rec);
		graph_writer_put(&urloff, &o, 8);
	}
	graph_writer_commit(&urloff, lm->n, NULL);
	sort_done("URL offsets", offsets);
	extsort_free(offsets);
	phase_done(lm, "URL table");
}

