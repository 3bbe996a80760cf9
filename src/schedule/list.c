/* The fetch list: the candidates of each reason in a bounded heap, then
 * written best first with the sites interleaved. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fetchlist.h"
#include "heap.h"
#include "schedule.h"
#include "url.h"

const char *const reason_name[NREASONS] = {
	"now", "period", "refresh", "retry", "discover-xml", "discover-html", "refresh",
};

/* ---- bounded heaps ---- */

/* Whether a is worse than b: lower key, then later URL. */
static bool
row_worse(const struct row *a, const struct row *b)
{
	if (a->key != b->key)
		return a->key < b->key;
	return strcmp(a->url, b->url) > 0;
}

HEAP_DEFINE(rows, struct row, row_worse)

void
row_push(struct row_heap *h, const char *url, double key, int64_t due, enum reason reason)
{
	struct row x = { .key = key, .due = due, .reason = reason, .url = (char *)url };
	if (h->cap == 0)
		return;
	if (h->n == h->cap) {
		if (!row_worse(&h->r[0], &x))
			return;
		free(h->r[0].url);
		x.url = wa_strdup(url);
		h->r[0] = x;
		rows_sift_down(h->r, h->n, 0);
		return;
	}
	if (h->n == h->alloc) {
		h->alloc = h->alloc ? 2 * h->alloc : 1024;
		if (h->alloc > h->cap)
			h->alloc = h->cap;
		h->r = wa_reallocarray(h->r, h->alloc, sizeof *h->r);
	}
	x.url = wa_strdup(url);
	rows_push(h->r, &h->n, x);
}

static int
row_best_first(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	if (x->reason != y->reason)
		return (int)x->reason - (int)y->reason;
	return row_worse(x, y) - row_worse(y, x);
}

void
heap_keep(struct row_heap *h, uint64_t n)
{
	if (h->n <= n)
		return;
	qsort(h->r, h->n, sizeof *h->r, row_best_first);
	for (size_t i = n; i < h->n; i++)
		free(h->r[i].url);
	h->n = n;
}

/* ---- the fetch list, sites interleaved ---- */

static int
row_by_site(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	int c = strcmp(x->site, y->site);
	if (c)
		return c;
	return (x->priority < y->priority) - (x->priority > y->priority);
}

/* The Length strategy of Castillo, "Scheduling Algorithms for Web
 * Crawling" (Effective Web Crawling, Ph.D. thesis, ch. 6, 2004): round r
 * takes the r-th page of every site that has one, longest queues first,
 * so that many sites stay open to the end. */
static int
row_interleaved(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	if (x->site_rank != y->site_rank)
		return (x->site_rank > y->site_rank) - (x->site_rank < y->site_rank);
	if (x->site_len != y->site_len)
		return (x->site_len < y->site_len) - (x->site_len > y->site_len);
	return strcmp(x->site, y->site);
}

/* The rows of every heap in one array, best first; frees the heaps' arrays
 * (their counts stay, for the summary). */
static struct row *
gather_rows(struct row_heap *heaps, size_t *count)
{
	size_t n = 0, k = 0;
	for (int r = 0; r < NREASONS; r++)
		n += heaps[r].n;
	struct row *rows = wa_reallocarray(NULL, n ? n : 1, sizeof *rows);
	for (int r = 0; r < NREASONS; r++) {
		if (heaps[r].n)
			memcpy(rows + k, heaps[r].r, heaps[r].n * sizeof *rows);
		k += heaps[r].n;
		free(heaps[r].r);
	}
	qsort(rows, n, sizeof *rows, row_best_first);
	*count = n;
	return rows;
}

/* Numbers the rows by priority, then orders them by site rounds. */
static void
interleave_sites(struct row *rows, size_t n)
{
	char host[URL_BUFSIZE];
	for (size_t i = 0; i < n; i++) {
		rows[i].priority = n - i;
		if (!url_host(rows[i].url, host))
			wa_die("no host in the URL %.200s", rows[i].url);
		rows[i].site = wa_strdup(host);
	}
	qsort(rows, n, sizeof *rows, row_by_site);
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i; j < n && strcmp(rows[j].site, rows[i].site) == 0; j++)
			rows[j].site_rank = j - i;
		for (size_t m = i; m < j; m++)
			rows[m].site_len = j - i;
	}
	qsort(rows, n, sizeof *rows, row_interleaved);
}

void
write_list(struct schedule *s)
{
	size_t n;
	struct row *rows = gather_rows(s->heaps, &n);
	interleave_sites(rows, n);
	for (size_t i = 0; i < n; i++) {
		fetchlist_write(stdout, rows[i].url, rows[i].reason == R_REFRESH_EARLY &&
		    rows[i].due < 0 ? "reread" : reason_name[rows[i].reason], rows[i].priority,
		    rows[i].due);
		free(rows[i].url);
		free(rows[i].site);
	}
	free(rows);
	if (fflush(stdout) == EOF || ferror(stdout))
		wa_die_errno("standard output");
}
