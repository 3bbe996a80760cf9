/* Reading the links and pages: the link sort by source and the node lines
 * (linkmat.h).
 *
 * The canonicalisation of URLs (libcurl) is most of the work; the pool's
 * threads do it on batches of rows while the main thread parses the next
 * rows, and the main thread takes the results back in input order, so
 * that nothing depends on -j.  A row the TSV reader itself rejects (a
 * missing column) is reported at once, before the rows of pending batches:
 * the messages name their lines but may come out of order. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "linkmat.h"
#include "linkstream.h"
#include "wa.h"
#include "workdir.h"

#define BATCH_ROWS 4096
#define SEEN_AHEAD 16
#define SEEN_WAYS 8	/* a bucket is a cache line */

struct row {
	uint64_t line;
	uint32_t raw[2];	/* the fields, in the batch's raw bytes */
	uint32_t canon[2];	/* canonical URLs, in the batch's canon bytes */
	uint64_t hash[2];
	const char *why;	/* why the URL in column bad + 1 is refused */
	uint8_t bad;
	int8_t type;		/* pages: the type, -1 if unknown */
	bool xml;		/* links: the how column ends in +xml */
	bool hint;		/* links: from a sitemap or robots.txt, no edge */
};

struct batch {
	struct tsv *t;
	bool pages;
	size_t n;
	struct row rows[BATCH_ROWS];
	char *raw, *canon;
	size_t raw_len, raw_cap, canon_len, canon_cap;
};

/* What a node line tells number.c of its URL, beyond the line of another
 * evidence: a line whose facts the URL's recent lines already gave adds
 * nothing and is not written.  The filter keeps no types: page lines
 * always go. */
enum { FACT_NODE = 1, FACT_FETCHED = 2, FACT_XML_LINK = 4, FACT_TYPE = 8, FACT_BITS = 8 };

static unsigned
evidence_facts(char ev)
{
	switch (ev) {
	case EV_TARGET:
		return FACT_NODE;
	case EV_XML_TARGET:
		return FACT_NODE | FACT_XML_LINK;
	case EV_SOURCE:
		return FACT_NODE | FACT_FETCHED;
	default:
		return FACT_NODE | FACT_FETCHED | FACT_TYPE;
	}
}

/* The filter is a table of buckets of SEEN_WAYS slots, the most recent
 * URL first.  A slot holds the high bits of the hash, with the facts in
 * the low byte; the bucket is chosen by that byte and by the high bits,
 * in seen_groups buckets for each value of the byte, so that a slot
 * matches only the whole hash, and the table takes the whole of its
 * share, whatever its size.  The high bits give a bucket by a 128-bit
 * product (Lemire, "Fast Random Integer Generation in an Interval",
 * 2019), not a 64-bit one, with which GCC 12 drops the prefetch. */
static inline uint64_t *
seen_bucket(const struct linkmat *lm, uint64_t h)
{
	uint64_t b = (h & ((1u << FACT_BITS) - 1)) * lm->seen_groups +
	    (uint64_t)(((unsigned __int128)h * lm->seen_groups) >> 64);
	return &lm->seen[b * SEEN_WAYS];
}

static void
emit_node(struct linkmat *lm, const char *url, uint64_t h, char ev)
{
	uint64_t *way = seen_bucket(lm, h), tag = h >> FACT_BITS << FACT_BITS;
	size_t w = 0;
	while (w < SEEN_WAYS - 1 && way[w] >> FACT_BITS != h >> FACT_BITS)
		w++;
	unsigned facts = evidence_facts(ev), had = way[w] >> FACT_BITS == h >> FACT_BITS ?
	    (unsigned)(way[w] & ((1u << FACT_BITS) - 1)) : 0;
	if ((facts & ~had) == 0)
		return;
	memmove(way + 1, way, w * sizeof *way);
	way[0] = tag | had | (facts & ~FACT_TYPE);
	lm->node_lines++;
	if (!url_surt(url, lm->surt))
		wa_die("internal error: no SURT key for %s", url);
	FILE *f = lm->nodes.in;
	fputs_unlocked(lm->surt, f);
	putc_unlocked('\t', f);
	putc_unlocked(url[4] == 's' ? NODE_HTTPS : NODE_HTTP, f);
	putc_unlocked(ev, f);
	putc_unlocked('\n', f);
}

/* Copies column c of the current row to the batch. */
static uint32_t
batch_raw(struct batch *bt, const struct tsv *t, size_t c)
{
	size_t n = t->len[c] + 1;
	if (bt->raw_len + n > bt->raw_cap) {
		bt->raw_cap = 2 * (bt->raw_len + n);
		bt->raw = wa_realloc(bt->raw, bt->raw_cap);
	}
	memcpy(bt->raw + bt->raw_len, t->col[c], n);
	uint32_t off = (uint32_t)bt->raw_len;
	bt->raw_len += n;
	return off;
}

