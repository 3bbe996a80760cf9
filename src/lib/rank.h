/* Importance and usefulness on the sliced link matrix (seed 000, ch. 2).
 *
 * Importance (PageRank, eq. 2.5): PR = c M PR + (1-c) E.  The matrix is
 * read one destination slice at a time; only that slice of the new vector
 * is accumulated, and the source vector is read in id order (matrix
 * slicing, sec. 2.3.2).  Gauss-Seidel (sec. 2.3.3), the default: each page,
 * once computed, replaces its old value in the single vector, and the
 * pages after it use the new one, in the same slice too: a slice's
 * external links are summed first, then its internal links page by page
 * (graph.h).  Most links of a site stay within it, so this is what makes
 * Gauss-Seidel pay on real link graphs.  Importance alone by Gauss-Seidel
 * on a graph of more than 2^16 pages takes parts of 2^16 pages for its
 * slices and moves the links between them by propagation blocking
 * (propagate.h), in memory or through temporary files.  Unless plain,
 * Gauss-Seidel importance is extrapolated towards the fix-point every six
 * sweeps or so, from the vector two sweeps before (rank.c).  Pages
 * without out-links spread their rank along E, the solution networkx and
 * igraph compute; with renormalize each iterate is instead rescaled by r
 * of eq. 2.6-2.7, a different fix-point, by power iterations: Gauss-Seidel
 * would compound the rescaling along every chain of links within a sweep,
 * and diverges.
 *
 * Usefulness (sec. 2.2): PageRank of the inverted graph, each backward
 * step divided by the original in-degree, personalised by E' (XML pages).
 * The same slices are read; now the slice is a slice of the source
 * vector.  Gauss-Seidel here takes the residual form: a slice pushes its
 * pending residual backwards along its links, and the pushes reach the
 * slices after it in the same sweep.  The transpose variant is the literal
 * M^t of the paper (an average over successors) with the normalisation r,
 * iterated as Jacobi.  Both rankings can share the scans (sec. 2.3.4),
 * which wa-pagerank -U does only by Jacobi: by Gauss-Seidel importance
 * alone runs by propagation blocking, needs fewer sweeps than usefulness
 * and fewer vectors, and the two one after the other were measured
 * faster (wa-pagerank.1).
 *
 * Threads split each section of a slice by its blocks: the external
 * links by words, the internal ones in lanes (rank.c) whatever the thread
 * count.  The per-thread sums are added in thread order, so a given thread
 * count always gives the same bits, and another one changes the
 * round-off only. */
#ifndef WA_RANK_H
#define WA_RANK_H

#include <stdbool.h>
#include <stdint.h>

#include "graph.h"
#include "vec.h"

enum rank_norm { RANK_L2, RANK_L1 };

struct rank_params {
	double damping;			/* c */
	double epsilon;			/* stop when the change is below */
	enum rank_norm norm;
	unsigned max_iterations;
	bool jacobi;			/* plain power iteration */
	bool plain;			/* Gauss-Seidel importance not extrapolated */
	bool renormalize;		/* importance by eq. 2.6-2.7; needs jacobi */
	bool transpose;			/* usefulness by the literal M^t */
	unsigned threads;
	uint64_t memory;		/* -m: bytes the run may use */
	uint64_t held;			/* bytes a page the caller holds beside the run */
	bool checked;			/* the matrix checked by a computation before:
					 * rank_compute only loads it */
	bool on_disk;			/* set by rank_plan: vectors in files */
	uint64_t run_bytes;		/* set by rank_plan: matrix read per step */
	uint64_t chunk;			/* set by rank_plan: pages a pass views at once */
};

/* The vectors of a run (vec.h); NULL for none. */
struct rank_vectors {
	struct vec *importance;		/* start vector in, result out */
	const struct vec *e;		/* personalisation; NULL for uniform */
	struct vec *usefulness;		/* result out */
	const struct vec *e_use;	/* E', required with usefulness */
};

struct rank_result {
	unsigned iterations;
	double change[2];		/* last change of importance, usefulness */
	bool converged;
};

