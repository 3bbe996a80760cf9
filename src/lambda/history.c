/* The history (man/wa-formats.5, "Observations and history") read one URL
 * at a time into its sufficient statistics. */
#include <stdlib.h>
#include <string.h>

#include "lambda.h"

#define SECONDS_PER_DAY 86400.0

static void
finish_page(struct lambda *l, history_fn *each)
{
	struct page *page = &l->page;

	if (page->obs == 0)
		return;
	hints_until(l, page, INT64_MAX);
	each(l, page);
	page->obs = 0;
	progress_set(&l->pg, ++l->pages_done);
}

/* The date of last change known at an observation at time t: its
 * Last-Modified d, else the latest lastmod of the sitemap hints. */
static int64_t
date_known(struct lambda *l, struct page *page, int64_t t, int64_t d)
{
	if (d >= 0)
		return d;
	d = hints_until(l, page, t);
	if (d >= 0)
		page->lastmod_hinted = true;
	return d;
}

static void
start_page(struct lambda *l, const char *url, int64_t t, int64_t d)
{
	struct page *page = &l->page;
	size_t len = strlen(url) + 1;

	if (len > page->url_size) {
		page->url_size = 2 * len;
		page->url = wa_realloc(page->url, page->url_size);
	}
	memcpy(page->url, url, len);
	page->hint_lastmod = -1;
	page->hint_rate = 0;
	page->lastmod_hinted = page->hint_corroborated = false;
	d = date_known(l, page, t, d);
	page->obs = 1;
	page->t_prev = t;
	page->all_lastmod = d >= 0;
	page->lastmod_agrees = true;
	page->lm_n = page->lm_x = page->lit_c = page->ml_n = 0;
	page->lm_t = page->lit_l = 0;
	if (d >= 0) {
		page->lit_c = 1;
		page->lit_l = (double)(t > d ? t - d : 0) / SECONDS_PER_DAY;
	}
	change_data_reset(&page->cd);
}

/* An observation at t after the page's last; d its date of last change
 * (-1: none), a sitemap's if hinted. */
static void
add_interval(struct page *page, int64_t t, char changed, int64_t d, bool hinted)
{
	double len = (double)(t - page->t_prev) / SECONDS_PER_DAY;

	if (changed == '1') {
		change_data_add(&page->cd, len);
		page->ml_n++;
	} else if (changed == '0') {
		page->cd.unchanged += len;
		page->ml_n++;
	}
	if (d < 0)
		page->all_lastmod = false;
	if (page->all_lastmod) {
		bool lm_changed = d > page->t_prev;
		if ((changed == '1' && !lm_changed) || (changed == '0' && lm_changed))
			page->lastmod_agrees = false;
		if (hinted && changed == '0' && !lm_changed)
			page->hint_corroborated = true;
		page->lm_n++;
		if (lm_changed) {
			double age = (double)(t > d ? t - d : 0) / SECONDS_PER_DAY;
			page->lm_x++;
			page->lm_t += age;
			page->lit_c++;
			page->lit_l += age;
		} else
			page->lm_t += len;
	}
	page->obs++;
	page->t_prev = t;
}

static void
read_history(struct lambda *l, const char *path, history_fn *each)
{
	struct page *page = &l->page;
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
		cmp = page->obs ? strcmp(t->col[0], page->url) : 1;
		if (cmp < 0)
			tsv_die(t, "not sorted by URL: %.200s after %.200s",
			    t->col[0], page->url);
		if (cmp > 0) {
			finish_page(l, each);
			start_page(l, t->col[0], time, lastmod);
			continue;
		}
		if (time < page->t_prev)
			tsv_die(t, "not sorted by time within %.200s: %lld after %lld",
			    page->url, (long long)time, (long long)page->t_prev);
		if (time == page->t_prev) {
			tsv_reject(t, "a second observation at the same time");
			continue;
		}
		int64_t d = date_known(l, page, time, lastmod);
		add_interval(page, time, c[0], d, d >= 0 && lastmod < 0);
	}
	tsv_close(t);
}

void
read_all(struct lambda *l, history_fn *each)
{
	hints_open(l);
	if (l->nfiles == 0)
		read_history(l, NULL, each);
	for (int i = 0; i < l->nfiles; i++)
		read_history(l, l->files[i], each);
	finish_page(l, each);
	hints_close(l, !l->fitting);
}

void
history_free(struct lambda *l)
{
	change_data_free(&l->page.cd);
	free(l->page.url);
}
