/* The graph directory of wa-linkmat (man/wa-formats.5, "Graph directory").
 *
 * Page ids run from 0 to N-1 in the byte order of (SURT key, URL), so a
 * site is a range of ids.  The link matrix is cut by destination id into
 * S slices, slice k holding the links whose destination lies in
 * [bound[k], bound[k+1]); each slice is one file read sequentially, the
 * matrix slicing of Preda (seed 000, sec. 2.3.2).
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
 *   slice-KKKK SLCE  count R records; aux lo, hi, links.
 *
 * A slice payload: u64 B, then B u64 offsets of its blocks relative to the
 * end of this index, then the blocks.  A block is a run of records in
 * ascending source order; a record is varint(src - prev - 1) (prev is -1
 * at the start of every block), varint(k - 1), then the k destinations in
 * ascending order: varint(dst0 - lo), varint(dst[m] - dst[m-1] - 1).
 * Varints are LEB128: 7 bits a byte, low bits first, high bit "more".
 * Blocks let threads split a slice without decoding it first. */
#ifndef WA_GRAPH_H
#define WA_GRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "binfile.h"

#define GRAPH_VERSION 1
#define GRAPH_MAX_NODES UINT32_MAX	/* ids are u32; N <= 2^32-1 */
/* A block closes once it holds this many links. */
#define GRAPH_BLOCK_LINKS 16384
#define GRAPH_MIN_SLICE_NODES 65536

enum page_type {
	PAGE_UNKNOWN = 0,	/* '-': seen only as a link target */
	PAGE_HTML,
	PAGE_XML,
	PAGE_DTD,
	PAGE_OTHER,
	PAGE_ERROR,
	PAGE_XML_SUSPECT,	/* not fetched; its URL or its linker says XML */
	PAGE_TYPES
};

extern const char *const page_type_names[PAGE_TYPES];
/* The type named in a pages stream, or -1. */
int page_type_parse(const char *s);

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
char *graph_path(const struct graph *g, const char *name);
char *graph_slice_name(uint32_t k);	/* "slice-0007" */

/* Maps one of the per-node files, checking it against the manifest. */
const void *graph_map(const struct graph *g, enum graph_file f, struct bin_map *m);

/* Reads a slice: header checked against the manifest at open; the first
 * full read also checks the payload CRC (bin_read), later ones need not. */
struct slice {
	uint32_t k;
	uint64_t lo, hi, records, links;
	uint64_t blocks;
	uint64_t *block_off;	/* blocks + 1, the last is the records' size */
	uint8_t *data;		/* records, when loaded in memory */
	uint64_t data_bytes;
};

/* Loads slice k whole into memory (verified). */
void slice_load(const struct graph *g, uint32_t k, struct slice *s);
void slice_free(struct slice *s);

/* The number of slices for a memory budget of wa-pagerank (-m). */
uint32_t graph_slices_for_budget(uint64_t nodes, uint64_t budget);

/* Degree checksum: sum over links of graph_mix(src) must equal the sum over
 * nodes of outdeg * graph_mix(id); a disagreement between the matrix and
 * the out-degrees shows as a different sum.  Wrapping arithmetic. */
static inline uint64_t
graph_mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static inline uint64_t
varint_get(const uint8_t **p)
{
	const uint8_t *q = *p;
	uint64_t v = *q & 0x7f;
	unsigned shift = 7;
	while (*q++ & 0x80) {
		v |= (uint64_t)(*q & 0x7f) << shift;
		shift += 7;
	}
	*p = q;
	return v;
}

static inline uint8_t *
varint_put(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

#endif
