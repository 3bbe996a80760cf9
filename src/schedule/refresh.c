/* The refresh of each page: its cost rate, its frequency and due time,
 * and why it may be listed.  Pass 1 sums what the water level needs and
 * keeps the largest u; pass 2 gives each page its f (Preda, "Data
 * Acquisition for an XML Warehouse", 2000, ch. 3, eq. 3.7-3.8) and offers
 * the candidates to the bounded heaps of the list. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "heap.h"
#include "schedule.h"

/* Beyond year 9999 a due time means "not in any foreseeable cycle". */
#define DUE_MAX 253402300799.0

/* A page is refreshed at its optimal frequency if it was fetched, has a
 * change rate and no override takes it out of the optimisation. */
static bool
refreshable(const struct page *p)
{
	return !p->out_of_scope && p->document && p->failures == 0 && p->access >= 0 && !isnan(p->lambda) &&
	    (p->override == OV_NONE || p->override == OV_NOW);
}

/* A page whose fetches failed k times in a row (a dead page at least once)
 * is tried again T 2^(k-1) after the last try, at most --retry-max. */
static double
retry_interval(const struct schedule *s, const struct page *p)
{
	int doublings = (int)(p->failures < 64 ? p->failures : 64) - 1;
	double t = ldexp(s->cycle_days * SECONDS_PER_DAY, doublings);
	return t < s->retry_max ? t : s->retry_max;
}

static bool
retry_due(const struct schedule *s, const struct page *p)
{
	return p->failures > 0 && (double)(s->now - p->access) >= retry_interval(s, p);
}

/* No automatic fetch reads a page twice within T. */
static bool
rested(const struct schedule *s, const struct page *p)
{
	return p->access >= 0 &&
	    (double)(s->now - p->access) >= s->cycle_days * SECONDS_PER_DAY;
}

static bool
period_due(const struct schedule *s, const struct page *p)
{
	return p->access < 0 || (double)(s->now - p->access) >= p->period;
}

/* w lambda^alpha, before the chi scale of XML pages: the cost rate a of
 * c(f) = a / ((alpha+1) f^alpha). */
static double
raw_cost_rate(const struct schedule *s, const struct page *p)
{
	return p->weight_base * p->factor * pow(p->lambda, s->alpha);
}

/* ---- pass 1: sums, counts and the largest u ---- */

static bool
u_before(const double *a, const double *b)
{
	return *a < *b;
}

HEAP_DEFINE(u_heap, double, u_before)

/* Keeps the cap largest values offered: a min-heap whose root is the
 * smallest kept. */
static void
top_u_push(struct top_u *h, double u)
{
	if (h->cap == 0)
		return;
	if (h->n == h->cap) {
		if (u <= h->v[0])
			return;
		h->v[0] = u;
		u_heap_sift_down(h->v, h->n, 0);
		return;
	}
	u_heap_push(h->v, &h->n, u);
}

/* The counts of the overrides, and of the candidates other than due
 * refreshes. */
static void
count_candidates(struct schedule *s, const struct page *p)
{
	struct page_sums *p1 = &s->p1;
	switch (p->override) {
	case OV_NEVER:
		p1->never++;
		return;
	case OV_PERIOD:
		p1->period++;
		p1->period_bandwidth += SECONDS_PER_DAY / p->period;
		p1->period_due += period_due(s, p);
		return;
	case OV_NOW:
		p1->now++;
		return;
	case OV_NONE:
		if (p->discoverable) {
			if (p->suspect)
				p1->new_xml++;
			else
				p1->new_html++;
		}
		if (p->failures > 0)
			p1->retry_due += retry_due(s, p);
		else if ((p->document || p->sitemap) && rested(s, p))
			p1->rested++;
		return;
	}
}

static void
pass1_page(struct schedule *s, const struct page *p)
{
	struct page_sums *p1 = &s->p1;
	p1->pages++;
	/* A page out of scope is as one the override never takes out. */
	if (p->out_of_scope) {
		p1->out_of_scope++;
		return;
	}
	count_candidates(s, p);
	/* The overrides never and period take a page out of the optimisation. */
	if (p->override == OV_NEVER || p->override == OV_PERIOD)
		return;
	if (p->document && p->access >= 0 && isnan(p->lambda))
		p1->no_lambda++;
	if (!refreshable(p))
		return;
	p1->refreshable++;
	double a = raw_cost_rate(s, p), u = pow(a, 1 / (s->alpha + 1));
	p1->positive += u > 0;
	if (p->xml) {
		p1->n_xml++;
		p1->base_xml += p->weight_base;
		p1->s_xml_raw += u;
		p1->a_xml_raw += a;
		if (u > 0)
			top_u_push(&p1->top_xml, u);
	} else {
		p1->n_html++;
		p1->base_html += p->weight_base;
		p1->s_html += u;
		p1->a_html += a;
		if (u > 0)
			top_u_push(&p1->top_html, u);
	}
}

