/* The matrix records, gathered by slice (linkmat.h).
 *
 * A sort of all the links would spill runs and merge them all.  The links
 * of one slice are a few of them: they are appended to the buffer of
 * their part (a range of slices), a full buffer to a scratch file as a
 * chunk; at the end each part alone goes through a sort, in memory unless
 * it is larger than the share, and its slices are written from there. */
#include <inttypes.h>
#include <stdlib.h>
#include <unistd.h>

#include "linkmat.h"
#include "scratch.h"
#include "wa.h"
#include "workdir.h"

/* Records in a buffer at most: chunks of 768K read back in one piece. */
#define MATRIX_CHUNK_MAX 65536
#define MATRIX_CHUNK_MIN 16

void
matrix_open(struct linkmat *lm, bool unique)
{
	struct matrix *m = &lm->matrix;
	m->nparts = lm->slices < MATRIX_PARTS_MAX ? lm->slices : MATRIX_PARTS_MAX;
	m->slices_per_part = (lm->slices + m->nparts - 1) / m->nparts;
	m->nparts = (lm->slices + m->slices_per_part - 1) / m->slices_per_part;
	uint64_t chunk = SHARE(lm, 1, 8) / m->nparts / MATRIX_RECORD;
	m->chunk = chunk > MATRIX_CHUNK_MAX ? MATRIX_CHUNK_MAX :
	    chunk < MATRIX_CHUNK_MIN ? MATRIX_CHUNK_MIN : (size_t)chunk;
	m->unique = unique;
	m->buf = wa_reallocarray(NULL, (size_t)m->nparts * m->chunk, MATRIX_RECORD);
	m->part = wa_calloc(m->nparts, sizeof *m->part);
	m->fd = -1;
}

void
matrix_flush_part(struct matrix *m, struct matrix_part *p)
{
	if (m->fd < 0)
		m->fd = scratch_open(workdir_path(), ".matrix");
	const uint8_t *buf = m->buf + (size_t)(p - m->part) * m->chunk * MATRIX_RECORD;
	if (!pwrite_full(m->fd, buf, p->fill * MATRIX_RECORD, m->file_end))
		wa_die_errno("cannot write to the scratch space in %s", workdir_path());
	if (p->nchunks == p->chunks_cap) {
		p->chunks_cap = p->chunks_cap ? 2 * p->chunks_cap : 8;
		p->chunk_off = wa_reallocarray(p->chunk_off, p->chunks_cap, sizeof *p->chunk_off);
	}
	p->chunk_off[p->nchunks++] = m->file_end;
	m->file_end += p->fill * MATRIX_RECORD;
	p->fill = 0;
}

struct extsort *
matrix_sort_part(struct linkmat *lm, uint32_t part, uint64_t budget)
{
	struct matrix *m = &lm->matrix;
	struct matrix_part *p = &m->part[part];
	struct extsort *s = extsort_new("matrix", workdir_path(), MATRIX_RECORD, budget,
	    m->unique ? EXTSORT_UNIQUE : 0);
	uint8_t *buf = m->buf + (size_t)part * m->chunk * MATRIX_RECORD;
	/* What the part's buffer holds, then the full chunks through it. */
	for (size_t c = 0, n = p->fill; c <= p->nchunks; n = m->chunk, c++) {
		if (c > 0) {
			ssize_t got = pread_full(m->fd, buf, n * MATRIX_RECORD, p->chunk_off[c - 1]);
			if (got != (ssize_t)(n * MATRIX_RECORD))
				wa_die_errno("cannot read back the scratch space in %s", workdir_path());
		}
		extsort_add_many(s, buf, n);
	}
	free(p->chunk_off);
	p->chunk_off = NULL;
	extsort_finish(s);
	return s;
}

void
matrix_close(struct matrix *m)
{
	for (uint32_t i = 0; m->part && i < m->nparts; i++)
		free(m->part[i].chunk_off);
	free(m->part);
	free(m->buf);
	if (m->fd >= 0)
		close(m->fd);
	*m = (struct matrix){ .fd = -1 };
}
