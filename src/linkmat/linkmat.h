/* wa-linkmat's build of the graph directory (graph.h), in phases that
 * share one context.
 *
 * URLs never stay in memory.  Each is known by a 64-bit hash while the
 * links are sorted, and by its id once the nodes are numbered:
 *
 *   read      the input's lines, split and canonicalised on the threads:
 *             links -> (hash dst, hash src) records, in memory, then in a
 *             scratch file (pairs.c); every URL -> a node line for GNU sort
 *             (NODE_HTTP) (read.c)
 *   number    the sorted lines give the ids in order, the types, and the
 *             (hash, id) map; "URL<TAB>id" lines go to a second GNU sort
 *             (number.c)
 *   url table that sort gives urls and urlid, and urloff after a sort by id
 *             (urltable.c)
 *   join      when a table of the map fits in its share: the links look
 *             their ids up there, on the threads, in one pass; the degrees
 *             are counted as the slices are written.  Else two merges: the
 *             links sorted by source hash, merged with the map, give (dst
 *             hash, src id); those sorted by destination hash, merged with
 *             the map again, give the links; the out- and in-degrees fall
 *             out of the merges (join.c).  Either way the links go to the
 *             matrix (slice of dst, external or internal, then src and dst
 *             or dst and src), gathered in parts of slices (matrix.c)
 *   slices    each part sorted alone and its slices encoded, on the
 *             threads (write.c)
 *
 * Two URLs with the same hash would share an id: the map is in hash order,
 * so such a collision shows as two neighbours and stops the build.
 *
 * With -u the old graph's nodes are merged in id order with the new lines
 * (their order is the same), and its links are read from its slices: those
 * of pages fetched this cycle are dropped, the others renumbered and added
 * to the matrix (old.c).  The new graph is built in a hidden directory
 * beside GRAPH (workdir.h), which also holds the scratch files, and moved
 * into place at the end. */
#ifndef WA_LINKMAT_H
#define WA_LINKMAT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "extsort.h"
#include "graph.h"
#include "progress.h"
#include "sorter.h"
#include "thread.h"
#include "url.h"

/* A file of u32 records in the scratch space, written in order and read
 * through a small window: the new id of every old id in update mode. */
#define U32FILE_WINDOW 16384
struct u32file {
	const char *dir;	/* for messages */
	int fd;
	uint32_t *buf;
	size_t n;		/* buffered for writing */
	uint64_t count;
	uint64_t win_lo, win_n;	/* ids in the read window */
};

/* The links as read (pairs.c). */
#define PAIR_BYTES 16
#define PAIRS_BUFFER 65536	/* records, the least in memory */
struct pairs {
	int fd;			/* the scratch file, -1 until needed */
	uint8_t *buf;		/* the records after those of the file */
	size_t n, cap, most;
	uint64_t in_file;
	uint64_t count;		/* added */
};

/* The matrix records by part, a range of slices (matrix.c). */
#define MATRIX_RECORD 12
/* Parts at most: each has a buffer, and a part's number fits a byte. */
#define MATRIX_PARTS_MAX 256
struct matrix_part {
	size_t fill;		/* records in its buffer */
	uint64_t *chunk_off;	/* its full chunks in the scratch file */
	size_t nchunks, chunks_cap;
};

struct matrix {
	uint32_t nparts, slices_per_part;
	size_t chunk;		/* records a buffer */
	bool unique;		/* duplicates are dropped */
	uint8_t *buf;		/* a buffer a part */
	struct matrix_part *part;
	int fd;
	uint64_t file_end;
	uint64_t added;
};

/* The state of a run: the options, then what each phase leaves to the
 * next ones. */
struct linkmat {
	/* options */
	uint64_t budget;
	uint64_t shared_budget;	/* what the sorts share, see SHARE */
	uint32_t want_slices;	/* -s, 0 for the default */
	unsigned nthreads;
	const char *graph, *pages_path, *old_path;
	/* progress */
	struct progress pg;
	double phase_started;
	/* read */
	struct wa_pool pool;		/* canonicalises batches of rows */
	struct pairs pairs;		/* (dst hash, src hash) */
	struct sorter nodes;		/* SURT<TAB>URL<TAB>evidence */
	uint64_t *seen;			/* URLs recently given to sort, and what
					 * their lines told (read.c) */
	size_t seen_groups, seen_bytes;
	uint64_t rows, self_links, rejected, link_rows, hint_rows, node_lines;
	/* number */
	uint64_t n;			/* nodes */
	struct extsort *map;		/* (id, hash) */
	struct sorter urls;		/* URL<TAB>id of the new nodes */
	struct graph_writer types;
	/* old graph */
	struct graph old;
	struct u32file oldmap;		/* new id of each old id */
	uint64_t *fetched;		/* bit per old id: its links are replaced */
	struct extsort *oldurl;		/* (new id, offset in the old urls) */
	uint64_t old_kept, old_dropped;
	/* join */
	struct extsort *by_src;		/* (dst hash, src hash) */
	struct extsort *by_dst;		/* (src id, dst hash) */
	struct matrix matrix;		/* (dst, src, slice) */
	/* (count, id), or NULL when the degrees are counted from the matrix */
	struct extsort *outdeg, *indeg;
	uint64_t new_links;
	/* slices */
	uint32_t slices;
	uint64_t *bound;
	uint64_t links;
	uint64_t out_mix, in_mix;	/* graph_mix checksums of the matrix */
	uint64_t matrix_bytes;
	uint64_t bytes;			/* of the graph directory */
};

