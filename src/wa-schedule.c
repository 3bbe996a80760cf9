/* wa-schedule: the fetch list of the next acquisition cycle, from the page
 * state (man/wa-formats.5): refresh at the frequencies that minimise the
 * cost of obsolescence under the crawler's bandwidth (Preda, "Data
 * Acquisition for an XML Warehouse", 2000, ch. 3, eq. 3.7-3.8, with the
 * refresh cycle time of Mignet, Preda, Abiteboul et al., "Acquisition and
 * Maintenance of XML Data from the Web", 2000, sec. 4 as a cap solved by
 * exact water-filling), discovery shares sigma_X and sigma_H and the
 * importance factor chi (Mignet et al., sec. 2), categories and publication
 * overrides (Preda, ch. 5), sites interleaved by the Length idea of
 * Castillo, "Effective Web Crawling", 2004, ch. 6.
 *
 * Two passes over the page state, memory bounded by the fetch list: pass 1
 * sums S and keeps the largest G*T+1 values u_i = (w_i lambda_i^alpha)^(1/
 * (alpha+1)), which hold every page the cap can bind (each capped page uses
 * 1/T of G); pass 2 computes each f_i and selects the list with bounded
 * heaps. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pagetype.h"
#include "url.h"
#include "wa.h"

static const char usage[] =
    "usage: wa-schedule -G PAGES_PER_DAY [-T TIME] [--alpha A] [--now TIME]\n"
    "           [-F FILE] [-s FILE] [options] [STATE...]\n"
    "Writes the fetch list of the next cycle from the page state (stdin when\n"
    "no file; it is read twice, so stdin is spooled to a temporary file).\n"
    "  -G RATE          crawler bandwidth, pages/day (required)\n"
    "  -T TIME          refresh cycle time, the minimum refresh interval (6h)\n"
    "  --alpha A        exponent of the cost w (lambda t)^alpha (0.95)\n"
    "  --chi X          average XML weight / average HTML weight (1)\n"
    "  --discover-xml P percent of the G*T fetches for new XML suspects (20)\n"
    "  --discover-html P percent for other never-fetched pages (20)\n"
    "  --categories FILE  category, factor rows\n"
    "  --overrides FILE   schedule overrides: url, never|now|period, seconds\n"
    "  --cash FILE      url, cash (wa-opic): ranks discovery instead of importance\n"
    "  --now TIME       the clock (now)\n"
    "  --ahead TIME     plan the cycle that starts TIME after the clock (0)\n"
    "  --retry-max TIME longest wait before a failed page is tried again (30d)\n"
    "  -F FILE          every page's plan: url, f, due, capped\n"
    "  -s FILE          the summary as key, value rows\n"
    "  -q               no progress or summary on stderr\n"
    "  -h               this help;  --version  the version\n"
    "See wa-schedule(1).\n";

enum {
	OPT_ALPHA = WA_OPT_FIRST_TOOL, OPT_CHI, OPT_DISCOVER_XML,
	OPT_DISCOVER_HTML, OPT_CATEGORIES, OPT_OVERRIDES, OPT_CASH, OPT_AHEAD, OPT_RETRY_MAX,
};

/* Beyond year 9999 a due time means "not in any foreseeable cycle". */
#define DUE_MAX 253402300799.0
#define SECONDS_PER_DAY 86400.0

/* Options. */
static double bandwidth;		/* G, pages/day */
static double cycle_days = 0.25;	/* T */
static double alpha = 0.95;
static double chi = 1;
static double share_xml = 20, share_html = 20;
static double retry_max = 30 * 86400.0;	/* seconds */
static int64_t now;
static const char *categories_path, *overrides_path, *cash_path;
static const char *plan_path, *summary_path;

/* Page state columns. */
enum { COL_URL, COL_TYPE, COL_IMPORTANCE, COL_USEFULNESS, COL_LAMBDA,
	COL_ACCESS, COL_CATEGORY, STATE_COLS, COL_FAILURES = STATE_COLS };

/* ---- categories ---- */

struct category {
	char *name;
	double factor;
};
static struct category *categories;
static size_t ncategories;

static int
category_cmp(const void *a, const void *b)
{
	return strcmp(((const struct category *)a)->name,
	    ((const struct category *)b)->name);
}

static void
read_categories(const char *path)
{
	struct tsv *t = tsv_open(path, 2, 2, TSV_STRICT);
	size_t cap = 0;
	while (tsv_next(t)) {
		double f;
		if (strcmp(t->col[0], "-") == 0)
			tsv_die(t, "category '-' is the page without category; its factor is 1");
		if (!parse_double(t->col[1], &f) || !(f > 0) || !isfinite(f))
			tsv_die(t, "factor '%.40s' is not a positive number", t->col[1]);
		for (size_t i = 0; i < ncategories; i++)
			if (strcmp(categories[i].name, t->col[0]) == 0)
				tsv_die(t, "category '%.100s' given twice", t->col[0]);
		if (ncategories == cap) {
			cap = cap ? 2 * cap : 16;
			categories = wa_reallocarray(categories, cap, sizeof *categories);
		}
		categories[ncategories].name = wa_strdup(t->col[0]);
		categories[ncategories++].factor = f;
	}
	tsv_close(t);
	qsort(categories, ncategories, sizeof *categories, category_cmp);
}

