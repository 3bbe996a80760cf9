/* wa-opic: on-line page importance (OPIC) from fetched pages' links in
 * crawl order, after Abiteboul, Preda, Cobena, "Adaptive On-Line Page
 * Importance Computation" (WWW 2003): cash, history, the virtual page of
 * sec. 1 ("small edges"), Lemma 2.3, and Adaptive OPIC's window policies
 * of sec. 3: Interpolation, Variable Window, Fixed Window and Improved
 * Fixed Window (sec. 4).  The computation, on page ids, is
 * src/lib/opic.c; this file numbers the URLs (strmap.h), reads the links
 * and the fetch log, keeps the state file and writes the output.  Time counts
 * page reads, or seconds taken from a wa-fetch log.  The state persists
 * in a binary file (binfile.h, the layout in man/wa-formats.5, "OPIC
 * state"). */
#include <sys/stat.h>

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fetchlog.h"
#include "opic.h"
#include "strmap.h"
#include "wa.h"

static const char usage[] =
    "usage: wa-opic -s STATE [-q] [-c C] [-t FETCHLOG]\n"
    "               [-W T | -k K | -F T [--min-measures M]] [-f TEXT [-x SHARE]]\n"
    "               [--next K] [LINKS...]\n"
    "Reads fetched pages' links (src TAB dst, grouped by source, in crawl\n"
    "order) from the LINKS files or stdin, updates the OPIC state in STATE\n"
    "(created when absent) and writes url TAB importance for every known URL.\n"
    "  -s STATE  the state file (required)\n"
    "  -c C      share of a page's cash given to its links (default 0.85)\n"
    "  -t LOG    time in seconds: each read takes its time from the wa-fetch\n"
    "            log LOG (default: time counts page reads)\n"
    "  -W T      Adaptive OPIC, Interpolation over a window of T\n"
    "  -k K      Adaptive OPIC, Variable Window: the last K measures (<= 4096)\n"
    "  -F T      Adaptive OPIC, Fixed Window: the measures of the last T\n"
    "  --min-measures M  with -F, keep at least M measures (default 0)\n"
    "            T is a number of reads, or with -t a duration (30d); the\n"
    "            default is plain OPIC; the policy is fixed with the state\n"
    "  -f TEXT   focus: URLs containing TEXT get extra cash from the virtual page\n"
    "  -x SHARE  share of the virtual page's cash given to them (default 0.5)\n"
    "  --next K  write the K URLs with the most cash instead (url TAB cash)\n"
    "  -q        no progress line, no notes\n"
    "  -h        this help;  --version  the version\n"
    "See wa-opic(1).\n";

enum { OPT_NEXT = WA_OPT_FIRST_TOOL, OPT_MIN_MEASURES };

/* The OPIC state, and what wa-opic keeps beside it per page: its URL
 * (number = page id) and the reads + 1 of the read that last linked to
 * it, to drop a read's duplicate links. */
static struct opic op;
static struct strmap urls;
static uint64_t *mark;
static size_t mark_cap;
static uint64_t clamped;	/* for the note at the end */

/* The fetch log of -t: per URL its fetch times, in the log's order, and
 * the next one to take. */
static struct {
	struct strmap urls;
	size_t *first;		/* times of URL i: time[first[i] .. first[i+1]) */
	size_t *next;
	double *time;
} fl;

static double read_time;	/* the time of the read in progress */
static const char *focus;
static double focus_share = 0.5;
static struct progress pg;

/* Asks the cache for what a lookup of hash will read: its slot, and when
 * the slot is already known its string and page.  Only a hint: the lookup
 * itself is done later. */
static void
url_prefetch(uint64_t hash, bool deep)
{
	if (!deep) {
		strmap_prefetch_slot(&urls, hash);
		return;
	}
	size_t i = strmap_prefetch_key(&urls, hash);
	if (i != STRMAP_NONE) {
		opic_prefetch(&op, (uint32_t)i, true);
		__builtin_prefetch(&mark[i], 1);
	}
}

