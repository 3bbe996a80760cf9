#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "msg.h"
#include "propagate.h"

#define PART_PAGES ((uint64_t)1 << PROPAGATE_PART_BITS)
#define PART_MASK (PART_PAGES - 1)

static uint64_t
part_count(uint64_t nodes)
{
	return nodes ? (nodes + PART_PAGES - 1) >> PROPAGATE_PART_BITS : 1;
}

uint64_t
propagation_bytes(const struct graph *g)
{
	uint64_t parts = part_count(g->nodes);
	/* Every link between parts, or within one (a word); the offsets; the
	 * sums; the positions of the build. */
	return g->links * (2 + 2 + 4) + parts * parts * 8 * 4 + (g->nodes + 1) * 8 * 3 +
	    PART_PAGES * 4;
}

/* Each link of slice s, counted (fill false) or put in place (fill true):
 * a link between parts into the gather and scatter streams, one within a
 * part as a word of that part's slice, its minor part only for now. */
static inline void
visit_links(struct propagation *pb, const struct slice *s, bool fill, uint64_t *pos,
    uint64_t *gather_pos, uint64_t *scatter_pos, struct slice *parts, const uint64_t *part_start)
{
	const uint64_t np = pb->parts;
	for (uint64_t b = 0; b < s->blocks; b++) {
		const bool internal = b >= s->external_blocks;
		const uint32_t *p = s->data + s->block_off[b], *end = s->data + s->block_off[b + 1];
		uint64_t major = s->block_first[b];
		while (p < end) {
			uint64_t other = slice_word(&p, &major, s->bits) + s->lo;
			uint64_t src = internal ? other : major, dst = internal ? major : other;
			uint64_t i = src >> PROPAGATE_PART_BITS, j = dst >> PROPAGATE_PART_BITS;
			if (i == j) {
				if (fill) {
					struct slice *part = &parts[j];
					part->data[pos[dst]++ - part_start[j]] = (uint32_t)(src - part->lo);
				} else
					pos[dst + 1]++;
			} else if (fill) {
				pb->dst[gather_pos[j * np + i]++] = (uint16_t)(dst & PART_MASK);
				pb->src[scatter_pos[i * np + j]++] = (uint16_t)(src & PART_MASK);
			} else
				pb->gather_off[j * np + i + 1]++;
		}
	}
}

/* The major deltas of a part's words, and its blocks: pos[d] is where the
 * links of page d end, start where the part's begin.  The blocks close as
 * wa-linkmat closes them, and rank.c cuts its lanes at block starts:
 * blocks of fewer pages, which balance the lanes on links more finely,
 * cut sites where links are dense, and Gauss-Seidel took 57 iterations
 * instead of 41 on a generated site graph of 2^22 pages. */
static void
close_part(struct slice *part, const uint64_t *pos, uint64_t start)
{
	uint64_t blocks = 0, cap = 16;
	part->block_off = wa_reallocarray(NULL, cap + 1, sizeof *part->block_off);
	part->block_first = wa_reallocarray(NULL, cap, sizeof *part->block_first);
	uint64_t at = 0, last = 0;
	for (uint64_t d = part->lo; d < part->hi; d++) {
		uint64_t end = pos[d] - start;
		if (end == at)
			continue;
		if (!blocks || d - part->block_first[blocks - 1] >= GRAPH_BLOCK_SPAN ||
		    at - part->block_off[blocks - 1] >= GRAPH_BLOCK_LINKS) {
			if (blocks == cap) {
				cap *= 2;
				part->block_off = wa_reallocarray(part->block_off, cap + 1,
				    sizeof *part->block_off);
				part->block_first = wa_reallocarray(part->block_first, cap,
				    sizeof *part->block_first);
			}
			part->block_off[blocks] = at;
			part->block_first[blocks++] = (uint32_t)d;
			last = d;
		}
		/* Within a block the delta stays below GRAPH_BLOCK_SPAN, far from
		 * the escape of any part's word. */
		part->data[at] |= (uint32_t)(d - last) << part->bits;
		last = d;
		at = end;
	}
	part->block_off[blocks] = at;
	part->blocks = blocks;
	part->external_blocks = 0;
	part->words = part->links = part->internal = at;
}

uint64_t
propagation_build(struct propagation *pb, const struct graph *g, const struct slice *slices,
    struct slice **parts_out)
{
	const uint64_t n = g->nodes, np = part_count(n);
	memset(pb, 0, sizeof *pb);
	pb->nodes = n;
	pb->parts = np;
	pb->stale_scale = 1;
	pb->gather_off = wa_calloc(np * np + 1, sizeof *pb->gather_off);
	pb->scatter_off = wa_calloc(np * np + 1, sizeof *pb->scatter_off);
	uint64_t *pos = wa_calloc(n + 1, sizeof *pos);
	for (uint32_t k = 0; k < g->slices; k++)
		visit_links(pb, &slices[k], false, pos, NULL, NULL, NULL, NULL);

	/* Offsets: the block lengths in gather order, then the same lengths
	 * in scatter order; the starts of each page's links within parts. */
	for (uint64_t j = 0; j < np; j++)
		for (uint64_t i = 0; i < np; i++)
			pb->scatter_off[i * np + j + 1] = pb->gather_off[j * np + i + 1];
	for (uint64_t b = 0; b < np * np; b++) {
		pb->gather_off[b + 1] += pb->gather_off[b];
		pb->scatter_off[b + 1] += pb->scatter_off[b];
	}
	for (uint64_t d = 0; d < n; d++)
		pos[d + 1] += pos[d];
	uint64_t between = pb->gather_off[np * np];
	pb->dst = wa_reallocarray(NULL, between + 1, sizeof *pb->dst);
	pb->src = wa_reallocarray(NULL, between + 1, sizeof *pb->src);
	pb->change = wa_calloc(between + 1, sizeof *pb->change);
	pb->sent = wa_calloc(n + 1, sizeof *pb->sent);
	pb->received = wa_calloc(n + 1, sizeof *pb->received);
	pb->part_change = wa_calloc(PART_PAGES, sizeof *pb->part_change);

