/* Change-rate estimators (estimate.h; Preda, "Data Acquisition for an XML
 * Warehouse", 2000, ch. 4; Cho and Garcia-Molina 2003 sec. 6); the
 * incomplete gamma function follows the series and continued fraction of
 * Numerical Recipes, sec. 6.2. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "estimate.h"
#include "msg.h"

#define SOLVE_MAX_STEPS 400
#define SOLVE_REL_TOL 1e-15

void
change_data_reset(struct change_data *d)
{
	d->unchanged = 0;
	d->changes = 0;
	d->n = 0;
	d->merges = 0;
}

void
change_data_free(struct change_data *d)
{
	free(d->len);
	free(d->count);
	memset(d, 0, sizeof *d);
}

static int
by_length(const void *a, const void *b)
{
	const double *x = a, *y = b;
	return (x[0] > y[0]) - (x[0] < y[0]);
}

/* Sorts the (length, count) pairs, adds up equal lengths and, when still
 * more than half full, merges neighbours pairwise. */
static void
compact(struct change_data *d)
{
	double *pair = wa_reallocarray(NULL, d->n, 2 * sizeof *pair);
	size_t i, m = 0;

	for (i = 0; i < d->n; i++) {
		pair[2 * i] = d->len[i];
		pair[2 * i + 1] = d->count[i];
	}
	qsort(pair, d->n, 2 * sizeof *pair, by_length);
	for (i = 0; i < d->n; i++) {
		if (m > 0 && d->len[m - 1] == pair[2 * i]) {
			d->count[m - 1] += pair[2 * i + 1];
			continue;
		}
		d->len[m] = pair[2 * i];
		d->count[m++] = pair[2 * i + 1];
	}
	free(pair);
	if (m > d->cap / 2) {
		size_t k = 0;
		for (i = 0; i + 1 < m; i += 2) {
			double w = d->count[i] + d->count[i + 1];
			d->len[k] = (d->len[i] * d->count[i] +
			    d->len[i + 1] * d->count[i + 1]) / w;
			d->count[k++] = w;
		}
		if (i < m) {
			d->len[k] = d->len[i];
			d->count[k++] = d->count[i];
		}
		m = k;
		d->merges++;
	}
	d->n = m;
}

void
change_data_add(struct change_data *d, double length)
{
	d->changes++;
	if (d->n > 0 && d->len[d->n - 1] == length) {
		d->count[d->n - 1] += 1;
		return;
	}
	if (d->n == d->cap) {
		if (d->cap < CHANGE_LENGTHS_MAX) {
			d->cap = d->cap ? 2 * d->cap : 16;
			d->len = wa_reallocarray(d->len, d->cap, sizeof *d->len);
			d->count = wa_reallocarray(d->count, d->cap, sizeof *d->count);
		} else
			compact(d);
	}
	d->len[d->n] = length;
	d->count[d->n++] = 1;
}

/* y / (e^y - 1) and its derivative in y, accurate near 0 and for large y. */
static double
phi(double y)
{
	if (y < 1e-5)
		return 1 - y / 2 + y * y / 12;
	if (y > 700)
		return 0;
	return y / expm1(y);
}

static double
dphi(double y)
{
	double e;

	if (y < 1e-5)
		return -0.5 + y / 6;
	if (y > 350)
		return 0;
	e = expm1(y);
	return (e - y * (e + 1)) / (e * e);
}

struct posterior {
	const struct change_data *d;
	double a, b;
	double target;		/* for the interval: g(xhat) - LR_CHI2_90 / 2 */
};

/* h(x) = d g / d ln x, and its derivative in ln x. */
static double
h_of(const struct posterior *p, double x, double *dh)
{
	const struct change_data *d = p->d;
	double h = (p->a - 1) - (d->unchanged + p->b) * x;
	double dsum = -(d->unchanged + p->b) * x;

	for (size_t i = 0; i < d->n; i++) {
		double y = d->len[i] * x;
		h += d->count[i] * phi(y);
		dsum += d->count[i] * y * dphi(y);
	}
	*dh = dsum;
	return h;
}

/* g(x) = l(x) + (a - 1) ln x - b x, the log posterior up to a constant. */
static double
g_of(const struct posterior *p, double x)
{
	const struct change_data *d = p->d;
	double g = (p->a - 1) * log(x) - (d->unchanged + p->b) * x;

	for (size_t i = 0; i < d->n; i++)
		g += d->count[i] * log(-expm1(-d->len[i] * x));
	return g;
}

typedef double solve_fn(const struct posterior *, double u, double *du);

/* The root in u = ln x of a strictly decreasing F, between ulo (F > 0)
 * and uhi (F < 0): Newton steps, a bisection when a step leaves the
 * bracket.  Converged when the step or the bracket is below
 * SOLVE_REL_TOL relative to x (i.e. absolute in u). */
static double
solve_decreasing(solve_fn *f, const struct posterior *p, double ulo, double uhi)
{
	double u = (ulo + uhi) / 2;

	for (int step = 0; step < SOLVE_MAX_STEPS; step++) {
		double du, fu = f(p, u, &du), next;
		if (fu == 0)
			return u;
		if (fu > 0)
			ulo = u;
		else
			uhi = u;
		if (uhi - ulo <= SOLVE_REL_TOL * fmax(1, fabs(u)))
			return (ulo + uhi) / 2;
		next = du < 0 ? u - fu / du : (ulo + uhi) / 2;
		if (!(next > ulo && next < uhi))
			next = (ulo + uhi) / 2;
		if (fabs(next - u) <= SOLVE_REL_TOL * fmax(1, fabs(u)))
			return next;
		u = next;
	}
	return u;
}