/* The page of url (len bytes, hash), introduced when new. */
static uint32_t
intern_hashed(const char *url, size_t len, uint64_t hash)
{
	bool added;
	size_t i = strmap_add_hashed(&urls, url, len, hash, &added);
	if (!added)
		return (uint32_t)i;
	if (i == OPIC_MAX_PAGES)
		wa_die("more than %zu URLs", (size_t)OPIC_MAX_PAGES);
	opic_add_page(&op, read_time);
	if (op.cap > mark_cap) {
		mark = wa_reallocarray(mark, op.cap, sizeof *mark);
		mark_cap = op.cap;
	}
	mark[i] = 0;
	return (uint32_t)i;
}

static const char *
url_of(size_t i)
{
	return strmap_key(&urls, i);
}

struct group {
	uint32_t *child, *focused;
	size_t nchild, nfocused, cap;
	uint32_t src;
	bool open;
};

static void
group_add(struct group *g, uint32_t i)
{
	if (g->nchild == g->cap) {
		g->cap = g->cap ? 2 * g->cap : 64;
		g->child = wa_reallocarray(g->child, g->cap, sizeof *g->child);
		g->focused = wa_reallocarray(g->focused, g->cap, sizeof *g->focused);
	}
	g->child[g->nchild++] = i;
}

static void
group_flush(struct group *g)
{
	if (!g->open)
		return;
	g->nfocused = 0;
	if (focus)
		for (size_t k = 0; k < g->nchild; k++)
			if (strstr(url_of(g->child[k]), focus))
				g->focused[g->nfocused++] = g->child[k];
	opic_read(&op, g->src, g->child, g->nchild, g->focused, g->nfocused, read_time);
	g->nchild = 0;
	g->open = false;
	progress_set(&pg, op.reads);
}

/* -t: the times of the fetch log's rows that have one, by URL.  A row of
 * a redirect chain followed by wa-fetch -L (a redirect URL and a status
 * that is no 3xx) gives its time to the URL the chain led to as well: that
 * is the page whose links wa-extract writes. */
static void
load_fetch_log(const char *path)
{
	struct tsv *t = tsv_open(path, FETCHLOG_COLUMNS, 0, TSV_STRICT);
	uint32_t *id = NULL;
	double *time = NULL;
	size_t rows = 0, cap = 0;
	strmap_init(&fl.urls);
	while (tsv_next(t)) {
		const char *c1 = t->col[1], *status = t->col[2], *redirect = t->col[9];
		if (strcmp(c1, "-") == 0)
			continue;
		int64_t v;
		if (!parse_i64(c1, &v) || v < 0)
			tsv_die(t, "not a fetch log row: bad time '%.40s'", c1);
		bool followed = strcmp(redirect, "-") != 0 && status[0] != '3';
		for (int k = 0; k < 1 + followed; k++) {
			if (rows == cap) {
				cap = cap ? 2 * cap : 1024;
				id = wa_reallocarray(id, cap, sizeof *id);
				time = wa_reallocarray(time, cap, sizeof *time);
			}
			bool added;
			size_t i = strmap_add(&fl.urls, k ? redirect : t->col[0], &added);
			if (added && i == OPIC_MAX_PAGES)
				wa_die("more than %zu URLs", (size_t)OPIC_MAX_PAGES);
			id[rows] = (uint32_t)i;
			time[rows++] = (double)v;
		}
	}
	tsv_close(t);
	/* In order of URL, each URL's times in the log's order. */
	size_t n = fl.urls.count;
	fl.first = wa_calloc(n + 1, sizeof *fl.first);
	fl.next = wa_reallocarray(NULL, n + 1, sizeof *fl.next);
	fl.time = wa_reallocarray(NULL, rows + 1, sizeof *fl.time);
	for (size_t r = 0; r < rows; r++)
		fl.first[id[r] + 1]++;
	for (size_t i = 0; i < n; i++)
		fl.first[i + 1] += fl.first[i];
	memcpy(fl.next, fl.first, (n + 1) * sizeof *fl.next);
	for (size_t r = 0; r < rows; r++)
		fl.time[fl.next[id[r]]++] = time[r];
	memcpy(fl.next, fl.first, (n + 1) * sizeof *fl.next);
	free(id);
	free(time);
}

