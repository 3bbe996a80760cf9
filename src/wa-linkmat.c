/* wa-linkmat: builds the graph directory (graph.h) from links TSV, in
 * memory bounded by -m whatever the size of the input.
 *
 * URLs never stay in memory.  Each is known by a 64-bit hash while the
 * links are sorted, and by its id once the nodes are numbered:
 *
 *   read      links -> (hash src, hash dst) records, sorted externally;
 *             every URL -> a "SURT<TAB>URL<TAB>evidence" line for GNU sort
 *   number    the sorted lines give the ids in order, the types, and the
 *             (hash, id) map; "URL<TAB>id" lines go to a second GNU sort
 *   url table that sort gives urls and urlid, and urloff after a sort by id
 *   join 1    links by source hash, merged with the map: (dst hash, src id)
 *   join 2    those by destination hash, merged with the map again: (slice
 *             of dst, external or internal, then src and dst or dst and
 *             src), sorted; the out- and in-degrees fall out of the merges
 *   slices    the last sort, in that order, is encoded slice by slice
 *
 * Two URLs with the same hash would share an id: the map is in hash order,
 * so such a collision shows as two neighbours and stops the build.
 *
 * With -u the old graph's nodes are merged in id order with the new lines
 * (their order is the same), and its links are read from its slices: those
 * of pages fetched this cycle are dropped, the others renumbered and added
 * to the last sort.  The new graph is built in a hidden directory beside
 * GRAPH, which also holds the scratch files, and moved into place at the
 * end. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "extsort.h"
#include "graph.h"
#include "sorter.h"
#include "thread.h"
#include "url.h"
#include "wa.h"
#include "workdir.h"

static const char usage[] =
    "usage: wa-linkmat [-qv] [-p PAGES] [-m SIZE] [-s SLICES] [-u OLDGRAPH] [-j N]\n"
    "                  -o GRAPH [LINKS...]\n"
    "       wa-linkmat [-m SIZE] --dump GRAPH | --dump-nodes GRAPH\n"
    "Builds the graph directory GRAPH from links TSV (src, dst[, how]) read from\n"
    "the LINKS files or stdin, plain or gzip: the URL table with ids in SURT\n"
    "order, the degrees, the page types, and the link matrix cut into slices\n"
    "by destination.  Duplicate links count once; self links are dropped.\n"
    "  -o GRAPH     the graph directory; an old one is replaced atomically\n"
    "  -p PAGES     pages TSV (url, type): nodes, and the types of fetched pages\n"
    "  -u OLDGRAPH  update: the sources in LINKS and the URLs in PAGES get the\n"
    "               links of LINKS, the other pages keep those of OLDGRAPH\n"
    "  -m SIZE      memory budget (default 1G, at least 64K)\n"
    "  -s SLICES    slices of the matrix (default: 64, of at most 2^20 pages,\n"
    "               fewer pages if wa-pagerank -m SIZE needs)\n"
    "  -j N         threads (default: the processors, at most 8)\n"
    "  -q           no progress and no summary;  -v  details of each phase\n"
    "  --dump GRAPH        the links of GRAPH as src<TAB>dst, sorted\n"
    "  --dump-nodes GRAPH  url, type, outdeg, indeg and id of every node\n"
    "  -h           this help;  --version  the version\n"
    "See wa-linkmat(1).\n";

enum { OPT_DUMP = WA_OPT_FIRST_TOOL, OPT_DUMP_NODES };

#define MIN_BUDGET (64u << 10)
#define MAX_SLICES 1000000
#define IO_BLOCK (1u << 20)

/* Options. */
static uint64_t budget = UINT64_C(1) << 30;
/* What the sorts share: the budget less the fixed buffers (reading,
 * writing, threads, libraries), about 10 MB. */
#define FIXED_RESERVE (16u << 20)
static uint64_t shared_budget;
static uint32_t want_slices;
static unsigned nthreads;
static const char *pages_path, *old_path;

static struct progress pg;
static double phase_started;

static void __attribute__((format(printf, 1, 2)))
verbose(const char *fmt, ...)
{
	va_list ap;
	if (!wa_verbose || wa_quiet)
		return;
	va_start(ap, fmt);
	wa_vwarn(fmt, ap);
	va_end(ap);
}

static void
phase_done(const char *what)
{
	double now = monotonic_seconds();
	verbose("%s: %.2f s", what, now - phase_started);
	phase_started = now;
}

static void
sort_done(const char *what, const struct extsort *s)
{
	const struct extsort_stats *st = extsort_stats(s);
	if (st->runs)
		verbose("  %s: %" PRIu64 " records, %" PRIu64 " runs, %" PRIu64
		    " MB spilled, %u merge passes", what, st->added, st->runs,
		    st->spilled_bytes >> 20, st->passes + 1);
	else
		verbose("  %s: %" PRIu64 " records, in memory", what, st->added);
}

/* Records of the sorts, as little-endian integers whose most significant
 * (last) bytes are the key. */
static inline void
put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static inline void
put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static inline uint32_t
get32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

static inline uint64_t
get64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

/* The hash that stands for a URL until it has an id: graph_mix over the
 * URL's 8-byte words, chained, the length as the seed. */
static uint64_t
url_hash(const char *s, size_t n)
{
	uint64_t h = graph_mix(n), w;
	for (; n >= 8; s += 8, n -= 8) {
		memcpy(&w, s, 8);
		h = graph_mix(h ^ w);
	}
	w = 0;
	memcpy(&w, s, n);
	return graph_mix(h ^ w);
}

/* Buffered writing of a binary file of the graph. */
struct bout {
	struct bin_writer *w;
	uint8_t *buf;
	size_t n;
	uint64_t bytes;
};

static void
bout_open(struct bout *o, const char *name, const char *kind)
{
	char *path = workdir_file(name);
	o->w = bin_create(path, kind, GRAPH_VERSION);
	free(path);
	o->buf = wa_malloc(IO_BLOCK);
	o->n = 0;
	o->bytes = 0;
}

static void
bout_put(struct bout *o, const void *p, size_t n)
{
	if (n == 0)
		return;
	o->bytes += n;
	if (o->n + n > IO_BLOCK) {
		bin_write(o->w, o->buf, o->n);
		o->n = 0;
		if (n > IO_BLOCK) {
			bin_write(o->w, p, n);
			return;
		}
	}
	memcpy(o->buf + o->n, p, n);
	o->n += n;
}

static void
bout_commit(struct bout *o, uint64_t count, const uint64_t aux[3])
{
	bin_write(o->w, o->buf, o->n);
	bin_commit(o->w, count, aux);
	free(o->buf);
	o->buf = NULL;
}

/* Sequential reading of a binary file of the old graph, in large pieces;
 * bin_read checks the payload CRC with the last piece. */
struct bin_in {
	struct bin_reader r;
	uint8_t *buf;
	size_t have, at;
	uint64_t consumed;	/* payload bytes handed out */
};

static void
bin_in_open(struct bin_in *s, const char *path, const char *kind, size_t rec)
{
	const char *msg = bin_reader_open(&s->r, path, kind, GRAPH_VERSION, rec);
	if (msg)
		wa_die("%s", msg);
	s->buf = wa_malloc(IO_BLOCK);
	s->have = s->at = 0;
	s->consumed = 0;
}

/* Keeps the unread bytes and reads more after them; false at the end. */
static bool
bin_in_fill(struct bin_in *s)
{
	if (s->r.left == 0)
		return false;
	memmove(s->buf, s->buf + s->at, s->have - s->at);
	s->have -= s->at;
	s->at = 0;
	size_t got;
	const char *msg = bin_read(&s->r, s->buf + s->have, IO_BLOCK - s->have, &got);
	if (msg)
		wa_die("%s", msg);
	s->have += got;
	return true;
}

static void
bin_in_read(struct bin_in *s, void *out, size_t n)
{
	while (s->have - s->at < n)
		if (!bin_in_fill(s))
			wa_die("%s: the payload ends early", s->r.path);
	memcpy(out, s->buf + s->at, n);
	s->at += n;
	s->consumed += n;
}

static void
bin_in_close(struct bin_in *s)
{
	if (s->r.left != 0)
		wa_die("internal error: %s closed before its end", s->r.path);
	bin_reader_close(&s->r);
	free(s->buf);
	s->buf = NULL;
}

/* A file of u32 records in the scratch space, written in order and read
 * through a small window: the new id of every old id in update mode. */
struct u32file {
	int fd;
	uint32_t *buf;
	size_t n;		/* buffered for writing */
	uint64_t count;
	uint64_t win_lo, win_n;	/* ids in the read window */
};

#define U32FILE_WINDOW 16384

