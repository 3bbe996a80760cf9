#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic.h"
#include "msg.h"
#include "opt.h"
#include "scores.h"
#include "thread.h"
#include "tsv.h"

/* Rows of URL order that one thread formats at a time. */
#define FORMAT_ROWS 65536
static int
cmp_url(const char *a, size_t alen, const char *b)
{
	size_t blen = strlen(b);
	int c = memcmp(a, b, alen < blen ? alen : blen);
	return c ? c : (alen > blen) - (alen < blen);
}

/* url<TAB>value rows sorted by URL into out[id]; with subscription, the
 * value may be left out (1), and the first bad row is fatal. */
static uint64_t
read_weights(const struct graph *g, const struct rank_plan *plan, const char *path,
    struct vec *out, uint64_t *unknown, bool subscription)
{
	struct tsv *in = tsv_open(path, subscription ? 1 : 2, 0, subscription ? TSV_STRICT : 0);
	tsv_check_url(in, 0);
	tsv_check_sorted(in, 0, true);
	struct url_table t;
	url_table_open(g, &t);
	/* Ids come in URL order, not id order. */
	struct vec_cache score;
	vec_cache_open(&score, out, plan->score_cache_bytes, true);
	size_t len = 0;
	uint32_t id = 0;
	const char *u = url_table_next(&t, &len, &id);
	uint64_t matched = 0;
	double total = 0;
	*unknown = 0;
	while (tsv_next(in)) {
		double value = 1;
		if (subscription && in->ncol > 1 && !(parse_double(in->col[1], &value) &&
		    value >= 0))
			tsv_die(in, "bad weight '%.40s' (a number, at least 0)", in->col[1]);
		if (!subscription && (!parse_double(in->col[1], &value) || value < 0)) {
			tsv_reject(in, "bad score '%.40s' (a number, at least 0)", in->col[1]);
			continue;
		}
		/* Each is finite, but they are normalised by their sum: an
		 * infinite sum would make every page's share 0 or NaN. */
		total += value;
		if (isinf(total))
			tsv_die(in, "the values sum past %g: scale them down", DBL_MAX);
		int c;
		while (u && (c = cmp_url(u, len, in->col[0])) < 0)
			u = url_table_next(&t, &len, &id);
		if (u && c == 0) {
			*(double *)vec_cache_at(&score, id) = value;
			matched++;
		} else
			(*unknown)++;
	}
	vec_cache_close(&score);
	url_table_close(&t);
	tsv_close(in);
	return matched;
}

uint64_t
scores_read(const struct graph *g, const struct rank_plan *plan, const char *path,
    struct vec *out, uint64_t *unknown)
{
	return read_weights(g, plan, path, out, unknown, false);
}

uint64_t
scores_read_subscriptions(const struct graph *g, const struct rank_plan *plan,
    const char *path, struct vec *out, uint64_t *unknown)
{
	return read_weights(g, plan, path, out, unknown, true);
}

/* Rows that one thread turns into text at a time: the URLs and the scores
 * are gathered in order, the "%.17g" of every score (most of the time of
 * writing the scores) is done by the threads side by side. */
struct format_task {
	char *urls;			/* the rows' URLs, one after another */
	size_t urls_len, urls_cap;
	uint32_t len[FORMAT_ROWS];
	double score[FORMAT_ROWS];
	unsigned rows;
	char *text;
	size_t bytes, cap;
};

static void *
format_rows(void *arg)
{
	struct format_task *k = arg;
	k->bytes = 0;
	const char *url = k->urls;
	for (unsigned i = 0; i < k->rows; i++) {
		size_t need = k->bytes + k->len[i] + 32;
		if (need > k->cap) {
			k->cap = need * 2;
			k->text = wa_realloc(k->text, k->cap);
		}
		memcpy(k->text + k->bytes, url, k->len[i]);
		url += k->len[i];
		k->bytes += k->len[i];
		k->bytes += (size_t)snprintf(k->text + k->bytes, 32, "\t%.17g\n", k->score[i]);
	}
	return NULL;
}

void
scores_write_none(const char *path)
{
	struct atomic_file *af = path ? atomic_open(path) : NULL;
	if (af)
		atomic_commit(af);
}

