/* The Gamma prior of the change rates fitted on the history in a first
 * pass (wa-lambda(1), --prior). */
#include <math.h>
#include <string.h>
#include <sys/stat.h>

#include "lambda.h"

#define FIT_SHAPE_MIN 0.05
#define FIT_SHAPE_MAX 100.0

/* Adds a URL's crude rate to the fit of the first pass, and its sitemap's
 * changefreq to that sitemap's record. */
static void
prior_add(struct lambda *l, struct page *p)
{
	struct prior_fit *fit = l->fitting;
	double x, e;

	check_changefreq(l, p);
	page_counts(p, &x, &e);
	if (!(e > 0))
		return;
	fit->pages++;
	fit->sum_r += x / e;
	fit->sum_r2 += x / e * (x / e);
	fit->sum_r_over_e += x / e / e;
}

static bool
regular_file(const char *path)
{
	struct stat st;

	return strcmp(path, "-") != 0 && stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static bool
all_regular_files(int nfiles, char **files)
{
	if (nfiles == 0)
		return false;
	for (int i = 0; i < nfiles; i++)
		if (!regular_file(files[i]))
			return false;
	return true;
}

/* Moments of a Gamma-Poisson mixture on the crude rates r_i = X_i / E_i:
 * m = mean(r_i), v = mean((r_i - m)^2) - mean(r_i / E_i), the spread of
 * the r_i less their Poisson noise. */
void
fit_prior(struct lambda *l)
{
	struct prior_fit fit = { 0, 0, 0, 0 };
	double m, v, k;

	if (l->prior_given || !all_regular_files(l->nfiles, l->files) ||
	    (l->hints_path && !regular_file(l->hints_path)))
		return;
	l->fitting = &fit;
	progress_start(&l->pg, "URLs (prior)", 0);
	read_all(l, prior_add);
	progress_end(&l->pg);
	l->fitting = NULL;
	l->pages_done = 0;
	if (fit.pages == 0 || fit.sum_r == 0) {
		wa_note("no change in the history: the default prior %g,%g",
		    l->prior_shape, l->prior_rate);
		return;
	}
	k = (double)fit.pages;
	m = fit.sum_r / k;
	v = (fit.sum_r2 - k * m * m - fit.sum_r_over_e) / k;
	l->prior_shape = v > 0 ? m * m / v : FIT_SHAPE_MAX;
	l->prior_shape = fmin(FIT_SHAPE_MAX, fmax(FIT_SHAPE_MIN, l->prior_shape));
	l->prior_rate = l->prior_shape / m;
	wa_note("prior fitted on %llu URLs: Gamma shape %.6g, rate %.6g days",
	    (unsigned long long)fit.pages, l->prior_shape, l->prior_rate);
}
