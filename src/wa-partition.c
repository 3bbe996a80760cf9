/* wa-partition: splits the URL space among k crawlers by superpages of the
 * URL tree, and tags URL streams with the part of each URL (-a).
 *
 * Follows Teng, Lu, Eichstaedt, Ford and Lehman, "Collaborative Web
 * Crawling: Information Gathering/Processing over Internet", 1999: the
 * URL tree of sec. 4.2 in SURT key order (wa-formats(5) "SURT keys"),
 * superpages as the frontier of singleton and interval expansions (sec.
 * 4.4), per node a visit counter, the hot tokens and a random sample of
 * the unmatched tokens (sec. 5.1), superpage creation with Delta = W / (k
 * delta) (sec. 5.2), and Partition I and II with local improvement (sec.
 * 5.3).  The rules file is wa-formats(5) "Partition rules".  The phases
 * are in src/partition/, which partition.h lists.
 *
 * Memory: the distinct URLs are found by GNU sort (sorter.h) and kept on
 * disk with the links as SURT keys; the tree is built in rounds, one
 * sequential pass over the pages each, with a bounded number of nodes a
 * level (urltree.c).  The superpage graph has at most one entry per pair
 * of linked superpages. */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "partition/partition.h"

static const char usage[] =
    "usage: wa-partition -n PARTS [-qv] [-d DELTA] [--algorithm 1|2] [--urls]\n"
    "           [--cross-cost COMM] [--tolerance TOL] [-m SIZE] [--weights WEIGHTS]\n"
    "           [--rates RATES] [-P PREVIOUS] [-o RULES] [LINKS...]\n"
    "       wa-partition -a RULES [-q] [URLS...]\n"
    "Splits the URLs of a links TSV (src, dst; or a URL list) among PARTS\n"
    "crawlers by superpages of the URL tree and writes the partition rules\n"
    "(SURT key, part).  With -a, appends the part of each row's first-column URL.\n"
    "  -n, --parts PARTS   number of crawlers\n"
    "  -d DELTA            superpage threshold: Delta = W / (PARTS * DELTA)\n"
    "                      (default the larger of 20 and 6400 / PARTS)\n"
    "  --algorithm ALGO    1: Partition I (load only); 2: Partition II, load and\n"
    "                      crossing links (default 2)\n"
    "  --cross-cost COMM   crossing links handled in the time of one page (1000)\n"
    "  -m SIZE             memory for sorting the URLs (default 256M)\n"
    "  --weights WEIGHTS   TSV url, weight sorted by url: page weights (default 1)\n"
    "  --rates RATES       TSV part, SURT key prefix, rate: crawler speeds (1)\n"
    "  -P, --previous PREVIOUS  re-partition: keep PREVIOUS rules' parts if balanced\n"
    "  --tolerance TOL     a part may end TOL later than the ideal time to save\n"
    "                      crossing links; -P keeps parts within it (default 0.04)\n"
    "  --urls              the input is a URL list (first column), not links\n"
    "  -o RULES            write the rules there (atomically) instead of stdout\n"
    "  -a RULES            tag mode: append the part to each row\n"
    "  -q  no progress line;  -v  figures of each part;  -h  this help;  --version\n"
    "See wa-partition(1).\n";

enum {
	OPT_ALGORITHM = WA_OPT_FIRST_TOOL, OPT_CROSS_COST, OPT_RATES, OPT_TOLERANCE,
	OPT_URLS, OPT_WEIGHTS,
};

/* Without -d, delta is 20 (Teng et al.'s "typically, 20 or more") or more,
 * so that there are about this many superpages: Partition II can only
 * place related sites together, or cut a big site along its directories,
 * when they are superpages of their own. */
#define SUPERPAGES_MIN 6400

static void
tag(struct partition *p, const char *rules_path, char **paths, int npaths)
{
	struct rules r = { 0 };
	rules_load(rules_path, &r);
	progress_start(&p->pg, "URLs", 0);
	if (npaths == 0)
		rules_tag(p, NULL, &r);
	for (int i = 0; i < npaths; i++)
		rules_tag(p, paths[i], &r);
	progress_end(&p->pg);
	if (fflush(stdout) == EOF || ferror(stdout))
		wa_die_errno("standard output");
	rules_free(&r);
}

