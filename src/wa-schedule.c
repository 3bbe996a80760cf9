/* wa-schedule: the fetch list of the next acquisition cycle, from the page
 * state (man/wa-formats.5): refresh at the frequencies that minimise the
 * cost of obsolescence under the crawler's bandwidth (Preda, "Data
 * Acquisition for an XML Warehouse", 2000, ch. 3, eq. 3.7-3.8), with the
 * refresh cycle time T of Mignet, Preda, Abiteboul et al., "Acquisition and
 * Maintenance of XML Data from the Web", 2000, sec. 4, as a cap solved by exact
 * water-filling; discovery shares sigma_X and sigma_H and the importance
 * factor chi (Mignet et al., sec. 2); categories and publication overrides
 * (Preda, ch. 5); sites interleaved by the Length strategy of Castillo,
 * "Scheduling Algorithms for Web Crawling" (Effective Web Crawling, Ph.D.
 * thesis, ch. 6, 2004).
 *
 * Two passes over the page state, memory bounded by the fetch list: pass 1
 * sums S and keeps the largest G*T+1 values u_i = (w_i lambda_i^alpha)^(1/
 * (alpha+1)), which hold every page the cap can bind (each capped page uses
 * 1/T of G); pass 2 computes each f_i and selects the list with bounded
 * heaps.  The phases are in src/schedule/ (schedule.h). */
#include <getopt.h>
#include <stdint.h>
#include <time.h>

#include "schedule/schedule.h"
#include "url.h"

static const char usage[] =
    "usage: wa-schedule -G PAGES_PER_DAY [-T TIME] [--alpha A] [--now TIME]\n"
    "           [--plan FILE] [--summary FILE] [options] [STATE...]\n"
    "Writes the fetch list of the next cycle from the page state (stdin when\n"
    "no file; it is read twice, so stdin is spooled to a temporary file).\n"
    "  -G RATE          crawler bandwidth, pages/day (required)\n"
    "  -T TIME          refresh cycle time, the minimum refresh interval (6h)\n"
    "  --alpha A        exponent of the cost w (lambda t)^alpha (0.95)\n"
    "  --chi X          average XML weight / average HTML weight (1)\n"
    "  --discover-xml P percent of the G*T fetches for new XML suspects (20)\n"
    "  --discover-html P percent for other never-fetched pages (20)\n"
    "  --categories FILE  category, factor rows\n"
    "  --overrides FILE   schedule overrides: url, never|now|period, seconds\n"
    "  --cash FILE      url, cash (wa-opic): ranks discovery instead of importance\n"
    "  --scope FILE, --include RULE, --exclude RULE  the pages in scope (all but\n"
    "                   non-documents to discover): others are never listed\n"
    "  --now TIME       the clock (now)\n"
    "  --ahead TIME     plan the cycle that starts TIME after the clock (0)\n"
    "  --retry-max TIME longest wait before a failed page is tried again (30d)\n"
    "  --plan FILE      every page's plan: url, f, due, capped\n"
    "  --summary FILE   the summary as key, value rows\n"
    "  -q               no progress or summary on stderr\n"
    "  -h               this help;  --version  the version\n"
    "See wa-schedule(1).\n";

