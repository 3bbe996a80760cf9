/* The readers of the graph directory (graph.h). */
#include <inttypes.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "graph.h"
#include "msg.h"
#include "scratch.h"
#include "url.h"

const char *const graph_file_names[GF_COUNT] = {
	"urls", "urlid", "urloff", "outdeg", "indeg", "types",
};
const char *const graph_file_kinds[GF_COUNT] = {
	"URLS", "UIDS", "UOFF", "ODEG", "IDEG", "TYPE",
};
static const size_t graph_file_record[GF_COUNT] = { 0, 4, 8, 4, 4, 1 };

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

uint64_t
graph_fingerprint(const struct graph *g)
{
	return (uint64_t)g->file_crc[GF_URLS] << 32 | g->file_crc[GF_URLOFF];
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

void
graph_vec(const struct graph *g, enum graph_file f, bool in_memory, struct vec *v)
{
	char *path = graph_path(g, graph_file_names[f]);
	struct bin_reader r;
	const char *msg = bin_reader_open(&r, path, graph_file_kinds[f], GRAPH_VERSION,
	    graph_file_record[f]);
	if (msg)
		wa_die("%s", msg);
	check_member(g, path, &r.h, f, g->nodes);
	/* Read whole before use: the last read checks the payload CRC. */
	uint64_t bytes = r.h.payload_bytes;
	size_t size = graph_file_record[f] ? graph_file_record[f] : 1;
	char *mem = wa_malloc(in_memory ? (bytes ? bytes : 1) : 1 << 20);
	size_t got;
	for (uint64_t done = 0;; done += got) {
		char *to = in_memory ? mem + done : mem;
		size_t want = in_memory ? (size_t)(bytes - done) : 1 << 20;
		if ((msg = bin_read(&r, to, want ? want : 1, &got)))
			wa_die("%s", msg);
		if (got == 0)
			break;
	}
	if (in_memory) {
		vec_of_memory(v, mem, bytes / size, size);
	} else {
		free(mem);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			wa_die_errno("%s", path);
		vec_of_file(v, fd, BIN_HEADER_BYTES, bytes / size, size, path);
	}
	bin_reader_close(&r);
	free(path);
}

unsigned
slice_bits(uint64_t pages)
{
	unsigned bits = 1;
	while (bits < 32 && pages > UINT64_C(1) << bits)
		bits++;
	return bits;
}

struct matrix_check {
	uint64_t links, internal;
	uint64_t out_sum, in_sum;	/* degree checksums, see graph_mix */
};

/* Walks the words of blocks [b0, b1) in buf with bounds checks: a slice
 * that passed its CRC may still come from a faulty writer, and the fast
 * decoders trust it. */
static void
check_blocks(const struct slice *s, uint64_t b0, uint64_t b1, const uint32_t *buf,
    uint64_t nodes, struct matrix_check *mc)
{
	const uint32_t *base = buf - s->block_off[b0];
	const uint64_t width = s->hi - s->lo, escape = UINT32_MAX >> s->bits;
	for (uint64_t b = b0; b < b1; b++) {
		const uint32_t *p = base + s->block_off[b], *end = base + s->block_off[b + 1];
		bool internal = b >= s->external_blocks;
		uint64_t major = s->block_first[b], minor = 0, n = 0;
		while (p < end) {
			uint32_t w = *p++;
			uint64_t delta = w >> s->bits, at = major;
			if (delta == escape) {
				if (p == end)
					wa_die("%s: block %llu: an escaped word cut short", s->path,
					    (unsigned long long)b);
				delta = *p++;
			}
			major += delta;
			uint64_t m = w & ((UINT32_C(1) << s->bits) - 1);
			if (n == 0 ? delta != 0 : delta == 0 ? m <= minor : false)
				wa_die("%s: block %llu: links out of order after id %llu", s->path,
				    (unsigned long long)b, (unsigned long long)at);
			minor = m;
			uint64_t src = internal ? s->lo + minor : major;
			uint64_t dst = internal ? major : s->lo + minor;
			if (src >= nodes || minor >= width || (internal ? dst >= s->hi || dst < s->lo ||
			    src == dst : src >= s->lo && src < s->hi))
				wa_die("%s: block %llu: a link %llu -> %llu that does not belong in "
				    "the %s section of ids %llu to %llu", s->path,
				    (unsigned long long)b, (unsigned long long)src,
				    (unsigned long long)dst, internal ? "internal" : "external",
				    (unsigned long long)s->lo, (unsigned long long)s->hi - 1);
			mc->out_sum += graph_mix(src);
			mc->in_sum += graph_mix(dst);
			mc->internal += internal;
			n++;
		}
		if (n == 0)
			wa_die("%s: block %llu is empty", s->path, (unsigned long long)b);
		if (b + 1 < s->blocks && b + 1 != s->external_blocks &&
		    s->block_first[b + 1] <= major)
			wa_die("%s: block %llu begins with id %llu, not after the block before",
			    s->path, (unsigned long long)b + 1,
			    (unsigned long long)s->block_first[b + 1]);
		mc->links += n;
	}
}

static void
read_index(struct bin_reader *r, const char *path, void *out, uint64_t bytes)
{
	size_t got;
	for (uint64_t done = 0; done < bytes; done += got) {
		const char *msg = bin_read(r, (char *)out + done, bytes - done, &got);
		if (msg)
			wa_die("%s", msg);
		if (got == 0)
			wa_die("%s: the block index is cut short", path);
	}
}

void
slice_open(const struct graph *g, uint32_t k, struct slice *s)
{
	char *name = graph_slice_name(k);
	memset(s, 0, sizeof *s);
	s->k = k;
	s->path = graph_path(g, name);
	free(name);
	struct bin_reader r;
	const char *msg = bin_reader_open(&r, s->path, "SLCE", GRAPH_VERSION, 0);
	if (msg)
		wa_die("%s", msg);
	check_member(g, s->path, &r.h, GF_COUNT + k, r.h.count);
	s->lo = r.h.aux[0];
	s->hi = r.h.aux[1];
	s->internal = r.h.aux[2];
	s->links = r.h.count;
	if (s->lo != g->bound[k] || s->hi != g->bound[k + 1])
		wa_die("%s: covers ids %llu to %llu, the manifest says %llu to %llu", s->path,
		    (unsigned long long)s->lo, (unsigned long long)s->hi,
		    (unsigned long long)g->bound[k], (unsigned long long)g->bound[k + 1]);
	if (s->hi - s->lo > GRAPH_SLICE_LIMIT)
		wa_die("%s: a slice of %llu pages, more than the format's %u", s->path,
		    (unsigned long long)(s->hi - s->lo), GRAPH_SLICE_LIMIT);
	s->bits = slice_bits(s->hi - s->lo);
	uint64_t counts[2];
	if (r.h.payload_bytes < 16)
		wa_die("%s: no block index", s->path);
	read_index(&r, s->path, counts, 16);
	s->external_blocks = counts[0];
	if (counts[0] > (r.h.payload_bytes - 16) / 12 ||
	    counts[1] > (r.h.payload_bytes - 16) / 12 - counts[0])
		wa_die("%s: a block index of %llu and %llu entries does not fit the payload",
		    s->path, (unsigned long long)counts[0], (unsigned long long)counts[1]);
	s->blocks = counts[0] + counts[1];
	uint64_t index_bytes = 16 + s->blocks * 12;
	if ((r.h.payload_bytes - index_bytes) % 4)
		wa_die("%s: %llu payload bytes do not end on a word", s->path,
		    (unsigned long long)r.h.payload_bytes);
	s->words = (r.h.payload_bytes - index_bytes) / 4;
	s->data_pos = BIN_HEADER_BYTES + index_bytes;
	s->block_off = wa_calloc(s->blocks + 1, sizeof *s->block_off);
	s->block_first = wa_calloc(s->blocks + 1, sizeof *s->block_first);
	read_index(&r, s->path, s->block_off, s->blocks * 8);
	read_index(&r, s->path, s->block_first, s->blocks * 4);
	s->block_off[s->blocks] = s->words;
	for (uint64_t b = 0; b < s->blocks; b++)
		if (s->block_off[b] >= s->block_off[b + 1] || (b == 0 && s->block_off[0] != 0))
			wa_die("%s: block %llu starts at word %llu, out of order", s->path,
			    (unsigned long long)b, (unsigned long long)s->block_off[b]);
	if (s->blocks == 0 && s->words)
		wa_die("%s: words without blocks", s->path);
	/* The payload CRC is checked by graph_check_matrix, which reads it all. */
	s->fd = dup(r.fd);
	if (s->fd < 0)
		wa_die_errno("%s", s->path);
	bin_reader_close(&r);
}

uint64_t
slice_read_blocks(const struct slice *s, uint64_t b0, uint64_t b1, uint32_t *buf)
{
	uint64_t off = s->block_off[b0] * 4, n = s->block_off[b1] * 4 - off;
	ssize_t got = pread_full(s->fd, buf, n, s->data_pos + off);
	if (got < 0)
		wa_die_errno("%s: read error", s->path);
	if ((uint64_t)got < n)
		wa_die("%s: the file has become shorter while being read", s->path);
	return n / 4;
}

uint64_t
slice_read_run(const struct slice *s, uint64_t b0, uint64_t end, uint64_t run_bytes,
    uint32_t **buf, size_t *cap)
{
	uint64_t b1 = b0 + 1;
	while (b1 < end && (s->block_off[b1 + 1] - s->block_off[b0]) * 4 <= run_bytes)
		b1++;
	size_t need = s->block_off[b1] - s->block_off[b0];
	if (need > *cap) {
		free(*buf);
		*buf = wa_reallocarray(NULL, *cap = need, 4);
	}
	slice_read_blocks(s, b0, b1, *buf);
	return b1;
}

void
slice_prefetch(const struct slice *s)
{
	/* Advice only: a failure costs time, not results. */
	(void)posix_fadvise(s->fd, (off_t)s->data_pos, (off_t)(s->words * 4),
	    POSIX_FADV_WILLNEED);
}

void
slice_load(struct slice *s)
{
	s->data = wa_malloc(s->words ? s->words * 4 : 1);
	slice_read_blocks(s, 0, s->blocks, s->data);
}

void
slice_close(struct slice *s)
{
	if (s->fd > 0 && !s->fd_shared)
		close(s->fd);
	free(s->path);
	free(s->block_off);
	free(s->block_first);
	free(s->data);
	memset(s, 0, sizeof *s);
}

void
graph_check_matrix(const struct graph *g, struct slice *slices, const struct vec *outdeg,
    const struct vec *indeg, const bool *keep, uint64_t run_bytes)
{
	struct matrix_check total = { 0 };
	uint32_t *buf = NULL;
	size_t cap = 0;
	for (uint32_t k = 0; k < g->slices; k++) {
		struct slice *s = &slices[k];
		struct matrix_check mc = { 0 };
		/* The CRC covers the block index too. */
		uint32_t crc = (uint32_t)crc32(0L, Z_NULL, 0);
		uint64_t counts[2] = { s->external_blocks, s->blocks - s->external_blocks };
		crc = (uint32_t)crc32_z(crc, (const Bytef *)counts, 16);
		crc = (uint32_t)crc32_z(crc, (const Bytef *)s->block_off, s->blocks * 8);
		crc = (uint32_t)crc32_z(crc, (const Bytef *)s->block_first, s->blocks * 4);
		if (keep && keep[k]) {
			slice_load(s);
			crc = (uint32_t)crc32_z(crc, (const Bytef *)s->data, s->words * 4);
			check_blocks(s, 0, s->blocks, s->data, g->nodes, &mc);
		} else {
			for (uint64_t b0 = 0, b1; b0 < s->blocks; b0 = b1) {
				b1 = slice_read_run(s, b0, s->blocks, run_bytes, &buf, &cap);
				crc = (uint32_t)crc32_z(crc, (const Bytef *)buf,
				    (s->block_off[b1] - s->block_off[b0]) * 4);
				check_blocks(s, b0, b1, buf, g->nodes, &mc);
			}
		}
		if (crc != g->file_crc[GF_COUNT + k])
			wa_die("%s: payload checksum mismatch: the data is corrupt", s->path);
		if (mc.links != s->links || mc.internal != s->internal)
			wa_die("%s: %llu links, %llu internal, the header says %llu and %llu",
			    s->path, (unsigned long long)mc.links, (unsigned long long)mc.internal,
			    (unsigned long long)s->links, (unsigned long long)s->internal);
		total.links += mc.links;
		total.out_sum += mc.out_sum;
		total.in_sum += mc.in_sum;
	}
	free(buf);
	if (total.links != g->links)
		wa_die("%s: the slices hold %llu links, the manifest says %llu", g->dir,
		    (unsigned long long)total.links, (unsigned long long)g->links);
	uint64_t out_sum = 0, in_sum = 0;
	for (uint64_t lo = 0, hi; lo < g->nodes; lo = hi) {
		hi = g->nodes - lo < (1u << 16) ? g->nodes : lo + (1u << 16);
		const uint32_t *od = vec_view(outdeg, lo, hi, VEC_READ);
		const uint32_t *id = vec_view(indeg, lo, hi, VEC_READ);
		for (uint64_t i = lo; i < hi; i++) {
			out_sum += od[i - lo] * graph_mix(i);
			in_sum += id[i - lo] * graph_mix(i);
		}
		vec_unview(outdeg, od, lo, hi);
		vec_unview(indeg, id, lo, hi);
	}
	if (out_sum != total.out_sum)
		wa_die("%s/outdeg: the out-degrees disagree with the link matrix", g->dir);
	if (in_sum != total.in_sum)
		wa_die("%s/indeg: the in-degrees disagree with the link matrix", g->dir);
}

uint32_t
graph_slices_for_budget(uint64_t nodes, uint64_t budget)
{
	/* A slice's sums are written in random order: 64 slices keep them
	 * within the caches (2 MiB at 2^24 pages).  A slice of 2^15 pages
	 * (256 KiB of sums) is within them already, and every slice costs a
	 * file, its opening and a reading of the source vector: a graph of
	 * fewer pages is one slice.  The slices of a large graph grow up to
	 * 2^20 pages (8 MiB of sums).  The budget comes last: wa-pagerank -U
	 * with two threads holds, per page of a slice, six sums (rankplan.c,
	 * slice_buffer_bytes), and keeps half its budget for the rest, so 96
	 * bytes a page. */
	uint64_t per_slice = nodes / 64;
	if (per_slice < GRAPH_MIN_SLICE_NODES)
		per_slice = GRAPH_MIN_SLICE_NODES;
	if (per_slice > GRAPH_MAX_SLICE_NODES)
		per_slice = GRAPH_MAX_SLICE_NODES;
	if (per_slice > budget / 96)
		per_slice = budget / 96 ? budget / 96 : 1;
	uint64_t s = (nodes + per_slice - 1) / per_slice;
	return s ? (uint32_t)s : 1;
}

/* Bytes of the URL table and ids of it viewed at a time. */
#define URL_VIEW_BYTES ((uint64_t)1 << 20)
#define ID_VIEW_ROWS ((uint64_t)1 << 16)

void
url_table_open(const struct graph *g, struct url_table *t)
{
	*t = (struct url_table){ .g = g };
	graph_vec(g, GF_URLS, false, &t->urls);
	graph_vec(g, GF_URLID, false, &t->ids);
}

const char *
url_table_next(struct url_table *t, size_t *len, uint32_t *id)
{
	const struct graph *g = t->g;
	uint64_t bytes = t->urls.n;
	if (t->pos >= bytes)
		return NULL;
	if (t->pos + URL_MAX + 1 > t->text_hi && t->text_hi < bytes) {
		vec_unview(&t->urls, t->text, t->text_lo, t->text_hi);
		t->text_lo = t->pos;
		t->text_hi = bytes - t->pos < URL_VIEW_BYTES ? bytes : t->pos + URL_VIEW_BYTES;
		t->text = vec_view(&t->urls, t->text_lo, t->text_hi, VEC_READ);
	}
	const char *u = t->text + (t->pos - t->text_lo);
	const char *nl = memchr(u, '\n', (size_t)(t->text_hi - t->pos));
	if (!nl || t->row >= g->nodes)
		wa_die("%s/urls: the URL table is malformed at row %llu", g->dir,
		    (unsigned long long)t->row);
	if (t->row >= t->id_hi) {
		vec_unview(&t->ids, t->id, t->id_lo, t->id_hi);
		t->id_lo = t->row;
		t->id_hi = g->nodes - t->row < ID_VIEW_ROWS ? g->nodes : t->row + ID_VIEW_ROWS;
		t->id = vec_view(&t->ids, t->id_lo, t->id_hi, VEC_READ);
	}
	*len = (size_t)(nl - u);
	*id = t->id[t->row++ - t->id_lo];
	if (*id >= g->nodes)
		wa_die("%s/urlid: id %u out of range", g->dir, *id);
	t->pos += *len + 1;
	return u;
}

void
url_table_close(struct url_table *t)
{
	vec_unview(&t->urls, t->text, t->text_lo, t->text_hi);
	vec_unview(&t->ids, t->id, t->id_lo, t->id_hi);
	vec_free(&t->urls);
	vec_free(&t->ids);
}

void
url_lookup_open(const struct graph *g, struct url_lookup *l, uint64_t cache_bytes)
{
	*l = (struct url_lookup){ .g = g };
	graph_vec(g, GF_URLS, false, &l->urls);
	graph_vec(g, GF_URLOFF, false, &l->off);
	vec_cache_open(&l->cache, &l->off, cache_bytes, false);
}

size_t
url_lookup(struct url_lookup *l, uint64_t id, char buf[URL_BUFSIZE])
{
	uint64_t off = *(const uint64_t *)vec_cache_at(&l->cache, id);
	ssize_t got = off < l->urls.n ? pread(l->urls.fd, buf, URL_BUFSIZE,
	    (off_t)(l->urls.offset + off)) : 0;
	if (got < 0)
		wa_die_errno("%s: read error", l->urls.name);
	const char *nl = memchr(buf, '\n', (size_t)got);
	if (!nl)
		wa_die("%s/urloff: offset %" PRIu64 " of id %" PRIu64 " is no URL", l->g->dir, off,
		    id);
	return (size_t)(nl - buf);
}

void
url_lookup_close(struct url_lookup *l)
{
	vec_cache_close(&l->cache);
	vec_free(&l->off);
	vec_free(&l->urls);
}