void
scores_write(const struct graph *g, const struct rank_plan *plan, const struct vec *score,
    const char *path)
{
	struct atomic_file *af = path ? atomic_open(path) : NULL;
	FILE *f = af ? af->fp : stdout;
	struct url_table t;
	url_table_open(g, &t);
	struct vec_cache cache, type_cache;
	vec_cache_open(&cache, score, plan->score_cache_bytes, false);
	struct vec types;
	graph_vec(g, GF_TYPES, false, &types);
	vec_cache_open(&type_cache, &types, plan->type_cache_bytes, false);
	const unsigned nt = plan->threads;
	struct format_task *task = wa_calloc(nt, sizeof *task);
	pthread_t tid[WA_TEAM_MAX];
	for (bool more = true; more;) {
		for (unsigned k = 0; k < nt; k++) {
			struct format_task *ft = &task[k];
			size_t len;
			uint32_t id;
			ft->urls_len = 0;
			ft->rows = 0;
			while (more && ft->rows < FORMAT_ROWS) {
				const char *u = url_table_next(&t, &len, &id);
				if (!u) {
					more = false;
					break;
				}
				/* Robots files, sitemaps, dead pages... are known, not ranked. */
				if (!page_type_ranked(*(const uint8_t *)vec_cache_at(&type_cache, id)))
					continue;
				if (ft->urls_len + len > ft->urls_cap) {
					ft->urls_cap = (ft->urls_len + len) * 2;
					ft->urls = wa_realloc(ft->urls, ft->urls_cap);
				}
				memcpy(ft->urls + ft->urls_len, u, len);
				ft->urls_len += len;
				ft->len[ft->rows] = (uint32_t)len;
				ft->score[ft->rows++] = *(const double *)vec_cache_at(&cache, id);
			}
		}
		for (unsigned k = 1; k < nt; k++)
			if (wa_thread_start(&tid[k], format_rows, &task[k]) != 0)
				wa_die("cannot start a thread");
		format_rows(&task[0]);
		for (unsigned k = 1; k < nt; k++)
			pthread_join(tid[k], NULL);
		for (unsigned k = 0; k < nt; k++)
			if (task[k].bytes)
				fwrite(task[k].text, 1, task[k].bytes, f);
	}
	for (unsigned k = 0; k < nt; k++) {
		free(task[k].urls);
		free(task[k].text);
	}
	free(task);
	vec_cache_close(&cache);
	vec_cache_close(&type_cache);
	vec_free(&types);
	url_table_close(&t);
	if (af)
		atomic_commit(af);
	else if (fflush(stdout) != 0 || ferror(stdout))
		wa_die_errno("standard output");
}

bool
scores_is_vector(const char *path)
{
	FILE *f = fopen(path, "rb");
	unsigned char magic[4] = { 0 };
	if (!f)
		wa_die_errno("%s", path);
	size_t got = fread(magic, 1, sizeof magic, f);
	fclose(f);
	return got == 4 && memcmp(magic, "\x89WAB", 4) == 0;
}

void
scores_read_vector(const struct graph *g, const struct rank_plan *plan, const char *path,
    struct vec *v)
{
	struct bin_reader r;
	const char *msg = bin_reader_open(&r, path, "VEC8", 1, 8);
	if (msg)
		wa_die("%s", msg);
	if (r.h.count != g->nodes)
		wa_die("%s: a vector of %llu values, the graph has %llu pages", path,
		    (unsigned long long)r.h.count, (unsigned long long)g->nodes);
	/* aux[0] is 0 in vectors of older versions, and in a part (--slice)
	 * of this size, which starts at id 0. */
	if (r.h.aux[0] && r.h.aux[0] != graph_fingerprint(g))
		wa_die("%s: a vector of another graph of %llu pages (its URLs differ from "
		    "those of %s)", path, (unsigned long long)g->nodes, g->dir);
	for (uint64_t lo = 0, hi; lo < g->nodes; lo = hi) {
		hi = rank_chunk_end(plan, g->nodes, lo);
		double *to = vec_view(v, lo, hi, VEC_WRITE);
		size_t got;
		for (size_t done = 0; done < (hi - lo) * sizeof *to; done += got) {
			if ((msg = bin_read(&r, (char *)to + done, (hi - lo) * sizeof *to - done,
			    &got)))
				wa_die("%s", msg);
			if (got == 0)
				wa_die("%s: cut short", path);
		}
		vec_unview(v, to, lo, hi);
	}
	/* The read that reaches the end checks the payload CRC. */
	size_t got;
	char end;
	if ((msg = bin_read(&r, &end, 1, &got)))
		wa_die("%s", msg);
	bin_reader_close(&r);
}

/* Values [lo, hi) of v into w, a chunk at a time. */
static void
write_values(struct bin_writer *w, const struct rank_plan *plan, const struct vec *v,
    uint64_t lo, uint64_t hi)
{
	for (uint64_t at = lo, to; at < hi; at = to) {
		to = rank_chunk_end(plan, hi, at);
		const double *d = vec_view(v, at, to, VEC_READ);
		bin_write(w, d, (to - at) * sizeof *d);
		vec_unview(v, d, at, to);
	}
}

void
scores_write_vector(const struct graph *g, const struct rank_plan *plan, const char *path,
    const struct vec *v)
{
	struct bin_writer *w = bin_create(path, "VEC8", 1);
	write_values(w, plan, v, 0, v->n);
	bin_commit(w, v->n, (const uint64_t[3]){ graph_fingerprint(g), 0, 0 });
}

void
scores_write_vector_part(const struct rank_plan *plan, const char *path, const struct vec *v,
    uint64_t lo, uint64_t hi, uint64_t nodes)
{
	struct bin_writer *w = bin_create(path, "VEC8", 1);
	write_values(w, plan, v, lo, hi);
	bin_commit(w, hi - lo, (const uint64_t[3]){ lo, hi, nodes });
}
