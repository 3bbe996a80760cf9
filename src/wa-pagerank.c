/* wa-pagerank: importance of pages, PageRank on the sliced link matrix
 * with Gauss-Seidel iterations (Preda, seed 000, sec. 2.1-2.3), and the
 * usefulness of pages in the same scans (sec. 2.3.4).  The engine is
 * src/lib/rank.c; t/rank-verify.py checks it against networkx. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rank.h"
#include "wa.h"

static const char usage[] =
"usage: wa-pagerank [-qv] [-c damping] [-e epsilon] [--norm l1|l2] [-i iterations]\n"
"                   [-p personalisation] [--init importance] [--renormalize]\n"
"                   [--jacobi] [--no-extrapolation] [-U usefulness] [-m size]\n"
"                   [-j threads] [-o file] [-b vector] [--slice K/P] graph\n"
"  -c damping       damping factor c (0.85)\n"
"  -e epsilon       stop when the change is below epsilon (1e-9)\n"
"  --norm l1|l2     the norm of the change (l2, as seed 000 eq. 2.4)\n"
"  -i iterations    at most this many iterations (100)\n"
"  -p file          personalisation E: url<TAB>weight, sorted by URL (uniform)\n"
"  --init file      start from a previous importance (TSV or -b vector)\n"
"  --renormalize    rescale each iterate by r (seed 000 eq. 2.6-2.7); Jacobi\n"
"  --jacobi         power iteration instead of Gauss-Seidel\n"
"  --no-extrapolation  Gauss-Seidel without extrapolation every 6 sweeps\n"
"  -U file          also write usefulness, computed in the same scans\n"
"  -m size          memory budget (1G)\n"
"  -j threads       threads (the number of processors)\n"
"  -o file          write importance to file (standard output)\n"
"  -b file          also write the vector in id order, binary\n"
"  --slice K/P      one Jacobi step of part K of P from --init, into -b\n";

enum { OPT_INIT = WA_OPT_FIRST_TOOL, OPT_RENORMALIZE, OPT_SLICE, OPT_NO_EXTRAPOLATION };

static void
read_start_vector(const struct graph *g, const struct rank_params *p, const char *path,
    double *pr, const double *e)
{
	FILE *f = fopen(path, "rb");
	unsigned char magic[4] = { 0 };
	if (!f)
		wa_die_errno("%s", path);
	size_t got = fread(magic, 1, sizeof magic, f);
	fclose(f);
	uint64_t n = g->nodes;
	if (got == 4 && memcmp(magic, "\x89WAB", 4) == 0) {
		struct bin_map m;
		const char *msg = bin_map_open(&m, path, "VEC8", 1, 8);
		if (msg)
			wa_die("%s", msg);
		if (m.h.count != n)
			wa_die("%s: a vector of %llu values, the graph has %llu pages", path,
			    (unsigned long long)m.h.count, (unsigned long long)n);
		for (uint64_t lo = 0; lo < n; lo += RANK_CHUNK) {
			uint64_t hi = n - lo < RANK_CHUNK ? n : lo + RANK_CHUNK;
			memcpy(pr + lo, (const double *)m.data + lo, (hi - lo) * sizeof *pr);
			bin_release((const double *)m.data + lo, (hi - lo) * sizeof *pr);
			rank_release(p, pr, lo, hi, sizeof *pr);
		}
		bin_map_close(&m);
	} else {
		uint64_t unknown;
		uint64_t matched = rank_read_scores(g, p, path, pr, &unknown);
		if (unknown)
			wa_note("%s: %llu URLs are not in the graph", path,
			    (unsigned long long)unknown);
		if (!matched)
			wa_warn("%s: no URL of the graph; starting from E", path);
	}
	/* Pages new since then get what mass is missing, spread along E. */
	double sum = 0;
	for (uint64_t i = 0; i < n; i++) {
		if (!(pr[i] >= 0))
			wa_die("%s: value %llu is negative or not a number", path,
			    (unsigned long long)i);
		sum += pr[i];
		if (i % RANK_CHUNK == RANK_CHUNK - 1)
			rank_release(p, pr, i + 1 - RANK_CHUNK, i + 1, sizeof *pr);
	}
	if (sum < 1)
		for (uint64_t i = 0; i < n; i++) {
			pr[i] += (1 - sum) * (e ? e[i] : 1.0 / n);
			if (i % RANK_CHUNK == RANK_CHUNK - 1) {
				rank_release(p, pr, i + 1 - RANK_CHUNK, i + 1, sizeof *pr);
				rank_release(p, e, i + 1 - RANK_CHUNK, i + 1, sizeof *e);
			}
		}
	rank_normalize(p, pr, n);
}

static double *
read_personalisation(const struct graph *g, const struct rank_params *p, const char *path)
{
	double *e = rank_vector_new(p, g->nodes);
	uint64_t unknown;
	rank_read_scores(g, p, path, e, &unknown);
	if (unknown)
		wa_note("%s: %llu URLs are not in the graph", path, (unsigned long long)unknown);
	if (!rank_normalize(p, e, g->nodes))
		wa_die("%s: no positive weight on a page of the graph", path);
	return e;
}

