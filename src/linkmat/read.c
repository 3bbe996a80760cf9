/* Reading the links and pages: the links as pairs of hashes and the node
 * lines (linkmat.h).
 *
 * The main thread reads blocks of whole lines; the pool's threads split
 * them into rows and canonicalise their URLs (libcurl, most of the work),
 * and the main thread takes the results back in input order, so that
 * nothing depends on -j, and reports the rows refused in the order of
 * their lines. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linkmat.h"
#include "linkstream.h"
#include "wa.h"
#include "workdir.h"

#define BATCH_BYTES (256u << 10)
#define SEEN_AHEAD 16
#define SEEN_WAYS 8	/* a bucket is a cache line */
#define IN_RAW (UINT32_C(1) << 31)	/* batches are far smaller */

struct row {
	uint32_t line;		/* in the batch, from 0 */
	uint32_t raw[2];	/* the fields, in the batch's raw bytes */
	uint32_t raw_len[2];
	/* The canonical URLs: in the batch's canon bytes, or with IN_RAW
	 * the field itself, which most URLs are. */
	uint32_t canon[2];
	uint64_t hash[2];
	const char *why;	/* why the URL in column bad + 1 is refused */
	uint32_t line_why;	/* why the line is unusable, in whys; 0: it is not */
	uint8_t bad;
	int8_t type;		/* pages: the type, -1 if unknown */
	bool xml;		/* links: the how column ends in +xml */
	bool hint;		/* links: from a sitemap or robots.txt, no edge */
	bool self;		/* links: to its own source */
};

struct batch {
	struct linkmat *lm;
	struct tsv *t;
	bool pages, long_line;
	char *raw;		/* the lines, split in place */
	size_t raw_len, raw_cap;
	struct row *rows;
	size_t n, rows_cap;
	uint32_t lines;
	struct tsv_row fields;
	char *whys;		/* the reasons of the lines refused, after a byte */
	size_t whys_len, whys_cap;
	char *canon;
	size_t canon_len, canon_cap;
	char *lines_out;	/* node lines for GNU sort */
	size_t out_len, out_cap;
	uint64_t node_lines;
};

/* What a node line tells number.c of its URL, beyond the line of another
 * evidence: a line whose facts the URL's recent lines already gave adds
 * nothing and is not written.  The filter keeps no types: page lines
 * always go.  That a page was fetched matters only to an update, which
 * replaces its old links: without one, a link's target and its source
 * tell the same. */
enum { FACT_NODE = 1, FACT_FETCHED = 2, FACT_XML_LINK = 4, FACT_TYPE = 8, FACT_BITS = 8 };

static unsigned
evidence_facts(const struct linkmat *lm, char ev)
{
	unsigned fetched = lm->old_path ? FACT_FETCHED : 0;
	switch (ev) {
	case EV_TARGET:
		return FACT_NODE;
	case EV_XML_TARGET:
		return FACT_NODE | FACT_XML_LINK;
	case EV_SOURCE:
		return FACT_NODE | fetched;
	default:
		return FACT_NODE | fetched | FACT_TYPE;
	}
}

/* The filter is a table of buckets of SEEN_WAYS slots, the most recent
 * URL first.  A slot holds the high bits of the hash, with the facts in
 * the low byte; the bucket is chosen by that byte and by the high bits,
 * in seen_groups buckets for each value of the byte, so that a slot
 * matches only the whole hash, and the table takes the whole of its
 * share, whatever its size.  The high bits give a bucket by a 128-bit
 * product (Lemire, "Fast Random Integer Generation in an Interval",
 * 2019), not a 64-bit one, with which GCC 12 drops the prefetch.
 *
 * The pool's threads share the filter without a lock: a slot is read and
 * written whole, and a thread that records facts writes their line
 * itself.  A race can only lose a slot or miss a recent one, and so send
 * a line that was not needed, never keep one back. */
static inline uint64_t *
seen_bucket(const struct linkmat *lm, uint64_t h)
{
	uint64_t b = (h & ((1u << FACT_BITS) - 1)) * lm->seen_groups +
	    (uint64_t)(((unsigned __int128)h * lm->seen_groups) >> 64);
	return &lm->seen[b * SEEN_WAYS];
}

