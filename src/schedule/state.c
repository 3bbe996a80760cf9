/* wa-schedule's input: the page state (man/wa-formats.5), read twice, with
 * the categories, overrides and cash it is joined with. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pagetype.h"
#include "schedule.h"
#include "scratch.h"

/* Page state columns. */
enum { COL_URL, COL_TYPE, COL_IMPORTANCE, COL_USEFULNESS, COL_LAMBDA,
	COL_ACCESS, COL_CATEGORY, STATE_COLS, COL_FAILURES = STATE_COLS };

/* ---- categories ---- */

struct category {
	char *name;
	double factor;
};

static int
category_cmp(const void *a, const void *b)
{
	return strcmp(((const struct category *)a)->name,
	    ((const struct category *)b)->name);
}

static void
read_categories(struct schedule *s)
{
	struct tsv *t = tsv_open(s->categories_path, 2, 2, TSV_STRICT);
	size_t cap = 0;
	while (tsv_next(t)) {
		double f;
		if (strcmp(t->col[0], "-") == 0)
			tsv_die(t, "category '-' is the page without category; its factor is 1");
		if (!parse_double(t->col[1], &f) || !(f > 0) || !isfinite(f))
			tsv_die(t, "factor '%.40s' is not a positive number", t->col[1]);
		for (size_t i = 0; i < s->ncategories; i++)
			if (strcmp(s->categories[i].name, t->col[0]) == 0)
				tsv_die(t, "category '%.100s' given twice", t->col[0]);
		if (s->ncategories == cap) {
			cap = cap ? 2 * cap : 16;
			s->categories = wa_reallocarray(s->categories, cap, sizeof *s->categories);
		}
		s->categories[s->ncategories].name = wa_strdup(t->col[0]);
		s->categories[s->ncategories++].factor = f;
	}
	tsv_close(t);
	qsort(s->categories, s->ncategories, sizeof *s->categories, category_cmp);
}

static double
category_factor(const struct schedule *s, struct tsv *t, const char *name)
{
	if (strcmp(name, "-") == 0)
		return 1;
	struct category key = { .name = (char *)name };
	const struct category *c = bsearch(&key, s->categories, s->ncategories,
	    sizeof *s->categories, category_cmp);
	if (c == NULL)
		tsv_die(t, "category '%.100s' is not in the categories file%s",
		    name, s->categories_path ? "" : " (no --categories given)");
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

/* ---- the page state ---- */

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
parse_override(struct side *ov, struct page *p)
{
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

static void
parse_page(const struct schedule *s, struct tsv *t, struct side *ov, struct side *cash,
    struct page *p)
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
	p->factor = category_factor(s, t, c[COL_CATEGORY]);
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
	/* A URL never fetched that names an image, a script... is no page,
	 * unless a suffix rule lets it in: then its type "other" came from
	 * that suffix alone.  Without rules only the suffix of a URL never
	 * fetched matters, and only those pay for the look at it. */
	enum scope_decision in = s->scope.n || p->access < 0 ?
	    scope_decide(&s->scope, p->url) : SCOPE_IN;
	p->out_of_scope = in == SCOPE_OUT;
	p->discoverable = p->access < 0 && in == SCOPE_IN && (page_type_ranked(type) ||
	    (type == PAGE_OTHER && page_not_document(p->url)));
	p->suspect = p->discoverable && (p->xml || type == PAGE_XML_SUSPECT ||
	    page_xml_suspect(p->url, false));

	p->override = OV_NONE;
	if (side_find(ov, p->url))
		parse_override(ov, p);
	p->cash = NAN;
	if (side_find(cash, p->url)) {
		double v;
		if (!parse_double(cash->t->col[1], &v) || !(v >= 0) || !isfinite(v))
			tsv_die(cash->t, "cash '%.40s' is not a non-negative number",
			    cash->t->col[1]);
		p->cash = v;
	}
}

/* ---- reading the state, twice ---- */

static void
spool_stdin(struct schedule *s)
{
	const char *dir = getenv("TMPDIR");
	s->spool_fd = scratch_spool(STDIN_FILENO, "stdin", dir && *dir ? dir : "/tmp",
	    "wa-schedule");
	/* The spooled file has no name; both passes open it by descriptor. */
	s->spool_path = wa_asprintf("/dev/fd/%d", s->spool_fd);
}

void
state_open(struct schedule *s, size_t n, char *const *paths)
{
	static char *const stdin_only[] = { "-" };
	s->state_paths = n ? paths : stdin_only;
	s->nstate = n ? n : 1;
	for (size_t i = 0, stdins = 0; i < s->nstate; i++)
		if (strcmp(s->state_paths[i], "-") == 0 && ++stdins > 1)
			wa_usage_error("stdin ('-') can be given once");
	for (size_t i = 0; i < s->nstate; i++)
		if (strcmp(s->state_paths[i], "-") == 0)
			spool_stdin(s);
	if (s->categories_path)
		read_categories(s);
}

void
scan_state(struct schedule *s, int pass, void (*fn)(struct schedule *, const struct page *))
{
	struct side ov, cash;
	char *prev = NULL;	/* the last URL of the files before */
	size_t prev_cap = 0;
	struct page p;

	side_open(&ov, s->overrides_path, 3);
	side_open(&cash, s->cash_path, 2);
	progress_start(&s->pg, pass == 1 ? "pages (pass 1)" : "pages (pass 2)", 0);
	for (size_t i = 0; i < s->nstate; i++) {
		bool is_stdin = strcmp(s->state_paths[i], "-") == 0;
		struct tsv *t = tsv_open(is_stdin ? s->spool_path : s->state_paths[i],
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
			parse_page(s, t, &ov, &cash, &p);
			fn(s, &p);
			if (i + 1 < s->nstate) {
				size_t n = strlen(p.url) + 1;
				if (n > prev_cap) {
					prev_cap = 2 * n;
					prev = wa_realloc(prev, prev_cap);
				}
				memcpy(prev, p.url, n);
			}
			progress_set(&s->pg, s->pg.done + 1);
		}
		tsv_close(t);
	}
	free(prev);
	progress_end(&s->pg);
	side_close(&ov, pass == 1);
	side_close(&cash, pass == 1);
}

void
state_close(struct schedule *s)
{
	for (size_t i = 0; i < s->ncategories; i++)
		free(s->categories[i].name);
	free(s->categories);
	if (s->spool_fd >= 0) {
		close(s->spool_fd);
		free(s->spool_path);
	}
}