/* The work of the pool's threads. */
static void
canon_batch(void *job)
{
	struct batch *bt = job;
	bt->canon_len = 0;
	size_t cols = bt->pages ? 1 : 2;
	for (size_t i = 0; i < bt->n; i++) {
		struct row *r = &bt->rows[i];
		r->why = NULL;
		for (size_t c = 0; c < cols; c++) {
			const char *raw = bt->raw + r->raw[c];
			/* Links come grouped by source: one canonicalisation a page. */
			if (c == 0 && i > 0 && !r[-1].why &&
			    strcmp(raw, bt->raw + r[-1].raw[0]) == 0) {
				r->canon[0] = r[-1].canon[0];
				r->hash[0] = r[-1].hash[0];
				continue;
			}
			/* Canonicalised in place, in room for the longest URL. */
			if (bt->canon_len + URL_BUFSIZE > bt->canon_cap) {
				bt->canon_cap = 2 * (bt->canon_len + URL_BUFSIZE);
				bt->canon = wa_realloc(bt->canon, bt->canon_cap);
			}
			char *url = bt->canon + bt->canon_len;
			if (!url_canon(raw, url, &r->why)) {
				r->bad = (uint8_t)c;
				break;
			}
			size_t n = strlen(url);
			r->canon[c] = (uint32_t)bt->canon_len;
			r->hash[c] = url_hash(url, n);
			bt->canon_len += n + 1;
		}
	}
}

static void
batch_free(void *job)
{
	struct batch *bt = job;
	free(bt->raw);
	free(bt->canon);
}

static inline void
seen_prefetch(const struct linkmat *lm, uint64_t h)
{
	__builtin_prefetch(seen_bucket(lm, h), 1);
}

/* The canonical rows of a batch, in input order, to the sorts; run by the
 * pool on the main thread. */
static void
emit_batch(void *arg, void *job)
{
	struct linkmat *lm = arg;
	struct batch *bt = job;
	/* The messages name each row's own line. */
	uint64_t line = bt->t->line;
	for (size_t i = 0; i < bt->n; i++) {
		const struct row *r = &bt->rows[i];
		/* The filter is larger than the caches: its slots are fetched
		 * some rows ahead, so that the misses overlap. */
		if (i + SEEN_AHEAD < bt->n && !r[SEEN_AHEAD].why) {
			seen_prefetch(lm, r[SEEN_AHEAD].hash[0]);
			if (!bt->pages)
				seen_prefetch(lm, r[SEEN_AHEAD].hash[1]);
		}
		progress_set(&lm->pg, ++lm->rows);
		bt->t->line = r->line;
		if (r->why) {
			if (bt->pages)
				pages_reject_url(bt->t, r->why, bt->raw + r->raw[0]);
			else
				links_reject_url(bt->t, r->bad, r->why, bt->raw + r->raw[r->bad]);
			continue;
		}
		const char *src = bt->canon + r->canon[0];
		if (bt->pages) {
			if (r->type < 0) {
				pages_reject_type(bt->t, bt->raw + r->raw[1]);
				continue;
			}
			emit_node(lm, src, r->hash[0], (char)(EV_PAGE + r->type));
			continue;
		}
		const char *dst = bt->canon + r->canon[1];
		if (r->hint) {
			emit_node(lm, dst, r->hash[1], r->xml ? EV_XML_TARGET : EV_TARGET);
			lm->hint_rows++;
			continue;
		}
		emit_node(lm, src, r->hash[0], EV_SOURCE);
		if (r->hash[0] == r->hash[1] && strcmp(src, dst) == 0) {
			lm->self_links++;
			continue;
		}
		emit_node(lm, dst, r->hash[1], r->xml ? EV_XML_TARGET : EV_TARGET);
		uint8_t rec[16];
		put64(rec, r->hash[1]);
		put64(rec + 8, r->hash[0]);
		extsort_add(lm->by_src, rec);
		lm->link_rows++;
	}
	bt->t->line = line;
	bt->n = 0;
	bt->raw_len = 0;
}

static struct batch *
next_batch(struct linkmat *lm, struct tsv *t, bool pages)
{
	struct batch *bt = wa_pool_next(&lm->pool);
	bt->t = t;
	bt->pages = pages;
	return bt;
}