static inline uint64_t
slot_get(const uint64_t *slot)
{
	return __atomic_load_n(slot, __ATOMIC_RELAXED);
}

static inline void
slot_set(uint64_t *slot, uint64_t v)
{
	__atomic_store_n(slot, v, __ATOMIC_RELAXED);
}

/* The node line of a URL, to the batch, unless the filter says that its
 * recent lines gave its facts. */
static void
emit_node(struct batch *bt, const char *url, uint64_t h, char ev)
{
	uint64_t *way = seen_bucket(bt->lm, h), tag = h >> FACT_BITS << FACT_BITS, slot = 0;
	size_t w = 0;
	for (; w < SEEN_WAYS; w++) {
		slot = slot_get(&way[w]);
		if (slot >> FACT_BITS == h >> FACT_BITS || w == SEEN_WAYS - 1)
			break;
	}
	unsigned facts = evidence_facts(bt->lm, ev), had = slot >> FACT_BITS == h >> FACT_BITS ?
	    (unsigned)(slot & ((1u << FACT_BITS) - 1)) : 0;
	if ((facts & ~had) == 0)
		return;
	for (; w > 0; w--)
		slot_set(&way[w], slot_get(&way[w - 1]));
	slot_set(&way[0], tag | had | (facts & ~FACT_TYPE));
	if (bt->out_len + URL_BUFSIZE + 4 > bt->out_cap) {
		bt->out_cap = 2 * (bt->out_len + URL_BUFSIZE + 4);
		bt->lines_out = wa_realloc(bt->lines_out, bt->out_cap);
	}
	char *line = bt->lines_out + bt->out_len;
	if (!url_surt(url, line))
		wa_die("internal error: no SURT key for %s", url);
	size_t n = strlen(line);
	line[n++] = '\t';
	line[n++] = url[4] == 's' ? NODE_HTTPS : NODE_HTTP;
	line[n++] = ev;
	line[n++] = '\n';
	bt->out_len += n;
	bt->node_lines++;
}

static inline void
seen_prefetch(const struct linkmat *lm, uint64_t h)
{
	__builtin_prefetch(seen_bucket(lm, h), 1);
}

static const char *
canonical_url(const struct batch *bt, const struct row *r, size_t c)
{
	return r->canon[c] & IN_RAW ? bt->raw + (r->canon[c] & ~IN_RAW) : bt->canon + r->canon[c];
}

/* The node lines of the canonical rows of a batch. */
static void
node_lines_of_batch(struct batch *bt)
{
	bt->out_len = 0;
	bt->node_lines = 0;
	for (size_t i = 0; i < bt->n; i++) {
		struct row *r = &bt->rows[i];
		/* The filter is larger than the caches: its slots are fetched
		 * some rows ahead, so that the misses overlap. */
		if (i + SEEN_AHEAD < bt->n && !r[SEEN_AHEAD].why && !r[SEEN_AHEAD].line_why) {
			seen_prefetch(bt->lm, r[SEEN_AHEAD].hash[0]);
			if (!bt->pages)
				seen_prefetch(bt->lm, r[SEEN_AHEAD].hash[1]);
		}
		if (r->why || r->line_why)
			continue;
		const char *src = canonical_url(bt, r, 0);
		if (bt->pages) {
			if (r->type >= 0)
				emit_node(bt, src, r->hash[0], (char)(EV_PAGE + r->type));
			continue;
		}
		const char *dst = canonical_url(bt, r, 1);
		char ev = r->xml ? EV_XML_TARGET : EV_TARGET;
		if (r->hint) {
			emit_node(bt, dst, r->hash[1], ev);
			continue;
		}
		emit_node(bt, src, r->hash[0], EV_SOURCE);
		r->self = r->hash[0] == r->hash[1] && strcmp(src, dst) == 0;
		if (!r->self)
			emit_node(bt, dst, r->hash[1], ev);
	}
}

