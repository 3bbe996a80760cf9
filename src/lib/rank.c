#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msg.h"
#include "progress.h"
#include "rankengine.h"
#include "scores.h"

/* pr times scale, then x from pr and the dangling sum, over all pages. */
static void
refresh_importance(struct engine *e, double scale)
{
	double d = 0;
	for (struct span sp = { 0 }; span_next(e, &sp, e->n);) {
		if (scale != 1)
			for (uint64_t i = 0; i < sp.hi - sp.lo; i++)
				sp.pr[i] *= scale;
		set_contributions(&sp);
		for (uint64_t i = 0; i < sp.hi - sp.lo; i++)
			if (!sp.outdeg[i])
				d += sp.pr[i];
	}
	e->dangling = d;
}

/* After a Gauss-Seidel sweep: U and its residual scaled to sum 1. */
static void
normalize_usefulness(struct engine *e)
{
	double sum = rank_sum(e->plan, e->u);
	if (!(sum > 0))
		return;
	double scale = 1 / sum;
	for (struct span sp = { 0 }; span_next(e, &sp, e->n);) {
		for (uint64_t i = 0; i < sp.hi - sp.lo; i++) {
			sp.u[i] *= scale;
			sp.r[i] *= scale;
		}
	}
	e->pushed_e *= scale;
	for (uint32_t k = 0; k < e->g->slices; k++)
		e->absorbed[k] *= scale;
}

/* After a Jacobi sweep: the new usefulness from the sums in r.  The first
 * sweep of Gauss-Seidel is one too, leaving U at E' and r its residual. */
static void
finish_usefulness_jacobi(struct engine *e, struct change *ch)
{
	const double c = e->p->damping;
	double scale = 1, dangling = 0;
	bool residual = !e->p->jacobi && !e->p->transpose;
	if (e->p->transpose) {
		double old_sum = 0, new_sum = 0;
		for (struct span sp = { 0 }; span_next(e, &sp, e->n);) {
			for (uint64_t i = 0; i < sp.hi - sp.lo; i++) {
				sp.r[i] = (sp.outdeg[i] ? c * sp.r[i] / sp.outdeg[i] : 0) +
				    (1 - c) * sp.e_use[i];
				old_sum += sp.u[i];
				new_sum += sp.r[i];
			}
		}
		scale = new_sum > 0 ? old_sum / new_sum : 1;
	} else {
		for (struct span sp = { 0 }; span_next(e, &sp, e->n);) {
			for (uint64_t i = 0; i < sp.hi - sp.lo; i++)
				if (!sp.indeg[i])
					dangling += sp.u[i];
		}
	}
	for (struct span sp = { 0 }; span_next(e, &sp, e->n);) {
		for (uint64_t i = 0; i < sp.hi - sp.lo; i++) {
			double *v = &sp.r[i], eu = sp.e_use[i];
			double nv = e->p->transpose ? *v * scale :
			    c * (*v + dangling * eu) + (1 - c) * eu;
			change_add(ch, nv - sp.u[i]);
			if (residual) {
				*v = nv - sp.u[i];
			} else {
				sp.u[i] = nv;
				*v = 0;
			}
		}
	}
	e->pushing = residual;
}

/* Jacobi with --renormalize: the sweep's result times r of eq. 2.7, and
 * its change from the iterate before. */
static void
finish_renormalized_jacobi(struct engine *e, struct change *ch)
{
	double scale = rank_sum(e->plan, e->pr) / e->unscaled;
	for (struct span sp = { 0 }; span_next(e, &sp, e->n);) {
		for (uint64_t i = 0; i < sp.hi - sp.lo; i++) {
			sp.next[i] *= scale;
			change_add(ch, sp.next[i] - sp.pr[i]);
		}
	}
}

/* Copies src into dst, a chunk at a time. */
static void
copy_vector(const struct rank_plan *plan, struct vec *dst, const struct vec *src)
{
	for (uint64_t lo = 0, hi; lo < src->n; lo = hi) {
		hi = rank_chunk_end(plan, src->n, lo);
		double *to = vec_view(dst, lo, hi, VEC_WRITE);
		const double *from = vec_view(src, lo, hi, VEC_READ);
		memcpy(to, from, (hi - lo) * sizeof *to);
		vec_unview(dst, to, lo, hi);
		vec_unview(src, from, lo, hi);
	}
}

