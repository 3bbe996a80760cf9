#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
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
	uint64_t released;		/* x and r given back below this id */
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
	struct rank_vectors *v;
	uint64_t n;
	struct bin_map outdeg_map, indeg_map;
	const uint32_t *outdeg, *indeg;
	struct slice *slices;		/* the graph's, or the parts of propagation */
	uint32_t nslices;
	bool streamed;			/* slices read from disk each pass */
	bool propagating;		/* links between parts by propagation blocking */
	struct propagation pb;
	uint64_t max_slice_nodes;

	bool imp, use;
	/* importance */
	double *pr, *x, *next;		/* x = pr / outdeg, 0 when dangling */
	/* By propagation blocking, pr and x are kept divided by x_scale, the
	 * product of the sweeps' scalings to sum 1, so that a scaling costs
	 * no pass over them. */
	double x_scale;
	double *x_before;		/* the slice's x before its internal links */
	double dangling;		/* sum of pr over pages without out-links */
	/* Extrapolation (extrapolate()): before, pr as the sweep before the
	 * last began; the sweep that last extrapolated; the L1 changes of the
	 * last four sweeps, sweep k at k % 4. */
	double *before;
	bool remembering;		/* this sweep fills before */
	double extrapolation_factor;
	unsigned extrapolated_at;
	/* The change two sweeps after the last extrapolation was not below the
	 * one it was made on: the rates do not describe this iteration (on a
	 * chain with personalisation the changes swing), none more. */
	bool extrapolation_failed;
	double l1_history[4];
	double unscaled;		/* --renormalize: this sweep's |cM PR + (1-c)E| */
	/* usefulness */
	double *u, *r;			/* r: residual (Gauss-Seidel) or sums (Jacobi) */
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


static uint64_t
chunk_end(const struct engine *e, uint64_t lo)
{
	return e->n - lo < RANK_CHUNK ? e->n : lo + RANK_CHUNK;
}

/* Gives back ids [lo, hi) of every vector of the run. */
static void
release_all(const struct engine *e, uint64_t lo, uint64_t hi)
{
	if (!e->p->on_disk)
		return;
	const double *d[] = { e->pr, e->x, e->next, e->before, e->u, e->r, e->v->e,
		e->v->e_use, e->pb.sent, e->pb.received };
	for (size_t i = 0; i < sizeof d / sizeof d[0]; i++)
		if (d[i])
			rank_release(e->p, d[i], lo, hi, sizeof(double));
	rank_release(e->p, e->outdeg, lo, hi, sizeof(uint32_t));
	rank_release(e->p, e->indeg, lo, hi, sizeof(uint32_t));
}

static void
set_contributions(struct engine *e, uint64_t lo, uint64_t hi)
{
	for (uint64_t j = lo; j < hi; j++)
		e->x[j] = e->outdeg[j] ? e->pr[j] / e->outdeg[j] : 0;
}

static double
vector_sum(struct engine *e, const double *v)
{
	double sum = 0;
	for (uint64_t lo = 0, hi; lo < e->n; lo = hi) {
		hi = chunk_end(e, lo);
		for (uint64_t j = lo; j < hi; j++)
			sum += v[j];
		release_all(e, lo, hi);
	}
	return sum;
}

/* pr times scale, then x from pr and the dangling sum, over all pages. */
static void
refresh_importance(struct engine *e, double scale)
{
	double d = 0;
	for (uint64_t lo = 0, hi; lo < e->n; lo = hi) {
		hi = chunk_end(e, lo);
		if (scale != 1)
			for (uint64_t j = lo; j < hi; j++)
				e->pr[j] *= scale;
		set_contributions(e, lo, hi);
		for (uint64_t j = lo; j < hi; j++)
			if (!e->outdeg[j])
				d += e->pr[j];
		release_all(e, lo, hi);
	}
	e->dangling = d;
}

