/* wa-opic: on-line page importance (OPIC) from fetched pages' links in
 * crawl order, after Abiteboul, Preda, Cobena, "Adaptive On-Line Page
 * Importance Computation" (seed 004): cash, history, the virtual page of
 * sec. 1 ("small edges"), Lemma 2.3, and Adaptive OPIC's Interpolation
 * and Variable Window policies of sec. 3.  The state persists in a binary file (binfile.h). */
#include <sys/stat.h>

#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic.h"
#include "binfile.h"
#include "opt.h"
#include "strmap.h"
#include "wa.h"

static const char usage[] =
    "usage: wa-opic -s STATE [-q] [-c C] [-W READS | -k K] [-f TEXT -x SHARE]\n"
    "               [--next K] [LINKS...]\n"
    "Reads fetched pages' links (src TAB dst, grouped by source, in crawl\n"
    "order) from the LINKS files or stdin, updates the OPIC state in STATE\n"
    "(created when absent) and writes url TAB importance for every known URL.\n"
    "  -s STATE  the state file (required)\n"
    "  -c C      share of a page's cash given to its links (default 0.85)\n"
    "  -W READS  Adaptive OPIC, Interpolation window of READS page reads\n"
    "            (default: plain OPIC, all history); fixed once the state exists\n"
    "  -k K      Adaptive OPIC, Variable Window of the last K reads (K <= 64)\n"
    "  -f TEXT   focus: URLs containing TEXT get extra cash from the virtual page\n"
    "  -x SHARE  share of the virtual page's cash given to them (default 0.5)\n"
    "  --next K  write the K URLs with the most cash instead (url TAB cash)\n"
    "  -q        no progress line\n"
    "  -h        this help;  --version  the version\n"
    "See wa-opic(1).\n";

enum { OPT_NEXT = WA_OPT_FIRST_TOOL };

/* One known URL.  seen is the virtual page's cumulative gift per page
 * when this page's cash was last brought up to date: the virtual page
 * spreads its cash over all pages in O(1) by raising "spread", and a page
 * collects spread - seen when it is read or written out. */
struct page {
	double cash, hist, seen, t_last;
	uint64_t mark;		/* read number that last linked here (dedup) */
};

struct state {
	struct page *page;
	char **url;
	size_t n, cap;
	struct strmap index;	/* URL -> index + 1 */
	double virt_cash, virt_hist, spread, c, window;
	uint64_t reads;
	/* Variable Window: per page, the read number before its oldest kept
	 * measure (or of its introduction), the number of measures kept, then
	 * measures pairs (cash, read number), oldest first. */
	size_t measures;
	double *meas;
};

#define MAX_MEASURES 64

#define RECENT 64	/* new pages whose history gives a new page's */

static struct state st;
static size_t recent[RECENT];
static size_t nrecent;
static const char *focus;
static double focus_share = 0.5;
static struct progress pg;

static void
collect(struct page *p)
{
	p->cash += st.spread - p->seen;
	p->seen = st.spread;
}

/* Seed 004 sec. 3: a new page gets a default history, the importance of
 * recently introduced pages (here the mean history of the last RECENT
 * URLs introduced), and no cash, so the total cash stays 1. */
static size_t
intern(const char *url)
{
	uintptr_t v = (uintptr_t)strmap_get(&st.index, url);
	if (v)
		return v - 1;
	if (st.n == st.cap) {
		st.cap = st.cap ? 2 * st.cap : 1024;
		st.page = wa_reallocarray(st.page, st.cap, sizeof *st.page);
		st.url = wa_reallocarray(st.url, st.cap, sizeof *st.url);
		if (st.measures)
			st.meas = wa_reallocarray(st.meas, st.cap,
			    (2 + 2 * st.measures) * sizeof *st.meas);
	}
	size_t i = st.n++;
	double h = 0;
	for (size_t k = 0; k < nrecent; k++)
		h += st.page[recent[k]].hist;
	st.page[i] = (struct page){ .hist = nrecent ? h / (double)nrecent : 0,
	    .seen = st.spread, .t_last = (double)st.reads };
	if (st.measures) {
		double *m = st.meas + i * (2 + 2 * st.measures);
		memset(m, 0, (2 + 2 * st.measures) * sizeof *m);
		m[0] = (double)st.reads;
	}
	st.url[i] = (char *)strmap_put(&st.index, url, (void *)(i + 1));
	recent[(st.n - 1) % RECENT] = i;
	if (nrecent < RECENT)
		nrecent++;
	return i;
}