/* Extrapolation over two sweeps, after T. Haveliwala, S. Kamvar, D. Klein,
 * C. Manning, G. Golub, "Computing PageRank using Power Extrapolation"
 * (Stanford, 2003): when the error decays by mu every two sweeps, pr two
 * sweeps before, b, and now, p, point to the fix-point p + (p - b) mu /
 * (1 - mu).  Their mu is c^2, the power iteration's; Gauss-Seidel's is not
 * known, so it is measured, as the ratio of the L1 changes two sweeps
 * apart, and taken only when the last two such ratios agree.  Over two
 * sweeps, not one (Aitken's): slow modes of both signs remain, and
 * extrapolating over one sweep amplifies those of the other sign.  On a
 * site graph nearly all the error is rank moving between sites, decaying
 * by about 0.72 a sweep, which every EXTRAPOLATION_GAP sweeps this takes
 * mostly out: on the generated site graph of 2^24 pages, 31 sweeps to an
 * L1 change of 1e-9 instead of 41.  A graph that mixes fast (mu below
 * EXTRAPOLATION_MU_MIN) has nothing to gain, and is left alone. */
#define EXTRAPOLATION_GAP 6
#define EXTRAPOLATION_MU_MIN 0.1
#define EXTRAPOLATION_MU_MAX 0.9	/* p - b is then multiplied by 9 at most */

/* Whether sweep it may end by extrapolating: EXTRAPOLATION_GAP sweeps
 * after the last time, or every second sweep after that while the rates
 * disagree, so that before, taken as the sweep before began, is not
 * overwritten as this one begins. */
static bool
extrapolation_due(const struct engine *e, unsigned it)
{
	unsigned since = it - e->extrapolated_at;
	return vec_exists(&e->before) && !e->extrapolation_failed && since >= EXTRAPOLATION_GAP &&
	    (since - EXTRAPOLATION_GAP) % 2 == 0;
}

/* The L1 changes of sweeps it and it - 2, as a rate per two sweeps. */
static double
rate_per_two(const struct engine *e, unsigned it)
{
	return e->l1_history[it % 4] / e->l1_history[(it - 2) % 4];
}

/* Whether sweep it, about to begin, is to keep pr for an extrapolation
 * after the next: one is due then and the rate so far is worth it. */
static bool
extrapolation_wanted(const struct engine *e, unsigned it)
{
	return extrapolation_due(e, it + 1) && rate_per_two(e, it - 1) >= EXTRAPOLATION_MU_MIN;
}

/* After sweep it, not converged: the rate per two sweeps, or 0 if the
 * last four sweeps did not shrink the change each time, or the last two
 * rates do not agree on one worth extrapolating with. */
static double
extrapolation_rate(const struct engine *e, unsigned it)
{
	const double *h = e->l1_history;
	if (!(h[it % 4] < h[(it - 1) % 4] && h[(it - 1) % 4] < h[(it - 2) % 4] &&
	    h[(it - 2) % 4] < h[(it - 3) % 4]))
		return 0;
	double mu = rate_per_two(e, it), mu_before = rate_per_two(e, it - 1);
	if (!(mu >= EXTRAPOLATION_MU_MIN && mu_before >= EXTRAPOLATION_MU_MIN &&
	    mu < EXTRAPOLATION_MU_MAX && mu_before < EXTRAPOLATION_MU_MAX &&
	    mu < 1.25 * mu_before && mu_before < 1.25 * mu))
		return 0;
	return sqrt(mu * mu_before);
}

/* A thread's share of the pages moved towards the fix-point; its sums of
 * pr and of the dangling pages' pr into extrapolated.  Their x too by
 * propagation blocking, whose scaling waits in x_scale; by the slices,
 * extrapolate() scales pr and sets x after. */