static void
u32file_open(struct u32file *f)
{
	char *path = workdir_file(".oldmap.XXXXXX");
	f->fd = mkostemp(path, O_CLOEXEC);
	if (f->fd < 0)
		wa_die_errno("%s", path);
	unlink(path);
	free(path);
	f->buf = wa_calloc(U32FILE_WINDOW, sizeof *f->buf);
	f->n = 0;
	f->count = 0;
	f->win_lo = f->win_n = 0;
}

static void
u32file_pwrite(const struct u32file *f, const void *p, size_t bytes, uint64_t off)
{
	for (size_t done = 0; done < bytes;) {
		ssize_t k = pwrite(f->fd, (const char *)p + done, bytes - done,
		    (off_t)(off + done));
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			wa_die_errno("%s: cannot write to the scratch space", workdir_path());
		done += (size_t)k;
	}
}

static void
u32file_flush(struct u32file *f)
{
	u32file_pwrite(f, f->buf, f->n * 4, (f->count - f->n) * 4);
	f->n = 0;
}

static void
u32file_append(struct u32file *f, uint32_t v)
{
	f->buf[f->n++] = v;
	f->count++;
	if (f->n == U32FILE_WINDOW)
		u32file_flush(f);
}

/* Reads ids [lo, lo + n) into out. */
static void
u32file_read(const struct u32file *f, uint64_t lo, uint64_t n, uint32_t *out)
{
	size_t bytes = n * 4;
	for (size_t done = 0; done < bytes;) {
		ssize_t k = pread(f->fd, (char *)out + done, bytes - done,
		    (off_t)(lo * 4 + done));
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			wa_die_errno("%s: cannot read back the scratch space", workdir_path());
		done += (size_t)k;
	}
}

static uint32_t
u32file_get(struct u32file *f, uint64_t i)
{
	if (i < f->win_lo || i >= f->win_lo + f->win_n) {
		f->win_lo = i;
		f->win_n = f->count - i < U32FILE_WINDOW ? f->count - i : U32FILE_WINDOW;
		u32file_read(f, i, f->win_n, f->buf);
	}
	return f->buf[i - f->win_lo];
}

static void
u32file_close(struct u32file *f)
{
	close(f->fd);
	free(f->buf);
}

/* What the input says of a URL, gathered from its lines: a letter each
 * (the evidence column of the node lines). */
enum {
	EV_TARGET = 't',	/* a link points to it */
	EV_XML_TARGET = 'x',	/* a link marked +xml points to it */
	EV_SOURCE = 's',	/* a link is on it: it was fetched */
	EV_PAGE = '0',		/* '0' + type: a row of the pages stream */
};

struct evidence {
	int type;		/* from the pages stream, -1 if none */
	bool fetched, xml_link;
};

/* When pages rows disagree on a URL's type, a parsed type wins over a
 * failed parse, and XML over the others (higher is preferred). */
static const int type_rank[PAGE_TYPES] = {
	[PAGE_UNKNOWN] = 0, [PAGE_ERROR] = 1, [PAGE_DEAD] = 2, [PAGE_OTHER] = 3,
	[PAGE_HTML] = 4, [PAGE_NOINDEX] = 5, [PAGE_DTD] = 6, [PAGE_XML] = 7,
	[PAGE_SITEMAP] = 8, [PAGE_ROBOTS] = 9,
};

static void
evidence_add(struct evidence *ev, char c)
{
	if (c >= EV_PAGE && c < EV_PAGE + PAGE_TYPES && c != EV_PAGE + PAGE_XML_SUSPECT) {
		int t = c - EV_PAGE;
		if (ev->type < 0 || type_rank[t] > type_rank[ev->type])
			ev->type = t;
		ev->fetched = true;
	} else if (c == EV_SOURCE) {
		ev->fetched = true;
	} else if (c == EV_XML_TARGET) {
		ev->xml_link = true;
	} else if (c != EV_TARGET) {
		wa_die("internal error: evidence '%c'", c);
	}
}

/* The type of a node: the pages stream's, else the old graph's for a page
 * fetched before (old_type -1 for a new node), else an XML suspect or
 * unknown.  A suspect stays one. */
static int
node_type(const struct evidence *ev, int old_type, const char *url)
{
	bool known = old_type > PAGE_UNKNOWN && old_type != PAGE_XML_SUSPECT;
	/* An error is a failed read, most often passing: it hides no type
	 * known before. */
	if (ev && ev->type >= 0 && !(ev->type == PAGE_ERROR && known))
		return ev->type;
	if (known)
		return old_type;
	if (old_type == PAGE_XML_SUSPECT || (ev && ev->xml_link) || page_xml_suspect(url, false))
		return PAGE_XML_SUSPECT;
	return PAGE_UNKNOWN;
}

/* The state of a build. */
struct build {
	const char *graph;
	/* read */
	struct extsort *by_src;		/* (dst hash, src hash) */
	struct sorter nodes;		/* SURT<TAB>URL<TAB>evidence */
	uint64_t *seen;			/* lines recently given to sort */
	size_t seen_mask;
	uint64_t rows, self_links, rejected, link_rows, hint_rows;
	char surt[URL_BUFSIZE];
	/* number */
	uint64_t n;			/* nodes */
	struct extsort *map;		/* (id, hash) */
	struct sorter urls;		/* URL<TAB>id of the new nodes */
	struct bout types;
	/* old graph */
	struct graph old;
	struct u32file oldmap;		/* new id of each old id */
	uint64_t *fetched;		/* bit per old id: its links are replaced */
	struct extsort *oldurl;		/* (new id, offset in the old urls) */
	uint64_t old_kept, old_dropped;
	/* join */
	struct extsort *by_dst;		/* (src id, dst hash) */
	struct extsort *matrix;		/* (dst, src, slice) */
	struct extsort *outdeg, *indeg;	/* (count, id) */
	uint64_t new_links;
	/* slices */
	uint32_t slices;
	uint64_t *bound;
	uint64_t links;
	uint64_t out_mix, in_mix;	/* graph_mix checksums of the matrix */
	uint64_t matrix_bytes;
};

/* Budget shares (wa-linkmat(1), "Memory and scratch space"), so that no
 * phase adds up to more than the budget.  Reading: the link sort 1/2, GNU
 * sort 1/4, the recent-lines filter 1/16.  The link sort then holds up to
 * 1/2, in memory or in read buffers, until the first join.  Numbering,
 * while GNU sort still writes: the map, the second GNU sort and the old
 * URLs 1/16 each, and the old graph's bitmap at most 1/8; then the URL
 * offsets 1/8.  First join: the next link sort 1/4, the out-degrees 1/16.
 * Second join and old links: the matrix sort 3/8, the in-degrees 1/16, the
 * renumbering window 1/8. */
#define SHARE(num, den) (shared_budget / (den) * (num))

/* Sorts of the links spill in the background when there are threads. */
static unsigned
big_sort(unsigned flags)
{
	return flags | (nthreads > 1 ? EXTSORT_BACKGROUND : 0);
}

static void
emit_node(struct build *b, const char *url, size_t len, uint64_t h, char ev)
{
	uint64_t key = h ^ ((uint64_t)(unsigned char)ev * 0x9e3779b97f4a7c15ULL);
	key += key == 0;
	uint64_t *slot = &b->seen[key & b->seen_mask];
	if (*slot == key)
		return;
	*slot = key;
	if (!url_surt(url, b->surt))
		wa_die("internal error: no SURT key for %s", url);
	FILE *f = b->nodes.in;
	fputs_unlocked(b->surt, f);
	putc_unlocked('\t', f);
	fwrite_unlocked(url, 1, len, f);
	putc_unlocked('\t', f);
	putc_unlocked(ev, f);
	putc_unlocked('\n', f);
}

/* Reading.  The canonicalisation of URLs (libcurl) is most of the work;
 * threads do it on batches of rows while the main thread parses the next
 * rows, and the main thread takes the results back in input order, so
 * that nothing depends on -j.  A row the TSV reader itself rejects (a
 * missing column) is reported at once, before the rows of pending batches:
 * the messages name their lines but may come out of order. */
#define BATCH_ROWS 4096

struct row {
	uint64_t line;
	uint32_t raw[2];	/* the fields, in the batch's raw bytes */
	uint32_t canon[2];	/* canonical URLs, in the batch's canon bytes */
	uint16_t len[2];
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
	enum { B_FREE, B_QUEUED, B_DONE } state;
};

static struct {
	pthread_mutex_t mu;
	pthread_cond_t work, done;
	struct batch *ring;
	size_t nring;
	uint64_t submitted, taken, emitted;
	bool stop;
	pthread_t *threads;
	unsigned nthreads;
} pool = { .mu = PTHREAD_MUTEX_INITIALIZER, .work = PTHREAD_COND_INITIALIZER,
	.done = PTHREAD_COND_INITIALIZER };

