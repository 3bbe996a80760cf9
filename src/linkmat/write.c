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
write_degrees(const struct linkmat *lm, struct extsort *deg, enum graph_file f)
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

/* Writes slice k from the matrix records of that slice. */
static void
write_slice(struct linkmat *lm, uint32_t k, const uint8_t **r, struct graph_slice_writer *sw)
{
	uint64_t lo = lm->bound[k], hi = lm->bound[k + 1];
	graph_slice_begin(sw, lo, hi);
	for (; *r && get32(*r + 8) >> 1 == k; *r = extsort_next(lm->matrix)) {
		bool internal = get32(*r + 8) & 1;
		uint32_t major = get32(*r + 4), minor = get32(*r);
		uint32_t s = internal ? minor : major, d = internal ? major : minor;
		if (d < lo || d >= hi || (internal && (s < lo || s >= hi)))
			wa_die("internal error: link %" PRIu32 " -> %" PRIu32 " in slice %" PRIu32,
			    s, d, k);
		graph_slice_add(sw, internal, major, minor - lo);
		lm->out_mix += graph_mix(s);
		lm->in_mix += graph_mix(d);
	}
	lm->matrix_bytes += graph_slice_commit(sw, workdir_path(), k);
	lm->links += sw->links;
}

static void
write_slices(struct linkmat *lm)
{
	struct graph_slice_writer sw;
	graph_slice_writer_open(&sw, workdir_path());
	extsort_finish(lm->matrix);
	sort_done("matrix", lm->matrix);
	progress_start(&lm->pg, "slices", lm->slices);
	const uint8_t *r = extsort_next(lm->matrix);
	for (uint32_t k = 0; k < lm->slices; k++) {
		write_slice(lm, k, &r, &sw);
		progress_set(&lm->pg, k + 1);
	}
	progress_end(&lm->pg);
	if (r)
		wa_die("internal error: matrix records past the last slice");
	graph_slice_writer_close(&sw);
	extsort_free(lm->matrix);
	lm->matrix = NULL;
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
	uint64_t out_mix = write_degrees(lm, lm->outdeg, GF_OUTDEG);
	uint64_t in_mix = write_degrees(lm, lm->indeg, GF_INDEG);
	write_slices(lm);
	if (out_mix != lm->out_mix || in_mix != lm->in_mix)
		wa_die("internal error: the degrees disagree with the matrix");
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