/* External links of blocks [b0, b1) in buf: importance sums into acc
 * from x, usefulness sums into r[src] from the slice's y.  One function
 * with the flags constant at each call, so the compiler makes one loop per
 * mode.  Returns the last source. */
static inline uint64_t
scan_external(const struct slice *s, uint64_t b0, uint64_t b1, const uint32_t *buf,
    bool imp, bool use, const double *x, double *acc, const double *y, double *r)
{
	const uint32_t *base = buf - s->block_off[b0];
	const unsigned bits = s->bits;
	uint64_t src = 0;
	for (uint64_t b = b0; b < b1; b++) {
		const uint32_t *p = base + s->block_off[b], *end = base + s->block_off[b + 1];
		src = s->block_first[b];
		while (p < end) {
			uint32_t d = slice_word(&p, &src, bits);
			if (imp)
				acc[d] += x[src];
			if (use)
				r[src] += y[d];
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
		f->received[j] = external;
	double ej = f->e ? f->e[j] : f->uniform_e, old = f->pr[j] * f->x_scale;
	/* The dangling pages' rank as this thread knows it: Gauss-Seidel again. */
	double v = f->c * sum + (1 - f->c) * ej;
	if (!f->renormalize)
		v += f->c * (f->dangling + f->dangling_delta) * ej;
	f->unscaled += v;
	if (!f->renormalize)	/* that one changes at the end */
		change_add(&f->ch, v - old);
	if (f->before)
		f->before[j] = old;
	uint32_t deg = f->outdeg[j];
	if (f->jacobi) {
		f->next[j] = v;
	} else {
		if (!deg)
			f->dangling_delta += v - old;
		double x = deg ? v / deg : 0;
		f->pr[j] = v * f->x_unscale;
		f->x[j] = x * f->x_unscale;
		if (f->sent)
			f->change[i] = propagation_change(x, &f->sent[j], f->stale_scale);
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
	const double *x = e->x + s->lo, *y = e->y;
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
	/* With the vectors on disk, a block at a time, giving back the pages
	 * of x and r below the last source: the thread's sources only go up. */
	uint64_t step = e->p->on_disk ? 1 : b1 - b0;
	for (uint64_t b = b0; b < b1; b += step) {
		const uint32_t *at = buf + (s->block_off[b] - s->block_off[b0]);
		uint64_t last;
		if (e->imp && e->use)
			last = scan_external(s, b, b + step, at, true, true, e->x, w->acc, e->y, e->r);
		else if (e->imp)
			last = scan_external(s, b, b + step, at, true, false, e->x, w->acc, NULL, NULL);
		else
			last = scan_external(s, b, b + step, at, false, true, NULL, NULL, e->y, e->r);
		if (e->p->on_disk && last > w->released) {
			rank_release(e->p, e->x, w->released, last, sizeof(double));
			rank_release(e->p, e->r, w->released, last, sizeof(double));
			w->released = last;
		}
	}
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
	scan_section(w, false);
	return NULL;
}

static void
run_workers(struct engine *e, void *(*fn)(void *))
{
	wa_team_run(&e->team, fn);
}

/* The slice, a part about to be computed: the sums from the parts [b0, b1)
 * and, on disk, this thread's share of the part's pages mapped. */
static void *
gather_work(void *arg)
{
	struct worker *w = arg;
	struct engine *e = w->e;
	const struct slice *s = w->s;
	propagation_gather(&e->pb, s->k, w->b0, w->b1, w->t == 0, w->acc, &w->window);
	uint64_t pages = s->hi - s->lo;
	uint64_t lo = s->lo + pages * w->t / e->nt, hi = s->lo + pages * (w->t + 1) / e->nt;
	/* On disk, the pages the part will write mapped at once, not a fault
	 * for each. */
	if (e->p->on_disk) {
		double *const written[] = { e->pr, e->x, e->pb.sent, e->pb.received };
		for (size_t k = 0; k < sizeof written / sizeof written[0]; k++)
			bin_populate(written[k] + lo, (hi - lo) * sizeof(double));
	}
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
			w->released = 0;
			w->b0 = t ? split_blocks(s, 0, ext, words * t / e->nt, false) : 0;
			if (t)
				e->w[t - 1].b1 = w->b0;
		}
		e->w[e->nt - 1].b1 = ext;
		run_workers(e, external_work);
	}

	/* The internal blocks, in lanes balanced on words plus pages. */
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
			.e = e->v->e, .outdeg = e->outdeg, .pr = e->pr, .x = e->x, .next = e->next,
			.acc = { e->w[0].acc, e->nt > 1 ? e->w[1].acc : NULL }, .more_acc = e->acc,
			.nt = e->nt, .lo = s->lo, .jacobi = e->p->jacobi,
			.renormalize = e->p->renormalize, .x_scale = e->x_scale,
			.x_unscale = 1 / e->x_scale,
			.before = e->remembering ? e->before : NULL,
		};
		if (e->propagating) {
			ln->fin.received = e->pb.received;
			ln->fin.sent = e->pb.sent;
			ln->fin.stale_scale = e->pb.stale_scale;
			ln->fin.change = e->pb.part_change;
		}
	}
	e->lane[e->lanes - 1].b1 = s->blocks;
	e->lane[e->lanes - 1].hi = s->hi;
	if (e->imp && !e->p->jacobi && e->lanes > 1)
		memcpy(e->x_before, e->x + s->lo, pages * sizeof *e->x_before);
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
				e->r[s->lo + i] += e->w[t].use_sums[i];
	release_all(e, s->lo, s->hi);
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
	const double c = e->p->damping, *eu = e->v->e_use;
	double *y = e->y;	/* indexed from s->lo */
	if (e->p->transpose) {
		for (uint64_t m = s->lo; m < s->hi; m++)
			y[m - s->lo] = e->u[m];
	} else if (!e->pushing) {
		for (uint64_t m = s->lo; m < s->hi; m++)
			y[m - s->lo] = e->indeg[m] ? e->u[m] / e->indeg[m] : 0;
	} else {
		double owed = e->pushed_e - e->absorbed[s->k], to_e = 0;
		e->absorbed[s->k] = e->pushed_e;
		for (uint64_t m = s->lo; m < s->hi; m++) {
			double delta = e->r[m] + owed * eu[m];
			e->r[m] = 0;
			e->u[m] += delta;
			change_add(ch, delta);
			if (e->indeg[m]) {
				y[m - s->lo] = c * delta / e->indeg[m];
				to_e += (1 - c) * delta;
			} else {
				y[m - s->lo] = 0;
				to_e += delta;
			}
		}
		e->pushed_e += to_e;
	}
	release_all(e, s->lo, s->hi);
}

