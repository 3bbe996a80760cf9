/* wa-lambda: the change rate of every page from its history of observations
 * (Preda, "Data Acquisition for an XML Warehouse", 2000, ch. 4; Cho and
 * Garcia-Molina, ACM TOIT 2003, sec. 6), streamed one URL at a time
 * (man/wa-formats.5, "Observations and history", "Change rates",
 * "Overrides"; man/wa-lambda.1 says how each estimator is chosen). */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "estimate.h"
#include "wa.h"

static const char usage[] =
    "usage: wa-lambda [-q] [--literal] [--prior SHAPE,RATE] [-O FILE] [-o FILE]\n"
    "                 [HISTORY...]\n"
    "Writes the change rate (changes/day) of every URL of the HISTORY files (or\n"
    "stdin): url, lambda, estimator, n, changes, lower, upper, flags.  The\n"
    "history is sorted by url, then time (wa-formats(5)).\n"
    "  -O FILE           rate overrides (url, lambda): they replace the estimate\n"
    "  -o FILE           output file (default: stdout), written atomically\n"
    "  --literal         Preda's eq. 4.2 as printed, for Last-Modified histories\n"
    "  --prior SHAPE,RATE  the Gamma prior (RATE in days); default: fitted on\n"
    "                    the HISTORY files in a first pass, or 1,7 on stdin\n"
    "  -q                no progress line\n"
    "  -h                this help;  --version  the version\n"
    "See wa-lambda(1).\n";

enum { OPT_PRIOR = WA_OPT_FIRST_TOOL, OPT_LITERAL };

#define SECONDS_PER_DAY 86400.0
#define DEFAULT_PRIOR_SHAPE 1.0
#define DEFAULT_PRIOR_RATE 7.0
#define FIT_SHAPE_MIN 0.05
#define FIT_SHAPE_MAX 100.0

enum { FLAG_NONE_CHANGED = 1, FLAG_ALL_CHANGED = 2, FLAG_SINGLE = 4,
    FLAG_NO_OBSERVATION = 8 };

/* What one URL's observations leave: sufficient statistics only, so that
 * memory does not grow with the number of observations (estimate.h). */
struct page {
	char *url;
	size_t url_size;
	uint64_t obs;
	int64_t t_prev;
	bool all_lastmod;	/* every observation has a Last-Modified */
	bool lastmod_agrees;	/* and it agrees with the changed column */
	/* last date of change, corrected: n intervals, x changed, exposure t */
	uint64_t lm_n, lm_x;
	double lm_t;
	/* eq. 4.2 literally: the first access counts as a change */
	uint64_t lit_c;
	double lit_l;
	/* existence of change: intervals with a 0 or 1 */
	uint64_t ml_n;
	struct change_data cd;
};

struct estimate {
	double lambda, lower, upper;
	const char *estimator;
	uint64_t n, changes;
	unsigned flags;
};

/* Method-of-moments fit of the Gamma prior on crude rates X_i / E_i. */
struct prior_fit {
	uint64_t pages;
	double sum_r, sum_r2, sum_r_over_e;
};

static double prior_shape = DEFAULT_PRIOR_SHAPE, prior_rate = DEFAULT_PRIOR_RATE;
static bool literal;
static struct page page;
static struct prior_fit *fitting;	/* non-NULL during the first pass */
static FILE *out;
static struct progress pg;
static uint64_t pages_done;

/* The rate overrides, merged with the history by URL. */
static struct tsv *ov;
static bool ov_have;
static char *ov_url;
static double ov_lambda;

static void
ov_advance(void)
{
	ov_have = false;
	while (ov && tsv_next(ov)) {
		if (!parse_double(ov->col[1], &ov_lambda) || !(ov_lambda > 0) ||
		    !isfinite(ov_lambda)) {
			tsv_reject(ov, "lambda is not a positive number: %.80s", ov->col[1]);
			continue;
		}
		free(ov_url);
		ov_url = wa_strdup(ov->col[0]);
		ov_have = true;
		return;
	}
}