static void *
extrapolate_work(void *arg)
{
	struct worker *w = arg;
	struct engine *e = w->e;
	const double f = e->extrapolation_factor, scale = e->x_scale;
	double sum = 0, dangling = 0;
	uint64_t first = e->n * w->t / e->nt, end = e->n * (w->t + 1) / e->nt;
	for (struct span sp = { .lo = first, .hi = first }; span_next(e, &sp, end);) {
		for (uint64_t i = 0; i < sp.hi - sp.lo; i++) {
			double v = sp.pr[i] * scale;
			v += f * (v - sp.before[i]);
			if (v < 0)
				v = 0;
			sum += v;
			if (!sp.outdeg[i])
				dangling += v;
			sp.pr[i] = v / scale;
		}
		if (e->propagating)
			set_contributions(&sp);
	}
	w->extrapolated[0] = sum;
	w->extrapolated[1] = dangling;
	return NULL;
}

/* pr moved towards the fix-point by the rate mu, scaled to sum 1, with x
 * and the dangling sum to match. */
static void
extrapolate(struct engine *e, double mu)
{
	e->extrapolation_factor = mu / (1 - mu);
	e->extrapolating = true;
	run_workers(e, extrapolate_work);
	e->extrapolating = false;
	double sum = 0, dangling = 0;
	for (unsigned t = 0; t < e->nt; t++) {
		sum += e->w[t].extrapolated[0];
		dangling += e->w[t].extrapolated[1];
	}
	if (e->propagating) {	/* as the sweep's own scaling */
		e->pb.stale_scale /= sum;
		e->x_scale /= sum;
		e->dangling = dangling / sum;
	} else {
		refresh_importance(e, 1 / sum);
	}
}

void
rank_compute(const struct graph *g, const struct rank_plan *plan, const struct rank_vectors *v,
    struct rank_result *res)
{
	const struct rank_params *p = &plan->params;
	struct engine e;
	engine_open(&e, g, plan, v);
	memset(res, 0, sizeof *res);
	if (e.inverted)	/* usefulness, from E' as the paper says */
		copy_vector(plan, e.pr, e.v->e);
	if (e.imp)
		refresh_importance(&e, 1);
	if (e.propagating)
		propagation_begin(&e);
	if (e.use)	/* from E', as the paper says */
		copy_vector(plan, e.u, v->e_use);