/* Decides where the vectors live: in memory when they fit -m with the
 * slice buffers, otherwise in unnamed temporary files (in TMPDIR) of
 * which each pass maps a view of a range of pages at a time (vec.h), so
 * that the process stays within -m, in address space too, and the page
 * cache holds what it can.  Dies if even the slice buffers do not fit. */
void rank_plan(const struct graph *g, struct rank_params *p, bool importance,
    bool usefulness, bool personalised);
/* The directory of temporary files: TMPDIR, or /tmp. */
const char *rank_temp_dir(void);
/* An unnamed temporary file of that many bytes, zeros, open for reading
 * and writing. */
int rank_temp_file(uint64_t bytes);
/* A zeroed vector of n doubles where rank_plan said. */
void rank_vector_new(const struct rank_params *p, uint64_t n, struct vec *v);
/* The end of the chunk of a pass over n pages that begins at lo. */
static inline uint64_t
rank_chunk_end(const struct rank_params *p, uint64_t n, uint64_t lo)
{
	return n - lo < p->chunk ? n : lo + p->chunk;
}

/* Long options shared by wa-pagerank and wa-invrank. */
enum {
	RANK_OPT_NORM = 0x300, RANK_OPT_JACOBI, RANK_OPT_ITERATIONS,
};
#define RANK_LONGOPTS \
	{ "norm", required_argument, NULL, RANK_OPT_NORM }, \
	{ "jacobi", no_argument, NULL, RANK_OPT_JACOBI }, \
	{ "iterations", required_argument, NULL, RANK_OPT_ITERATIONS }
#define RANK_SHORTOPTS "c:e:j:m:"
void rank_defaults(struct rank_params *p);
/* Takes -c -e -j -m --norm --jacobi --iterations; false for other options. */
bool rank_option(int opt, const char *arg, struct rank_params *p);
/* E' of usefulness into e: uniform over the XML pages, or their importance.
 * False when the graph has no XML page: e is then all zeros. */
bool rank_xml_personalisation(const struct graph *g, const struct rank_params *p,
    const struct vec *importance, struct vec *e);

void rank_compute(const struct graph *g, const struct rank_params *p,
    const struct rank_vectors *v, struct rank_result *res);

/* One Jacobi step of importance restricted to slices [first, end): from
 * the whole vector pr, the new values of ids [bound[first], bound[end])
 * (seed 000 sec. 2.5), written to path as a VEC8 file whose aux holds
 * the first id, the end id and the pages of the graph. */
void rank_jacobi_part(const struct graph *g, const struct rank_params *p,
    const struct vec *pr, const struct vec *e, uint32_t first, uint32_t end,
    const char *path);

/* Reads url<TAB>score rows sorted by URL into out[id] (out starts zeroed);
 * returns how many matched.  Rows for URLs outside the graph are counted
 * in *unknown. */
uint64_t rank_read_scores(const struct graph *g, const struct rank_params *p,
    const char *path, struct vec *out, uint64_t *unknown);
/* The same for a subscription list (wa-pagerank --subscriptions): rows
 * url or url<TAB>weight, the weight 1 when left out, each URL once; the
 * first bad row stops the tool with "FILE:LINE: reason". */
uint64_t rank_read_subscriptions(const struct graph *g, const struct rank_params *p,
    const char *path, struct vec *out, uint64_t *unknown);
/* Writes url<TAB>score for every node, sorted by URL, to path or stdout. */
/* Says that a graph without XML pages has no usefulness, and makes the
 * usefulness file at path (if not the standard output) empty. */
void rank_no_usefulness(const struct graph *g, const char *path);
void rank_write_scores(const struct graph *g, const struct rank_params *p,
    const struct vec *score, const char *path);
/* Writes the vector of g in id order as a VEC8 file, with the graph's
 * fingerprint. */
void rank_write_vector(const struct graph *g, const struct rank_params *p, const char *path,
    const struct vec *v);
/* The sum of v. */
double rank_sum(const struct rank_params *p, const struct vec *v);
/* Scales v to sum 1; false if its sum is 0. */
bool rank_normalize(const struct rank_params *p, struct vec *v);

#endif