/* The time of the read of src at line of links: the next fetch time of
 * src in the log. */
static double
fetch_time(const char *links, uint64_t line, const char *src, const char *log)
{
	size_t i = strmap_find(&fl.urls, src);
	unsigned long long l = (unsigned long long)line;
	if (i == STRMAP_NONE)
		wa_die("%s:%llu: no fetch time for %s in %s", links, l, src, log);
	size_t have = fl.first[i + 1] - fl.first[i];
	if (fl.next[i] == fl.first[i + 1])
		wa_die("%s:%llu: read %zu of %s in this run, but %s has %zu fetch time%s"
		    " for it", links, l, have + 1, src, log, have, have == 1 ? "" : "s");
	return fl.time[fl.next[i]++];
}

/* Rows wait in a ring between being read and being used, so that the
 * index slots, strings and pages their URLs need are on their way to the
 * cache while earlier rows are worked on: the index and the pages are
 * larger than the caches, and a lookup is otherwise a few cache misses in
 * a row.  A row keeps a copy of its source only when it starts a new run
 * of rows of that source (a new read). */
#define LOOKAHEAD 16

struct row {
	char *src, *dst;
	size_t src_cap, dst_cap, src_len, dst_len;
	uint64_t src_hash, dst_hash, line;
	bool new_read;
};

static struct row ring[LOOKAHEAD];
static char *last_src;		/* the source of the last row read, across files */
static size_t last_src_cap;

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
use_row(struct row *r, struct group *g, const char *links, const char *log)
{
	if (r->new_read) {
		group_flush(g);
		read_time = log ? fetch_time(links, r->line, r->src, log) : (double)op.reads;
		g->src = intern_hashed(r->src, r->src_len, r->src_hash);
		/* Fetch times need not grow for a page: a page may be
		 * fetched before the read that introduced it, or a log may
		 * be out of order.  Its time cannot precede its last read
		 * or introduction: it is taken to be that one. */
		if (read_time < op.page[g->src].t_last) {
			read_time = op.page[g->src].t_last;
			clamped++;
		}
		g->open = true;
	}
	uint32_t src = g->src;
	uint32_t dst = intern_hashed(r->dst, r->dst_len, r->dst_hash);
	/* wa-linkmat drops self links and duplicates; so do we, so that the
	 * limit is wa-pagerank's vector. */
	if (dst == src || mark[dst] == op.reads + 1)
		return;
	mark[dst] = op.reads + 1;
	group_add(g, dst);
}

/* A source is one read per run of adjacent rows; a source that comes back
 * later is read again, as a crawler refetches pages. */
static void
read_links(const char *path, struct group *g, const char *log)
{
	struct tsv *t = tsv_open(path, 2, 0, TSV_STRICT);
	tsv_check_url(t, 0);
	tsv_check_url(t, 1);
	uint64_t got = 0, used = 0;
	while (tsv_next(t)) {
		struct row *r = &ring[got % LOOKAHEAD];
		if (got - used == LOOKAHEAD)
			use_row(r, g, t->name, log), used++;
		const char *src = t->col[0], *dst = t->col[1];
		r->line = t->line;
		r->new_read = !last_src || strcmp(src, last_src) != 0;
		if (r->new_read) {
			r->src_len = strlen(src);
			r->src_hash = strmap_hash(src, r->src_len);
			copy_text(&r->src, &r->src_cap, src, r->src_len);
			copy_text(&last_src, &last_src_cap, src, r->src_len);
		}
		r->dst_len = strlen(dst);
		r->dst_hash = strmap_hash(dst, r->dst_len);
		copy_text(&r->dst, &r->dst_cap, dst, r->dst_len);
		url_prefetch(r->dst_hash, false);
		const struct row *mid = &ring[(got + LOOKAHEAD / 2) % LOOKAHEAD];
		if (got - used >= LOOKAHEAD / 2)
			url_prefetch(mid->dst_hash, true);
		got++;
	}
	for (; used < got; used++)
		use_row(&ring[used % LOOKAHEAD], g, t->name, log);
	tsv_close(t);
}

