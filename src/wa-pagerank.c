/* wa-pagerank: importance of pages, PageRank on the sliced link matrix
 * with Gauss-Seidel iterations (Preda, "Data Acquisition for an XML
 * Warehouse", 2000, sec. 2.1-2.3), and the usefulness of pages in the same
 * run: after importance, or by Jacobi in the same scans (sec. 2.3.4).  The
 * engine is src/lib/rank.c; t/rank-verify.py checks it against networkx. */
#include <float.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rank.h"
#include "wa.h"

static const char usage[] =
"usage: wa-pagerank [-qv] [-c damping] [-e epsilon] [--norm l1|l2] [-i iterations]\n"
"                   [-p personalisation] [--subscriptions file]\n"
"                   [--subscription-weight w] [--init importance] [--renormalize]\n"
"                   [--jacobi] [--no-extrapolation] [-U usefulness] [-m size]\n"
"                   [-j threads] [-o file] [-b vector] [--slice K/P] graph\n"
"  -c damping       damping factor c (0.85)\n"
"  -e epsilon       stop when the change is below epsilon (1e-9)\n"
"  --norm l1|l2     the norm of the change (l2, as seed 000 eq. 2.4)\n"
"  -i iterations    at most this many iterations (100)\n"
"  -p file          personalisation E: url<TAB>weight, sorted by URL (uniform)\n"
"  --subscriptions file  url[<TAB>weight] rows sorted by URL: a virtual page\n"
"                   linking to them takes share w of E (--subscription-weight 0.1)\n"
"  --init file      start from a previous importance (TSV or -b vector)\n"
"  --renormalize    rescale each iterate by r (seed 000 eq. 2.6-2.7); Jacobi\n"
"  --jacobi         power iteration instead of Gauss-Seidel\n"
"  --no-extrapolation  Gauss-Seidel without extrapolation every 6 sweeps\n"
"  -U file          also write usefulness (wa-invrank's), after importance\n"
"  -m size          memory budget (1G)\n"
"  -j threads       threads (the number of processors)\n"
"  -o file          write importance to file (standard output)\n"
"  -b file          also write the vector in id order, binary\n"
"  --slice K/P      one Jacobi step of part K of P from --init, into -b\n";

enum {
	OPT_INIT = WA_OPT_FIRST_TOOL, OPT_RENORMALIZE, OPT_SLICE, OPT_NO_EXTRAPOLATION,
	OPT_SUBSCRIPTIONS, OPT_SUBSCRIPTION_WEIGHT,
};

/* The share of E that the virtual page of the subscriptions takes. */
#define SUBSCRIPTION_WEIGHT 0.1

/* The start vector from a VEC8 file, checked whole as it is read. */
static void
read_vector_file(const struct graph *g, const struct rank_params *p, const char *path,
    struct vec *pr)
{
	struct bin_reader r;
	const char *msg = bin_reader_open(&r, path, "VEC8", 1, 8);
	if (msg)
		wa_die("%s", msg);
	if (r.h.count != g->nodes)
		wa_die("%s: a vector of %llu values, the graph has %llu pages", path,
		    (unsigned long long)r.h.count, (unsigned long long)g->nodes);
	/* aux[0] is 0 in vectors of older versions, and in a part (--slice)
	 * of this size, which starts at id 0. */
	if (r.h.aux[0] && r.h.aux[0] != graph_fingerprint(g))
		wa_die("%s: a vector of another graph of %llu pages (its URLs differ from "
		    "those of %s)", path, (unsigned long long)g->nodes, g->dir);
	for (uint64_t lo = 0, hi; lo < g->nodes; lo = hi) {
		hi = rank_chunk_end(p, g->nodes, lo);
		double *to = vec_view(pr, lo, hi, VEC_WRITE);
		size_t got;
		for (size_t done = 0; done < (hi - lo) * sizeof *to; done += got) {
			if ((msg = bin_read(&r, (char *)to + done, (hi - lo) * sizeof *to - done,
			    &got)))
				wa_die("%s", msg);
			if (got == 0)
				wa_die("%s: cut short", path);
		}
		vec_unview(pr, to, lo, hi);
	}
	/* The read that reaches the end checks the payload CRC. */
	size_t got;
	char end;
	if ((msg = bin_read(&r, &end, 1, &got)))
		wa_die("%s", msg);
	bin_reader_close(&r);
}

