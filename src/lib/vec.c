#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "msg.h"
#include "vec.h"

static uint64_t
page_size(void)
{
	static uint64_t page;
	if (!page)
		page = (uint64_t)sysconf(_SC_PAGESIZE);
	return page;
}

void
vec_new(struct vec *v, uint64_t n, size_t size, int fd)
{
	*v = (struct vec){ .fd = fd, .size = size, .n = n, .writable = true,
	    .name = wa_strdup("a temporary file") };
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
	*v = (struct vec){ .mem = mem, .fd = -1, .size = size, .n = n, .writable = true };
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

/* The mapping behind a view of [lo, hi): whole pages from *at. */
static size_t
mapping(const struct vec *v, uint64_t lo, uint64_t hi, uint64_t *at)
{
	uint64_t start = v->offset + lo * v->size, end = v->offset + hi * v->size;
	*at = start & ~(page_size() - 1);
	return (size_t)(end - *at);
}

void *
vec_view(const struct vec *v, uint64_t lo, uint64_t hi, enum vec_use use)
{
	if (!vec_on_disk(v))
		return v->mem + lo * v->size;
	if (hi <= lo)
		return NULL;
	uint64_t at;
	size_t len = mapping(v, lo, hi, &at);
	int prot = PROT_READ | (v->writable ? PROT_WRITE : 0);
	char *m = mmap(NULL, len, prot, MAP_SHARED, v->fd, (off_t)at);
	if (m == MAP_FAILED)
		wa_die_errno("%s: cannot map %llu KiB of it", v->name,
		    (unsigned long long)(len >> 10));
	/* Advice only (Linux 5.14).  MAP_POPULATE would map a shared file's
	 * pages for reading alone, and each first write would still fault. */
	if (use != VEC_SPARSE)
		(void)madvise(m, len, use == VEC_WRITE && v->writable ? MADV_POPULATE_WRITE :
		    MADV_POPULATE_READ);
	return m + (v->offset + lo * v->size - at);
}

void
vec_unview(const struct vec *v, const void *view, uint64_t lo, uint64_t hi)
{
	if (!view || !vec_on_disk(v) || hi <= lo)
		return;
	uint64_t at;
	size_t len = mapping(v, lo, hi, &at);
	munmap((char *)view - (v->offset + lo * v->size - at), len);
}

void
vec_cache_open(struct vec_cache *c, const struct vec *v, uint64_t bytes)
{
	uint64_t slots = bytes / (VEC_CACHE_BLOCK * v->size);
	c->v = v;
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
	c->view[slot] = vec_view(c->v, lo, block_end(c->v, lo), VEC_SPARSE);
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