static uint32_t
batch_raw(struct batch *bt, const char *s)
{
	size_t n = strlen(s) + 1;
	if (bt->raw_len + n > bt->raw_cap) {
		bt->raw_cap = 2 * (bt->raw_len + n);
		bt->raw = wa_realloc(bt->raw, bt->raw_cap);
	}
	memcpy(bt->raw + bt->raw_len, s, n);
	uint32_t off = (uint32_t)bt->raw_len;
	bt->raw_len += n;
	return off;
}

static void
canon_batch(struct batch *bt)
{
	char url[URL_BUFSIZE];
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
				r->len[0] = r[-1].len[0];
				r->hash[0] = r[-1].hash[0];
				continue;
			}
			if (!url_canon(raw, url, &r->why)) {
				r->bad = (uint8_t)c;
				break;
			}
			size_t n = strlen(url);
			if (bt->canon_len + n + 1 > bt->canon_cap) {
				bt->canon_cap = 2 * (bt->canon_len + n + 1);
				bt->canon = wa_realloc(bt->canon, bt->canon_cap);
			}
			memcpy(bt->canon + bt->canon_len, url, n + 1);
			r->canon[c] = (uint32_t)bt->canon_len;
			r->len[c] = (uint16_t)n;
			r->hash[c] = url_hash(url, n);
			bt->canon_len += n + 1;
		}
	}
}

static void *
canon_worker(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&pool.mu);
	for (;;) {
		while (pool.taken == pool.submitted && !pool.stop)
			pthread_cond_wait(&pool.work, &pool.mu);
		if (pool.taken == pool.submitted)
			break;
		struct batch *bt = &pool.ring[pool.taken++ % pool.nring];
		pthread_mutex_unlock(&pool.mu);
		canon_batch(bt);
		pthread_mutex_lock(&pool.mu);
		bt->state = B_DONE;
		pthread_cond_broadcast(&pool.done);
	}
	pthread_mutex_unlock(&pool.mu);
	return NULL;
}

static void
pool_start(void)
{
	/* With one thread the main thread canonicalises itself. */
	pool.nthreads = nthreads > 1 ? nthreads : 0;
	pool.nring = pool.nthreads ? 2 * pool.nthreads + 2 : 1;
	pool.ring = wa_calloc(pool.nring, sizeof *pool.ring);
	pool.threads = wa_calloc(pool.nthreads ? pool.nthreads : 1, sizeof *pool.threads);
	for (unsigned i = 0; i < pool.nthreads; i++) {
		int rc = wa_thread_start(&pool.threads[i], canon_worker, NULL);
		if (rc) {
			errno = rc;
			wa_die_errno("cannot start a thread");
		}
	}
}

static void
pool_stop(void)
{
	pthread_mutex_lock(&pool.mu);
	pool.stop = true;
	pthread_cond_broadcast(&pool.work);
	pthread_mutex_unlock(&pool.mu);
	for (unsigned i = 0; i < pool.nthreads; i++)
		pthread_join(pool.threads[i], NULL);
	for (size_t i = 0; i < pool.nring; i++) {
		free(pool.ring[i].raw);
		free(pool.ring[i].canon);
	}
	free(pool.ring);
	free(pool.threads);
}

/* Rejects row r of a batch, naming its own line. */
static void __attribute__((format(printf, 3, 4)))
reject_row(struct batch *bt, const struct row *r, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	uint64_t line = bt->t->line;
	bt->t->line = r->line;
	tsv_reject(bt->t, "%s", msg);
	bt->t->line = line;
}

static void
emit_batch(struct build *b, struct batch *bt)
{
	for (size_t i = 0; i < bt->n; i++) {
		const struct row *r = &bt->rows[i];
		progress_set(&pg, ++b->rows);
		if (r->why) {
			reject_row(bt, r, "%s: %s: %.200s", bt->pages ? "URL" : r->bad ?
			    "destination" : "source", r->why, bt->raw + r->raw[r->bad]);
			continue;
		}
		const char *src = bt->canon + r->canon[0];
		if (bt->pages) {
			if (r->type < 0) {
				reject_row(bt, r, "unknown page type '%.40s' (html, xml, dtd, other,"
				    " error, dead, robots, sitemap, noindex or -)", bt->raw + r->raw[1]);
				continue;
			}
			emit_node(b, src, r->len[0], r->hash[0], (char)(EV_PAGE + r->type));
			continue;
		}
		const char *dst = bt->canon + r->canon[1];
		if (r->hint) {
			emit_node(b, dst, r->len[1], r->hash[1], r->xml ? EV_XML_TARGET : EV_TARGET);
			b->hint_rows++;
			continue;
		}
		emit_node(b, src, r->len[0], r->hash[0], EV_SOURCE);
		if (r->hash[0] == r->hash[1] && strcmp(src, dst) == 0) {
			b->self_links++;
			continue;
		}
		emit_node(b, dst, r->len[1], r->hash[1], r->xml ? EV_XML_TARGET : EV_TARGET);
		uint8_t rec[16];
		put64(rec, r->hash[1]);
		put64(rec + 8, r->hash[0]);
		extsort_add(b->by_src, rec);
		b->link_rows++;
	}
	bt->n = 0;
	bt->raw_len = 0;
}

/* Waits for the oldest batch in the ring and emits it. */
static void
pool_emit_oldest(struct build *b)
{
	struct batch *bt = &pool.ring[pool.emitted % pool.nring];
	pthread_mutex_lock(&pool.mu);
	while (bt->state != B_DONE)
		pthread_cond_wait(&pool.done, &pool.mu);
	pthread_mutex_unlock(&pool.mu);
	emit_batch(b, bt);
	bt->state = B_FREE;
	pool.emitted++;
}

static struct batch *
pool_batch(struct build *b, struct tsv *t, bool pages)
{
	struct batch *bt = &pool.ring[pool.submitted % pool.nring];
	if (bt->state != B_FREE)
		pool_emit_oldest(b);
	bt->t = t;
	bt->pages = pages;
	return bt;
}

static void
pool_submit(struct build *b, struct batch *bt)
{
	if (pool.nthreads == 0) {
		canon_batch(bt);
		emit_batch(b, bt);
		return;
	}
	pthread_mutex_lock(&pool.mu);
	bt->state = B_QUEUED;
	pool.submitted++;
	pthread_cond_signal(&pool.work);
	pthread_mutex_unlock(&pool.mu);
}

static void
pool_drain(struct build *b)
{
	while (pool.emitted < pool.submitted)
		pool_emit_oldest(b);
}

static bool
ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

static void
read_input(struct build *b, const char *path, bool pages)
{
	struct tsv *t = tsv_open(path, 2, 0, 0);
	tsv_check_url(t, 0);
	if (!pages)
		tsv_check_url(t, 1);
	struct batch *bt = pool_batch(b, t, pages);
	while (tsv_next(t)) {
		struct row *r = &bt->rows[bt->n++];
		r->line = t->line;
		r->raw[0] = batch_raw(bt, t->col[0]);
		r->raw[1] = batch_raw(bt, t->col[1]);
		if (pages) {
			r->type = (int8_t)page_type_parse(t->col[1]);
			if (r->type == PAGE_XML_SUSPECT)
				r->type = -1;
		} else {
			r->xml = t->ncol > 2 && ends_with(t->col[2], "+xml");
			r->hint = t->ncol > 2 && strncmp(t->col[2], "sitemap", 7) == 0;
		}
		if (bt->n == BATCH_ROWS) {
			pool_submit(b, bt);
			bt = pool_batch(b, t, pages);
		}
	}
	if (bt->n)
		pool_submit(b, bt);
	pool_drain(b);
	b->rejected += t->rejected;
	tsv_close(t);
}

static void
read_all(struct build *b, char **files, int nfiles)
{
	b->by_src = extsort_new("links by source", workdir_path(), 16, SHARE(1, 2),
	    big_sort(EXTSORT_UNIQUE));
	size_t entries = 1024;
	while (entries * 2 * sizeof *b->seen <= SHARE(1, 16))
		entries *= 2;
	b->seen = wa_calloc(entries, sizeof *b->seen);
	b->seen_mask = entries - 1;
	sorter_start(&b->nodes, "node lines", SHARE(1, 4), nthreads, workdir_path(), true, -1);

	pool_start();
	progress_start(&pg, "rows", 0);
	if (pages_path)
		read_input(b, pages_path, true);
	if (nfiles == 0)
		read_input(b, NULL, false);
	for (int i = 0; i < nfiles; i++)
		read_input(b, files[i], false);
	progress_end(&pg);
	pool_stop();
	free(b->seen);
	b->seen = NULL;
	sorter_close_input(&b->nodes);
	extsort_finish(b->by_src);
	verbose("read %" PRIu64 " rows: %" PRIu64 " links, %" PRIu64 " hints, %" PRIu64
	    " self links, %" PRIu64 " rejected", b->rows, b->link_rows, b->hint_rows,
	    b->self_links, b->rejected);
	sort_done("links by source", b->by_src);
	phase_done("reading");
}