static void
parse_slice(const char *arg, unsigned *k, unsigned *parts)
{
	char extra;
	if (sscanf(arg, "%u/%u%c", k, parts, &extra) != 2 || *parts == 0 || *k >= *parts)
		wa_usage_error("--slice: '%s' is not K/P with 0 <= K < P", arg);
}

static void
write_part(const struct graph *g, const struct rank_params *p, const double *pr,
    const double *e, unsigned k, unsigned parts, const char *path)
{
	if (parts > g->slices)
		wa_die("%s: %u parts asked of a graph of %u slices", g->dir, parts, g->slices);
	uint32_t first = (uint32_t)((uint64_t)g->slices * k / parts);
	uint32_t end = (uint32_t)((uint64_t)g->slices * (k + 1) / parts);
	uint64_t lo = g->bound[first], hi = g->bound[end];
	double *out = wa_malloc((hi - lo + 1) * sizeof *out);
	rank_jacobi_part(g, p, pr, e, first, end, out);
	/* aux: first id, end id, pages of the whole graph. */
	const uint64_t aux[3] = { lo, hi, g->nodes };
	struct bin_writer *w = bin_create(path, "VEC8", 1);
	bin_write(w, out, (hi - lo) * sizeof *out);
	bin_commit(w, hi - lo, aux);
	free(out);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "init", required_argument, NULL, OPT_INIT },
		{ "renormalize", no_argument, NULL, OPT_RENORMALIZE },
		{ "no-extrapolation", no_argument, NULL, OPT_NO_EXTRAPOLATION },
		{ "slice", required_argument, NULL, OPT_SLICE },
		RANK_LONGOPTS,
		WA_COMMON_LONGOPTS
	};
	struct rank_params p;
	const char *personalisation = NULL, *init = NULL, *usefulness = NULL;
	const char *out = NULL, *vector = NULL;
	unsigned slice_k = 0, slice_parts = 0;
	int c;

	wa_init(argc, argv, usage);
	rank_defaults(&p);
	while ((c = getopt_long(argc, argv, RANK_SHORTOPTS "hqvi:p:U:o:b:", longopts,
	    NULL)) != -1) {
		if (rank_option(c, optarg, &p))
			continue;
		switch (c) {
		case 'i': rank_option(RANK_OPT_ITERATIONS, optarg, &p); break;
		case 'p': personalisation = optarg; break;
		case OPT_INIT: init = optarg; break;
		case OPT_RENORMALIZE: p.renormalize = p.jacobi = true; break;
		case OPT_NO_EXTRAPOLATION: p.plain = true; break;
		case 'U': usefulness = optarg; break;
		case 'o': out = optarg; break;
		case 'b': vector = optarg; break;
		case OPT_SLICE: parse_slice(optarg, &slice_k, &slice_parts); break;
		default: wa_common_option(c);
		}
	}
	if (argc - optind != 1)
		wa_usage_error("one graph directory expected");
	if (slice_parts && (!init || !vector || usefulness || out))
		wa_usage_error("--slice needs --init and -b, and writes nothing else");

	struct graph g;
	graph_open(&g, argv[optind]);
	rank_plan(&g, &p, true, usefulness != NULL, personalisation != NULL);
	double *e = personalisation ? read_personalisation(&g, &p, personalisation) : NULL;
	double *pr = rank_vector_new(&p, g.nodes);
	if (init)
		read_start_vector(&g, &p, init, pr, e);
	else
		for (uint64_t i = 0; i < g.nodes; i++) {
			pr[i] = e ? e[i] : 1.0 / g.nodes;
			if (i % RANK_CHUNK == RANK_CHUNK - 1)
				rank_release(&p, pr, i + 1 - RANK_CHUNK, i + 1, sizeof *pr);
		}

	if (slice_parts) {
		write_part(&g, &p, pr, e, slice_k, slice_parts, vector);
	} else {
		double *use = usefulness ? rank_vector_new(&p, g.nodes) : NULL;
		double *e_use = usefulness ? rank_xml_personalisation(&g, &p, NULL) : NULL;
		struct rank_vectors v = { .importance = pr, .e = e, .usefulness = use,
		    .e_use = e_use };
		struct rank_result res;
		double t0 = monotonic_seconds();
		rank_compute(&g, &p, &v, &res);
		if (!res.converged)
			wa_warn("no convergence to %g in %u iterations (last change %.3g)",
			    p.epsilon, res.iterations, fmax(res.change[0], res.change[1]));
		else
			wa_note("%u iterations, last change %.3g (%s), %.2f s", res.iterations,
			    fmax(res.change[0], res.change[1]), p.norm == RANK_L1 ? "L1" : "L2",
			    monotonic_seconds() - t0);
		rank_normalize(&p, pr, g.nodes);
		if (vector)
			rank_write_vector(&p, vector, pr, g.nodes);
		if (use) {
			rank_normalize(&p, use, g.nodes);
			rank_write_scores(&g, &p, use, usefulness);
		}
		rank_write_scores(&g, &p, pr, out);
		rank_vector_free(&p, use, g.nodes);
		rank_vector_free(&p, e_use, g.nodes);
	}
	rank_vector_free(&p, pr, g.nodes);
	rank_vector_free(&p, e, g.nodes);
	graph_close(&g);
	return 0;
}
