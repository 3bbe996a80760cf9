/* The graph directory of wa-linkmat (man/wa-formats.5, "Graph directory").
 *
 * Page ids run from 0 to N-1 in the byte order of (SURT key, URL), so a
 * site is a range of ids.  The link matrix is cut by destination id into
 * S slices, slice k holding the links whose destination lies in
 * [bound[k], bound[k+1]); each slice is one file read sequentially, the
 * matrix slicing of Preda (Data Acquisition for an XML Warehouse, 2000,
 * sec. 2.3.2).
 *
 * Files, each with the binary header of binfile.h, version 1:
 *   manifest   GRPH  count N; aux L links, S slices.  Payload: S+1 u64
 *                    slice bounds, then the payload CRC-32 of every other
 *                    file in the order of graph_file_names, as u32.
 *   urls       URLS  count N; the URLs in byte order, each ended by '\n'.
 *   urlid      UIDS  count N; u32 id of each URL of urls, in that order.
 *   urloff     UOFF  count N; u64 offset in urls of the URL of each id.
 *   outdeg     ODEG  count N; u32 distinct out-links of each id.
 *   indeg      IDEG  count N; u32 distinct in-links of each id.
 *   types      TYPE  count N; u8 page type of each id (enum page_type).
 *   slice-KKKK SLCE  count links; aux lo, hi, internal links.
 *
 * A slice holds its links in two sections of blocks.  External links
 * (source outside the slice) come in (source, destination) order, for a
 * scatter into the slice's sums; internal links (source inside) come in
 * (destination, source) order, so that Gauss-Seidel can finish each page
 * of the slice as soon as its sums are complete and let the next pages
 * use its new value at once.  Each link is one u32 word
 *   (major delta) << b | minor
 * where minor is the other end less lo (the destination of an external
 * link, the source of an internal one), b = bits of hi - lo - 1 (at least
 * 1; a slice holds at most 2^24 pages, so 8 bits or more are left for the
 * delta), and major is the source (external) or destination (internal),
 * given as its increase over the link before in the block; a block's
 * first link has delta 0 from the block's first id.  A delta that does
 * not fit takes the field's largest value and the next word holds it.
 * Blocks split only between two majors: a thread owns whole sources (or
 * destinations) and writes them without locks.
 *
 * The payload: u64 E, u64 I, E + I u64 word offsets of the blocks (E
 * external ones first), E + I u32 first ids, then the words.  Header:
 * count links; aux lo, hi, internal links.
 *
 * The readers are in graph.c, the writers in graphwrite.c. */
#ifndef WA_GRAPH_H
#define WA_GRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "binfile.h"
#include "hash.h"
#include "pagetype.h"
#include "scratch.h"
#include "url.h"
#include "vec.h"

#define GRAPH_VERSION 2
#define GRAPH_MAX_NODES UINT32_MAX	/* ids are u32; N <= 2^32-1 */
/* A block closes at the next major once it holds this many links or, in
 * the internal section, spans this many destinations: threads split a
 * slice's pages at block starts. */
#define GRAPH_BLOCK_LINKS 16384
#define GRAPH_BLOCK_SPAN 4096
#define GRAPH_MIN_SLICE_NODES (1u << 15)
#define GRAPH_MAX_SLICE_NODES (1u << 20)	/* chosen by the budget */
#define GRAPH_SLICE_LIMIT (1u << 24)		/* of the word format */

/* Files in manifest CRC order; the slices follow. */
enum graph_file { GF_URLS, GF_URLID, GF_URLOFF, GF_OUTDEG, GF_INDEG, GF_TYPES, GF_COUNT };
extern const char *const graph_file_names[GF_COUNT];
extern const char *const graph_file_kinds[GF_COUNT];

struct graph {
	char *dir;
	uint64_t nodes, links;
	uint32_t slices;
	uint64_t *bound;		/* slices + 1 */
	uint32_t *file_crc;		/* GF_COUNT + slices, from the manifest */
};