static void
make_rules(struct partition *p, char **paths, int npaths)
{
	double max_over_avg, cross_fraction;

	if (p->rates_path)
		input_read_rates(p);
	input_read(p, paths, npaths);
	unsigned rounds = tree_build(p);
	uint32_t top = frontier_walk(p);
	frontier_measure(p);
	place(p, top);
	progress_end(&p->pg);
	rules_write(p, &max_over_avg, &cross_fraction);
	if (!wa_quiet)
		wa_note("%" PRIu64 " pages, %" PRIu64 " links, %zu superpages in %u rounds; "
		    "largest part %.4f of the average, %.4f of the links cross parts",
		    p->npages, p->nlinks, p->nsp, rounds, max_over_avg, cross_fraction);
	partition_free(p);
}

/* The options into p; returns the rules of -a, or NULL to make rules. */
static const char *
parse_options(int argc, char **argv, struct partition *p)
{
	static const struct option longopts[] = {
		{ "parts", required_argument, NULL, 'n' },
		{ "algorithm", required_argument, NULL, OPT_ALGORITHM },
		{ "cross-cost", required_argument, NULL, OPT_CROSS_COST },
		{ "rates", required_argument, NULL, OPT_RATES },
		{ "previous", required_argument, NULL, 'P' },
		{ "tolerance", required_argument, NULL, OPT_TOLERANCE },
		{ "urls", no_argument, NULL, OPT_URLS },
		{ "weights", required_argument, NULL, OPT_WEIGHTS },
		WA_COMMON_LONGOPTS
	};
	/* The spellings of the release before. */
	static const struct opt_renamed renamed[] = {
		{ 'c', OPT_CROSS_COST, "--cross-cost" },
		{ 'k', 'n', "-n (--parts)" },
		{ 'p', OPT_ALGORITHM, "--algorithm" },
		{ 'r', OPT_RATES, "--rates" },
		{ 't', OPT_TOLERANCE, "--tolerance" },
		{ 'u', OPT_URLS, "--urls" },
		{ 'w', OPT_WEIGHTS, "--weights" },
		{ 0, 0, NULL },
	};
	const char *tag_rules = NULL;
	bool comm_given = false, tolerance_given = false;
	int rule_options = 0;
	int c;

	while ((c = getopt_long(argc, argv, "a:c:d:hk:m:n:o:p:P:qr:t:uvw:", longopts, NULL)) != -1) {
		if (c != 'a' && c != 'q')
			rule_options++;
		switch (opt_rename(c, renamed)) {
		case 'a': tag_rules = optarg; break;
		case OPT_CROSS_COST:
			comm_given = true;
			p->comm = opt_double("--cross-cost", optarg, 1e-9, 1e300);
			break;
		case 'd': p->delta = opt_double("-d", optarg, 1e-3, 1e9); break;
		case 'n': p->nparts = (uint32_t)opt_count("-n", optarg, 1, 1u << 20); break;
		case 'm': p->sort_memory = opt_size("-m", optarg); break;
		case 'o': p->out_path = optarg; break;
		case OPT_ALGORITHM: p->algorithm = (int)opt_count("--algorithm", optarg, 1, 2); break;
		case 'P': p->previous_path = optarg; break;
		case OPT_RATES: p->rates_path = optarg; break;
		case OPT_TOLERANCE:
			tolerance_given = true;
			p->tolerance = opt_double("--tolerance", optarg, 0, 1e9);
			break;
		case OPT_URLS: p->urls_only = true; break;
		case OPT_WEIGHTS: p->weights_path = optarg; break;
		default: wa_common_option(c);
		}
	}
	if (tag_rules) {
		if (rule_options)
			wa_usage_error("-a takes no other option than -q");
		return tag_rules;
	}
	if (!p->nparts)
		wa_usage_error("-n PARTS or -a RULES is needed");
	if (comm_given && p->algorithm != 2)
		wa_usage_error("--cross-cost is for Partition II (--algorithm 2)");
	if (tolerance_given && p->algorithm != 2 && !p->previous_path)
		wa_usage_error("--tolerance is for Partition II (--algorithm 2) and -P");
	if (!p->delta)
		p->delta = fmax(20, (double)SUPERPAGES_MIN / p->nparts);
	return NULL;
}

int
main(int argc, char **argv)
{
	struct partition p = { .comm = 1000, .tolerance = 0.04, .algorithm = 2,
	    .sort_memory = 256 << 20 };

	wa_init(argc, argv, usage);
	const char *tag_rules = parse_options(argc, argv, &p);
	if (tag_rules)
		tag(&p, tag_rules, argv + optind, argc - optind);
	else
		make_rules(&p, argv + optind, argc - optind);
	return WA_EXIT_OK;
}
