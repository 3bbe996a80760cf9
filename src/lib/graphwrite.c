/* The writers of the graph directory (graph.h): buffered files, the
 * encoder of the slices, and the manifest. */
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "msg.h"

void
graph_writer_open(struct graph_writer *o, const char *dir, const char *name, const char *kind)
{
	char *path = wa_asprintf("%s/%s", dir, name);
	o->w = bin_create(path, kind, GRAPH_VERSION);
	free(path);
	o->buf = wa_malloc(GRAPH_WRITE_BLOCK);
	o->n = 0;
	o->bytes = 0;
}

void
graph_writer_put_full(struct graph_writer *o, const void *p, size_t n)
{
	o->bytes += n;
	bin_write(o->w, o->buf, o->n);
	o->n = 0;
	if (n > GRAPH_WRITE_BLOCK) {
		bin_write(o->w, p, n);
		return;
	}
	memcpy(o->buf, p, n);
	o->n = n;
}

void
graph_writer_commit(struct graph_writer *o, uint64_t count, const uint64_t aux[3])
{
	bin_write(o->w, o->buf, o->n);
	bin_commit(o->w, count, aux);
	free(o->buf);
	o->buf = NULL;
}

void
graph_slice_writer_open(struct graph_slice_writer *sw, const char *scratch_dir)
{
	*sw = (struct graph_slice_writer){ 0 };
	spool_open(&sw->words, scratch_dir);
}

void
graph_slice_begin(struct graph_slice_writer *sw, uint64_t lo, uint64_t hi)
{
	sw->lo = lo;
	sw->hi = hi;
	sw->bits = slice_bits(hi - lo);
	sw->blocks = sw->block_links = sw->nwords = 0;
	sw->links = sw->internal = 0;
	sw->external_blocks = UINT64_MAX;
}

static void
word_put(struct graph_slice_writer *sw, uint32_t w)
{
	spool_put(&sw->words, &w, 4);
	sw->nwords++;
}

/* A block opens at the start of a section, and once the block before has
 * its share of links, at the next major. */
void
graph_slice_add(struct graph_slice_writer *sw, bool internal, uint64_t major, uint64_t minor)
{
	bool new_section = internal && sw->external_blocks == UINT64_MAX;
	if (new_section)
		sw->external_blocks = sw->blocks;
	else if (sw->blocks && (major < sw->major || (major == sw->major && minor <= sw->minor)))
		wa_die("internal error: matrix out of order");
	if (sw->blocks == 0 || new_section || (major != sw->major &&
	    (sw->block_links >= GRAPH_BLOCK_LINKS ||
	    (internal && major - sw->block_first[sw->blocks - 1] >= GRAPH_BLOCK_SPAN)))) {
		if (sw->blocks == sw->block_cap) {
			sw->block_cap = sw->block_cap ? 2 * sw->block_cap : 64;
			sw->block_off = wa_reallocarray(sw->block_off, sw->block_cap, 8);
			sw->block_first = wa_reallocarray(sw->block_first, sw->block_cap, 4);
		}
		sw->block_off[sw->blocks] = sw->nwords;
		sw->block_first[sw->blocks++] = (uint32_t)major;
		sw->block_links = 0;
	}
	uint64_t delta = major - (sw->block_links ? sw->major : major);
	uint32_t escape = UINT32_MAX >> sw->bits;
	if (delta >= escape) {
		word_put(sw, escape << sw->bits | (uint32_t)minor);
		word_put(sw, (uint32_t)delta);
	} else {
		word_put(sw, (uint32_t)delta << sw->bits | (uint32_t)minor);
	}
	sw->major = major;
	sw->minor = minor;
	sw->block_links++;
	sw->links++;
	sw->internal += internal;
}

static void
to_writer(void *arg, const void *p, size_t n)
{
	graph_writer_put(arg, p, n);
}

uint64_t
graph_slice_commit(struct graph_slice_writer *sw, const char *dir, uint32_t k)
{
	if (sw->external_blocks == UINT64_MAX)
		sw->external_blocks = sw->blocks;
	char *name = graph_slice_name(k);
	struct graph_writer o;
	graph_writer_open(&o, dir, name, "SLCE");
	free(name);
	uint64_t counts[2] = { sw->external_blocks, sw->blocks - sw->external_blocks };
	graph_writer_put(&o, counts, 16);
	graph_writer_put(&o, sw->block_off, sw->blocks * 8);
	graph_writer_put(&o, sw->block_first, sw->blocks * 4);
	spool_drain(&sw->words, to_writer, &o);
	uint64_t bytes = BIN_HEADER_BYTES + o.bytes;
	graph_writer_commit(&o, sw->links, (const uint64_t[3]){ sw->lo, sw->hi, sw->internal });
	return bytes;
}

void
graph_slice_writer_close(struct graph_slice_writer *sw)
{
	spool_close(&sw->words);
	free(sw->block_off);
	free(sw->block_first);
}

/* The payload CRC of a file just written, from its header. */
static uint32_t
file_crc(const char *dir, const char *name, const char *kind)
{
	char *path = wa_asprintf("%s/%s", dir, name);
	struct bin_reader r;
	const char *msg = bin_reader_open(&r, path, kind, GRAPH_VERSION, 0);
	if (msg)
		wa_die("%s", msg);
	uint32_t crc = r.h.payload_crc;
	bin_reader_close(&r);
	free(path);
	return crc;
}

void
graph_write_manifest(const char *dir, uint64_t nodes, uint64_t links, uint32_t slices,
    const uint64_t *bound)
{
	struct graph_writer o;
	graph_writer_open(&o, dir, "manifest", "GRPH");
	graph_writer_put(&o, bound, (slices + 1) * sizeof *bound);
	for (int f = 0; f < GF_COUNT; f++) {
		uint32_t crc = file_crc(dir, graph_file_names[f], graph_file_kinds[f]);
		graph_writer_put(&o, &crc, 4);
	}
	for (uint32_t k = 0; k < slices; k++) {
		char *name = graph_slice_name(k);
		uint32_t crc = file_crc(dir, name, "SLCE");
		graph_writer_put(&o, &crc, 4);
		free(name);
	}
	graph_writer_commit(&o, nodes, (const uint64_t[3]){ links, slices, 0 });
}
