/* wa-opic's pages: the URLs numbered as the computation's page ids, and
 * the children of the read in progress. */
#include <stdlib.h>
#include <string.h>

#include "opic-run.h"

void
url_prefetch(struct opic_run *r, uint64_t hash, bool deep)
{
	if (!deep) {
		strmap_prefetch_slot(&r->urls, hash);
		return;
	}
	size_t i = strmap_prefetch_key(&r->urls, hash);
	if (i != STRMAP_NONE) {
		opic_prefetch(&r->op, (uint32_t)i, true);
		__builtin_prefetch(&r->mark[i], 1);
	}
}

uint32_t
intern_hashed(struct opic_run *r, const char *url, size_t len, uint64_t hash)
{
	bool added;
	size_t i = strmap_add_hashed(&r->urls, url, len, hash, &added);
	if (!added)
		return (uint32_t)i;
	if (i == OPIC_MAX_PAGES)
		wa_die("more than %zu URLs", (size_t)OPIC_MAX_PAGES);
	opic_add_page(&r->op, r->read_time);
	if (r->op.cap > r->mark_cap) {
		r->mark = wa_reallocarray(r->mark, r->op.cap, sizeof *r->mark);
		r->mark_cap = r->op.cap;
	}
	r->mark[i] = 0;
	return (uint32_t)i;
}

void
group_flush(struct opic_run *r)
{
	struct group *g = &r->g;
	if (!g->open)
		return;
	g->nfocused = 0;
	if (r->focus)
		for (size_t k = 0; k < g->nchild; k++)
			if (strstr(url_of(r, g->child[k]), r->focus))
				g->focused[g->nfocused++] = g->child[k];
	opic_read(&r->op, g->src, g->child, g->nchild, g->focused, g->nfocused, r->read_time);
	g->nchild = 0;
	g->open = false;
	progress_set(&r->pg, r->op.reads);
}

void
pages_free(struct opic_run *r)
{
	free(r->g.child);
	free(r->g.focused);
	free(r->mark);
	strmap_free(&r->urls, NULL);
}
