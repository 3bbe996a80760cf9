/* The joins of the links with the (hash, id) map: first by source, then
 * by destination, into the matrix sort (linkmat.h). */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "linkmat.h"
#include "wa.h"
#include "workdir.h"

/* The slices: equal numbers of ids, slice k holding [k*N/S, (k+1)*N/S). */
void
linkmat_plan_slices(struct linkmat *lm)
{
	lm->slices = lm->want_slices ? lm->want_slices :
	    graph_slices_for_budget(lm->n, lm->budget);
	uint64_t least = (lm->n + GRAPH_SLICE_LIMIT - 1) / GRAPH_SLICE_LIMIT;
	if (lm->slices < least) {
		wa_warn("-s %" PRIu32 ": slices hold at most %u pages; cutting %" PRIu64
		    " pages in %" PRIu64, lm->slices, GRAPH_SLICE_LIMIT, lm->n, least);
		lm->slices = (uint32_t)least;
	}
	lm->bound = wa_calloc(lm->slices + 1, sizeof *lm->bound);
	for (uint64_t k = 0; k <= lm->slices; k++)
		lm->bound[k] = k * lm->n / lm->slices;
}

/* The URL of an id of the new graph, from its files so far: for the
 * message about a hash collision. */
static char *
new_url_of(uint32_t id)
{
	char *off_path = workdir_file("urloff"), *urls_path = workdir_file("urls");
	char buf[URL_BUFSIZE] = "?";
	uint64_t off;
	int fo = open(off_path, O_RDONLY | O_CLOEXEC), fu = open(urls_path, O_RDONLY | O_CLOEXEC);
	if (fo >= 0 && fu >= 0 &&
	    pread(fo, &off, 8, BIN_HEADER_BYTES + 8 * (off_t)id) == 8) {
		ssize_t k = pread(fu, buf, URL_MAX, (off_t)(BIN_HEADER_BYTES + off));
		buf[k > 0 ? k : 0] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
	}
	if (fo >= 0)
		close(fo);
	if (fu >= 0)
		close(fu);
	free(off_path);
	free(urls_path);
	return wa_strdup(buf);
}

/* The (hash, id) map, read in hash order. */
struct map_cursor {
	struct extsort *s;
	uint64_t hash, prev;
	uint32_t id, prev_id;
	bool have, check, have_prev;
};

static void
map_next(struct map_cursor *m)
{
	const uint8_t *r = extsort_next(m->s);
	m->have = r != NULL;
	if (!r)
		return;
	m->id = get32(r);
	m->hash = get64(r + 4);
	if (m->check && m->have_prev && m->hash == m->prev) {
		char *a = new_url_of(m->prev_id), *b = new_url_of(m->id);
		wa_die("%s and %s have the same 64-bit hash %016" PRIx64 ": this graph cannot "
		    "be built (please report it)", a, b, m->hash);
	}
	m->prev = m->hash;
	m->prev_id = m->id;
	m->have_prev = true;
}

static uint32_t
map_find(struct map_cursor *m, uint64_t h)
{
	while (m->have && m->hash < h)
		map_next(m);
	if (!m->have || m->hash != h)
		wa_die("internal error: a URL of a link is not among the nodes");
	return m->id;
}

/* Join 1: the links in source hash order take the id of their source; the
 * out-degrees are the lengths of the runs. */
void
linkmat_join_sources(struct linkmat *lm)
{
	struct map_cursor m = { .s = lm->map, .check = true };
	lm->by_dst = extsort_new("links by destination", workdir_path(), 12, SHARE(lm, 1, 4),
	    big_sort(lm, 0));
	lm->outdeg = extsort_new("out-degrees", workdir_path(), 8, SHARE(lm, 1, 16), 0);
	map_next(&m);
	progress_start(&lm->pg, "links joined with sources", extsort_stats(lm->by_src)->added);
	uint64_t cur = 0, count = 0, done = 0;
	uint32_t id = 0;
	const uint8_t *r;
	while ((r = extsort_next(lm->by_src))) {
		uint64_t hs = get64(r + 8);
		if (count == 0 || hs != cur) {
			if (count)
				degree_add(lm->outdeg, id, count);
			id = map_find(&m, hs);
			cur = hs;
			count = 0;
		}
		count++;
		uint8_t rec[12];
		put32(rec, id);
		memcpy(rec + 4, r, 8);
		extsort_add(lm->by_dst, rec);
		progress_set(&lm->pg, ++done);
	}
	if (count)
		degree_add(lm->outdeg, id, count);
	/* Every collision shows, not only those of sources. */
	while (m.have)
		map_next(&m);
	progress_end(&lm->pg);
	lm->new_links = done;
	extsort_free(lm->by_src);
	lm->by_src = NULL;
	extsort_finish(lm->by_dst);
	sort_done("links by destination", lm->by_dst);
	phase_done(lm, "join by source");
}

/* Join 2: the links in destination hash order take the id of their
 * destination and go to the matrix sort. */
void
linkmat_join_destinations(struct linkmat *lm)
{
	struct map_cursor m = { .s = lm->map };
	lm->matrix = extsort_new("matrix", workdir_path(), 12, SHARE(lm, 3, 8), big_sort(lm, 0));
	lm->indeg = extsort_new("in-degrees", workdir_path(), 8, SHARE(lm, 1, 16), 0);
	extsort_rewind(lm->map);
	map_next(&m);
	progress_start(&lm->pg, "links joined with destinations", lm->new_links);
	uint64_t cur = 0, count = 0, done = 0;
	uint32_t id = 0;
	const uint8_t *r;
	while ((r = extsort_next(lm->by_dst))) {
		uint64_t hd = get64(r + 4);
		if (count == 0 || hd != cur) {
			if (count)
				degree_add(lm->indeg, id, count);
			id = map_find(&m, hd);
			cur = hd;
			count = 0;
		}
		count++;
		matrix_add(lm, get32(r), id);
		progress_set(&lm->pg, ++done);
	}
	if (count)
		degree_add(lm->indeg, id, count);
	progress_end(&lm->pg);
	extsort_free(lm->by_dst);
	lm->by_dst = NULL;
	extsort_free(lm->map);
	lm->map = NULL;
	phase_done(lm, "join by destination");
}

