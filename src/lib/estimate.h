/* Change-rate estimators of a Poisson change process (Preda, "Data
 * Acquisition for an XML Warehouse", 2000, ch. 4; Cho and Garcia-Molina,
 * "Estimating frequency of change", ACM TOIT 3(3), 2003, sec. 6), with a
 * Gamma prior for the histories that carry no finite nonzero estimate.
 * Rates are per day, lengths in days.
 *
 * Existence of change (Preda's eq. 4.1): the log-likelihood
 *   l(x) = -V x + sum_j k_j ln(1 - exp(-c_j x))
 * of V days without change and k_j change intervals of length c_j, with
 * the prior Gamma(shape a, rate b) added as (a - 1) ln x - b x (a = 1,
 * b = 0 for the plain maximum likelihood).  Its derivative times x,
 *   h(x) = sum_j k_j c_j x / (exp(c_j x) - 1) + (a - 1) - (V + b) x,
 * is strictly decreasing, so the maximum is the one root of h, found by
 * Newton's method in ln x kept inside a bracket that bisects when a step
 * leaves it. */
#ifndef WA_ESTIMATE_H
#define WA_ESTIMATE_H

#include <stddef.h>
#include <stdint.h>

/* chi-square quantile 0.90 with one degree of freedom: a likelihood-ratio
 * interval keeps the x with 2 (l(xhat) - l(x)) <= this. */
#define LR_CHI2_90 2.705543454095404

/* Distinct change-interval lengths kept exactly; beyond, neighbouring
 * lengths are merged pairwise (count-weighted mean), which changes the
 * log-likelihood only to second order in their difference. */
#define CHANGE_LENGTHS_MAX 65536

struct change_data {
	double unchanged;	/* V: total length of the unchanged intervals */
	uint64_t changes;	/* C: number of change intervals */
	size_t n, cap;		/* distinct lengths held */
	double *len;
	double *count;
	size_t merges;		/* times lengths were merged */
};

void change_data_reset(struct change_data *d);
void change_data_add(struct change_data *d, double length);
void change_data_free(struct change_data *d);

/* The x > 0 maximising l(x) + (a - 1) ln x - b x; needs changes > 0 and
 * unchanged + b > 0. */
double ml_estimate(struct change_data *d, double a, double b);
/* The likelihood-ratio 90% interval around xhat for the same function. */
void ml_interval(struct change_data *d, double a, double b, double xhat,
    double *lower, double *upper);

/* Cho and Garcia-Molina's bias-reduced last-date-of-change estimator
 * ((X - 1) - X / (n ln(1 - X / n))) / T, n intervals, X changed. */
double lastmod_estimate(uint64_t n, uint64_t x, double t);

/* Regularised incomplete gamma functions P(a, z) and Q(a, z) = 1 - P. */
double gamma_p(double a, double z);
double gamma_q(double a, double z);
/* The p-quantile of Gamma(shape a, rate b). */
double gamma_quantile(double a, double b, double p);

#endif
