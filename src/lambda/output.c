/* The change rates (man/wa-formats.5, "Change rates"), with the rate
 * overrides ("Overrides") merged in by URL. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lambda.h"

static void
ov_advance(struct lambda *l)
{
	struct tsv *ov = l->ov;

	l->ov_have = false;
	while (ov && tsv_next(ov)) {
		if (!parse_double(ov->col[1], &l->ov_lambda) || !(l->ov_lambda > 0) ||
		    !isfinite(l->ov_lambda)) {
			tsv_reject(ov, "lambda is not a positive number: %.80s", ov->col[1]);
			continue;
		}
		free(l->ov_url);
		l->ov_url = wa_strdup(ov->col[0]);
		l->ov_have = true;
		return;
	}
}

void
output_open(struct lambda *l)
{
	if (l->overrides_path) {
		l->ov = tsv_open(l->overrides_path, 2, 0, 0);
		tsv_check_url(l->ov, 0);
		tsv_check_sorted(l->ov, 0, true);
		ov_advance(l);
	}
	if (l->output_path) {
		l->out_file = atomic_open(l->output_path);
		l->out = l->out_file->fp;
	} else
		l->out = stdout;
}

static void
print_row(FILE *out, const char *url, const struct estimate *e)
{
	static const char *const flag_name[] = { "none-changed", "all-changed",
	    "single", "no-observation", "sitemap-lastmod", "changefreq" };
	bool first = true;

	fprintf(out, "%s\t%.12g\t%s\t%llu\t%llu\t%.12g\t%.12g\t", url, e->lambda,
	    e->estimator, (unsigned long long)e->n, (unsigned long long)e->changes,
	    e->lower, e->upper);
	for (unsigned i = 0; i < sizeof flag_name / sizeof *flag_name; i++)
		if (e->flags & 1u << i) {
			fprintf(out, "%s%s", first ? "" : ",", flag_name[i]);
			first = false;
		}
	fputs(first ? "-\n" : "\n", out);
}

/* Emits the overrides of URLs before url (or all with url NULL) that have
 * no history, and applies the one for url if there is one. */
static void
apply_overrides(struct lambda *l, const char *url, struct estimate *e)
{
	while (l->ov_have && (url == NULL || strcmp(l->ov_url, url) < 0)) {
		struct estimate none = { l->ov_lambda, l->ov_lambda, l->ov_lambda,
		    "override", 0, 0, FLAG_NO_OBSERVATION };
		print_row(l->out, l->ov_url, &none);
		ov_advance(l);
	}
	if (url && l->ov_have && strcmp(l->ov_url, url) == 0) {
		e->lambda = e->lower = e->upper = l->ov_lambda;
		e->estimator = "override";
		ov_advance(l);
	}
}

/* The row of a URL of the history, with its override if there is one;
 * first, the overrides of the URLs before it that have no history. */
static void
write_rate(struct lambda *l, struct page *page)
{
	struct estimate e = { 0, 0, 0, NULL, 0, 0, 0 };
	estimate_rate(l, page, &e);
	apply_overrides(l, page->url, &e);
	print_row(l->out, page->url, &e);
}

void
write_all(struct lambda *l)
{
	progress_start(&l->pg, "URLs", 0);
	read_all(l, write_rate);
	apply_overrides(l, NULL, NULL);
	progress_end(&l->pg);
}

void
output_close(struct lambda *l)
{
	if (l->ov)
		tsv_close(l->ov);
	if (l->out_file)
		atomic_commit(l->out_file);
	else if (fflush(stdout) == EOF || ferror(stdout))
		wa_die_errno("standard output");
	free(l->ov_url);
}
