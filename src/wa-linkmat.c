/* wa-linkmat: builds the graph directory (graph.h) from links TSV, in
 * memory bounded by -m whatever the size of the input.  The phases are in
 * src/linkmat/ (linkmat.h says how they go together). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "linkmat/linkmat.h"
#include "wa.h"
#include "workdir.h"

static const char usage[] =
    "usage: wa-linkmat [-qv] [-p PAGES] [-m SIZE] [-s SLICES] [-u OLDGRAPH] [-j N]\n"
    "                  -o GRAPH [LINKS...]\n"
    "       wa-linkmat [-m SIZE] --dump GRAPH | --dump-nodes GRAPH\n"
    "Builds the graph directory GRAPH from links TSV (src, dst[, how]) read from\n"
    "the LINKS files or stdin, plain or gzip: the URL table with ids in SURT\n"
    "order, the degrees, the page types, and the link matrix cut into slices\n"
    "by destination.  Duplicate links count once; self links are dropped.\n"
    "  -o GRAPH     the graph directory; an old one is replaced atomically\n"
    "  -p PAGES     pages TSV (url, type): nodes, and the types of fetched pages\n"
    "  -u OLDGRAPH  update: the sources in LINKS and the URLs in PAGES get the\n"
    "               links of LINKS, the other pages keep those of OLDGRAPH\n"
    "  -m SIZE      memory budget (default 1G, at least 64K)\n"
    "  -s SLICES    slices of the matrix (default: 64, of 2^15 to 2^20 pages,\n"
    "               fewer pages if wa-pagerank -m SIZE needs)\n"
    "  -j N         threads (default: the processors, at most 8)\n"
    "  -q           no progress and no summary;  -v  details of each phase\n"
    "  --dump GRAPH        the links of GRAPH as src<TAB>dst, sorted\n"
    "  --dump-nodes GRAPH  url, type, outdeg, indeg and id of every node\n"
    "  -h           this help;  --version  the version\n"
    "See wa-linkmat(1).\n";

enum { OPT_DUMP = WA_OPT_FIRST_TOOL, OPT_DUMP_NODES };

#define MIN_BUDGET (64u << 10)
#define MAX_SLICES 1000000
/* What the sorts share: the budget less the fixed buffers (reading,
 * writing, threads, libraries), about 10 MB. */
#define FIXED_RESERVE (16u << 20)

static void
build(struct linkmat *lm, char **files, int nfiles)
{
	if (lm->old_path)
		graph_open(&lm->old, lm->old_path);
	workdir_create(lm->graph, "manifest");
	lm->phase_started = monotonic_seconds();
	linkmat_read(lm, files, nfiles);
	linkmat_number(lm);
	linkmat_plan_slices(lm);
	linkmat_url_table(lm);
	linkmat_join(lm);
	if (lm->old_path)
		linkmat_keep_old_links(lm);
	linkmat_write_matrix(lm);
	workdir_install(lm->graph, "manifest");
	linkmat_summary(lm);
	free(lm->bound);
	if (lm->old_path)
		graph_close(&lm->old);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "dump", required_argument, NULL, OPT_DUMP },
		{ "dump-nodes", required_argument, NULL, OPT_DUMP_NODES },
		WA_COMMON_LONGOPTS
	};
	struct linkmat lm = { .budget = UINT64_C(1) << 30 };
	const char *graph = NULL, *dump = NULL, *dump_nodes_of = NULL;
	bool build_options = false;
	int c;

	wa_init(argc, argv, usage);
	while ((c = getopt_long(argc, argv, "hj:m:o:p:qs:u:v", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			lm.nthreads = (unsigned)opt_count("-j", optarg, 1, 256);
			break;
		case 'm':
			lm.budget = opt_size("-m", optarg);
			if (lm.budget < MIN_BUDGET)
				wa_usage_error("-m: %s is below the least budget, 64K", optarg);
			break;
		case 'o':
			graph = optarg;
			build_options = true;
			break;
		case 'p':
			lm.pages_path = optarg;
			build_options = true;
			break;
		case 's':
			lm.want_slices = (uint32_t)opt_count("-s", optarg, 1, MAX_SLICES);
			build_options = true;
			break;
		case 'u':
			lm.old_path = optarg;
			build_options = true;
			break;
		case OPT_DUMP:
			dump = optarg;
			break;
		case OPT_DUMP_NODES:
			dump_nodes_of = optarg;
			break;
		default:
			wa_common_option(c);
		}
	}
	lm.shared_budget = lm.budget - (lm.budget / 4 < FIXED_RESERVE ? lm.budget / 4 :
	    FIXED_RESERVE);
	if (lm.nthreads == 0) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		lm.nthreads = n < 1 ? 1 : n > 8 ? 8 : (unsigned)n;
	}
	if (dump || dump_nodes_of) {
		if ((dump && dump_nodes_of) || build_options || optind < argc)
			wa_usage_error("--dump and --dump-nodes take a graph and nothing else");
		if (dump)
			linkmat_dump_links(&lm, dump);
		else
			linkmat_dump_nodes(&lm, dump_nodes_of);
		if (fflush(stdout) == EOF || ferror(stdout))
			wa_die_errno("standard output");
		return WA_EXIT_OK;
	}
	if (!graph)
		wa_usage_error("-o GRAPH is required");
	char *out = wa_strdup(graph);
	for (size_t n = strlen(out); n > 1 && out[n - 1] == '/'; n--)
		out[n - 1] = '\0';
	lm.graph = out;
	build(&lm, argv + optind, argc - optind);
	free(out);
	url_cleanup();
	return WA_EXIT_OK;
}