static void
read_start_vector(const struct graph *g, const struct rank_params *p, const char *path,
    struct vec *pr, const struct vec *e)
{
	FILE *f = fopen(path, "rb");
	unsigned char magic[4] = { 0 };
	if (!f)
		wa_die_errno("%s", path);
	size_t got = fread(magic, 1, sizeof magic, f);
	fclose(f);
	uint64_t n = g->nodes;
	if (got == 4 && memcmp(magic, "\x89WAB", 4) == 0) {
		read_vector_file(g, p, path, pr);
	} else {
		uint64_t unknown;
		uint64_t matched = rank_read_scores(g, p, path, pr, &unknown);
		if (unknown)
			wa_note("%s: %llu URLs are not in the graph", path,
			    (unsigned long long)unknown);
		if (!matched)
			wa_warn("%s: no URL of the graph; starting from E", path);
	}
	/* Pages new since then get what mass is missing, spread along E. */
	double sum = 0;
	for (uint64_t lo = 0, hi; lo < n; lo = hi) {
		hi = rank_chunk_end(p, n, lo);
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
			hi = rank_chunk_end(p, n, lo);
			double *v = vec_view(pr, lo, hi, VEC_WRITE);
			const double *ev = e ? vec_view(e, lo, hi, VEC_READ) : NULL;
			for (uint64_t i = 0; i < hi - lo; i++)
				v[i] += (1 - sum) * (ev ? ev[i] : 1.0 / n);
			vec_unview(pr, v, lo, hi);
			if (ev)
				vec_unview(e, ev, lo, hi);
		}
	rank_normalize(p, pr);
}

static void
read_personalisation(const struct graph *g, const struct rank_params *p, const char *path,
    struct vec *e)
{
	rank_vector_new(p, g->nodes, e);
	uint64_t unknown;
	rank_read_scores(g, p, path, e, &unknown);
	if (unknown)
		wa_note("%s: %llu URLs are not in the graph", path, (unsigned long long)unknown);
	if (!rank_normalize(p, e))
		wa_die("%s: no positive weight on a page of the graph", path);
}

/* Publication/subscription as Mignet, Preda, Abiteboul et al., "Acquisition
 * and Maintenance of XML Data from the Web", sec. 5.3: a virtual
 * page that links to the subscribed pages, taking share w of the
 * personalisation: E' = (1-w) E + w S, S the subscription's weights
 * normalised.  E is e if personalised, else uniform; e becomes E'.  S
 * and E are held together here only, before the vectors of the run are
 * taken: no more than the run holds later. */
static void
add_subscriptions(const struct graph *g, const struct rank_params *p, const char *path,
    double w, struct vec *e, bool personalised)
{
	struct vec s;
	rank_vector_new(p, g->nodes, &s);
	uint64_t unknown, matched = rank_read_subscriptions(g, p, path, &s, &unknown);
	if (unknown)
		wa_warn("%s: %llu of %llu URLs are not in the graph (wa-linkmat -p makes pages "
		    "of them)", path, (unsigned long long)unknown,
		    (unsigned long long)(unknown + matched));
	double sum = rank_sum(p, &s);
	if (!(sum > 0)) {
		wa_warn("%s: no positive weight on a page of the graph; E without subscriptions",
		    path);
		vec_free(&s);
		return;
	}
	if (!personalised)
		rank_vector_new(p, g->nodes, e);
	const double uniform = 1.0 / (double)g->nodes;
	for (uint64_t lo = 0, hi; lo < g->nodes; lo = hi) {
		hi = rank_chunk_end(p, g->nodes, lo);
		double *ev = vec_view(e, lo, hi, VEC_WRITE);
		const double *sv = vec_view(&s, lo, hi, VEC_READ);
		for (uint64_t i = 0; i < hi - lo; i++)
			ev[i] = (1 - w) * (personalised ? ev[i] : uniform) + w * (sv[i] / sum);
		vec_unview(&s, sv, lo, hi);
		vec_unview(e, ev, lo, hi);
	}
	vec_free(&s);
	/* Round-off only. */
	rank_normalize(p, e);
}

