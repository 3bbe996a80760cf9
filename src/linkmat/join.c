/* The join of the links with the (hash, id) map, into the matrix
 * (linkmat.h): in a table of the map when it fits in memory, else by two
 * merges, first by source, then by destination. */
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

/* The links sorted by source hash, duplicates dropped. */
static void
sort_by_source(struct linkmat *lm)
{
	lm->by_src = extsort_new("links by source", workdir_path(), PAIR_BYTES, SHARE(lm, 1, 2),
	    big_sort(lm, EXTSORT_UNIQUE));
	uint8_t *recs = wa_reallocarray(NULL, PAIRS_BUFFER, PAIR_BYTES);
	size_t got;
	for (uint64_t at = 0; (got = pairs_read(&lm->pairs, at, recs, PAIRS_BUFFER)); at += got)
		extsort_add_many(lm->by_src, recs, got);
	free(recs);
	pairs_close(&lm->pairs);
	extsort_finish(lm->by_src);
	sort_done("links by source", lm->by_src);
	phase_done(lm, "sort by source");
}

/* Merge 1: the links in source hash order take the id of their source; the
 * out-degrees are the lengths of the runs. */
static void
join_sources(struct linkmat *lm)
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

/* Merge 2: the links in destination hash order take the id of their
 * destination and go to the matrix sort. */
static void
join_destinations(struct linkmat *lm)
{
	struct map_cursor m = { .s = lm->map };
	matrix_open(lm, false);
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

/* The map as an open-addressing table: a slot per hash, found from the
 * hash's top bits and the slots after it.  The hashes are uniform, so the
 * map, read in hash order, fills the table from its start. */
struct id_slot {
	uint64_t hash;
	uint32_t id;
	uint32_t used;
};

struct id_table {
	struct id_slot *slot;
	uint64_t mask;
	unsigned shift;
};

/* The slots of a table of n ids: a power of two, at most three quarters
 * full. */
static uint64_t
table_slots(uint64_t n)
{
	uint64_t slots = 16;
	while (slots / 4 * 3 < n)
		slots *= 2;
	return slots;
}

static inline struct id_slot *
table_home(const struct id_table *t, uint64_t h)
{
	return &t->slot[h >> t->shift];
}

static void
table_build(struct linkmat *lm, struct id_table *t)
{
	uint64_t slots = table_slots(lm->n);
	t->mask = slots - 1;
	t->shift = 64 - (unsigned)__builtin_ctzll(slots);
	t->slot = random_access_alloc(slots * sizeof *t->slot);
	struct map_cursor m = { .s = lm->map, .check = true };
	for (map_next(&m); m.have; map_next(&m)) {
		uint64_t i = (uint64_t)(table_home(t, m.hash) - t->slot);
		while (t->slot[i].used)
			i = (i + 1) & t->mask;
		t->slot[i] = (struct id_slot){ m.hash, m.id, 1 };
	}
	extsort_free(lm->map);
	lm->map = NULL;
}

static inline uint32_t
table_find(const struct id_table *t, uint64_t h)
{
	for (uint64_t i = (uint64_t)(table_home(t, h) - t->slot);; i = (i + 1) & t->mask) {
		const struct id_slot *s = &t->slot[i];
		if (!s->used)
			wa_die("internal error: a URL of a link is not among the nodes");
		if (s->hash == h)
			return s->id;
	}
}

/* The table is larger than the caches: the slots of the links some
 * records ahead are fetched while those of this one are looked up. */
#define LOOKUP_AHEAD 16
#define LOOKUP_BATCH 16384

/* A batch of links, looked up on a thread of the pool; their matrix
 * records go to the matrix on the main thread. */
struct lookup_job {
	struct linkmat *lm;
	const struct id_table *t;
	uint64_t at;
	size_t n;
	uint8_t *pairs, *recs, *part;
};

static void
lookup_batch(void *job)
{
	struct lookup_job *j = job;
	if (!j->pairs) {
		j->pairs = wa_reallocarray(NULL, LOOKUP_BATCH, PAIR_BYTES);
		j->recs = wa_reallocarray(NULL, LOOKUP_BATCH, MATRIX_RECORD);
		j->part = wa_malloc(LOOKUP_BATCH);
	}
	j->n = pairs_read(&j->lm->pairs, j->at, j->pairs, LOOKUP_BATCH);
	for (size_t i = 0; i < j->n; i++) {
		const uint8_t *r = j->pairs + i * PAIR_BYTES;
		if (i + LOOKUP_AHEAD < j->n) {
			__builtin_prefetch(table_home(j->t, get64(r + LOOKUP_AHEAD * PAIR_BYTES)));
			__builtin_prefetch(table_home(j->t, get64(r + LOOKUP_AHEAD * PAIR_BYTES + 8)));
		}
		uint32_t s = table_find(j->t, get64(r + 8)), d = table_find(j->t, get64(r));
		j->part[i] = (uint8_t)matrix_record(j->lm, s, d, j->recs + i * MATRIX_RECORD);
	}
}

static void
put_batch(void *arg, void *job)
{
	struct linkmat *lm = arg;
	struct lookup_job *j = job;
	for (size_t i = 0; i < j->n; i++)
		matrix_put(lm, j->part[i], j->recs + i * MATRIX_RECORD);
	progress_set(&lm->pg, j->at + j->n);
}

static void
free_lookup_job(void *job)
{
	struct lookup_job *j = job;
	free(j->pairs);
	free(j->recs);
	free(j->part);
}

/* The links take their ids from the table, in one pass, and go to the
 * matrix, whose sorts drop the duplicates. */
static void
join_in_table(struct linkmat *lm)
{
	struct id_table t;
	table_build(lm, &t);
	matrix_open(lm, true);
	progress_start(&lm->pg, "links joined", lm->pairs.count);
	struct wa_pool pool;
	wa_pool_start(&pool, lm->nthreads > 1 ? lm->nthreads : 0, 2, sizeof(struct lookup_job),
	    lookup_batch, put_batch, lm);
	for (uint64_t at = 0; at < lm->pairs.count; at += LOOKUP_BATCH) {
		struct lookup_job *j = wa_pool_next(&pool);
		j->lm = lm;
		j->t = &t;
		j->at = at;
		wa_pool_submit(&pool, 0);
	}
	wa_pool_drain(&pool);
	wa_pool_stop(&pool, free_lookup_job);
	progress_end(&lm->pg);
	random_access_free(t.slot, (t.mask + 1) * sizeof *t.slot);
	pairs_close(&lm->pairs);
	phase_done(lm, "join in a table");
}

void
linkmat_join(struct linkmat *lm)
{
	if (table_slots(lm->n) * sizeof(struct id_slot) <= SHARE(lm, 1, 2)) {
		join_in_table(lm);
		return;
	}
	sort_by_source(lm);
	join_sources(lm);
	join_destinations(lm);
}