static double
category_factor(struct tsv *t, const char *name)
{
	if (strcmp(name, "-") == 0)
		return 1;
	struct category key = { .name = (char *)name };
	const struct category *c = bsearch(&key, categories, ncategories,
	    sizeof *categories, category_cmp);
	if (c == NULL)
		tsv_die(t, "category '%.100s' is not in the categories file%s",
		    name, categories_path ? "" : " (no --categories given)");
	return c->factor;
}

/* ---- side streams joined by URL: overrides and cash ---- */

struct side {
	struct tsv *t;
	bool have;		/* t->col holds the current row */
	bool matched;		/* and a page of the state had its URL */
	uint64_t unmatched;	/* rows whose URL is not in the page state */
	char *first_unmatched;
};

static void
side_open(struct side *s, const char *path, size_t cols)
{
	memset(s, 0, sizeof *s);
	if (path == NULL)
		return;
	s->t = tsv_open(path, cols, cols, TSV_STRICT);
	tsv_check_url(s->t, 0);
	tsv_check_sorted(s->t, 0, true);
	s->have = tsv_next(s->t);
}

/* Advances to url; true if the side stream has a row for it. */
static bool
side_find(struct side *s, const char *url)
{
	while (s->have) {
		int c = strcmp(s->t->col[0], url);
		if (c == 0)
			return s->matched = true;
		if (c > 0)
			return false;
		if (s->matched)
			s->matched = false;
		else if (s->unmatched++ == 0)
			s->first_unmatched = wa_strdup(s->t->col[0]);
		s->have = tsv_next(s->t);
	}
	return false;
}

static void
side_close(struct side *s, bool report)
{
	if (s->t == NULL)
		return;
	while (s->have) {
		if (s->matched)
			s->matched = false;
		else if (s->unmatched++ == 0)
			s->first_unmatched = wa_strdup(s->t->col[0]);
		s->have = tsv_next(s->t);
	}
	if (report && s->unmatched)
		wa_warn("%s: %" PRIu64 " URLs not in the page state, ignored (first: %.200s)",
		    s->t->name, s->unmatched, s->first_unmatched);
	free(s->first_unmatched);
	tsv_close(s->t);
	memset(s, 0, sizeof *s);
}

/* ---- bounded heaps ---- */

/* A min-heap of the n largest doubles seen. */
struct top_u {
	double *v;
	size_t n, cap;
};

static void
top_u_push(struct top_u *h, double u)
{
	size_t i;
	if (h->cap == 0)
		return;
	if (h->n == h->cap) {
		if (u <= h->v[0])
			return;
		i = 0;		/* sift the new value down from the root */
		for (;;) {
			size_t c = 2 * i + 1;
			if (c >= h->n)
				break;
			if (c + 1 < h->n && h->v[c + 1] < h->v[c])
				c++;
			if (h->v[c] >= u)
				break;
			h->v[i] = h->v[c];
			i = c;
		}
		h->v[i] = u;
		return;
	}
	for (i = h->n++; i > 0 && h->v[(i - 1) / 2] > u; i = (i - 1) / 2)
		h->v[i] = h->v[(i - 1) / 2];
	h->v[i] = u;
}

/* In the order of their priority.  An early refresh is of a page not yet
 * due, fetched T or more ago, in slots that nothing else can use; one
 * without a frequency (a sitemap, a page with no change rate) is listed
 * as a reread. */
enum reason { R_NOW, R_PERIOD, R_REFRESH, R_RETRY, R_DISCOVER_XML, R_DISCOVER_HTML,
	R_REFRESH_EARLY, NREASONS };
static const char *const reason_name[NREASONS] = {
	"now", "period", "refresh", "retry", "discover-xml", "discover-html", "refresh",
};

struct row {
	char *url;
	double key;		/* higher is better within its reason */
	int64_t due;		/* -1: none */
	enum reason reason;
	/* for the output order */
	uint64_t priority;
	char *site;
	size_t site_rank, site_len;
};

/* Whether a is worse than b: lower key, then later URL. */
static bool
row_worse(const struct row *a, const struct row *b)
{
	if (a->key != b->key)
		return a->key < b->key;
	return strcmp(a->url, b->url) > 0;
}

/* A min-heap (worst at the root) of the cap best rows. */
struct row_heap {
	struct row *r;
	size_t n, cap, alloc;
};

static void
row_sift_down(struct row_heap *h, size_t i)
{
	struct row x = h->r[i];
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= h->n)
			break;
		if (c + 1 < h->n && row_worse(&h->r[c + 1], &h->r[c]))
			c++;
		if (!row_worse(&h->r[c], &x))
			break;
		h->r[i] = h->r[c];
		i = c;
	}
	h->r[i] = x;
}