/* The lines of the node sort, a URL at a time. */
struct node_lines {
	FILE *in;
	char *line;
	size_t cap;
	ssize_t len;		/* of the line read ahead, -1 at the end */
	char *key;		/* SURT, NUL, URL, NUL of the current node */
	size_t key_cap, surt_len, url_len;
	const char *surt, *url;
	struct evidence ev;
	bool have;
};

/* Splits a line "KEY<TAB>C\n" at its last tab; the key's length. */
static size_t
node_line_key(const struct node_lines *nl)
{
	if (nl->len < 4 || nl->line[nl->len - 1] != '\n' || nl->line[nl->len - 3] != '\t')
		wa_die("internal error: bad node line from sort: %.200s", nl->line);
	return (size_t)nl->len - 3;
}

static void
node_lines_next(struct node_lines *nl)
{
	nl->have = nl->len >= 0;
	if (!nl->have)
		return;
	size_t klen = node_line_key(nl);
	if (klen + 1 > nl->key_cap) {
		nl->key_cap = 2 * (klen + 1);
		nl->key = wa_realloc(nl->key, nl->key_cap);
	}
	memcpy(nl->key, nl->line, klen);
	nl->key[klen] = '\0';
	char *tab = memchr(nl->key, '\t', klen);
	if (!tab)
		wa_die("internal error: bad node line from sort: %.200s", nl->line);
	*tab = '\0';
	nl->surt = nl->key;
	nl->surt_len = (size_t)(tab - nl->key);
	nl->url = tab + 1;
	nl->url_len = klen - nl->surt_len - 1;
	nl->ev = (struct evidence){ .type = -1 };
	evidence_add(&nl->ev, nl->line[klen + 1]);
	/* The lines of one URL differ only in their evidence. */
	while ((nl->len = getline(&nl->line, &nl->cap, nl->in)) >= 0) {
		size_t k = node_line_key(nl);
		if (k != klen || memcmp(nl->line, nl->surt, nl->surt_len) != 0 ||
		    memcmp(nl->line + nl->surt_len + 1, nl->url, nl->url_len) != 0)
			break;
		evidence_add(&nl->ev, nl->line[k + 1]);
	}
}

/* The old graph's nodes in id order, with their URLs read through a few
 * windows of its urls file: in id order the URLs of a host are in order in
 * that file too, in one region a scheme. */
#define URL_WINDOWS 16
#define URL_WINDOW_BYTES (64u << 10)

struct old_nodes {
	uint64_t n, i;
	struct bin_in urloff, types;
	int urls_fd;
	char *urls_path;
	uint64_t urls_bytes;
	struct {
		uint64_t lo, len, used;
		char *buf;
	} win[URL_WINDOWS];
	uint64_t clock;
	char surt[URL_BUFSIZE], url[URL_BUFSIZE];
	char prev_surt[URL_BUFSIZE], prev_url[URL_BUFSIZE];
	size_t url_len;
	uint64_t off;
	int type;
	bool have;
};

/* Opens a per-node file of the old graph for reading in order, checked
 * against its manifest. */
static void
old_member(const struct graph *g, enum graph_file f, size_t rec, struct bin_in *in)
{
	char *path = graph_path(g, graph_file_names[f]);
	bin_in_open(in, path, graph_file_kinds[f], rec);
	if (in->r.h.payload_crc != g->file_crc[f])
		wa_die("%s: not the file the manifest lists (payload CRC %08x, manifest %08x)",
		    path, in->r.h.payload_crc, g->file_crc[f]);
	if (in->r.h.count != g->nodes)
		wa_die("%s: %" PRIu64 " records, the graph has %" PRIu64, path, in->r.h.count,
		    g->nodes);
	free(path);
}

static const char *
old_url_at(struct old_nodes *o, uint64_t off, size_t *len)
{
	if (off >= o->urls_bytes)
		wa_die("%s: an offset in urloff (%" PRIu64 ") is past the URLs", o->urls_path,
		    off);
	int w, lru = 0;
	for (w = 0; w < URL_WINDOWS; w++) {
		if (o->win[w].buf && off >= o->win[w].lo && off < o->win[w].lo + o->win[w].len) {
			const char *p = o->win[w].buf + (off - o->win[w].lo);
			const char *nl = memchr(p, '\n', o->win[w].lo + o->win[w].len - off);
			if (nl) {
				o->win[w].used = ++o->clock;
				*len = (size_t)(nl - p);
				return p;
			}
		}
		if (o->win[w].used < o->win[lru].used)
			lru = w;
	}
	w = lru;
	if (!o->win[w].buf)
		o->win[w].buf = wa_malloc(URL_WINDOW_BYTES);
	uint64_t want = o->urls_bytes - off < URL_WINDOW_BYTES ? o->urls_bytes - off :
	    URL_WINDOW_BYTES;
	for (uint64_t done = 0; done < want;) {
		ssize_t k = pread(o->urls_fd, o->win[w].buf + done, want - done,
		    (off_t)(BIN_HEADER_BYTES + off + done));
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			wa_die_errno("%s: read error", o->urls_path);
		done += (uint64_t)k;
	}
	o->win[w].lo = off;
	o->win[w].len = want;
	o->win[w].used = ++o->clock;
	const char *nl = memchr(o->win[w].buf, '\n', want);
	if (!nl || nl == o->win[w].buf || nl - o->win[w].buf > URL_MAX)
		wa_die("%s: no URL at offset %" PRIu64, o->urls_path, off);
	*len = (size_t)(nl - o->win[w].buf);
	return o->win[w].buf;
}

static void
old_nodes_open(struct old_nodes *o, const struct graph *g)
{
	memset(o, 0, sizeof *o);
	o->n = g->nodes;
	old_member(g, GF_URLOFF, 8, &o->urloff);
	old_member(g, GF_TYPES, 1, &o->types);
	o->urls_path = graph_path(g, graph_file_names[GF_URLS]);
	struct bin_reader r;
	const char *msg = bin_reader_open(&r, o->urls_path, "URLS", GRAPH_VERSION, 0);
	if (msg)
		wa_die("%s", msg);
	if (r.h.payload_crc != g->file_crc[GF_URLS] || r.h.count != g->nodes)
		wa_die("%s: not the file the manifest lists", o->urls_path);
	o->urls_bytes = r.h.payload_bytes;
	bin_reader_close(&r);
	o->urls_fd = open(o->urls_path, O_RDONLY | O_CLOEXEC);
	if (o->urls_fd < 0)
		wa_die_errno("%s", o->urls_path);
}

static void
old_nodes_next(struct old_nodes *o)
{
	o->have = o->i < o->n;
	if (!o->have)
		return;
	uint8_t type;
	bin_in_read(&o->urloff, &o->off, 8);
	bin_in_read(&o->types, &type, 1);
	if (type >= PAGE_TYPES)
		wa_die("%s: type %u of id %" PRIu64 " is no page type", o->types.r.path, type,
		    o->i);
	o->type = type;
	if (o->i > 0) {
		memcpy(o->prev_surt, o->surt, strlen(o->surt) + 1);
		memcpy(o->prev_url, o->url, o->url_len + 1);
	}
	const char *url = old_url_at(o, o->off, &o->url_len);
	memcpy(o->url, url, o->url_len);
	o->url[o->url_len] = '\0';
	if (!url_surt(o->url, o->surt))
		wa_die("%s: id %" PRIu64 ": '%.200s' is no canonical URL", o->urls_path, o->i,
		    o->url);
	/* The merge with the new nodes needs the old ids in SURT order. */
	if (o->i > 0 && url_surt_cmp(o->prev_surt, o->prev_url, o->surt, o->url) >= 0)
		wa_die("%s: ids %" PRIu64 " and %" PRIu64 " are not in SURT order",
		    o->urls_path, o->i - 1, o->i);
	o->i++;
}

static void
old_nodes_close(struct old_nodes *o)
{
	bin_in_close(&o->urloff);
	bin_in_close(&o->types);
	close(o->urls_fd);
	free(o->urls_path);
	for (int w = 0; w < URL_WINDOWS; w++)
		free(o->win[w].buf);
}

static uint32_t
new_id(struct build *b)
{
	if (b->n == GRAPH_MAX_NODES)
		wa_die("more than %u nodes: graph ids are 32-bit", GRAPH_MAX_NODES);
	return (uint32_t)b->n++;
}

static void
put_type(struct build *b, int type)
{
	uint8_t t = (uint8_t)type;
	bout_put(&b->types, &t, 1);
}

static void
map_add(struct build *b, uint32_t id, const char *url, size_t len)
{
	uint8_t rec[12];
	put32(rec, id);
	put64(rec + 4, url_hash(url, len));
	extsort_add(b->map, rec);
}

static void
number_new(struct build *b, const struct node_lines *nl)
{
	uint32_t id = new_id(b);
	put_type(b, node_type(&nl->ev, -1, nl->url));
	map_add(b, id, nl->url, nl->url_len);
	fwrite_unlocked(nl->url, 1, nl->url_len, b->urls.in);
	fprintf(b->urls.in, "\t%" PRIu32 "\n", id);
}

