#include <malloc.h>
#include <stdlib.h>
#include <unistd.h>

#include "msg.h"
#include "rankplan.h"
#include "scratch.h"
#include "thread.h"

/* A thread reads a streamed slice in runs of blocks of at most this size,
 * less when -m is small. */
#define RUN_MAX (4u << 20)
#define RUN_MIN (64u << 10)
/* Passes over whole vectors view them this many pages at a time, fewer
 * on disk when -m is small. */
#define RANK_CHUNK ((uint64_t)1 << 20)
#define RANK_CHUNK_MIN ((uint64_t)1 << 12)
/* The changes a group of parts holds before writing them, at most this
 * and a sixteenth of -m.  On the site graph of 2^24 pages (256 parts,
 * 7.7*10^7 links between them) a write a block is 65536 writes a sweep,
 * of 2.3 KiB on average; in 10 groups, 2560, and with -m 256M a sweep
 * took 0.59 s instead of 0.65 (means of three runs side by side). */
#define PENDING_BYTES_MAX ((uint64_t)16 << 20)

/* Whether a run takes propagation blocking: Gauss-Seidel on one ranking,
 * importance or usefulness (not its literal M^t, iterated as Jacobi).  For
 * importance, a graph of one part has no links between parts, and its own
 * slices, often smaller than a lane, make Gauss-Seidel exact page by page.
 * Usefulness takes it at every size: by the slices, without extrapolation,
 * it converged only as c on the graphs of documentation sites (100
 * iterations and more to 1e-9), and on the links inverted in 25. */
static bool
propagation_wanted(const struct graph *g, const struct rank_params *p, bool importance,
    bool usefulness)
{
	return importance != usefulness && !p->jacobi && !(usefulness && p->transpose) &&
	    (usefulness || g->nodes > (UINT64_C(1) << PROPAGATE_PART_BITS));
}

/* Whether usefulness runs as importance does, on the links inverted
 * (rank.h). */
static bool
inverted_usefulness(const struct graph *g, const struct rank_params *p, bool importance,
    bool usefulness)
{
	return usefulness && propagation_wanted(g, p, importance, usefulness);
}

/* Bytes of memory the streams of propagation blocking take, all in
 * memory, beside the slices: every link between parts, or within one (a
 * word), and the pairs of the parts being built; the offsets. */
static uint64_t
propagation_bytes(const struct graph *g)
{
	uint64_t parts = (g->nodes + (UINT64_C(1) << PROPAGATE_PART_BITS) - 1) >>
	    PROPAGATE_PART_BITS;
	return g->links * (2 + 2 + 2 + 4) + parts * parts * 8 * 4;
}

/* Bytes per page of the vectors a run holds. */
static uint64_t
page_bytes(const struct graph *g, const struct rank_params *p, uint64_t held, bool imp,
    bool use, bool personalised)
{
	uint64_t b = 8 + held;	/* out- and in-degree; the caller's */
	bool inverted = inverted_usefulness(g, p, imp, use);
	if (imp || inverted)	/* pr, x; E; Jacobi's next or extrapolation's before */
		b += 16 + (personalised || inverted ? 8 : 0) + (p->jacobi || !p->plain ? 8 : 0);
	if (propagation_wanted(g, p, imp, use))
		b += 16;		/* sent and received */
	if (use && !inverted)
		b += 24;
	return b;
}

static uint64_t
widest_slice(const struct graph *g)
{
	uint64_t most = 0;
	for (uint32_t k = 0; k < g->slices; k++)
		if (g->bound[k + 1] - g->bound[k] > most)
			most = g->bound[k + 1] - g->bound[k];
	return most;
}

/* Per page of the widest slice: the sums of every thread, and the slice's
 * x before its internal links (importance), or its y (usefulness). */
static uint64_t
slice_buffer_bytes(const struct rank_plan *plan, bool imp, bool use)
{
	return plan->widest_slice * 8 *
	    ((imp ? plan->threads + 1 : 0) + (use ? plan->threads + 1 : 0));
}

/* A quarter of what the buffers leave goes to the runs of matrix in
 * flight, one for each thread and one read ahead. */
static uint64_t
run_bytes(const struct rank_plan *plan, uint64_t buffers)
{
	uint64_t b = (plan->params.memory - buffers) / 4 / (plan->threads + 1);
	return b > RUN_MAX ? RUN_MAX : b < RUN_MIN ? RUN_MIN : b;
}

