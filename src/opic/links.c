/* wa-opic's input: fetched pages' links (src TAB dst), grouped by source,
 * in crawl order.
 *
 * Rows wait in a ring between being read and being used, so that the
 * index slots, strings and pages their URLs need are on their way to the
 * cache while earlier rows are worked on: the index and the pages are
 * larger than the caches, and a lookup is otherwise a few cache misses in
 * a row.  A row keeps a copy of its source only when it starts a new run
 * of rows of that source (a new read). */
#include <stdlib.h>
#include <string.h>

#include "linkstream.h"
#include "opic-run.h"

static void
copy_text(char **buf, size_t *cap, const char *s, size_t len)
{
	if (*cap < len + 1) {
		*cap = len + 1 > 2 * *cap ? len + 1 : 2 * *cap;
		*buf = wa_realloc(*buf, *cap);
	}
	memcpy(*buf, s, len + 1);
}

/* Uses a row: a row that begins a new read reads the page before
 * (group_flush) first, then this one's URLs enter. */
static void
use_row(struct opic_run *r, struct row *row, const char *links)
{
	struct group *g = &r->g;
	if (row->new_read) {
		group_flush(r);
		r->read_time = r->log ? fetch_time(r, links, row->line, row->src) :
		    (double)r->op.reads;
		g->src = intern_hashed(r, row->src, row->src_len, row->src_hash);
		/* Fetch times need not grow for a page: a page may be
		 * fetched before the read that introduced it, or a log may
		 * be out of order.  Its time cannot precede its last read
		 * or introduction: it is taken to be that one. */
		if (r->read_time < r->op.page[g->src].t_last) {
			r->read_time = r->op.page[g->src].t_last;
			r->clamped++;
		}
		g->open = true;
	}
	uint32_t src = g->src;
	uint32_t dst = intern_hashed(r, row->dst, row->dst_len, row->dst_hash);
	/* wa-linkmat drops self links and duplicates; so do we, so that the
	 * limit is wa-pagerank's vector. */
	if (dst == src || r->mark[dst] == r->op.reads + 1)
		return;
	r->mark[dst] = r->op.reads + 1;
	group_add(g, dst);
}

/* A source is one read per run of adjacent rows; a source that comes back
 * later is read again, as a crawler refetches pages. */
static void
read_links(struct opic_run *r, const char *path)
{
	struct tsv *t = links_open(path, TSV_STRICT);
	uint64_t got = 0, used = 0;
	while (tsv_next(t)) {
		struct row *row = &r->ring[got % LOOKAHEAD];
		if (got - used == LOOKAHEAD)
			use_row(r, row, t->name), used++;
		struct link_row link;
		links_row(t->col, t->ncol, &link);
		const char *src = link.src, *dst = link.dst;
		row->line = t->line;
		row->new_read = !r->last_src || strcmp(src, r->last_src) != 0;
		if (row->new_read) {
			row->src_len = strlen(src);
			row->src_hash = strmap_hash(src, row->src_len);
			copy_text(&row->src, &row->src_cap, src, row->src_len);
			copy_text(&r->last_src, &r->last_src_cap, src, row->src_len);
		}
		row->dst_len = strlen(dst);
		row->dst_hash = strmap_hash(dst, row->dst_len);
		copy_text(&row->dst, &row->dst_cap, dst, row->dst_len);
		url_prefetch(r, row->dst_hash, false);
		const struct row *mid = &r->ring[(got + LOOKAHEAD / 2) % LOOKAHEAD];
		if (got - used >= LOOKAHEAD / 2)
			url_prefetch(r, mid->dst_hash, true);
		got++;
	}
	for (; used < got; used++)
		use_row(r, &r->ring[used % LOOKAHEAD], t->name);
	tsv_close(t);
}

void
read_crawl(struct opic_run *r, char *const *paths, size_t n)
{
	progress_start(&r->pg, "page reads", 0);
	if (n == 0)
		read_links(r, NULL);
	for (size_t i = 0; i < n; i++)
		read_links(r, paths[i]);
	group_flush(r);
	progress_end(&r->pg);
}

void
links_free(struct opic_run *r)
{
	for (size_t k = 0; k < LOOKAHEAD; k++) {
		free(r->ring[k].src);
		free(r->ring[k].dst);
	}
	free(r->last_src);
}
