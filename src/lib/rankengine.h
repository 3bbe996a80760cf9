/* The engine of rank_compute (rank.h), private to rank.c, rankengine.c
 * and rankscan.c: the state of a run over the slices, and a slice's
 * sweep.  A run opens the engine (rankengine.c), sweeps every slice in
 * order (rankscan.c) and ends each sweep (rank.c). */
#ifndef WA_RANKENGINE_H
#define WA_RANKENGINE_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "graph.h"
#include "propagate.h"
#include "rank.h"
#include "thread.h"

struct engine;

struct change {
	double l1, l2;
};

/* What finishing the pages of a slice needs, copied into a local variable
 * by the loops that do it, so that the compiler keeps it in registers
 * (the vectors' stores could alias it in memory): the sweep's constants,
 * then this thread's totals over its pages. */
struct finish {
	double c, uniform_e, dangling;
	/* The vectors from the slice's first page, lo (a span's views). */
	const double *e;
	const uint32_t *outdeg;
	double *pr, *x, *next;
	const double *acc[2];		/* the sums of the first two threads */
	double *const *more_acc;	/* all threads', if more than two */
	unsigned nt;
	uint64_t lo;
	bool jacobi, renormalize;
	/* Propagation blocking (propagate.h): what the page received, what
	 * it sent, scaled as the sweep before ended; its change to send; pr
	 * and x as kept, divided by x_scale, by multiplying them by
	 * x_unscale: a division a page less, a sweep of 2^24 pages 2 to 7%
	 * faster side by side. */
	double *received, *sent, stale_scale, x_scale, x_unscale;
	uint16_t *change;
	double *before;			/* pr as the sweep began, if extrapolation wants it */
	struct change ch;
	double dangling_delta, unscaled;
};

/* A thread's view of x and r around the sources of the external links it
 * reads, moved on as they go up: the whole vectors when in memory. */
struct source_window {
	uint64_t lo, hi;
	const double *x;
	double *r;
};

/* The run's vectors over pages [lo, hi), each a view from page lo. */
struct span {
	uint64_t lo, hi;
	double *pr, *x, *next, *before, *u, *r, *sent, *received;
	const double *e, *e_use;
	const uint32_t *outdeg, *indeg;
};

struct worker {
	struct engine *e;
	unsigned t;
	double *acc;			/* importance: its sums of the slice's external links */
	double *use_sums;		/* usefulness: its sums into the slice's own sources */
	uint32_t *buf;			/* a run of streamed blocks */
	size_t buf_cap;
	const struct slice *s;
	uint64_t b0, b1;		/* its blocks of the section being scanned */
	uint64_t lo, hi;		/* the pages of the lane it works on */
	uint64_t next;			/* the next of them to finish */
	struct source_window win;	/* of the external section */
	uint64_t last_source;		/* of its blocks scanned so far */
	struct finish *fin;		/* that lane's importance totals */
	double extrapolated[2];		/* extrapolate_work: its sums */
	struct propagation_window window;
};

/* The internal section of a slice is cut into lanes, balanced on words
 * plus pages, whatever the number of threads, which take them in turn.  A
 * lane reads the pages of the others as the slice began, so that -j
 * changes no more than the grouping of sums: round-off. */
#define LANES_MAX 16

struct lane {
	uint64_t b0, b1;		/* its internal blocks */
	uint64_t lo, hi;		/* its pages */
	struct finish fin;
};

struct engine {
	const struct graph *g;
	const struct rank_plan *plan;
	const struct rank_params *p;	/* &plan->params */
	const struct rank_vectors *v;
	uint64_t n;
	struct vec outdeg, indeg;
	struct slice *slices;		/* the graph's, or the parts of propagation */
	uint32_t nslices;
	bool streamed;			/* slices read from disk each pass */
	bool propagating;		/* links between parts by propagation blocking */
	struct propagation pb;
	uint64_t max_slice_nodes;