static void
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
		row_sift_down(h, 0);
		return;
	}
	if (h->n == h->alloc) {
		h->alloc = h->alloc ? 2 * h->alloc : 1024;
		if (h->alloc > h->cap)
			h->alloc = h->cap;
		h->r = wa_reallocarray(h->r, h->alloc, sizeof *h->r);
	}
	x.url = wa_strdup(url);
	size_t i;
	for (i = h->n++; i > 0 && row_worse(&x, &h->r[(i - 1) / 2]); i = (i - 1) / 2)
		h->r[i] = h->r[(i - 1) / 2];
	h->r[i] = x;
}

/* ---- the page state ---- */

struct page {
	const char *url;
	bool xml;		/* weight from importance, scaled by chi */
	bool document;		/* html, xml, dtd or noindex: refreshed */
	bool sitemap;		/* read again in spare slots, for its links */
	unsigned failures;	/* fetches failed in a row: retried, not refreshed */
	bool discoverable;	/* never fetched, and may be a document */
	bool suspect;		/* never fetched and an XML suspect */
	double importance, weight_base, factor, lambda;
	int64_t access;		/* -1: never fetched */
	enum { OV_NONE, OV_NEVER, OV_NOW, OV_PERIOD } override;
	double period;		/* seconds, for OV_PERIOD */
	double cash;		/* NAN without --cash */
};

static double
number_col(struct tsv *t, size_t col, const char *what, bool dash_ok)
{
	double v;
	if (dash_ok && strcmp(t->col[col], "-") == 0)
		return NAN;
	if (!parse_double(t->col[col], &v) || !(v >= 0) || !isfinite(v))
		tsv_die(t, "%s '%.40s' is not a non-negative number", what, t->col[col]);
	return v;
}

static void
parse_page(struct tsv *t, struct side *ov, struct side *cash, struct page *p)
{
	char **c = t->col;
	p->url = c[COL_URL];
	int type = page_type_parse(c[COL_TYPE]);
	if (type < 0)
		tsv_die(t, "type '%.40s' is none of html, xml, dtd, noindex, xml-suspect, "
		    "other, error, dead, robots, sitemap, -", c[COL_TYPE]);
	p->xml = page_type_xml(type);
	p->document = p->xml || type == PAGE_HTML || type == PAGE_NOINDEX;
	p->sitemap = type == PAGE_SITEMAP;
	p->importance = number_col(t, COL_IMPORTANCE, "importance", true);
	if (isnan(p->importance))
		p->importance = 0;
	double usefulness = number_col(t, COL_USEFULNESS, "usefulness", true);
	p->weight_base = p->xml || isnan(usefulness) ? p->importance : usefulness;
	p->lambda = number_col(t, COL_LAMBDA, "lambda", true);
	if (strcmp(c[COL_ACCESS], "-") == 0)
		p->access = -1;
	else if (!parse_i64(c[COL_ACCESS], &p->access) || p->access < 0)
		tsv_die(t, "access time '%.40s' is not Unix seconds", c[COL_ACCESS]);
	p->factor = category_factor(t, c[COL_CATEGORY]);
	p->failures = 0;
	if (t->ncol > COL_FAILURES && strcmp(c[COL_FAILURES], "-") != 0) {
		uint64_t n;
		if (!parse_u64(c[COL_FAILURES], &n) || n > 1000000)
			tsv_die(t, "failures '%.40s' is not a count", c[COL_FAILURES]);
		p->failures = (unsigned)n;
	}
	if (type == PAGE_DEAD && p->failures == 0)
		p->failures = 1;
	if (p->access < 0)
		p->failures = 0;
	/* A URL never fetched that names an image, a script... is no page. */
	p->discoverable = p->access < 0 && page_type_ranked(type) && !page_not_document(p->url);
	p->suspect = p->discoverable && (p->xml || type == PAGE_XML_SUSPECT ||
	    page_xml_suspect(p->url, false));

	p->override = OV_NONE;
	if (side_find(ov, p->url)) {
		const char *action = ov->t->col[1], *period = ov->t->col[2];
		if (strcmp(action, "never") == 0)
			p->override = OV_NEVER;
		else if (strcmp(action, "now") == 0)
			p->override = OV_NOW;
		else if (strcmp(action, "period") == 0) {
			p->override = OV_PERIOD;
			if (!parse_duration(period, &p->period) || !(p->period >= 1))
				tsv_die(ov->t, "period '%.40s' is not a duration of 1s or more",
				    period);
		} else
			tsv_die(ov->t, "action '%.40s' is none of never, now, period", action);
		if (p->override != OV_PERIOD && strcmp(period, "-") != 0)
			tsv_die(ov->t, "a period is only for the action period; '-' here");
	}
	p->cash = NAN;
	if (side_find(cash, p->url)) {
		double v;
		if (!parse_double(cash->t->col[1], &v) || !(v >= 0) || !isfinite(v))
			tsv_die(cash->t, "cash '%.40s' is not a non-negative number",
			    cash->t->col[1]);
		p->cash = v;
	}
}