/* Opens and checks the manifest; dies with a message naming the fault. */
void graph_open(struct graph *g, const char *dir);
void graph_close(struct graph *g);
/* The identity of the ids: the CRC-32s of urls and urloff, which fix the
 * URL of every id.  A vector in id order carries it (wa-formats(5), VEC8)
 * so that it is not taken for the vector of another graph of the same
 * size.  0 means unknown. */
uint64_t graph_fingerprint(const struct graph *g);
char *graph_path(const struct graph *g, const char *name);
char *graph_slice_name(uint32_t k);	/* "slice-0007" */

/* Maps one of the per-node files, checking it against the manifest. */
const void *graph_map(const struct graph *g, enum graph_file f, struct bin_map *m);
/* One of the per-node files as a vector of its records (of bytes, for
 * urls), read whole first to check it against the manifest: held in
 * memory when in_memory, else viewed a range at a time. */
void graph_vec(const struct graph *g, enum graph_file f, bool in_memory, struct vec *v);

/* A slice: its header and block index, checked against the manifest at
 * open.  The words are read either whole into memory (slice_load) or a
 * run of blocks at a time (slice_read_blocks), for matrices larger than
 * the memory budget. */
struct slice {
	uint32_t k;
	char *path;
	int fd;
	bool fd_shared;		/* another's, not closed with the slice */
	uint64_t lo, hi, links, internal;
	unsigned bits;		/* of the minor part of a word */
	uint64_t blocks, external_blocks;
	uint64_t *block_off;	/* blocks + 1 word offsets; the last is words */
	uint32_t *block_first;	/* blocks */
	uint64_t data_pos;	/* file offset of the first word */
	uint64_t words;
	uint32_t *data;		/* all words, after slice_load */
};

void slice_open(const struct graph *g, uint32_t k, struct slice *s);
/* Reads the words of blocks [b0, b1) into buf; returns their number. */
uint64_t slice_read_blocks(const struct slice *s, uint64_t b0, uint64_t b1, uint32_t *buf);
/* Reads the blocks from b0 on, before end, up to run_bytes of them but
 * one block at least, into *buf, grown to hold them (*cap words);
 * returns the first block not read. */
uint64_t slice_read_run(const struct slice *s, uint64_t b0, uint64_t end, uint64_t run_bytes,
    uint32_t **buf, size_t *cap);
void slice_load(struct slice *s);
/* Asks the kernel to read the whole slice ahead, in the background. */
void slice_prefetch(const struct slice *s);
void slice_close(struct slice *s);
/* The bits of the minor part of the words of a slice of that many pages. */
unsigned slice_bits(uint64_t pages);

/* Reads every slice once: payload CRCs, record structure (ids in range,
 * ascending, counts as the headers say), and the degree checksums against
 * outdeg and indeg.  Dies naming the first fault.  Slices listed in
 * keep[] are left loaded in memory; the others are read in runs of blocks
 * of about run_bytes. */
void graph_check_matrix(const struct graph *g, struct slice *slices,
    const struct vec *outdeg, const struct vec *indeg, const bool *keep, uint64_t run_bytes);

/* The graph's URLs in byte order, with their ids: the join key of every
 * url<TAB>score stream, read in order through views of the URL table. */
struct url_table {
	const struct graph *g;
	struct vec urls, ids;
	uint64_t pos, row;		/* of the next URL */
	const char *text;		/* urls [text_lo, text_hi) */
	uint64_t text_lo, text_hi;
	const uint32_t *id;		/* ids [id_lo, id_hi) */
	uint64_t id_lo, id_hi;
};

void url_table_open(const struct graph *g, struct url_table *t);
/* The next URL (length in *len, not NUL-terminated, valid until the next
 * call) and its id, or NULL at the end.  Dies on a malformed table. */
const char *url_table_next(struct url_table *t, size_t *len, uint32_t *id);
void url_table_close(struct url_table *t);

/* URLs by id, at random: the offsets through a cache of views of at most
 * cache_bytes, each URL read with one pread. */
struct url_lookup {
	const struct graph *g;
	struct vec urls, off;
	struct vec_cache cache;
};

