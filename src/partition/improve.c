/* Local improvement of a placement (sec. 5.3): moves of one superpage,
 * then (Partition II) exchanges of two. */
#include <stdlib.h>
#include <string.h>

#include "partition.h"

/* The superpage links looked at by the exchanges of one start, at most:
 * about a second of work. */
#define SWAP_WORK 100000000u

/* The three latest parts in top[], for the max over the others, and the
 * soonest in *least. */
static void
latest_three(const struct partition *p, uint32_t top[3], uint32_t *least)
{
	top[0] = top[1] = top[2] = UINT32_MAX;
	*least = 0;
	for (uint32_t h = 0; h < p->nparts; h++) {
		double t = part_time(p, h);
		if (t < part_time(p, *least))
			*least = h;
		for (int i = 0; i < 3; i++)
			if (top[i] == UINT32_MAX || t > part_time(p, top[i])) {
				for (int m = 2; m > i; m--)
					top[m] = top[m - 1];
				top[i] = h;
				break;
			}
	}
}

/* The part j should move to (among those it links to and the soonest),
 * or UINT32_MAX; linkto[] and touched[0..nt) hold j's links. */
static uint32_t
best_move(struct partition *p, uint32_t j, size_t nt, double sum)
{
	uint32_t top[3], least;
	latest_three(p, top, &least);
	double cur_max = p->algorithm == 2 ? not_late(p, part_time(p, top[0])) :
	    part_time(p, top[0]);
	uint32_t from = p->sp[j].part;
	double w_from = p->sp[j].weight / part_rate(p, from, j);
	uint32_t best = UINT32_MAX;
	double best_max = cur_max, best_gain = 0;
	for (size_t c = 0; c <= nt; c++) {
		uint32_t q = c < nt ? p->touched[c] : least;
		if (q == from)
			continue;
		double tp = p->load[from] - w_from, tq = p->load[q] + p->sp[j].weight / part_rate(p, q, j);
		double gain = 0;
		if (p->algorithm == 2) {
			tp += (p->crossing[from] - (sum - p->linkto[from]) + p->linkto[from]) / p->comm;
			tq += (p->crossing[q] + (sum - p->linkto[q]) - p->linkto[q]) / p->comm;
			gain = p->linkto[q] - p->linkto[from];
		}
		double m = tp > tq ? tp : tq;
		for (int i = 0; i < 3; i++)
			if (top[i] != UINT32_MAX && top[i] != from && top[i] != q) {
				if (part_time(p, top[i]) > m)
					m = part_time(p, top[i]);
				break;
			}
		if (p->algorithm == 2)
			m = not_late(p, m);
		double slack = 1e-9 * (cur_max + 1);
		if (m < best_max - slack || (m <= best_max + slack && gain > best_gain)) {
			best = q;
			best_max = m < best_max ? m : best_max;
			best_gain = gain;
		}
	}
	return best;
}

/* Moves one superpage at a time while it lowers the latest end max T_i,
 * or (Partition II) keeps it and lowers the number of crossing links. */
void
improve_moves(struct partition *p)
{
	for (int pass = 0; pass < 50; pass++) {
		bool moved = false;
		for (uint32_t j = 0; j < p->nsp; j++) {
			if (p->sp[j].weight == 0)
				continue;
			uint32_t from = p->sp[j].part;
			size_t nt = 0;
			double sum = gather_links(p, j, &nt);
			uint32_t best = best_move(p, j, nt, sum);
			if (best != UINT32_MAX) {
				p->crossing[from] -= sum - 2 * p->linkto[from];
				p->crossing[best] += sum - 2 * p->linkto[best];
				p->load[from] -= p->sp[j].weight / part_rate(p, from, j);
				p->load[best] += p->sp[j].weight / part_rate(p, best, j);
				p->sp[j].part = best;
				moved = true;
			}
			clear_links(p, nt);
		}
		if (!moved)
			break;
	}
}

/* Moves superpage j to part q, keeping load[] and crossing[] exact. */
static void
move_superpage(struct partition *p, uint32_t j, uint32_t q)
{
	uint32_t from = p->sp[j].part;
	size_t nt = 0;
	double sum = gather_links(p, j, &nt);
	p->crossing[from] -= sum - 2 * p->linkto[from];
	p->crossing[q] += sum - 2 * p->linkto[q];
	p->load[from] -= p->sp[j].weight / part_rate(p, from, j);
	p->load[q] += p->sp[j].weight / part_rate(p, q, j);
	p->sp[j].part = q;
	clear_links(p, nt);
}

static double
latest_end(const struct partition *p)
{
	double m = 0;
	for (uint32_t h = 0; h < p->nparts; h++)
		if (part_time(p, h) > m)
			m = part_time(p, h);
	return not_late(p, m);
}

