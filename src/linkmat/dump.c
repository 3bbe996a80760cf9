/* --dump and --dump-nodes: a graph directory as text, read through
 * graph.c, which checks it (linkmat.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "linkmat.h"
#include "wa.h"

/* --dump: every link as src<TAB>dst through GNU sort, after graph.c has
 * checked the whole matrix against the degrees.  The URLs come by id,
 * the offsets through a cache of views of a sixteenth of the budget. */
void
linkmat_dump_links(const struct linkmat *lm, const char *dir)
{
	struct graph g;
	struct vec outdeg, indeg;
	graph_open(&g, dir);
	graph_vec(&g, GF_OUTDEG, false, &outdeg);
	graph_vec(&g, GF_INDEG, false, &indeg);
	struct slice *sl = wa_calloc(g.slices, sizeof *sl);
	for (uint32_t k = 0; k < g.slices; k++)
		slice_open(&g, k, &sl[k]);
	graph_check_matrix(&g, sl, &outdeg, &indeg, NULL, 8u << 20);
	vec_free(&outdeg);
	vec_free(&indeg);

	struct url_lookup urls;
	url_lookup_open(&g, &urls, lm->budget / 16);
	char su[URL_BUFSIZE], du[URL_BUFSIZE];
	struct sorter so;
	fflush(stdout);
	sorter_start(&so, "links", lm->budget / 2, lm->nthreads, NULL, false, STDOUT_FILENO);
	uint32_t *buf = NULL;
	size_t cap = 0;
	for (uint32_t k = 0; k < g.slices; k++) {
		struct slice *s = &sl[k];
		for (uint64_t b0 = 0, b1; b0 < s->blocks; b0 = b1) {
			b1 = slice_read_run(s, b0, s->blocks, 8u << 20, &buf, &cap);
			const uint32_t *p = buf;
			for (uint64_t b = b0; b < b1; b++) {
				const uint32_t *end = buf + (s->block_off[b + 1] - s->block_off[b0]);
				bool internal = b >= s->external_blocks;
				uint64_t major = s->block_first[b];
				while (p < end) {
					uint64_t minor = s->lo + slice_word(&p, &major, s->bits);
					size_t slen = url_lookup(&urls, internal ? minor : major, su);
					size_t dlen = url_lookup(&urls, internal ? major : minor, du);
					fprintf(so.in, "%.*s\t%.*s\n", (int)slen, su, (int)dlen, du);
				}
			}
		}
		slice_close(s);
	}
	free(buf);
	sorter_close_input(&so);
	sorter_finish(&so);
	free(sl);
	url_lookup_close(&urls);
	graph_close(&g);
}

/* --dump-nodes: url, type, outdeg, indeg and id, in URL order; the
 * per-node files by id, through caches of views of a sixteenth of the
 * budget each. */
void
linkmat_dump_nodes(const struct linkmat *lm, const char *dir)
{
	struct graph g;
	graph_open(&g, dir);
	struct url_table t;
	url_table_open(&g, &t);
	struct vec types, outdeg, indeg;
	graph_vec(&g, GF_TYPES, false, &types);
	graph_vec(&g, GF_OUTDEG, false, &outdeg);
	graph_vec(&g, GF_INDEG, false, &indeg);
	struct vec_cache type, od, id;
	vec_cache_open(&type, &types, lm->budget / 16, false);
	vec_cache_open(&od, &outdeg, lm->budget / 16, false);
	vec_cache_open(&id, &indeg, lm->budget / 16, false);
	const char *url;
	size_t len;
	uint32_t n;
	while ((url = url_table_next(&t, &len, &n))) {
		uint8_t ty = *(const uint8_t *)vec_cache_at(&type, n);
		if (ty >= PAGE_TYPES)
			wa_die("%s/types: type %u of id %" PRIu32 " is unknown", dir, ty, n);
		printf("%.*s\t%s\t%" PRIu32 "\t%" PRIu32 "\t%" PRIu32 "\n", (int)len, url,
		    page_type_names[ty], *(const uint32_t *)vec_cache_at(&od, n),
		    *(const uint32_t *)vec_cache_at(&id, n), n);
	}
	vec_cache_close(&type);
	vec_cache_close(&od);
	vec_cache_close(&id);
	vec_free(&types);
	vec_free(&outdeg);
	vec_free(&indeg);
	url_table_close(&t);
	graph_close(&g);
}