/* After a Gauss-Seidel sweep: U and its residual scaled to sum 1. */
static void
normalize_usefulness(struct engine *e)
{
	double sum = vector_sum(e, e->u);
	if (!(sum > 0))
		return;
	double scale = 1 / sum;
	for (uint64_t lo = 0, hi; lo < e->n; lo = hi) {
		hi = chunk_end(e, lo);
		for (uint64_t i = lo; i < hi; i++) {
			e->u[i] *= scale;
			e->r[i] *= scale;
		}
		release_all(e, lo, hi);
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
	const double c = e->p->damping, *eu = e->v->e_use;
	double *v = e->r, scale = 1, dangling = 0;
	bool residual = !e->p->jacobi && !e->p->transpose;
	if (e->p->transpose) {
		double old_sum = 0, new_sum = 0;
		for (uint64_t lo = 0, hi; lo < e->n; lo = hi) {
			hi = chunk_end(e, lo);
			for (uint64_t i = lo; i < hi; i++) {
				v[i] = (e->outdeg[i] ? c * v[i] / e->outdeg[i] : 0) + (1 - c) * eu[i];
				old_sum += e->u[i];
				new_sum += v[i];
			}
			release_all(e, lo, hi);
		}
		scale = new_sum > 0 ? old_sum / new_sum : 1;
	} else {
		for (uint64_t lo = 0, hi; lo < e->n; lo = hi) {
			hi = chunk_end(e, lo);
			for (uint64_t i = lo; i < hi; i++)
				if (!e->indeg[i])
					dangling += e->u[i];
			release_all(e, lo, hi);
		}
	}
	for (uint64_t lo = 0, hi; lo < e->n; lo = hi) {
		hi = chunk_end(e, lo);
		for (uint64_t i = lo; i < hi; i++) {
			double nv = e->p->transpose ? v[i] * scale :
			    c * (v[i] + dangling * eu[i]) + (1 - c) * eu[i];
			change_add(ch, nv - e->u[i]);
			if (residual) {
				v[i] = nv - e->u[i];
			} else {
				e->u[i] = nv;
				v[i] = 0;
			}
		}
		release_all(e, lo, hi);
	}
	e->pushing = residual;
}

/* Jacobi with --renormalize: the sweep's result times r of eq. 2.7, and
 * its change from the iterate before. */
static void
finish_renormalized_jacobi(struct engine *e, struct change *ch)
{
	double scale = vector_sum(e, e->pr) / e->unscaled;
	for (uint64_t lo = 0, hi; lo < e->n; lo = hi) {
		hi = chunk_end(e, lo);
		for (uint64_t j = lo; j < hi; j++) {
			e->next[j] *= scale;
			change_add(ch, e->next[j] - e->pr[j]);
		}
		release_all(e, lo, hi);
	}
}

/* Copies src into dst over all pages. */
static void
copy_vector(struct engine *e, double *dst, const double *src)
{
	for (uint64_t lo = 0, hi; lo < e->n; lo = hi) {
		hi = chunk_end(e, lo);
		memcpy(dst + lo, src + lo, (hi - lo) * sizeof *dst);
		release_all(e, lo, hi);
	}
}

/* Bytes per page of the vectors a run holds, and of its slice buffers. */
static uint64_t
page_bytes(const struct graph *g, const struct rank_params *p, bool imp, bool use,
    bool personalised)
{
	uint64_t b = 8;			/* out- and in-degree */
	if (imp)	/* pr, x; E; Jacobi's next or extrapolation's before */
		b += 16 + (personalised ? 8 : 0) + (p->jacobi || !p->plain ? 8 : 0);
	if (propagation_wanted(g, p, imp, use))
		b += 16;		/* sent and received */
	if (use)
		b += 24;
	return b;
}

/* Per page of the widest slice: the sums of every thread, and the slice's
 * x before its internal links (importance), or its y (usefulness). */
static uint64_t
slice_buffer_bytes(const struct graph *g, const struct rank_params *p, bool imp, bool use)
{
	uint64_t most = 0;
	for (uint32_t k = 0; k < g->slices; k++)
		if (g->bound[k + 1] - g->bound[k] > most)
			most = g->bound[k + 1] - g->bound[k];
	return most * 8 * ((imp ? p->threads + 1 : 0) + (use ? p->threads + 1 : 0));
}

void
rank_plan(const struct graph *g, struct rank_params *p, bool importance, bool usefulness,
    bool personalised)
{
	uint64_t buffers = slice_buffer_bytes(g, p, importance, usefulness);
	uint64_t runs = (uint64_t)(p->threads + 1) * RUN_MIN;
	if (buffers + runs > p->memory)
		wa_die("%s: slices of up to %llu pages need %llu MiB of buffers with %u threads, "
		    "more than -m %llu MiB (fewer threads, or a graph of more slices: "
		    "wa-linkmat -s)", g->dir, (unsigned long long)(buffers / 8 /
		    ((importance + usefulness) * (p->threads + 1))),
		    (unsigned long long)((buffers + runs) >> 20), p->threads,
		    (unsigned long long)(p->memory >> 20));
	/* A quarter of what is left goes to the runs of matrix in flight. */
	p->run_bytes = (p->memory - buffers) / 4 / (p->threads + 1);
	if (p->run_bytes > RUN_MAX)
		p->run_bytes = RUN_MAX;
	if (p->run_bytes < RUN_MIN)
		p->run_bytes = RUN_MIN;
	uint64_t vectors = g->nodes * page_bytes(g, p, importance, usefulness, personalised);
	p->on_disk = vectors + buffers + (p->threads + 1) * p->run_bytes > p->memory;
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

double *
rank_vector_new(const struct rank_params *p, uint64_t n)
{
	if (!p->on_disk)
		return wa_calloc(n, sizeof(double));
	int fd = rank_temp_file(n * sizeof(double));
	void *v = mmap(NULL, n ? n * sizeof(double) : 1, PROT_READ | PROT_WRITE, MAP_SHARED,
	    fd, 0);
	if (v == MAP_FAILED)
		wa_die_errno("%s: cannot map a temporary file", rank_temp_dir());
	close(fd);
	return v;
}

void
rank_vector_free(const struct rank_params *p, double *v, uint64_t n)
{
	if (!v)
		return;
	if (p->on_disk)
		munmap(v, n ? n * sizeof(double) : 1);
	else
		free(v);
}

void
rank_release(const struct rank_params *p, const void *v, uint64_t lo, uint64_t hi,
    size_t size)
{
	if (p->on_disk && v && hi > lo)
		bin_release((const char *)v + lo * size, (hi - lo) * size);
}

static void
engine_open(struct engine *e, const struct graph *g, const struct rank_params *p,
    struct rank_vectors *v)
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
	e->outdeg = graph_map(g, GF_OUTDEG, &e->outdeg_map);
	e->indeg = graph_map(g, GF_INDEG, &e->indeg_map);
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
	uint64_t vec = e->n * page_bytes(g, p, e->imp, e->use, v->e != NULL) +
	    slice_buffer_bytes(g, p, e->imp, e->use) + (p->threads + 1) * p->run_bytes;
	e->streamed = p->on_disk || vec + matrix > p->memory;
	bool *keep = wa_calloc(g->slices, sizeof *keep);
	for (uint32_t k = 0; k < g->slices; k++)
		keep[k] = !e->streamed;
	graph_check_matrix(g, e->slices, e->outdeg, e->indeg, keep, p->run_bytes);
	free(keep);
	if (wa_verbose)
		wa_warn("%llu pages, %llu links in %u slices; matrix %s (%llu MiB), vectors %llu MiB",
		    (unsigned long long)e->n, (unsigned long long)g->links, g->slices,
		    e->streamed ? "read from disk each pass" : "in memory",
		    (unsigned long long)(matrix >> 20), (unsigned long long)(vec >> 20));
	/* Gauss-Seidel importance: the links between parts by propagation
	 * blocking, the parts as the slices of the sweep; in memory if the
	 * budget holds them with the matrix, else in files, the build taking
	 * at most what the vectors and the matrix leave: it ends before the
	 * sweeps' buffers are taken. */
	struct slice *parts;
	if (propagation_wanted(g, p, e->imp, e->use)) {
		bool in_memory = !e->streamed && vec + matrix + propagation_bytes(g) <= p->memory;
		uint64_t held = (p->on_disk ? 0 : vec) + (e->streamed ? 0 : matrix);
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
		wa_warn("the vectors do not fit -m: kept in temporary files, paged");

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
		e->x = rank_vector_new(p, e->n);
		if (p->jacobi)
			e->next = rank_vector_new(p, e->n);
		else
			e->x_before = wa_calloc(e->max_slice_nodes, sizeof(double));
		if (!p->jacobi && !p->plain)
			e->before = rank_vector_new(p, e->n);
	}
	if (e->use) {
		e->u = v->usefulness;
		e->r = rank_vector_new(p, e->n);
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
	rank_vector_free(e->p, e->x, e->n);
	rank_vector_free(e->p, e->next, e->n);
	rank_vector_free(e->p, e->before, e->n);
	rank_vector_free(e->p, e->r, e->n);
	free(e->y);
	free(e->x_before);
	free(e->absorbed);
	bin_map_close(&e->outdeg_map);
	bin_map_close(&e->indeg_map);
}

/* Before the first sweep: every part sends its x whole, and receives. */
static void
propagation_begin(struct engine *e)
{
	for (uint32_t k = 0; k < e->nslices; k++) {
		const struct slice *s = &e->slices[k];
		propagation_send(&e->pb, k, e->x + s->lo);
		scatter_part(e, s);
		release_all(e, s->lo, s->hi);
	}
	for (uint32_t k = 0; k < e->nslices; k++) {
		const struct slice *s = &e->slices[k];
		split_parts(e, s, true);
		run_workers(e, gather_work);
		propagation_receive(&e->pb, k, e->acc, e->nt);
		release_all(e, s->lo, s->hi);
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
	return e->before && !e->extrapolation_failed && since >= EXTRAPOLATION_GAP &&
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
		hi = end - lo < RANK_CHUNK ? end : lo + RANK_CHUNK;
		for (uint64_t j = lo; j < hi; j++) {
			double v = e->pr[j] * scale;
			v += f * (v - e->before[j]);
			if (v < 0)
				v = 0;
			sum += v;
			if (!e->outdeg[j])
				dangling += v;
			e->pr[j] = v / scale;
			if (e->propagating)
				e->x[j] = e->outdeg[j] ? e->pr[j] / e->outdeg[j] : 0;
		}
		release_all(e, lo, hi);
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
	run_workers(e, extrapolate_work);
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
rank_compute(const struct graph *g, const struct rank_params *p, struct rank_vectors *v,
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
		copy_vector(&e, e.u, v->e_use);

	struct progress pg;
	progress_start(&pg, "iterations", p->max_iterations);
	for (unsigned it = 1; it <= p->max_iterations; it++) {
		double t0 = monotonic_seconds();
		struct change ci = { 0 }, cu = { 0 };
		/* The sweep before one that may extrapolate keeps pr as it finds
		 * it. */
		e.remembering = extrapolation_wanted(&e, it);
		e.unscaled = 0;
		for (uint32_t k = 0; k < e.nslices; k++) {
			const struct slice *s = &e.slices[k];
			if (e.use)
				prepare_usefulness(&e, s, &cu);
			scan_slice(&e, s, &ci);
		}
		if (e.imp) {
			if (p->renormalize)
				finish_renormalized_jacobi(&e, &ci);
			if (p->jacobi) {
				double *t = e.pr;
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
				refresh_importance(&e, p->jacobi ? 1 : 1 / vector_sum(&e, e.pr));
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
			hi = chunk_end(&e, lo);
			for (uint64_t j = lo; j < hi; j++)
				e.pr[j] *= e.x_scale;
			release_all(&e, lo, hi);
		}
	if (e.imp && e.pr != v->importance) {	/* Jacobi ended on the other buffer */
		copy_vector(&e, v->importance, e.pr);
		e.next = e.pr;
		e.pr = v->importance;
	}
	engine_close(&e);
}

void
rank_jacobi_part(const struct graph *g, const struct rank_params *p, const double *pr,
    const double *e_vec, uint32_t first, uint32_t end, double *out)
{
	struct rank_params jp = *p;
	jp.jacobi = true;
	struct rank_vectors v = { .importance = (double *)pr, .e = e_vec };
	struct engine e;
	engine_open(&e, g, &jp, &v);
	refresh_importance(&e, 1);
	struct change ch = { 0 };
	for (uint32_t k = first; k < end; k++)
		scan_slice(&e, &e.slices[k], &ch);
	uint64_t lo = g->bound[first], hi = g->bound[end];
	memcpy(out, e.next + lo, (hi - lo) * sizeof *out);
	engine_close(&e);
}

bool
rank_normalize(const struct rank_params *p, double *v, uint64_t n)
{
	double sum = 0;
	for (uint64_t lo = 0; lo < n; lo += RANK_CHUNK) {
		uint64_t hi = n - lo < RANK_CHUNK ? n : lo + RANK_CHUNK;
		for (uint64_t i = lo; i < hi; i++)
			sum += v[i];
		rank_release(p, v, lo, hi, sizeof *v);
	}
	if (!(sum > 0))
		return false;
	for (uint64_t lo = 0; lo < n; lo += RANK_CHUNK) {
		uint64_t hi = n - lo < RANK_CHUNK ? n : lo + RANK_CHUNK;
		for (uint64_t i = lo; i < hi; i++)
			v[i] /= sum;
		rank_release(p, v, lo, hi, sizeof *v);
	}
	return true;
}

/* Rows of URL order between two give-backs of vectors touched in id order. */
#define RELEASE_ROWS 65536

/* The graph's URLs in byte order, with their ids: the join key of every
 * url<TAB>score stream. */
struct url_table {
	struct bin_map urls, ids;
	const char *p, *end;
	const uint32_t *id;
	uint64_t row;
};

static void
url_table_open(const struct graph *g, struct url_table *t)
{
	graph_map(g, GF_URLS, &t->urls);
	t->id = graph_map(g, GF_URLID, &t->ids);
	t->p = t->urls.data;
	t->end = t->p + t->urls.h.payload_bytes;
	t->row = 0;
}

/* The next URL (length in *len, not NUL-terminated) or NULL at the end. */
static const char *
url_table_next(const struct graph *g, struct url_table *t, size_t *len, uint32_t *id)
{
	if (t->p >= t->end)
		return NULL;
	const char *u = t->p, *nl = memchr(u, '\n', (size_t)(t->end - u));
	if (!nl || t->row >= g->nodes)
		wa_die("%s/urls: the URL table is malformed at row %llu", g->dir,
		    (unsigned long long)t->row);
	*len = (size_t)(nl - u);
	*id = t->id[t->row++];
	if (*id >= g->nodes)
		wa_die("%s/urlid: id %u out of range", g->dir, *id);
	t->p = nl + 1;
	return u;
}

static void
url_table_close(struct url_table *t)
{
	bin_map_close(&t->urls);
	bin_map_close(&t->ids);
}

static int
cmp_url(const char *a, size_t alen, const char *b)
{
	size_t blen = strlen(b);
	int c = memcmp(a, b, alen < blen ? alen : blen);
	return c ? c : (alen > blen) - (alen < blen);
}

uint64_t
rank_read_scores(const struct graph *g, const struct rank_params *p, const char *path,
    double *out, uint64_t *unknown)
{
	struct tsv *in = tsv_open(path, 2, 0, 0);
	tsv_check_url(in, 0);
	tsv_check_sorted(in, 0, true);
	struct url_table t;
	url_table_open(g, &t);
	size_t len = 0;
	uint32_t id = 0;
	const char *u = url_table_next(g, &t, &len, &id);
	uint64_t matched = 0;
	*unknown = 0;
	while (tsv_next(in)) {
		/* Ids come in URL order, not id order: give back every page now
		 * and then when the vector is on disk. */
		if (p->on_disk && in->rows % RELEASE_ROWS == 0)
			rank_release(p, out, 0, g->nodes, sizeof *out);
		double score;
		if (!parse_double(in->col[1], &score) || score < 0) {
			tsv_reject(in, "bad score '%.40s' (a number, at least 0)", in->col[1]);
			continue;
		}
		int c;
		while (u && (c = cmp_url(u, len, in->col[0])) < 0)
			u = url_table_next(g, &t, &len, &id);
		if (u && c == 0) {
			out[id] = score;
			matched++;
		} else
			(*unknown)++;
	}
	url_table_close(&t);
	tsv_close(in);
	return matched;
}

/* Rows that one thread turns into text at a time: the URL and the score
 * are gathered in order, the "%.17g" of every score (most of the time of
 * writing the scores) is done by the threads side by side. */
struct format_task {
	const char *url[RELEASE_ROWS];
	uint32_t len[RELEASE_ROWS];
	double score[RELEASE_ROWS];
	unsigned rows;
	char *text;
	size_t bytes, cap;
};

static void *
format_rows(void *arg)
{
	struct format_task *k = arg;
	k->bytes = 0;
	for (unsigned i = 0; i < k->rows; i++) {
		size_t need = k->bytes + k->len[i] + 32;
		if (need > k->cap) {
			k->cap = need * 2;
			k->text = wa_realloc(k->text, k->cap);
		}
		memcpy(k->text + k->bytes, k->url[i], k->len[i]);
		k->bytes += k->len[i];
		k->bytes += (size_t)snprintf(k->text + k->bytes, 32, "\t%.17g\n", k->score[i]);
	}
	return NULL;
}

void
rank_write_scores(const struct graph *g, const struct rank_params *p, const double *score,
    const char *path)
{
	struct atomic_file *af = path ? atomic_open(path) : NULL;
	FILE *f = af ? af->fp : stdout;
	struct url_table t;
	url_table_open(g, &t);
	unsigned nt = p->threads > 1 ? (p->threads < 64 ? p->threads : 64) : 1;
	struct format_task *task = wa_calloc(nt, sizeof *task);
	pthread_t tid[64];
	for (bool more = true; more;) {
		for (unsigned k = 0; k < nt; k++) {
			struct format_task *ft = &task[k];
			size_t len;
			uint32_t id;
			for (ft->rows = 0; ft->rows < RELEASE_ROWS; ft->rows++) {
				const char *u = url_table_next(g, &t, &len, &id);
				if (!u) {
					more = false;
					break;
				}
				ft->url[ft->rows] = u;
				ft->len[ft->rows] = (uint32_t)len;
				ft->score[ft->rows] = score[id];
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
		if (p->on_disk) {
			rank_release(p, score, 0, g->nodes, sizeof *score);
			bin_release(t.urls.data, (size_t)(t.p - (const char *)t.urls.data));
			bin_release(t.id, t.row * sizeof *t.id);
		}
	}
	for (unsigned k = 0; k < nt; k++)
		free(task[k].text);
	free(task);
	url_table_close(&t);
	if (af)
		atomic_commit(af);
	else if (fflush(stdout) != 0 || ferror(stdout))
		wa_die_errno("standard output");
}

void
rank_write_vector(const struct rank_params *p, const char *path, const double *v, uint64_t n)
{
	struct bin_writer *w = bin_create(path, "VEC8", 1);
	for (uint64_t lo = 0; lo < n; lo += RANK_CHUNK) {
		uint64_t hi = n - lo < RANK_CHUNK ? n : lo + RANK_CHUNK;
		bin_write(w, v + lo, (hi - lo) * sizeof *v);
		rank_release(p, v, lo, hi, sizeof *v);
	}
	bin_commit(w, n, NULL);
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

double *
rank_xml_personalisation(const struct graph *g, const struct rank_params *p,
    const double *importance)
{
	struct bin_map m;
	const uint8_t *type = graph_map(g, GF_TYPES, &m);
	double *e = rank_vector_new(p, g->nodes);
	uint64_t xml = 0;
	for (uint64_t i = 0; i < g->nodes; i++)
		if (type[i] == PAGE_XML) {
			e[i] = importance ? importance[i] : 1;
			xml++;
		}
	bin_map_close(&m);
	if (!xml)
		wa_die("%s: no XML pages in the graph, so no usefulness towards them "
		    "(wa-linkmat -p gives page types)", g->dir);
	if (!rank_normalize(p, e, g->nodes))
		wa_die("%s: the XML pages all have importance 0", g->dir);
	return e;
}