static void
print_row(const char *url, const struct estimate *e)
{
	static const char *const flag_name[] = { "none-changed", "all-changed",
	    "single", "no-observation" };
	bool first = true;

	fprintf(out, "%s\t%.12g\t%s\t%llu\t%llu\t%.12g\t%.12g\t", url, e->lambda,
	    e->estimator, (unsigned long long)e->n, (unsigned long long)e->changes,
	    e->lower, e->upper);
	for (unsigned i = 0; i < 4; i++)
		if (e->flags & 1u << i) {
			fprintf(out, "%s%s", first ? "" : ",", flag_name[i]);
			first = false;
		}
	fputs(first ? "-\n" : "\n", out);
}

/* Emits the overrides of URLs before url (or all with url NULL) that have
 * no history, and applies the one for url if there is one. */
static void
apply_overrides(const char *url, struct estimate *e)
{
	while (ov_have && (url == NULL || strcmp(ov_url, url) < 0)) {
		struct estimate none = { ov_lambda, ov_lambda, ov_lambda, "override",
		    0, 0, FLAG_NO_OBSERVATION };
		print_row(ov_url, &none);
		ov_advance();
	}
	if (url && ov_have && strcmp(ov_url, url) == 0) {
		e->lambda = e->lower = e->upper = ov_lambda;
		e->estimator = "override";
		ov_advance();
	}
}

/* The Gamma(a, b) posterior: its mean and equal-tailed 90% interval. */
static void
gamma_posterior(struct estimate *e, double a, double b, bool point)
{
	if (point)
		e->lambda = a / b;
	e->lower = gamma_quantile(a, b, 0.05);
	e->upper = gamma_quantile(a, b, 0.95);
}

static void
estimate_lastmod(const struct page *p, struct estimate *e)
{
	double a = prior_shape, b = prior_rate;

	e->changes = p->lm_x;
	if (literal) {
		e->changes = p->lit_c;
		e->estimator = "lastmod-literal";
		if (p->lm_x == 0 && p->lm_n > 0)
			e->flags |= FLAG_NONE_CHANGED;
		if (p->lit_l > 0) {
			e->lambda = (double)p->lit_c / p->lit_l;
			gamma_posterior(e, (double)p->lit_c + 0.5, p->lit_l, false);
		} else {
			e->estimator = "prior";
			gamma_posterior(e, a + (double)p->lit_c, b, true);
		}
		return;
	}
	if (p->lm_n == 0) {
		e->estimator = "prior";
		gamma_posterior(e, a, b, true);
		return;
	}
	if (p->lm_x == 0) {
		e->flags |= FLAG_NONE_CHANGED;
		e->estimator = "prior";
		gamma_posterior(e, a, b + p->lm_t, true);
		return;
	}
	if (p->lm_x == p->lm_n)
		e->flags |= FLAG_ALL_CHANGED;
	if ((p->lm_x == p->lm_n && p->lm_n < 2) || !(p->lm_t > 0)) {
		e->estimator = "prior";
		gamma_posterior(e, a + (double)p->lm_x, b + p->lm_t, true);
		return;
	}
	/* Enough data: the Jeffreys interval, free of the population prior
	 * (which may be far from this page). */
	e->estimator = "lastmod";
	e->lambda = lastmod_estimate(p->lm_n, p->lm_x, p->lm_t);
	gamma_posterior(e, (double)p->lm_x + 0.5, p->lm_t, false);
}

static void
estimate_ml(struct page *p, struct estimate *e)
{
	struct change_data *cd = &p->cd;

	e->changes = cd->changes;
	e->estimator = "prior";
	if (p->ml_n == 0) {
		e->flags |= FLAG_SINGLE;
		gamma_posterior(e, prior_shape, prior_rate, true);
		return;
	}
	if (cd->changes == 0) {
		e->flags |= FLAG_NONE_CHANGED;
		gamma_posterior(e, prior_shape, prior_rate + cd->unchanged, true);
		return;
	}
	if (cd->unchanged == 0) {
		/* Every interval changed: the likelihood grows without end, the
		 * prior's mode holds it; the rate is likely higher still. */
		e->flags |= FLAG_ALL_CHANGED;
		e->lambda = ml_estimate(cd, prior_shape, prior_rate);
		ml_interval(cd, prior_shape, prior_rate, e->lambda, &e->lower, &e->upper);
		return;
	}
	e->estimator = "ml";
	e->lambda = ml_estimate(cd, 1, 0);
	ml_interval(cd, 1, 0, e->lambda, &e->lower, &e->upper);
}

