/* wa-opic: on-line page importance (OPIC) from fetched pages' links in
 * crawl order, after Abiteboul, Preda, Cobena, "Adaptive On-Line Page
 * Importance Computation" (WWW 2003): cash, history, the virtual page of
 * sec. 1 ("small edges"), Lemma 2.3, and Adaptive OPIC's window policies
 * of sec. 3: Interpolation, Variable Window, Fixed Window and Improved
 * Fixed Window (sec. 4).  The computation, on page ids, is
 * src/lib/opic.c; src/opic/ numbers the URLs (strmap.h), reads the links
 * and the fetch log, keeps the state file and writes the output.  Time
 * counts page reads, or seconds taken from a wa-fetch log.  The state
 * persists in a binary file (binfile.h, the layout in man/wa-formats.5,
 * "OPIC state"). */
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>

#include "opic/opic-run.h"
#include "wa.h"

static const char usage[] =
    "usage: wa-opic -S STATE [-q] [-c C] [-t FETCHLOG]\n"
    "               [-W T | -K K | -F T [--min-measures M]] [-f TEXT [-x SHARE]]\n"
    "               [--next K] [LINKS...]\n"
    "Reads fetched pages' links (src TAB dst, grouped by source, in crawl\n"
    "order) from the LINKS files or stdin, updates the OPIC state in STATE\n"
    "(created when absent) and writes url TAB importance for every known URL.\n"
    "  -S, --state STATE  the state file (required)\n"
    "  -c C      share of a page's cash given to its links (default 0.85)\n"
    "  -t LOG    time in seconds: each read takes its time from the wa-fetch\n"
    "            log LOG (default: time counts page reads)\n"
    "  -W T      Adaptive OPIC, Interpolation over a window of T\n"
    "  -K K      Adaptive OPIC, Variable Window: the last K measures (<= 4096)\n"
    "  -F T      Adaptive OPIC, Fixed Window: the measures of the last T\n"
    "  --min-measures M  with -F, keep at least M measures (default 0)\n"
    "            T is a number of reads, or with -t a duration (30d); the\n"
    "            default is plain OPIC; the policy is fixed with the state\n"
    "  -f TEXT   focus: URLs containing TEXT get extra cash from the virtual page\n"
    "  -x SHARE  share of the virtual page's cash given to them (default 0.5)\n"
    "  --next K  write the K URLs with the most cash instead (url TAB cash)\n"
    "  -q        no progress line, no notes\n"
    "  -h        this help;  --version  the version\n"
    "See wa-opic(1).\n";

enum { OPT_NEXT = WA_OPT_FIRST_TOOL, OPT_MIN_MEASURES };

/* -W or -F's T: reads, or a duration with -t. */
static double
window_arg(const char *opt, const char *arg, bool seconds)
{
	if (!seconds)
		return (double)opt_count(opt, arg, 1, UINT64_C(1) << 52);
	double v = opt_duration(opt, arg);
	if (!(v > 0 && v <= 1e15))
		wa_usage_error("%s: the window must be longer than 0s", opt);
	return v;
}

/* What the options ask beside the run's -t and -f: the state file, the
 * parameters of a new state and those given, the focus share, --next. */
struct request {
	const char *state;
	struct opic_params want;
	bool c_given, policy_given;
	double focus_share;
	uint64_t next;
};

static void
parse_options(int argc, char **argv, struct opic_run *r, struct request *rq)
{
	static const struct option longopts[] = {
		{ "next", required_argument, NULL, OPT_NEXT },
		{ "min-measures", required_argument, NULL, OPT_MIN_MEASURES },
		{ "state", required_argument, NULL, 'S' },
		WA_COMMON_LONGOPTS
	};
	/* The spellings of the release before: -s is the slices and -k keeps
	 * going in the other tools. */
	static const struct opt_renamed renamed[] = {
		{ 's', 'S', "-S (--state)" },
		{ 'k', 'K', "-K" },
		{ 0, 0, NULL },
	};
	const char *window_text = NULL, *min_text = NULL;
	struct opic_params *want = &rq->want;
	bool x_given = false;
	int policies = 0;
	int opt;

	*rq = (struct request){ .want = { .policy = OPIC_PLAIN, .c = 0.85 },
	    .focus_share = 0.5 };
	while ((opt = getopt_long(argc, argv, "c:f:F:hk:K:qs:S:t:W:x:", longopts, NULL)) != -1) {
		switch (opt = opt_rename(opt, renamed)) {
		case 'c':
			want->c = opt_double("-c", optarg, 0, 1);
			rq->c_given = true;
			break;
		case 'f':
			if (!*optarg)
				wa_usage_error("-f: empty text");
			r->focus = optarg;
			break;
		case 'F':
		case 'W':
			want->policy = opt == 'F' ? OPIC_FIXED_WINDOW : OPIC_INTERPOLATION;
			window_text = optarg;
			policies++;
			break;
		case 'K':
			want->policy = OPIC_VARIABLE_WINDOW;
			want->keep = opt_count("-K", optarg, 1, OPIC_MAX_MEASURES);
			policies++;
			break;
		case 'S':
			rq->state = optarg;
			break;
		case 't':
			r->log = optarg;
			break;
		case 'x':
			rq->focus_share = opt_double("-x", optarg, 0, 1);
			x_given = true;
			break;
		case OPT_NEXT:
			rq->next = opt_count("--next", optarg, 1, UINT64_MAX);
			break;
		case OPT_MIN_MEASURES:
			min_text = optarg;
			break;
		default:
			wa_common_option(opt);
		}
	}
	if (!rq->state)
		wa_usage_error("-S STATE is required");
	if (policies > 1)
		wa_usage_error("-W, -K and -F are window policies: choose one");
	if (x_given && !r->focus)
		wa_usage_error("-x needs -f");
	if (min_text && want->policy != OPIC_FIXED_WINDOW)
		wa_usage_error("--min-measures needs -F");
	want->unit = r->log ? OPIC_SECONDS : OPIC_READS;
	if (window_text)
		want->window = window_arg(opic_policy_option[want->policy], window_text,
		    r->log != NULL);
	if (min_text)
		want->keep = opt_count("--min-measures", min_text, 0, OPIC_MAX_MEASURES);
	rq->policy_given = policies > 0;
}

int
main(int argc, char **argv)
{
	struct opic_run r = { 0 };
	struct request rq;
	wa_init(argc, argv, usage);
	parse_options(argc, argv, &r, &rq);

	state_load(&r, rq.state, &rq.want, rq.c_given, rq.policy_given);
	r.op.focus_share = rq.focus_share;
	if (r.log)
		fetch_times_load(&r);
	read_crawl(&r, argv + optind, (size_t)(argc - optind));
	opic_settle(&r.op);
	/* The state last: an output that cannot be written leaves the state
	 * as it was, so that a rerun does not count the reads twice. */
	write_output(&r, rq.next);
	state_save(&r, rq.state);
	write_notes(&r);
	links_free(&r);
	fetch_times_free(&r);
	opic_free(&r.op);
	pages_free(&r);
	return WA_EXIT_OK;
}