void url_lookup_open(const struct graph *g, struct url_lookup *l, uint64_t cache_bytes);
/* The URL of id into buf (not NUL-terminated); returns its length. */
size_t url_lookup(struct url_lookup *l, uint64_t id, char buf[URL_BUFSIZE]);
void url_lookup_close(struct url_lookup *l);

/* Writing a file of a graph directory, through a buffer; it appears whole
 * under its name at the commit (binfile.h), and a write error ends the
 * process. */
#define GRAPH_WRITE_BLOCK (1u << 20)
struct graph_writer {
	struct bin_writer *w;
	uint8_t *buf;
	size_t n;		/* bytes in buf */
	uint64_t bytes;		/* payload bytes put */
};

/* dir/name, of kind (graph_file_kinds[f], "SLCE" for a slice). */
void graph_writer_open(struct graph_writer *o, const char *dir, const char *name,
    const char *kind);
/* Writes out the buffer and p when n bytes more would not fit. */
void graph_writer_put_full(struct graph_writer *o, const void *p, size_t n);

static inline void
graph_writer_put(struct graph_writer *o, const void *p, size_t n)
{
	if (n == 0)
		return;
	if (o->n + n > GRAPH_WRITE_BLOCK) {
		graph_writer_put_full(o, p, n);
		return;
	}
	o->bytes += n;
	memcpy(o->buf + o->n, p, n);
	o->n += n;
}

/* count records, aux as in the list above (NULL for none). */
void graph_writer_commit(struct graph_writer *o, uint64_t count, const uint64_t aux[3]);

/* The encoder of the slices: the links of slice k, external ones then
 * internal ones, each section in its order, become the file of the
 * slice.  The words wait in a spool until the block index is known. */
struct graph_slice_writer {
	struct spool words;
	uint64_t lo, hi;
	uint64_t *block_off;
	uint32_t *block_first;
	uint64_t blocks, block_cap, external_blocks, block_links;
	uint64_t nwords, links, internal;
	uint64_t major, minor;
	unsigned bits;
};

/* The spool goes to scratch_dir, which must outlive the writer. */
void graph_slice_writer_open(struct graph_slice_writer *sw, const char *scratch_dir);
/* A new slice, of the ids [lo, hi). */
void graph_slice_begin(struct graph_slice_writer *sw, uint64_t lo, uint64_t hi);
/* The next link of the slice: major the source of an external link or the
 * destination of an internal one, minor the other end less lo.  Dies on a
 * link out of order. */
void graph_slice_add(struct graph_slice_writer *sw, bool internal, uint64_t major,
    uint64_t minor);
/* Writes the slice as dir/slice-KKKK; returns the bytes of the file. */
uint64_t graph_slice_commit(struct graph_slice_writer *sw, const char *dir, uint32_t k);
void graph_slice_writer_close(struct graph_slice_writer *sw);

/* The manifest of the files written to dir: every other file must be
 * there, whole. */
void graph_write_manifest(const char *dir, uint64_t nodes, uint64_t links, uint32_t slices,
    const uint64_t *bound);

/* The number of slices for a memory budget of wa-pagerank (-m). */
uint32_t graph_slices_for_budget(uint64_t nodes, uint64_t budget);

/* Degree checksum: sum over links of graph_mix(src) must equal the sum over
 * nodes of outdeg * graph_mix(id); a disagreement between the matrix and
 * the out-degrees shows as a different sum.  Wrapping arithmetic. */
static inline uint64_t
graph_mix(uint64_t x)
{
	return hash_mix64(x + HASH_GOLDEN64);
}

/* The next link of a block: the minor part returned, the major moved on.
 * The escape is rare; the rest is a shift and a mask. */
static inline uint32_t
slice_word(const uint32_t **p, uint64_t *major, unsigned bits)
{
	uint32_t w = *(*p)++, delta = w >> bits;
	if (__builtin_expect(delta == UINT32_MAX >> bits, 0))
		delta = *(*p)++;
	*major += delta;
	return w & ((UINT32_C(1) << bits) - 1);
}

#endif
