/* Partition I and II (sec. 5.3): the superpages placed in the parts.
 *
 * Partition II is run from four starts, each locally improved by moves
 * and then exchanges of superpages (improve.c), and the best kept: the
 * paper's greedy on superpages; the same greedy on whole subtrees (sites,
 * directories) that splits only what does not fit; runs of superpages in
 * key order; and a multilevel partition of the superpage graph
 * (multilevel.c), which places sites that link to each other together
 * wherever they are in key order.  A crawler that ends within the
 * tolerance of the ideal time counts as on time, so that crossing links
 * decide among balanced choices: the paper's min max T_i alone would
 * trade any number of crossing links for the last page of balance. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "heap.h"
#include "partition.h"

/* r_ij: the rate of the longest prefix of the superpage's first key given
 * for the part in --rates, or 1. */
double
part_rate(const struct partition *p, uint32_t part, uint32_t j)
{
	double r = 1;
	size_t best = 0;
	for (size_t i = 0; i < p->nrate_rows; i++) {
		const struct rate_row *row = &p->rate_rows[i];
		size_t len = strlen(row->prefix);
		if (row->part == part && len >= best &&
		    strncmp(row->prefix, p->sp[j].first, len) == 0) {
			best = len;
			r = row->rate;
		}
	}
	return r;
}

double
not_late(const struct partition *p, double t)
{
	return t > p->on_time ? t : p->on_time;
}

double
part_time(const struct partition *p, uint32_t i)
{
	return p->load[i] + (p->algorithm == 2 ? p->crossing[i] / p->comm : 0);
}

/* The two latest ends of the parts once the links gathered in linkto[]
 * cross to them: the latest in *top1 (part *arg1), the next in *top2, so
 * that the latest of the others is known for any one part. */
static void
latest_two(const struct partition *p, double *top1, double *top2, uint32_t *arg1)
{
	*top1 = *top2 = -INFINITY;
	*arg1 = UINT32_MAX;
	for (uint32_t h = 0; h < p->nparts; h++) {
		double v = part_time(p, h) + p->linkto[h] / p->comm;
		if (v > *top1) {
			*top2 = *top1;
			*top1 = v;
			*arg1 = h;
		} else if (v > *top2)
			*top2 = v;
	}
}

double
gather_links(struct partition *p, uint32_t j, size_t *ntouched)
{
	double sum = 0;
	size_t nt = *ntouched;
	for (uint32_t e = p->sp[j].adj_start; e < p->sp[j].adj_end; e++) {
		uint32_t h = p->sp[p->adj[e].to].part;
		if (h == UINT32_MAX)
			continue;
		if (p->linkto[h] == 0)
			p->touched[nt++] = h;
		p->linkto[h] += p->adj[e].links;
		sum += p->adj[e].links;
	}
	*ntouched = nt;
	return sum;
}

void
clear_links(struct partition *p, size_t nt)
{
	for (size_t i = 0; i < nt; i++)
		p->linkto[p->touched[i]] = 0;
}

void
assign(struct partition *p, uint32_t j, uint32_t s)
{
	size_t nt = 0;
	double sum = gather_links(p, j, &nt);
	p->sp[j].part = s;
	p->load[s] += p->sp[j].weight / part_rate(p, s, j);
	p->crossing[s] += sum - p->linkto[s];
	for (size_t i = 0; i < nt; i++)
		if (p->touched[i] != s)
			p->crossing[p->touched[i]] += p->linkto[p->touched[i]];
	clear_links(p, nt);
}