static void
free_rows(void)
{
	for (size_t k = 0; k < LOOKAHEAD; k++) {
		free(ring[k].src);
		free(ring[k].dst);
	}
	free(last_src);
}

/* State file, kind "OPIC" version 2 (man/wa-formats.5): aux = { reads,
 * measures, URL bytes }, count = URLs; payload: the head, a record per
 * URL, the measures of every URL in turn, the URLs each ended by a NUL. */
struct state_head {
	uint64_t policy, unit;
	double c, window;
	uint64_t keep;
	double now, virt_cash, virt_hist;
};

struct page_record {
	double cash, hist, t_last, base;
	uint64_t measures;
};

static const char *const policy_option[] = { "", "-W", "-k", "-F" };

/* The options that make a state with these parameters. */
static char *
describe(const struct state_head *h)
{
	const char *s = h->unit == OPIC_SECONDS ? "s" : "";
	switch (h->policy) {
	case OPIC_INTERPOLATION:
		return wa_asprintf("-c %g -W %.15g%s", h->c, h->window, s);
	case OPIC_VARIABLE_WINDOW:
		return wa_asprintf("-c %g -k %llu", h->c, (unsigned long long)h->keep);
	case OPIC_FIXED_WINDOW:
		return wa_asprintf("-c %g -F %.15g%s --min-measures %llu", h->c, h->window,
		    s, (unsigned long long)h->keep);
	}
	return wa_asprintf("-c %g (plain OPIC)", h->c);
}

static bool
finite_nonneg(double v)
{
	return isfinite(v) && v >= 0;
}

static void
check_head(const char *path, const struct state_head *h, uint64_t reads)
{
	if (h->policy > OPIC_FIXED_WINDOW || h->unit > OPIC_SECONDS)
		wa_die("%s: bad policy %llu or time unit %llu", path,
		    (unsigned long long)h->policy, (unsigned long long)h->unit);
	bool windowed = h->policy == OPIC_INTERPOLATION || h->policy == OPIC_FIXED_WINDOW;
	if (!(h->c >= 0 && h->c <= 1) || !finite_nonneg(h->window) ||
	    windowed != (h->window > 0))
		wa_die("%s: bad c %g or window %g", path, h->c, h->window);
	if (h->policy == OPIC_VARIABLE_WINDOW ? h->keep < 1 || h->keep > OPIC_MAX_MEASURES :
	    h->policy == OPIC_FIXED_WINDOW ? h->keep > OPIC_MAX_MEASURES : h->keep != 0)
		wa_die("%s: bad number of measures %llu", path,
		    (unsigned long long)h->keep);
	if (!finite_nonneg(h->now) || (h->unit == OPIC_READS && h->now != (double)reads))
		wa_die("%s: bad time now %g after %llu reads", path, h->now,
		    (unsigned long long)reads);
	if (!finite_nonneg(h->virt_cash) || !finite_nonneg(h->virt_hist))
		wa_die("%s: bad virtual page cash %g or history %g", path, h->virt_cash,
		    h->virt_hist);
}

/* Checks the sizes of a state of n URLs, m measures, b URL bytes against
 * the payload's, without overflow. */
static bool
sizes_agree(uint64_t payload, uint64_t n, uint64_t m, uint64_t b)
{
	uint64_t recs, meas, total;
	return !__builtin_mul_overflow(n, sizeof(struct page_record), &recs) &&
	    !__builtin_mul_overflow(m, sizeof(struct opic_measure), &meas) &&
	    !__builtin_add_overflow(recs, meas, &total) &&
	    !__builtin_add_overflow(total, b, &total) &&
	    !__builtin_add_overflow(total, sizeof(struct state_head), &total) &&
	    total == payload;
}

