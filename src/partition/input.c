/* The input of wa-partition: the links or URLs read once, their distinct
 * URLs sorted by GNU sort (sorter.h) and kept on disk as SURT keys with
 * their weights (the page file), and the links as pairs of SURT keys (the
 * link file), so that the URL tree is built in passes over the pages. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "linkstream.h"
#include "partition.h"
#include "sorter.h"

bool
input_url_key(struct tsv *t, const char *url, char key[URL_BUFSIZE])
{
	if (url_surt(url, key))
		return true;
	tsv_reject(t, "not a canonical URL: %.200s", url);
	return false;
}

static void
read_links(struct partition *p, const char *path, struct sorter *so)
{
	char src[URL_BUFSIZE], dst[URL_BUFSIZE];
	struct tsv *t = tsv_open(path, p->urls_only ? 1 : LINKS_MIN_COLUMNS, 0, 0);
	while (tsv_next(t)) {
		/* The URL of a URL list stands where a link's source does. */
		struct link_row link = { .src = t->col[LINKS_SRC] };
		if (!p->urls_only)
			links_row(t->col, t->ncol, &link);
		if (!input_url_key(t, link.src, src) ||
		    (!p->urls_only && !input_url_key(t, link.dst, dst)))
			continue;
		/* Links come grouped by source: one of each group is enough. */
		if (strcmp(link.src, p->last_src) != 0) {
			if (fprintf(so->in, "%s\n", link.src) < 0)
				sorter_close_input(so);
			strcpy(p->last_src, link.src);
		}
		if (!p->urls_only) {
			if (fprintf(so->in, "%s\n", link.dst) < 0)
				sorter_close_input(so);
			if (fprintf(p->link_file, "%s\t%s\n", src, dst) < 0)
				wa_die_errno("temporary link file");
			p->nlinks++;
		}
		progress_set(&p->pg, p->pg.done + 1);
	}
	tsv_close(t);
}

/* The distinct URLs, sorted, joined with their weights, written to the
 * page file as SURT key and weight. */
static void
write_pages(struct partition *p, struct sorter *so)
{
	char key[URL_BUFSIZE];
	struct tsv *wt = NULL;
	bool more = false;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	if (p->weights_path) {
		wt = tsv_open(p->weights_path, 2, 0, TSV_STRICT);
		tsv_check_url(wt, 0);
		tsv_check_sorted(wt, 0, true);
		more = tsv_next(wt);
	}
	while ((n = getline(&line, &cap, so->out)) > 0) {
		line[n - 1] = '\0';
		double w = 1;
		while (more && strcmp(wt->col[0], line) < 0)
			more = tsv_next(wt);
		if (more && strcmp(wt->col[0], line) == 0 &&
		    (!parse_double(wt->col[1], &w) || !(w > 0)))
			tsv_die(wt, "bad weight '%.40s' (a positive number)", wt->col[1]);
		if (!url_surt(line, key))
			wa_die("internal error: %s lost its canonical form", line);
		if (fprintf(p->page_file, "%s\t%.17g\n", key, w) < 0)
			wa_die_errno("temporary page file");
		if (!p->min_key || strcmp(key, p->min_key) < 0) {
			free(p->min_key);
			p->min_key = wa_strdup(key);
		}
		p->total_weight += w;
		/* Each is finite; loads and the ideal share are their sums. */
		if (isinf(p->total_weight))
			tsv_die(wt, "the weights sum past %g: scale them down", DBL_MAX);
		p->npages++;
	}
	if (ferror(so->out))
		wa_die_errno("sort of the URLs");
	free(line);
	/* The rows past the last URL are read too, so that their order is
	 * checked like the others'. */
	while (more)
		more = tsv_next(wt);
	if (wt)
		tsv_close(wt);
	if (fflush(p->page_file) == EOF || ferror(p->page_file))
		wa_die_errno("temporary page file");
}

void
input_read_rates(struct partition *p)
{
	struct tsv *t = tsv_open(p->rates_path, 3, 3, TSV_STRICT);
	while (tsv_next(t)) {
		uint64_t part;
		double r;
		if (!parse_u64(t->col[0], &part) || part >= p->nparts)
			tsv_die(t, "bad part '%.40s' (0 to %u)", t->col[0], p->nparts - 1);
		if (!parse_double(t->col[2], &r) || !(r > 0))
			tsv_die(t, "bad rate '%.40s' (a positive number)", t->col[2]);
		p->rate_rows = wa_reallocarray(p->rate_rows, p->nrate_rows + 1, sizeof *p->rate_rows);
		p->rate_rows[p->nrate_rows++] = (struct rate_row){ (uint32_t)part,
		    wa_strdup(t->col[1]), r };
	}
	tsv_close(t);
}

void
input_read(struct partition *p, char **paths, int npaths)
{
	struct sorter so;

	if (!(p->page_file = tmpfile()) || (!p->urls_only && !(p->link_file = tmpfile())))
		wa_die_errno("temporary file");
	progress_start(&p->pg, "rows", 0);
	sorter_start(&so, "URLs", p->sort_memory, 1, NULL, true, -1);
	if (npaths == 0)
		read_links(p, NULL, &so);
	for (int i = 0; i < npaths; i++)
		read_links(p, paths[i], &so);
	sorter_close_input(&so);
	write_pages(p, &so);
	sorter_finish(&so);
	if (p->npages == 0)
		wa_die("no URLs in the input");
	if (p->link_file && (fflush(p->link_file) == EOF || ferror(p->link_file)))
		wa_die_errno("temporary link file");
}

void
pages_rewind(struct partition *p)
{
	if (fseek(p->page_file, 0, SEEK_SET) != 0)
		wa_die_errno("temporary page file");
}

bool
pages_next(struct partition *p, char **line, size_t *cap, size_t *keylen, double *w)
{
	ssize_t n = getline(line, cap, p->page_file);
	if (n < 0) {
		if (ferror(p->page_file))
			wa_die_errno("temporary page file");
		return false;
	}
	char *tab = strrchr(*line, '\t');
	*tab = '\0';
	*keylen = (size_t)(tab - *line);
	*w = strtod(tab + 1, NULL);
	return true;
}
