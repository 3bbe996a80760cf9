/* The degrees, the slices and the manifest, from the sorts of the joins
 * (linkmat.h); the files go to the work directory. */
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "linkmat.h"
#include "wa.h"
#include "workdir.h"

/* A per-node degree file from its (count, id) records; returns the sum of
 * degree * graph_mix(id), which the matrix must match. */
static uint64_t
write_sorted_degrees(const struct linkmat *lm, struct extsort *deg, enum graph_file f)
{
	extsort_finish(deg);
	sort_done(graph_file_names[f], deg);
	struct graph_writer o;
	graph_writer_open(&o, workdir_path(), graph_file_names[f], graph_file_kinds[f]);
	uint64_t mix = 0;
	const uint8_t *r = extsort_next(deg);
	for (uint64_t id = 0; id < lm->n; id++) {
		uint64_t d = 0;
		for (; r && get32(r + 4) == id; r = extsort_next(deg))
			d += get32(r);
		if (d > UINT32_MAX)
			wa_die("internal error: degree %" PRIu64 " of id %" PRIu64, d, id);
		uint32_t v = (uint32_t)d;
		graph_writer_put(&o, &v, 4);
		mix += d * graph_mix(id);
	}
	if (r)
		wa_die("internal error: a degree for id %" PRIu32 " of %" PRIu64 " nodes",
		    get32(r + 4), lm->n);
	graph_writer_commit(&o, lm->n, NULL);
	extsort_free(deg);
	return mix;
}

/* A per-node degree file from the counts of the matrix. */
static void
write_counted_degrees(const struct linkmat *lm, const uint32_t *deg, enum graph_file f)
{
	struct graph_writer o;
	graph_writer_open(&o, workdir_path(), graph_file_names[f], graph_file_kinds[f]);
	graph_writer_put(&o, deg, lm->n * sizeof *deg);
	graph_writer_commit(&o, lm->n, NULL);
}

/* The degrees counted as the slices are written, when the join did not
 * count them (linkmat.h).  A slice holds every link to its pages, but
 * the links from a page are in every slice: several threads count them. */
struct counts {
	uint32_t *out, *in;
};

/* A part of the matrix, sorted and its slices written on a thread of the
 * pool, while the other threads do the next parts; what it adds to the
 * totals is added on the main thread, in order. */
struct part_job {
	struct linkmat *lm;
	struct counts *c;
	uint32_t part;
	uint64_t budget;
	struct graph_slice_writer sw;
	bool sw_open;
	uint64_t links, matrix_bytes, out_mix, in_mix;
	struct extsort *sorted;		/* if it spilled, for -v */
};

/* Writes slice k from the sorted matrix records of its part. */
static void
write_slice(struct part_job *j, uint32_t k, struct extsort *part, const uint8_t **r)
{
	const struct linkmat *lm = j->lm;
	struct counts *c = j->c;
	uint64_t lo = lm->bound[k], hi = lm->bound[k + 1];
	graph_slice_begin(&j->sw, lo, hi);
	for (; *r && get32(*r + 8) >> 1 == k; *r = extsort_next(part)) {
		bool internal = get32(*r + 8) & 1;
		uint32_t major = get32(*r + 4), minor = get32(*r);
		uint32_t s = internal ? minor : major, d = internal ? major : minor;
		if (d < lo || d >= hi || (internal && (s < lo || s >= hi)))
			wa_die("internal error: link %" PRIu32 " -> %" PRIu32 " in slice %" PRIu32,
			    s, d, k);
		graph_slice_add(&j->sw, internal, major, minor - lo);
		if (c->out) {
			__atomic_fetch_add(&c->out[s], 1, __ATOMIC_RELAXED);
			c->in[d]++;
		} else {
			j->out_mix += graph_mix(s);
			j->in_mix += graph_mix(d);
		}
	}
	j->matrix_bytes += graph_slice_commit(&j->sw, workdir_path(), k);
	j->links += j->sw.links;
}

static void
write_part(void *job)
{
	struct part_job *j = job;
	const struct matrix *m = &j->lm->matrix;
	if (!j->sw_open) {
		graph_slice_writer_open(&j->sw, workdir_path());
		j->sw_open = true;
	}
	j->links = j->matrix_bytes = j->out_mix = j->in_mix = 0;
	struct extsort *s = matrix_sort_part(j->lm, j->part, j->budget);
	const uint8_t *r = extsort_next(s);
	uint32_t first = j->part * m->slices_per_part, end = first + m->slices_per_part;
	for (uint32_t k = first; k < end && k < j->lm->slices; k++)
		write_slice(j, k, s, &r);
	if (r)
		wa_die("internal error: matrix records past the slices of their part");
	if (extsort_stats(s)->runs)
		j->sorted = s;
	else
		extsort_free(s);
}

