/* The multilevel start of Partition II.
 *
 * Teng et al. (sec. 3) coarsen the web graph into super-nodes that keep
 * its locality, and partition the coarse graph.  The superpages are such a
 * coarsening by the URL tree; this start coarsens them further by the
 * links (as METIS does: Karypis and Kumar, "A Fast and High Quality
 * Multilevel Scheme for Partitioning Irregular Graphs", 1998): superpages
 * that share many links join one group, lightest first, as long as a
 * group fits in a part, and the groups in turn, until a level hardly
 * shrinks.  The coarsest groups go, heaviest first, to the part they have
 * the most links with among those with room; each level on the way back
 * moves its nodes to the part they link to most while the parts stay
 * within the tolerance.  So related sites (linked superpages) end in one
 * part, and a site too big for a part is cut where its pieces share the
 * fewest links.  Loads here are weights: the rates of --rates enter with the
 * local improvement that follows, as for the other starts. */
#include <math.h>
#include <stdlib.h>

#include "partition.h"

struct level {
	uint32_t n;
	double *w;
	uint32_t *start;	/* n + 1: the edges of node v are start[v].. */
	uint32_t *to;
	double *links;
	uint32_t *group;	/* the node of the next level that holds v */
	uint32_t *part;
};

#define LEVELS_MAX 64

/* Adds links to acc[h], listing h in seen[*ns...] the first time. */
static inline void
tally(double *acc, uint32_t *seen, size_t *ns, uint32_t h, double links)
{
	if (acc[h] == 0)
		seen[(*ns)++] = h;
	acc[h] += links;
}

static void
level_free(struct level *l)
{
	free(l->w);
	free(l->start);
	free(l->to);
	free(l->links);
	free(l->group);
	free(l->part);
}

