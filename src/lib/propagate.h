/* Propagation blocking for importance by Gauss-Seidel in memory.
 *
 * Matrix slicing (seed 000, sec. 2.3.2) reads the source vector once per
 * destination slice.  With slices small enough for their sums to stay in
 * cache, on a graph without locality that is most of an iteration's
 * memory traffic: 64 slices of 2^24 pages read 8 GB of x for 0.7 GB of
 * matrix.  Propagation blocking (S. Beamer, K. Asanovic, D. Patterson,
 * "Reducing PageRank Communication via Propagation Blocking", IPDPS 2017)
 * moves a link's value instead, a fixed few bytes a link: ids are cut into
 * parts of at most 2^16 pages; a link between two parts has x[src] written
 * into a buffer by its source part (the scatter) and read by its
 * destination part (the gather).  Both passes read and write in order,
 * with only one part of a vector, in cache, read or written at random.
 *
 * Gauss-Seidel stays: the parts are the slices of the sweep, in id order.
 * A part, once finished, scatters its new x to every other part; part j
 * gathers the values of the parts before it from this sweep and those of
 * the parts after it from the sweep before, just as Gauss-Seidel on
 * slices reads them.  Each buffer value is written once a sweep and read
 * once.  The links within a part keep the slice format (graph.h, internal
 * section only) and are finished page by page by rank.c.
 *
 * What moves is not x but its change since the part last sent, as a
 * float: the destination keeps the sum of what it received in a double,
 * the source what it sent, and the rounding of one change is sent with
 * the next (error feedback).  The sums are those of the x sent, which
 * differs from x by the rounding of the last change only, so that the
 * iteration reaches the fix-point of doubles, at half the traffic.
 *
 * Per link between parts: a u16 source, a u16 destination and a float;
 * per pair of parts, two u64 offsets; per page, two doubles. */
#ifndef WA_PROPAGATE_H
#define WA_PROPAGATE_H

#include <stdint.h>

#include "graph.h"

#define PROPAGATE_PART_BITS 16

struct propagation {
	uint64_t nodes, parts;
	uint64_t *gather_off;	/* parts^2 + 1: block (part j, part i) at j * parts + i */
	uint64_t *scatter_off;	/* parts^2 + 1: the same blocks, at i * parts + j */
	uint16_t *dst;		/* gather order: each link's destination in its part */
	uint16_t *src;		/* scatter order: each link's source in its part */
	float *change;		/* gather order: the change of x[src] last scattered */
	double *sent;		/* per page: the sum of the changes it sent */
	double *received;	/* per page: of those of its in-links between parts */
	float *part_change;	/* of the part scattering */
	double stale_scale;	/* applies to what the sweep before sent */
};

/* Bytes that building from g may take, at most, beside the slices. */
uint64_t propagation_bytes(const struct graph *g);

/* From the slices of g, all loaded: pb, and in *parts its parts as slices
 * holding the links within each (internal section only).  Returns the
 * number of parts. */
uint64_t propagation_build(struct propagation *pb, const struct graph *g,
    const struct slice *slices, struct slice **parts);

/* The first of the other parts whose links go to thread t of nt: gather
 * (the links into part) or scatter (the links out of it), balanced on
 * links. */
uint64_t propagation_split(const struct propagation *pb, bool gather, uint64_t part,
    unsigned t, unsigned nt);

/* The sums of part j from the links of parts [i0, i1) into acc: what it
 * received before, with first, and the changes sent since. */
void propagation_gather(const struct propagation *pb, uint64_t j, uint64_t i0, uint64_t i1,
    bool first, double *acc);

/* What part j received up to now: the sum of the nt threads' acc. */
void propagation_receive(struct propagation *pb, uint64_t j, double *const *acc, unsigned nt);

/* The changes of x of part i (x_part[0] its first page) since it last sent,
 * ready to scatter. */
void propagation_send(struct propagation *pb, uint64_t i, const double *x_part);

/* The changes of part i to the links to parts [j0, j1). */
void propagation_scatter(struct propagation *pb, uint64_t i, uint64_t j0, uint64_t j1);

/* Once every part has sent and received its first x: no change pending. */
void propagation_clear(struct propagation *pb);

void propagation_free(struct propagation *pb);

#endif