static void
load_page(const char *path, uint64_t i, const struct page_record *r,
    const struct opic_measure *m)
{
	unsigned long long u = (unsigned long long)i;
	size_t limit = opic_measure_limit(&op);
	if (!finite_nonneg(r->cash) || !finite_nonneg(r->hist))
		wa_die("%s: URL %llu: bad cash %g or history %g", path, u, r->cash,
		    r->hist);
	if (!finite_nonneg(r->base) || !(r->base <= r->t_last && r->t_last <= op.now))
		wa_die("%s: URL %llu: times %g, %g out of order (now %g)", path, u,
		    r->base, r->t_last, op.now);
	if (r->measures > limit)
		wa_die("%s: URL %llu: %llu measures, more than %zu", path, u,
		    (unsigned long long)r->measures, limit);
	struct opic_page *p = &op.page[i];
	*p = (struct opic_page){ .hist = r->hist, .t_last = r->t_last, .base = r->base,
	    .nm = (uint32_t)r->measures, .mcap = (uint32_t)r->measures };
	op.cash[i] = (struct opic_cash){ .cash = r->cash };
	op.n++;
	if (!p->nm)
		return;
	double prev = r->base;
	for (size_t k = 0; k < p->nm; k++) {
		if (!finite_nonneg(m[k].cash) || !(m[k].time >= prev && m[k].time <= r->t_last))
			wa_die("%s: URL %llu: bad measure %zu (cash %g, time %g)", path, u,
			    k, m[k].cash, m[k].time);
		prev = m[k].time;
	}
	p->m = wa_reallocarray(NULL, p->nm, sizeof *p->m);
	memcpy(p->m, m, p->nm * sizeof *p->m);
}

/* Loads the state, or sets up a new one from the options.  The options
 * given must agree with an existing state's. */
static void
load(const char *path, const struct state_head *want, bool c_given, bool policy_given)
{
	struct bin_map m;
	const char *msg;
	strmap_init(&urls);
	opic_init(&op, (enum opic_policy)want->policy, (enum opic_unit)want->unit, want->c,
	    want->window, want->keep);
	struct stat sb;
	if (stat(path, &sb) == -1) {
		if (errno == ENOENT)
			return;
		wa_die_errno("%s", path);
	}
	if ((msg = bin_map_open(&m, path, "OPIC", 2, 0))) {
		struct bin_map old;
		if (!bin_map_open(&old, path, "OPIC", 1, 0)) {
			bin_map_close(&old);
			wa_die("%s: an OPIC state of version 1, from an earlier wa-opic:"
			    " this one reads version 2 only; start a new state", path);
		}
		wa_die("%s", msg);
	}
	uint64_t n = m.h.count, reads = m.h.aux[0], nmeas = m.h.aux[1], bytes = m.h.aux[2];
	if (m.h.payload_bytes < sizeof(struct state_head))
		wa_die("%s: state too short for its head", path);
	const struct state_head *h = m.data;
	check_head(path, h, reads);
	if (n > OPIC_MAX_PAGES || !sizes_agree(m.h.payload_bytes, n, nmeas, bytes))
		wa_die("%s: state sizes do not agree (%llu URLs, %llu measures, %llu URL"
		    " bytes, %llu payload bytes)", path, (unsigned long long)n,
		    (unsigned long long)nmeas, (unsigned long long)bytes,
		    (unsigned long long)m.h.payload_bytes);
	if ((c_given && h->c != want->c) || (policy_given && (h->policy != want->policy ||
	    h->window != want->window || h->keep != want->keep)))
		wa_usage_error("%s was made with %s", path, describe(h));
	if (h->unit != want->unit)
		wa_usage_error(h->unit == OPIC_SECONDS ?
		    "%s counts time in seconds of fetch logs: give -t FETCHLOG" :
		    "%s counts time in page reads: -t cannot be used with it", path);
	opic_init(&op, (enum opic_policy)h->policy, (enum opic_unit)h->unit, h->c, h->window,
	    h->keep);
	op.now = h->now;
	op.virt_cash = h->virt_cash;
	op.virt_hist = h->virt_hist;
	op.reads = reads;

	const struct page_record *rec = (const void *)(h + 1);
	const struct opic_measure *meas = (const void *)(rec + n);
	const char *s = (const char *)(meas + nmeas), *end = s + bytes;
	opic_reserve(&op, n ? n : 1);
	mark_cap = op.cap;
	mark = wa_calloc(mark_cap, sizeof *mark);
	uint64_t used = 0;
	double cash = op.virt_cash;
	for (uint64_t i = 0; i < n; i++) {
		const char *nul = memchr(s, '\0', (size_t)(end - s));
		if (!nul || nul == s)
			wa_die("%s: URL %llu is %s", path, (unsigned long long)i,
			    nul ? "empty" : "not NUL-terminated");
		bool added;
		if (strmap_add(&urls, s, &added) != i || !added)
			wa_die("%s: URL %llu appears twice: %s", path,
			    (unsigned long long)i, s);
		if (rec[i].measures > nmeas - used)
			wa_die("%s: URL %llu: measures beyond the %llu of the state",
			    path, (unsigned long long)i, (unsigned long long)nmeas);
		load_page(path, i, &rec[i], meas + used);
		used += rec[i].measures;
		cash += rec[i].cash;
		s = nul + 1;
	}
	if (s != end)
		wa_die("%s: %zu bytes after the last URL", path, (size_t)(end - s));
	if (used != nmeas)
		wa_die("%s: the URLs hold %llu measures, the state %llu", path,
		    (unsigned long long)used, (unsigned long long)nmeas);
	if (fabs(cash - 1) > 1e-6)
		wa_die("%s: the total cash is %.17g, not 1", path, cash);
	bin_map_close(&m);
}

