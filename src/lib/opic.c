/* opic: OPIC, On-line Page Importance Computation, after Abiteboul,
 * Preda, Cobena, "Adaptive On-Line Page Importance Computation" (WWW
 * 2003), on integer page ids: cash and history per page, the
 * virtual page of sec. 1 ("small edges"; every page links to it, it links
 * to every page) whose cash is spread lazily, Lemma 2.3's estimate, and
 * Adaptive OPIC's window policies of sec. 3: Interpolation, Variable
 * Window, Fixed Window and Improved Fixed Window (sec. 4).  Time counts
 * page reads, or seconds given by the caller. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "heap.h"
#include "opic.h"
#include "wa.h"

/* New pages get the mean history of the pages introduced just before. */
#define RECENT 64

void
opic_init(struct opic *o, enum opic_policy policy, enum opic_unit unit, double c,
    double window, size_t keep)
{
	*o = (struct opic){ .policy = policy, .unit = unit, .c = c, .window = window,
	    .keep = keep, .focus_share = 0.5, .virt_cash = 1 };
}

void
opic_free(struct opic *o)
{
	for (size_t i = 0; i < o->n; i++)
		free(o->page[i].m);
	free(o->page);
	free(o->cash);
}

void
opic_reserve(struct opic *o, size_t n)
{
	if (n <= o->cap)
		return;
	o->cap = n;
	o->page = wa_reallocarray(o->page, o->cap, sizeof *o->page);
	o->cash = wa_reallocarray(o->cash, o->cap, sizeof *o->cash);
}

/* The OPIC paper, sec. 3: a new page gets a default history, the importance
 * of recently introduced pages (here the mean history of the RECENT pages
 * introduced last), and no cash, so the total cash stays 1. */
uint32_t
opic_add_page(struct opic *o, double t)
{
	size_t i = o->n;
	if (i == OPIC_MAX_PAGES)
		wa_die("more than %zu pages", (size_t)OPIC_MAX_PAGES);
	if (i == o->cap)
		opic_reserve(o, o->cap ? 2 * o->cap : 1024);
	size_t from = i > RECENT ? i - RECENT : 0;
	double h = 0;
	for (size_t k = from; k < i; k++)
		h += o->page[k].hist;
	o->page[i] = (struct opic_page){ .hist = i ? h / (double)(i - from) : 0,
	    .t_last = t, .base = t };
	o->cash[i] = (struct opic_cash){ .seen = o->spread };
	o->n++;
	return (uint32_t)i;
}

size_t
opic_measure_limit(const struct opic *o)
{
	return o->policy == OPIC_VARIABLE_WINDOW ? o->keep :
	    o->policy == OPIC_FIXED_WINDOW ? OPIC_MAX_MEASURES : 0;
}

static inline void
collect(struct opic_cash *p, double spread)
{
	p->cash += spread - p->seen;
	p->seen = spread;
}

/* The virtual page is read after every page: it spreads its cash over all
 * pages, part of it first to the focus pages. */
static void
read_virtual(struct opic *o, const uint32_t *focused, size_t nfocused)
{
	double give = o->virt_cash;
	o->virt_hist += give;
	o->virt_cash = 0;
	if (nfocused) {
		double each = give * o->focus_share / (double)nfocused;
		for (size_t k = 0; k < nfocused; k++)
			o->cash[focused[k]].cash += each;
		give -= each * (double)nfocused;
	}
	o->spread += give / (double)o->n;
}

/* Drops the d oldest measures of p. */
static void
drop_measures(struct opic_page *p, size_t d)
{
	p->base = p->m[d - 1].time;
	memmove(p->m, p->m + d, (p->nm - d) * sizeof *p->m);
	p->nm -= (uint32_t)d;
}

static void
sum_measures(struct opic_page *p)
{
	double h = 0;
	for (size_t k = 0; k < p->nm; k++)
		h += p->m[k].cash;
	p->hist = h;
}

/* Fixed Window at time now: the measures older than now - T go, but the
 * M newest stay (Improved Fixed Window).  Whether any went. */
static bool
expire_measures(const struct opic *o, struct opic_page *p, double now)
{
	size_t d = 0;
	while (p->nm - d > o->keep && p->m[d].time < now - o->window)
		d++;
	if (d)
		drop_measures(p, d);
	return d > 0;
}

/* Variable Window: the K newest measures stay; Fixed Window: those of the
 * window, and at most OPIC_MAX_MEASURES.  The history is their sum. */
static void
add_measure(struct opic *o, struct opic_page *p, double cash, double t, double now)
{
	size_t limit = opic_measure_limit(o);
	if (p->nm == limit) {
		drop_measures(p, 1);
		if (o->policy == OPIC_FIXED_WINDOW)
			o->capped++;
	}
	if (p->nm == p->mcap) {
		size_t cap = p->mcap ? 2 * (size_t)p->mcap : 2;
		p->mcap = (uint32_t)(cap < limit ? cap : limit);
		p->m = wa_reallocarray(p->m, p->mcap, sizeof *p->m);
	}
	p->m[p->nm++] = (struct opic_measure){ cash, t };
	if (o->policy == OPIC_FIXED_WINDOW)
		expire_measures(o, p, now);
	sum_measures(p);
}

