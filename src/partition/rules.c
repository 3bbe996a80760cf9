/* The partition rules (wa-formats(5), "Partition rules"): read for -P and
 * -a, written from the placement, and applied to URLs by -a. */
#include <stdlib.h>
#include <string.h>

#include "partition.h"

size_t
find_range(char *const *first, size_t n, const char *key)
{
	size_t lo = 0, hi = n;	/* first[lo - 1] <= key < first[hi] */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(first[mid], key) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? lo - 1 : 0;
}

void
rules_load(const char *path, struct rules *r)
{
	struct tsv *t = tsv_open(path, 2, 2, TSV_STRICT);
	tsv_check_sorted(t, 0, true);
	size_t cap = 0;
	while (tsv_next(t)) {
		uint64_t part;
		if (t->col[0][0] == '\0')
			tsv_die(t, "empty key");
		if (!parse_u64(t->col[1], &part) || part >= UINT32_MAX)
			tsv_die(t, "bad part '%.40s'", t->col[1]);
		if (r->n == cap) {
			cap = cap ? 2 * cap : 1024;
			r->key = wa_reallocarray(r->key, cap, sizeof *r->key);
			r->part = wa_reallocarray(r->part, cap, sizeof *r->part);
		}
		r->key[r->n] = wa_strdup(t->col[0]);
		r->part[r->n++] = (uint32_t)part;
		if (part >= r->nparts)
			r->nparts = (uint32_t)part + 1;
	}
	tsv_close(t);
	if (r->n == 0)
		wa_die("%s: no rules", path);
}

void
rules_free(struct rules *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->key[i]);
	free(r->key);
	free(r->part);
}

/* The rules: runs of pieces in one part.  A piece of an empty superpage
 * takes the part of the piece before it (the first ones that of the piece
 * after), so that it adds no rule. */
static void
print_rules(struct partition *p, FILE *out)
{
	struct piece *pieces = p->pieces;
	size_t npieces = p->npieces;
	uint32_t *part = wa_calloc(npieces, sizeof *part), last = UINT32_MAX;
	for (size_t i = 0; i < npieces; i++)
		last = part[i] = p->sp[pieces[i].sp].part == UINT32_MAX ? last :
		    p->sp[pieces[i].sp].part;
	for (size_t i = npieces; i-- > 0;)
		last = part[i] = part[i] == UINT32_MAX ? last : part[i];
	/* The root's first piece starts at the empty key, which is no rule
	 * key: it starts at its first page instead, or goes if it has none. */
	size_t from = 0;
	if (pieces[0].key[0] == '\0') {
		if (npieces > 1 && strcmp(p->min_key, pieces[1].key) >= 0)
			from = 1;
		else {
			free(pieces[0].key);
			pieces[0].key = wa_strdup(p->min_key);
		}
	}
	last = UINT32_MAX;
	for (size_t i = from; i < npieces; i++) {
		if (part[i] == last)
			continue;
		if (fprintf(out, "%s\t%u\n", pieces[i].key, part[i]) < 0)
			wa_die_errno("%s", p->out_path ? p->out_path : "standard output");
		last = part[i];
	}
	free(part);
}

/* The largest part's weight over the average, and the fraction of the
 * links that cross parts. */
static void
measure_parts(const struct partition *p, double *max_over_avg, double *cross_fraction)
{
	const struct superpage *sp = p->sp;
	double *w = wa_calloc(p->nparts, sizeof *w), max = 0, cross = 0, links = 0;
	for (size_t j = 0; j < p->nsp; j++)
		if (sp[j].part != UINT32_MAX) {
			w[sp[j].part] += sp[j].weight;
			for (uint32_t e = sp[j].adj_start; e < sp[j].adj_end; e++)
				if (sp[p->adj[e].to].part != sp[j].part)
					cross += p->adj[e].links;
		}
	for (uint32_t i = 0; i < p->nparts; i++)
		if (w[i] > max)
			max = w[i];
	free(w);
	links = (double)p->nlinks;
	*max_over_avg = max / (p->total_weight / p->nparts);
	*cross_fraction = links ? cross / 2 / links : 0;
}

void
rules_write(struct partition *p, double *max_over_avg, double *cross_fraction)
{
	struct atomic_file *af = p->out_path ? atomic_open(p->out_path) : NULL;
	print_rules(p, af ? af->fp : stdout);
	measure_parts(p, max_over_avg, cross_fraction);
	if (af)
		atomic_commit(af);
	else if (fflush(stdout) == EOF || ferror(stdout))
		wa_die_errno("standard output");
}

void
rules_tag(struct partition *p, const char *path, const struct rules *r)
{
	char key[URL_BUFSIZE];
	struct tsv *t = tsv_open(path, 1, 0, 0);
	while (tsv_next(t)) {
		if (!input_url_key(t, t->col[0], key))
			continue;
		uint32_t part = r->part[find_range(r->key, r->n, key)];
		for (size_t i = 0; i < t->ncol; i++) {
			fputs_unlocked(t->col[i], stdout);
			putchar_unlocked('\t');
		}
		char num[16], *d = num + sizeof num;
		*--d = '\0';
		*--d = '\n';
		do
			*--d = (char)('0' + part % 10);
		while (part /= 10);
		fputs_unlocked(d, stdout);
		progress_set(&p->pg, p->pg.done + 1);
	}
	tsv_close(t);
}
