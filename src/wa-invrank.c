/* wa-invrank: usefulness of pages, the inverse PageRank of Preda ("Data
 * Acquisition for an XML Warehouse", 2000, sec. 2.2; Mignet, Preda,
 * Abiteboul et al., "Acquisition and Maintenance of XML Data from the
 * Web", sec. 5.2): a page is useful when it leads, directly or through
 * other pages, to many (important) XML pages.  The engine is
 * src/lib/rank.c; t/rank-verify.py checks it against networkx. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "rank.h"
#include "scores.h"
#include "wa.h"

static const char usage[] =
"usage: wa-invrank [-qv] [-I importance] [-c damping] [-e epsilon] [--norm l1|l2]\n"
"                  [--iterations n] [--transpose] [--jacobi] [-m size]\n"
"                  [-j threads] [-o file] [-b vector] graph\n"
"  -I file, --importance file\n"
"                   weight XML pages by this importance (PR''; uniform, PR')\n"
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

/* What the options ask beside the parameters of the ranking. */
struct request {
	const char *graph, *importance, *out, *vector;
};

static void
parse_options(int argc, char **argv, struct rank_params *p, struct request *rq)
{
	static const struct option longopts[] = {
		{ "transpose", no_argument, NULL, OPT_TRANSPOSE },
		{ "importance", required_argument, NULL, 'I' },
		RANK_LONGOPTS,
		WA_COMMON_LONGOPTS
	};
	/* The spelling of the release before: -i is to mean the iterations,
	 * as in wa-pagerank. */
	static const struct opt_renamed renamed[] = {
		{ 'i', 'I', "-I (--importance)" },
		{ 0, 0, NULL },
	};
	int c;

	*rq = (struct request){ 0 };
	rank_defaults(p);
	while ((c = getopt_long(argc, argv, RANK_SHORTOPTS "hqvI:i:o:b:", longopts, NULL)) != -1) {
		if (rank_option(c, optarg, p))
			continue;
		switch (opt_rename(c, renamed)) {
		case 'I': rq->importance = optarg; break;
		case OPT_TRANSPOSE: p->transpose = true; break;
		case 'o': rq->out = optarg; break;
		case 'b': rq->vector = optarg; break;
		default: wa_common_option(c);
		}
	}
	if (argc - optind != 1)
		wa_usage_error("one graph directory expected");
	rq->graph = argv[optind];
}

int
main(int argc, char **argv)
{
	struct rank_params p;
	struct request rq;
	wa_init(argc, argv, usage);
	parse_options(argc, argv, &p, &rq);

	struct graph g;
	struct rank_plan plan;
	rank_open(&g, &plan, rq.graph, &p, &(const struct rank_run){ .usefulness = true });
	struct vec weight = { .fd = -1 }, e_use, use = { .fd = -1 };
	if (rq.importance)
		rank_read_importance(&g, &plan, rq.importance, &weight);
	bool xml = rank_xml_personalisation(&g, &plan, rq.importance ? &weight : NULL, &e_use);
	if (xml)
		rank_usefulness(&g, &plan, &e_use, &use, "");
	/* Usefulness towards no page is 0 everywhere: E' is. */
	if (rq.vector)
		scores_write_vector(&g, &plan, rq.vector, xml ? &use : &e_use);
	if (xml)
		scores_write(&g, &plan, &use, rq.out);
	else
		rank_no_usefulness(&g, rq.out);
	vec_free(&use);
	vec_free(&e_use);
	vec_free(&weight);
	graph_close(&g);
	return 0;
}
