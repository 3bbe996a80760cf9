/* The division of the cycle's G*T fetches: between the passes, the slots
 * of each reason and the water level of the refresh; after pass 2, the
 * rows each reason keeps. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "schedule.h"

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

static uint64_t
share_rows(const struct schedule *s, double percent)
{
	return (uint64_t)floor(percent / 100 * (double)s->plan.rows);
}

static uint64_t
min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* The KKT conditions of min sum c_i(f_i), sum f_i = G, f_i <= cap give
 * f_i = min(cap, L u_i): cap the largest u_i while L u_i > cap, each time
 * handing their unused bandwidth to the rest; L only grows, so the first k
 * whose next u stays under the cap is the exact fixed point. */
static void
water_level(const struct page_sums *p1, struct cycle_plan *plan)
{
	size_t n = p1->top_xml.n + p1->top_html.n, k;
	double *u = wa_reallocarray(NULL, n ? n : 1, sizeof *u);
	for (size_t i = 0; i < p1->top_xml.n; i++)
		u[i] = p1->top_xml.v[i] * plan->u_scale;
	memcpy(u + p1->top_xml.n, p1->top_html.v, p1->top_html.n * sizeof *u);
	qsort(u, n, sizeof *u, double_desc);
	long double rest = plan->s;
	plan->level = 0;
	plan->capped = 0;
	if (plan->g_refresh <= 0 || rest <= 0) {
		free(u);
		return;
	}
	for (k = 0;; k++) {
		long double left = (long double)plan->g_refresh - (long double)k * plan->cap;
		if (k == p1->positive || rest <= 0) {
			/* every page at the cap, bandwidth to spare */
			plan->level = INFINITY;
			break;
		}
		plan->level = (double)(left / rest);
		if (k == n || u[k] * plan->level <= plan->cap)
			break;
		rest -= u[k];
	}
	plan->capped = k;
	free(u);
}

/* The bandwidth of the optimised refresh: G less what the fixed periods,
 * the overrides now and discovery at its shares take (Preda, "Data
 * Acquisition for an XML Warehouse", 2000, sec. 5.1).  Discovery that
 * needs less than its share leaves the rest to the refresh. */
void
plan_cycle(struct schedule *s)
{
	const struct page_sums *p1 = &s->p1;
	struct cycle_plan *plan = &s->plan;
	uint64_t left;

	plan->rows = (uint64_t)floor(s->bandwidth * s->cycle_days);
	left = plan->rows;
	plan->slots[R_NOW] = take(&left, p1->now);
	plan->slots[R_PERIOD] = take(&left, p1->period_due);
	plan->slots[R_DISCOVER_XML] = take(&left,
	    min_u64(p1->new_xml, share_rows(s, s->share_xml)));
	plan->slots[R_DISCOVER_HTML] = take(&left,
	    min_u64(p1->new_html, share_rows(s, s->share_html)));

	plan->cap = 1 / s->cycle_days;
	plan->g_refresh = s->bandwidth - p1->period_bandwidth -
	    (double)(plan->slots[R_NOW] + plan->slots[R_DISCOVER_XML] +
	    plan->slots[R_DISCOVER_HTML]) / s->cycle_days;
	if (plan->g_refresh < 0) {
		wa_warn("the fixed periods, now and discovery take more than G: "
		    "no bandwidth left for refresh");
		plan->g_refresh = 0;
	}
	plan->xml_scale = s->chi;
	if (p1->n_xml && p1->n_html && p1->base_xml > 0 && p1->base_html > 0)
		plan->xml_scale = (double)((long double)s->chi * (p1->base_html / p1->n_html) /
		    (p1->base_xml / p1->n_xml));
	plan->u_scale = pow(plan->xml_scale, 1 / (s->alpha + 1));
	plan->s = p1->s_xml_raw * plan->u_scale + p1->s_html;
	water_level(p1, plan);
	plan->level_cost = pow(plan->level, -s->alpha);
	plan->cap_cost = pow(plan->cap, -s->alpha);
	if (p1->no_lambda)
		wa_warn("%" PRIu64 " fetched pages have no lambda: not refreshed", p1->no_lambda);
	free(s->p1.top_xml.v);
	free(s->p1.top_html.v);
}

/* The cycle's G*T rows, once every candidate is known: the overrides, the
 * discovery shares (Mignet, Preda, Abiteboul et al., "Acquisition and
 * Maintenance of XML Data from the Web", 2000, sec. 2), the due refreshes, then
 * what is left to more discovery while there are URLs to discover, and
 * last to the pages nearest to being due.  In the first cycles nothing is
 * due and discovery takes all. */
void
fill_cycle(struct schedule *s)
{
	struct row_heap *heaps = s->heaps;
	uint64_t left = s->plan.rows, *k = s->plan.slots;
	k[R_NOW] = take(&left, heaps[R_NOW].n);
	k[R_PERIOD] = take(&left, heaps[R_PERIOD].n);
	k[R_DISCOVER_XML] = take(&left,
	    min_u64(heaps[R_DISCOVER_XML].n, share_rows(s, s->share_xml)));
	k[R_DISCOVER_HTML] = take(&left,
	    min_u64(heaps[R_DISCOVER_HTML].n, share_rows(s, s->share_html)));
	k[R_REFRESH] = take(&left, heaps[R_REFRESH].n);
	k[R_RETRY] = take(&left, heaps[R_RETRY].n);
	k[R_DISCOVER_XML] += take(&left, heaps[R_DISCOVER_XML].n - k[R_DISCOVER_XML]);
	k[R_DISCOVER_HTML] += take(&left, heaps[R_DISCOVER_HTML].n - k[R_DISCOVER_HTML]);
	k[R_REFRESH_EARLY] = take(&left, heaps[R_REFRESH_EARLY].n);
	for (int r = 0; r < NREASONS; r++)
		heap_keep(&heaps[r], k[r]);
	s->plan.rereads = 0;
	for (size_t i = 0; i < heaps[R_REFRESH_EARLY].n; i++)
		s->plan.rereads += heaps[R_REFRESH_EARLY].r[i].due < 0;
}
