#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "msg.h"
#include "opt.h"
#include "progress.h"
#include "rank.h"
#include "scores.h"

void
rank_defaults(struct rank_params *p)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	*p = (struct rank_params){
		.damping = 0.85,
		.epsilon = 1e-9,
		.norm = RANK_L2,
		.max_iterations = 100,
		.threads = cpus > 0 ? (unsigned)(cpus < 64 ? cpus : 64) : 1,
		.memory = (uint64_t)1 << 30,
	};
}

bool
rank_option(int opt, const char *arg, struct rank_params *p)
{
	switch (opt) {
	case 'c':
		p->damping = opt_double("-c", arg, 0, 1);
		if (p->damping <= 0 || p->damping >= 1)
			wa_usage_error("-c: the damping must lie strictly between 0 and 1");
		return true;
	case 'e':
		p->epsilon = opt_double("-e", arg, 0, 1);
		return true;
	case 'j':
		p->threads = (unsigned)opt_count("-j", arg, 1, 64);
		return true;
	case 'm':
		p->memory = opt_size("-m", arg);
		return true;
	case RANK_OPT_NORM:
		if (strcmp(arg, "l1") == 0)
			p->norm = RANK_L1;
		else if (strcmp(arg, "l2") == 0)
			p->norm = RANK_L2;
		else
			wa_usage_error("--norm: '%s' is neither l1 nor l2", arg);
		return true;
	case RANK_OPT_JACOBI:
		p->jacobi = true;
		return true;
	case RANK_OPT_ITERATIONS:
		p->max_iterations = (unsigned)opt_count("--iterations", arg, 1, 1000000);
		return true;
	}
	return false;
}

void
rank_open(struct graph *g, struct rank_plan *plan, const char *path,
    const struct rank_params *p, const struct rank_run *r)
{
	graph_open(g, path);
	rank_plan(plan, g, p, r);
}

bool
rank_xml_personalisation(const struct graph *g, const struct rank_plan *plan,
    const struct vec *importance, struct vec *e)
{
	struct vec types;
	graph_vec(g, GF_TYPES, false, &types);
	rank_vector_new(plan, g->nodes, e);
	uint64_t xml = 0;
	for (uint64_t lo = 0, hi; lo < g->nodes; lo = hi) {
		hi = rank_chunk_end(plan, g->nodes, lo);
		const uint8_t *type = vec_view(&types, lo, hi, VEC_READ);
		const double *imp = importance ? vec_view(importance, lo, hi, VEC_READ) : NULL;
		double *to = vec_view(e, lo, hi, VEC_WRITE);
		for (uint64_t i = 0; i < hi - lo; i++)
			if (type[i] == PAGE_XML) {
				to[i] = imp ? imp[i] : 1;
				xml++;
			}
		vec_unview(&types, type, lo, hi);
		if (imp)
			vec_unview(importance, imp, lo, hi);
		vec_unview(e, to, lo, hi);
	}
	vec_free(&types);
	if (!xml)
		return false;
	if (!rank_normalize(plan, e))
		wa_die("%s: the XML pages all have importance 0", g->dir);
	return true;
}

void
rank_usefulness(const struct graph *g, const struct rank_plan *plan, const struct vec *e_use,
    struct vec *use, const char *what)
{
	rank_vector_new(plan, g->nodes, use);
	struct rank_vectors v = { .usefulness = use, .e_use = e_use };
	struct rank_result res;
	double t0 = monotonic_seconds();
	rank_compute(g, plan, &v, &res);
	rank_report(plan, &res, what, t0);
	rank_normalize(plan, use);
}

void
rank_no_usefulness(const struct graph *g, const char *path)
{
	wa_warn("%s: no XML pages in the graph, so nothing to be useful towards: "
	    "no usefulness written (wa-schedule weighs HTML pages by importance)", g->dir);
	scores_write_none(path);
}

/* Pages new since the start vector was made get what mass is missing,
 * spread along e (NULL: uniform); dies on a value that is negative,
 * infinite or not a number. */
static void
complete_start_vector(const struct graph *g, const struct rank_plan *plan, const char *path,
    struct vec *pr, const struct vec *e)
{
	const uint64_t n = g->nodes;
	double sum = 0;
	for (uint64_t lo = 0, hi; lo < n; lo = hi) {
		hi = rank_chunk_end(plan, n, lo);
		const double *v = vec_view(pr, lo, hi, VEC_READ);
		for (uint64_t i = 0; i < hi - lo; i++) {
			if (!(v[i] >= 0) || isinf(v[i]))
				wa_die("%s: value %llu is negative, infinite or not a number",
				    path, (unsigned long long)(lo + i));
			sum += v[i];
			if (isinf(sum))
				wa_die("%s: the values up to %llu sum past %g", path,
				    (unsigned long long)(lo + i), DBL_MAX);
		}
		vec_unview(pr, v, lo, hi);
	}
	if (sum < 1)
		for (uint64_t lo = 0, hi; lo < n; lo = hi) {
			hi = rank_chunk_end(plan, n, lo);
			double *v = vec_view(pr, lo, hi, VEC_WRITE);
			const double *ev = e ? vec_view(e, lo, hi, VEC_READ) : NULL;
			for (uint64_t i = 0; i < hi - lo; i++)
				v[i] += (1 - sum) * (ev ? ev[i] : 1.0 / n);
			vec_unview(pr, v, lo, hi);
			if (ev)
				vec_unview(e, ev, lo, hi);
		}
	rank_normalize(plan, pr);
}