static void
refuse_line(struct batch *bt, struct row *r, const char *why)
{
	size_t n = strlen(why) + 1;
	if (bt->whys_len + n > bt->whys_cap) {
		bt->whys_cap = 2 * (bt->whys_len + n);
		bt->whys = wa_realloc(bt->whys, bt->whys_cap);
	}
	memcpy(bt->whys + bt->whys_len, why, n);
	r->line_why = (uint32_t)bt->whys_len;
	bt->whys_len += n;
}

/* The lines of the batch into rows. */
static void
split_batch(struct batch *bt)
{
	bt->n = 0;
	bt->lines = 0;
	bt->whys_len = 1;	/* offset 0 is no reason */
	char why[TSV_WHY_SIZE];
	for (char *s = bt->raw, *end = bt->raw + bt->raw_len; s < end || bt->long_line;) {
		if (bt->n == bt->rows_cap) {
			bt->rows_cap = bt->rows_cap ? 2 * bt->rows_cap : 1024;
			bt->rows = wa_reallocarray(bt->rows, bt->rows_cap, sizeof *bt->rows);
		}
		struct row *r = &bt->rows[bt->n++];
		*r = (struct row){ .line = bt->lines++ };
		if (bt->long_line) {
			refuse_line(bt, r, tsv_split(bt->t, NULL, SIZE_MAX, &bt->fields, why));
			break;
		}
		char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t len = nl ? (size_t)(nl - s) : (size_t)(end - s);
		const char *bad = tsv_split(bt->t, s, len, &bt->fields, why);
		char **col = bt->fields.col;
		s += len + 1;
		if (bad) {
			refuse_line(bt, r, bad);
			continue;
		}
		for (size_t c = 0; c < 2; c++) {
			r->raw[c] = (uint32_t)(col[c] - bt->raw);
			r->raw_len[c] = (uint32_t)bt->fields.len[c];
		}
		if (bt->pages) {
			r->type = (int8_t)pages_type(col[PAGES_TYPE]);
		} else {
			struct link_row link;
			links_row(col, bt->fields.ncol, &link);
			r->xml = link.xml_target;
			r->hint = link.hint;
		}
	}
}

