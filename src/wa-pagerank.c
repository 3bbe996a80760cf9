/* wa-pagerank: importance of pages, PageRank on the sliced link matrix
 * with Gauss-Seidel iterations (Preda, "Data Acquisition for an XML
 * Warehouse", 2000, sec. 2.1-2.3), and the usefulness of pages in the same
 * run: after importance, or by Jacobi in the same scans (sec. 2.3.4).  The
 * engine is src/lib/rank.c; t/rank-verify.py checks it against networkx. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "rank.h"
#include "scores.h"
#include "wa.h"

static const char usage[] =
"usage: wa-pagerank [-qv] [-c damping] [-e epsilon] [--norm l1|l2] [-i iterations]\n"
"                   [-E personalisation] [--subscriptions file]\n"
"                   [--subscription-weight w] [--init importance] [--renormalize]\n"
"                   [--jacobi] [--no-extrapolation] [-U usefulness] [-m size]\n"
"                   [-j threads] [-o file] [-b vector] [--slice K/P] graph\n"
"  -c damping       damping factor c (0.85)\n"
"  -e epsilon       stop when the change is below epsilon (1e-9)\n"
"  --norm l1|l2     the norm of the change (l2, as Preda's eq. 2.4)\n"
"  -i iterations    at most this many iterations (100)\n"
"  -E file, --personalization file\n"
"                   personalisation E: url<TAB>weight, sorted by URL (uniform)\n"
"  --subscriptions file  url[<TAB>weight] rows sorted by URL: a virtual page\n"
"                   linking to them takes share w of E (--subscription-weight 0.1)\n"
"  --init file      start from a previous importance (TSV or -b vector)\n"
"  --renormalize    rescale each iterate by r (Preda's eq. 2.6-2.7); Jacobi\n"
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

/* What the options ask beside the parameters of the ranking. */
struct request {
	const char *graph;
	const char *personalisation, *subscriptions, *init;
	double subscription_weight;
	const char *usefulness, *out, *vector;
	unsigned slice_k, slice_parts;	/* --slice: parts 0 for none */
};

/* Usefulness as the run computes it: path NULL for none; with importance
 * in the same scans (-U by Jacobi, as Preda's report has it, sec. 2.3.4),
 * else after it, each as alone. */
struct usefulness {
	const char *path;
	bool same_scans;
	struct rank_plan plan;		/* of the run that computes it */
	struct vec use, e_use;
};

static void
parse_slice(const char *arg, unsigned *k, unsigned *parts)
{
	char extra;
	if (sscanf(arg, "%u/%u%c", k, parts, &extra) != 2 || *parts == 0 || *k >= *parts)
		wa_usage_error("--slice: '%s' is not K/P with 0 <= K < P", arg);
}

static void
parse_options(int argc, char **argv, struct rank_params *p, struct request *rq)
{
	static const struct option longopts[] = {
		{ "init", required_argument, NULL, OPT_INIT },
		{ "renormalize", no_argument, NULL, OPT_RENORMALIZE },
		{ "no-extrapolation", no_argument, NULL, OPT_NO_EXTRAPOLATION },
		{ "slice", required_argument, NULL, OPT_SLICE },
		{ "subscriptions", required_argument, NULL, OPT_SUBSCRIPTIONS },
		{ "subscription-weight", required_argument, NULL, OPT_SUBSCRIPTION_WEIGHT },
		{ "personalization", required_argument, NULL, 'E' },
		RANK_LONGOPTS,
		WA_COMMON_LONGOPTS
	};
	/* The spelling of the release before. */
	static const struct opt_renamed renamed[] = {
		{ 'p', 'E', "-E (--personalization)" },
		{ 0, 0, NULL },
	};
	*rq = (struct request){ .subscription_weight = SUBSCRIPTION_WEIGHT };
	bool weight_given = false;
	int c;

	rank_defaults(p);
	while ((c = getopt_long(argc, argv, RANK_SHORTOPTS "hqvi:E:p:U:o:b:", longopts,
	    NULL)) != -1) {
		if (rank_option(c, optarg, p))
			continue;
		switch (opt_rename(c, renamed)) {
		case 'i': rank_option(RANK_OPT_ITERATIONS, optarg, p); break;
		case 'E': rq->personalisation = optarg; break;
		case OPT_INIT: rq->init = optarg; break;
		case OPT_RENORMALIZE: p->renormalize = p->jacobi = true; break;
		case OPT_NO_EXTRAPOLATION: p->plain = true; break;
		case 'U': rq->usefulness = optarg; break;
		case 'o': rq->out = optarg; break;
		case 'b': rq->vector = optarg; break;
		case OPT_SLICE: parse_slice(optarg, &rq->slice_k, &rq->slice_parts); break;
		case OPT_SUBSCRIPTIONS: rq->subscriptions = optarg; break;
		case OPT_SUBSCRIPTION_WEIGHT:
			rq->subscription_weight = opt_double("--subscription-weight", optarg, 0, 1);
			if (rq->subscription_weight >= 1)
				wa_usage_error("--subscription-weight: '%s' is not below 1 (1 would "
				    "leave E out: -E does that)", optarg);
			weight_given = true;
			break;
		default: wa_common_option(c);
		}
	}
	if (argc - optind != 1)
		wa_usage_error("one graph directory expected");
	if (rq->slice_parts && (!rq->init || !rq->vector || rq->usefulness || rq->out))
		wa_usage_error("--slice needs --init and -b, and writes nothing else");
	if (weight_given && !rq->subscriptions)
		wa_usage_error("--subscription-weight needs --subscriptions");
	rq->graph = argv[optind];
}