/* The virtual page is read after every page: it spreads its cash over all
 * known pages, part of it first to the focus pages. */
static void
read_virtual(const size_t *focused, size_t nfocused)
{
	double give = st.virt_cash;
	st.virt_hist += give;
	st.virt_cash = 0;
	if (nfocused) {
		double each = give * focus_share / (double)nfocused;
		for (size_t k = 0; k < nfocused; k++)
			st.page[focused[k]].cash += each;
		give -= each * (double)nfocused;
	}
	st.spread += give / (double)st.n;
}

/* Variable Window: the history is the sum of the last K measures. */
static void
add_measure(size_t i, double cash, double now)
{
	double *m = st.meas + i * (2 + 2 * st.measures), *pair = m + 2;
	size_t kept = (size_t)m[1];
	if (kept == st.measures) {
		m[0] = pair[1];
		memmove(pair, pair + 2, 2 * (kept - 1) * sizeof *pair);
		kept--;
	}
	pair[2 * kept] = cash;
	pair[2 * kept + 1] = now;
	m[1] = (double)++kept;
	double h = 0;
	for (size_t k = 0; k < kept; k++)
		h += pair[2 * k];
	st.page[i].hist = h;
}

/* Reads page src with its distinct children: the history takes its cash
 * (Interpolation: H' = H (T - dt)/T + cash, dt the reads since the last
 * read, H dropped when dt >= T; Variable Window: the last K cashes), c of
 * the cash goes to the children, the rest (all of it without children) to
 * the virtual page. */
static void
read_page(size_t src, const size_t *child, size_t nchild, const size_t *focused,
    size_t nfocused)
{
	struct page *p = &st.page[src];
	collect(p);
	double cash = p->cash, now = (double)st.reads;
	if (st.window > 0) {
		double dt = now - p->t_last;
		p->hist = dt >= st.window ? 0 : p->hist * (st.window - dt) / st.window;
	}
	if (st.measures)
		add_measure(src, cash, now);
	else
		p->hist += cash;
	p->t_last = now;
	p->cash = 0;
	double to_children = nchild ? st.c * cash : 0;
	for (size_t k = 0; k < nchild; k++) {
		struct page *q = &st.page[child[k]];
		collect(q);
		q->cash += to_children / (double)nchild;
	}
	st.virt_cash += cash - to_children;
	st.reads++;
	read_virtual(focused, nfocused);
}

struct group {
	size_t *child, *focused;
	size_t nchild, nfocused, cap;
	size_t src;
	bool open;
};

static void
group_add(struct group *g, size_t i)
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
			if (strstr(st.url[g->child[k]], focus))
				g->focused[g->nfocused++] = g->child[k];
	read_page(g->src, g->child, g->nchild, g->focused, g->nfocused);
	g->nchild = 0;
	g->open = false;
	progress_set(&pg, st.reads);
}

/* A source is one read per run of adjacent rows; a source that comes back
 * later is read again, as a crawler refetches pages. */
static void
read_links(const char *path, struct group *g)
{
	struct tsv *t = tsv_open(path, 2, 0, TSV_STRICT);
	tsv_check_url(t, 0);
	tsv_check_url(t, 1);
	while (tsv_next(t)) {
		/* The previous page is read before this one's URLs enter. */
		if (!g->open || strcmp(t->col[0], st.url[g->src]) != 0) {
			group_flush(g);
			g->src = intern(t->col[0]);
			g->open = true;
		}
		size_t src = g->src;
		size_t dst = intern(t->col[1]);
		/* wa-linkmat drops self links and duplicates; so do we, so that
		 * the limit is wa-pagerank's vector. */
		if (dst == src || st.page[dst].mark == st.reads + 1)
			continue;
		st.page[dst].mark = st.reads + 1;
		group_add(g, dst);
	}
	tsv_close(t);
}