static void
read_input(struct linkmat *lm, const char *path, bool pages)
{
	struct tsv *t = pages ? pages_open(path) : links_open(path, 0);
	struct batch *bt = next_batch(lm, t, pages);
	while (tsv_next(t)) {
		struct row *r = &bt->rows[bt->n++];
		r->line = t->line;
		if (pages) {
			r->raw[0] = batch_raw(bt, t, PAGES_URL);
			r->raw[1] = batch_raw(bt, t, PAGES_TYPE);
			r->type = (int8_t)pages_type(t->col[PAGES_TYPE]);
		} else {
			struct link_row link;
			links_row(t, &link);
			r->raw[0] = batch_raw(bt, t, LINKS_SRC);
			r->raw[1] = batch_raw(bt, t, LINKS_DST);
			r->xml = link.xml_target;
			r->hint = link.hint;
		}
		if (bt->n == BATCH_ROWS) {
			wa_pool_submit(&lm->pool);
			bt = next_batch(lm, t, pages);
		}
	}
	if (bt->n)
		wa_pool_submit(&lm->pool);
	wa_pool_drain(&lm->pool);
	lm->rejected += t->rejected;
	tsv_close(t);
}

/* The filter's slots, zeroed.  Its accesses are random: on pages of 4K
 * each would miss the TLB too, hence huge pages where the system has them. */
static uint64_t *
seen_alloc(struct linkmat *lm, size_t entries)
{
	lm->seen_bytes = entries * sizeof *lm->seen;
	void *p = mmap(NULL, lm->seen_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
	    -1, 0);
	if (p == MAP_FAILED)
		wa_die_errno("cannot allocate %zu bytes", lm->seen_bytes);
	madvise(p, lm->seen_bytes, MADV_HUGEPAGE);
	return p;
}

/* The filter's bytes: its share, but no more than the text of the input
 * when that is known.  A URL takes 8 bytes of the filter and more of the
 * text, and every page of the filter that a URL touches is zeroed by the
 * system, which a small crawl's graph would otherwise spend its time on. */
static uint64_t
seen_share(const struct linkmat *lm, char **files, int nfiles)
{
	uint64_t text = lm->pages_path ? tsv_text_bytes(lm->pages_path) : 0;
	if (nfiles == 0)
		text = UINT64_MAX;
	for (int i = 0; i < nfiles && text != UINT64_MAX; i++) {
		uint64_t bytes = tsv_text_bytes(files[i]);
		text = bytes == UINT64_MAX ? UINT64_MAX : text + bytes;
	}
	return text < SHARE(lm, 1, 8) ? text : SHARE(lm, 1, 8);
}

void
linkmat_read(struct linkmat *lm, char **files, int nfiles)
{
	lm->by_src = extsort_new("links by source", workdir_path(), 16, SHARE(lm, 1, 2),
	    big_sort(lm, EXTSORT_UNIQUE));
	uint64_t group_bytes = (1u << FACT_BITS) * SEEN_WAYS * sizeof *lm->seen;
	uint64_t share = seen_share(lm, files, nfiles);
	lm->seen_groups = share / group_bytes ? share / group_bytes : 1;
	lm->seen = seen_alloc(lm, lm->seen_groups * (1u << FACT_BITS) * SEEN_WAYS);
	/* sort(1) on one thread: the tool's own threads keep the processors
	 * busy while it reads, and a second thread costs sort a sixth more
	 * processor time. */
	sorter_start(&lm->nodes, "node lines", SHARE(lm, 1, 4), 1, workdir_path(),
	    true, -1);

	/* With one thread the main thread canonicalises itself. */
	/* Two batches a thread: their memory counts in -m. */
	wa_pool_start(&lm->pool, lm->nthreads > 1 ? lm->nthreads : 0, 2, sizeof(struct batch),
	    canon_batch, emit_batch, lm);
	progress_start(&lm->pg, "rows", 0);
	if (lm->pages_path)
		read_input(lm, lm->pages_path, true);
	if (nfiles == 0)
		read_input(lm, NULL, false);
	for (int i = 0; i < nfiles; i++)
		read_input(lm, files[i], false);
	progress_end(&lm->pg);
	wa_pool_stop(&lm->pool, batch_free);
	munmap(lm->seen, lm->seen_bytes);
	lm->seen = NULL;
	sorter_close_input(&lm->nodes);
	extsort_finish(lm->by_src);
	verbose("read %" PRIu64 " rows: %" PRIu64 " links, %" PRIu64 " hints, %" PRIu64
	    " self links, %" PRIu64 " rejected", lm->rows, lm->link_rows, lm->hint_rows,
	    lm->self_links, lm->rejected);
	verbose("  node lines: %" PRIu64 ", the others' facts were recent (%zu MB)",
	    lm->node_lines, lm->seen_bytes >> 20);
	sort_done("links by source", lm->by_src);
	phase_done(lm, "reading");
}