/* E: from -E, with the subscriptions; none (uniform) without either. */
static void
read_personalisation(const struct graph *g, const struct rank_plan *plan,
    const struct request *rq, struct vec *e)
{
	if (rq->personalisation)
		rank_read_personalisation(g, plan, rq->personalisation, e);
	if (rq->subscriptions)
		rank_add_subscriptions(g, plan, rq->subscriptions, rq->subscription_weight, e,
		    rq->personalisation != NULL);
}

/* Importance into pr, normalised, and usefulness in the same scans,
 * normalised, if so asked and the graph has XML pages (else none). */
static void
compute_importance(const struct graph *g, const struct rank_plan *plan, struct vec *pr,
    const struct vec *e, struct usefulness *u)
{
	if (u->same_scans) {
		u->plan = *plan;
		if (rank_xml_personalisation(g, plan, NULL, &u->e_use)) {
			rank_vector_new(plan, g->nodes, &u->use);
		} else {
			rank_no_usefulness(g, u->path);
			vec_free(&u->e_use);
			u->path = NULL;
			u->same_scans = false;
		}
	}
	struct rank_vectors v = { .importance = pr, .e = vec_exists(e) ? e : NULL,
	    .usefulness = u->same_scans ? &u->use : NULL,
	    .e_use = u->same_scans ? &u->e_use : NULL };
	struct rank_result res;
	double t0 = monotonic_seconds();
	rank_compute(g, plan, &v, &res);
	rank_report(plan, &res, u->path && !u->same_scans ? "importance: " : "", t0);
	rank_normalize(plan, pr);
	if (u->same_scans)
		rank_normalize(plan, &u->use);
}

/* Usefulness after importance, normalised: the run's vectors but pr
 * freed (E too), planned anew within -m beside pr, which is written with
 * it at the end. */
static void
compute_usefulness_after(const struct graph *g, const struct rank_plan *plan, struct vec *e,
    struct usefulness *u)
{
	if (!u->path || u->same_scans)
		return;
	vec_free(e);
	rank_plan_after(&u->plan, plan, g);
	if (!rank_xml_personalisation(g, &u->plan, NULL, &u->e_use)) {
		rank_no_usefulness(g, u->path);
		u->path = NULL;
		return;
	}
	rank_usefulness(g, &u->plan, &u->e_use, &u->use, "usefulness: ");
}

static void
write_results(const struct graph *g, const struct rank_plan *plan, const struct request *rq,
    const struct vec *pr, struct usefulness *u)
{
	if (rq->vector)
		scores_write_vector(g, plan, rq->vector, pr);
	if (u->path)
		scores_write(g, &u->plan, &u->use, u->path);
	scores_write(g, plan, pr, rq->out);
}

int
main(int argc, char **argv)
{
	struct rank_params p;
	struct request rq;
	wa_init(argc, argv, usage);
	parse_options(argc, argv, &p, &rq);

	struct usefulness u = { .path = rq.usefulness, .same_scans = rq.usefulness && p.jacobi };
	struct graph g;
	struct rank_plan plan;
	rank_open(&g, &plan, rq.graph, &p, &(const struct rank_run){ .importance = true,
	    .usefulness = u.same_scans, .personalised = rq.personalisation || rq.subscriptions });
	struct vec e = { .fd = -1 }, pr;
	read_personalisation(&g, &plan, &rq, &e);
	rank_start_vector(&g, &plan, rq.init, &pr, vec_exists(&e) ? &e : NULL);
	if (rq.slice_parts) {
		rank_write_part(&g, &plan, &pr, vec_exists(&e) ? &e : NULL, rq.slice_k,
		    rq.slice_parts, rq.vector);
	} else {
		compute_importance(&g, &plan, &pr, &e, &u);
		compute_usefulness_after(&g, &plan, &e, &u);
		write_results(&g, &plan, &rq, &pr, &u);
	}
	vec_free(&u.use);
	vec_free(&u.e_use);
	vec_free(&pr);
	vec_free(&e);
	graph_close(&g);
	return 0;
}