/* An old node, with what this cycle says of it, if anything. */
static void
number_old(struct build *b, const struct old_nodes *o, const struct node_lines *nl)
{
	uint32_t id = new_id(b);
	uint64_t old = o->i - 1;
	put_type(b, node_type(nl ? &nl->ev : NULL, o->type, o->url));
	if (nl) {
		map_add(b, id, o->url, o->url_len);
		if (nl->ev.fetched)
			b->fetched[old / 64] |= UINT64_C(1) << (old % 64);
	}
	u32file_append(&b->oldmap, id);
	uint8_t rec[12];
	put32(rec, id);
	put64(rec + 4, o->off);
	extsort_add(b->oldurl, rec);
}

static void
number_nodes(struct build *b)
{
	struct node_lines nl = { .in = b->nodes.out };
	struct old_nodes o;

	b->map = extsort_new("URL hashes", workdir_path(), 12, SHARE(1, 16), 0);
	sorter_start(&b->urls, "URLs", SHARE(1, 16), nthreads, workdir_path(), false, -1);
	bout_open(&b->types, "types", graph_file_kinds[GF_TYPES]);
	if (old_path) {
		uint64_t words = (b->old.nodes + 63) / 64;
		if (words * 8 > SHARE(1, 8))
			wa_die("-m %" PRIu64 "K is too small to update a graph of %" PRIu64
			    " nodes: give at least %" PRIu64 "K", budget >> 10, b->old.nodes,
			    (words * 64 >> 10) + 1);
		b->fetched = wa_calloc(words ? words : 1, sizeof *b->fetched);
		u32file_open(&b->oldmap);
		b->oldurl = extsort_new("old URLs", workdir_path(), 12, SHARE(1, 16), 0);
		old_nodes_open(&o, &b->old);
		old_nodes_next(&o);
	} else {
		o.have = false;
	}
	progress_start(&pg, "nodes", 0);
	nl.len = getline(&nl.line, &nl.cap, nl.in);
	node_lines_next(&nl);
	while (nl.have || o.have) {
		int c = !o.have ? 1 : !nl.have ? -1 :
		    url_surt_cmp(o.surt, o.url, nl.surt, nl.url);
		if (c <= 0) {
			number_old(b, &o, c == 0 ? &nl : NULL);
			if (c == 0)
				node_lines_next(&nl);
			old_nodes_next(&o);
		} else {
			number_new(b, &nl);
			node_lines_next(&nl);
		}
		progress_set(&pg, b->n);
	}
	progress_end(&pg);
	free(nl.line);
	free(nl.key);
	sorter_finish(&b->nodes);
	if (old_path) {
		old_nodes_close(&o);
		u32file_flush(&b->oldmap);
		extsort_finish(b->oldurl);
	}
	sorter_close_input(&b->urls);
	bout_commit(&b->types, b->n, NULL);
	extsort_finish(b->map);
	verbose("numbered %" PRIu64 " nodes", b->n);
	sort_done("URL hashes", b->map);
	phase_done("numbering");
}

/* The slices: equal numbers of ids, slice k holding [k*N/S, (k+1)*N/S). */
static void
plan_slices(struct build *b)
{
	b->slices = want_slices ? want_slices : graph_slices_for_budget(b->n, budget);
	uint64_t least = (b->n + GRAPH_SLICE_LIMIT - 1) / GRAPH_SLICE_LIMIT;
	if (b->slices < least) {
		wa_warn("-s %" PRIu32 ": slices hold at most %u pages; cutting %" PRIu64
		    " pages in %" PRIu64, b->slices, GRAPH_SLICE_LIMIT, b->n, least);
		b->slices = (uint32_t)least;
	}
	b->bound = wa_calloc(b->slices + 1, sizeof *b->bound);
	for (uint64_t k = 0; k <= b->slices; k++)
		b->bound[k] = k * b->n / b->slices;
}

static uint32_t
slice_of(const struct build *b, uint64_t d)
{
	return (uint32_t)(((d + 1) * b->slices - 1) / b->n);
}

/* A link in the order of its slice (graph.h): the slice, then the
 * external links by (source, destination), then the internal ones by
 * (destination, source). */
static void
matrix_add(struct build *b, uint32_t s, uint32_t d)
{
	uint8_t rec[12];
	uint32_t k = slice_of(b, d);
	bool internal = slice_of(b, s) == k;
	put32(rec, internal ? s : d);
	put32(rec + 4, internal ? d : s);
	put32(rec + 8, k << 1 | internal);
	extsort_add(b->matrix, rec);
}

static void
degree_add(struct extsort *deg, uint32_t id, uint64_t count)
{
	uint8_t rec[8];
	put32(rec, (uint32_t)count);
	put32(rec + 4, id);
	extsort_add(deg, rec);
}

/* A line of text from a stream of the old graph, without its newline. */
static size_t
bin_in_line(struct bin_in *s, char *out)
{
	char *nl;
	while (!(nl = memchr(s->buf + s->at, '\n', s->have - s->at)))
		if (!bin_in_fill(s))
			wa_die("%s: the last URL has no newline", s->r.path);
	size_t n = (size_t)(nl - (char *)(s->buf + s->at));
	if (n == 0 || n > URL_MAX)
		wa_die("%s: a URL of %zu bytes at payload byte %" PRIu64, s->r.path, n,
		    s->consumed);
	memcpy(out, s->buf + s->at, n);
	out[n] = '\0';
	s->at += n + 1;
	s->consumed += n + 1;
	return n;
}

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
static void
write_url_table(struct build *b)
{
	struct bout urls, urlid, urloff;
	bout_open(&urls, "urls", graph_file_kinds[GF_URLS]);
	bout_open(&urlid, "urlid", graph_file_kinds[GF_URLID]);
	struct extsort *offsets = extsort_new("URL offsets", workdir_path(), 12, SHARE(1, 8), 0);

	struct url_line nu = { .in = b->urls.out };
	url_line_next(&nu);
	struct bin_in old_urls;
	char old_url[URL_BUFSIZE];
	size_t old_len = 0;
	const uint8_t *old_rec = NULL;
	if (old_path) {
		old_member(&b->old, GF_URLS, 0, &old_urls);
		old_rec = extsort_next(b->oldurl);
		if (old_rec)
			old_len = bin_in_line(&old_urls, old_url);
	}
	progress_start(&pg, "URLs", b->n);
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
		bout_put(&urls, url, n);
		bout_put(&urls, "\n", 1);
		bout_put(&urlid, &id, 4);
		uint8_t rec[12];
		put64(rec, off);
		put32(rec + 8, id);
		extsort_add(offsets, rec);
		off += n + 1;
		if (c < 0) {
			old_rec = extsort_next(b->oldurl);
			if (old_rec)
				old_len = bin_in_line(&old_urls, old_url);
		} else {
			url_line_next(&nu);
		}
		progress_set(&pg, ++count);
	}
	progress_end(&pg);
	free(nu.line);
	sorter_finish(&b->urls);
	if (old_path) {
		if (old_urls.consumed != old_urls.r.h.payload_bytes)
			wa_die("%s: URLs that no id has", old_urls.r.path);
		bin_in_close(&old_urls);
		extsort_free(b->oldurl);
		b->oldurl = NULL;
	}
	if (count != b->n)
		wa_die("internal error: %" PRIu64 " URLs for %" PRIu64 " nodes", count, b->n);
	bout_commit(&urls, b->n, NULL);
	bout_commit(&urlid, b->n, NULL);

	extsort_finish(offsets);
	bout_open(&urloff, "urloff", graph_file_kinds[GF_URLOFF]);
	for (uint64_t id = 0; id < b->n; id++) {
		const uint8_t *rec = extsort_next(offsets);
		if (!rec || get32(rec + 8) != id)
			wa_die("internal error: no URL offset for id %" PRIu64, id);
		uint64_t o = get64(rec);
		bout_put(&urloff, &o, 8);
	}
	bout_commit(&urloff, b->n, NULL);
	sort_done("URL offsets", offsets);
	extsort_free(offsets);
	phase_done("URL table");
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
static void
join_sources(struct build *b)
{
	struct map_cursor m = { .s = b->map, .check = true };
	b->by_dst = extsort_new("links by destination", workdir_path(), 12, SHARE(1, 4),
	    big_sort(0));
	b->outdeg = extsort_new("out-degrees", workdir_path(), 8, SHARE(1, 16), 0);
	map_next(&m);
	progress_start(&pg, "links joined with sources", extsort_stats(b->by_src)->added);
	uint64_t cur = 0, count = 0, done = 0;
	uint32_t id = 0;
	const uint8_t *r;
	while ((r = extsort_next(b->by_src))) {
		uint64_t hs = get64(r + 8);
		if (count == 0 || hs != cur) {
			if (count)
				degree_add(b->outdeg, id, count);
			id = map_find(&m, hs);
			cur = hs;
			count = 0;
		}
		count++;
		uint8_t rec[12];
		put32(rec, id);
		memcpy(rec + 4, r, 8);
		extsort_add(b->by_dst, rec);
		progress_set(&pg, ++done);
	}
	if (count)
		degree_add(b->outdeg, id, count);
	/* Every collision shows, not only those of sources. */
	while (m.have)
		map_next(&m);
	progress_end(&pg);
	b->new_links = done;
	extsort_free(b->by_src);
	b->by_src = NULL;
	extsort_finish(b->by_dst);
	sort_done("links by destination", b->by_dst);
	phase_done("join by source");
}