static int
by_weight_asc(const void *a, const void *b, void *arg)
{
	const double *w = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	if (w[x] != w[y])
		return w[x] < w[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* Groups the nodes of l (l->group, returns their number): each node in
 * turn, lightest first, joins the group or the ungrouped neighbour it
 * shares the most links with, if the sum weighs at most cap. */
static uint32_t
group_nodes(struct level *l, double cap, double *acc, uint32_t *seen)
{
	uint32_t *order = wa_calloc(l->n + 1, sizeof *order);
	double *gw = wa_calloc(l->n + 1, sizeof *gw);
	uint32_t ng = 0;
	for (uint32_t v = 0; v < l->n; v++) {
		order[v] = v;
		l->group[v] = UINT32_MAX;
	}
	qsort_r(order, l->n, sizeof *order, by_weight_asc, l->w);
	for (uint32_t o = 0; o < l->n; o++) {
		uint32_t v = order[o];
		if (l->group[v] != UINT32_MAX)
			continue;
		/* acc[] by group; an ungrouped neighbour u is scored as the
		 * pair (v, u) under the id ng + u. */
		size_t ns = 0;
		for (uint32_t e = l->start[v]; e < l->start[v + 1]; e++) {
			uint32_t u = l->to[e];
			uint32_t g = l->group[u] != UINT32_MAX ? l->group[u] : ng + u;
			tally(acc, seen, &ns, g, l->links[e]);
		}
		uint32_t best = UINT32_MAX;
		double best_links = 0;
		for (size_t i = 0; i < ns; i++) {
			uint32_t g = seen[i];
			double w = g < ng ? gw[g] : l->w[g - ng];
			if (w + l->w[v] <= cap && (acc[g] > best_links ||
			    (acc[g] == best_links && g < best))) {
				best = g;
				best_links = acc[g];
			}
			acc[g] = 0;
		}
		if (best == UINT32_MAX || best >= ng) {
			if (best != UINT32_MAX) {
				l->group[best - ng] = ng;
				gw[ng] = l->w[best - ng];
			}
			l->group[v] = ng;
			gw[ng++] += l->w[v];
		} else {
			l->group[v] = best;
			gw[best] += l->w[v];
		}
	}
	free(order);
	free(gw);
	return ng;
}

/* The level of the groups of l. */
static void
coarsen(const struct level *l, uint32_t ng, struct level *c, double *acc, uint32_t *seen)
{
	uint32_t *first = wa_calloc(ng + 2, sizeof *first);
	uint32_t *member = wa_calloc(l->n + 1, sizeof *member);
	for (uint32_t v = 0; v < l->n; v++)
		first[l->group[v] + 2]++;
	for (uint32_t g = 0; g < ng; g++)
		first[g + 2] += first[g + 1];
	for (uint32_t v = 0; v < l->n; v++)
		member[first[l->group[v] + 1]++] = v;
	c->n = ng;
	c->w = wa_calloc(ng + 1, sizeof *c->w);
	c->start = wa_calloc(ng + 1, sizeof *c->start);
	c->group = wa_calloc(ng + 1, sizeof *c->group);
	c->part = wa_calloc(ng + 1, sizeof *c->part);
	size_t cap = 0, ne = 0;
	c->to = NULL;
	c->links = NULL;
	for (uint32_t g = 0; g < ng; g++) {
		size_t ns = 0;
		for (uint32_t m = first[g]; m < first[g + 1]; m++) {
			uint32_t v = member[m];
			c->w[g] += l->w[v];
			for (uint32_t e = l->start[v]; e < l->start[v + 1]; e++) {
				uint32_t h = l->group[l->to[e]];
				if (h == g)
					continue;
				tally(acc, seen, &ns, h, l->links[e]);
			}
		}
		if (ne + ns > cap) {
			cap = 2 * (ne + ns) + 16;
			c->to = wa_reallocarray(c->to, cap, sizeof *c->to);
			c->links = wa_reallocarray(c->links, cap, sizeof *c->links);
		}
		c->start[g] = (uint32_t)ne;
		for (size_t i = 0; i < ns; i++) {
			c->to[ne] = seen[i];
			c->links[ne++] = acc[seen[i]];
			acc[seen[i]] = 0;
		}
	}
	c->start[ng] = (uint32_t)ne;
	free(first);
	free(member);
}

/* Moves the nodes of l to the part they share the most links with while
 * that part stays at most cap; a node of a part above cap moves to the
 * part with room that costs the fewest links. */
static void
refine_level(struct level *l, uint32_t nparts, double *pload, double cap, double *acc,
    uint32_t *seen)
{
	for (int pass = 0; pass < 8; pass++) {
		uint32_t moved = 0;
		for (uint32_t v = 0; v < l->n; v++) {
			uint32_t p = l->part[v];
			if (l->w[v] == 0)
				continue;
			size_t ns = 0;
			for (uint32_t e = l->start[v]; e < l->start[v + 1]; e++) {
				uint32_t h = l->part[l->to[e]];
				tally(acc, seen, &ns, h, l->links[e]);
			}
			bool over = pload[p] > cap;
			uint32_t best = UINT32_MAX;
			double best_gain = over ? -INFINITY : 0;
			for (size_t i = 0; i < ns; i++) {
				uint32_t q = seen[i];
				double gain = acc[q] - acc[p];
				if (q != p && pload[q] + l->w[v] <= cap && gain > best_gain) {
					best = q;
					best_gain = gain;
				}
			}
			if (over && best == UINT32_MAX) {
				/* No linked part has room: the lightest part. */
				uint32_t q = 0;
				for (uint32_t h = 1; h < nparts; h++)
					if (pload[h] < pload[q])
						q = h;
				if (q != p && pload[q] + l->w[v] <= cap)
					best = q;
			}
			for (size_t i = 0; i < ns; i++)
				acc[seen[i]] = 0;
			if (best == UINT32_MAX)
				continue;
			pload[p] -= l->w[v];
			pload[best] += l->w[v];
			l->part[v] = best;
			moved++;
		}
		if (!moved)
			break;
	}
}

/* The finest level: the superpage graph. */
static void
superpage_level(const struct partition *p, struct level *l)
{
	size_t nsp = p->nsp, nedges = p->sp[nsp - 1].adj_end;
	l->n = (uint32_t)nsp;
	l->w = wa_calloc(nsp + 1, sizeof *l->w);
	l->start = wa_calloc(nsp + 1, sizeof *l->start);
	l->to = wa_calloc(nedges + 1, sizeof *l->to);
	l->links = wa_calloc(nedges + 1, sizeof *l->links);
	l->group = wa_calloc(nsp + 1, sizeof *l->group);
	l->part = wa_calloc(nsp + 1, sizeof *l->part);
	for (uint32_t j = 0; j < nsp; j++) {
		l->w[j] = p->sp[j].weight;
		l->start[j] = p->sp[j].adj_start;
		for (uint32_t e = p->sp[j].adj_start; e < p->sp[j].adj_end; e++) {
			l->to[e] = p->adj[e].to;
			l->links[e] = p->adj[e].links;
		}
	}
	l->start[nsp] = (uint32_t)nedges;
}

/* The coarsest level: heaviest first, to the part with room it shares
 * the most links with, or else the lightest part. */
static void
place_coarsest(struct level *c, uint32_t nparts, double *pload, double cap, double *acc,
    uint32_t *seen)
{
	uint32_t *order = wa_calloc(c->n + 1, sizeof *order);
	for (uint32_t v = 0; v < c->n; v++) {
		order[v] = v;
		c->part[v] = UINT32_MAX;
	}
	qsort_r(order, c->n, sizeof *order, by_weight_asc, c->w);
	for (uint32_t o = c->n; o-- > 0;) {
		uint32_t v = order[o], best = 0;
		size_t ns = 0;
		for (uint32_t e = c->start[v]; e < c->start[v + 1]; e++) {
			uint32_t h = c->part[c->to[e]];
			if (h == UINT32_MAX)
				continue;
			tally(acc, seen, &ns, h, c->links[e]);
		}
		for (uint32_t h = 1; h < nparts; h++)
			if (pload[h] < pload[best])
				best = h;
		double best_links = 0;
		for (size_t i = 0; i < ns; i++) {
			uint32_t h = seen[i];
			if (pload[h] + c->w[v] <= cap && acc[h] > best_links) {
				best = h;
				best_links = acc[h];
			}
			acc[h] = 0;
		}
		c->part[v] = best;
		pload[best] += c->w[v];
	}
	free(order);
}

void
multilevel(struct partition *p)
{
	struct level lv[LEVELS_MAX];
	uint32_t nlv = 1, nparts = p->nparts;
	size_t nsp = p->nsp;
	double all = 0;

	superpage_level(p, &lv[0]);
	for (uint32_t j = 0; j < nsp; j++)
		all += p->sp[j].weight;

	/* Scratch by node (2 n: group_nodes scores pairs too) and by part. */
	double *acc = wa_calloc(2 * nsp + nparts + 1, sizeof *acc);
	uint32_t *seen = wa_calloc(2 * nsp + nparts + 1, sizeof *seen);
	double per_part = all / nparts, cap = (1 + p->tolerance) * per_part;
	while (nlv < LEVELS_MAX) {
		struct level *f = &lv[nlv - 1];
		uint32_t ng = group_nodes(f, cap, acc, seen);
		if (ng > 0.95 * f->n)
			break;
		coarsen(f, ng, &lv[nlv++], acc, seen);
	}

	double *pload = wa_calloc(nparts, sizeof *pload);
	struct level *c = &lv[nlv - 1];
	place_coarsest(c, nparts, pload, cap, acc, seen);
	refine_level(c, nparts, pload, cap, acc, seen);
	for (uint32_t i = nlv - 1; i-- > 0;) {
		for (uint32_t v = 0; v < lv[i].n; v++)
			lv[i].part[v] = lv[i + 1].part[lv[i].group[v]];
		refine_level(&lv[i], nparts, pload, cap, acc, seen);
	}
	for (uint32_t j = 0; j < nsp; j++)
		if (p->sp[j].weight > 0)
			assign(p, j, lv[0].part[j]);
	for (uint32_t i = 0; i < nlv; i++)
		level_free(&lv[i]);
	free(pload);
	free(acc);
	free(seen);
}
