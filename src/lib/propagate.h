/* Propagation blocking for importance by Gauss-Seidel, and for
 * usefulness alone, importance of the graph inverted (rank.h).
 *
 * Matrix slicing (Preda, "Data Acquisition for an XML Warehouse", 2000,
 * sec. 2.3.2) reads the source vector once per
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
 * section only) and are finished page by page by rankscan.c.
 *
 * What moves is not x but its change since the part last sent, as a
 * bfloat16 (the upper half of a float, 8 bits of mantissa): the
 * destination keeps the sum of what it received in a double, the source
 * what it sent, and the rounding of one change is sent with the next
 * (error feedback).  The sums are those of the x sent, which differs from
 * x by the rounding of the last change only, so that the iteration
 * reaches the fix-point of doubles, at a quarter of the traffic.  At 2^24
 * pages it takes the iterations floats took, to an L1 change of 1e-9 as
 * of 1e-15, and the two vectors converged differ by 4e-16 in L1.
 *
 * Per link between parts: a u16 source, a u16 destination and a
 * bfloat16; per pair of parts, two u64 offsets; per page, two doubles.
 *
 * When the budget cannot hold the links, the three streams and the links
 * within parts go to unnamed temporary files, read and written a window at
 * a time: every pass over them is in order but the scatter's.  A part
 * scatters a run to each other part, and a run to a file is a write, so
 * the changes of consecutive parts are held in memory, as much as a
 * sixteenth of the budget holds, and written a column at a time when the
 * last of the group has scattered; the parts of the group gather the
 * changes of those before them from memory.  The build reads the matrix
 * twice, holding only the parts the current slice reaches.  In memory or
 * not, the streams hold the same values in the same order, and the ranks
 * are the same bits. */
#ifndef WA_PROPAGATE_H
#define WA_PROPAGATE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "graph.h"
#include "rankplan.h"

/* One of the streams of links between parts: in memory, or in files,
 * file f holding bytes [start[f], start[f + 1]).  Threads writing to
 * different files do not wait for each other's writes. */
#define PROPAGATION_FILES_MAX 16
struct propagation_stream {
	char *mem;
	unsigned files;
	int fd[PROPAGATION_FILES_MAX];
	uint64_t start[PROPAGATION_FILES_MAX + 1];
};

struct propagation {
	uint64_t nodes, parts;
	uint64_t *gather_off;	/* parts^2 + 1: block (part j, part i) at j * parts + i */
	uint64_t *scatter_off;	/* parts^2 + 1: the same blocks, at i * parts + j */
	struct propagation_stream dst;	/* u16, gather order: each link's destination in its part */
	struct propagation_stream src;	/* u16, scatter order: each link's source in its part */
	struct propagation_stream change;	/* bfloat16, gather order: the change of x[src] last scattered */
	bool on_disk;		/* the streams and the parts' links in files */
	struct propagation_stream internal;	/* on disk: the words of the parts */
	struct vec sent;	/* per page: the sum of the changes it sent */
	struct vec received;	/* per page: of those of its in-links between parts */
	uint16_t *part_change;	/* of the part scattering */
	double stale_scale;	/* applies to what the sweep before sent */
	/* On disk, the changes of a group of consecutive parts are held and
	 * written at its end, a write per column instead of one per block:
	 * group_end[i] ends the group of part i, pending holds the changes of
	 * parts [pending_lo, pending_hi), column j from pending_col[j]. */
	uint64_t *group_end, groups;
	uint16_t *pending;
	uint64_t *pending_col;
	uint64_t pending_lo, pending_hi;
};

/* A thread's windows on the streams, when they are on disk. */
struct propagation_window {
	uint16_t *index;
	uint16_t *change;
};

/* From the slices of g, loaded or not: pb, and in *parts its parts as
 * slices holding the links within each (internal section only; read from
 * a file when on_disk).  Inverted, of the graph whose every link is
 * turned around (usefulness, rank.h), the build holds as many parts at
 * once as fit half of limit, one at least, and reads the matrix once for
 * each such run of parts.  In files, the parts the build holds at once
 * may take at most limit bytes; false, and nothing built, if they would
 * take more, or if the pairs of parts have too few links to be worth
 * files.  The slices are read a run of plan->run_bytes at a time; sent
 * and received are vectors where the plan says. */
bool propagation_build(struct propagation *pb, const struct graph *g,
    const struct rank_plan *plan, struct slice *slices, bool inverted, bool on_disk,
    uint64_t limit, struct slice **parts);

/* The first of the other parts whose links go to thread t of nt: gather
 * (the links into part) or scatter (the links out of it), balanced on
 * links. */
uint64_t propagation_split(const struct propagation *pb, bool gather, uint64_t part,
    unsigned t, unsigned nt);

void propagation_window_open(const struct propagation *pb, struct propagation_window *w);
void propagation_window_close(struct propagation_window *w);

/* The sums of part j from the links of parts [i0, i1) into acc: what it
 * received before (its view of received, or NULL but for the thread that
 * starts from it), and the changes sent since. */
void propagation_gather(const struct propagation *pb, uint64_t j, uint64_t i0, uint64_t i1,
    const double *received, double *acc, struct propagation_window *w);

/* What part j received up to now, the sum of the nt threads' acc, into
 * its view of received. */
void propagation_receive(const struct propagation *pb, uint64_t j, double *const *acc,
    unsigned nt, double *received);

/* A change as it travels: the upper half of a float (bfloat16), rounded
 * to nearest, even on a tie. */
static inline uint16_t
propagation_pack(float f)
{
	uint32_t u;
	memcpy(&u, &f, sizeof u);
	u += 0x7fff + (u >> 16 & 1);
	return (uint16_t)(u >> 16);
}

static inline float
propagation_unpack(uint16_t h)
{
	uint32_t u = (uint32_t)h << 16;
	float f;
	memcpy(&f, &u, sizeof f);
	return f;
}

/* The change of a page's x since it last sent, as it goes out; sent
 * becomes what the destinations will have summed, the rounding included. */
static inline uint16_t
propagation_change(double x, double *sent, double stale_scale)
{
	double base = *sent * stale_scale;
	uint16_t change = propagation_pack((float)(x - base));
	*sent = base + propagation_unpack(change);
	return change;
}

/* The changes of x of part i (x_part[0] its first page) since it last sent
 * (its view of sent), ready to scatter. */
void propagation_send(struct propagation *pb, uint64_t i, const double *x_part, double *sent);

/* Before part i scatters, in one thread. */
void propagation_scatter_begin(struct propagation *pb, uint64_t i);

/* The changes of part i to the links to parts [j0, j1). */
void propagation_scatter(struct propagation *pb, uint64_t i, uint64_t j0, uint64_t j1,
    struct propagation_window *w);

/* Once every part has sent and received its first x: no change pending. */
void propagation_clear(struct propagation *pb);

void propagation_free(struct propagation *pb);

#endif