/* Join 2: the links in destination hash order take the id of their
 * destination and go to the matrix sort. */
static void
join_destinations(struct build *b)
{
	struct map_cursor m = { .s = b->map };
	b->matrix = extsort_new("matrix", workdir_path(), 12, SHARE(3, 8), big_sort(0));
	b->indeg = extsort_new("in-degrees", workdir_path(), 8, SHARE(1, 16), 0);
	extsort_rewind(b->map);
	map_next(&m);
	progress_start(&pg, "links joined with destinations", b->new_links);
	uint64_t cur = 0, count = 0, done = 0;
	uint32_t id = 0;
	const uint8_t *r;
	while ((r = extsort_next(b->by_dst))) {
		uint64_t hd = get64(r + 4);
		if (count == 0 || hd != cur) {
			if (count)
				degree_add(b->indeg, id, count);
			id = map_find(&m, hd);
			cur = hd;
			count = 0;
		}
		count++;
		matrix_add(b, get32(r), id);
		progress_set(&pg, ++done);
	}
	if (count)
		degree_add(b->indeg, id, count);
	progress_end(&pg);
	extsort_free(b->by_dst);
	b->by_dst = NULL;
	extsort_free(b->map);
	b->map = NULL;
	phase_done("join by destination");
}

static bool
is_fetched(const struct build *b, uint64_t old)
{
	return b->fetched[old / 64] >> (old % 64) & 1;
}

/* One pass over old slice k for the destinations [w0, w1): the links of
 * pages not fetched this cycle go to the matrix with their new ids.  The
 * words are checked as graph.c's reader checks them. */
static void
old_slice_pass(struct build *b, uint32_t k, uint64_t w0, uint64_t w1, const uint32_t *remap,
    uint32_t *kept)
{
	char *name = graph_slice_name(k), *path = graph_path(&b->old, name);
	struct bin_in in;
	bin_in_open(&in, path, "SLCE", 0);
	const struct bin_header *h = &in.r.h;
	if (h->payload_crc != b->old.file_crc[GF_COUNT + k])
		wa_die("%s: not the file the manifest lists (payload CRC %08x, manifest %08x)",
		    path, h->payload_crc, b->old.file_crc[GF_COUNT + k]);
	uint64_t lo = h->aux[0], hi = h->aux[1];
	if (lo != b->old.bound[k] || hi != b->old.bound[k + 1])
		wa_die("%s: covers ids %" PRIu64 " to %" PRIu64 ", the manifest says %" PRIu64
		    " to %" PRIu64, path, lo, hi, b->old.bound[k], b->old.bound[k + 1]);
	uint64_t counts[2];
	if (h->payload_bytes < 16)
		wa_die("%s: no block index", path);
	bin_in_read(&in, counts, 16);
	if (counts[0] > (h->payload_bytes - 16) / 12 ||
	    counts[1] > (h->payload_bytes - 16) / 12 - counts[0])
		wa_die("%s: a block index of %" PRIu64 " and %" PRIu64 " entries does not fit the "
		    "payload", path, counts[0], counts[1]);
	uint64_t nb = counts[0] + counts[1], index_bytes = 16 + 12 * nb;
	if ((h->payload_bytes - index_bytes) % 4)
		wa_die("%s: the payload does not end on a word", path);
	uint64_t *boff = wa_calloc(nb + 1, sizeof *boff);
	uint32_t *first = wa_calloc(nb + 1, sizeof *first);
	bin_in_read(&in, boff, 8 * nb);
	bin_in_read(&in, first, 4 * nb);
	boff[nb] = (h->payload_bytes - index_bytes) / 4;
	for (uint64_t i = 0; i < nb; i++)
		if (boff[i] >= boff[i + 1] || (i == 0 && boff[0] != 0))
			wa_die("%s: block %" PRIu64 " starts at word %" PRIu64 ", out of order", path,
			    i, boff[i]);
	unsigned bits = slice_bits(hi - lo);
	uint32_t escape = UINT32_MAX >> bits, mask = (UINT32_C(1) << bits) - 1;
	uint64_t at = 0, links = 0, internal = 0;
	for (uint64_t blk = 0; blk < nb; blk++) {
		bool inner = blk >= counts[0];
		uint64_t major = first[blk];
		while (at < boff[blk + 1]) {
			uint32_t w, delta;
			bin_in_read(&in, &w, 4);
			delta = w >> bits;
			if (delta == escape) {
				if (++at == boff[blk + 1])
					wa_die("%s: block %" PRIu64 ": an escaped word cut short", path,
					    blk);
				bin_in_read(&in, &delta, 4);
			}
			at++;
			major += delta;
			uint64_t src = inner ? lo + (w & mask) : major;
			uint64_t dst = inner ? major : lo + (w & mask);
			if (src >= b->old.nodes || dst < lo || dst >= hi || (inner && src >= hi))
				wa_die("%s: block %" PRIu64 ": a link %" PRIu64 " -> %" PRIu64
				    " out of the slice", path, blk, src, dst);
			links++;
			internal += inner;
			if (dst < w0 || dst >= w1)
				continue;
			if (is_fetched(b, src)) {
				b->old_dropped++;
				continue;
			}
			uint32_t new_src = src >= w0 && src < w1 ? remap[src - w0] :
			    u32file_get(&b->oldmap, src);
			matrix_add(b, new_src, remap[dst - w0]);
			kept[dst - w0]++;
			b->old_kept++;
		}
	}
	if (links != h->count || internal != h->aux[2])
		wa_die("%s: %" PRIu64 " links, %" PRIu64 " internal, the header says %" PRIu64
		    " and %" PRIu64, path, links, internal, h->count, h->aux[2]);
	free(first);
	bin_in_close(&in);
	free(boff);
	free(name);
	free(path);
}

/* Update mode: the links of the old graph whose source was not fetched
 * this cycle.  The old ids of a window of destinations are renumbered
 * through an array; a window is a slice unless the budget says otherwise. */
static void
keep_old_links(struct build *b)
{
	uint64_t window = SHARE(1, 8) / 8;
	uint64_t widest = 1;
	for (uint32_t k = 0; k < b->old.slices; k++)
		if (b->old.bound[k + 1] - b->old.bound[k] > widest)
			widest = b->old.bound[k + 1] - b->old.bound[k];
	if (window > widest)
		window = widest;
	uint32_t *remap = wa_calloc(window, sizeof *remap);
	uint32_t *kept = wa_calloc(window, sizeof *kept);
	progress_start(&pg, "old slices", b->old.slices);
	for (uint32_t k = 0; k < b->old.slices; k++) {
		uint64_t lo = b->old.bound[k], hi = b->old.bound[k + 1];
		for (uint64_t w0 = lo; w0 < hi; w0 += window) {
			uint64_t w1 = hi - w0 < window ? hi : w0 + window;
			u32file_read(&b->oldmap, w0, w1 - w0, remap);
			memset(kept, 0, (w1 - w0) * sizeof *kept);
			old_slice_pass(b, k, w0, w1, remap, kept);
			for (uint64_t i = 0; i < w1 - w0; i++)
				if (kept[i])
					degree_add(b->indeg, remap[i], kept[i]);
		}
		progress_set(&pg, k + 1);
	}
	progress_end(&pg);
	free(remap);
	free(kept);

	/* The pages not fetched keep all their old links: their old out-degree. */
	struct bin_in od;
	old_member(&b->old, GF_OUTDEG, 4, &od);
	for (uint64_t i = 0; i < b->old.nodes; i++) {
		uint32_t d;
		bin_in_read(&od, &d, 4);
		if (d && !is_fetched(b, i))
			degree_add(b->outdeg, u32file_get(&b->oldmap, i), d);
	}
	bin_in_close(&od);
	u32file_close(&b->oldmap);
	free(b->fetched);
	b->fetched = NULL;
	phase_done("old links");
}

/* A per-node degree file from its (count, id) records; returns the sum of
 * degree * graph_mix(id), which the matrix must match. */
