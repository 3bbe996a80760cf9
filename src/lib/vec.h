/* Vectors of one value a page for wa-pagerank and wa-invrank: whole in
 * memory when the budget holds them, otherwise in a file of which only a
 * view of a range of pages is mapped at a time.  -m bounds resident memory
 * and, with views, the address space too: a run under `ulimit -v` of the
 * budget plus a margin completes whatever the number of pages, where
 * mapping each file whole would take gigabytes of address space at 10^8
 * pages.
 *
 * A view of [lo, hi) points at value lo; the caller indexes it from 0.  In
 * memory a view is the whole vector offset, and costs nothing, so the same
 * code serves both.  Views of a file are shared mappings: writes reach the
 * file (and the page cache) with no copy, and two threads may hold views
 * of overlapping ranges and write different values. */
#ifndef WA_VEC_H
#define WA_VEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct vec {
	char *mem;		/* whole, in memory: value i at mem + i * size */
	int fd;			/* else the file: value i at offset + i * size */
	uint64_t offset;
	size_t size;		/* bytes a value */
	uint64_t n;
	bool writable;
	char *name;		/* for messages: the file, or "a temporary file" */
};

/* n zeroed values of size bytes: in memory, or in the unnamed temporary
 * file fd (of at least n * size bytes), which the vector then owns. */
void vec_new(struct vec *v, uint64_t n, size_t size, int fd);
/* Values of a checked file, read only, from its byte offset on, viewed;
 * the vector owns fd. */
void vec_of_file(struct vec *v, int fd, uint64_t offset, uint64_t n, size_t size,
    const char *name);
/* Values read whole into mem (from malloc), which the vector owns. */
void vec_of_memory(struct vec *v, void *mem, uint64_t n, size_t size);
/* Frees a vector made or none. */
void vec_free(struct vec *v);

/* Whether v was made (a zeroed struct vec is none). */
static inline bool
vec_exists(const struct vec *v)
{
	return v->size != 0;
}

static inline bool
vec_on_disk(const struct vec *v)
{
	return v->mem == NULL;
}

/* How a view will be used: a file's pages are mapped as they are touched
 * (sparse), or at once, not a fault each, when every value will be read,
 * or written (which makes every page dirty). */
enum vec_use { VEC_SPARSE, VEC_READ, VEC_WRITE };
/* Values [lo, hi): a pointer to value lo. */
void *vec_view(const struct vec *v, uint64_t lo, uint64_t hi, enum vec_use use);
/* Ends a view of [lo, hi) (NULL: none); its writes stay in the file. */
void vec_unview(const struct vec *v, const void *view, uint64_t lo, uint64_t hi);

/* Values at random, a view of VEC_CACHE_BLOCK values at a time held in
 * one of slots places (by the block's number): for lookups by id in URL
 * order, which stay on a site for a while and come back to others. */
#define VEC_CACHE_BLOCK 4096
struct vec_cache {
	const struct vec *v;
	unsigned slots;
	uint64_t *block;	/* slots: the block viewed there, or UINT64_MAX */
	char **view;
};

/* A cache of at most bytes of views (at least one slot). */
void vec_cache_open(struct vec_cache *c, const struct vec *v, uint64_t bytes);
void vec_cache_close(struct vec_cache *c);

/* Maps block b into its slot; returns the view. */
char *vec_cache_miss(struct vec_cache *c, uint64_t b);

static inline void *
vec_cache_at(struct vec_cache *c, uint64_t i)
{
	if (!vec_on_disk(c->v))
		return c->v->mem + i * c->v->size;
	uint64_t b = i / VEC_CACHE_BLOCK;
	unsigned slot = (unsigned)(b % c->slots);
	char *view = c->block[slot] == b ? c->view[slot] : vec_cache_miss(c, b);
	return view + (i % VEC_CACHE_BLOCK) * c->v->size;
}

#endif