/* The history takes the cash, c of it goes to the children, the rest (all
 * of it without children) to the virtual page.  Interpolation, the OPIC
 * paper's sec. 3: the history stands for the window T before the last read,
 * and the cash for the dt since; the cash is taken to have accumulated
 * linearly over dt, so H' = H (T - dt)/T + cash when dt < T, and only the
 * last T of it, H' = cash T/dt, when dt >= T.  The windows add a measure. */
void
opic_read(struct opic *o, uint32_t src, const uint32_t *child, size_t nchild,
    const uint32_t *focused, size_t nfocused, double t)
{
	struct opic_page *p = &o->page[src];
	struct opic_cash *pc = &o->cash[src];
	double spread = o->spread;
	collect(pc, spread);
	double cash = pc->cash;
	/* The clock after this read: a read takes one unit of reads. */
	double now = o->unit == OPIC_READS ? t + 1 : fmax(o->now, t);
	switch (o->policy) {
	case OPIC_PLAIN:
		p->hist += cash;
		break;
	case OPIC_INTERPOLATION: {
		double dt = t - p->t_last;
		p->hist = dt < o->window ? p->hist * (o->window - dt) / o->window + cash :
		    cash * o->window / dt;
		break;
	}
	case OPIC_VARIABLE_WINDOW:
	case OPIC_FIXED_WINDOW:
		add_measure(o, p, cash, t, now);
		break;
	}
	p->t_last = t;
	pc->cash = 0;
	double to_children = nchild ? o->c * cash : 0;
	double each = nchild ? to_children / (double)nchild : 0;
	for (size_t k = 0; k < nchild; k++) {
		struct opic_cash *q = &o->cash[child[k]];
		collect(q, spread);
		q->cash += each;
	}
	o->virt_cash += cash - to_children;
	o->reads++;
	o->now = now;
	read_virtual(o, focused, nfocused);
}

void
opic_settle(struct opic *o)
{
	for (size_t i = 0; i < o->n; i++) {
		collect(&o->cash[i], o->spread);
		struct opic_page *p = &o->page[i];
		if (o->policy == OPIC_FIXED_WINDOW && expire_measures(o, p, o->now))
			sum_measures(p);
	}
}

/* The time H + C of page p covers, at least one time unit: with the
 * Variable or Fixed Window, since the time before the oldest kept measure;
 * with Interpolation, the window before the last read (or the time since
 * the introduction, if shorter) plus the time since the last read. */
static double
covered_time(const struct opic *o, const struct opic_page *p)
{
	double t;
	if (o->policy == OPIC_INTERPOLATION)
		t = fmin(o->window, p->t_last - p->base) + (o->now - p->t_last);
	else
		t = o->now - p->base;
	return fmax(t, 1);
}

/* (H[i] + C[i]) / sum over the known pages, the estimate of the OPIC
 * paper's sec. 2 restricted to the real pages so that it compares with a
 * PageRank vector; with a window policy, H + C is first divided by the time
 * it covers, so that a page read rarely, whose cash covers a long time, is
 * not overestimated beside one read often. */
void
opic_importance(const struct opic *o, double *key)
{
	bool windowed = o->policy != OPIC_PLAIN;
	double total = 0;
	for (size_t i = 0; i < o->n; i++) {
		key[i] = o->page[i].hist + o->cash[i].cash;
		if (windowed)
			key[i] /= covered_time(o, &o->page[i]);
		total += key[i];
	}
	if (total != 0)
		for (size_t i = 0; i < o->n; i++)
			key[i] /= total;
}

struct greedy {
	const struct opic *o;
	bool (*tie_before)(uint32_t, uint32_t, void *);
	void *arg;
};

/* More cash first, then the caller's order. */
static bool
before(const struct greedy *g, uint32_t i, uint32_t j)
{
	double a = g->o->cash[i].cash, b = g->o->cash[j].cash;
	if (a != b)
		return a > b;
	return g->tie_before(i, j, g->arg);
}

/* The heap of the pages kept: the last of them on top. */
static inline bool
later(const struct greedy *g, const uint32_t *a, const uint32_t *b)
{
	return before(g, *b, *a);
}

HEAP_DEFINE_CTX(kept, uint32_t, struct greedy, later)

static int
by_cash(const void *a, const void *b, void *arg)
{
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	return before(arg, i, j) ? -1 : before(arg, j, i);
}

size_t
opic_greedy(const struct opic *o, size_t k, uint32_t *order,
    bool (*tie_before)(uint32_t, uint32_t, void *), void *arg)
{
	struct greedy g = { o, tie_before, arg };
	size_t have = 0;
	if (k > o->n)
		k = o->n;
	/* The k first into order[0..k): a heap whose root is the last of
	 * those kept. */
	for (uint32_t i = 0; i < o->n; i++) {
		if (have < k) {
			kept_push(&g, order, &have, i);
		} else if (before(&g, i, order[0])) {
			order[0] = i;
			kept_sift_down(&g, order, k, 0);
		}
	}
	qsort_r(order, k, sizeof *order, by_cash, &g);
	return k;
}
