#include <string.h>

#include "rankengine.h"

/* The internal section of a slice is cut into lanes (rankengine.h): a
 * lane for every this many pages of a slice. */
#define LANE_PAGES 4096
/* A part of propagation blocking (propagate.h) has a lane more than it has
 * this many pages, five: on a generated site graph of 2^24 pages
 * Gauss-Seidel took 41 iterations to an L1 change of 1e-9 so (40 with
 * five equal lanes), against 40 with one lane, 46 with four equal ones
 * and 59 with eight: the fewer lanes, the more links within a part see
 * the values of this sweep. */
#define PART_LANE_PAGES 16384

void
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

void
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

bool
span_next(const struct engine *e, struct span *sp, uint64_t end)
{
	uint64_t lo = sp->hi;
	if (sp->hi > sp->lo)
		span_close(e, sp);
	if (lo >= end)
		return false;
	span_open(e, sp, lo, rank_chunk_end(e->plan, end, lo));
	return true;
}

/* x from pr over a span: pr / outdeg, 0 for a page without out-links. */
void
set_contributions(struct span *sp)
{
	for (uint64_t i = 0; i < sp->hi - sp->lo; i++)
		sp->x[i] = sp->outdeg[i] ? sp->pr[i] / sp->outdeg[i] : 0;
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
	uint64_t pages = e->plan->run_bytes / sizeof(double);
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
	if (!e->plan->on_disk)
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
	if (e->plan->on_disk && imp && use)
		last = scan_external(e, s, b0, b1, buf, true, true, true, &w->win, w->acc, e->y);
	else if (e->plan->on_disk && imp)
		last = scan_external(e, s, b0, b1, buf, true, false, true, &w->win, w->acc, NULL);
	else if (e->plan->on_disk)
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
		b1 = slice_read_run(s, b0, w->b1, w->e->plan->run_bytes, &w->buf, &w->buf_cap);
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
	if (w->e->plan->on_disk && w->win.hi)
		source_window_end(w->e, w->s, &w->win, w->last_source + 1);
	return NULL;
}

void
run_workers(struct engine *e, void *(*fn)(void *))
{
	wa_team_run(&e->team, fn);
}

void *
gather_work(void *arg)
{
	struct worker *w = arg;
	struct engine *e = w->e;
	propagation_gather(&e->pb, w->s->k, w->b0, w->b1, w->t == 0 ? e->span->received : NULL,
	    w->acc, &w->window);
	return NULL;
}

void
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

void
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

void
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