static void
save(const char *path)
{
	struct bin_writer *w = bin_create(path, "OPIC", 2);
	struct state_head head = { op.policy, op.unit, op.c, op.window, op.keep,
	    op.now, op.virt_cash, op.virt_hist };
	uint64_t bytes = 0, nmeas = 0;
	bin_write(w, &head, sizeof head);
	for (size_t i = 0; i < op.n; i++) {
		const struct opic_page *p = &op.page[i];
		struct page_record r = { op.cash[i].cash, p->hist, p->t_last, p->base, p->nm };
		bin_write(w, &r, sizeof r);
		nmeas += p->nm;
	}
	for (size_t i = 0; i < op.n; i++)
		if (op.page[i].nm)
			bin_write(w, op.page[i].m, op.page[i].nm * sizeof *op.page[i].m);
	for (size_t i = 0; i < op.n; i++) {
		size_t len = strlen(url_of(i)) + 1;
		bin_write(w, url_of(i), len);
		bytes += len;
	}
	uint64_t aux[3] = { op.reads, nmeas, bytes };
	bin_commit(w, op.n, aux);
}

static int
by_url(const void *a, const void *b)
{
	return strcmp(url_of(*(const uint32_t *)a), url_of(*(const uint32_t *)b));
}

static bool
url_before(uint32_t i, uint32_t j, void *unused)
{
	(void)unused;
	return strcmp(url_of(i), url_of(j)) < 0;
}

/* The importance of every URL in byte order of URLs, or the greedy list
 * of the next URLs to read (url TAB cash). */
static void
write_output(uint64_t next)
{
	size_t n = op.n;
	uint32_t *order = wa_reallocarray(NULL, n ? n : 1, sizeof *order);
	size_t rows;
	double *key = NULL;
	if (next)
		rows = opic_greedy(&op, next < n ? (size_t)next : n, order, url_before, NULL);
	else {
		key = wa_reallocarray(NULL, n ? n : 1, sizeof *key);
		opic_importance(&op, key);
		for (size_t i = 0; i < n; i++)
			order[i] = (uint32_t)i;
		qsort(order, n, sizeof *order, by_url);
		rows = n;
	}
	for (size_t k = 0; k < rows; k++) {
		uint32_t i = order[k];
		printf("%s\t%.17g\n", url_of(i), next ? op.cash[i].cash : key[i]);
	}
	if (fflush(stdout) == EOF || ferror(stdout))
		wa_die_errno("standard output");
	free(order);
	free(key);
}