static bool
uses_lastmod(const struct page *p)
{
	return p->all_lastmod && p->lastmod_agrees;
}

static void
fit_add(const struct page *p)
{
	double x, e;

	if (uses_lastmod(p)) {
		x = (double)p->lm_x;
		e = p->lm_t;
	} else {
		x = (double)p->cd.changes;
		e = p->cd.unchanged;
		for (size_t i = 0; i < p->cd.n; i++)
			e += p->cd.len[i] * p->cd.count[i];
	}
	if (!(e > 0))
		return;
	fitting->pages++;
	fitting->sum_r += x / e;
	fitting->sum_r2 += x / e * (x / e);
	fitting->sum_r_over_e += x / e / e;
}

static void
finish_page(void)
{
	struct estimate e = { 0, 0, 0, NULL, 0, 0, 0 };

	if (page.obs == 0)
		return;
	if (fitting)
		fit_add(&page);
	else {
		e.n = page.obs;
		if (page.obs == 1)
			e.flags |= FLAG_SINGLE;
		if (uses_lastmod(&page))
			estimate_lastmod(&page, &e);
		else
			estimate_ml(&page, &e);
		apply_overrides(page.url, &e);
		print_row(page.url, &e);
	}
	page.obs = 0;
	progress_set(&pg, ++pages_done);
}

static void
start_page(const char *url, int64_t t, int64_t d)
{
	size_t len = strlen(url) + 1;

	if (len > page.url_size) {
		page.url_size = 2 * len;
		page.url = wa_realloc(page.url, page.url_size);
	}
	memcpy(page.url, url, len);
	page.obs = 1;
	page.t_prev = t;
	page.all_lastmod = d >= 0;
	page.lastmod_agrees = true;
	page.lm_n = page.lm_x = page.lit_c = page.ml_n = 0;
	page.lm_t = page.lit_l = 0;
	if (d >= 0) {
		page.lit_c = 1;
		page.lit_l = (double)(t > d ? t - d : 0) / SECONDS_PER_DAY;
	}
	change_data_reset(&page.cd);
}

static void
add_interval(int64_t t, char changed, int64_t d)
{
	double len = (double)(t - page.t_prev) / SECONDS_PER_DAY;

	if (changed == '1') {
		change_data_add(&page.cd, len);
		page.ml_n++;
	} else if (changed == '0') {
		page.cd.unchanged += len;
		page.ml_n++;
	}
	if (d < 0)
		page.all_lastmod = false;
	if (page.all_lastmod) {
		bool lm_changed = d > page.t_prev;
		if ((changed == '1' && !lm_changed) || (changed == '0' && lm_changed))
			page.lastmod_agrees = false;
		page.lm_n++;
		if (lm_changed) {
			double age = (double)(t > d ? t - d : 0) / SECONDS_PER_DAY;
			page.lm_x++;
			page.lm_t += age;
			page.lit_c++;
			page.lit_l += age;
		} else
			page.lm_t += len;
	}
	page.obs++;
	page.t_prev = t;
}

static void
read_history(const char *path)
{
	struct tsv *t = tsv_open(path, 4, 0, 0);

	tsv_check_url(t, 0);
	while (tsv_next(t)) {
		int64_t time, lastmod = -1;
		const char *c = t->col[2];
		int cmp;

		if (!parse_i64(t->col[1], &time) || time < 0) {
			tsv_reject(t, "time is not a Unix time: %.80s", t->col[1]);
			continue;
		}
		if (c[0] == '\0' || c[1] != '\0' || strchr("01-", c[0]) == NULL) {
			tsv_reject(t, "changed is not 1, 0 or -: %.80s", c);
			continue;
		}
		if (strcmp(t->col[3], "-") != 0 &&
		    (!parse_i64(t->col[3], &lastmod) || lastmod < 0)) {
			tsv_reject(t, "last-modified is not a Unix time: %.80s", t->col[3]);
			continue;
		}
		cmp = page.obs ? strcmp(t->col[0], page.url) : 1;
		if (cmp < 0)
			tsv_die(t, "not sorted by URL: %.200s after %.200s",
			    t->col[0], page.url);
		if (cmp > 0) {
			finish_page();
			start_page(t->col[0], time, lastmod);
			continue;
		}
		if (time < page.t_prev)
			tsv_die(t, "not sorted by time within %.200s: %lld after %lld",
			    page.url, (long long)time, (long long)page.t_prev);
		if (time == page.t_prev) {
			tsv_reject(t, "a second observation at the same time");
			continue;
		}
		add_interval(time, c[0], lastmod);
	}
	tsv_close(t);
}