static uint64_t
write_degrees(struct build *b, struct extsort *deg, enum graph_file f)
{
	extsort_finish(deg);
	sort_done(graph_file_names[f], deg);
	struct bout o;
	bout_open(&o, graph_file_names[f], graph_file_kinds[f]);
	uint64_t mix = 0;
	const uint8_t *r = extsort_next(deg);
	for (uint64_t id = 0; id < b->n; id++) {
		uint64_t d = 0;
		for (; r && get32(r + 4) == id; r = extsort_next(deg))
			d += get32(r);
		if (d > UINT32_MAX)
			wa_die("internal error: degree %" PRIu64 " of id %" PRIu64, d, id);
		uint32_t v = (uint32_t)d;
		bout_put(&o, &v, 4);
		mix += d * graph_mix(id);
	}
	if (r)
		wa_die("internal error: a degree for id %" PRIu32 " of %" PRIu64 " nodes",
		    get32(r + 4), b->n);
	bout_commit(&o, b->n, NULL);
	extsort_free(deg);
	return mix;
}

/* A scratch file written through stdio and read back with pread. */
struct spool {
	FILE *f;
	int fd;
	uint64_t bytes;
};

static void
spool_open(struct spool *sp)
{
	char *path = workdir_file(".spool.XXXXXX");
	sp->fd = mkostemp(path, O_CLOEXEC);
	if (sp->fd < 0)
		wa_die_errno("%s", path);
	unlink(path);
	free(path);
	sp->f = fdopen(sp->fd, "w");
	if (!sp->f)
		wa_die_errno("fdopen");
	setvbuf(sp->f, NULL, _IOFBF, IO_BLOCK);
	sp->bytes = 0;
}

static void
spool_put(struct spool *sp, const void *p, size_t n)
{
	if (fwrite_unlocked(p, 1, n, sp->f) != n)
		wa_die_errno("%s: cannot write to the scratch space", workdir_path());
	sp->bytes += n;
}

static void
spool_flush(struct spool *sp)
{
	if (fflush(sp->f) != 0)
		wa_die_errno("%s: cannot write to the scratch space", workdir_path());
}

/* Hands the spooled bytes to fn in pieces, then empties the spool. */
static void
spool_drain(struct spool *sp, void (*fn)(void *, const void *, size_t), void *arg)
{
	static uint8_t buf[IO_BLOCK];
	spool_flush(sp);
	for (uint64_t done = 0; done < sp->bytes;) {
		size_t want = sp->bytes - done < IO_BLOCK ? (size_t)(sp->bytes - done) : IO_BLOCK;
		ssize_t k = pread(sp->fd, buf, want, (off_t)done);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			wa_die_errno("%s: cannot read back the scratch space", workdir_path());
		fn(arg, buf, (size_t)k);
		done += (uint64_t)k;
	}
	if (fseeko(sp->f, 0, SEEK_SET) != 0 || ftruncate(sp->fd, 0) != 0)
		wa_die_errno("%s: scratch space", workdir_path());
	sp->bytes = 0;
}

static void
spool_close(struct spool *sp)
{
	fclose(sp->f);
}

/* The encoder of slice words (graph.h). */
struct slice_writer {
	struct spool words;
	uint64_t *block_off;
	uint32_t *block_first;
	uint64_t blocks, block_cap, external_blocks, block_links;
	uint64_t nwords, links, internal;
	uint64_t major, minor;
	unsigned bits;
};

static void
to_bout(void *arg, const void *p, size_t n)
{
	bout_put(arg, p, n);
}

static void
word_put(struct slice_writer *sw, uint32_t w)
{
	spool_put(&sw->words, &w, 4);
	sw->nwords++;
}

/* A block opens at the start of a section, and once the block before has
 * its share of links, at the next major. */
static void
word_add(struct slice_writer *sw, bool internal, uint64_t major, uint64_t minor)
{
	bool new_section = internal && sw->external_blocks == UINT64_MAX;
	if (new_section)
		sw->external_blocks = sw->blocks;
	else if (sw->blocks && (major < sw->major || (major == sw->major && minor <= sw->minor)))
		wa_die("internal error: matrix out of order");
	if (sw->blocks == 0 || new_section || (major != sw->major &&
	    (sw->block_links >= GRAPH_BLOCK_LINKS ||
	    (internal && major - sw->block_first[sw->blocks - 1] >= GRAPH_BLOCK_SPAN)))) {
		if (sw->blocks == sw->block_cap) {
			sw->block_cap = sw->block_cap ? 2 * sw->block_cap : 64;
			sw->block_off = wa_reallocarray(sw->block_off, sw->block_cap, 8);
			sw->block_first = wa_reallocarray(sw->block_first, sw->block_cap, 4);
		}
		sw->block_off[sw->blocks] = sw->nwords;
		sw->block_first[sw->blocks++] = (uint32_t)major;
		sw->block_links = 0;
	}
	uint64_t delta = major - (sw->block_links ? sw->major : major);
	uint32_t escape = UINT32_MAX >> sw->bits;
	if (delta >= escape) {
		word_put(sw, escape << sw->bits | (uint32_t)minor);
		word_put(sw, (uint32_t)delta);
	} else {
		word_put(sw, (uint32_t)delta << sw->bits | (uint32_t)minor);
	}
	sw->major = major;
	sw->minor = minor;
	sw->block_links++;
	sw->links++;
	sw->internal += internal;
}

/* Writes slice k from the matrix records of that slice. */
static void
write_slice(struct build *b, uint32_t k, const uint8_t **r, struct slice_writer *sw)
{
	uint64_t lo = b->bound[k], hi = b->bound[k + 1];
	sw->bits = slice_bits(hi - lo);
	sw->blocks = sw->block_links = sw->nwords = 0;
	sw->links = sw->internal = 0;
	sw->external_blocks = UINT64_MAX;
	for (; *r && get32(*r + 8) >> 1 == k; *r = extsort_next(b->matrix)) {
		bool internal = get32(*r + 8) & 1;
		uint32_t major = get32(*r + 4), minor = get32(*r);
		uint32_t s = internal ? minor : major, d = internal ? major : minor;
		if (d < lo || d >= hi || (internal && (s < lo || s >= hi)))
			wa_die("internal error: link %" PRIu32 " -> %" PRIu32 " in slice %" PRIu32,
			    s, d, k);
		word_add(sw, internal, major, minor - lo);
		b->out_mix += graph_mix(s);
		b->in_mix += graph_mix(d);
	}
	if (sw->external_blocks == UINT64_MAX)
		sw->external_blocks = sw->blocks;

	char *name = graph_slice_name(k);
	struct bout o;
	bout_open(&o, name, "SLCE");
	uint64_t counts[2] = { sw->external_blocks, sw->blocks - sw->external_blocks };
	bout_put(&o, counts, 16);
	bout_put(&o, sw->block_off, sw->blocks * 8);
	bout_put(&o, sw->block_first, sw->blocks * 4);
	spool_drain(&sw->words, to_bout, &o);
	b->matrix_bytes += BIN_HEADER_BYTES + o.bytes;
	bout_commit(&o, sw->links, (const uint64_t[3]){ lo, hi, sw->internal });
	b->links += sw->links;
	free(name);
}

static void
write_slices(struct build *b)
{
	struct slice_writer sw = { 0 };
	spool_open(&sw.words);
	extsort_finish(b->matrix);
	sort_done("matrix", b->matrix);
	progress_start(&pg, "slices", b->slices);
	const uint8_t *r = extsort_next(b->matrix);
	for (uint32_t k = 0; k < b->slices; k++) {
		write_slice(b, k, &r, &sw);
		progress_set(&pg, k + 1);
	}
	progress_end(&pg);
	if (r)
		wa_die("internal error: matrix records past the last slice");
	spool_close(&sw.words);
	free(sw.block_off);
	free(sw.block_first);
	extsort_free(b->matrix);
	b->matrix = NULL;
	phase_done("slices");
}

/* The payload CRC of a file just written, from its header. */
static uint32_t
file_crc(const char *name, const char *kind)
{
	char *path = workdir_file(name);
	struct bin_reader r;
	const char *msg = bin_reader_open(&r, path, kind, GRAPH_VERSION, 0);
	if (msg)
		wa_die("%s", msg);
	uint32_t crc = r.h.payload_crc;
	bin_reader_close(&r);
	free(path);
	return crc;
}

static void
write_manifest(struct build *b)
{
	struct bout o;
	bout_open(&o, "manifest", "GRPH");
	bout_put(&o, b->bound, (b->slices + 1) * sizeof *b->bound);
	for (int f = 0; f < GF_COUNT; f++) {
		uint32_t crc = file_crc(graph_file_names[f], graph_file_kinds[f]);
		bout_put(&o, &crc, 4);
	}
	for (uint32_t k = 0; k < b->slices; k++) {
		char *name = graph_slice_name(k);
		uint32_t crc = file_crc(name, "SLCE");
		bout_put(&o, &crc, 4);
		free(name);
	}
	bout_commit(&o, b->n, (const uint64_t[3]){ b->links, b->slices, 0 });
}

