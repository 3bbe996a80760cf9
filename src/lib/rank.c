#include <float.h>
#include <malloc.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "atomic.h"
#include "msg.h"
#include "progress.h"
#include "propagate.h"
#include "rank.h"
#include "thread.h"
#include "tsv.h"
#include "opt.h"

/* A thread reads a streamed slice in runs of blocks of at most this size,
 * less when -m is small. */
#define RUN_MAX (4u << 20)
#define RUN_MIN (64u << 10)
/* Passes over whole vectors view them this many pages at a time, fewer
 * on disk when -m is small. */
#define RANK_CHUNK ((uint64_t)1 << 20)
#define RANK_CHUNK_MIN ((uint64_t)1 << 12)

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
#define LANE_PAGES 4096		/* a lane for every this many pages of a slice */
/* A part of propagation blocking (propagate.h) has a lane more than it has
 * this many pages, five: on a generated site graph of 2^24 pages
 * Gauss-Seidel took 41 iterations to an L1 change of 1e-9 so (40 with
 * five equal lanes), against 40 with one lane, 46 with four equal ones
 * and 59 with eight: the fewer lanes, the more links within a part see
 * the values of this sweep. */
#define PART_LANE_PAGES 16384

struct lane {
	uint64_t b0, b1;		/* its internal blocks */
	uint64_t lo, hi;		/* its pages */
	struct finish fin;
};

