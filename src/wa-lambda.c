/* wa-lambda: the change rate of every page from its history of observations
 * (Preda, "Data Acquisition for an XML Warehouse", 2000, ch. 4; Cho and
 * Garcia-Molina, "Estimating frequency of change", 2003, sec. 6), streamed
 * one URL at a time (man/wa-formats.5, "Observations and history", "Change
 * rates", "Overrides"; man/wa-lambda.1 says how each estimator is chosen).
 * The phases are in src/lambda/ (lambda.h). */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "lambda/lambda.h"

static const char usage[] =
    "usage: wa-lambda [-q] [--literal] [--prior SHAPE,RATE] [-O FILE] [-o FILE]\n"
    "                 [--hints FILE] [HISTORY...]\n"
    "Writes the change rate (changes/day) of every URL of the HISTORY files (or\n"
    "stdin): url, lambda, estimator, n, changes, lower, upper, flags.  The\n"
    "history is sorted by url, then time (wa-formats(5)).\n"
    "  -O FILE           rate overrides (url, lambda): they replace the estimate\n"
    "  -o FILE           output file (default: stdout), written atomically\n"
    "  --hints FILE      sitemap hints (url, sitemap, lastmod, changefreq),\n"
    "                    sorted by url, then lastmod: lastmod dates as the\n"
    "                    pages' dates of change, changefreq as their prior\n"
    "  --literal         Preda's eq. 4.2 as printed, for Last-Modified histories\n"
    "  --prior SHAPE,RATE  the Gamma prior (RATE in days); default: fitted on\n"
    "                    the HISTORY files in a first pass, or 1,7 on stdin\n"
    "  -q                no progress line\n"
    "  -h                this help;  --version  the version\n"
    "See wa-lambda(1).\n";

enum { OPT_PRIOR = WA_OPT_FIRST_TOOL, OPT_LITERAL, OPT_HINTS };

#define DEFAULT_PRIOR_SHAPE 1.0
#define DEFAULT_PRIOR_RATE 7.0

static void
parse_prior(struct lambda *l, const char *arg)
{
	char *comma = strchr(arg, ',');
	char *shape;

	if (comma == NULL)
		wa_usage_error("--prior: want SHAPE,RATE, not '%s'", arg);
	shape = wa_strndup(arg, (size_t)(comma - arg));
	l->prior_shape = opt_double("--prior SHAPE", shape, 1e-6, 1e6);
	l->prior_rate = opt_double("--prior RATE", comma + 1, 1e-9, 1e12);
	free(shape);
	l->prior_given = true;
}

static void
parse_options(int argc, char **argv, struct lambda *l)
{
	static const struct option longopts[] = {
		{ "prior", required_argument, NULL, OPT_PRIOR },
		{ "literal", no_argument, NULL, OPT_LITERAL },
		{ "hints", required_argument, NULL, OPT_HINTS },
		WA_COMMON_LONGOPTS
	};
	int c;

	while ((c = getopt_long(argc, argv, "hO:o:q", longopts, NULL)) != -1) {
		switch (c) {
		case 'O':
			l->overrides_path = optarg;
			break;
		case 'o':
			l->output_path = optarg;
			break;
		case OPT_PRIOR:
			parse_prior(l, optarg);
			break;
		case OPT_HINTS:
			l->hints_path = optarg;
			break;
		case OPT_LITERAL:
			l->literal = true;
			break;
		default:
			wa_common_option(c);
		}
	}
	l->files = argv + optind;
	l->nfiles = argc - optind;
}

int
main(int argc, char **argv)
{
	struct lambda l = { .prior_shape = DEFAULT_PRIOR_SHAPE,
	    .prior_rate = DEFAULT_PRIOR_RATE };

	wa_init(argc, argv, usage);
	parse_options(argc, argv, &l);
	fit_prior(&l);
	output_open(&l);
	write_all(&l);
	output_close(&l);
	history_free(&l);
	hints_free(&l);
	return WA_EXIT_OK;
}