static void
read_all(int nfiles, char **files)
{
	if (nfiles == 0)
		read_history(NULL);
	for (int i = 0; i < nfiles; i++)
		read_history(files[i]);
	finish_page();
}

/* Moments of a Gamma-Poisson mixture on the crude rates r_i = X_i / E_i:
 * m = mean(r_i), v = mean((r_i - m)^2) - mean(r_i / E_i), the spread of
 * the r_i less their Poisson noise. */
static void
fit_prior(int nfiles, char **files)
{
	struct prior_fit fit = { 0, 0, 0, 0 };
	double m, v, k;

	fitting = &fit;
	progress_start(&pg, "URLs (prior)", 0);
	read_all(nfiles, files);
	progress_end(&pg);
	fitting = NULL;
	pages_done = 0;
	if (fit.pages == 0 || fit.sum_r == 0) {
		wa_note("no change in the history: the default prior %g,%g",
		    prior_shape, prior_rate);
		return;
	}
	k = (double)fit.pages;
	m = fit.sum_r / k;
	v = (fit.sum_r2 - k * m * m - fit.sum_r_over_e) / k;
	prior_shape = v > 0 ? m * m / v : FIT_SHAPE_MAX;
	prior_shape = fmin(FIT_SHAPE_MAX, fmax(FIT_SHAPE_MIN, prior_shape));
	prior_rate = prior_shape / m;
	wa_note("prior fitted on %llu URLs: Gamma shape %.6g, rate %.6g days",
	    (unsigned long long)fit.pages, prior_shape, prior_rate);
}

static bool
all_regular_files(int nfiles, char **files)
{
	struct stat st;

	if (nfiles == 0)
		return false;
	for (int i = 0; i < nfiles; i++)
		if (strcmp(files[i], "-") == 0 || stat(files[i], &st) != 0 ||
		    !S_ISREG(st.st_mode))
			return false;
	return true;
}

static void
parse_prior(const char *arg)
{
	char *comma = strchr(arg, ',');
	char *shape;

	if (comma == NULL)
		wa_usage_error("--prior: want SHAPE,RATE, not '%s'", arg);
	shape = wa_strndup(arg, (size_t)(comma - arg));
	prior_shape = opt_double("--prior SHAPE", shape, 1e-6, 1e6);
	prior_rate = opt_double("--prior RATE", comma + 1, 1e-9, 1e12);
	free(shape);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "prior", required_argument, NULL, OPT_PRIOR },
		{ "literal", no_argument, NULL, OPT_LITERAL },
		WA_COMMON_LONGOPTS
	};
	const char *overrides = NULL, *output = NULL;
	struct atomic_file *af = NULL;
	bool prior_given = false;
	int c;

	wa_init(argc, argv, usage);
	while ((c = getopt_long(argc, argv, "hO:o:q", longopts, NULL)) != -1) {
		switch (c) {
		case 'O':
			overrides = optarg;
			break;
		case 'o':
			output = optarg;
			break;
		case OPT_PRIOR:
			parse_prior(optarg);
			prior_given = true;
			break;
		case OPT_LITERAL:
			literal = true;
			break;
		default:
			wa_common_option(c);
		}
	}

	if (!prior_given && all_regular_files(argc - optind, argv + optind))
		fit_prior(argc - optind, argv + optind);
	if (overrides) {
		ov = tsv_open(overrides, 2, 0, 0);
		tsv_check_url(ov, 0);
		tsv_check_sorted(ov, 0, true);
		ov_advance();
	}
	if (output) {
		af = atomic_open(output);
		out = af->fp;
	} else
		out = stdout;
	progress_start(&pg, "URLs", 0);
	read_all(argc - optind, argv + optind);
	apply_overrides(NULL, NULL);
	progress_end(&pg);
	if (ov)
		tsv_close(ov);
	if (af)
		atomic_commit(af);
	else if (fflush(stdout) == EOF || ferror(stdout))
		wa_die_errno("standard output");
	change_data_free(&page.cd);
	free(page.url);
	free(ov_url);
	return WA_EXIT_OK;
}