void
rank_plan(struct rank_plan *plan, const struct graph *g, const struct rank_params *p,
    const struct rank_run *r)
{
	/* The threads allocate little, and rarely: an arena of their own
	 * would reserve 64 MiB of address space each (glibc), more than a
	 * small -m leaves under ulimit -v beside the copies of the vectors. */
	mallopt(M_ARENA_MAX, 1);
	const uint64_t memory = p->memory;
	*plan = (struct rank_plan){
		.params = *p, .run = *r,
		.threads = p->threads < 1 ? 1 : p->threads > WA_TEAM_MAX ? WA_TEAM_MAX : p->threads,
		.page_bytes = page_bytes(g, p, r->held, r->importance, r->usefulness,
		    r->personalised),
		.widest_slice = widest_slice(g),
		.score_cache_bytes = memory / 8, .type_cache_bytes = memory / 64,
		.group_bytes = memory / 16 < PENDING_BYTES_MAX ? memory / 16 : PENDING_BYTES_MAX,
	};
	uint64_t buffers = slice_buffer_bytes(plan, r->importance, r->usefulness);
	uint64_t runs = (uint64_t)(plan->threads + 1) * RUN_MIN;
	plan->on_disk = buffers + runs > memory || g->nodes * plan->page_bytes + buffers +
	    (plan->threads + 1) * run_bytes(plan, buffers) > memory;
	/* On disk, the slice being scanned has every vector viewed. */
	if (plan->on_disk)
		buffers += plan->widest_slice * plan->page_bytes;
	if (buffers + runs > memory)
		wa_die("%s: slices of up to %llu pages need %llu MiB of buffers with %u threads, "
		    "more than -m %llu MiB (fewer threads, or a graph of more slices: "
		    "wa-linkmat -s)", g->dir, (unsigned long long)plan->widest_slice,
		    (unsigned long long)((buffers + runs) >> 20), plan->threads,
		    (unsigned long long)(memory >> 20));
	plan->run_bytes = run_bytes(plan, buffers);
	/* On disk, every thread's views of a pass over whole vectors take at
	 * most a quarter of the budget; in memory views cost nothing. */
	plan->chunk = RANK_CHUNK;
	if (plan->on_disk) {
		uint64_t c = memory / 4 / ((plan->threads + 1) * plan->page_bytes);
		plan->chunk = c < RANK_CHUNK_MIN ? RANK_CHUNK_MIN : c < RANK_CHUNK ? c : RANK_CHUNK;
	}
}

void
rank_plan_after(struct rank_plan *next, const struct rank_plan *plan, const struct graph *g)
{
	const struct rank_run r = { .usefulness = true,
	    .held = plan->on_disk ? 0 : sizeof(double), .checked = true };
	rank_plan(next, g, &plan->params, &r);
}

void
rank_plan_matrix(const struct rank_plan *plan, const struct graph *g,
    const struct slice *slices, bool importance, bool usefulness, bool personalised,
    struct rank_matrix_plan *mp)
{
	const struct rank_params *p = &plan->params;
	*mp = (struct rank_matrix_plan){ 0 };
	for (uint32_t k = 0; k < g->slices; k++)
		mp->matrix += slices[k].words * 4;
	mp->vectors = g->nodes * page_bytes(g, p, plan->run.held, importance, usefulness,
	    personalised) + slice_buffer_bytes(plan, importance, usefulness) +
	    (plan->threads + 1) * plan->run_bytes;
	mp->streamed = plan->on_disk || mp->vectors + mp->matrix > p->memory;
	/* Gauss-Seidel importance: the links between parts by propagation
	 * blocking, in memory if the budget holds them with the matrix, else
	 * in files, the build taking at most what the vectors and the matrix
	 * leave: it ends before the sweeps' buffers are taken. */
	mp->propagation = propagation_wanted(g, p, importance, usefulness);
	if (mp->propagation) {
		mp->propagation_in_memory = !mp->streamed &&
		    mp->vectors + mp->matrix + propagation_bytes(g) <= p->memory;
		uint64_t held = (plan->on_disk ? 0 : mp->vectors) + (mp->streamed ? 0 : mp->matrix);
		mp->propagation_limit = p->memory - held;
	}
}

const char *
rank_temp_dir(void)
{
	const char *dir = getenv("TMPDIR");
	return dir && *dir ? dir : "/tmp";
}

int
rank_temp_file(uint64_t bytes)
{
	int fd = scratch_try_open(rank_temp_dir(), "wa-rank");
	if (fd < 0)
		wa_die_errno("%s: cannot create a temporary file", rank_temp_dir());
	if (ftruncate(fd, (off_t)bytes) != 0)
		wa_die_errno("%s: cannot size a temporary file of %llu MiB", rank_temp_dir(),
		    (unsigned long long)(bytes >> 20));
	return fd;
}

void
rank_vector_new(const struct rank_plan *plan, uint64_t n, struct vec *v)
{
	char *name = wa_asprintf("%s: a temporary file", rank_temp_dir());
	vec_new(v, n, sizeof(double), plan->on_disk ? rank_temp_file(n * sizeof(double)) : -1,
	    name);
	free(name);
}