static void
add_part(void *arg, void *job)
{
	struct linkmat *lm = arg;
	struct part_job *j = job;
	lm->links += j->links;
	lm->matrix_bytes += j->matrix_bytes;
	lm->out_mix += j->out_mix;
	lm->in_mix += j->in_mix;
	if (j->sorted) {
		sort_done("matrix part", j->sorted);
		extsort_free(j->sorted);
		j->sorted = NULL;
	}
	uint32_t end = (j->part + 1) * lm->matrix.slices_per_part;
	progress_set(&lm->pg, end < lm->slices ? end : lm->slices);
}

static void
free_part_job(void *job)
{
	struct part_job *j = job;
	extsort_free(j->sorted);
	if (j->sw_open)
		graph_slice_writer_close(&j->sw);
}

static void
write_slices(struct linkmat *lm, struct counts *c)
{
	struct matrix *m = &lm->matrix;
	verbose("  matrix: %" PRIu64 " records in %" PRIu32 " parts, %" PRIu64 " MB spilled",
	    m->added, m->nparts, m->file_end >> 20);
	/* A part sorts in its share of the parts that may be in memory at
	 * once, one for each slot of the pool. */
	unsigned threads = lm->nthreads > 1 ? lm->nthreads : 0;
	struct wa_pool pool;
	wa_pool_start(&pool, threads, 1, sizeof(struct part_job), write_part, add_part, lm);
	uint64_t budget = SHARE(lm, 3, 8) / pool.slots;
	progress_start(&lm->pg, "slices", lm->slices);
	for (uint32_t part = 0; part < m->nparts; part++) {
		struct part_job *j = wa_pool_next(&pool);
		j->lm = lm;
		j->c = c;
		j->part = part;
		j->budget = budget;
		wa_pool_submit(&pool, 0);
	}
	wa_pool_drain(&pool);
	wa_pool_stop(&pool, free_part_job);
	progress_end(&lm->pg);
	matrix_close(m);
	phase_done(lm, "slices");
}

static uint64_t
dir_bytes(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		wa_die_errno("%s", dir);
	uint64_t sum = 0;
	struct dirent *e;
	struct stat st;
	while ((e = readdir(d)))
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISREG(st.st_mode))
			sum += (uint64_t)st.st_size;
	closedir(d);
	return sum;
}

void
linkmat_write_matrix(struct linkmat *lm)
{
	if (lm->outdeg) {
		struct counts none = { 0 };
		uint64_t out_mix = write_sorted_degrees(lm, lm->outdeg, GF_OUTDEG);
		uint64_t in_mix = write_sorted_degrees(lm, lm->indeg, GF_INDEG);
		write_slices(lm, &none);
		if (out_mix != lm->out_mix || in_mix != lm->in_mix)
			wa_die("internal error: the degrees disagree with the matrix");
	} else {
		struct counts c = { wa_calloc(lm->n ? lm->n : 1, sizeof *c.out),
		    wa_calloc(lm->n ? lm->n : 1, sizeof *c.in) };
		write_slices(lm, &c);
		write_counted_degrees(lm, c.out, GF_OUTDEG);
		write_counted_degrees(lm, c.in, GF_INDEG);
		free(c.out);
		free(c.in);
		/* The matrix sort dropped the duplicates. */
		lm->new_links = lm->links - lm->old_kept;
	}
	graph_write_manifest(workdir_path(), lm->n, lm->links, lm->slices, lm->bound);
	lm->bytes = dir_bytes(workdir_path());
}

void
linkmat_summary(const struct linkmat *lm)
{
	char line[512];
	int n = snprintf(line, sizeof line, "%s: %" PRIu64 " nodes, %" PRIu64 " links",
	    lm->graph, lm->n, lm->links);
	if (lm->old_path)
		n += snprintf(line + n, sizeof line - (size_t)n, " (%" PRIu64 " new, %" PRIu64
		    " kept, %" PRIu64 " replaced)", lm->new_links, lm->old_kept, lm->old_dropped);
	n += snprintf(line + n, sizeof line - (size_t)n, ", %" PRIu32 " slices, %" PRIu64
	    " bytes", lm->slices, lm->bytes);
	if (lm->links)
		n += snprintf(line + n, sizeof line - (size_t)n, " (%.2f a link, %.2f in the "
		    "matrix)", (double)lm->bytes / lm->links, (double)lm->matrix_bytes / lm->links);
	snprintf(line + n, sizeof line - (size_t)n, "; %" PRIu64 " rows: %" PRIu64
	    " duplicate and %" PRIu64 " self links dropped, %" PRIu64 " rejected", lm->rows,
	    lm->link_rows - lm->new_links, lm->self_links, lm->rejected);
	wa_note("%s", line);
}