/* The phases, in their order. */
void linkmat_read(struct linkmat *lm, char **files, int nfiles);	/* read.c */
void linkmat_number(struct linkmat *lm);				/* number.c */
void linkmat_plan_slices(struct linkmat *lm);				/* join.c */
void linkmat_url_table(struct linkmat *lm);				/* urltable.c */
void linkmat_join(struct linkmat *lm);					/* join.c */
void linkmat_keep_old_links(struct linkmat *lm);			/* old.c */
/* The degrees, the slices and the manifest, checked against each other. */
void linkmat_write_matrix(struct linkmat *lm);				/* write.c */
/* The closing note: what was built, from what. */
void linkmat_summary(const struct linkmat *lm);				/* write.c */

/* --dump and --dump-nodes (dump.c). */
void linkmat_dump_links(const struct linkmat *lm, const char *dir);
void linkmat_dump_nodes(const struct linkmat *lm, const char *dir);

/* Budget shares (wa-linkmat(1), "Memory and scratch space"), so that no
 * phase adds up to more than the budget.  Reading: GNU sort 3/8, the
 * recent-lines filter 1/8, the links as read 1/8, which they keep until
 * the join.  Numbering,
 * while GNU sort still writes: the map, the second GNU sort and the old
 * URLs 1/16 each, and the old graph's bitmap at most 1/8; then the URL
 * offsets 1/8.  The join in a table: the table 1/2, the matrix sort 3/8.
 * The joins by merges: the link sort by source 1/2, then the one by
 * destination 1/4 and the out-degrees 1/16; the second join and the old
 * links: the matrix sort 3/8, the in-degrees 1/16, the renumbering window
 * 1/8.  The degrees counted from the matrix take less than the table
 * did. */
#define SHARE(lm, num, den) ((lm)->shared_budget / (den) * (num))

/* The flags of a sort of the links: they spill in the background when
 * there are threads. */
static inline unsigned
big_sort(const struct linkmat *lm, unsigned flags)
{
	return flags | (lm->nthreads > 1 ? EXTSORT_BACKGROUND : 0);
}

