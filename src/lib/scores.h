/* The scores of the pages of a graph, one double a page, in their two
 * formats (wa-formats(5)): url<TAB>score text sorted by URL, and VEC8
 * vectors in id order.  Their readers and writers, for wa-pagerank and
 * wa-invrank; the vectors are where the plan (rankplan.h) puts them. */
#ifndef WA_SCORES_H
#define WA_SCORES_H

#include <stdbool.h>
#include <stdint.h>

#include "graph.h"
#include "rankplan.h"
#include "vec.h"

/* Reads url<TAB>score rows sorted by URL into out[id] (out starts zeroed);
 * returns how many matched.  Rows for URLs outside the graph are counted
 * in *unknown; a row of a bad score is rejected (tsv.h), a sum of the
 * scores past DBL_MAX is fatal. */
uint64_t scores_read(const struct graph *g, const struct rank_plan *plan, const char *path,
    struct vec *out, uint64_t *unknown);
/* The same for a subscription list (wa-pagerank --subscriptions): rows
 * url or url<TAB>weight, the weight 1 when left out, each URL once; the
 * first bad row stops the tool with "FILE:LINE: reason". */
uint64_t scores_read_subscriptions(const struct graph *g, const struct rank_plan *plan,
    const char *path, struct vec *out, uint64_t *unknown);
/* Writes url<TAB>score for every ranked page (page_type_ranked), sorted
 * by URL, "%.17g", to path or, NULL, the standard output. */
void scores_write(const struct graph *g, const struct rank_plan *plan,
    const struct vec *score, const char *path);
/* Makes the file at path (if not NULL, the standard output) empty: no
 * scores. */
void scores_write_none(const char *path);

/* Whether the file at path is a wa binary file, which a vector is, and
 * not text; dies if it cannot be opened. */
bool scores_is_vector(const char *path);
/* Reads the VEC8 file at path into v, a value a page of g, checked whole
 * as it is read: its count, its graph (the fingerprint in aux[0], if not
 * 0) and its CRCs; dies with the reason if it does not fit. */
void scores_read_vector(const struct graph *g, const struct rank_plan *plan, const char *path,
    struct vec *v);
/* Writes v, a value a page of g in id order, as a VEC8 file whose aux[0]
 * is the graph's fingerprint. */
void scores_write_vector(const struct graph *g, const struct rank_plan *plan, const char *path,
    const struct vec *v);
/* Writes values [lo, hi) of v as a VEC8 file, a part of a vector of
 * nodes pages: its aux holds lo, hi and nodes. */
void scores_write_vector_part(const struct rank_plan *plan, const char *path,
    const struct vec *v, uint64_t lo, uint64_t hi, uint64_t nodes);

#endif