/* The start vector: E, or uniform. */
static void
start_from_e(const struct graph *g, const struct rank_params *p, struct vec *pr,
    const struct vec *e)
{
	for (uint64_t lo = 0, hi; lo < g->nodes; lo = hi) {
		hi = rank_chunk_end(p, g->nodes, lo);
		double *v = vec_view(pr, lo, hi, VEC_WRITE);
		const double *ev = e ? vec_view(e, lo, hi, VEC_READ) : NULL;
		for (uint64_t i = 0; i < hi - lo; i++)
			v[i] = ev ? ev[i] : 1.0 / g->nodes;
		vec_unview(pr, v, lo, hi);
		if (ev)
			vec_unview(e, ev, lo, hi);
	}
}

/* The end of a computation: a warning if it did not converge, else a
 * note, each after what ("importance: "...; "" for importance alone or
 * both in the same scans), of the larger change of both. */
static void
report(const struct rank_params *p, const struct rank_result *res, const char *what, double t0)
{
	double change = fmax(res->change[0], res->change[1]);
	if (!res->converged)
		wa_warn("%sno convergence to %g in %u iterations (last change %.3g)", what,
		    p->epsilon, res->iterations, change);
	else
		wa_note("%s%u iterations, last change %.3g (%s), %.2f s", what, res->iterations,
		    change, p->norm == RANK_L1 ? "L1" : "L2", monotonic_seconds() - t0);
}

static void
parse_slice(const char *arg, unsigned *k, unsigned *parts)
{
	char extra;
	if (sscanf(arg, "%u/%u%c", k, parts, &extra) != 2 || *parts == 0 || *k >= *parts)
		wa_usage_error("--slice: '%s' is not K/P with 0 <= K < P", arg);
}