/* Doubles the bracket [ulo, uhi] in u outwards until F(ulo) > 0 > F(uhi). */
static void
bracket(solve_fn *f, const struct posterior *p, double *ulo, double *uhi)
{
	double du;

	while (f(p, *ulo, &du) <= 0 && *ulo > -700)
		*ulo -= 2 * (*uhi - *ulo) + 1;
	while (f(p, *uhi, &du) >= 0 && *uhi < 700)
		*uhi += 2 * (*uhi - *ulo) + 1;
}

static double
h_in_u(const struct posterior *p, double u, double *du)
{
	return h_of(p, exp(u), du);
}

double
ml_estimate(struct change_data *d, double a, double b)
{
	struct posterior p = { d, a, b, 0 };
	double ulo, uhi, guess;

	guess = (double)d->changes / (d->unchanged + b + d->len[0]);
	ulo = uhi = log(guess);
	bracket(h_in_u, &p, &ulo, &uhi);
	return exp(solve_decreasing(h_in_u, &p, ulo, uhi));
}

/* g(x) - target, decreasing on the upper side of xhat. */
static double
above_target(const struct posterior *p, double u, double *du)
{
	double x = exp(u), unused;
	*du = h_of(p, x, &unused);
	return g_of(p, x) - p->target;
}

static double
below_target(const struct posterior *p, double u, double *du)
{
	double r = above_target(p, -u, du);
	*du = -*du;
	return r;
}

void
ml_interval(struct change_data *d, double a, double b, double xhat,
    double *lower, double *upper)
{
	struct posterior p = { d, a, b, 0 };
	double u = log(xhat), ulo, uhi;

	p.target = g_of(&p, xhat) - LR_CHI2_90 / 2;
	/* Lower end: in v = -u, F(v) = g - target decreases from xhat down. */
	ulo = -u;
	uhi = -u + 1;
	bracket(below_target, &p, &ulo, &uhi);
	*lower = exp(-solve_decreasing(below_target, &p, ulo, uhi));
	ulo = u;
	uhi = u + 1;
	bracket(above_target, &p, &ulo, &uhi);
	*upper = exp(solve_decreasing(above_target, &p, ulo, uhi));
}

double
lastmod_estimate(uint64_t n, uint64_t x, double t)
{
	double dn = (double)n, dx = (double)x;

	if (x == n)
		return (dx - 1) / t;
	return ((dx - 1) - dx / (dn * log1p(-dx / dn))) / t;
}

#define GAMMA_EPS 1e-16
#define GAMMA_MAX_TERMS 100000

/* P(a, z) by its series, for z < a + 1. */
static double
gamma_series(double a, double z)
{
	double sum = 1 / a, term = sum;

	for (int n = 1; n < GAMMA_MAX_TERMS; n++) {
		term *= z / (a + n);
		sum += term;
		if (fabs(term) < fabs(sum) * GAMMA_EPS)
			break;
	}
	return sum * exp(-z + a * log(z) - lgamma(a));
}

/* Q(a, z) by its continued fraction (modified Lentz), for z >= a + 1. */
static double
gamma_fraction(double a, double z)
{
	double b = z + 1 - a, c = 1 / DBL_MIN, d = 1 / b, h = d;

	for (int i = 1; i < GAMMA_MAX_TERMS; i++) {
		double an = -i * (i - a), del;
		b += 2;
		d = an * d + b;
		if (fabs(d) < DBL_MIN)
			d = DBL_MIN;
		c = b + an / c;
		if (fabs(c) < DBL_MIN)
			c = DBL_MIN;
		d = 1 / d;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < GAMMA_EPS)
			break;
	}
	return exp(-z + a * log(z) - lgamma(a)) * h;
}

double
gamma_p(double a, double z)
{
	if (z <= 0)
		return 0;
	return z < a + 1 ? gamma_series(a, z) : 1 - gamma_fraction(a, z);
}

double
gamma_q(double a, double z)
{
	if (z <= 0)
		return 1;
	return z < a + 1 ? 1 - gamma_series(a, z) : gamma_fraction(a, z);
}

/* The solver's p carries the shape in a and the wanted tail in target. */
static double
lower_tail(const struct posterior *p, double u, double *du)
{
	double z = exp(u);
	*du = -exp(p->a * u - z - lgamma(p->a));
	return p->target - gamma_p(p->a, z);
}

static double
upper_tail(const struct posterior *p, double u, double *du)
{
	double z = exp(u);
	*du = -exp(p->a * u - z - lgamma(p->a));
	return gamma_q(p->a, z) - p->target;
}

double
gamma_quantile(double a, double b, double prob)
{
	struct posterior p = { NULL, a, b, 0 };
	solve_fn *f = prob <= 0.5 ? lower_tail : upper_tail;
	double ulo, uhi;

	/* Work on the smaller tail: each is accurate where it is small. */
	p.target = prob <= 0.5 ? prob : 1 - prob;
	ulo = uhi = log(a);
	bracket(f, &p, &ulo, &uhi);
	return exp(solve_decreasing(f, &p, ulo, uhi)) / b;
}