/* A page is refreshed at its optimal frequency if it was fetched, has a
 * change rate and no override takes it out of the optimisation. */
static bool
refreshable(const struct page *p)
{
	return p->document && p->failures == 0 && p->access >= 0 && !isnan(p->lambda) &&
	    (p->override == OV_NONE || p->override == OV_NOW);
}

/* A page whose fetches failed k times in a row (a dead page at least once)
 * is tried again T 2^(k-1) after the last try, at most --retry-max. */
static double
retry_interval(const struct page *p)
{
	int doublings = (int)(p->failures < 64 ? p->failures : 64) - 1;
	double t = ldexp(cycle_days * SECONDS_PER_DAY, doublings);
	return t < retry_max ? t : retry_max;
}

static bool
retry_due(const struct page *p)
{
	return p->failures > 0 && (double)(now - p->access) >= retry_interval(p);
}

/* No automatic fetch reads a page twice within T. */
static bool
rested(const struct page *p)
{
	return p->access >= 0 && (double)(now - p->access) >= cycle_days * SECONDS_PER_DAY;
}

/* w lambda^alpha, before the chi scale of XML pages: the cost rate a of
 * c(f) = a / ((alpha+1) f^alpha). */
static double
raw_cost_rate(const struct page *p)
{
	return p->weight_base * p->factor * pow(p->lambda, alpha);
}

/* ---- reading the state, twice ---- */

static char **state_paths;
static size_t nstate;
static char *spool_path;
static int spool_fd = -1;

static void
spool_stdin(void)
{
	const char *dir = getenv("TMPDIR");
	char buf[1 << 16];
	ssize_t n;
	spool_path = wa_asprintf("%s/wa-schedule.XXXXXX", dir && *dir ? dir : "/tmp");
	spool_fd = mkstemp(spool_path);
	if (spool_fd < 0)
		wa_die_errno("%s", spool_path);
	if (unlink(spool_path) != 0)
		wa_die_errno("%s", spool_path);
	free(spool_path);
	/* The spooled file has no name left; both passes open it by descriptor. */
	spool_path = wa_asprintf("/dev/fd/%d", spool_fd);
	while ((n = read(0, buf, sizeof buf)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			wa_die_errno("stdin: read error");
		}
		for (ssize_t off = 0; off < n;) {
			ssize_t w = write(spool_fd, buf + off, (size_t)(n - off));
			if (w < 0) {
				if (errno == EINTR)
					continue;
				wa_die_errno("spooling stdin to a temporary file");
			}
			off += w;
		}
	}
}

typedef void (*page_fn)(const struct page *p);

static struct progress pg;

static void
scan_state(int pass, page_fn fn)
{
	struct side ov, cash;
	char *prev = NULL;	/* the last URL of the files before */
	size_t prev_cap = 0;
	struct page p;

	side_open(&ov, overrides_path, 3);
	side_open(&cash, cash_path, 2);
	progress_start(&pg, pass == 1 ? "pages (pass 1)" : "pages (pass 2)", 0);
	for (size_t i = 0; i < nstate; i++) {
		bool is_stdin = strcmp(state_paths[i], "-") == 0;
		struct tsv *t = tsv_open(is_stdin ? spool_path : state_paths[i],
		    STATE_COLS, 0, TSV_STRICT);
		bool first = true;
		if (is_stdin)
			t->name = "stdin";
		tsv_check_url(t, COL_URL);
		tsv_check_sorted(t, COL_URL, true);
		while (tsv_next(t)) {
			if (first && prev != NULL && strcmp(t->col[COL_URL], prev) <= 0)
				tsv_die(t, "not sorted: URL '%.200s' %s '%.200s' at the end "
				    "of the file before", t->col[COL_URL],
				    strcmp(t->col[COL_URL], prev) ? "sorts before" : "repeats",
				    prev);
			first = false;
			parse_page(t, &ov, &cash, &p);
			fn(&p);
			if (i + 1 < nstate) {
				size_t n = strlen(p.url) + 1;
				if (n > prev_cap) {
					prev_cap = 2 * n;
					prev = wa_realloc(prev, prev_cap);
				}
				memcpy(prev, p.url, n);
			}
			progress_set(&pg, pg.done + 1);
		}
		tsv_close(t);
	}
	free(prev);
	progress_end(&pg);
	side_close(&ov, pass == 1);
	side_close(&cash, pass == 1);
}

/* ---- pass 1: sums, counts and the largest u ---- */

static struct {
	uint64_t pages, refreshable, no_lambda, never, now, period_due, period;
	uint64_t new_xml, new_html;
	uint64_t rested;	/* documents and sitemaps fetched T or more ago */
	uint64_t retry_due;	/* failed pages to try again */
	long double s_xml_raw, s_html;	/* sums of u, XML before the chi scale */
	long double a_xml_raw, a_html;	/* sums of u^(alpha+1) = w lambda^alpha */
	long double base_xml, base_html;	/* sums of base weights, for chi */
	uint64_t n_xml, n_html;
	uint64_t positive;	/* refreshable pages with u > 0 */
	double period_bandwidth;	/* pages/day the fixed periods take */
	struct top_u top_xml, top_html;
} p1;

