#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msg.h"
#include "rankengine.h"

/* Usefulness alone as importance of the graph inverted: its vector as
 * pr, E' as E, the in-degrees as the out-degrees. */
static void
invert_usefulness(struct engine *e)
{
	e->inverted = true;
	e->inverted_v = (struct rank_vectors){ .importance = e->v->usefulness,
	    .e = e->v->e_use };
	e->v = &e->inverted_v;
	e->imp = true;
	e->use = false;
	struct vec indeg = e->indeg;
	e->indeg = e->outdeg;
	e->outdeg = indeg;
}

void
engine_open(struct engine *e, const struct graph *g, const struct rank_plan *plan,
    const struct rank_vectors *v)
{
	const struct rank_params *p = &plan->params;
	memset(e, 0, sizeof *e);
	e->g = g;
	e->plan = plan;
	e->p = p;
	e->v = v;
	e->n = g->nodes;
	e->imp = v->importance != NULL;
	e->use = v->usefulness != NULL;
	e->x_scale = 1;
	e->nt = plan->threads;
	graph_vec(g, GF_OUTDEG, !plan->on_disk, &e->outdeg);
	graph_vec(g, GF_INDEG, !plan->on_disk, &e->indeg);
	e->max_slice_nodes = plan->widest_slice;

	e->slices = wa_calloc(g->slices, sizeof *e->slices);
	e->nslices = g->slices;
	for (uint32_t k = 0; k < g->slices; k++)
		slice_open(g, k, &e->slices[k]);
	struct rank_matrix_plan mp;
	rank_plan_matrix(plan, g, e->slices, e->imp, e->use, v->e != NULL, &mp);
	e->streamed = mp.streamed;
	bool *keep = wa_calloc(g->slices, sizeof *keep);
	for (uint32_t k = 0; k < g->slices; k++)
		keep[k] = !e->streamed;
	if (plan->run.checked) {
		for (uint32_t k = 0; k < g->slices; k++)
			if (keep[k])
				slice_load(&e->slices[k]);
	} else {
		graph_check_matrix(g, e->slices, &e->outdeg, &e->indeg, keep, plan->run_bytes);
	}
	free(keep);
	if (wa_verbose)
		wa_warn("%llu pages, %llu links in %u slices; matrix %s (%llu MiB), vectors %llu MiB",
		    (unsigned long long)e->n, (unsigned long long)g->links, g->slices,
		    e->streamed ? "read from disk each pass" : "in memory",
		    (unsigned long long)(mp.matrix >> 20), (unsigned long long)(mp.vectors >> 20));
	/* Gauss-Seidel importance, or usefulness alone: the parts of
	 * propagation blocking as the slices of the sweep. */
	struct slice *parts;
	if (mp.propagation) {
		e->propagating = propagation_build(&e->pb, g, plan, e->slices, !e->imp,
		    !mp.propagation_in_memory, mp.propagation_limit, &parts);
		if (e->propagating && !mp.propagation_in_memory)
			e->streamed = true;
	}
	if (e->propagating && !e->imp)
		invert_usefulness(e);
	if (e->propagating) {
		uint64_t np = e->pb.parts;
		for (uint32_t k = 0; k < g->slices; k++)
			slice_close(&e->slices[k]);
		free(e->slices);
		e->slices = parts;
		e->nslices = (uint32_t)np;
		e->max_slice_nodes = 0;
		for (uint32_t k = 0; k < e->nslices; k++)
			if (parts[k].hi - parts[k].lo > e->max_slice_nodes)
				e->max_slice_nodes = parts[k].hi - parts[k].lo;
		char files[96] = "";
		if (e->pb.on_disk)
			snprintf(files, sizeof files, ", in temporary files, the changes written in "
			    "%llu group%s of parts", (unsigned long long)e->pb.groups,
			    e->pb.groups == 1 ? "" : "s");
		if (wa_verbose)
			wa_warn("%sGauss-Seidel on %u part%s of up to %llu pages, %llu links between "
			    "them by propagation blocking%s",
			    e->inverted ? "usefulness, the links inverted: " : "", e->nslices,
			    e->nslices == 1 ? "" : "s", (unsigned long long)e->max_slice_nodes,
			    (unsigned long long)e->pb.gather_off[np * np], files);
	}
	if (wa_verbose && plan->on_disk)
		wa_warn("the vectors do not fit -m: kept in temporary files, read and written "
		    "%llu pages at a time", (unsigned long long)plan->chunk);

	e->w = wa_calloc(e->nt, sizeof *e->w);
	for (unsigned t = 0; t < e->nt; t++) {
		e->w[t].e = e;
		e->w[t].t = t;
		if (e->imp)
			e->w[t].acc = wa_calloc(e->max_slice_nodes, sizeof(double));
		if (e->use)
			e->w[t].use_sums = wa_calloc(e->max_slice_nodes, sizeof(double));
		if (e->propagating)
			propagation_window_open(&e->pb, &e->w[t].window);
	}
	e->acc = wa_calloc(e->nt, sizeof *e->acc);
	for (unsigned t = 0; t < e->nt; t++)
		e->acc[t] = e->w[t].acc;
	wa_team_start(&e->team, e->nt, e->w, sizeof *e->w);
	if (e->imp) {
		e->pr = e->v->importance;
		rank_vector_new(plan, e->n, &e->x);
		if (p->jacobi) {
			rank_vector_new(plan, e->n, &e->other);
			e->next = &e->other;
		} else {
			e->x_before = wa_calloc(e->max_slice_nodes, sizeof(double));
		}
		if (!p->jacobi && !p->plain)
			rank_vector_new(plan, e->n, &e->before);
	}
	if (e->use) {
		e->u = v->usefulness;
		rank_vector_new(plan, e->n, &e->r);
		e->y = wa_calloc(e->max_slice_nodes, sizeof *e->y);
		e->absorbed = wa_calloc(g->slices, sizeof *e->absorbed);
	}
}

void
engine_close(struct engine *e)
{
	wa_team_stop(&e->team);
	for (unsigned t = 0; t < e->nt; t++) {
		free(e->w[t].acc);
		free(e->w[t].use_sums);
		free(e->w[t].buf);
		propagation_window_close(&e->w[t].window);
	}
	free(e->w);
	free(e->acc);
	for (uint32_t k = 0; k < e->nslices; k++)
		slice_close(&e->slices[k]);
	free(e->slices);
	if (e->propagating)
		propagation_free(&e->pb);
	vec_free(&e->x);
	vec_free(&e->other);
	vec_free(&e->before);
	vec_free(&e->r);
	free(e->y);
	free(e->x_before);
	free(e->absorbed);
	vec_free(&e->outdeg);
	vec_free(&e->indeg);
}

void
propagation_begin(struct engine *e)
{
	struct span sp;
	for (uint32_t k = 0; k < e->nslices; k++) {
		const struct slice *s = &e->slices[k];
		span_open(e, &sp, s->lo, s->hi);
		propagation_send(&e->pb, k, sp.x, sp.sent);
		scatter_part(e, s);
		span_close(e, &sp);
	}
	for (uint32_t k = 0; k < e->nslices; k++) {
		const struct slice *s = &e->slices[k];
		span_open(e, &sp, s->lo, s->hi);
		e->span = &sp;
		split_parts(e, s, true);
		run_workers(e, gather_work);
		propagation_receive(&e->pb, k, e->acc, e->nt, sp.received);
		span_close(e, &sp);
		e->span = NULL;
	}
	propagation_clear(&e->pb);
}