/* -W or -F's T: reads, or a duration with -t. */
static double
window_arg(const char *opt, const char *arg, bool seconds)
{
	if (!seconds)
		return (double)opt_count(opt, arg, 1, UINT64_C(1) << 52);
	double v = opt_duration(opt, arg);
	if (!(v > 0 && v <= 1e15))
		wa_usage_error("%s: the window must be longer than 0s", opt);
	return v;
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "next", required_argument, NULL, OPT_NEXT },
		{ "min-measures", required_argument, NULL, OPT_MIN_MEASURES },
		WA_COMMON_LONGOPTS
	};
	const char *state = NULL, *log = NULL, *window_text = NULL, *min_text = NULL;
	struct state_head want = { .policy = OPIC_PLAIN, .c = 0.85 };
	bool c_given = false, x_given = false;
	int policies = 0;
	uint64_t next = 0;
	int opt;

	wa_init(argc, argv, usage);
	while ((opt = getopt_long(argc, argv, "c:f:F:hk:qs:t:W:x:", longopts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			want.c = opt_double("-c", optarg, 0, 1);
			c_given = true;
			break;
		case 'f':
			if (!*optarg)
				wa_usage_error("-f: empty text");
			focus = optarg;
			break;
		case 'F':
		case 'W':
			want.policy = opt == 'F' ? OPIC_FIXED_WINDOW : OPIC_INTERPOLATION;
			window_text = optarg;
			policies++;
			break;
		case 'k':
			want.policy = OPIC_VARIABLE_WINDOW;
			want.keep = opt_count("-k", optarg, 1, OPIC_MAX_MEASURES);
			policies++;
			break;
		case 's':
			state = optarg;
			break;
		case 't':
			log = optarg;
			break;
		case 'x':
			focus_share = opt_double("-x", optarg, 0, 1);
			x_given = true;
			break;
		case OPT_NEXT:
			next = opt_count("--next", optarg, 1, UINT64_MAX);
			break;
		case OPT_MIN_MEASURES:
			min_text = optarg;
			break;
		default:
			wa_common_option(opt);
		}
	}
	if (!state)
		wa_usage_error("-s STATE is required");
	if (policies > 1)
		wa_usage_error("-W, -k and -F are window policies: choose one");
	if (x_given && !focus)
		wa_usage_error("-x needs -f");
	if (min_text && want.policy != OPIC_FIXED_WINDOW)
		wa_usage_error("--min-measures needs -F");
	want.unit = log ? OPIC_SECONDS : OPIC_READS;
	if (window_text)
		want.window = window_arg(policy_option[want.policy], window_text, log != NULL);
	if (min_text)
		want.keep = opt_count("--min-measures", min_text, 0, OPIC_MAX_MEASURES);

	load(state, &want, c_given, policies > 0);
	op.focus_share = focus_share;
	if (log)
		load_fetch_log(log);
	struct group g = { 0 };
	progress_start(&pg, "page reads", 0);
	if (optind == argc)
		read_links(NULL, &g, log);
	for (int i = optind; i < argc; i++)
		read_links(argv[i], &g, log);
	group_flush(&g);
	progress_end(&pg);
	opic_settle(&op);
	/* The state last: an output that cannot be written leaves the state
	 * as it was, so that a rerun does not count the reads twice. */
	write_output(next);
	save(state);
	if (clamped)
		wa_note("%llu read%s earlier than the page's previous read or"
		    " introduction taken at that time", (unsigned long long)clamped,
		    clamped == 1 ? "" : "s");
	if (op.capped)
		wa_warn("%llu read%s found the page's %d measures full: the oldest"
		    " left the window early", (unsigned long long)op.capped,
		    op.capped == 1 ? "" : "s", OPIC_MAX_MEASURES);
	free(g.child);
	free(g.focused);
	free_rows();
	opic_free(&op);
	free(mark);
	strmap_free(&urls, NULL);
	if (log) {
		strmap_free(&fl.urls, NULL);
		free(fl.first);
		free(fl.next);
		free(fl.time);
	}
	return WA_EXIT_OK;
}
