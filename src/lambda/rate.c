/* The change rate of one URL and its 90% interval (wa-lambda(1) says how
 * the estimator is chosen): the last date of change when every observation
 * has a Last-Modified (or a sitemap's lastmod) that agrees with the changed
 * column, else the existence of change, and the Gamma prior where the data
 * carry no finite nonzero estimate; the sitemap's changefreq, where the
 * data do not rule it out, as the page's own prior. */
#include <string.h>

#include "lambda.h"

/* A Gamma(a, rate b) prior on lambda. */
struct prior {
	double a, b;
};

/* The Gamma(a, b) posterior: its mean and equal-tailed 90% interval. */
static void
gamma_posterior(struct estimate *e, double a, double b, bool point)
{
	if (point)
		e->lambda = a / b;
	e->lower = gamma_quantile(a, b, 0.05);
	e->upper = gamma_quantile(a, b, 0.95);
}

/* Preda's eq. 4.2 as printed: the first access counts as a change. */
static void
estimate_literal(struct prior pr, const struct page *p, struct estimate *e)
{
	e->changes = p->lit_c;
	e->estimator = "lastmod-literal";
	if (p->lm_x == 0 && p->lm_n > 0)
		e->flags |= FLAG_NONE_CHANGED;
	if (p->lit_l > 0) {
		e->lambda = (double)p->lit_c / p->lit_l;
		gamma_posterior(e, (double)p->lit_c + 0.5, p->lit_l, false);
	} else {
		e->estimator = "prior";
		gamma_posterior(e, pr.a + (double)p->lit_c, pr.b, true);
	}
}

static void
estimate_lastmod(const struct lambda *l, struct prior pr, const struct page *p,
    struct estimate *e)
{
	double a = pr.a, b = pr.b;

	if (l->literal) {
		estimate_literal(pr, p, e);
		return;
	}
	e->changes = p->lm_x;
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
estimate_ml(struct prior pr, struct page *p, struct estimate *e)
{
	struct change_data *cd = &p->cd;
	double a = pr.a, b = pr.b;

	e->changes = cd->changes;
	e->estimator = "prior";
	if (p->ml_n == 0) {
		e->flags |= FLAG_SINGLE;
		gamma_posterior(e, a, b, true);
		return;
	}
	if (cd->changes == 0) {
		e->flags |= FLAG_NONE_CHANGED;
		gamma_posterior(e, a, b + cd->unchanged, true);
		return;
	}
	if (cd->unchanged == 0) {
		/* Every interval changed: the likelihood grows without end, the
		 * prior's mode holds it; the rate is likely higher still. */
		e->flags |= FLAG_ALL_CHANGED;
		e->lambda = ml_estimate(cd, a, b);
		ml_interval(cd, a, b, e->lambda, &e->lower, &e->upper);
		return;
	}
	e->estimator = "ml";
	e->lambda = ml_estimate(cd, 1, 0);
	ml_interval(cd, 1, 0, e->lambda, &e->lower, &e->upper);
}

/* A sitemap's lastmod that says every interval changed cannot be told
 * from one that always says "now": only one that was once right about an
 * unchanged interval is believed. */
bool
uses_lastmod(const struct page *p)
{
	return p->all_lastmod && p->lastmod_agrees &&
	    (!p->lastmod_hinted || p->hint_corroborated);
}

void
page_counts(const struct page *p, double *x, double *e)
{
	if (uses_lastmod(p)) {
		*x = (double)p->lm_x;
		*e = p->lm_t;
		return;
	}
	*x = (double)p->cd.changes;
	*e = p->cd.unchanged;
	for (size_t i = 0; i < p->cd.n; i++)
		*e += p->cd.len[i] * p->cd.count[i];
}

static void
estimate_with(const struct lambda *l, struct prior pr, struct page *p,
    struct estimate *e)
{
	e->n = p->obs;
	if (p->obs == 1)
		e->flags |= FLAG_SINGLE;
	if (uses_lastmod(p)) {
		estimate_lastmod(l, pr, p, e);
		if (p->lastmod_hinted)
			e->flags |= FLAG_SITEMAP_LASTMOD;
	} else
		estimate_ml(pr, p, e);
}

/* Whether the rate r of a sitemap's changefreq lies within what the
 * page's data allow, e as estimated without it: their 90% interval, or
 * for the prior's estimates, the Jeffreys bound the data alone give (no
 * change in E days: an upper one; every interval changed: a lower one). */
static bool
changefreq_believed(const struct page *p, const struct estimate *e, double r)
{
	double x, exposure;

	page_counts(p, &x, &exposure);
	if (!(exposure > 0))
		return true;
	if (strcmp(e->estimator, "prior") != 0)
		return e->lower <= r && r <= e->upper;
	if (x == 0)
		return r <= gamma_quantile(0.5, exposure, 0.95);
	return r >= gamma_quantile(x + 0.5, exposure, 0.05);
}

/* A rate of the data moved toward the changefreq prior Gamma(1, rate
 * 1/r) as if the data were x = rate E changes in E days: (x + 1) /
 * (E + 1/r). */
static double
toward_changefreq(double rate, double exposure, double r)
{
	return (rate * exposure + 1) / (exposure + 1 / r);
}

/* Whether the page's history can refute a high changefreq as well as a
 * low one: not when every interval changed and only a lower bound is
 * known, nor without exposure. */
static bool
changefreq_checkable(const struct page *p, const struct estimate *e)
{
	double x, exposure;

	page_counts(p, &x, &exposure);
	return exposure > 0 && (strcmp(e->estimator, "prior") != 0 || x == 0);
}

void
check_changefreq(struct lambda *l, struct page *p)
{
	struct prior population = { l->prior_shape, l->prior_rate };
	struct estimate e = { 0, 0, 0, NULL, 0, 0, 0 };
	struct sitemap_trust *trust;

	if (!(p->hint_rate > 0))
		return;
	estimate_with(l, population, p, &e);
	if (!changefreq_checkable(p, &e))
		return;
	trust = &l->trust[p->hint_sitemap];
	trust->checked++;
	if (!changefreq_believed(p, &e, p->hint_rate))
		trust->refuted++;
}

void
estimate_rate(const struct lambda *l, struct page *p, struct estimate *e)
{
	struct prior population = { l->prior_shape, l->prior_rate };
	double r = p->hint_rate, x, exposure;

	estimate_with(l, population, p, e);
	if (!(r > 0) || !sitemap_trusted(l, p->hint_sitemap) ||
	    !changefreq_believed(p, e, r))
		return;
	e->flags |= FLAG_CHANGEFREQ;
	if (strcmp(e->estimator, "prior") == 0) {
		estimate_with(l, (struct prior){ 1, 1 / r }, p, e);
		return;
	}
	page_counts(p, &x, &exposure);
	e->lambda = toward_changefreq(e->lambda, exposure, r);
	e->lower = toward_changefreq(e->lower, exposure, r);
	e->upper = toward_changefreq(e->upper, exposure, r);
}
