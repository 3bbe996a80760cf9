/* The change rate of one URL and its 90% interval (wa-lambda(1) says how
 * the estimator is chosen): the last date of change when every observation
 * has a Last-Modified that agrees with the changed column, else the
 * existence of change, and the Gamma prior where the data carry no finite
 * nonzero estimate. */
#include "lambda.h"

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
estimate_literal(const struct lambda *l, const struct page *p, struct estimate *e)
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
		gamma_posterior(e, l->prior_shape + (double)p->lit_c, l->prior_rate, true);
	}
}

static void
estimate_lastmod(const struct lambda *l, const struct page *p, struct estimate *e)
{
	double a = l->prior_shape, b = l->prior_rate;

	if (l->literal) {
		estimate_literal(l, p, e);
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
estimate_ml(const struct lambda *l, struct page *p, struct estimate *e)
{
	struct change_data *cd = &p->cd;
	double a = l->prior_shape, b = l->prior_rate;

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

bool
uses_lastmod(const struct page *p)
{
	return p->all_lastmod && p->lastmod_agrees;
}

void
estimate_rate(const struct lambda *l, struct page *p, struct estimate *e)
{
	e->n = p->obs;
	if (p->obs == 1)
		e->flags |= FLAG_SINGLE;
	if (uses_lastmod(p))
		estimate_lastmod(l, p, e);
	else
		estimate_ml(l, p, e);
}
