/* Vectors of one value a page for wa-pagerank and wa-invrank: whole in
 * memory when the budget holds them, otherwise in a file of which only a
 * view of a range of pages is held at a time, so that -m bounds resident
 * memory and address space alike: a run under `ulimit -v` of the budget
 * plus a margin completes whatever the number of pages, where mapping each
 * file whole took gigabytes of address space at 10^8 pages.
 *
 * A view of [lo, hi) points at value lo; the caller indexes it from 0.  In
 * memory a view is the whole vector offset, and costs nothing, so the same
 * code serves both.  On disk a view is a copy, read with pread and, unless
 * only read, written back with pwrite when it ends: two views of one
 * range do not see each other's writes.  Copies, not mappings of the file:
 * a fresh shared mapping made writable page by page took 10 us a page
 * (the file system's page_mkwrite), a copy takes a memcpy; and a full disk
 * is an error with a message, not a SIGBUS. */
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
	char *name;		/* for messages: the file */
};

/* n zeroed values of size bytes: in memory, or in the unnamed temporary
 * file fd (of at least n * size bytes), which the vector then owns; name
 * says where, in messages. */
void vec_new(struct vec *v, uint64_t n, size_t size, int fd, const char *name);
/* Values of a checked file from its byte offset on, left on disk; the
 * vector owns fd. */
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

/* How a view will be used: read only; read and written; every value
 * written before any is read (the copy starts undefined). */
enum vec_use { VEC_READ, VEC_WRITE, VEC_FILL };
/* Values [lo, hi): a pointer to value lo. */
void *vec_view(const struct vec *v, uint64_t lo, uint64_t hi, enum vec_use use);
/* Ends a view of [lo, hi) (NULL: none); on disk, a written one goes back
 * to the file. */
void vec_unview(const struct vec *v, const void *view, uint64_t lo, uint64_t hi);
/* Values [lo, hi) copied out of v into buf, or from buf into v. */
void vec_read(const struct vec *v, uint64_t lo, uint64_t hi, void *buf);
void vec_write(const struct vec *v, uint64_t lo, uint64_t hi, const void *buf);

/* Values at random, a view of VEC_CACHE_BLOCK values at a time held in
 * one of slots places (by the block's number): for lookups by id in URL
 * order, which stay on a site for a while and come back to others. */
#define VEC_CACHE_BLOCK 4096
struct vec_cache {
	const struct vec *v;
	bool write;		/* a block goes back to the file when it leaves */
	unsigned slots;
	uint64_t *block;	/* slots: the block viewed there, or UINT64_MAX */
	char **view;
};

/* A cache of at most bytes of views (at least one slot), whose values
 * are written too when write. */
void vec_cache_open(struct vec_cache *c, const struct vec *v, uint64_t bytes, bool write);
void vec_cache_close(struct vec_cache *c);

/* Reads block b into its slot, after writing back the one there; returns
 * the copy. */
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
