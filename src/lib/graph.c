#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "msg.h"

const char *const page_type_names[PAGE_TYPES] = {
	"-", "html", "xml", "dtd", "other", "error", "xml-suspect",
};

const char *const graph_file_names[GF_COUNT] = {
	"urls", "urlid", "urloff", "outdeg", "indeg", "types",
};
const char *const graph_file_kinds[GF_COUNT] = {
	"URLS", "UIDS", "UOFF", "ODEG", "IDEG", "TYPE",
};
static const size_t graph_file_record[GF_COUNT] = { 0, 4, 8, 4, 4, 1 };

int
page_type_parse(const char *s)
{
	for (int t = 0; t < PAGE_TYPES; t++)
		if (strcmp(s, page_type_names[t]) == 0)
			return t;
	return -1;
}

char *
graph_path(const struct graph *g, const char *name)
{
	return wa_asprintf("%s/%s", g->dir, name);
}

char *
graph_slice_name(uint32_t k)
{
	return wa_asprintf("slice-%04u", k);
}

void
graph_open(struct graph *g, const char *dir)
{
	memset(g, 0, sizeof *g);
	g->dir = wa_strdup(dir);
	char *path = graph_path(g, "manifest");
	struct bin_map m;
	const char *msg = bin_map_open(&m, path, "GRPH", GRAPH_VERSION, 0);
	if (msg)
		wa_die("%s", msg);
	g->nodes = m.h.count;
	g->links = m.h.aux[0];
	if (m.h.aux[1] == 0 || m.h.aux[1] > UINT32_MAX || g->nodes > GRAPH_MAX_NODES)
		wa_die("%s: %llu nodes in %llu slices: not a graph this wa can read", path,
		    (unsigned long long)g->nodes, (unsigned long long)m.h.aux[1]);
	g->slices = (uint32_t)m.h.aux[1];
	uint64_t want = (g->slices + 1) * 8 + (GF_COUNT + (uint64_t)g->slices) * 4;
	if (m.h.payload_bytes != want)
		wa_die("%s: %llu payload bytes, a manifest of %u slices has %llu", path,
		    (unsigned long long)m.h.payload_bytes, g->slices, (unsigned long long)want);
	g->bound = wa_calloc(g->slices + 1, sizeof *g->bound);
	g->file_crc = wa_calloc(GF_COUNT + g->slices, sizeof *g->file_crc);
	memcpy(g->bound, m.data, (g->slices + 1) * 8);
	memcpy(g->file_crc, (const char *)m.data + (g->slices + 1) * 8,
	    (GF_COUNT + g->slices) * 4);
	if (g->bound[0] != 0 || g->bound[g->slices] != g->nodes)
		wa_die("%s: slices cover ids %llu to %llu, the graph has %llu nodes", path,
		    (unsigned long long)g->bound[0], (unsigned long long)g->bound[g->slices],
		    (unsigned long long)g->nodes);
	for (uint32_t k = 0; k < g->slices; k++)
		if (g->bound[k] > g->bound[k + 1])
			wa_die("%s: slice %u has bounds %llu > %llu", path, k,
			    (unsigned long long)g->bound[k], (unsigned long long)g->bound[k + 1]);
	bin_map_close(&m);
	free(path);
}

void
graph_close(struct graph *g)
{
	free(g->dir);
	free(g->bound);
	free(g->file_crc);
	memset(g, 0, sizeof *g);
}

/* A file that checks out on its own may still belong to another build of
 * the graph; the manifest's CRC ties it to this one. */
static void
check_member(const struct graph *g, const char *path, const struct bin_header *h,
    uint64_t index, uint64_t want_count)
{
	if (h->payload_crc != g->file_crc[index])
		wa_die("%s: not the file the manifest lists (payload CRC %08x, manifest %08x):"
		    " files of different graphs mixed?", path, h->payload_crc,
		    g->file_crc[index]);
	if (h->count != want_count)
		wa_die("%s: %llu records, the graph has %llu", path,
		    (unsigned long long)h->count, (unsigned long long)want_count);
}

const void *
graph_map(const struct graph *g, enum graph_file f, struct bin_map *m)
{
	char *path = graph_path(g, graph_file_names[f]);
	const char *msg = bin_map_open(m, path, graph_file_kinds[f], GRAPH_VERSION,
	    graph_file_record[f]);
	if (msg)
		wa_die("%s", msg);
	check_member(g, path, &m->h, f, g->nodes);
	free(path);
	return m->data;
}

/* A varint that must end before end and fit 64 bits. */
static bool
varint_get_checked(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	const uint8_t *q = *p;
	for (int n = 0; q < end && n < 10; n++)
		if (!(*q++ & 0x80)) {
			*v = varint_get(p);
			return true;
		}
	return false;
}

/* Walks every record with bounds checks: a slice that passed its CRC may
 * still come from a faulty writer, and the fast decoders trust it. */