/* The members of each part: those of part h are
 * member[first[h]..first[h + 1]), by a counting sort. */
static void
list_members(const struct partition *p, uint32_t *first, uint32_t *member)
{
	const struct superpage *sp = p->sp;
	memset(first, 0, (p->nparts + 1) * sizeof *first);
	for (uint32_t j = 0; j < p->nsp; j++)
		if (sp[j].part != UINT32_MAX)
			first[sp[j].part + 1]++;
	for (uint32_t h = 0; h < p->nparts; h++)
		first[h + 1] += first[h];
	uint32_t *at = wa_calloc(p->nparts, sizeof *at);
	for (uint32_t j = 0; j < p->nsp; j++)
		if (sp[j].part != UINT32_MAX)
			member[first[sp[j].part] + at[sp[j].part]++] = j;
	free(at);
}

/* The superpage of part q that j in part `from` should trade places with,
 * or UINT32_MAX: the one that cuts the most links without making the
 * latest end, cur, later by the loads.  linkto[] and touched[0..nt) hold
 * j's links, with_j[] its links by superpage; *work counts the links
 * looked at. */
static uint32_t
best_swap(const struct partition *p, uint32_t j, size_t nt, const double *with_j,
    const uint32_t *first, const uint32_t *member, double cur, uint64_t *work)
{
	const struct superpage *sp = p->sp;
	uint32_t from = sp[j].part, best_i = UINT32_MAX;
	double best_gain = 0;
	for (size_t c = 0; c < nt; c++) {
		uint32_t q = p->touched[c];
		if (q == from)
			continue;
		for (uint32_t m = first[q]; m < first[q + 1]; m++) {
			uint32_t i = member[m];
			if (sp[i].part != q)
				continue;	/* moved this pass */
			double to_p = 0, to_q = 0;
			*work += sp[i].adj_end - sp[i].adj_start + 1;
			for (uint32_t e = sp[i].adj_start; e < sp[i].adj_end; e++) {
				uint32_t h = sp[p->adj[e].to].part;
				if (h == from)
					to_p += p->adj[e].links;
				else if (h == q)
					to_q += p->adj[e].links;
			}
			double gain = p->linkto[q] - p->linkto[from] + to_p - to_q - 2 * with_j[i];
			if (gain <= best_gain)
				continue;
			/* Loads only, for a first look at the balance. */
			double tp = p->load[from] - sp[j].weight / part_rate(p, from, j) +
			    sp[i].weight / part_rate(p, from, i);
			double tq = p->load[q] - sp[i].weight / part_rate(p, q, i) +
			    sp[j].weight / part_rate(p, q, j);
			if (not_late(p, tp > tq ? tp : tq) > cur)
				continue;
			best_gain = gain;
			best_i = i;
		}
	}
	return best_i;
}

/* Local improvement by exchanges (Partition II): a superpage j and a
 * superpage i of a part that j links to trade parts when that cuts
 * crossing links without making the latest end later.  Single moves stop
 * where every part is full; exchanges go on. */
void
improve_swaps(struct partition *p)
{
	const struct superpage *sp = p->sp;
	double *with_j = wa_calloc(p->nsp + 1, sizeof *with_j);
	uint32_t *member = wa_calloc(p->nsp + 1, sizeof *member);
	uint32_t *first = wa_calloc(p->nparts + 1, sizeof *first);

	uint64_t work = 0;
	for (int pass = 0; pass < 10 && work < SWAP_WORK; pass++) {
		bool swapped = false;
		list_members(p, first, member);
		for (uint32_t j = 0; j < p->nsp && work < SWAP_WORK; j++) {
			uint32_t from = sp[j].part;
			if (from == UINT32_MAX)
				continue;
			size_t nt = 0;
			gather_links(p, j, &nt);
			for (uint32_t e = sp[j].adj_start; e < sp[j].adj_end; e++)
				with_j[p->adj[e].to] = p->adj[e].links;
			double cur = latest_end(p);
			uint32_t i = best_swap(p, j, nt, with_j, first, member, cur, &work);
			clear_links(p, nt);
			for (uint32_t e = sp[j].adj_start; e < sp[j].adj_end; e++)
				with_j[p->adj[e].to] = 0;
			if (i == UINT32_MAX)
				continue;
			uint32_t q = sp[i].part;
			move_superpage(p, j, q);
			move_superpage(p, i, from);
			if (latest_end(p) > cur * (1 + 1e-12)) {
				move_superpage(p, i, q);
				move_superpage(p, j, from);
			} else
				swapped = true;
		}
		if (!swapped)
			break;
	}
	free(with_j);
	free(member);
	free(first);
}
