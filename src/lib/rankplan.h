/* The plan of a ranking run (wa-pagerank, wa-invrank): the parameters
 * given, and what follows from them, -m and the graph once, passed along
 * to every part of the run: where the vectors live, how much of the
 * matrix a thread reads at a time, how many pages a pass over whole
 * vectors views at once, and what the score files (scores.h) and
 * propagation blocking (propagate.h) may hold.
 *
 * A plan is made before the vectors of the run exist, for those it will
 * hold (struct rank_run).  Where the matrix goes is decided once the
 * engine has its slices open and knows the vectors it was given, which
 * may be fewer than planned (rank_plan_matrix). */
#ifndef WA_RANKPLAN_H
#define WA_RANKPLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "graph.h"
#include "vec.h"

enum rank_norm { RANK_L2, RANK_L1 };

/* The parameters of a ranking, as the options give them. */
struct rank_params {
	double damping;			/* c */
	double epsilon;			/* stop when the change is below */
	enum rank_norm norm;
	unsigned max_iterations;
	bool jacobi;			/* plain power iteration */
	bool plain;			/* Gauss-Seidel importance not extrapolated */
	bool renormalize;		/* importance by eq. 2.6-2.7; needs jacobi */
	bool transpose;			/* usefulness by the literal M^t */
	unsigned threads;		/* 1 to 64 */
	uint64_t memory;		/* -m: bytes the run may use */
};

/* The vectors a run holds beside the matrix, as planned. */
struct rank_run {
	bool importance, usefulness;
	bool personalised;		/* importance with an E of its own */
	uint64_t held;			/* bytes a page the caller holds beside the run */
	bool checked;			/* the matrix checked by a run before: only loaded */
};

/* Ids are cut into parts of 2^PROPAGATE_PART_BITS pages by propagation
 * blocking (propagate.h). */
#define PROPAGATE_PART_BITS 16

struct rank_plan {
	struct rank_params params;
	struct rank_run run;
	unsigned threads;		/* of the engine and of writing scores */
	uint64_t page_bytes;		/* the run's vectors, bytes a page */
	uint64_t widest_slice;		/* pages of the graph's widest slice */
	bool on_disk;			/* vectors in temporary files, viewed a range at a time */
	uint64_t run_bytes;		/* matrix a thread reads at a time */
	uint64_t chunk;			/* pages a pass over whole vectors views at once */
	uint64_t score_cache_bytes;	/* views of a score vector looked up in URL order */
	uint64_t type_cache_bytes;	/* the same of the pages' types */
	uint64_t group_bytes;		/* propagation in files: changes a group of parts holds */
};

/* The plan of run r of g under p: the vectors in memory when they fit -m
 * with the slice buffers, otherwise in scratch files (scratch.h) in
 * TMPDIR, of which each pass views a range of pages at a time (vec.h),
 * so that the process stays within -m, in address space too, and the
 * page cache holds what it can.  Dies if even the slice buffers do not
 * fit. */
void rank_plan(struct rank_plan *plan, const struct graph *g, const struct rank_params *p,
    const struct rank_run *r);
/* The plan of usefulness alone after the importance of plan, in the same
 * process: the importance vector held beside it (in memory if it was),
 * the matrix checked. */
void rank_plan_after(struct rank_plan *next, const struct rank_plan *plan,
    const struct graph *g);

/* Where the matrix of a run goes, for the vectors it holds. */
struct rank_matrix_plan {
	uint64_t matrix;		/* bytes of the slices' words */
	uint64_t vectors;		/* bytes of the vectors and buffers */
	bool streamed;			/* slices read from disk each pass */
	bool propagation;		/* Gauss-Seidel importance by propagation blocking */
	bool propagation_in_memory;	/* its streams fit beside the vectors and matrix */
	uint64_t propagation_limit;	/* in files: the most its build may hold */
};

/* From the open slices of g (slice_open) and the vectors of the run,
 * which may be fewer than plan's. */
void rank_plan_matrix(const struct rank_plan *plan, const struct graph *g,
    const struct slice *slices, bool importance, bool usefulness, bool personalised,
    struct rank_matrix_plan *mp);

/* The directory of temporary files: TMPDIR, or /tmp. */
const char *rank_temp_dir(void);
/* A scratch file (scratch.h) in that directory, of that many bytes,
 * zeros. */
int rank_temp_file(uint64_t bytes);
/* A zeroed vector of n doubles where the plan says. */
void rank_vector_new(const struct rank_plan *plan, uint64_t n, struct vec *v);
/* The end of the chunk of a pass over n pages that begins at lo. */
static inline uint64_t
rank_chunk_end(const struct rank_plan *plan, uint64_t n, uint64_t lo)
{
	return n - lo < plan->chunk ? n : lo + plan->chunk;
}

#endif