static int
weight_desc(const void *a, const void *b, void *arg)
{
	const struct superpage *sp = arg;
	const struct superpage *x = &sp[*(const uint32_t *)a], *y = &sp[*(const uint32_t *)b];
	if (x->weight != y->weight)
		return x->weight < y->weight ? 1 : -1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

/* The choice of a part: the lowest cost (the latest end, or the part's
 * own end), ties to the most links, then to the soonest own end. */
struct choice {
	uint32_t part;
	double cost, links, own;
};

static bool
choice_better(const struct choice *best, double cost, double links, double own, bool by_links)
{
	double slack = 1e-12 * (fabs(best->cost) + 1);
	return cost < best->cost - slack || (cost <= best->cost + slack && by_links &&
	    (links > best->links || (links == best->links && own < best->own)));
}

/* The greedy of Partition I (each superpage, heaviest first, to the part
 * that ends soonest with it) and II (to the part that makes the latest
 * end of all parts the soonest, counting the crossing links it adds to
 * every part; ties go to the part it has the most links with). */
static void
greedy(struct partition *p, const uint32_t *order, size_t n)
{
	for (size_t o = 0; o < n; o++) {
		uint32_t j = order[o];
		struct choice best = { 0, INFINITY, -1, INFINITY };
		size_t nt = 0;
		double sum = gather_links(p, j, &nt);
		/* The two largest T_h + links to h / c, for max over h != s. */
		double top1 = -INFINITY, top2 = -INFINITY;
		uint32_t arg1 = UINT32_MAX;
		if (p->algorithm == 2)
			latest_two(p, &top1, &top2, &arg1);
		for (uint32_t s = 0; s < p->nparts; s++) {
			double own = p->load[s] + p->sp[j].weight / part_rate(p, s, j), cost;
			if (p->algorithm == 2) {
				own += (p->crossing[s] + sum - p->linkto[s]) / p->comm;
				double others = s == arg1 ? top2 : top1;
				cost = not_late(p, own > others ? own : others);
			} else
				cost = own;
			if (choice_better(&best, cost, p->linkto[s], own, p->algorithm == 2))
				best = (struct choice){ s, cost, p->linkto[s], own };
		}
		clear_links(p, nt);
		assign(p, j, best.part);
	}
}

struct item {
	double weight;
	uint32_t unit;
};

static inline bool
heavier(const struct item *a, const struct item *b)
{
	return a->weight > b->weight;
}

HEAP_DEFINE(unit_heap, struct item, heavier)

static double
unit_weight(const struct partition *p, uint32_t u)
{
	double w = 0;
	for (uint32_t j = p->units[u].lo; j < p->units[u].hi; j++)
		w += p->sp[j].weight;
	return w;
}

/* Where the greedy of Partition II would put the whole unit u. */
static struct choice
unit_choice(struct partition *p, const struct unit *u)
{
	size_t nt = 0;
	double sum = 0;
	for (uint32_t j = u->lo; j < u->hi; j++)
		sum += gather_links(p, j, &nt);
	double top1, top2;
	uint32_t arg1;
	latest_two(p, &top1, &top2, &arg1);
	struct choice best = { 0, INFINITY, -1, INFINITY };
	for (uint32_t s = 0; s < p->nparts; s++) {
		double own = p->load[s] + (p->crossing[s] + sum - p->linkto[s]) / p->comm;
		for (uint32_t j = u->lo; j < u->hi; j++)
			if (p->sp[j].weight > 0)
				own += p->sp[j].weight / part_rate(p, s, j);
		double others = s == arg1 ? top2 : top1;
		double cost = not_late(p, own > others ? own : others);
		if (choice_better(&best, cost, p->linkto[s], own, true))
			best = (struct choice){ s, cost, p->linkto[s], own };
	}
	clear_links(p, nt);
	return best;
}

/* Intervals of one node, in key order: the roomiest part takes as many
 * of the unit's superpages as fit (at least one, else to part best);
 * returns the first superpage left. */
static uint32_t
fill_roomiest(struct partition *p, const struct unit *u, uint32_t best)
{
	uint32_t roomiest = 0, lo = u->lo, hi = u->hi;
	for (uint32_t h = 1; h < p->nparts; h++)
		if (part_time(p, h) < part_time(p, roomiest))
			roomiest = h;
	uint32_t j = lo;
	for (; j < hi; j++) {
		double w = p->sp[j].weight / part_rate(p, roomiest, j);
		if (w > 0 && part_time(p, roomiest) + w > p->on_time)
			break;
		if (w > 0)
			assign(p, j, roomiest);
	}
	if (j == lo)
		assign(p, j++, best);
	return j;
}

/* Partition II on whole subtrees of the URL tree first: the heaviest unit
 * goes where the greedy above would put it, unless that part would be
 * late.  Then a unit with subtrees gives way to its kids; a unit of
 * intervals only (a flat directory) fills the roomiest part in key order
 * and the rest stays one unit.  So a site or a directory is cut only when
 * it does not fit, and then in as few pieces as the room allows. */
static void
greedy_units(struct partition *p, uint32_t top)
{
	struct item *heap = wa_calloc(2 * p->nunits + 1, sizeof *heap);
	size_t n = 0;

	unit_heap_push(heap, &n, (struct item){ unit_weight(p, top), top });
	while (n) {
		struct item it = unit_heap_pop(heap, &n);
		if (it.weight == 0)
			continue;
		const struct unit *u = &p->units[it.unit];
		struct choice best = unit_choice(p, u);
		if (best.own <= p->on_time || u->hi - u->lo == 1) {
			for (uint32_t j = u->lo; j < u->hi; j++)
				if (p->sp[j].weight > 0)
					assign(p, j, best.part);
			continue;
		}
		bool structured = false;
		for (size_t k = 0; k < u->nkid; k++)
			if (p->units[u->kid[k]].nkid && unit_weight(p, u->kid[k]) > 0)
				structured = true;
		if (structured) {
			/* Too heavy: its subtrees and intervals take its place. */
			for (size_t k = 0; k < u->nkid; k++)
				unit_heap_push(heap, &n,
				    (struct item){ unit_weight(p, u->kid[k]), u->kid[k] });
			continue;
		}
		/* The others stay together for another part. */
		uint32_t hi = u->hi, j = fill_roomiest(p, u, best.part);
		if (j < hi) {
			uint32_t rest = unit_new(p, j, hi);
			unit_heap_push(heap, &n, (struct item){ unit_weight(p, rest), rest });
		}
	}
	free(heap);
}

/* The start of Partition II by runs: the superpages in key order cut
 * into PARTS runs of equal weight, so that a part is a few ranges of
 * neighbouring sites and directories. */
static void
key_order_runs(struct partition *p)
{
	double done = 0, per_part = p->total_weight / p->nparts;
	uint32_t part = 0;
	for (size_t i = 0; i < p->npieces; i++) {
		uint32_t j = p->pieces[i].sp;
		if (p->sp[j].weight == 0 || p->sp[j].part != UINT32_MAX)
			continue;
		if (part + 1 < p->nparts && done + p->sp[j].weight / 2 > per_part * (part + 1))
			part++;
		assign(p, j, part);
		done += p->sp[j].weight;
	}
}

/* Re-partitioning from last cycle's rules (sec. 4.3): each superpage
 * keeps its previous part; a part whose load ends above (1 + TOL) times
 * the ideal time gives up its lightest superpages until it ends at most
 * at the ideal time.  Leaves the superpages to place in order[] (heaviest
 * first) and returns their number; *kept_weight is the weight of the
 * others. */
static size_t
keep_previous(struct partition *p, uint32_t *order, size_t n, double *kept_weight)
{
	struct superpage *sp = p->sp;
	struct rules prev = { 0 };
	rules_load(p->previous_path, &prev);
	double avg = p->on_time / (1 + p->tolerance);
	for (size_t o = 0; o < n; o++) {
		uint32_t j = order[o];
		uint32_t part = prev.part[find_range(prev.key, prev.n, sp[j].first)];
		if (part < p->nparts) {
			sp[j].part = part;
			p->load[part] += sp[j].weight / part_rate(p, part, j);
		}
	}
	rules_free(&prev);
	/* Lightest first (order[] is heaviest first), until the part is at
	 * the average. */
	bool *shedding = wa_calloc(p->nparts, sizeof *shedding);
	for (uint32_t h = 0; h < p->nparts; h++)
		shedding[h] = p->load[h] > (1 + p->tolerance) * avg;
	for (size_t o = n; o-- > 0;) {
		uint32_t j = order[o], h = sp[j].part;
		if (h != UINT32_MAX && shedding[h]) {
			p->load[h] -= sp[j].weight / part_rate(p, h, j);
			sp[j].part = UINT32_MAX;
			shedding[h] = p->load[h] > avg;
		}
	}
	free(shedding);
	size_t left = 0;
	*kept_weight = 0;
	for (size_t o = 0; o < n; o++) {
		uint32_t j = order[o];
		if (sp[j].part == UINT32_MAX)
			order[left++] = j;
		else
			*kept_weight += sp[j].weight;
	}
	/* The crossing links among the kept superpages. */
	for (uint32_t j = 0; j < p->nsp; j++)
		for (uint32_t e = sp[j].adj_start; e < sp[j].adj_end; e++) {
			uint32_t a = sp[j].part, b = sp[p->adj[e].to].part;
			if (a != UINT32_MAX && b != UINT32_MAX && a != b)
				p->crossing[a] += p->adj[e].links;
		}
	return left;
}

/* Latest end (with the tolerance), then crossing links. */
static void
score(const struct partition *p, double *latest, double *links)
{
	*latest = 0;
	*links = 0;
	for (uint32_t i = 0; i < p->nparts; i++) {
		if (part_time(p, i) > *latest)
			*latest = part_time(p, i);
		*links += p->crossing[i];
	}
	*latest = not_late(p, *latest);
}

/* Empties every part. */
static void
unassign_all(struct partition *p)
{
	for (uint32_t j = 0; j < p->nsp; j++)
		p->sp[j].part = UINT32_MAX;
	memset(p->load, 0, p->nparts * sizeof *p->load);
	memset(p->crossing, 0, p->nparts * sizeof *p->crossing);
}

/* Partition II from each start, each locally improved; the best stays:
 * the greedy on superpages (the paper's), the same on whole subtrees
 * first, runs in key order, and the multilevel partition. */
static void
best_of_starts(struct partition *p, const uint32_t *order, size_t n, uint32_t top)
{
	static const char *const start_name[] = { "superpages", "subtrees", "key order",
	    "multilevel" };
	uint32_t *best = wa_calloc(p->nsp + 1, sizeof *best);
	double best_latest = INFINITY, best_links = INFINITY;
	for (int start = 0; start < 4; start++) {
		unassign_all(p);
		if (start == 0)
			greedy(p, order, n);
		else if (start == 1)
			greedy_units(p, top);
		else if (start == 2)
			key_order_runs(p);
		else
			multilevel(p);
		improve_moves(p);
		improve_swaps(p);
		double latest, links;
		score(p, &latest, &links);
		if (wa_verbose)
			wa_note("from %s: latest end %.6g, %.6g crossing links",
			    start_name[start], latest, links / 2);
		if (latest < best_latest * (1 - 1e-9) || (latest <= best_latest *
		    (1 + 1e-9) && links < best_links)) {
			best_latest = latest;
			best_links = links;
			for (uint32_t j = 0; j < p->nsp; j++)
				best[j] = p->sp[j].part;
		}
	}
	unassign_all(p);
	for (uint32_t j = 0; j < p->nsp; j++)
		if (best[j] != UINT32_MAX)
			assign(p, j, best[j]);
	free(best);
}

/* The ideal time: all crawlers busy to the end, each superpage of
 * order[0..n) shared among them at their rates. */
static double
ideal_time(const struct partition *p, const uint32_t *order, size_t n)
{
	double ideal = 0;
	for (size_t o = 0; o < n; o++) {
		double rates = 0;
		for (uint32_t i = 0; i < p->nparts; i++)
			rates += part_rate(p, i, order[o]);
		ideal += p->sp[order[o]].weight / rates;
	}
	return ideal;
}

void
place(struct partition *p, uint32_t top)
{
	uint32_t *order = wa_calloc(p->nsp + 1, sizeof *order);
	size_t n = 0;
	p->load = wa_calloc(p->nparts, sizeof *p->load);
	p->crossing = wa_calloc(p->nparts, sizeof *p->crossing);
	p->linkto = wa_calloc(p->nparts, sizeof *p->linkto);
	p->touched = wa_calloc(p->nparts, sizeof *p->touched);
	for (uint32_t j = 0; j < p->nsp; j++)
		if (p->sp[j].weight > 0)
			order[n++] = j;
	qsort_r(order, n, sizeof *order, weight_desc, p->sp);
	p->on_time = (1 + p->tolerance) * ideal_time(p, order, n);
	if (p->previous_path) {
		double kept;
		size_t left = keep_previous(p, order, n, &kept);
		greedy(p, order, left);
		if (!wa_quiet)
			wa_note("%zu superpages (%.4g%% of the weight) kept their part",
			    n - left, 100 * kept / p->total_weight);
	} else if (p->algorithm == 1) {
		greedy(p, order, n);
		improve_moves(p);
	} else
		best_of_starts(p, order, n, top);
	if (wa_verbose)
		for (uint32_t i = 0; i < p->nparts; i++)
			wa_note("part %u: load %.6g, crossing links %.6g, time %.6g", i,
			    p->load[i], p->crossing[i], part_time(p, i));
	free(order);
	free(p->load);
	free(p->crossing);
	free(p->linkto);
	free(p->touched);
}