/* State file, kind "OPIC" version 1: aux = { URLs, reads, URL bytes };
 * payload: 5 doubles (c, window, measures K, virtual cash, virtual
 * history), per URL 3 doubles (cash, history, read number of the last
 * read) and with K > 0 the 2 + 2K of st.meas, then the URLs, each ended by
 * a NUL. */
#define HEAD_DOUBLES 5

static void
load(const char *path, double c, double window, size_t measures, bool c_given,
    bool w_given)
{
	struct bin_map m;
	const char *msg;
	strmap_init(&st.index);
	st.c = c;
	st.window = window;
	st.measures = measures;
	st.virt_cash = 1;
	struct stat sb;
	if (stat(path, &sb) == -1) {
		if (errno == ENOENT)
			return;
		wa_die_errno("%s", path);
	}
	if ((msg = bin_map_open(&m, path, "OPIC", 1, 0)))
		wa_die("%s", msg);
	uint64_t n = m.h.count, bytes = m.h.aux[2];
	const double *d = m.data;
	if (m.h.payload_bytes < HEAD_DOUBLES * sizeof(double))
		wa_die("%s: state too short", path);
	if (!(d[2] >= 0 && d[2] <= MAX_MEASURES && d[2] == (size_t)d[2]))
		wa_die("%s: bad number of measures %g", path, d[2]);
	size_t kept = (size_t)d[2], rec = 3 + (kept ? 2 + 2 * kept : 0);
	if (m.h.aux[0] != n || n > SIZE_MAX / 1024 ||
	    m.h.payload_bytes != (HEAD_DOUBLES + rec * n) * sizeof(double) + bytes)
		wa_die("%s: state sizes do not agree (%llu URLs, %llu payload bytes)",
		    path, (unsigned long long)n, (unsigned long long)m.h.payload_bytes);
	if ((c_given && d[0] != c) || (w_given && (d[1] != window ||
	    kept != measures)))
		wa_usage_error("%s was made with -c %g -W %g -k %zu", path, d[0],
		    d[1], kept);
	st.c = d[0];
	st.window = d[1];
	st.measures = kept;
	st.virt_cash = d[3];
	st.virt_hist = d[4];
	st.reads = m.h.aux[1];
	const char *s = (const char *)(d + HEAD_DOUBLES + rec * n), *end = s + bytes;
	for (uint64_t i = 0; i < n; i++) {
		const char *nul = memchr(s, '\0', (size_t)(end - s));
		if (!nul)
			wa_die("%s: URL %llu is not NUL-terminated", path,
			    (unsigned long long)i);
		if (intern(s) != i)
			wa_die("%s: URL %llu appears twice: %s", path,
			    (unsigned long long)i, s);
		const double *r = d + HEAD_DOUBLES + rec * i;
		st.page[i] = (struct page){ .cash = r[0], .hist = r[1],
		    .t_last = r[2], .seen = 0 };
		if (kept) {
			if (!(r[4] >= 0 && r[4] <= (double)kept))
				wa_die("%s: URL %llu: bad measure count %g", path,
				    (unsigned long long)i, r[4]);
			memcpy(st.meas + i * (rec - 3), r + 3, (rec - 3) * sizeof *r);
		}
		s = nul + 1;
	}
	if (s != end)
		wa_die("%s: %zu bytes after the last URL", path, (size_t)(end - s));
	bin_map_close(&m);
}

static void
save(const char *path)
{
	struct bin_writer *w = bin_create(path, "OPIC", 1);
	double head[HEAD_DOUBLES] = { st.c, st.window, (double)st.measures,
	    st.virt_cash, st.virt_hist };
	uint64_t bytes = 0;
	bin_write(w, head, sizeof head);
	for (size_t i = 0; i < st.n; i++) {
		collect(&st.page[i]);
		double r[3] = { st.page[i].cash, st.page[i].hist, st.page[i].t_last };
		bin_write(w, r, sizeof r);
		if (st.measures)
			bin_write(w, st.meas + i * (2 + 2 * st.measures),
			    (2 + 2 * st.measures) * sizeof *st.meas);
	}
	for (size_t i = 0; i < st.n; i++) {
		size_t len = strlen(st.url[i]) + 1;
		bin_write(w, st.url[i], len);
		bytes += len;
	}
	uint64_t aux[3] = { st.n, st.reads, bytes };
	bin_commit(w, st.n, aux);
}

