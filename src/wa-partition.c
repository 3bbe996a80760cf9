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
    "usage: wa-partition -k PARTS [-quv] [-d DELTA] [-p 1|2] [-c COMM] [-t TOL]\n"
    "                    [-m SIZE] [-w WEIGHTS] [-r RATES] [-P PREVIOUS] [-o RULES]\n"
    "                    [LINKS...]\n"
    "       wa-partition -a RULES [-q] [URLS...]\n"
    "Splits the URLs of a links TSV (src, dst; or a URL list) among PARTS\n"
    "crawlers by superpages of the URL tree and writes the partition rules\n"
    "(SURT key, part).  With -a, appends the part of each row's first-column URL.\n"
    "  -k PARTS     number of crawlers\n"
    "  -d DELTA     superpage threshold: Delta = W / (PARTS * DELTA)\n"
    "               (default the larger of 20 and 6400 / PARTS)\n"
    "  -p ALGO      1: Partition I (load only); 2: Partition II, load and\n"
    "               crossing links (default 2)\n"
    "  -c COMM      crossing links handled in the time of one page (default 1000)\n"
    "  -m SIZE      memory for sorting the URLs (default 256M)\n"
    "  -w WEIGHTS   TSV url, weight sorted by url: page weights (default 1)\n"
    "  -r RATES     TSV part, SURT key prefix, rate: crawler speeds (default 1)\n"
    "  -P PREVIOUS  re-partition: keep PREVIOUS rules' parts where balanced\n"
    "  -t TOL       a part may end TOL later than the ideal time to save\n"
    "               crossing links; -P keeps parts within it (default 0.04)\n"
    "  -u           the input is a URL list (first column), not links\n"
    "  -o RULES     write the rules there (atomically) instead of stdout\n"
    "  -a RULES     tag mode: append the part to each row\n"
    "  -q  no progress line;  -v  figures of each part;  -h  this help;  --version\n"
    "See wa-partition(1).\n";

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

int
main(int argc, char **argv)
{
	static const struct option longopts[] = { WA_COMMON_LONGOPTS };
	struct partition p = { .comm = 1000, .tolerance = 0.04, .algorithm = 2,
	    .sort_memory = 256 << 20 };
	const char *tag_rules = NULL;
	bool comm_given = false, tolerance_given = false;
	int rule_options = 0;
	int c;

	wa_init(argc, argv, usage);
	while ((c = getopt_long(argc, argv, "a:c:d:hk:m:o:p:P:qr:t:uvw:", longopts, NULL)) != -1) {
		if (c != 'a' && c != 'q')
			rule_options++;
		switch (c) {
		case 'a': tag_rules = optarg; break;
		case 'c':
			comm_given = true;
			p.comm = opt_double("-c", optarg, 1e-9, 1e300);
			break;
		case 'd': p.delta = opt_double("-d", optarg, 1e-3, 1e9); break;
		case 'k': p.nparts = (uint32_t)opt_count("-k", optarg, 1, 1u << 20); break;
		case 'm': p.sort_memory = opt_size("-m", optarg); break;
		case 'o': p.out_path = optarg; break;
		case 'p': p.algorithm = (int)opt_count("-p", optarg, 1, 2); break;
		case 'P': p.previous_path = optarg; break;
		case 'r': p.rates_path = optarg; break;
		case 't':
			tolerance_given = true;
			p.tolerance = opt_double("-t", optarg, 0, 1e9);
			break;
		case 'u': p.urls_only = true; break;
		case 'w': p.weights_path = optarg; break;
		default: wa_common_option(c);
		}
	}

	if (tag_rules) {
		if (rule_options)
			wa_usage_error("-a takes no other option than -q");
		tag(&p, tag_rules, argv + optind, argc - optind);
	} else {
		if (!p.nparts)
			wa_usage_error("-k PARTS or -a RULES is needed");
		if (comm_given && p.algorithm != 2)
			wa_usage_error("-c is for Partition II (-p 2)");
		if (tolerance_given && p.algorithm != 2 && !p.previous_path)
			wa_usage_error("-t is for Partition II (-p 2) and -P");
		if (!p.delta)
			p.delta = fmax(20, (double)SUPERPAGES_MIN / p.nparts);
		make_rules(&p, argv + optind, argc - optind);
	}
	url_cleanup();
	return WA_EXIT_OK;
}