static void
write_part(const struct graph *g, const struct rank_params *p, const struct vec *pr,
    const struct vec *e, unsigned k, unsigned parts, const char *path)
{
	if (parts > g->slices)
		wa_die("%s: %u parts asked of a graph of %u slices", g->dir, parts, g->slices);
	uint32_t first = (uint32_t)((uint64_t)g->slices * k / parts);
	uint32_t end = (uint32_t)((uint64_t)g->slices * (k + 1) / parts);
	rank_jacobi_part(g, p, pr, e, first, end, path);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "init", required_argument, NULL, OPT_INIT },
		{ "renormalize", no_argument, NULL, OPT_RENORMALIZE },
		{ "no-extrapolation", no_argument, NULL, OPT_NO_EXTRAPOLATION },
		{ "slice", required_argument, NULL, OPT_SLICE },
		{ "subscriptions", required_argument, NULL, OPT_SUBSCRIPTIONS },
		{ "subscription-weight", required_argument, NULL, OPT_SUBSCRIPTION_WEIGHT },
		RANK_LONGOPTS,
		WA_COMMON_LONGOPTS
	};
	struct rank_params p;
	const char *personalisation = NULL, *init = NULL, *usefulness = NULL;
	const char *out = NULL, *vector = NULL, *subscriptions = NULL;
	double subscription_weight = SUBSCRIPTION_WEIGHT;
	bool weight_given = false;
	unsigned slice_k = 0, slice_parts = 0;
	int c;

	wa_init(argc, argv, usage);
	rank_defaults(&p);
	while ((c = getopt_long(argc, argv, RANK_SHORTOPTS "hqvi:p:U:o:b:", longopts,
	    NULL)) != -1) {
		if (rank_option(c, optarg, &p))
			continue;
		switch (c) {
		case 'i': rank_option(RANK_OPT_ITERATIONS, optarg, &p); break;
		case 'p': personalisation = optarg; break;
		case OPT_INIT: init = optarg; break;
		case OPT_RENORMALIZE: p.renormalize = p.jacobi = true; break;
		case OPT_NO_EXTRAPOLATION: p.plain = true; break;
		case 'U': usefulness = optarg; break;
		case 'o': out = optarg; break;
		case 'b': vector = optarg; break;
		case OPT_SLICE: parse_slice(optarg, &slice_k, &slice_parts); break;
		case OPT_SUBSCRIPTIONS: subscriptions = optarg; break;
		case OPT_SUBSCRIPTION_WEIGHT:
			subscription_weight = opt_double("--subscription-weight", optarg, 0, 1);
			if (subscription_weight >= 1)
				wa_usage_error("--subscription-weight: '%s' is not below 1 (1 would "
				    "leave E out: -p does that)", optarg);
			weight_given = true;
			break;
		default: wa_common_option(c);
		}
	}
	if (argc - optind != 1)
		wa_usage_error("one graph directory expected");
	if (slice_parts && (!init || !vector || usefulness || out))
		wa_usage_error("--slice needs --init and -b, and writes nothing else");
	if (weight_given && !subscriptions)
		wa_usage_error("--subscription-weight needs --subscriptions");

	struct graph g;
	graph_open(&g, argv[optind]);
	/* -U: usefulness after importance, each as alone; by Jacobi both in
	 * the same scans, as Preda's report has it (sec. 2.3.4). */
	bool same_scans = usefulness && p.jacobi;
	struct rank_params base = p;
	rank_plan(&g, &p, true, same_scans, personalisation || subscriptions);
	struct vec e = { .fd = -1 }, pr;
	if (personalisation)
		read_personalisation(&g, &p, personalisation, &e);
	if (subscriptions)
		add_subscriptions(&g, &p, subscriptions, subscription_weight, &e,
		    personalisation != NULL);
	const struct vec *ep = vec_exists(&e) ? &e : NULL;
	rank_vector_new(&p, g.nodes, &pr);
	if (init)
		read_start_vector(&g, &p, init, &pr, ep);
	else
		start_from_e(&g, &p, &pr, ep);

	if (slice_parts) {
		write_part(&g, &p, &pr, ep, slice_k, slice_parts, vector);
	} else {
		struct vec use = { .fd = -1 }, e_use = { .fd = -1 };
		if (same_scans) {
			if (rank_xml_personalisation(&g, &p, NULL, &e_use)) {
				rank_vector_new(&p, g.nodes, &use);
			} else {
				rank_no_usefulness(&g, usefulness);
				vec_free(&e_use);
				usefulness = NULL;
				same_scans = false;
			}
		}
		struct rank_vectors v = { .importance = &pr, .e = ep,
		    .usefulness = same_scans ? &use : NULL, .e_use = same_scans ? &e_use : NULL };
		struct rank_result res;
		double t0 = monotonic_seconds();
		rank_compute(&g, &p, &v, &res);
		report(&p, &res, usefulness && !same_scans ? "importance: " : "", t0);
		rank_normalize(&p, &pr);
		/* Usefulness apart: the run's vectors but pr freed, planned anew
		 * within -m beside pr, which is written with it at the end. */
		struct rank_params pu = base;
		if (usefulness && !same_scans) {
			vec_free(&e);
			ep = NULL;
			pu.held = p.on_disk ? 0 : sizeof(double);
			pu.checked = true;
			rank_plan(&g, &pu, false, true, false);
			if (rank_xml_personalisation(&g, &pu, NULL, &e_use)) {
				rank_vector_new(&pu, g.nodes, &use);
				struct rank_vectors vu = { .usefulness = &use, .e_use = &e_use };
				t0 = monotonic_seconds();
				rank_compute(&g, &pu, &vu, &res);
				report(&pu, &res, "usefulness: ", t0);
			} else {
				rank_no_usefulness(&g, usefulness);
				usefulness = NULL;
			}
		}
		if (vector)
			rank_write_vector(&g, &p, vector, &pr);
		if (usefulness) {
			rank_normalize(same_scans ? &p : &pu, &use);
			rank_write_scores(&g, same_scans ? &p : &pu, &use, usefulness);
		}
		rank_write_scores(&g, &p, &pr, out);
		vec_free(&use);
		vec_free(&e_use);
	}
	vec_free(&pr);
	vec_free(&e);
	graph_close(&g);
	return 0;
}
