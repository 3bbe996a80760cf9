/* The parts of wa-lambda (wa-lambda(1)), which share one struct lambda:
 * the reading of the history one URL at a time (history.c) with the
 * sitemap hints merged in (hints.c), the prior
 * fitted in a first pass (prior.c), the estimate of each URL (rate.c) and
 * the output rows with the overrides merged in (output.c).
 * src/wa-lambda.c runs them. */
#ifndef WA_LAMBDA_H
#define WA_LAMBDA_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "estimate.h"
#include "sitemaphints.h"
#include "strmap.h"
#include "wa.h"

enum { FLAG_NONE_CHANGED = 1, FLAG_ALL_CHANGED = 2, FLAG_SINGLE = 4,
    FLAG_NO_OBSERVATION = 8, FLAG_SITEMAP_LASTMOD = 16, FLAG_CHANGEFREQ = 32 };

/* What one URL's observations leave: sufficient statistics only, so that
 * memory does not grow with the number of observations (estimate.h). */
struct page {
	char *url;
	size_t url_size;
	uint64_t obs;
	int64_t t_prev;
	bool all_lastmod;	/* every observation has a Last-Modified */
	bool lastmod_agrees;	/* and it agrees with the changed column */
	bool lastmod_hinted;	/* one of them is a sitemap's lastmod */
	/* and one of those saw an unchanged interval the fetches saw too */
	bool hint_corroborated;
	/* the sitemap hints read so far: the latest lastmod (-1: none) and
	 * the rate of the changefreq (0: none) */
	int64_t hint_lastmod;
	double hint_rate;
	size_t hint_sitemap;	/* the number of the sitemap that gave it */
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

/* What the first pass found of a sitemap's changefreq: of the pages whose
 * history can tell, how many refute it. */
struct sitemap_trust {
	uint64_t checked, refuted;
};

/* One output row but its URL. */
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

struct lambda {
	/* options */
	double prior_shape, prior_rate;
	bool prior_given;	/* --prior: no first pass */
	bool literal;
	const char *overrides_path, *output_path, *hints_path;
	char **files;		/* the HISTORY files; none: stdin */
	int nfiles;

	struct page page;	/* the URL being read */
	struct prior_fit *fitting;	/* the fit of the first pass */
	struct progress pg;
	uint64_t pages_done;

	FILE *out;
	struct atomic_file *out_file;	/* -o */

	/* the rate overrides, merged with the history by URL */
	struct tsv *ov;
	bool ov_have;		/* ov_url and ov_lambda hold the next one */
	char *ov_url;
	double ov_lambda;

	/* the sitemap hints, merged with the history by URL */
	struct tsv *hints;
	bool hint_have;		/* the hint_* hold the next row */
	char *hint_url;
	int64_t hint_lastmod;
	double hint_rate;
	size_t hint_sitemap;
	int64_t hint_url_latest;	/* the latest date of hint_url so far, or -1 */
	/* the sitemaps by number, and what the first pass found of each */
	struct strmap sitemaps;
	struct sitemap_trust *trust;
	size_t trust_cap;
};

/* history.c */
/* What a pass over the history does with each URL that has an observation. */
typedef void history_fn(struct lambda *l, struct page *p);
/* Reads the HISTORY files (stdin when none) as one stream sorted by URL,
 * then time, and hands every URL with its statistics to each; dies on a
 * stream out of order. */
void read_all(struct lambda *l, history_fn *each);
/* Frees the URL being read. */
void history_free(struct lambda *l);

/* hints.c */
/* Opens --hints for a pass, checking it is sorted; nothing without it. */
void hints_open(struct lambda *l);
/* Closes it, reporting its unusable rows if report. */
void hints_close(struct lambda *l, bool report);
/* Reads the hints of p's URL up to lastmod t into p->hint_lastmod and
 * p->hint_rate, skipping those of the URLs before it, and returns
 * p->hint_lastmod. */
int64_t hints_until(struct lambda *l, struct page *p, int64_t t);
/* Whether the changefreq of sitemap number i is believed: unless the
 * first pass found it refuted on more than half the pages it checked. */
bool sitemap_trusted(const struct lambda *l, size_t i);
/* Tells the sitemaps not believed; frees the table. */
void hints_free(struct lambda *l);

/* prior.c */
/* Fits the prior on the HISTORY files in a first pass, unless --prior was
 * given or one of them or --hints is not a regular file (stdin cannot be
 * read twice); notes the prior fitted, or that the default stays when the
 * history has no change. */
void fit_prior(struct lambda *l);

/* rate.c */
/* Whether the URL's rate comes from its Last-Modified dates. */
bool uses_lastmod(const struct page *p);
/* The changes X and the exposure E in days of the URL's estimator: X and
 * T with Last-Modified dates, else the changed intervals and the total
 * length of the counted ones. */
void page_counts(const struct page *p, double *x, double *e);
/* Fills e, zeroed by the caller, with the rate of a URL with at least one
 * observation, from its statistics and the prior. */
void estimate_rate(const struct lambda *l, struct page *p, struct estimate *e);
/* In the first pass: counts whether the page's history can check its
 * sitemap's changefreq, and whether it refutes it. */
void check_changefreq(struct lambda *l, struct page *p);

/* output.c */
/* Opens -O, checking it is sorted, and -o (stdout without it). */
void output_open(struct lambda *l);
/* The pass that writes: the row of every URL of the history, and those of
 * the overrides without history in their place. */
void write_all(struct lambda *l);
/* Closes -O and commits the output (stdout: flushes it, dying if that
 * fails). */
void output_close(struct lambda *l);

#endif