static bool
period_due(const struct page *p)
{
	return p->access < 0 || (double)(now - p->access) >= p->period;
}

static void
pass1_page(const struct page *p)
{
	p1.pages++;
	switch (p->override) {
	case OV_NEVER:
		p1.never++;
		return;
	case OV_PERIOD:
		p1.period++;
		p1.period_bandwidth += SECONDS_PER_DAY / p->period;
		p1.period_due += period_due(p);
		return;
	case OV_NOW:
		p1.now++;
		break;
	case OV_NONE:
		if (p->discoverable) {
			if (p->suspect)
				p1.new_xml++;
			else
				p1.new_html++;
		}
		if (p->failures > 0)
			p1.retry_due += retry_due(p);
		else if ((p->document || p->sitemap) && rested(p))
			p1.rested++;
		break;
	}
	if (p->document && p->access >= 0 && isnan(p->lambda))
		p1.no_lambda++;
	if (!refreshable(p))
		return;
	p1.refreshable++;
	double a = raw_cost_rate(p), u = pow(a, 1 / (alpha + 1));
	p1.positive += u > 0;
	if (p->xml) {
		p1.n_xml++;
		p1.base_xml += p->weight_base;
		p1.s_xml_raw += u;
		p1.a_xml_raw += a;
		if (u > 0)
			top_u_push(&p1.top_xml, u);
	} else {
		p1.n_html++;
		p1.base_html += p->weight_base;
		p1.s_html += u;
		p1.a_html += a;
		if (u > 0)
			top_u_push(&p1.top_html, u);
	}
}

/* ---- between the passes: slots, bandwidth, water level ---- */

static struct {
	uint64_t rows;		/* G*T */
	uint64_t slots[NREASONS];
	double g_refresh;	/* pages/day for the optimised refresh */
	double cap;		/* 1/T, refreshes/day */
	double xml_scale;	/* chi scale of XML weights */
	double u_scale;		/* its power 1/(alpha+1), on u */
	long double s;		/* S */
	double level;		/* f_i = min(cap, level u_i); INFINITY: all capped */
	double level_cost, cap_cost;	/* level^-alpha, cap^-alpha */
	uint64_t capped;
	uint64_t rereads;	/* early refreshes without a frequency */
} plan;

static int
double_desc(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x < y) - (x > y);
}

static uint64_t
take(uint64_t *remaining, uint64_t want)
{
	uint64_t n = want < *remaining ? want : *remaining;
	*remaining -= n;
	return n;
}

/* The KKT conditions of min sum c_i(f_i), sum f_i = G, f_i <= cap give
 * f_i = min(cap, L u_i): cap the largest u_i while L u_i > cap, each time
 * handing their unused bandwidth to the rest; L only grows, so the first k
 * whose next u stays under the cap is the exact fixed point. */
static void
water_level(void)
{
	size_t n = p1.top_xml.n + p1.top_html.n, k;
	double *u = wa_reallocarray(NULL, n ? n : 1, sizeof *u);
	for (size_t i = 0; i < p1.top_xml.n; i++)
		u[i] = p1.top_xml.v[i] * plan.u_scale;
	memcpy(u + p1.top_xml.n, p1.top_html.v, p1.top_html.n * sizeof *u);
	qsort(u, n, sizeof *u, double_desc);
	long double rest = plan.s;
	plan.level = 0;
	plan.capped = 0;
	if (plan.g_refresh <= 0 || rest <= 0) {
		free(u);
		return;
	}
	for (k = 0;; k++) {
		long double left = (long double)plan.g_refresh - (long double)k * plan.cap;
		if (k == p1.positive || rest <= 0) {
			/* every page at the cap, bandwidth to spare */
			plan.level = INFINITY;
			break;
		}
		plan.level = (double)(left / rest);
		if (k == n || u[k] * plan.level <= plan.cap)
			break;
		rest -= u[k];
	}
	plan.capped = k;
	free(u);
}

static uint64_t
share_rows(double percent)
{
	return (uint64_t)floor(percent / 100 * (double)plan.rows);
}

