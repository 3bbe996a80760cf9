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
 * ascending source order; a record holds one source and its k links into
 * the slice, destinations ascending:
 *   varint(src - prev - 1)      prev is -1 at the start of every block
 *   varint((k - 1) << 2 | w - 1)
 *   varint(dst[0] - lo)
 *   k - 1 gaps dst[m] - dst[m-1] - 1, each in w bytes, little-endian
 * w (1 to 4) is the width of the record's largest gap.  Varints are
 * LEB128: 7 bits a byte, low bits first, high bit "more".  Fixed-width
 * gaps decode without a branch per link, which varints would need; the
 * width per record keeps a site's close links in one byte.  Blocks let
 * threads split a slice without decoding it first. */
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
#define GRAPH_MIN_SLICE_NODES 64
#define GRAPH_MAX_SLICE_NODES (1u << 20)

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

/* A slice: its header and block index, checked against the manifest at
 * open.  The records are read either whole into memory (slice_load) or a
 * run of blocks at a time (slice_read_blocks), for matrices larger than
 * the memory budget. */
struct slice {
	uint32_t k;
	char *path;
	int fd;
	uint64_t lo, hi, records, links;
	uint64_t blocks;
	uint64_t *block_off;	/* blocks + 1 offsets; the last is data_bytes */
	uint64_t data_pos;	/* file offset of the first block */
	uint64_t data_bytes;
	uint8_t *data;		/* all records, after slice_load */
};

void slice_open(const struct graph *g, uint32_t k, struct slice *s);
/* Reads blocks [b0, b1) into buf, which has room for their bytes plus
 * SLICE_PAD; returns their size. */
uint64_t slice_read_blocks(const struct slice *s, uint64_t b0, uint64_t b1, uint8_t *buf);
#define SLICE_PAD 16
void slice_load(struct slice *s);
void slice_close(struct slice *s);

/* Reads every slice once: payload CRCs, record structure (ids in range,
 * ascending, counts as the headers say), and the degree checksums against
 * outdeg and indeg.  Dies naming the first fault.  Slices listed in
 * keep[] are left loaded in memory; the others are read in runs of blocks
 * of about run_bytes. */
void graph_check_matrix(const struct graph *g, struct slice *slices,
    const uint32_t *outdeg, const uint32_t *indeg, const bool *keep, uint64_t run_bytes);

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

/* A gap of w bytes; the slice's padding makes the 4-byte load safe. */
static inline uint32_t
gap_get(const uint8_t *p, unsigned w)
{
	uint32_t v;
	__builtin_memcpy(&v, p, 4);
	return w == 4 ? v : v & ((1u << (8 * w)) - 1);
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