/* -v: a line of detail. */
void verbose(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* -v: the time of the phase that ends, what; the next one starts. */
void phase_done(struct linkmat *lm, const char *what);
/* -v: the figures of a sort. */
void sort_done(const char *what, const struct extsort *s);

/* What the input says of a URL, gathered from its lines: a letter each
 * (the evidence column of the node lines). */
enum {
	EV_TARGET = 't',	/* a link points to it */
	EV_XML_TARGET = 'x',	/* a link marked +xml points to it */
	EV_SOURCE = 's',	/* a link is on it: it was fetched */
	EV_PAGE = '0',		/* '0' + type: a row of the pages stream */
};

/* A node line is "SURT<TAB>SE": the URL's SURT key, a letter for its
 * scheme, and one of evidence.  The key and the scheme give back the URL
 * (url_from_surt) in half the bytes of the URL for GNU sort to move, and
 * the letters keep the order of (key, URL), where http comes first. */
enum { NODE_HTTP = 'h', NODE_HTTPS = 's' };

/* Records of the sorts, as little-endian integers whose most significant
 * (last) bytes are the key. */
static inline void
put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static inline void
put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static inline uint32_t
get32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

static inline uint64_t
get64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

/* The hash that stands for a URL until it has an id: graph_mix over the
 * URL's 8-byte words, chained, starting from its length. */
static inline uint64_t
url_hash(const char *s, size_t n)
{
	uint64_t h = graph_mix(n), w = 0;
	size_t len = n;
	for (; n >= 8; s += 8, n -= 8) {
		memcpy(&w, s, 8);
		h = graph_mix(h ^ w);
	}
	/* The last bytes by one load of the word that ends with them: bytes
	 * copied one by one into a word wait for each other. */
	if (n && len >= 8) {
		memcpy(&w, s + n - 8, 8);
		w >>= 8 * (8 - n);
	} else {
		w = 0;
		memcpy(&w, s, n);
	}
	return graph_mix(h ^ w);
}

/* The slices: equal numbers of ids, slice k holding [k*N/S, (k+1)*N/S). */
static inline uint32_t
slice_of(const struct linkmat *lm, uint64_t d)
{
	return (uint32_t)(((d + 1) * lm->slices - 1) / lm->n);
}

/* The matrix records of the join and the old links, gathered by part,
 * and each part sorted at the end (matrix.c). */
void matrix_open(struct linkmat *lm, bool unique);
void matrix_flush_part(struct matrix *m, struct matrix_part *p);
/* The records of a part, sorted within budget on the calling thread;
 * the caller frees the sort.  Parts may sort on several threads. */
struct extsort *matrix_sort_part(struct linkmat *lm, uint32_t part, uint64_t budget);
void matrix_close(struct matrix *m);

/* The record of a link in the order of its slice (graph.h): the slice,
 * then the external links by (source, destination), then the internal
 * ones by (destination, source); returns its part. */
static inline uint32_t
matrix_record(const struct linkmat *lm, uint32_t s, uint32_t d, uint8_t *rec)
{
	uint32_t k = slice_of(lm, d);
	bool internal = slice_of(lm, s) == k;
	put32(rec, internal ? s : d);
	put32(rec + 4, internal ? d : s);
	put32(rec + 8, k << 1 | internal);
	return k / lm->matrix.slices_per_part;
}

static inline void
matrix_put(struct linkmat *lm, uint32_t part, const uint8_t *rec)
{
	struct matrix *m = &lm->matrix;
	struct matrix_part *p = &m->part[part];
	memcpy(m->buf + ((size_t)part * m->chunk + p->fill) * MATRIX_RECORD, rec, MATRIX_RECORD);
	m->added++;
	if (++p->fill == m->chunk)
		matrix_flush_part(m, p);
}

static inline void
matrix_add(struct linkmat *lm, uint32_t s, uint32_t d)
{
	uint8_t rec[MATRIX_RECORD];
	matrix_put(lm, matrix_record(lm, s, d, rec), rec);
}

/* Zeroed memory for a table read at random, and its release (table.c). */
void *random_access_alloc(size_t bytes);
void random_access_free(void *p, size_t bytes);

/* The links as read, in budget bytes of memory and then a scratch file. */
void pairs_open(struct pairs *p, uint64_t budget);
/* Room for the next record: a larger buffer, or the buffer written out. */
void pairs_grow(struct pairs *p);
/* Up to max records from record at into out; how many.  Any thread. */
size_t pairs_read(const struct pairs *p, uint64_t at, uint8_t *out, size_t max);
void pairs_close(struct pairs *p);

static inline void
pairs_add(struct pairs *p, uint64_t dst_hash, uint64_t src_hash)
{
	if (p->n == p->cap)
		pairs_grow(p);
	uint8_t *rec = p->buf + p->n++ * PAIR_BYTES;
	put64(rec, dst_hash);
	put64(rec + 8, src_hash);
	p->count++;
}

/* A (count, id) record of a degree sort. */
static inline void
degree_add(struct extsort *deg, uint32_t id, uint64_t count)
{
	uint8_t rec[8];
	put32(rec, (uint32_t)count);
	put32(rec + 4, id);
	extsort_add(deg, rec);
}

/* The old graph (old.c). */

/* Sequential reading of a binary file of the old graph, in large pieces;
 * bin_read checks the payload CRC with the last piece. */
struct bin_in {
	struct bin_reader r;
	uint8_t *buf;
	size_t have, at;
	uint64_t consumed;	/* payload bytes handed out */
};

/* Opens a per-node file of the old graph for reading in order, checked
 * against its manifest. */
void old_member(const struct graph *g, enum graph_file f, size_t rec, struct bin_in *in);
/* n bytes, or dies: the payload ends early. */
void bin_in_read(struct bin_in *s, void *out, size_t n);
/* A line of text (a URL), without its newline; returns its length. */
size_t bin_in_line(struct bin_in *s, char *out);
/* Dies unless the whole payload was read. */
void bin_in_close(struct bin_in *s);

/* A file in the scratch space dir, which must outlive it. */
void u32file_open(struct u32file *f, const char *dir);
/* Writes out the values appended. */
void u32file_flush(struct u32file *f);

static inline void
u32file_append(struct u32file *f, uint32_t v)
{
	f->buf[f->n++] = v;
	f->count++;
	if (f->n == U32FILE_WINDOW)
		u32file_flush(f);
}

#endif