static const char *const *sort_urls;
static const double *sort_key;

static int
by_url(const void *a, const void *b)
{
	return strcmp(sort_urls[*(const size_t *)a], sort_urls[*(const size_t *)b]);
}

static int
by_cash(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	if (sort_key[i] != sort_key[j])
		return sort_key[i] > sort_key[j] ? -1 : 1;
	return strcmp(sort_urls[i], sort_urls[j]);
}

/* Importance of page i: (H[i] + C[i]) / sum over the known pages, the
 * estimate of seed 004 sec. 2 restricted to the real pages so that it
 * compares with wa-pagerank's vector; with the Variable Window, H + C is
 * first divided by the reads it covers, since the last read before the
 * oldest measure. */
static void
write_output(uint64_t next)
{
	size_t *order = wa_reallocarray(NULL, st.n ? st.n : 1, sizeof *order);
	double *key = wa_reallocarray(NULL, st.n ? st.n : 1, sizeof *key);
	double total = 0;
	for (size_t i = 0; i < st.n; i++) {
		order[i] = i;
		collect(&st.page[i]);
		key[i] = next ? st.page[i].cash : st.page[i].hist + st.page[i].cash;
		if (!next && st.measures)
			key[i] /= (double)st.reads - st.meas[i * (2 + 2 * st.measures)];
		total += key[i];
	}
	sort_urls = (const char *const *)st.url;
	sort_key = key;
	qsort(order, st.n, sizeof *order, next ? by_cash : by_url);
	size_t rows = next && next < st.n ? next : st.n;
	for (size_t k = 0; k < rows; k++) {
		size_t i = order[k];
		printf("%s\t%.17g\n", st.url[i], next || total == 0 ? key[i] : key[i] / total);
	}
	if (fflush(stdout) == EOF || ferror(stdout))
		wa_die_errno("standard output");
	free(order);
	free(key);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "next", required_argument, NULL, OPT_NEXT },
		WA_COMMON_LONGOPTS
	};
	const char *state = NULL;
	double c = 0.85, window = 0;
	bool c_given = false, w_given = false, x_given = false;
	uint64_t next = 0;
	size_t measures = 0;
	int opt;

	wa_init(argc, argv, usage);
	while ((opt = getopt_long(argc, argv, "c:f:hk:qs:W:x:", longopts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			c = opt_double("-c", optarg, 0, 1);
			c_given = true;
			break;
		case 'f':
			if (!*optarg)
				wa_usage_error("-f: empty text");
			focus = optarg;
			break;
		case 'k':
			measures = opt_count("-k", optarg, 1, MAX_MEASURES);
			w_given = true;
			break;
		case 's':
			state = optarg;
			break;
		case 'W':
			window = (double)opt_count("-W", optarg, 1, UINT64_C(1) << 52);
			w_given = true;
			break;
		case 'x':
			focus_share = opt_double("-x", optarg, 0, 1);
			x_given = true;
			break;
		case OPT_NEXT:
			next = opt_count("--next", optarg, 1, UINT64_MAX);
			break;
		default:
			wa_common_option(opt);
		}
	}
	if (!state)
		wa_usage_error("-s STATE is required");
	if (window > 0 && measures)
		wa_usage_error("-W and -k are two window policies: choose one");
	if (x_given && !focus)
		wa_usage_error("-x needs -f");

	load(state, c, window, measures, c_given, w_given);
	struct group g = { 0 };
	progress_start(&pg, "page reads", 0);
	if (optind == argc)
		read_links(NULL, &g);
	for (int i = optind; i < argc; i++)
		read_links(argv[i], &g);
	group_flush(&g);
	progress_end(&pg);
	save(state);
	write_output(next);
	free(g.child);
	free(g.focused);
	free(st.page);
	free(st.url);
	free(st.meas);
	strmap_free(&st.index, NULL);
	return WA_EXIT_OK;
}