	struct slice *parts = wa_calloc(np, sizeof *parts);
	uint64_t *part_start = wa_calloc(np, sizeof *part_start);
	for (uint64_t k = 0; k < np; k++) {
		struct slice *part = &parts[k];
		part->k = (uint32_t)k;
		part->lo = k * PART_PAGES;
		part->hi = n - part->lo < PART_PAGES ? n : part->lo + PART_PAGES;
		part->bits = slice_bits(part->hi - part->lo);
		part_start[k] = pos[part->lo];
		part->data = wa_calloc(pos[part->hi] - pos[part->lo] + 1, sizeof *part->data);
	}
	uint64_t *gather_pos = wa_reallocarray(NULL, np * np, sizeof *gather_pos);
	uint64_t *scatter_pos = wa_reallocarray(NULL, np * np, sizeof *scatter_pos);
	memcpy(gather_pos, pb->gather_off, np * np * sizeof *gather_pos);
	memcpy(scatter_pos, pb->scatter_off, np * np * sizeof *scatter_pos);
	for (uint32_t k = 0; k < g->slices; k++)
		visit_links(pb, &slices[k], true, pos, gather_pos, scatter_pos, parts, part_start);
	free(gather_pos);
	free(scatter_pos);
	/* pos[d] now ends the links of page d: the start of the next. */
	for (uint64_t k = 0; k < np; k++)
		close_part(&parts[k], pos, part_start[k]);
	free(part_start);
	free(pos);
	*parts_out = parts;
	return np;
}

uint64_t
propagation_split(const struct propagation *pb, bool gather, uint64_t part, unsigned t,
    unsigned nt)
{
	const uint64_t *off = (gather ? pb->gather_off : pb->scatter_off) + part * pb->parts;
	uint64_t want = (off[pb->parts] - off[0]) * t / nt, lo = 0, hi = pb->parts;
	if (t == 0)
		return 0;
	while (lo < hi) {
		uint64_t mid = (lo + hi) / 2;
		if (off[mid] - off[0] < want)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static uint64_t
part_width(const struct propagation *pb, uint64_t part)
{
	uint64_t lo = part * PART_PAGES;
	return pb->nodes - lo < PART_PAGES ? pb->nodes - lo : PART_PAGES;
}

static void
gather_blocks(const struct propagation *pb, uint64_t j, uint64_t i0, uint64_t i1, double *acc)
{
	const uint64_t *off = pb->gather_off + j * pb->parts;
	const uint16_t *dst = pb->dst;
	const float *change = pb->change;
	for (uint64_t k = off[i0], end = off[i1]; k < end; k++)
		acc[dst[k]] += change[k];
}

void
propagation_gather(const struct propagation *pb, uint64_t j, uint64_t i0, uint64_t i1,
    bool first, double *acc)
{
	uint64_t width = part_width(pb, j);
	if (first)
		memcpy(acc, pb->received + j * PART_PAGES, width * sizeof *acc);
	else
		memset(acc, 0, width * sizeof *acc);
	/* What came before this sweep, the parts after j sending last in the
	 * sweep before, is scaled as the vector was at its end. */
	uint64_t after = i0 > j + 1 ? i0 : j + 1;
	if (after < i1)
		gather_blocks(pb, j, after, i1, acc);
	if (pb->stale_scale != 1 && (first || after < i1))
		for (uint64_t d = 0; d < width; d++)
			acc[d] *= pb->stale_scale;
	uint64_t before = i1 < j ? i1 : j;
	if (i0 < before)
		gather_blocks(pb, j, i0, before, acc);
}

void
propagation_receive(struct propagation *pb, uint64_t j, double *const *acc, unsigned nt)
{
	uint64_t width = part_width(pb, j);
	double *received = pb->received + j * PART_PAGES;
	for (uint64_t d = 0; d < width; d++) {
		double sum = acc[0][d];
		for (unsigned t = 1; t < nt; t++)
			sum += acc[t][d];
		received[d] = sum;
	}
}

void
propagation_send(struct propagation *pb, uint64_t i, const double *x_part)
{
	uint64_t width = part_width(pb, i);
	double *sent = pb->sent + i * PART_PAGES, scale = pb->stale_scale;
	for (uint64_t d = 0; d < width; d++) {
		float change = (float)(x_part[d] - sent[d] * scale);
		sent[d] = sent[d] * scale + change;
		pb->part_change[d] = change;
	}
}

void
propagation_clear(struct propagation *pb)
{
	memset(pb->change, 0, pb->gather_off[pb->parts * pb->parts] * sizeof *pb->change);
}

void
propagation_scatter(struct propagation *pb, uint64_t i, uint64_t j0, uint64_t j1)
{
	const uint64_t np = pb->parts;
	const float *change = pb->part_change;
	for (uint64_t j = j0; j < j1; j++) {
		const uint16_t *src = pb->src + pb->scatter_off[i * np + j];
		const uint16_t *end = pb->src + pb->scatter_off[i * np + j + 1];
		float *out = pb->change + pb->gather_off[j * np + i];
		while (src < end)
			*out++ = change[*src++];
	}
}

void
propagation_free(struct propagation *pb)
{
	free(pb->gather_off);
	free(pb->scatter_off);
	free(pb->dst);
	free(pb->src);
	free(pb->change);
	free(pb->sent);
	free(pb->received);
	free(pb->part_change);
	memset(pb, 0, sizeof *pb);
}