/* The work of the pool's threads. */
static void
canon_batch(void *job)
{
	struct batch *bt = job;
	split_batch(bt);
	bt->canon_len = 0;
	size_t cols = bt->pages ? 1 : 2;
	for (size_t i = 0; i < bt->n; i++) {
		struct row *r = &bt->rows[i];
		r->why = NULL;
		if (r->line_why)
			continue;
		for (size_t c = 0; c < cols; c++) {
			const char *raw = bt->raw + r->raw[c];
			size_t n = r->raw_len[c];
			/* Links come grouped by source: one canonicalisation a page. */
			if (c == 0 && i > 0 && !r[-1].why && !r[-1].line_why &&
			    n == r[-1].raw_len[0] && memcmp(raw, bt->raw + r[-1].raw[0], n) == 0) {
				r->canon[0] = r[-1].canon[0];
				r->hash[0] = r[-1].hash[0];
				continue;
			}
			if (url_is_canonical(raw, n)) {
				r->canon[c] = r->raw[c] | IN_RAW;
				r->hash[c] = url_hash(raw, n);
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
			n = strlen(url);
			r->canon[c] = (uint32_t)bt->canon_len;
			r->hash[c] = url_hash(url, n);
			bt->canon_len += n + 1;
		}
	}
	node_lines_of_batch(bt);
}

static void
batch_free(void *job)
{
	struct batch *bt = job;
	free(bt->raw);
	free(bt->rows);
	tsv_row_free(&bt->fields);
	free(bt->whys);
	free(bt->canon);
	free(bt->lines_out);
}

/* The rows of a batch, in input order: the messages of the rows refused,
 * the links to their file; the node lines to GNU sort.  Run by the pool on
 * the main thread. */
static void
emit_batch(void *arg, void *job)
{
	struct linkmat *lm = arg;
	struct batch *bt = job;
	struct tsv *t = bt->t;
	/* The messages name each row's own line. */
	uint64_t first = t->line + 1;
	for (size_t i = 0; i < bt->n; i++) {
		const struct row *r = &bt->rows[i];
		t->line = first + r->line;
		if (r->line_why) {
			tsv_reject(t, "%s", bt->whys + r->line_why);
			continue;
		}
		t->rows++;
		lm->rows++;
		if (r->why) {
			if (bt->pages)
				pages_reject_url(bt->t, r->why, bt->raw + r->raw[0]);
			else
				links_reject_url(bt->t, r->bad, r->why, bt->raw + r->raw[r->bad]);
		} else if (bt->pages) {
			if (r->type < 0)
				pages_reject_type(bt->t, bt->raw + r->raw[1]);
		} else if (r->hint) {
			lm->hint_rows++;
		} else if (r->self) {
			lm->self_links++;
		} else {
			pairs_add(&lm->pairs, r->hash[1], r->hash[0]);
			lm->link_rows++;
		}
	}
	t->line = first - 1 + bt->lines;
	progress_set(&lm->pg, lm->rows);
	/* A write error shows when the input of the sort is closed. */
	fwrite_unlocked(bt->lines_out, 1, bt->out_len, lm->nodes.in);
	lm->node_lines += bt->node_lines;
}

static void
read_input(struct linkmat *lm, const char *path, bool pages)
{
	struct tsv *t = pages ? pages_open(path) : links_open(path, 0);
	struct tsv_block b;
	/* The lines are counted as their batches come back. */
	while (tsv_next_block(t, BATCH_BYTES, &b)) {
		struct batch *bt = wa_pool_next(&lm->pool);
		bt->lm = lm;
		bt->t = t;
		bt->pages = pages;
		bt->long_line = b.long_line;
		/* A byte more: tsv_split ends a last line without \n there. */
		if (b.len + 1 > bt->raw_cap) {
			bt->raw_cap = b.len + 1 > 2 * bt->raw_cap ? b.len + 1 : 2 * bt->raw_cap;
			free(bt->raw);
			bt->raw = wa_malloc(bt->raw_cap);
		}
		if (b.len)
			memcpy(bt->raw, b.text, b.len);
		bt->raw_len = b.len;
		wa_pool_submit(&lm->pool, 0);
	}
	wa_pool_drain(&lm->pool);
	lm->rejected += t->rejected;
	tsv_close(t);
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
	pairs_open(&lm->pairs, SHARE(lm, 1, 4));
	uint64_t group_bytes = (1u << FACT_BITS) * SEEN_WAYS * sizeof *lm->seen;
	uint64_t share = seen_share(lm, files, nfiles);
	lm->seen_groups = share / group_bytes ? share / group_bytes : 1;
	lm->seen_bytes = lm->seen_groups * (1u << FACT_BITS) * SEEN_WAYS * sizeof *lm->seen;
	lm->seen = random_access_alloc(lm->seen_bytes);
	/* sort(1) on two threads: while the tool reads, they cost sort a
	 * sixth more processor time, but the lines that fit its memory are
	 * sorted only once the input ends, while the tool waits. */
	sorter_start(&lm->nodes, "node lines", SHARE(lm, 3, 8), 2, workdir_path(),
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
	random_access_free(lm->seen, lm->seen_bytes);
	lm->seen = NULL;
	sorter_close_input(&lm->nodes);
	verbose("read %" PRIu64 " rows: %" PRIu64 " links, %" PRIu64 " hints, %" PRIu64
	    " self links, %" PRIu64 " rejected", lm->rows, lm->link_rows, lm->hint_rows,
	    lm->self_links, lm->rejected);
	verbose("  node lines: %" PRIu64 ", the others' facts were recent (%zu MB)",
	    lm->node_lines, lm->seen_bytes >> 20);
	verbose("  links: %" PRIu64 " records, %" PRIu64 " MB spilled", lm->pairs.count,
	    lm->pairs.in_file * PAIR_BYTES >> 20);
	phase_done(lm, "reading");
}