/* The start vector: E, or uniform. */
static void
start_from_e(const struct graph *g, const struct rank_plan *plan, struct vec *pr,
    const struct vec *e)
{
	for (uint64_t lo = 0, hi; lo < g->nodes; lo = hi) {
		hi = rank_chunk_end(plan, g->nodes, lo);
		double *v = vec_view(pr, lo, hi, VEC_WRITE);
		const double *ev = e ? vec_view(e, lo, hi, VEC_READ) : NULL;
		for (uint64_t i = 0; i < hi - lo; i++)
			v[i] = ev ? ev[i] : 1.0 / g->nodes;
		vec_unview(pr, v, lo, hi);
		if (ev)
			vec_unview(e, ev, lo, hi);
	}
}

void
rank_start_vector(const struct graph *g, const struct rank_plan *plan, const char *init,
    struct vec *pr, const struct vec *e)
{
	rank_vector_new(plan, g->nodes, pr);
	if (!init) {
		start_from_e(g, plan, pr, e);
		return;
	}
	if (scores_is_vector(init)) {
		scores_read_vector(g, plan, init, pr);
	} else {
		uint64_t unknown;
		uint64_t matched = scores_read(g, plan, init, pr, &unknown);
		if (unknown)
			wa_note("%s: %llu URLs are not in the graph", init,
			    (unsigned long long)unknown);
		if (!matched)
			wa_warn("%s: no URL of the graph; starting from E", init);
	}
	complete_start_vector(g, plan, init, pr, e);
}

void
rank_read_personalisation(const struct graph *g, const struct rank_plan *plan,
    const char *path, struct vec *e)
{
	rank_read_importance(g, plan, path, e);
	if (!rank_normalize(plan, e))
		wa_die("%s: no positive weight on a page of the graph", path);
}

void
rank_read_importance(const struct graph *g, const struct rank_plan *plan, const char *path,
    struct vec *weight)
{
	rank_vector_new(plan, g->nodes, weight);
	uint64_t unknown;
	scores_read(g, plan, path, weight, &unknown);
	if (unknown)
		wa_note("%s: %llu URLs are not in the graph", path, (unsigned long long)unknown);
}

/* After Mignet, Preda, Abiteboul et al., "Acquisition and Maintenance of
 * XML Data from the Web", sec. 5.3: a virtual page that links to the
 * subscribed pages, taking share w of the personalisation.  S and E are
 * held together here only, before the vectors of the run are taken: no
 * more than the run holds later. */
void
rank_add_subscriptions(const struct graph *g, const struct rank_plan *plan, const char *path,
    double w, struct vec *e, bool personalised)
{
	struct vec s;
	rank_vector_new(plan, g->nodes, &s);
	uint64_t unknown, matched = scores_read_subscriptions(g, plan, path, &s, &unknown);
	if (unknown)
		wa_warn("%s: %llu of %llu URLs are not in the graph (wa-linkmat -p makes pages "
		    "of them)", path, (unsigned long long)unknown,
		    (unsigned long long)(unknown + matched));
	double sum = rank_sum(plan, &s);
	if (!(sum > 0)) {
		wa_warn("%s: no positive weight on a page of the graph; E without subscriptions",
		    path);
		vec_free(&s);
		return;
	}
	if (!personalised)
		rank_vector_new(plan, g->nodes, e);
	const double uniform = 1.0 / (double)g->nodes;
	for (uint64_t lo = 0, hi; lo < g->nodes; lo = hi) {
		hi = rank_chunk_end(plan, g->nodes, lo);
		double *ev = vec_view(e, lo, hi, VEC_WRITE);
		const double *sv = vec_view(&s, lo, hi, VEC_READ);
		for (uint64_t i = 0; i < hi - lo; i++)
			ev[i] = (1 - w) * (personalised ? ev[i] : uniform) + w * (sv[i] / sum);
		vec_unview(&s, sv, lo, hi);
		vec_unview(e, ev, lo, hi);
	}
	vec_free(&s);
	/* Round-off only. */
	rank_normalize(plan, e);
}

void
rank_report(const struct rank_plan *plan, const struct rank_result *res, const char *what,
    double t0)
{
	const struct rank_params *p = &plan->params;
	double change = fmax(res->change[0], res->change[1]);
	if (!res->converged)
		wa_warn("%sno convergence to %g in %u iterations (last change %.3g)", what,
		    p->epsilon, res->iterations, change);
	else
		wa_note("%s%u iterations, last change %.3g (%s), %.2f s", what, res->iterations,
		    change, p->norm == RANK_L1 ? "L1" : "L2", monotonic_seconds() - t0);
}

void
rank_write_part(const struct graph *g, const struct rank_plan *plan, const struct vec *pr,
    const struct vec *e, unsigned k, unsigned parts, const char *path)
{
	if (parts > g->slices)
		wa_die("%s: %u parts asked of a graph of %u slices", g->dir, parts, g->slices);
	uint32_t first = (uint32_t)((uint64_t)g->slices * k / parts);
	uint32_t end = (uint32_t)((uint64_t)g->slices * (k + 1) / parts);
	rank_jacobi_part(g, plan, pr, e, first, end, path);
}
