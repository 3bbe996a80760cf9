/* wa-extract: the links of the HTML and XML pages of WARC files, and a
 * row of facts per page (man/wa-formats.5, "Links" and "Pages").  The
 * records are read and turned into rows in src/extract/ (extract-run.h);
 * the extraction is in extract.h, HTTP in httpresp.h, WARC in warc.h. */
#include <getopt.h>
#include <stdio.h>
#include <unistd.h>

#include "extract/extract-run.h"
#include "robots.h"
#include "wa.h"

static const char usage[] =
    "usage: wa-extract [-kqv] [-j N] [-p PAGES] [--hints FILE] [--max-size SIZE]\n"
    "                  [--robots-agent TOKEN] [--ignore-robots-tags] [WARC...]\n"
    "Reads the response and resource records of the WARC files (or stdin,\n"
    "gzip or plain) and writes the links of their HTML and XML pages on\n"
    "stdout: src, dst, how (see wa-formats(5), \"Links\").\n"
    "  -p FILE          also write a row per page to FILE: url, type, time,\n"
    "                   digest, out-degree, root element, doctype\n"
    "  --hints FILE     also write the sitemaps' lastmod and changefreq to FILE\n"
    "  -k               keep going past records that cannot be read: -p\n"
    "                   holds the others, exit 0 (default: -p is not\n"
    "                   written, exit 1)\n"
    "  -j, --jobs N     parse on N threads (default: the processors, at most 8)\n"
    "  --max-size SIZE  largest decoded body parsed (default 64M)\n"
    "  --robots-agent TOKEN  our robots product token, for the meta robots and\n"
    "                   X-Robots-Tag directives named for a robot (default:\n"
    "                   the one the warcinfo record names, if any)\n"
    "  --ignore-robots-tags  follow nofollow links, type noindex pages as\n"
    "                   any other (default: obey meta robots, rel=nofollow,\n"
    "                   X-Robots-Tag)\n"
    "  -q               no progress line, no summary\n"
    "  -v               report every page that could not be parsed or has\n"
    "                   links refused\n"
    "  -h               this help;  --version  the version\n"
    "See wa-extract(1).\n";

enum {
	OPT_MAX_SIZE = WA_OPT_FIRST_TOOL, OPT_ROBOTS_AGENT, OPT_IGNORE_ROBOTS_TAGS,
	OPT_HINTS,
};

static void
parse_options(struct extract_run *run, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "jobs", required_argument, NULL, 'j' },
		{ "max-size", required_argument, NULL, OPT_MAX_SIZE },
		{ "robots-agent", required_argument, NULL, OPT_ROBOTS_AGENT },
		{ "ignore-robots-tags", no_argument, NULL, OPT_IGNORE_ROBOTS_TAGS },
		{ "hints", required_argument, NULL, OPT_HINTS },
		WA_COMMON_LONGOPTS
	};
	int c;
	while ((c = getopt_long(argc, argv, "hj:kp:qv", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			run->nthreads = (unsigned)opt_count("-j", optarg, 1, 256);
			break;
		case 'k':
			run->salvage = true;
			break;
		case 'p':
			run->pages_path = optarg;
			break;
		case OPT_HINTS:
			run->hints_path = optarg;
			break;
		case OPT_MAX_SIZE:
			run->max_size = opt_size("--max-size", optarg);
			if (run->max_size == 0)
				wa_usage_error("--max-size: must be more than 0");
			break;
		case OPT_ROBOTS_AGENT:
			if (!robots_token_valid(optarg))
				wa_usage_error("--robots-agent: '%s' is no product token "
				    "(letters, '_' and '-' only)", optarg);
			run->robots_agent = optarg;
			break;
		case OPT_IGNORE_ROBOTS_TAGS:
			run->robots_tags = false;
			break;
		default:
			wa_common_option(c);
		}
	}
	if (run->nthreads == 0) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		run->nthreads = n < 1 ? 1 : n > 8 ? 8 : (unsigned)n;
	}
}

/* Opens the pages and hints files and the links' stream, and the
 * extraction. */
static void
start(struct extract_run *run)
{
	static char outbuf[1 << 16];
	if (run->pages_path) {
		run->pages_file = atomic_open(run->pages_path);
		run->pages = run->pages_file->fp;
	}
	if (run->hints_path) {
		run->hints_file = atomic_open(run->hints_path);
		run->hints = run->hints_file->fp;
	}
	setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
	record_parser_init(&run->parser, run_put_link,
	    run->hints ? run_put_hint : NULL, run);
}

int
main(int argc, char **argv)
{
	struct extract_run run = { .max_size = 64ULL << 20, .robots_tags = true };
	wa_init(argc, argv, usage);
	parse_options(&run, argc, argv);
	start(&run);
	run_read_inputs(&run, argc - optind, argv + optind);
	run_finish_outputs(&run);
	run_summarize(&run);
	run_free(&run);
	return run_exit_status(&run);
}