	struct progress pg;
	progress_start(&pg, "iterations", p->max_iterations);
	for (unsigned it = 1; it <= p->max_iterations; it++) {
		double t0 = monotonic_seconds();
		struct change ci = { 0 }, cu = { 0 };
		/* The sweep before one that may extrapolate keeps pr as it finds
		 * it. */
		e.remembering = extrapolation_wanted(&e, it);
		e.unscaled = 0;
		for (uint32_t k = 0; k < e.nslices; k++)
			sweep_slice(&e, &e.slices[k], &ci, &cu);
		e.remembering = false;
		if (e.imp) {
			if (p->renormalize)
				finish_renormalized_jacobi(&e, &ci);
			if (p->jacobi) {
				struct vec *t = e.pr;
				e.pr = e.next;
				e.next = t;
			}
			/* Gauss-Seidel does not keep the sum of the vector; put back
			 * to 1, the error along the dominant direction goes. */
			if (e.propagating) {
				/* Each part takes it as the next sweep comes to it. */
				e.pb.stale_scale = 1 / e.unscaled;
				e.x_scale *= e.pb.stale_scale;
				e.dangling *= e.pb.stale_scale;
			} else {
				refresh_importance(&e, p->jacobi ? 1 : 1 / rank_sum(plan, e.pr));
			}
		}
		if (e.use && !e.pushing)
			finish_usefulness_jacobi(&e, &cu);
		else if (e.use)
			normalize_usefulness(&e);

		res->iterations = it;
		res->change[0] = change_value(&ci, p->norm);
		res->change[1] = change_value(&cu, p->norm);
		e.l1_history[it % 4] = ci.l1;
		if (e.extrapolated_at && it == e.extrapolated_at + 2 &&
		    !(ci.l1 < e.l1_history[(it - 2) % 4]))
			e.extrapolation_failed = true;
		/* Else no iteration would end it, and -i could be 10^6. */
		if (isnan(res->change[0]) || isnan(res->change[1]))
			wa_die("%s: iteration %u: the change is not a number (weights too large "
			    "to sum?)", g->dir, it);
		bool converged = (!e.imp || res->change[0] < p->epsilon) &&
		    (!e.use || res->change[1] < p->epsilon);
		double mu = 0;
		if (!converged && it < p->max_iterations && extrapolation_due(&e, it) &&
		    (mu = extrapolation_rate(&e, it)) > 0) {
			extrapolate(&e, mu);
			e.extrapolated_at = it;
		}
		if (wa_verbose) {
			char line[256];
			int n = snprintf(line, sizeof line, "iteration %u:", it);
			if (e.imp)
				n += snprintf(line + n, sizeof line - n, " %s L1 %.3e L2 %.3e;",
				    e.inverted ? "usefulness" : "importance", ci.l1, sqrt(ci.l2));
			if (e.use)
				n += snprintf(line + n, sizeof line - n, " usefulness L1 %.3e L2 %.3e;",
				    cu.l1, sqrt(cu.l2));
			n += snprintf(line + n, sizeof line - n, " %.3f s", monotonic_seconds() - t0);
			if (mu > 0)
				snprintf(line + n, sizeof line - n, "; extrapolated at %.3f per two",
				    mu);
			wa_warn("%s", line);
		}
		if (e.imp && e.use)
			progress_note(&pg, "importance L1 %.2e L2 %.2e, usefulness L1 %.2e L2 %.2e",
			    ci.l1, sqrt(ci.l2), cu.l1, sqrt(cu.l2));
		else
			progress_note(&pg, "L1 %.2e L2 %.2e", e.imp ? ci.l1 : cu.l1,
			    sqrt(e.imp ? ci.l2 : cu.l2));
		progress_set(&pg, it);
		if (converged) {
			res->converged = true;
			break;
		}
	}
	progress_end(&pg);
	if (e.propagating)
		for (uint64_t lo = 0, hi; lo < e.n; lo = hi) {
			hi = rank_chunk_end(plan, e.n, lo);
			double *pr = vec_view(e.pr, lo, hi, VEC_WRITE);
			for (uint64_t i = 0; i < hi - lo; i++)
				pr[i] *= e.x_scale;
			vec_unview(e.pr, pr, lo, hi);
		}
	if (e.imp && e.pr != e.v->importance) {	/* Jacobi ended on the other buffer */
		copy_vector(plan, e.v->importance, e.pr);
		e.next = e.pr;
		e.pr = e.v->importance;
	}
	if (e.inverted) {	/* the importance of the inverted graph */
		res->change[1] = res->change[0];
		res->change[0] = 0;
	}
	engine_close(&e);
}

void
rank_jacobi_part(const struct graph *g, const struct rank_plan *plan, const struct vec *pr,
    const struct vec *e_vec, uint32_t first, uint32_t end, const char *path)
{
	struct rank_plan jp = *plan;
	jp.params.jacobi = true;
	/* Jacobi reads pr, and writes next only. */
	struct rank_vectors v = { .importance = (struct vec *)pr, .e = e_vec };
	struct engine e;
	engine_open(&e, g, &jp, &v);
	refresh_importance(&e, 1);
	struct change ch = { 0 }, unused = { 0 };
	for (uint32_t k = first; k < end; k++)
		sweep_slice(&e, &e.slices[k], &ch, &unused);
	scores_write_vector_part(plan, path, e.next, g->bound[first], g->bound[end], g->nodes);
	engine_close(&e);
}

double
rank_sum(const struct rank_plan *plan, const struct vec *v)
{
	double sum = 0;
	for (uint64_t lo = 0, hi; lo < v->n; lo = hi) {
		hi = rank_chunk_end(plan, v->n, lo);
		const double *d = vec_view(v, lo, hi, VEC_READ);
		for (uint64_t i = 0; i < hi - lo; i++)
			sum += d[i];
		vec_unview(v, d, lo, hi);
	}
	return sum;
}

bool
rank_normalize(const struct rank_plan *plan, struct vec *v)
{
	double sum = rank_sum(plan, v);
	if (!(sum > 0))
		return false;
	for (uint64_t lo = 0, hi; lo < v->n; lo = hi) {
		hi = rank_chunk_end(plan, v->n, lo);
		double *d = vec_view(v, lo, hi, VEC_WRITE);
		for (uint64_t i = 0; i < hi - lo; i++)
			d[i] /= sum;
		vec_unview(v, d, lo, hi);
	}
	return true;
}