	bool imp, use;
	/* Usefulness alone run as importance of the graph inverted (rank.h):
	 * v is then inverted_v, and outdeg and indeg are swapped. */
	bool inverted;
	struct rank_vectors inverted_v;
	struct span *span;		/* of the slice being scanned */
	/* importance */
	struct vec *pr, *next;		/* v->importance and, by Jacobi, other */
	struct vec x, other;		/* x = pr / outdeg, 0 when dangling */
	/* By propagation blocking, pr and x are kept divided by x_scale, the
	 * product of the sweeps' scalings to sum 1, so that a scaling costs
	 * no pass over them. */
	double x_scale;
	double *x_before;		/* the slice's x before its internal links */
	double dangling;		/* sum of pr over pages without out-links */
	/* Extrapolation (rank.c): before, pr as the sweep before the
	 * last began; the sweep that last extrapolated; the L1 changes of the
	 * last four sweeps, sweep k at k % 4. */
	struct vec before;
	bool remembering;		/* this sweep fills before */
	bool extrapolating;		/* extrapolate_work reads it */
	double extrapolation_factor;
	unsigned extrapolated_at;
	/* The change two sweeps after the last extrapolation was not below the
	 * one it was made on: the rates do not describe this iteration (on a
	 * chain with personalisation the changes swing), none more. */
	bool extrapolation_failed;
	double l1_history[4];
	double unscaled;		/* --renormalize: this sweep's |cM PR + (1-c)E| */
	/* usefulness */
	struct vec *u, r;		/* r: residual (Gauss-Seidel) or sums (Jacobi) */
	double *y;			/* what the current slice pushes, per node */
	bool pushing;			/* Gauss-Seidel past its first sweep */
	double pushed_e;		/* Gauss-Seidel: mass owed to E' so far */
	double *absorbed;		/* per slice: pushed_e when it last took its share */

	unsigned nt;
	struct worker *w;
	struct wa_team team;		/* one thread for each of w */
	double **acc;			/* each thread's */
	unsigned lanes;			/* of the slice being scanned */
	struct lane lane[LANES_MAX];
};

static inline void
change_add(struct change *c, double d)
{
	c->l1 += fabs(d);
	c->l2 += d * d;
}

static inline double
change_value(const struct change *c, enum rank_norm norm)
{
	return norm == RANK_L1 ? c->l1 : sqrt(c->l2);
}

/* rankengine.c */

/* The engine of a run of plan over g with the vectors v: the slices
 * open, loaded or checked as the matrix plan says, the parts of
 * propagation blocking built if it takes them, the run's other vectors
 * and buffers made, and the team of threads started. */
void engine_open(struct engine *e, const struct graph *g, const struct rank_plan *plan,
    const struct rank_vectors *v);
void engine_close(struct engine *e);
/* Before the first sweep of propagation blocking: every part sends its x
 * whole, and receives. */
void propagation_begin(struct engine *e);

/* rankscan.c */

/* Views of every vector of the run over pages [lo, hi), into sp; ended,
 * the written ones back to their files, by span_close. */
void span_open(const struct engine *e, struct span *sp, uint64_t lo, uint64_t hi);
void span_close(const struct engine *e, struct span *sp);
/* A pass over pages [first, end) a chunk of the plan at a time: sp, at
 * first an empty span at the first page (lo = hi = first), closed and
 * opened on the next chunk; false, sp closed, past end:
 *
 *	for (struct span sp = { 0 }; span_next(e, &sp, e->n);)
 */
bool span_next(const struct engine *e, struct span *sp, uint64_t end);
/* x from pr over a span: pr / outdeg, 0 for a page without out-links. */
void set_contributions(struct span *sp);
/* One slice of a sweep, its span of the vectors viewed meanwhile: its
 * changes of importance added into ci, of usefulness into cu. */
void sweep_slice(struct engine *e, const struct slice *s, struct change *ci, struct change *cu);
/* fn run by every thread of the team, each on its worker. */
void run_workers(struct engine *e, void *(*fn)(void *));
/* Part s, just computed, scatters its changes to the other parts. */
void scatter_part(struct engine *e, const struct slice *s);
/* Every thread its share of the other parts, for the gather into part s
 * or the scatter from it. */
void split_parts(struct engine *e, const struct slice *s, bool gather);
/* A thread's gather into the part of its worker from its parts [b0, b1),
 * the first thread starting from what the part received before. */
void *gather_work(void *arg);

#endif
