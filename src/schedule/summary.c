/* The summary of the cycle (wa-schedule(1), --summary): the counts, the water
 * level and the cost of the plan against the uniform refresh and the
 * optimum without the cap. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "schedule.h"

static void
summary_rows(const struct schedule *s, FILE *fp, const char *prefix)
{
	const struct page_sums *p1 = &s->p1;
	const struct cycle_plan *plan = &s->plan;
	const struct row_heap *heaps = s->heaps;
	double alpha = s->alpha;
	long double a = p1->a_xml_raw * plan->xml_scale + p1->a_html;
	double uniform_f = p1->refreshable ? plan->g_refresh / (double)p1->refreshable : 0;
	if (uniform_f > plan->cap)
		uniform_f = plan->cap;
	double uniform = p1->refreshable == 0 ? 0 : uniform_f > 0 ?
	    (double)(a * powl(uniform_f, -alpha) / (alpha + 1)) : INFINITY;
	double optimum = plan->g_refresh > 0 ? (double)(powl(plan->s, alpha + 1) /
	    ((alpha + 1) * powl(plan->g_refresh, alpha))) : INFINITY;
	uint64_t listed = 0;
	for (int r = 0; r < NREASONS; r++)
		listed += heaps[r].n;
#define ROW_U(k, v) fprintf(fp, "%s%s\t%" PRIu64 "\n", prefix, k, (uint64_t)(v))
#define ROW_D(k, v) fprintf(fp, "%s%s\t%.17g\n", prefix, k, (double)(v))
	ROW_U("pages", p1->pages);
	ROW_U("refreshable", p1->refreshable);
	ROW_U("no-lambda", p1->no_lambda);
	ROW_U("never", p1->never);
	/* Only with rules, so that the summary of before stays as it was. */
	if (s->scope.n)
		ROW_U("out-of-scope", p1->out_of_scope);
	ROW_D("G-refresh", plan->g_refresh);
	ROW_D("cap", plan->cap);
	ROW_D("chi-scale", plan->xml_scale);
	ROW_D("S", plan->s);
	ROW_D("level", plan->level);
	ROW_U("capped", plan->capped);
	ROW_U("due", s->n_due);
	ROW_U("candidates", p1->new_xml + p1->new_html + p1->rested + p1->retry_due +
	    p1->now + p1->period_due);
	ROW_U("rows", plan->rows);
	ROW_U("listed", listed);
	uint64_t early = heaps[R_REFRESH_EARLY].n - plan->rereads;
	for (int r = 0; r < NREASONS; r++)
		if (r != R_REFRESH_EARLY)
			ROW_U(reason_name[r], heaps[r].n + (r == R_REFRESH ? early : 0));
	ROW_U("early", early);
	ROW_U("reread", plan->rereads);
	ROW_D("cost", p1->refreshable && plan->level == 0 ? INFINITY : (double)s->cost);
	ROW_D("uniform-cost", uniform);
	ROW_D("optimum", p1->refreshable ? optimum : 0);
#undef ROW_U
#undef ROW_D
}

void
write_summaries(const struct schedule *s)
{
	if (s->summary_path) {
		struct atomic_file *sf = atomic_open(s->summary_path);
		summary_rows(s, sf->fp, "");
		atomic_commit(sf);
	}
	if (!wa_quiet)
		summary_rows(s, stderr, "wa-schedule: ");
}
