#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "msg.h"
#include "scratch.h"
#include "vec.h"

void
vec_new(struct vec *v, uint64_t n, size_t size, int fd, const char *name)
{
	*v = (struct vec){ .fd = fd, .size = size, .n = n, .name = wa_strdup(name) };
	if (fd < 0)
		v->mem = wa_calloc(n ? n : 1, size);
}

void
vec_of_file(struct vec *v, int fd, uint64_t offset, uint64_t n, size_t size, const char *name)
{
	*v = (struct vec){ .fd = fd, .offset = offset, .size = size, .n = n,
	    .name = wa_strdup(name) };
}

void
vec_of_memory(struct vec *v, void *mem, uint64_t n, size_t size)
{
	*v = (struct vec){ .mem = mem, .fd = -1, .size = size, .n = n };
}

void
vec_free(struct vec *v)
{
	if (!vec_exists(v))
		return;
	free(v->mem);
	free(v->name);
	if (v->fd >= 0)
		close(v->fd);
	*v = (struct vec){ .fd = -1 };
}

/* On disk a view is a copy, after a head that keeps how it is used. */
struct copy_head {
	enum vec_use use;
	char pad[16 - sizeof(enum vec_use)];	/* the values aligned as by malloc */
};

void
vec_read(const struct vec *v, uint64_t lo, uint64_t hi, void *buf)
{
	if (!vec_on_disk(v)) {
		memcpy(buf, v->mem + lo * v->size, (hi - lo) * v->size);
		return;
	}
	uint64_t bytes = (hi - lo) * v->size, at = v->offset + lo * v->size;
	ssize_t got = pread_full(v->fd, buf, bytes, at);
	if (got < 0)
		wa_die_errno("%s: read error at offset %llu", v->name, (unsigned long long)at);
	if ((uint64_t)got < bytes)
		wa_die("%s: cut short at offset %llu", v->name, (unsigned long long)(at + got));
}

void
vec_write(const struct vec *v, uint64_t lo, uint64_t hi, const void *buf)
{
	if (!vec_on_disk(v)) {
		if (buf != v->mem + lo * v->size)
			memcpy(v->mem + lo * v->size, buf, (hi - lo) * v->size);
		return;
	}
	uint64_t bytes = (hi - lo) * v->size, at = v->offset + lo * v->size;
	if (!pwrite_full(v->fd, buf, bytes, at))
		wa_die_errno("%s: cannot write %llu bytes at offset %llu", v->name,
		    (unsigned long long)bytes, (unsigned long long)at);
}

void *
vec_view(const struct vec *v, uint64_t lo, uint64_t hi, enum vec_use use)
{
	if (!vec_on_disk(v))
		return v->mem + lo * v->size;
	if (hi <= lo)
		return NULL;
	struct copy_head *h = wa_malloc(sizeof *h + (hi - lo) * v->size);
	h->use = use;
	/* A value the caller fails to fill reads as a NaN, which the results
	 * show, not as whatever the memory held: often the same range's
	 * values of an earlier copy, which would hide the fault. */
	if (use == VEC_FILL)
		memset(h + 1, 0xff, (hi - lo) * v->size);
	else
		vec_read(v, lo, hi, h + 1);
	return h + 1;
}

void
vec_unview(const struct vec *v, const void *view, uint64_t lo, uint64_t hi)
{
	if (!view || !vec_on_disk(v) || hi <= lo)
		return;
	struct copy_head *h = (struct copy_head *)view - 1;
	if (h->use != VEC_READ)
		vec_write(v, lo, hi, view);
	free(h);
}

void
vec_cache_open(struct vec_cache *c, const struct vec *v, uint64_t bytes, bool write)
{
	uint64_t slots = bytes / (VEC_CACHE_BLOCK * v->size);
	c->v = v;
	c->write = write;
	c->slots = (unsigned)(slots < 1 ? 1 : slots > 65536 ? 65536 : slots);
	c->block = wa_malloc(c->slots * sizeof *c->block);
	c->view = wa_calloc(c->slots, sizeof *c->view);
	for (unsigned s = 0; s < c->slots; s++)
		c->block[s] = UINT64_MAX;
}

static uint64_t
block_end(const struct vec *v, uint64_t lo)
{
	return v->n - lo < VEC_CACHE_BLOCK ? v->n : lo + VEC_CACHE_BLOCK;
}

char *
vec_cache_miss(struct vec_cache *c, uint64_t b)
{
	unsigned slot = (unsigned)(b % c->slots);
	if (c->block[slot] != UINT64_MAX) {
		uint64_t lo = c->block[slot] * VEC_CACHE_BLOCK;
		vec_unview(c->v, c->view[slot], lo, block_end(c->v, lo));
	}
	uint64_t lo = b * VEC_CACHE_BLOCK;
	c->view[slot] = vec_view(c->v, lo, block_end(c->v, lo), c->write ? VEC_WRITE : VEC_READ);
	c->block[slot] = b;
	return c->view[slot];
}

void
vec_cache_close(struct vec_cache *c)
{
	for (unsigned s = 0; s < c->slots; s++)
		if (c->block[s] != UINT64_MAX) {
			uint64_t lo = c->block[s] * VEC_CACHE_BLOCK;
			vec_unview(c->v, c->view[s], lo, block_end(c->v, lo));
		}
	free(c->block);
	free(c->view);
	*c = (struct vec_cache){ 0 };
}