enum {
	OPT_ALPHA = WA_OPT_FIRST_TOOL, OPT_CHI, OPT_DISCOVER_XML,
	OPT_DISCOVER_HTML, OPT_CATEGORIES, OPT_OVERRIDES, OPT_CASH, OPT_AHEAD, OPT_RETRY_MAX,
	OPT_PLAN, OPT_SUMMARY, OPT_SCOPE, OPT_INCLUDE, OPT_EXCLUDE,
};

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "alpha", required_argument, NULL, OPT_ALPHA },
		{ "chi", required_argument, NULL, OPT_CHI },
		{ "discover-xml", required_argument, NULL, OPT_DISCOVER_XML },
		{ "discover-html", required_argument, NULL, OPT_DISCOVER_HTML },
		{ "categories", required_argument, NULL, OPT_CATEGORIES },
		{ "overrides", required_argument, NULL, OPT_OVERRIDES },
		{ "cash", required_argument, NULL, OPT_CASH },
		{ "now", required_argument, NULL, WA_OPT_NOW },
		{ "ahead", required_argument, NULL, OPT_AHEAD },
		{ "retry-max", required_argument, NULL, OPT_RETRY_MAX },
		{ "plan", required_argument, NULL, OPT_PLAN },
		{ "summary", required_argument, NULL, OPT_SUMMARY },
		{ "scope", required_argument, NULL, OPT_SCOPE },
		{ "include", required_argument, NULL, OPT_INCLUDE },
		{ "exclude", required_argument, NULL, OPT_EXCLUDE },
		WA_COMMON_LONGOPTS
	};
	/* The spellings of the release before. */
	static const struct opt_renamed renamed[] = {
		{ 'F', OPT_PLAN, "--plan" },
		{ 's', OPT_SUMMARY, "--summary" },
		{ 0, 0, NULL },
	};
	struct schedule s = {
		.cycle_days = 0.25, .alpha = 0.95, .chi = 1, .share_xml = 20, .share_html = 20,
		.retry_max = 30 * 86400.0, .spool_fd = -1,
	};
	double ahead = 0;
	int c;

	wa_init(argc, argv, usage);
	s.now = (int64_t)time(NULL);
	while ((c = getopt_long(argc, argv, "F:G:T:hqs:", longopts, NULL)) != -1) {
		switch (opt_rename(c, renamed)) {
		case OPT_PLAN:
			s.plan_path = optarg;
			break;
		case 'G':
			s.bandwidth = opt_double("-G", optarg, 1e-9, 1e15);
			break;
		case 'T':
			s.cycle_days = opt_duration("-T", optarg) / SECONDS_PER_DAY;
			if (!(s.cycle_days > 0))
				wa_usage_error("-T: the refresh cycle time must be positive");
			break;
		case OPT_SUMMARY:
			s.summary_path = optarg;
			break;
		case OPT_ALPHA:
			s.alpha = opt_double("--alpha", optarg, 1e-6, 100);
			break;
		case OPT_CHI:
			s.chi = opt_double("--chi", optarg, 1e-12, 1e12);
			break;
		case OPT_DISCOVER_XML:
			s.share_xml = opt_double("--discover-xml", optarg, 0, 100);
			break;
		case OPT_DISCOVER_HTML:
			s.share_html = opt_double("--discover-html", optarg, 0, 100);
			break;
		case OPT_CATEGORIES:
			s.categories_path = optarg;
			break;
		case OPT_OVERRIDES:
			s.overrides_path = optarg;
			break;
		case OPT_CASH:
			s.cash_path = optarg;
			break;
		case WA_OPT_NOW:
			s.now = opt_time("--now", optarg);
			break;
		case OPT_AHEAD:
			ahead = opt_duration("--ahead", optarg);
			break;
		case OPT_RETRY_MAX:
			s.retry_max = opt_duration("--retry-max", optarg);
			break;
		case OPT_SCOPE:
			scope_read(&s.scope, optarg);
			break;
		case OPT_INCLUDE:
			scope_option(&s.scope, "--include", '+', optarg);
			break;
		case OPT_EXCLUDE:
			scope_option(&s.scope, "--exclude", '-', optarg);
			break;
		default:
			wa_common_option(c);
		}
	}
	/* A batch plans at the end of one cycle the fetches of the next. */
	s.now += (int64_t)ahead;
	if (s.bandwidth == 0)
		wa_usage_error("-G PAGES_PER_DAY is required");
	if (s.share_xml + s.share_html > 100)
		wa_usage_error("--discover-xml and --discover-html add up to more than 100");
	if (s.bandwidth * s.cycle_days < 1)
		wa_usage_error("-G times -T is less than one fetch per cycle");
	if (s.bandwidth * s.cycle_days > 1e9)
		wa_usage_error("-G times -T is more than 10^9 fetches per cycle");

	state_open(&s, (size_t)(argc - optind), argv + optind);
	atomic_install_handlers();
	first_pass(&s);
	plan_cycle(&s);
	second_pass(&s);
	fill_cycle(&s);
	write_list(&s);
	write_summaries(&s);
	state_close(&s);
	scope_free(&s.scope);
	url_cleanup();
	return WA_EXIT_OK;
}