static void
slice_validate(const char *path, const struct slice *s, uint64_t nodes)
{
	const uint8_t *p = s->data, *end = s->data + s->data_bytes;
	uint64_t records = 0, links = 0;
	for (uint64_t b = 0; b < s->blocks; b++) {
		const uint8_t *bend = s->data + s->block_off[b + 1];
		uint64_t next_src = 0;	/* the least id the next source may have */
		if (p != s->data + s->block_off[b] || bend > end || bend < p)
			wa_die("%s: block %llu does not start where the index says", path,
			    (unsigned long long)b);
		while (p < bend) {
			uint64_t gap, k, d;
			if (!varint_get_checked(&p, bend, &gap) || !varint_get_checked(&p, bend, &k))
				wa_die("%s: block %llu: record %llu cut short", path,
				    (unsigned long long)b, (unsigned long long)records);
			uint64_t src = next_src + gap;
			if (src >= nodes || src < next_src)
				wa_die("%s: record %llu: source id %llu, the graph has %llu nodes",
				    path, (unsigned long long)records, (unsigned long long)src,
				    (unsigned long long)nodes);
			next_src = src + 1;
			k++;
			uint64_t dst = s->lo;
			for (uint64_t i = 0; i < k; i++) {
				if (!varint_get_checked(&p, bend, &d))
					wa_die("%s: record %llu cut short", path,
					    (unsigned long long)records);
				dst += d + (i > 0);
				if (dst >= s->hi || dst < s->lo)
					wa_die("%s: record %llu: destination %llu outside the slice's "
					    "ids %llu to %llu", path, (unsigned long long)records,
					    (unsigned long long)dst, (unsigned long long)s->lo,
					    (unsigned long long)s->hi - 1);
			}
			records++;
			links += k;
		}
	}
	if (records != s->records || links != s->links)
		wa_die("%s: %llu records and %llu links, the header says %llu and %llu", path,
		    (unsigned long long)records, (unsigned long long)links,
		    (unsigned long long)s->records, (unsigned long long)s->links);
}

void
slice_load(const struct graph *g, uint32_t k, struct slice *s)
{
	char *name = graph_slice_name(k);
	char *path = graph_path(g, name);
	struct bin_map m;
	const char *msg = bin_map_open(&m, path, "SLCE", GRAPH_VERSION, 0);
	if (msg)
		wa_die("%s", msg);
	check_member(g, path, &m.h, GF_COUNT + k, m.h.count);
	memset(s, 0, sizeof *s);
	s->k = k;
	s->lo = m.h.aux[0];
	s->hi = m.h.aux[1];
	s->links = m.h.aux[2];
	s->records = m.h.count;
	if (s->lo != g->bound[k] || s->hi != g->bound[k + 1])
		wa_die("%s: covers ids %llu to %llu, the manifest says %llu to %llu", path,
		    (unsigned long long)s->lo, (unsigned long long)s->hi,
		    (unsigned long long)g->bound[k], (unsigned long long)g->bound[k + 1]);
	const uint8_t *p = m.data;
	if (m.h.payload_bytes < 8)
		wa_die("%s: no block index", path);
	memcpy(&s->blocks, p, 8);
	if (s->blocks > (m.h.payload_bytes - 8) / 8)
		wa_die("%s: a block index of %llu entries does not fit the payload", path,
		    (unsigned long long)s->blocks);
	uint64_t index_bytes = 8 + s->blocks * 8;
	s->data_bytes = m.h.payload_bytes - index_bytes;
	s->block_off = wa_calloc(s->blocks + 1, sizeof *s->block_off);
	memcpy(s->block_off, p + 8, s->blocks * 8);
	s->block_off[s->blocks] = s->data_bytes;
	/* The padding byte lets decoders read one byte past a record. */
	s->data = wa_malloc(s->data_bytes + 16);
	memcpy(s->data, p + index_bytes, s->data_bytes);
	memset(s->data + s->data_bytes, 0, 16);
	bin_map_close(&m);
	slice_validate(path, s, g->nodes);
	free(name);
	free(path);
}

void
slice_free(struct slice *s)
{
	free(s->block_off);
	free(s->data);
	memset(s, 0, sizeof *s);
}

uint32_t
graph_slices_for_budget(uint64_t nodes, uint64_t budget)
{
	/* wa-pagerank -U holds, per node of a slice, the importance being
	 * computed and the usefulness window, and keeps half its budget for
	 * the vectors it streams: 32 bytes a node of a slice. */
	uint64_t per_slice = budget / 32;
	if (per_slice < GRAPH_MIN_SLICE_NODES)
		per_slice = GRAPH_MIN_SLICE_NODES;
	uint64_t s = (nodes + per_slice - 1) / per_slice;
	return s ? (uint32_t)s : 1;
}
