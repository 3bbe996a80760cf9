/* Importance and usefulness on the sliced link matrix (Preda, "Data
 * Acquisition for an XML Warehouse", 2000, ch. 2).
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
 * slices after it in the same sweep.  That push writes r[src] across the
 * whole vector once per slice, most of a sweep's memory traffic on a graph
 * without locality (at 10^7 pages, 4 times the time of a sweep of
 * importance by propagation blocking).  So usefulness alone by
 * Gauss-Seidel on a graph of more than 2^16 pages runs instead as the
 * importance of the inverted graph, the same fix-point: propagation
 * blocking built with every link turned around, the in-degrees as
 * out-degrees, E' as E, from E', extrapolated unless plain; it reaches the
 * slices' vector to round-off.  The transpose variant is the literal
 * M^t of the paper (an average over successors) with the normalisation r,
 * iterated as Jacobi.  Both rankings can share the scans (sec. 2.3.4),
 * which wa-pagerank -U does only by Jacobi: by Gauss-Seidel importance
 * alone runs by propagation blocking, needs fewer sweeps than usefulness
 * and fewer vectors, and the two one after the other were measured
 * faster (wa-pagerank.1).
 *
 * Threads split each section of a slice by its blocks: the external
 * links by words, the internal ones in lanes (rankscan.c) whatever the
 * thread count.  The per-thread sums are added in thread order, so a given
 * thread count always gives the same bits, and another one changes the
 * round-off only.
 *
 * A run is planned first (rankplan.h), and every function here takes its
 * plan; the scores are read and written by scores.h. */
#ifndef WA_RANK_H
#define WA_RANK_H

#include <stdbool.h>
#include <stdint.h>

#include "graph.h"
#include "rankplan.h"
#include "vec.h"

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

/* Iterates until the change of each ranking of v is below epsilon, or
 * for max_iterations; the rankings are left as the last sweep ended them,
 * for the caller to normalise.  The plan is one made for v, or for more
 * vectors than v has. */
void rank_compute(const struct graph *g, const struct rank_plan *plan,
    const struct rank_vectors *v, struct rank_result *res);

/* One Jacobi step of importance restricted to slices [first, end): from
 * the whole vector pr, the new values of ids [bound[first], bound[end])
 * (Preda, 2000, sec. 2.5), written to path as a VEC8 part (scores.h). */
void rank_jacobi_part(const struct graph *g, const struct rank_plan *plan,
    const struct vec *pr, const struct vec *e, uint32_t first, uint32_t end,
    const char *path);

/* The sum of v. */
double rank_sum(const struct rank_plan *plan, const struct vec *v);
/* Scales v to sum 1; false if its sum is 0. */
bool rank_normalize(const struct rank_plan *plan, struct vec *v);

/* The phases of wa-pagerank and wa-invrank around the computation
 * (rankrun.c), each dying with a message on bad input. */

/* The graph directory at path opened into g, and the plan of run r of
 * it under p into plan (rank_plan). */
void rank_open(struct graph *g, struct rank_plan *plan, const char *path,
    const struct rank_params *p, const struct rank_run *r);
/* E from the url<TAB>weight file at path, normalised, into e. */
void rank_read_personalisation(const struct graph *g, const struct rank_plan *plan,
    const char *path, struct vec *e);
/* Publication/subscription: E becomes (1-w) E + w S, S the weights of the
 * subscription list at path normalised, E e if personalised, else
 * uniform (e then made); left alone if no subscribed page has a positive
 * weight. */
void rank_add_subscriptions(const struct graph *g, const struct rank_plan *plan,
    const char *path, double w, struct vec *e, bool personalised);
/* The start vector into pr (made zeroed): from the file at init (NULL
 * for none), a VEC8 vector or url<TAB>score rows, the mass missing spread
 * along e (NULL: uniform), normalised; without init, e or uniform. */
void rank_start_vector(const struct graph *g, const struct rank_plan *plan,
    const char *init, struct vec *pr, const struct vec *e);
/* The weights of the XML pages by the importance in the url<TAB>score
 * file at path, into weight (made); NULL, none. */
void rank_read_importance(const struct graph *g, const struct rank_plan *plan,
    const char *path, struct vec *weight);
/* E' of usefulness into e (made): uniform over the XML pages, or their
 * importance.  False when the graph has no XML page: e is then all
 * zeros. */
bool rank_xml_personalisation(const struct graph *g, const struct rank_plan *plan,
    const struct vec *importance, struct vec *e);
/* Usefulness alone, towards E' (rank_xml_personalisation), into use
 * (made), normalised; reported after what (rank_report). */
void rank_usefulness(const struct graph *g, const struct rank_plan *plan,
    const struct vec *e_use, struct vec *use, const char *what);
/* Says that a graph without XML pages has no usefulness, and makes the
 * usefulness file at path (if not the standard output) empty. */
void rank_no_usefulness(const struct graph *g, const char *path);
/* Part k of parts of the slices of g: one Jacobi step into path
 * (rank_jacobi_part). */
void rank_write_part(const struct graph *g, const struct rank_plan *plan,
    const struct vec *pr, const struct vec *e, unsigned k, unsigned parts, const char *path);
/* The end of a computation begun at t0 (monotonic_seconds): a warning if
 * it did not converge, else a note, each after what ("importance: "...;
 * "" for one ranking or both in the same scans), of the larger change of
 * both. */
void rank_report(const struct rank_plan *plan, const struct rank_result *res,
    const char *what, double t0);

#endif