static uint64_t
min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* The bandwidth of the optimised refresh: G less what the fixed periods,
 * the overrides now and discovery at its shares take (Preda, "Data
 * Acquisition for an XML Warehouse", 2000, sec. 5.1).  Discovery that
 * needs less than its share leaves the rest to the refresh. */
static void
plan_cycle(void)
{
	uint64_t left;

	plan.rows = (uint64_t)floor(bandwidth * cycle_days);
	left = plan.rows;
	plan.slots[R_NOW] = take(&left, p1.now);
	plan.slots[R_PERIOD] = take(&left, p1.period_due);
	plan.slots[R_DISCOVER_XML] = take(&left, min_u64(p1.new_xml, share_rows(share_xml)));
	plan.slots[R_DISCOVER_HTML] = take(&left, min_u64(p1.new_html, share_rows(share_html)));

	plan.cap = 1 / cycle_days;
	plan.g_refresh = bandwidth - p1.period_bandwidth -
	    (double)(plan.slots[R_NOW] + plan.slots[R_DISCOVER_XML] +
	    plan.slots[R_DISCOVER_HTML]) / cycle_days;
	if (plan.g_refresh < 0) {
		wa_warn("the fixed periods, now and discovery take more than G: "
		    "no bandwidth left for refresh");
		plan.g_refresh = 0;
	}
	plan.xml_scale = chi;
	if (p1.n_xml && p1.n_html && p1.base_xml > 0 && p1.base_html > 0)
		plan.xml_scale = (double)((long double)chi * (p1.base_html / p1.n_html) /
		    (p1.base_xml / p1.n_xml));
	plan.u_scale = pow(plan.xml_scale, 1 / (alpha + 1));
	plan.s = p1.s_xml_raw * plan.u_scale + p1.s_html;
	water_level();
	plan.level_cost = pow(plan.level, -alpha);
	plan.cap_cost = pow(plan.cap, -alpha);
	if (p1.no_lambda)
		wa_warn("%" PRIu64 " fetched pages have no lambda: not refreshed", p1.no_lambda);
}

/* ---- pass 2: every page's plan, the list ---- */

static struct atomic_file *plan_file;
static struct row_heap heaps[NREASONS];
static uint64_t n_due;
static long double cost;

static void
pass2_page(const struct page *p)
{
	double f = 0;
	bool capped = false;
	int64_t due = -1;

	if (refreshable(p)) {
		double a_raw = raw_cost_rate(p);
		double a = a_raw * (p->xml ? plan.xml_scale : 1);
		double u = pow(a_raw, 1 / (alpha + 1)) * (p->xml ? plan.u_scale : 1);
		if (u > 0 && plan.level > 0) {
			capped = u * plan.level > plan.cap;
			f = capped ? plan.cap : u * plan.level;
			/* a (u L)^-alpha = u L^-alpha, as a = u^(alpha+1) */
			cost += (capped ? a * plan.cap_cost : u * plan.level_cost) /
			    (alpha + 1);
		}
	} else if (p->override == OV_PERIOD)
		f = SECONDS_PER_DAY / p->period;
	if (f > 0 && p->access >= 0) {
		double d = ceil((double)p->access + SECONDS_PER_DAY / f);
		due = (int64_t)(d < DUE_MAX ? d : DUE_MAX);
	}
	if (plan_file) {
		FILE *fp = plan_file->fp;
		fprintf(fp, "%s\t%.17g\t", p->url, f);
		if (due < 0)
			fputc('-', fp);
		else
			fprintf(fp, "%" PRId64, due);
		fprintf(fp, "\t%d\n", capped);
	}

	switch (p->override) {
	case OV_NEVER:
		return;
	case OV_NOW:
		row_push(&heaps[R_NOW], p->url, p->weight_base * p->factor, -1, R_NOW);
		return;
	case OV_PERIOD:
		if (period_due(p))
			row_push(&heaps[R_PERIOD], p->url, p->access < 0 ? INFINITY :
			    (double)(now - p->access) / p->period, due, R_PERIOD);
		return;
	case OV_NONE:
		break;
	}
	if (p->discoverable) {
		double key = cash_path ? (isnan(p->cash) ? 0 : p->cash) : p->importance;
		enum reason r = p->suspect ? R_DISCOVER_XML : R_DISCOVER_HTML;
		row_push(&heaps[r], p->url, key, -1, r);
	} else if (p->failures > 0) {
		if (retry_due(p))
			row_push(&heaps[R_RETRY], p->url,
			    (double)(now - p->access) / retry_interval(p), -1, R_RETRY);
	} else if (due >= 0 && now >= due) {
		/* The due pages by the periods elapsed since their last
		 * access, most overdue first. */
		n_due++;
		row_push(&heaps[R_REFRESH], p->url,
		    (double)(now - p->access) * f / SECONDS_PER_DAY, due, R_REFRESH);
	} else if ((p->document || p->sitemap) && rested(p)) {
		/* Sitemaps first, for the URLs they may add; then the nearest
		 * to being due; those with no frequency (no change seen, or no
		 * change rate yet) last, the longest unread first. */
		double age = (double)(now - p->access) / SECONDS_PER_DAY;
		row_push(&heaps[R_REFRESH_EARLY], p->url, p->sitemap ? 1 + age :
		    f > 0 ? age * f : -1 / (1 + age), due, R_REFRESH_EARLY);
	}
}

static int
row_best_first(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	if (x->reason != y->reason)
		return (int)x->reason - (int)y->reason;
	return row_worse(x, y) - row_worse(y, x);
}

/* Keeps the best n rows of a heap. */
static void
heap_keep(struct row_heap *h, uint64_t n)
{
	if (h->n <= n)
		return;
	qsort(h->r, h->n, sizeof *h->r, row_best_first);
	for (size_t i = n; i < h->n; i++)
		free(h->r[i].url);
	h->n = n;
}

/* The cycle's G*T rows, once every candidate is known: the overrides, the
 * discovery shares (Mignet, Preda, Abiteboul et al., "Acquisition and
 * Maintenance of XML Data from the Web", sec. 2), the due refreshes, then
 * what is left to more discovery while there are URLs to discover, and
 * last to the pages nearest to being due.  In the first cycles nothing is
 * due and discovery takes all. */
static void
fill_cycle(void)
{
	uint64_t left = plan.rows, *k = plan.slots;
	k[R_NOW] = take(&left, heaps[R_NOW].n);
	k[R_PERIOD] = take(&left, heaps[R_PERIOD].n);
	k[R_DISCOVER_XML] = take(&left, min_u64(heaps[R_DISCOVER_XML].n, share_rows(share_xml)));
	k[R_DISCOVER_HTML] = take(&left,
	    min_u64(heaps[R_DISCOVER_HTML].n, share_rows(share_html)));
	k[R_REFRESH] = take(&left, heaps[R_REFRESH].n);
	k[R_RETRY] = take(&left, heaps[R_RETRY].n);
	k[R_DISCOVER_XML] += take(&left, heaps[R_DISCOVER_XML].n - k[R_DISCOVER_XML]);
	k[R_DISCOVER_HTML] += take(&left, heaps[R_DISCOVER_HTML].n - k[R_DISCOVER_HTML]);
	k[R_REFRESH_EARLY] = take(&left, heaps[R_REFRESH_EARLY].n);
	for (int r = 0; r < NREASONS; r++)
		heap_keep(&heaps[r], k[r]);
	plan.rereads = 0;
	for (size_t i = 0; i < heaps[R_REFRESH_EARLY].n; i++)
		plan.rereads += heaps[R_REFRESH_EARLY].r[i].due < 0;
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

/* Castillo's Length: round r takes the r-th page of every site that has
 * one, longest queues first, so that many sites stay open to the end. */
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

static void
write_list(void)
{
	size_t n = 0, k = 0;
	char host[URL_BUFSIZE];
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
	for (size_t i = 0; i < n; i++) {
		printf("%s\t%s\t%" PRIu64 "\t", rows[i].url, rows[i].reason == R_REFRESH_EARLY &&
		    rows[i].due < 0 ? "reread" : reason_name[rows[i].reason], rows[i].priority);
		if (rows[i].due < 0)
			fputs("-\n", stdout);
		else
			printf("%" PRId64 "\n", rows[i].due);
		free(rows[i].url);
		free(rows[i].site);
	}
	free(rows);
}

/* ---- the summary ---- */

static void
summary_rows(FILE *fp, const char *prefix)
{
	long double a = p1.a_xml_raw * plan.xml_scale + p1.a_html;
	double uniform_f = p1.refreshable ? plan.g_refresh / (double)p1.refreshable : 0;
	if (uniform_f > plan.cap)
		uniform_f = plan.cap;
	double uniform = p1.refreshable == 0 ? 0 : uniform_f > 0 ?
	    (double)(a * powl(uniform_f, -alpha) / (alpha + 1)) : INFINITY;
	double optimum = plan.g_refresh > 0 ? (double)(powl(plan.s, alpha + 1) /
	    ((alpha + 1) * powl(plan.g_refresh, alpha))) : INFINITY;
	uint64_t listed = 0;
	for (int r = 0; r < NREASONS; r++)
		listed += heaps[r].n;
#define ROW_U(k, v) fprintf(fp, "%s%s\t%" PRIu64 "\n", prefix, k, (uint64_t)(v))
#define ROW_D(k, v) fprintf(fp, "%s%s\t%.17g\n", prefix, k, (double)(v))
	ROW_U("pages", p1.pages);
	ROW_U("refreshable", p1.refreshable);
	ROW_U("no-lambda", p1.no_lambda);
	ROW_U("never", p1.never);
	ROW_D("G-refresh", plan.g_refresh);
	ROW_D("cap", plan.cap);
	ROW_D("chi-scale", plan.xml_scale);
	ROW_D("S", plan.s);
	ROW_D("level", plan.level);
	ROW_U("capped", plan.capped);
	ROW_U("due", n_due);
	ROW_U("candidates", p1.new_xml + p1.new_html + p1.rested + p1.retry_due + p1.now +
	    p1.period_due);
	ROW_U("rows", plan.rows);
	ROW_U("listed", listed);
	uint64_t early = heaps[R_REFRESH_EARLY].n - plan.rereads;
	for (int r = 0; r < NREASONS; r++)
		if (r != R_REFRESH_EARLY)
			ROW_U(reason_name[r], heaps[r].n + (r == R_REFRESH ? early : 0));
	ROW_U("early", early);
	ROW_U("reread", plan.rereads);
	ROW_D("cost", p1.refreshable && plan.level == 0 ? INFINITY : (double)cost);
	ROW_D("uniform-cost", uniform);
	ROW_D("optimum", p1.refreshable ? optimum : 0);
#undef ROW_U
#undef ROW_D
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "alpha", required_argument, NULL, OPT_ALPHA },
		{ "chi", required_argument, NULL, OPT_CHI },
		{ "discover-xml", required_argument, NULL, OPT_DISCOVER_XML },
		{ "discover-html", required_argument, NULL, OPT_DISCOVER_HTML },
		{ "categories", required_argument, NULL, OPT_CATEGORIES },
		{ "overrides", required_argument, NULL, OPT_OVERRIDES },
		{ "cash", required_argument, NULL, OPT_CASH },
		{ "now", required_argument, NULL, WA_OPT_NOW },
		{ "ahead", required_argument, NULL, OPT_AHEAD },
		{ "retry-max", required_argument, NULL, OPT_RETRY_MAX },
		WA_COMMON_LONGOPTS
	};
	char *stdin_only[] = { "-" };
	double ahead = 0;
	int c;

	wa_init(argc, argv, usage);
	now = (int64_t)time(NULL);
	while ((c = getopt_long(argc, argv, "F:G:T:hqs:", longopts, NULL)) != -1) {
		switch (c) {
		case 'F':
			plan_path = optarg;
			break;
		case 'G':
			bandwidth = opt_double("-G", optarg, 1e-9, 1e15);
			break;
		case 'T':
			cycle_days = opt_duration("-T", optarg) / SECONDS_PER_DAY;
			if (!(cycle_days > 0))
				wa_usage_error("-T: the refresh cycle time must be positive");
			break;
		case 's':
			summary_path = optarg;
			break;
		case OPT_ALPHA:
			alpha = opt_double("--alpha", optarg, 1e-6, 100);
			break;
		case OPT_CHI:
			chi = opt_double("--chi", optarg, 1e-12, 1e12);
			break;
		case OPT_DISCOVER_XML:
			share_xml = opt_double("--discover-xml", optarg, 0, 100);
			break;
		case OPT_DISCOVER_HTML:
			share_html = opt_double("--discover-html", optarg, 0, 100);
			break;
		case OPT_CATEGORIES:
			categories_path = optarg;
			break;
		case OPT_OVERRIDES:
			overrides_path = optarg;
			break;
		case OPT_CASH:
			cash_path = optarg;
			break;
		case WA_OPT_NOW:
			now = opt_time("--now", optarg);
			break;
		case OPT_AHEAD:
			ahead = opt_duration("--ahead", optarg);
			break;
		case OPT_RETRY_MAX:
			retry_max = opt_duration("--retry-max", optarg);
			break;
		default:
			wa_common_option(c);
		}
	}
	/* A batch plans at the end of one cycle the fetches of the next. */
	now += (int64_t)ahead;
	if (bandwidth == 0)
		wa_usage_error("-G PAGES_PER_DAY is required");
	if (share_xml + share_html > 100)
		wa_usage_error("--discover-xml and --discover-html add up to more than 100");
	if (bandwidth * cycle_days < 1)
		wa_usage_error("-G times -T is less than one fetch per cycle");
	if (bandwidth * cycle_days > 1e9)
		wa_usage_error("-G times -T is more than 10^9 fetches per cycle");
	state_paths = optind < argc ? argv + optind : stdin_only;
	nstate = optind < argc ? (size_t)(argc - optind) : 1;
	for (size_t i = 0, stdins = 0; i < nstate; i++)
		if (strcmp(state_paths[i], "-") == 0 && ++stdins > 1)
			wa_usage_error("stdin ('-') can be given once");
	for (size_t i = 0; i < nstate; i++)
		if (strcmp(state_paths[i], "-") == 0)
			spool_stdin();
	if (categories_path)
		read_categories(categories_path);
	atomic_install_handlers();

	uint64_t top = (uint64_t)floor(bandwidth * cycle_days) + 1;
	p1.top_xml.cap = p1.top_html.cap = top;
	p1.top_xml.v = wa_reallocarray(NULL, top, sizeof(double));
	p1.top_html.v = wa_reallocarray(NULL, top, sizeof(double));
	scan_state(1, pass1_page);
	plan_cycle();
	free(p1.top_xml.v);
	free(p1.top_html.v);

	for (int r = 0; r < NREASONS; r++)
		heaps[r].cap = plan.rows;
	if (plan_path)
		plan_file = atomic_open(plan_path);
	scan_state(2, pass2_page);
	if (plan_file)
		atomic_commit(plan_file);
	fill_cycle();
	write_list();
	if (fflush(stdout) == EOF || ferror(stdout))
		wa_die_errno("standard output");
	if (summary_path) {
		struct atomic_file *sf = atomic_open(summary_path);
		summary_rows(sf->fp, "");
		atomic_commit(sf);
	}
	if (!wa_quiet)
		summary_rows(stderr, "wa-schedule: ");
	for (size_t i = 0; i < ncategories; i++)
		free(categories[i].name);
	free(categories);
	if (spool_fd >= 0) {
		close(spool_fd);
		free(spool_path);
	}
	url_cleanup();
	return WA_EXIT_OK;
}