void
first_pass(struct schedule *s)
{
	uint64_t top = (uint64_t)floor(s->bandwidth * s->cycle_days) + 1;
	s->p1.top_xml.cap = s->p1.top_html.cap = top;
	s->p1.top_xml.v = wa_reallocarray(NULL, top, sizeof(double));
	s->p1.top_html.v = wa_reallocarray(NULL, top, sizeof(double));
	scan_state(s, 1, pass1_page);
}

/* ---- pass 2: every page's plan, the candidates ---- */

/* The page's frequency f, per day, and whether the cap binds it; adds its
 * cost to the cycle's. */
static double
frequency(struct schedule *s, const struct page *p, bool *capped)
{
	const struct cycle_plan *plan = &s->plan;
	double f = 0;
	*capped = false;
	if (refreshable(p)) {
		double a_raw = raw_cost_rate(s, p);
		double a = a_raw * (p->xml ? plan->xml_scale : 1);
		double u = pow(a_raw, 1 / (s->alpha + 1)) * (p->xml ? plan->u_scale : 1);
		if (u > 0 && plan->level > 0) {
			*capped = u * plan->level > plan->cap;
			f = *capped ? plan->cap : u * plan->level;
			/* a (u L)^-alpha = u L^-alpha, as a = u^(alpha+1) */
			s->cost += (*capped ? a * plan->cap_cost : u * plan->level_cost) /
			    (s->alpha + 1);
		}
	} else if (p->override == OV_PERIOD && !p->out_of_scope)
		f = SECONDS_PER_DAY / p->period;
	return f;
}

static void
write_plan_row(FILE *fp, const struct page *p, double f, int64_t due, bool capped)
{
	fprintf(fp, "%s\t%.17g\t", p->url, f);
	if (due < 0)
		fputc('-', fp);
	else
		fprintf(fp, "%" PRId64, due);
	fprintf(fp, "\t%d\n", capped);
}

/* Offers a page that no override places to the heap of its reason. */
static void
push_candidate(struct schedule *s, const struct page *p, double f, int64_t due)
{
	struct row_heap *heaps = s->heaps;
	int64_t now = s->now;
	if (p->discoverable) {
		double key = s->cash_path ? (isnan(p->cash) ? 0 : p->cash) : p->importance;
		enum reason r = p->suspect ? R_DISCOVER_XML : R_DISCOVER_HTML;
		row_push(&heaps[r], p->url, key, -1, r);
	} else if (p->failures > 0) {
		if (retry_due(s, p))
			row_push(&heaps[R_RETRY], p->url,
			    (double)(now - p->access) / retry_interval(s, p), -1, R_RETRY);
	} else if (due >= 0 && now >= due) {
		/* The due pages by the periods elapsed since their last
		 * access, most overdue first. */
		s->n_due++;
		row_push(&heaps[R_REFRESH], p->url,
		    (double)(now - p->access) * f / SECONDS_PER_DAY, due, R_REFRESH);
	} else if ((p->document || p->sitemap) && rested(s, p)) {
		/* Sitemaps first, for the URLs they may add; then the nearest
		 * to being due; those with no frequency (no change seen, or no
		 * change rate yet) last, the longest unread first. */
		double age = (double)(now - p->access) / SECONDS_PER_DAY;
		row_push(&heaps[R_REFRESH_EARLY], p->url, p->sitemap ? 1 + age :
		    f > 0 ? age * f : -1 / (1 + age), due, R_REFRESH_EARLY);
	}
}

static void
pass2_page(struct schedule *s, const struct page *p)
{
	bool capped;
	int64_t due = -1;
	double f = frequency(s, p, &capped);

	if (f > 0 && p->access >= 0) {
		double d = ceil((double)p->access + SECONDS_PER_DAY / f);
		due = (int64_t)(d < DUE_MAX ? d : DUE_MAX);
	}
	if (s->plan_file)
		write_plan_row(s->plan_file->fp, p, f, due, capped);
	if (p->out_of_scope)
		return;

	switch (p->override) {
	case OV_NEVER:
		return;
	case OV_NOW:
		row_push(&s->heaps[R_NOW], p->url, p->weight_base * p->factor, -1, R_NOW);
		return;
	case OV_PERIOD:
		if (period_due(s, p))
			row_push(&s->heaps[R_PERIOD], p->url, p->access < 0 ? INFINITY :
			    (double)(s->now - p->access) / p->period, due, R_PERIOD);
		return;
	case OV_NONE:
		push_candidate(s, p, f, due);
		return;
	}
}

void
second_pass(struct schedule *s)
{
	for (int r = 0; r < NREASONS; r++)
		s->heaps[r].cap = s->plan.rows;
	if (s->plan_path)
		s->plan_file = atomic_open(s->plan_path);
	scan_state(s, 2, pass2_page);
	if (s->plan_file)
		atomic_commit(s->plan_file);
}