static uint64_t
dir_bytes(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		wa_die_errno("%s", dir);
	uint64_t sum = 0;
	struct dirent *e;
	struct stat st;
	while ((e = readdir(d)))
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISREG(st.st_mode))
			sum += (uint64_t)st.st_size;
	closedir(d);
	return sum;
}

static void
summary(const struct build *b, uint64_t bytes)
{
	char line[512];
	int n = snprintf(line, sizeof line, "%s: %" PRIu64 " nodes, %" PRIu64 " links", b->graph,
	    b->n, b->links);
	if (old_path)
		n += snprintf(line + n, sizeof line - (size_t)n, " (%" PRIu64 " new, %" PRIu64
		    " kept, %" PRIu64 " replaced)", b->new_links, b->old_kept, b->old_dropped);
	n += snprintf(line + n, sizeof line - (size_t)n, ", %" PRIu32 " slices, %" PRIu64
	    " bytes", b->slices, bytes);
	if (b->links)
		n += snprintf(line + n, sizeof line - (size_t)n, " (%.2f a link, %.2f in the "
		    "matrix)", (double)bytes / b->links, (double)b->matrix_bytes / b->links);
	snprintf(line + n, sizeof line - (size_t)n, "; %" PRIu64 " rows: %" PRIu64
	    " duplicate and %" PRIu64 " self links dropped, %" PRIu64 " rejected", b->rows,
	    b->link_rows - b->new_links, b->self_links, b->rejected);
	wa_note("%s", line);
}

static void
build(const char *graph, char **files, int nfiles)
{
	struct build b = { .graph = graph };

	if (old_path)
		graph_open(&b.old, old_path);
	workdir_create(graph, "manifest");
	phase_started = monotonic_seconds();
	read_all(&b, files, nfiles);
	number_nodes(&b);
	plan_slices(&b);
	write_url_table(&b);
	join_sources(&b);
	join_destinations(&b);
	if (old_path)
		keep_old_links(&b);
	uint64_t out_mix = write_degrees(&b, b.outdeg, GF_OUTDEG);
	uint64_t in_mix = write_degrees(&b, b.indeg, GF_INDEG);
	write_slices(&b);
	if (out_mix != b.out_mix || in_mix != b.in_mix)
		wa_die("internal error: the degrees disagree with the matrix");
	write_manifest(&b);
	uint64_t bytes = dir_bytes(workdir_path());
	workdir_install(graph, "manifest");

	summary(&b, bytes);
	free(b.bound);
	if (old_path)
		graph_close(&b.old);
}

/* --dump: every link as src<TAB>dst through GNU sort, after graph.c has
 * checked the whole matrix against the degrees.  The URLs come by id,
 * the offsets through a cache of views of a sixteenth of the budget. */
static void
dump_links(const char *dir)
{
	struct graph g;
	struct vec outdeg, indeg;
	graph_open(&g, dir);
	graph_vec(&g, GF_OUTDEG, false, &outdeg);
	graph_vec(&g, GF_INDEG, false, &indeg);
	struct slice *sl = wa_calloc(g.slices, sizeof *sl);
	for (uint32_t k = 0; k < g.slices; k++)
		slice_open(&g, k, &sl[k]);
	graph_check_matrix(&g, sl, &outdeg, &indeg, NULL, 8u << 20);
	vec_free(&outdeg);
	vec_free(&indeg);

	struct url_lookup urls;
	url_lookup_open(&g, &urls, budget / 16);
	char su[URL_BUFSIZE], du[URL_BUFSIZE];
	struct sorter so;
	fflush(stdout);
	sorter_start(&so, "links", budget / 2, nthreads, NULL, false, STDOUT_FILENO);
	uint32_t *buf = NULL;
	size_t cap = 0;
	for (uint32_t k = 0; k < g.slices; k++) {
		struct slice *s = &sl[k];
		for (uint64_t b0 = 0, b1; b0 < s->blocks; b0 = b1) {
			b1 = slice_read_run(s, b0, s->blocks, 8u << 20, &buf, &cap);
			const uint32_t *p = buf;
			for (uint64_t b = b0; b < b1; b++) {
				const uint32_t *end = buf + (s->block_off[b + 1] - s->block_off[b0]);
				bool internal = b >= s->external_blocks;
				uint64_t major = s->block_first[b];
				while (p < end) {
					uint64_t minor = s->lo + slice_word(&p, &major, s->bits);
					size_t slen = url_lookup(&urls, internal ? minor : major, su);
					size_t dlen = url_lookup(&urls, internal ? major : minor, du);
					fprintf(so.in, "%.*s\t%.*s\n", (int)slen, su, (int)dlen, du);
				}
			}
		}
		slice_close(s);
	}
	free(buf);
	sorter_close_input(&so);
	sorter_finish(&so);
	free(sl);
	url_lookup_close(&urls);
	graph_close(&g);
}

/* --dump-nodes: url, type, outdeg, indeg and id, in URL order; the
 * per-node files by id, through caches of views of a sixteenth of the
 * budget each. */
static void
dump_nodes(const char *dir)
{
	struct graph g;
	graph_open(&g, dir);
	struct url_table t;
	url_table_open(&g, &t);
	struct vec types, outdeg, indeg;
	graph_vec(&g, GF_TYPES, false, &types);
	graph_vec(&g, GF_OUTDEG, false, &outdeg);
	graph_vec(&g, GF_INDEG, false, &indeg);
	struct vec_cache type, od, id;
	vec_cache_open(&type, &types, budget / 16, false);
	vec_cache_open(&od, &outdeg, budget / 16, false);
	vec_cache_open(&id, &indeg, budget / 16, false);
	const char *url;
	size_t len;
	uint32_t n;
	while ((url = url_table_next(&t, &len, &n))) {
		uint8_t ty = *(const uint8_t *)vec_cache_at(&type, n);
		if (ty >= PAGE_TYPES)
			wa_die("%s/types: type %u of id %" PRIu32 " is unknown", dir, ty, n);
		printf("%.*s\t%s\t%" PRIu32 "\t%" PRIu32 "\t%" PRIu32 "\n", (int)len, url,
		    page_type_names[ty], *(const uint32_t *)vec_cache_at(&od, n),
		    *(const uint32_t *)vec_cache_at(&id, n), n);
	}
	vec_cache_close(&type);
	vec_cache_close(&od);
	vec_cache_close(&id);
	vec_free(&types);
	vec_free(&outdeg);
	vec_free(&indeg);
	url_table_close(&t);
	graph_close(&g);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "dump", required_argument, NULL, OPT_DUMP },
		{ "dump-nodes", required_argument, NULL, OPT_DUMP_NODES },
		WA_COMMON_LONGOPTS
	};
	const char *graph = NULL, *dump = NULL, *dump_nodes_of = NULL;
	bool build_options = false;
	int c;

	wa_init(argc, argv, usage);
	while ((c = getopt_long(argc, argv, "hj:m:o:p:qs:u:v", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			nthreads = (unsigned)opt_count("-j", optarg, 1, 256);
			break;
		case 'm':
			budget = opt_size("-m", optarg);
			if (budget < MIN_BUDGET)
				wa_usage_error("-m: %s is below the least budget, 64K", optarg);
			break;
		case 'o':
			graph = optarg;
			build_options = true;
			break;
		case 'p':
			pages_path = optarg;
			build_options = true;
			break;
		case 's':
			want_slices = (uint32_t)opt_count("-s", optarg, 1, MAX_SLICES);
			build_options = true;
			break;
		case 'u':
			old_path = optarg;
			build_options = true;
			break;
		case OPT_DUMP:
			dump = optarg;
			break;
		case OPT_DUMP_NODES:
			dump_nodes_of = optarg;
			break;
		default:
			wa_common_option(c);
		}
	}
	shared_budget = budget - (budget / 4 < FIXED_RESERVE ? budget / 4 : FIXED_RESERVE);
	if (nthreads == 0) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		nthreads = n < 1 ? 1 : n > 8 ? 8 : (unsigned)n;
	}
	if (dump || dump_nodes_of) {
		if ((dump && dump_nodes_of) || build_options || optind < argc)
			wa_usage_error("--dump and --dump-nodes take a graph and nothing else");
		if (dump)
			dump_links(dump);
		else
			dump_nodes(dump_nodes_of);
		if (fflush(stdout) == EOF || ferror(stdout))
			wa_die_errno("standard output");
		return WA_EXIT_OK;
	}
	if (!graph)
		wa_usage_error("-o GRAPH is required");
	char *out = wa_strdup(graph);
	for (size_t n = strlen(out); n > 1 && out[n - 1] == '/'; n--)
		out[n - 1] = '\0';
	build(out, argv + optind, argc - optind);
	free(out);
	url_cleanup();
	return WA_EXIT_OK;
}
