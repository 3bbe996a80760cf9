/* wa-invrank: usefulness of pages, the inverse PageRank of Preda (seed 000,
 * sec. 2.2; seed 003, sec. 5.2): a page is useful when it leads, directly
 * or through other pages, to many (important) XML pages.  The engine is
 * src/lib/rank.c; t/rank-verify.py checks it against networkx. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "rank.h"
#include "wa.h"

static const char usage[] =
"usage: wa-invrank [-qv] [-i importance] [-c damping] [-e epsilon] [--norm l1|l2]\n"
"                  [--iterations n] [--transpose] [--jacobi] [-m size]\n"
"                  [-j threads] [-o file] [-b vector] graph\n"
"  -i file          weight XML pages by this importance (PR''; uniform, PR')\n"
"  -c damping       damping factor c (0.85)\n"
"  -e epsilon       stop when the change is below epsilon (1e-9)\n"
"  --norm l1|l2     the norm of the change (l2)\n"
"  --iterations n   at most n iterations (100)\n"
"  --transpose      the literal M^t of the paper, renormalised by r\n"
"  --jacobi         power iteration instead of Gauss-Seidel\n"
"  -m size          memory budget (1G)\n"
"  -j threads       threads (the number of processors)\n"
"  -o file          write usefulness to file (standard output)\n"
"  -b file          also write the vector in id order, binary\n";

enum { OPT_TRANSPOSE = WA_OPT_FIRST_TOOL };

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "transpose", no_argument, NULL, OPT_TRANSPOSE },
		RANK_LONGOPTS,
		WA_COMMON_LONGOPTS
	};
	struct rank_params p;
	const char *importance = NULL, *out = NULL, *vector = NULL;
	int c;

	wa_init(argc, argv, usage);
	rank_defaults(&p);
	while ((c = getopt_long(argc, argv, RANK_SHORTOPTS "hqvi:o:b:", longopts, NULL)) != -1) {
		if (rank_option(c, optarg, &p))
			continue;
		switch (c) {
		case 'i': importance = optarg; break;
		case OPT_TRANSPOSE: p.transpose = true; break;
		case 'o': out = optarg; break;
		case 'b': vector = optarg; break;
		default: wa_common_option(c);
		}
	}
	if (argc - optind != 1)
		wa_usage_error("one graph directory expected");

	struct graph g;
	graph_open(&g, argv[optind]);
	rank_plan(&g, &p, false, true, false);
	struct vec weight = { .fd = -1 }, e_use, use;
	if (importance) {
		uint64_t unknown;
		rank_vector_new(&p, g.nodes, &weight);
		rank_read_scores(&g, &p, importance, &weight, &unknown);
		if (unknown)
			wa_note("%s: %llu URLs are not in the graph", importance,
			    (unsigned long long)unknown);
	}
	if (!rank_xml_personalisation(&g, &p, importance ? &weight : NULL, &e_use)) {
		/* Usefulness towards no page is 0 everywhere. */
		if (vector)
			rank_write_vector(&g, &p, vector, &e_use);
		rank_no_usefulness(&g, out);
		vec_free(&e_use);
		vec_free(&weight);
		graph_close(&g);
		return 0;
	}
	rank_vector_new(&p, g.nodes, &use);
	struct rank_vectors v = { .usefulness = &use, .e_use = &e_use };
	struct rank_result res;
	double t0 = monotonic_seconds();
	rank_compute(&g, &p, &v, &res);
	if (!res.converged)
		wa_warn("no convergence to %g in %u iterations (last change %.3g)", p.epsilon,
		    res.iterations, res.change[1]);
	else
		wa_note("%u iterations, last change %.3g (%s), %.2f s", res.iterations,
		    res.change[1], p.norm == RANK_L1 ? "L1" : "L2", monotonic_seconds() - t0);
	rank_normalize(&p, &use);
	if (vector)
		rank_write_vector(&g, &p, vector, &use);
	rank_write_scores(&g, &p, &use, out);
	vec_free(&use);
	vec_free(&e_use);
	vec_free(&weight);
	graph_close(&g);
	return 0;
}