struct engine {
	const struct graph *g;
	const struct rank_params *p;
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
	/* Extrapolation (extrapolate()): before, pr as the sweep before the
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

static void
change_add(struct change *c, double d)
{
	c->l1 += fabs(d);
	c->l2 += d * d;
}

static double
change_value(const struct change *c, enum rank_norm norm)
{
	return norm == RANK_L1 ? c->l1 : sqrt(c->l2);
}


/* Views of every vector of the run over pages [lo, hi). */
static void
span_open(const struct engine *e, struct span *sp, uint64_t lo, uint64_t hi)
{
	const struct vec *pb_sent = e->propagating ? &e->pb.sent : NULL;
	const struct vec *pb_received = e->propagating ? &e->pb.received : NULL;
	/* before only when a sweep fills it, every page, or extrapolation
	 * reads it; E, E' and the degrees are read only. */
	enum vec_use before = e->extrapolating ? VEC_READ : VEC_FILL;
#define VIEW(v, use) ((v) && vec_exists(v) ? vec_view((v), lo, hi, (use)) : NULL)
	*sp = (struct span){
		.lo = lo, .hi = hi,
		.pr = VIEW(e->pr, VEC_WRITE), .x = VIEW(&e->x, VEC_WRITE),
		.next = VIEW(e->next, VEC_WRITE),
		.before = e->remembering || e->extrapolating ? VIEW(&e->before, before) : NULL,
		.u = VIEW(e->u, VEC_WRITE), .r = VIEW(&e->r, VEC_WRITE),
		.sent = VIEW(pb_sent, VEC_WRITE), .received = VIEW(pb_received, VEC_WRITE),
		.e = VIEW(e->v->e, VEC_READ), .e_use = VIEW(e->v->e_use, VEC_READ),
		.outdeg = VIEW(&e->outdeg, VEC_READ),
		.indeg = e->use ? VIEW(&e->indeg, VEC_READ) : NULL,
	};
#undef VIEW
}

static void
span_close(const struct engine *e, struct span *sp)
{
	uint64_t lo = sp->lo, hi = sp->hi;
	const void *view[] = { sp->pr, sp->x, sp->next, sp->before, sp->u, sp->r, sp->sent,
		sp->received, sp->e, sp->e_use, sp->outdeg, sp->indeg };
	const struct vec *vec[] = { e->pr, &e->x, e->next, &e->before, e->u, &e->r,
		&e->pb.sent, &e->pb.received, e->v->e, e->v->e_use, &e->outdeg, &e->indeg };
	for (size_t i = 0; i < sizeof view / sizeof view[0]; i++)
		if (view[i])
			vec_unview(vec[i], view[i], lo, hi);
	sp->lo = sp->hi = 0;
}

/* x from pr over a span: pr / outdeg, 0 for a page without out-links. */
static void
set_contributions(struct span *sp)
{
	for (uint64_t i = 0; i < sp->hi - sp->lo; i++)
		sp->x[i] = sp->outdeg[i] ? sp->pr[i] / sp->outdeg[i] : 0;
}

/* pr times scale, then x from pr and the dangling sum, over all pages. */
static void
refresh_importance(struct engine *e, double scale)
{
	double d = 0;
	for (uint64_t lo = 0, hi; lo < e->n; lo = hi) {
		hi = rank_chunk_end(e->p, e->n, lo);
		struct span sp;
		span_open(e, &sp, lo, hi);
		if (scale != 1)
			for (uint64_t i = 0; i < hi - lo; i++)
				sp.pr[i] *= scale;
		set_contributions(&sp);
		for (uint64_t i = 0; i < hi - lo; i++)
			if (!sp.outdeg[i])
				d += sp.pr[i];
		span_close(e, &sp);
	}
	e->dangling = d;
}

/* On disk, the end of a window: its sums of r go back to the file for the
 * sources [w->lo, end), which this thread owns (it owns the sources of its
 * blocks, and whatever lies between them) less the slice's own pages,
 * which are no external sources and which the slice's span holds. */
static void
source_window_end(const struct engine *e, const struct slice *s, struct source_window *w,
    uint64_t end)
{
	if (w->r) {
		uint64_t below = end < s->lo ? end : s->lo, above = w->lo > s->hi ? w->lo : s->hi;
		if (w->lo < below)
			vec_write(&e->r, w->lo, below, w->r);
		if (above < end)
			vec_write(&e->r, above, end, w->r + (above - w->lo));
	}
	vec_unview(&e->x, w->x, w->lo, w->hi);
	vec_unview(&e->r, w->r, w->lo, w->hi);
	*w = (struct source_window){ 0 };
}

/* On disk, the window moved on to the sources from src, x and r copied
 * in as many as run_bytes of each hold. */
static void
source_window_move(const struct engine *e, const struct slice *s, struct source_window *w,
    uint64_t src)
{
	source_window_end(e, s, w, w->hi < src ? w->hi : src);
	uint64_t pages = e->p->run_bytes / sizeof(double);
	w->lo = src;
	w->hi = e->n - src < pages ? e->n : src + pages;
	w->x = e->imp ? vec_view(&e->x, w->lo, w->hi, VEC_READ) : NULL;
	w->r = e->use ? vec_view(&e->r, w->lo, w->hi, VEC_READ) : NULL;
}

/* In memory, the whole vectors, at no cost; on disk, none yet. */
static void
source_window_open(const struct engine *e, struct source_window *w)
{
	*w = (struct source_window){ 0 };
	if (!e->p->on_disk)
		*w = (struct source_window){ .lo = 0, .hi = e->n,
		    .x = e->imp ? vec_view(&e->x, 0, e->n, VEC_READ) : NULL,
		    .r = e->use ? vec_view(&e->r, 0, e->n, VEC_WRITE) : NULL };
}

/* External links of blocks [b0, b1) in buf: importance sums into acc
 * from x, usefulness sums into r[src] from the slice's y, x and r through
 * the window, which moves on as the sources go up when windowed (the
 * vectors on disk).  One function with the flags constant at each call,
 * so the compiler makes one loop per mode.  Returns the last source. */
static inline uint64_t
scan_external(const struct engine *e, const struct slice *s, uint64_t b0, uint64_t b1,
    const uint32_t *buf, bool imp, bool use, bool windowed, struct source_window *win,
    double *acc, const double *y)
{
	const uint32_t *base = buf - s->block_off[b0];
	const unsigned bits = s->bits;
	const double *x = win->x;
	double *r = win->r;
	uint64_t lo = win->lo, hi = win->hi, src = 0;
	for (uint64_t b = b0; b < b1; b++) {
		const uint32_t *p = base + s->block_off[b], *end = base + s->block_off[b + 1];
		src = s->block_first[b];
		while (p < end) {
			uint32_t d = slice_word(&p, &src, bits);
			if (windowed && src >= hi) {
				source_window_move(e, s, win, src);
				x = win->x;
				r = win->r;
				lo = win->lo;
				hi = win->hi;
			}
			uint64_t at = windowed ? src - lo : src;
			if (imp)
				acc[d] += x[at];
			if (use)
				r[at] += y[d];
		}
	}
	return src;
}

/* The new importance of page j from its internal sum, into pr
 * (Gauss-Seidel, with x at once, for the pages after it) or next (Jacobi;
 * with renormalize the sweep is scaled at its end). */
static inline __attribute__((always_inline)) void
finish_page(struct finish *f, uint64_t j, double sum)
{
	uint64_t i = j - f->lo;
	double external = f->acc[0][i];
	if (f->nt == 2) {
		external += f->acc[1][i];
	} else if (f->nt > 2) {
		for (unsigned t = 1; t < f->nt; t++)
			external += f->more_acc[t][i];
	}
	sum = sum * f->x_scale + external;
	if (f->received)
		f->received[i] = external;
	double ej = f->e ? f->e[i] : f->uniform_e, old = f->pr[i] * f->x_scale;
	/* The dangling pages' rank as this thread knows it: Gauss-Seidel again. */
	double v = f->c * sum + (1 - f->c) * ej;
	if (!f->renormalize)
		v += f->c * (f->dangling + f->dangling_delta) * ej;
	f->unscaled += v;
	if (!f->renormalize)	/* that one changes at the end */
		change_add(&f->ch, v - old);
	if (f->before)
		f->before[i] = old;
	uint32_t deg = f->outdeg[i];
	if (f->jacobi) {
		f->next[i] = v;
	} else {
		if (!deg)
			f->dangling_delta += v - old;
		double x = deg ? v / deg : 0;
		f->pr[i] = v * f->x_unscale;
		f->x[i] = x * f->x_unscale;
		if (f->sent)
			f->change[i] = propagation_change(x, &f->sent[i], f->stale_scale);
	}
}

/* x of a source within the slice: this sweep's if among the own_pages
 * pages from own, the thread's, else as the slice began. */
static inline __attribute__((always_inline)) double
source_x(const double *x, const double *x_other, uint64_t own, uint64_t own_pages,
    uint32_t src)
{
	return (src - own < own_pages ? x : x_other)[src];
}

/* Internal links of blocks [b0, b1), destinations in order, each summed
 * from the sources and finished before the next: Gauss-Seidel within the
 * slice as well as between slices.  A source among this thread's pages
 * has its value of this sweep if it comes first; one among another
 * thread's, the value the slice began with, whatever the timing.
 * Usefulness sums into use_sums from y.  Returns the next page to finish.
 * Inlined by force, so that each call has its own loop for its flags: gcc
 * kept one copy, the flags tested for every link. */
static inline __attribute__((always_inline)) uint64_t
scan_internal(struct engine *e, struct worker *w, uint64_t b0, uint64_t b1,
    const uint32_t *buf, uint64_t next, bool imp, bool use)
{
	const struct slice *s = w->s;
	const uint32_t *base = buf - s->block_off[b0];
	const unsigned bits = s->bits;
	const double *x = e->span->x, *y = e->y;
	const double *x_other = e->p->jacobi || e->lanes == 1 ? x : e->x_before;
	const uint64_t own = w->lo - s->lo, own_pages = w->hi - w->lo;
	const uint32_t same_dst = (UINT32_C(1) << bits) - 1;	/* a word at most this: delta 0 */
	struct finish fin = *w->fin, *f = &fin;
	for (uint64_t b = b0; b < b1; b++) {
		const uint32_t *p = base + s->block_off[b], *end = base + s->block_off[b + 1];
		uint64_t dst = s->block_first[b];
		if (imp)
			for (; next < dst; next++)
				finish_page(f, next, 0);
		double sum = 0;
		while (p < end) {
			if (*p > same_dst) {	/* the next destination */
				uint64_t at = dst;
				uint32_t src = slice_word(&p, &dst, bits);
				if (imp) {
					finish_page(f, at, sum);
					for (next = at + 1; next < dst; next++)
						finish_page(f, next, 0);
					sum = source_x(x, x_other, own, own_pages, src);
				}
				if (use)
					w->use_sums[src] += y[dst - s->lo];
			}
			/* The other links into dst, each word its source: a
			 * loop of its own, whose few variables stay in
			 * registers, away from finish_page's many (in one
			 * loop, gcc kept the word pointer and the bounds on
			 * the stack; a sweep of 2^24 pages took 20% longer). */
			const double y_dst = use ? y[dst - s->lo] : 0;
			for (; p < end && *p <= same_dst; p++) {
				if (imp)
					sum += source_x(x, x_other, own, own_pages, *p);
				if (use)
					w->use_sums[*p] += y_dst;
			}
		}
		if (imp) {
			finish_page(f, dst, sum);
			next = dst + 1;
		}
	}
	*w->fin = fin;
	return next;
}

/* The blocks [b0, b1) of one section, in buf. */
static void
scan_blocks(struct worker *w, bool internal, uint64_t b0, uint64_t b1, const uint32_t *buf)
{
	struct engine *e = w->e;
	const struct slice *s = w->s;
	if (internal) {
		if (e->imp && e->use)
			w->next = scan_internal(e, w, b0, b1, buf, w->next, true, true);
		else if (e->imp)
			w->next = scan_internal(e, w, b0, b1, buf, w->next, true, false);
		else
			scan_internal(e, w, b0, b1, buf, w->next, false, true);
		return;
	}
	bool imp = e->imp, use = e->use;
	uint64_t last;
	if (e->p->on_disk && imp && use)
		last = scan_external(e, s, b0, b1, buf, true, true, true, &w->win, w->acc, e->y);
	else if (e->p->on_disk && imp)
		last = scan_external(e, s, b0, b1, buf, true, false, true, &w->win, w->acc, NULL);
	else if (e->p->on_disk)
		last = scan_external(e, s, b0, b1, buf, false, true, true, &w->win, NULL, e->y);
	else if (imp && use)
		last = scan_external(e, s, b0, b1, buf, true, true, false, &w->win, w->acc, e->y);
	else if (imp)
		last = scan_external(e, s, b0, b1, buf, true, false, false, &w->win, w->acc, NULL);
	else
		last = scan_external(e, s, b0, b1, buf, false, true, false, &w->win, NULL, e->y);
	if (b1 > b0)
		w->last_source = last;
}

/* A thread's blocks of one section, from memory or read a run at a time. */
static void
scan_section(struct worker *w, bool internal)
{
	const struct slice *s = w->s;
	if (!w->e->streamed) {
		if (w->b0 < w->b1)
			scan_blocks(w, internal, w->b0, w->b1, s->data + s->block_off[w->b0]);
		return;
	}
	for (uint64_t b0 = w->b0, b1; b0 < w->b1; b0 = b1) {
		b1 = slice_read_run(s, b0, w->b1, w->e->p->run_bytes, &w->buf, &w->buf_cap);
		scan_blocks(w, internal, b0, b1, w->buf);
	}
}

static void *
external_work(void *arg)
{
	struct worker *w = arg;
	if (w->e->imp)
		memset(w->acc, 0, (w->s->hi - w->s->lo) * sizeof *w->acc);
	source_window_open(w->e, &w->win);
	scan_section(w, false);
	if (w->e->p->on_disk && w->win.hi)
		source_window_end(w->e, w->s, &w->win, w->last_source + 1);
	return NULL;
}

static void
run_workers(struct engine *e, void *(*fn)(void *))
{
	wa_team_run(&e->team, fn);
}

/* The slice, a part about to be computed: the sums from the parts [b0, b1),
 * the first thread starting from what the part received before. */
static void *
gather_work(void *arg)
{
	struct worker *w = arg;
	struct engine *e = w->e;
	propagation_gather(&e->pb, w->s->k, w->b0, w->b1, w->t == 0 ? e->span->received : NULL,
	    w->acc, &w->window);
	return NULL;
}

/* Every thread its share of the other parts, for the gather into part k
 * or the scatter from it. */
static void
split_parts(struct engine *e, const struct slice *s, bool gather)
{
	for (unsigned t = 0; t < e->nt; t++) {
		e->w[t].s = s;
		e->w[t].b0 = propagation_split(&e->pb, gather, s->k, t, e->nt);
		if (t)
			e->w[t - 1].b1 = e->w[t].b0;
	}
	e->w[e->nt - 1].b1 = e->pb.parts;
}

/* The slice, a part, finished: its changes to the other parts [b0, b1). */
static void *
scatter_work(void *arg)
{
	struct worker *w = arg;
	propagation_scatter(&w->e->pb, w->s->k, w->b0, w->b1, &w->window);
	return NULL;
}

static void
scatter_part(struct engine *e, const struct slice *s)
{
	propagation_scatter_begin(&e->pb, s->k);
	split_parts(e, s, false);
	run_workers(e, scatter_work);
}

static void *
internal_work(void *arg)
{
	struct worker *w = arg;
	struct engine *e = w->e;
	if (e->use)
		memset(w->use_sums, 0, (w->s->hi - w->s->lo) * sizeof *w->use_sums);
	for (unsigned l = w->t; l < e->lanes; l += e->nt) {
		struct lane *ln = &e->lane[l];
		w->b0 = ln->b0;
		w->b1 = ln->b1;
		w->lo = w->next = ln->lo;
		w->hi = ln->hi;
		w->fin = &ln->fin;
		scan_section(w, true);
		if (e->imp) {	/* the pages after its last internal link */
			struct finish fin = *w->fin;
			for (uint64_t j = w->next; j < w->hi; j++)
				finish_page(&fin, j, 0);
			*w->fin = fin;
		}
	}
	return NULL;
}

/* The first block of [b0, b1) whose cost reaches want, cost(b) rising. */
static uint64_t
split_blocks(const struct slice *s, uint64_t b0, uint64_t b1, uint64_t want, bool pages)
{
	uint64_t lo = b0, hi = b1;
	while (lo < hi) {
		uint64_t mid = (lo + hi) / 2;
		uint64_t cost = s->block_off[mid] - s->block_off[b0] +
		    (pages ? s->block_first[mid] - s->lo : 0);
		if (cost < want)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* One slice: its external links split among the threads by words, then
 * its internal links and pages split by words and pages, each thread
 * finishing a range of pages in order. */
static void
scan_slice(struct engine *e, const struct slice *s, struct change *ch)
{
	/* From disk, the next slice is read while this one is computed. */
	if (e->streamed)
		slice_prefetch(&e->slices[(s->k + 1) % e->nslices]);
	uint64_t ext = s->external_blocks, words = s->block_off[ext];
	if (e->propagating) {
		split_parts(e, s, true);
		run_workers(e, gather_work);
	} else {
		for (unsigned t = 0; t < e->nt; t++) {
			struct worker *w = &e->w[t];
			w->s = s;
			w->b0 = t ? split_blocks(s, 0, ext, words * t / e->nt, false) : 0;
			if (t)
				e->w[t - 1].b1 = w->b0;
		}
		e->w[e->nt - 1].b1 = ext;
		run_workers(e, external_work);
	}

	/* The internal blocks, in lanes balanced on words plus pages. */
	const struct span *sp = e->span;
	uint64_t iwords = s->words - words, pages = s->hi - s->lo;
	uint64_t lane_pages = e->propagating ? PART_LANE_PAGES : LANE_PAGES;
	e->lanes = (unsigned)(pages / lane_pages < LANES_MAX ? pages / lane_pages + 1 : LANES_MAX);
	/* Threads take the lanes in turn, so that two threads would share an
	 * odd number of equal lanes, 2m + 1, m + 1 to m: the even lanes are
	 * made m/(m + 1) the size of the odd ones, which balances two threads
	 * (four better than equal lanes do) and leaves the lanes the same
	 * whatever -j.  At 2^24 pages and -j 2 that took a sweep from 0.40 s
	 * to 0.36 on a site graph, from 0.33 to 0.29 on a uniform one. */
	uint64_t m = e->lanes / 2;
	bool uneven = e->lanes % 2 && m;
	uint64_t weights = uneven ? 2 * m * (m + 1) : e->lanes;
	for (unsigned l = 0; l < e->lanes; l++) {
		struct lane *ln = &e->lane[l];
		uint64_t before = uneven ? m * ((l + 1) / 2) + (m + 1) * (l / 2) : l;
		uint64_t want = (iwords + (e->imp ? pages : 0)) * before / weights;
		ln->b0 = l ? split_blocks(s, ext, s->blocks, want, e->imp) : ext;
		ln->lo = l == 0 ? s->lo : ln->b0 < s->blocks ? s->block_first[ln->b0] : s->hi;
		if (l) {
			e->lane[l - 1].b1 = ln->b0;
			e->lane[l - 1].hi = ln->lo;
		}
		ln->fin = (struct finish){
			.c = e->p->damping, .uniform_e = 1.0 / (double)e->n, .dangling = e->dangling,
			.e = sp->e, .outdeg = sp->outdeg, .pr = sp->pr, .x = sp->x, .next = sp->next,
			.acc = { e->w[0].acc, e->nt > 1 ? e->w[1].acc : NULL }, .more_acc = e->acc,
			.nt = e->nt, .lo = s->lo, .jacobi = e->p->jacobi,
			.renormalize = e->p->renormalize, .x_scale = e->x_scale,
			.x_unscale = 1 / e->x_scale,
			.before = e->remembering ? sp->before : NULL,
		};
		if (e->propagating) {
			ln->fin.received = sp->received;
			ln->fin.sent = sp->sent;
			ln->fin.stale_scale = e->pb.stale_scale;
			ln->fin.change = e->pb.part_change;
		}
	}
	e->lane[e->lanes - 1].b1 = s->blocks;
	e->lane[e->lanes - 1].hi = s->hi;
	if (e->imp && !e->p->jacobi && e->lanes > 1)
		memcpy(e->x_before, sp->x, pages * sizeof *e->x_before);
	run_workers(e, internal_work);
	if (e->propagating)
		scatter_part(e, s);

	for (unsigned l = 0; l < e->lanes; l++) {
		const struct finish *f = &e->lane[l].fin;
		ch->l1 += f->ch.l1;
		ch->l2 += f->ch.l2;
		e->unscaled += f->unscaled;
		e->dangling += f->dangling_delta;
	}
	if (e->use)
		for (unsigned t = 0; t < e->nt; t++)
			for (uint64_t i = 0; i < pages; i++)
				sp->r[i] += e->w[t].use_sums[i];
}

/* Before slice s is scanned: what its nodes push backwards.
 *
 * Gauss-Seidel works on the stationary form U = P U, P = c A + c E' d^T +
 * (1-c) E' 1^T (d marks the pages no page links to), whose residual
 * r = P U - U is linear in U.  A slice takes its residual into U and
 * pushes that change along P: c/InDeg backwards along each link, the rest
 * along E' (kept as one sum, owed to each slice until it takes its share).
 * P keeps sums, so after each sweep U and r are scaled to sum 1: without
 * that the error along the dominant direction decays only as c, and a
 * graph that mixes fast converges slower than by Jacobi. */
static void
prepare_usefulness(struct engine *e, const struct slice *s, struct change *ch)
{
	const double c = e->p->damping;
	const struct span *sp = e->span;
	const double *eu = sp->e_use, *u = sp->u;
	const uint32_t *indeg = sp->indeg;
	double *y = e->y, *r = sp->r;
	uint64_t pages = s->hi - s->lo;
	if (e->p->transpose) {
		memcpy(y, u, pages * sizeof *y);
	} else if (!e->pushing) {
		for (uint64_t i = 0; i < pages; i++)
			y[i] = indeg[i] ? u[i] / indeg[i] : 0;
	} else {
		double owed = e->pushed_e - e->absorbed[s->k], to_e = 0;
		e->absorbed[s->k] = e->pushed_e;
		for (uint64_t i = 0; i < pages; i++) {
			double delta = r[i] + owed * eu[i];
			r[i] = 0;
			sp->u[i] += delta;
			change_add(ch, delta);
			if (indeg[i]) {
				y[i] = c * delta / indeg[i];
				to_e += (1 - c) * delta;
			} else {
				y[i] = 0;
				to_e += delta;
			}
		}
		e->pushed_e += to_e;
	}
}

/* One slice of a sweep, its span of the vectors viewed meanwhile. */
static void
sweep_slice(struct engine *e, const struct slice *s, struct change *ci, struct change *cu)
{
	struct span sp;
	span_open(e, &sp, s->lo, s->hi);
	e->span = &sp;
	if (e->use)
		prepare_usefulness(e, s, cu);
	scan_slice(e, s, ci);
	span_close(e, &sp);
	e->span = NULL;
}

/* After a Gauss-Seidel sweep: U and its residual scaled to sum 1. */
static void
normalize_usefulness(struct engine *e)
{
	double sum = rank_sum(e->p, e->u);
	if (!(sum > 0))
		return;
	double scale = 1 / sum;
	for (uint64_t lo = 0, hi; lo < e->n; lo = hi) {
		hi = rank_chunk_end(e->p, e->n, lo);
		struct span sp;
		span_open(e, &sp, lo, hi);
		for (uint64_t i = 0; i < hi - lo; i++) {
			sp.u[i] *= scale;
			sp.r[i] *= scale;
		}
		span_close(e, &sp);
	}
	e->pushed_e *= scale;
	for (uint32_t k = 0; k < e->g->slices; k++)
		e->absorbed[k] *= scale;
}

/* After a Jacobi sweep: the new usefulness from the sums in r.  The first
 * sweep of Gauss-Seidel is one too, leaving U at E' and r its residual. */
static void
finish_usefulness_jacobi(struct engine *e, struct change *ch)
{
	const double c = e->p->damping;
	double scale = 1, dangling = 0;
	bool residual = !e->p->jacobi && !e->p->transpose;
	struct span sp;
	if (e->p->transpose) {
		double old_sum = 0, new_sum = 0;
		for (uint64_t lo = 0, hi; lo < e->n; lo = hi) {
			hi = rank_chunk_end(e->p, e->n, lo);
			span_open(e, &sp, lo, hi);
			for (uint64_t i = 0; i < hi - lo; i++) {
				sp.r[i] = (sp.outdeg[i] ? c * sp.r[i] / sp.outdeg[i] : 0) +
				    (1 - c) * sp.e_use[i];
				old_sum += sp.u[i];
				new_sum += sp.r[i];
			}
			span_close(e, &sp);
		}
		scale = new_sum > 0 ? old_sum / new_sum : 1;
	} else {
		for (uint64_t lo = 0, hi; lo < e->n; lo = hi) {
			hi = rank_chunk_end(e->p, e->n, lo);
			span_open(e, &sp, lo, hi);
			for (uint64_t i = 0; i < hi - lo; i++)
				if (!sp.indeg[i])
					dangling += sp.u[i];
			span_close(e, &sp);
		}
	}
	for (uint64_t lo = 0, hi; lo < e->n; lo = hi) {
		hi = rank_chunk_end(e->p, e->n, lo);
		span_open(e, &sp, lo, hi);
		for (uint64_t i = 0; i < hi - lo; i++) {
			double *v = &sp.r[i], eu = sp.e_use[i];
			double nv = e->p->transpose ? *v * scale :
			    c * (*v + dangling * eu) + (1 - c) * eu;
			change_add(ch, nv - sp.u[i]);
			if (residual) {
				*v = nv - sp.u[i];
			} else {
				sp.u[i] = nv;
				*v = 0;
			}
		}
		span_close(e, &sp);
	}
	e->pushing = residual;
}

/* Jacobi with --renormalize: the sweep's result times r of eq. 2.7, and
 * its change from the iterate before. */
static void
finish_renormalized_jacobi(struct engine *e, struct change *ch)
{
	double scale = rank_sum(e->p, e->pr) / e->unscaled;
	for (uint64_t lo = 0, hi; lo < e->n; lo = hi) {
		hi = rank_chunk_end(e->p, e->n, lo);
		struct span sp;
		span_open(e, &sp, lo, hi);
		for (uint64_t i = 0; i < hi - lo; i++) {
			sp.next[i] *= scale;
			change_add(ch, sp.next[i] - sp.pr[i]);
		}
		span_close(e, &sp);
	}
}

/* Copies src into dst, a chunk at a time. */
static void
copy_vector(const struct rank_params *p, struct vec *dst, const struct vec *src)
{
	for (uint64_t lo = 0, hi; lo < src->n; lo = hi) {
		hi = rank_chunk_end(p, src->n, lo);
		double *to = vec_view(dst, lo, hi, VEC_WRITE);
		const double *from = vec_view(src, lo, hi, VEC_READ);
		memcpy(to, from, (hi - lo) * sizeof *to);
		vec_unview(dst, to, lo, hi);
		vec_unview(src, from, lo, hi);
	}
}

/* Bytes per page of the vectors a run holds, and of its slice buffers. */
static uint64_t
page_bytes(const struct graph *g, const struct rank_params *p, bool imp, bool use,
    bool personalised)
{
	uint64_t b = 8 + p->held;	/* out- and in-degree; the caller's */
	if (imp)	/* pr, x; E; Jacobi's next or extrapolation's before */
		b += 16 + (personalised ? 8 : 0) + (p->jacobi || !p->plain ? 8 : 0);
	if (propagation_wanted(g, p, imp, use))
		b += 16;		/* sent and received */
	if (use)
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
slice_buffer_bytes(const struct graph *g, const struct rank_params *p, bool imp, bool use)
{
	return widest_slice(g) * 8 * ((imp ? p->threads + 1 : 0) + (use ? p->threads + 1 : 0));
}

/* A quarter of what the buffers leave goes to the runs of matrix in
 * flight, one for each thread and one read ahead. */
static uint64_t
run_bytes(const struct rank_params *p, uint64_t buffers)
{
	uint64_t b = (p->memory - buffers) / 4 / (p->threads + 1);
	return b > RUN_MAX ? RUN_MAX : b < RUN_MIN ? RUN_MIN : b;
}

void
rank_plan(const struct graph *g, struct rank_params *p, bool importance, bool usefulness,
    bool personalised)
{
	/* The threads allocate little, and rarely: an arena of their own
	 * would reserve 64 MiB of address space each (glibc), more than a
	 * small -m leaves under ulimit -v beside the copies of the vectors. */
	mallopt(M_ARENA_MAX, 1);
	uint64_t per_page = page_bytes(g, p, importance, usefulness, personalised);
	uint64_t buffers = slice_buffer_bytes(g, p, importance, usefulness);
	uint64_t runs = (uint64_t)(p->threads + 1) * RUN_MIN;
	p->on_disk = buffers + runs > p->memory || g->nodes * per_page + buffers +
	    (p->threads + 1) * run_bytes(p, buffers) > p->memory;
	/* On disk, the slice being scanned has every vector viewed. */
	if (p->on_disk)
		buffers += widest_slice(g) * per_page;
	if (buffers + runs > p->memory)
		wa_die("%s: slices of up to %llu pages need %llu MiB of buffers with %u threads, "
		    "more than -m %llu MiB (fewer threads, or a graph of more slices: "
		    "wa-linkmat -s)", g->dir, (unsigned long long)widest_slice(g),
		    (unsigned long long)((buffers + runs) >> 20), p->threads,
		    (unsigned long long)(p->memory >> 20));
	p->run_bytes = run_bytes(p, buffers);
	/* On disk, every thread's views of a pass over whole vectors take at
	 * most a quarter of the budget; in memory views cost nothing. */
	p->chunk = RANK_CHUNK;
	if (p->on_disk) {
		uint64_t c = p->memory / 4 / ((p->threads + 1) * per_page);
		p->chunk = c < RANK_CHUNK_MIN ? RANK_CHUNK_MIN : c < RANK_CHUNK ? c : RANK_CHUNK;
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
	/* Unnamed: nothing is left behind, however the run ends. */
	int fd = open(rank_temp_dir(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0)
		wa_die_errno("%s: cannot create a temporary file", rank_temp_dir());
	if (ftruncate(fd, (off_t)bytes) != 0)
		wa_die_errno("%s: cannot size a temporary file of %llu MiB", rank_temp_dir(),
		    (unsigned long long)(bytes >> 20));
	return fd;
}

void
rank_vector_new(const struct rank_params *p, uint64_t n, struct vec *v)
{
	char *name = wa_asprintf("%s: a temporary file", rank_temp_dir());
	vec_new(v, n, sizeof(double), p->on_disk ? rank_temp_file(n * sizeof(double)) : -1, name);
	free(name);
}

static void
engine_open(struct engine *e, const struct graph *g, const struct rank_params *p,
    const struct rank_vectors *v)
{
	memset(e, 0, sizeof *e);
	e->g = g;
	e->p = p;
	e->v = v;
	e->n = g->nodes;
	e->imp = v->importance != NULL;
	e->use = v->usefulness != NULL;
	e->x_scale = 1;
	e->nt = p->threads ? p->threads : 1;
	if (e->nt > WA_TEAM_MAX)
		e->nt = WA_TEAM_MAX;
	graph_vec(g, GF_OUTDEG, !p->on_disk, &e->outdeg);
	graph_vec(g, GF_INDEG, !p->on_disk, &e->indeg);
	for (uint32_t k = 0; k < g->slices; k++)
		if (g->bound[k + 1] - g->bound[k] > e->max_slice_nodes)
			e->max_slice_nodes = g->bound[k + 1] - g->bound[k];

	e->slices = wa_calloc(g->slices, sizeof *e->slices);
	e->nslices = g->slices;
	uint64_t matrix = 0;
	for (uint32_t k = 0; k < g->slices; k++) {
		slice_open(g, k, &e->slices[k]);
		matrix += e->slices[k].words * 4;
	}
	uint64_t vectors = e->n * page_bytes(g, p, e->imp, e->use, v->e != NULL) +
	    slice_buffer_bytes(g, p, e->imp, e->use) + (p->threads + 1) * p->run_bytes;
	e->streamed = p->on_disk || vectors + matrix > p->memory;
	bool *keep = wa_calloc(g->slices, sizeof *keep);
	for (uint32_t k = 0; k < g->slices; k++)
		keep[k] = !e->streamed;
	if (p->checked) {
		for (uint32_t k = 0; k < g->slices; k++)
			if (keep[k])
				slice_load(&e->slices[k]);
	} else {
		graph_check_matrix(g, e->slices, &e->outdeg, &e->indeg, keep, p->run_bytes);
	}
	free(keep);
	if (wa_verbose)
		wa_warn("%llu pages, %llu links in %u slices; matrix %s (%llu MiB), vectors %llu MiB",
		    (unsigned long long)e->n, (unsigned long long)g->links, g->slices,
		    e->streamed ? "read from disk each pass" : "in memory",
		    (unsigned long long)(matrix >> 20), (unsigned long long)(vectors >> 20));
	/* Gauss-Seidel importance: the links between parts by propagation
	 * blocking, the parts as the slices of the sweep; in memory if the
	 * budget holds them with the matrix, else in files, the build taking
	 * at most what the vectors and the matrix leave: it ends before the
	 * sweeps' buffers are taken. */
	struct slice *parts;
	if (propagation_wanted(g, p, e->imp, e->use)) {
		bool in_memory = !e->streamed && vectors + matrix + propagation_bytes(g) <= p->memory;
		uint64_t held = (p->on_disk ? 0 : vectors) + (e->streamed ? 0 : matrix);
		e->propagating = propagation_build(&e->pb, g, p, e->slices, !in_memory,
		    p->memory - held, &parts);
		if (e->propagating && !in_memory)
			e->streamed = true;
	}
	if (e->propagating) {
		uint64_t np = e->pb.parts;
		for (uint32_t k = 0; k < g->slices; k++)
			slice_close(&e->slices[k]);
		free(e->slices);
		e->slices = parts;
		e->nslices = (uint32_t)np;
		e->max_slice_nodes = 0;
		for (uint32_t k = 0; k < e->nslices; k++)
			if (parts[k].hi - parts[k].lo > e->max_slice_nodes)
				e->max_slice_nodes = parts[k].hi - parts[k].lo;
		char files[96] = "";
		if (e->pb.on_disk)
			snprintf(files, sizeof files, ", in temporary files, the changes written in "
			    "%llu group%s of parts", (unsigned long long)e->pb.groups,
			    e->pb.groups == 1 ? "" : "s");
		if (wa_verbose)
			wa_warn("Gauss-Seidel on %u parts of up to %llu pages, %llu links between "
			    "them by propagation blocking%s", e->nslices,
			    (unsigned long long)e->max_slice_nodes,
			    (unsigned long long)e->pb.gather_off[np * np], files);
	}
	if (wa_verbose && p->on_disk)
		wa_warn("the vectors do not fit -m: kept in temporary files, read and written "
		    "%llu pages at a time", (unsigned long long)p->chunk);

	e->w = wa_calloc(e->nt, sizeof *e->w);
	for (unsigned t = 0; t < e->nt; t++) {
		e->w[t].e = e;
		e->w[t].t = t;
		if (e->imp)
			e->w[t].acc = wa_calloc(e->max_slice_nodes, sizeof(double));
		if (e->use)
			e->w[t].use_sums = wa_calloc(e->max_slice_nodes, sizeof(double));
		if (e->propagating)
			propagation_window_open(&e->pb, &e->w[t].window);
	}
	e->acc = wa_calloc(e->nt, sizeof *e->acc);
	for (unsigned t = 0; t < e->nt; t++)
		e->acc[t] = e->w[t].acc;
	wa_team_start(&e->team, e->nt, e->w, sizeof *e->w);
	if (e->imp) {
		e->pr = v->importance;
		rank_vector_new(p, e->n, &e->x);
		if (p->jacobi) {
			rank_vector_new(p, e->n, &e->other);
			e->next = &e->other;
		} else {
			e->x_before = wa_calloc(e->max_slice_nodes, sizeof(double));
		}
		if (!p->jacobi && !p->plain)
			rank_vector_new(p, e->n, &e->before);
	}
	if (e->use) {
		e->u = v->usefulness;
		rank_vector_new(p, e->n, &e->r);
		e->y = wa_calloc(e->max_slice_nodes, sizeof *e->y);
		e->absorbed = wa_calloc(g->slices, sizeof *e->absorbed);
	}
}

static void
engine_close(struct engine *e)
{
	wa_team_stop(&e->team);
	for (unsigned t = 0; t < e->nt; t++) {
		free(e->w[t].acc);
		free(e->w[t].use_sums);
		free(e->w[t].buf);
		propagation_window_close(&e->w[t].window);
	}
	free(e->w);
	free(e->acc);
	for (uint32_t k = 0; k < e->nslices; k++)
		slice_close(&e->slices[k]);
	free(e->slices);
	if (e->propagating)
		propagation_free(&e->pb);
	vec_free(&e->x);
	vec_free(&e->other);
	vec_free(&e->before);
	vec_free(&e->r);
	free(e->y);
	free(e->x_before);
	free(e->absorbed);
	vec_free(&e->outdeg);
	vec_free(&e->indeg);
}

/* Before the first sweep: every part sends its x whole, and receives. */
static void
propagation_begin(struct engine *e)
{
	struct span sp;
	for (uint32_t k = 0; k < e->nslices; k++) {
		const struct slice *s = &e->slices[k];
		span_open(e, &sp, s->lo, s->hi);
		propagation_send(&e->pb, k, sp.x, sp.sent);
		scatter_part(e, s);
		span_close(e, &sp);
	}
	for (uint32_t k = 0; k < e->nslices; k++) {
		const struct slice *s = &e->slices[k];
		span_open(e, &sp, s->lo, s->hi);
		e->span = &sp;
		split_parts(e, s, true);
		run_workers(e, gather_work);
		propagation_receive(&e->pb, k, e->acc, e->nt, sp.received);
		span_close(e, &sp);
		e->span = NULL;
	}
	propagation_clear(&e->pb);
}

/* Extrapolation over two sweeps, after T. Haveliwala, S. Kamvar, D. Klein,
 * C. Manning, G. Golub, "Computing PageRank using Power Extrapolation"
 * (Stanford, 2003): when the error decays by mu every two sweeps, pr two
 * sweeps before, b, and now, p, point to the fix-point p + (p - b) mu /
 * (1 - mu).  Their mu is c^2, the power iteration's; Gauss-Seidel's is not
 * known, so it is measured, as the ratio of the L1 changes two sweeps
 * apart, and taken only when the last two such ratios agree.  Over two
 * sweeps, not one (Aitken's): slow modes of both signs remain, and
 * extrapolating over one sweep amplifies those of the other sign.  On a
 * site graph nearly all the error is rank moving between sites, decaying
 * by about 0.72 a sweep, which every EXTRAPOLATION_GAP sweeps this takes
 * mostly out: on the generated site graph of 2^24 pages, 31 sweeps to an
 * L1 change of 1e-9 instead of 41.  A graph that mixes fast (mu below
 * EXTRAPOLATION_MU_MIN) has nothing to gain, and is left alone. */
#define EXTRAPOLATION_GAP 6
#define EXTRAPOLATION_MU_MIN 0.1
#define EXTRAPOLATION_MU_MAX 0.9	/* p - b is then multiplied by 9 at most */

/* Whether sweep it may end by extrapolating: EXTRAPOLATION_GAP sweeps
 * after the last time, or every second sweep after that while the rates
 * disagree, so that before, taken as the sweep before began, is not
 * overwritten as this one begins. */
static bool
extrapolation_due(const struct engine *e, unsigned it)
{
	unsigned since = it - e->extrapolated_at;
	return vec_exists(&e->before) && !e->extrapolation_failed && since >= EXTRAPOLATION_GAP &&
	    (since - EXTRAPOLATION_GAP) % 2 == 0;
}

/* The L1 changes of sweeps it and it - 2, as a rate per two sweeps. */
static double
rate_per_two(const struct engine *e, unsigned it)
{
	return e->l1_history[it % 4] / e->l1_history[(it - 2) % 4];
}

/* Whether sweep it, about to begin, is to keep pr for an extrapolation
 * after the next: one is due then and the rate so far is worth it. */
static bool
extrapolation_wanted(const struct engine *e, unsigned it)
{
	return extrapolation_due(e, it + 1) && rate_per_two(e, it - 1) >= EXTRAPOLATION_MU_MIN;
}

/* After sweep it, not converged: the rate per two sweeps, or 0 if the
 * last four sweeps did not shrink the change each time, or the last two
 * rates do not agree on one worth extrapolating with. */
static double
extrapolation_rate(const struct engine *e, unsigned it)
{
	const double *h = e->l1_history;
	if (!(h[it % 4] < h[(it - 1) % 4] && h[(it - 1) % 4] < h[(it - 2) % 4] &&
	    h[(it - 2) % 4] < h[(it - 3) % 4]))
		return 0;
	double mu = rate_per_two(e, it), mu_before = rate_per_two(e, it - 1);
	if (!(mu >= EXTRAPOLATION_MU_MIN && mu_before >= EXTRAPOLATION_MU_MIN &&
	    mu < EXTRAPOLATION_MU_MAX && mu_before < EXTRAPOLATION_MU_MAX &&
	    mu < 1.25 * mu_before && mu_before < 1.25 * mu))
		return 0;
	return sqrt(mu * mu_before);
}

/* A thread's share of the pages moved towards the fix-point; its sums of
 * pr and of the dangling pages' pr into extrapolated.  Their x too by
 * propagation blocking, whose scaling waits in x_scale; by the slices,
 * extrapolate() scales pr and sets x after. */
static void *
extrapolate_work(void *arg)
{
	struct worker *w = arg;
	struct engine *e = w->e;
	const double f = e->extrapolation_factor, scale = e->x_scale;
	double sum = 0, dangling = 0;
	uint64_t first = e->n * w->t / e->nt, end = e->n * (w->t + 1) / e->nt;
	for (uint64_t lo = first, hi; lo < end; lo = hi) {
		hi = end - lo < e->p->chunk ? end : lo + e->p->chunk;
		struct span sp;
		span_open(e, &sp, lo, hi);
		for (uint64_t i = 0; i < hi - lo; i++) {
			double v = sp.pr[i] * scale;
			v += f * (v - sp.before[i]);
			if (v < 0)
				v = 0;
			sum += v;
			if (!sp.outdeg[i])
				dangling += v;
			sp.pr[i] = v / scale;
		}
		if (e->propagating)
			set_contributions(&sp);
		span_close(e, &sp);
	}
	w->extrapolated[0] = sum;
	w->extrapolated[1] = dangling;
	return NULL;
}

/* pr moved towards the fix-point by the rate mu, scaled to sum 1, with x
 * and the dangling sum to match. */
static void
extrapolate(struct engine *e, double mu)
{
	e->extrapolation_factor = mu / (1 - mu);
	e->extrapolating = true;
	run_workers(e, extrapolate_work);
	e->extrapolating = false;
	double sum = 0, dangling = 0;
	for (unsigned t = 0; t < e->nt; t++) {
		sum += e->w[t].extrapolated[0];
		dangling += e->w[t].extrapolated[1];
	}
	if (e->propagating) {	/* as the sweep's own scaling */
		e->pb.stale_scale /= sum;
		e->x_scale /= sum;
		e->dangling = dangling / sum;
	} else {
		refresh_importance(e, 1 / sum);
	}
}

void
rank_compute(const struct graph *g, const struct rank_params *p, const struct rank_vectors *v,
    struct rank_result *res)
{
	struct engine e;
	engine_open(&e, g, p, v);
	memset(res, 0, sizeof *res);
	if (e.imp)
		refresh_importance(&e, 1);
	if (e.propagating)
		propagation_begin(&e);
	if (e.use)	/* from E', as the paper says */
		copy_vector(p, e.u, v->e_use);

	struct progress pg;
	progress_start(&pg, "iterations", p->max_iterations);
	for (unsigned it = 1; it <= p->max_iterations; it++) {
		double t0 = monotonic_seconds();
		struct change ci = { 0 }, cu = { 0 };
		/* The sweep before one that may extrapolate keeps pr as it finds
		 * it. */
		e.remembering = extrapolation_wanted(&e, it);
		e.unscaled = 0;
		for (uint32_t k = 0; k < e.nslices; k++)
			sweep_slice(&e, &e.slices[k], &ci, &cu);
		e.remembering = false;
		if (e.imp) {
			if (p->renormalize)
				finish_renormalized_jacobi(&e, &ci);
			if (p->jacobi) {
				struct vec *t = e.pr;
				e.pr = e.next;
				e.next = t;
			}
			/* Gauss-Seidel does not keep the sum of the vector; put back
			 * to 1, the error along the dominant direction goes. */
			if (e.propagating) {
				/* Each part takes it as the next sweep comes to it. */
				e.pb.stale_scale = 1 / e.unscaled;
				e.x_scale *= e.pb.stale_scale;
				e.dangling *= e.pb.stale_scale;
			} else {
				refresh_importance(&e, p->jacobi ? 1 : 1 / rank_sum(p, e.pr));
			}
		}
		if (e.use && !e.pushing)
			finish_usefulness_jacobi(&e, &cu);
		else if (e.use)
			normalize_usefulness(&e);

		res->iterations = it;
		res->change[0] = change_value(&ci, p->norm);
		res->change[1] = change_value(&cu, p->norm);
		e.l1_history[it % 4] = ci.l1;
		if (e.extrapolated_at && it == e.extrapolated_at + 2 &&
		    !(ci.l1 < e.l1_history[(it - 2) % 4]))
			e.extrapolation_failed = true;
		/* Else no iteration would end it, and -i could be 10^6. */
		if (isnan(res->change[0]) || isnan(res->change[1]))
			wa_die("%s: iteration %u: the change is not a number (weights too large "
			    "to sum?)", g->dir, it);
		bool converged = (!e.imp || res->change[0] < p->epsilon) &&
		    (!e.use || res->change[1] < p->epsilon);
		double mu = 0;
		if (!converged && it < p->max_iterations && extrapolation_due(&e, it) &&
		    (mu = extrapolation_rate(&e, it)) > 0) {
			extrapolate(&e, mu);
			e.extrapolated_at = it;
		}
		if (wa_verbose) {
			char line[256];
			int n = snprintf(line, sizeof line, "iteration %u:", it);
			if (e.imp)
				n += snprintf(line + n, sizeof line - n, " importance L1 %.3e L2 %.3e;",
				    ci.l1, sqrt(ci.l2));
			if (e.use)
				n += snprintf(line + n, sizeof line - n, " usefulness L1 %.3e L2 %.3e;",
				    cu.l1, sqrt(cu.l2));
			n += snprintf(line + n, sizeof line - n, " %.3f s", monotonic_seconds() - t0);
			if (mu > 0)
				snprintf(line + n, sizeof line - n, "; extrapolated at %.3f per two",
				    mu);
			wa_warn("%s", line);
		}
		if (e.imp && e.use)
			progress_note(&pg, "importance L1 %.2e L2 %.2e, usefulness L1 %.2e L2 %.2e",
			    ci.l1, sqrt(ci.l2), cu.l1, sqrt(cu.l2));
		else
			progress_note(&pg, "L1 %.2e L2 %.2e", e.imp ? ci.l1 : cu.l1,
			    sqrt(e.imp ? ci.l2 : cu.l2));
		progress_set(&pg, it);
		if (converged) {
			res->converged = true;
			break;
		}
	}
	progress_end(&pg);
	if (e.propagating)
		for (uint64_t lo = 0, hi; lo < e.n; lo = hi) {
			hi = rank_chunk_end(p, e.n, lo);
			double *pr = vec_view(e.pr, lo, hi, VEC_WRITE);
			for (uint64_t i = 0; i < hi - lo; i++)
				pr[i] *= e.x_scale;
			vec_unview(e.pr, pr, lo, hi);
		}
	if (e.imp && e.pr != v->importance) {	/* Jacobi ended on the other buffer */
		copy_vector(p, v->importance, e.pr);
		e.next = e.pr;
		e.pr = v->importance;
	}
	engine_close(&e);
}

void
rank_jacobi_part(const struct graph *g, const struct rank_params *p, const struct vec *pr,
    const struct vec *e_vec, uint32_t first, uint32_t end, const char *path)
{
	struct rank_params jp = *p;
	jp.jacobi = true;
	/* Jacobi reads pr, and writes next only. */
	struct rank_vectors v = { .importance = (struct vec *)pr, .e = e_vec };
	struct engine e;
	engine_open(&e, g, &jp, &v);
	refresh_importance(&e, 1);
	struct change ch = { 0 }, unused = { 0 };
	for (uint32_t k = first; k < end; k++)
		sweep_slice(&e, &e.slices[k], &ch, &unused);
	uint64_t lo = g->bound[first], hi = g->bound[end];
	struct bin_writer *w = bin_create(path, "VEC8", 1);
	for (uint64_t at = lo, to; at < hi; at = to) {
		to = rank_chunk_end(p, hi, at);
		const double *next = vec_view(e.next, at, to, VEC_READ);
		bin_write(w, next, (to - at) * sizeof *next);
		vec_unview(e.next, next, at, to);
	}
	/* aux: first id, end id, pages of the whole graph. */
	const uint64_t aux[3] = { lo, hi, g->nodes };
	bin_commit(w, hi - lo, aux);
	engine_close(&e);
}

double
rank_sum(const struct rank_params *p, const struct vec *v)
{
	double sum = 0;
	for (uint64_t lo = 0, hi; lo < v->n; lo = hi) {
		hi = rank_chunk_end(p, v->n, lo);
		const double *d = vec_view(v, lo, hi, VEC_READ);
		for (uint64_t i = 0; i < hi - lo; i++)
			sum += d[i];
		vec_unview(v, d, lo, hi);
	}
	return sum;
}

bool
rank_normalize(const struct rank_params *p, struct vec *v)
{
	double sum = rank_sum(p, v);
	if (!(sum > 0))
		return false;
	for (uint64_t lo = 0, hi; lo < v->n; lo = hi) {
		hi = rank_chunk_end(p, v->n, lo);
		double *d = vec_view(v, lo, hi, VEC_WRITE);
		for (uint64_t i = 0; i < hi - lo; i++)
			d[i] /= sum;
		vec_unview(v, d, lo, hi);
	}
	return true;
}

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
read_weights(const struct graph *g, const struct rank_params *p, const char *path,
    struct vec *out, uint64_t *unknown, bool subscription)
{
	struct tsv *in = tsv_open(path, subscription ? 1 : 2, 0, subscription ? TSV_STRICT : 0);
	tsv_check_url(in, 0);
	tsv_check_sorted(in, 0, true);
	struct url_table t;
	url_table_open(g, &t);
	/* Ids come in URL order, not id order. */
	struct vec_cache score;
	vec_cache_open(&score, out, p->memory / 8, true);
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
rank_read_scores(const struct graph *g, const struct rank_params *p, const char *path,
    struct vec *out, uint64_t *unknown)
{
	return read_weights(g, p, path, out, unknown, false);
}

uint64_t
rank_read_subscriptions(const struct graph *g, const struct rank_params *p, const char *path,
    struct vec *out, uint64_t *unknown)
{
	return read_weights(g, p, path, out, unknown, true);
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
rank_no_usefulness(const struct graph *g, const char *path)
{
	wa_warn("%s: no XML pages in the graph, so nothing to be useful towards: "
	    "no usefulness written (wa-schedule weighs HTML pages by importance)", g->dir);
	struct atomic_file *af = path ? atomic_open(path) : NULL;
	if (af)
		atomic_commit(af);
}

void
rank_write_scores(const struct graph *g, const struct rank_params *p, const struct vec *score,
    const char *path)
{
	struct atomic_file *af = path ? atomic_open(path) : NULL;
	FILE *f = af ? af->fp : stdout;
	struct url_table t;
	url_table_open(g, &t);
	struct vec_cache cache, type_cache;
	vec_cache_open(&cache, score, p->memory / 8, false);
	struct vec types;
	graph_vec(g, GF_TYPES, false, &types);
	vec_cache_open(&type_cache, &types, p->memory / 64, false);
	unsigned nt = p->threads > 1 ? (p->threads < 64 ? p->threads : 64) : 1;
	struct format_task *task = wa_calloc(nt, sizeof *task);
	pthread_t tid[64];
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

void
rank_write_vector(const struct graph *g, const struct rank_params *p, const char *path,
    const struct vec *v)
{
	struct bin_writer *w = bin_create(path, "VEC8", 1);
	for (uint64_t lo = 0, hi; lo < v->n; lo = hi) {
		hi = rank_chunk_end(p, v->n, lo);
		const double *d = vec_view(v, lo, hi, VEC_READ);
		bin_write(w, d, (hi - lo) * sizeof *d);
		vec_unview(v, d, lo, hi);
	}
	bin_commit(w, v->n, (const uint64_t[3]){ graph_fingerprint(g), 0, 0 });
}

void
rank_defaults(struct rank_params *p)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	*p = (struct rank_params){
		.damping = 0.85,
		.epsilon = 1e-9,
		.norm = RANK_L2,
		.max_iterations = 100,
		.threads = cpus > 0 ? (unsigned)(cpus < 64 ? cpus : 64) : 1,
		.memory = (uint64_t)1 << 30,
	};
}

bool
rank_option(int opt, const char *arg, struct rank_params *p)
{
	switch (opt) {
	case 'c':
		p->damping = opt_double("-c", arg, 0, 1);
		if (p->damping <= 0 || p->damping >= 1)
			wa_usage_error("-c: the damping must lie strictly between 0 and 1");
		return true;
	case 'e':
		p->epsilon = opt_double("-e", arg, 0, 1);
		return true;
	case 'j':
		p->threads = (unsigned)opt_count("-j", arg, 1, 64);
		return true;
	case 'm':
		p->memory = opt_size("-m", arg);
		return true;
	case RANK_OPT_NORM:
		if (strcmp(arg, "l1") == 0)
			p->norm = RANK_L1;
		else if (strcmp(arg, "l2") == 0)
			p->norm = RANK_L2;
		else
			wa_usage_error("--norm: '%s' is neither l1 nor l2", arg);
		return true;
	case RANK_OPT_JACOBI:
		p->jacobi = true;
		return true;
	case RANK_OPT_ITERATIONS:
		p->max_iterations = (unsigned)opt_count("--iterations", arg, 1, 1000000);
		return true;
	}
	return false;
}

bool
rank_xml_personalisation(const struct graph *g, const struct rank_params *p,
    const struct vec *importance, struct vec *e)
{
	struct vec types;
	graph_vec(g, GF_TYPES, false, &types);
	rank_vector_new(p, g->nodes, e);
	uint64_t xml = 0;
	for (uint64_t lo = 0, hi; lo < g->nodes; lo = hi) {
		hi = rank_chunk_end(p, g->nodes, lo);
		const uint8_t *type = vec_view(&types, lo, hi, VEC_READ);
		const double *imp = importance ? vec_view(importance, lo, hi, VEC_READ) : NULL;
		double *to = vec_view(e, lo, hi, VEC_WRITE);
		for (uint64_t i = 0; i < hi - lo; i++)
			if (type[i] == PAGE_XML) {
				to[i] = imp ? imp[i] : 1;
				xml++;
			}
		vec_unview(&types, type, lo, hi);
		if (imp)
			vec_unview(importance, imp, lo, hi);
		vec_unview(e, to, lo, hi);
	}
	vec_free(&types);
	if (!xml)
		return false;
	if (!rank_normalize(p, e))
		wa_die("%s: the XML pages all have importance 0", g->dir);
	return true;
}
