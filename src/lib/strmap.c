/* A string-keyed hash map that numbers its keys (see strmap.h). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "msg.h"
#include "strmap.h"

struct strmap_slot {
	struct strmap_entry *entry;	/* NULL: empty */
	uint32_t tag;			/* the high half of the hash */
	uint32_t number;
};

/* Blocks of entries start small, for the many small maps, and double up to
 * this size; a longer key gets a block of its own. */
#define FIRST_BLOCK ((size_t)4096)
#define MAX_BLOCK ((size_t)1 << 20)

uint64_t
strmap_hash(const char *key, size_t len)
{
	uint64_t h = HASH_GOLDEN64 ^ len, w;
	for (; len >= 8; key += 8, len -= 8) {
		memcpy(&w, key, 8);
		h = (h ^ w) * 0xbf58476d1ce4e5b9ULL;
		h ^= h >> 31;
	}
	w = 0;
	memcpy(&w, key, len);
	h ^= w;
	/* Every bit of h reaches the low bits, which choose the slot. */
	return hash_mix64(h);
}

void
strmap_init(struct strmap *m)
{
	*m = (struct strmap){ .mask = 63 };
	m->slot = wa_calloc(m->mask + 1, sizeof *m->slot);
}

static struct strmap_slot *
find(const struct strmap *m, const char *key, uint64_t hash)
{
	uint32_t tag = (uint32_t)(hash >> 32);
	size_t i = (size_t)hash & m->mask;
	for (; m->slot[i].entry; i = (i + 1) & m->mask)
		if (m->slot[i].tag == tag && strcmp(m->slot[i].entry->key, key) == 0)
			break;
	return &m->slot[i];
}

/* The slot a key known to be absent goes to. */
static struct strmap_slot *
free_slot(const struct strmap *m, uint64_t hash)
{
	size_t i = (size_t)hash & m->mask;
	while (m->slot[i].entry)
		i = (i + 1) & m->mask;
	return &m->slot[i];
}

/* Reads the entries in their order, which is nearly that of memory, from
 * the hashes they keep. */
static void
grow(struct strmap *m)
{
	free(m->slot);
	m->mask = 2 * m->mask + 1;
	m->slot = wa_calloc(m->mask + 1, sizeof *m->slot);
	for (size_t i = 0; i < m->count; i++) {
		struct strmap_entry *e = m->entry[i];
		*free_slot(m, e->hash) = (struct strmap_slot){ e, (uint32_t)(e->hash >> 32),
		    (uint32_t)i };
	}
}

static struct strmap_entry *
new_entry(struct strmap *m, const char *key, size_t len, uint64_t hash)
{
	size_t align = _Alignof(struct strmap_entry);
	size_t size = (offsetof(struct strmap_entry, key) + len + 1 + align - 1) &
	    ~(align - 1);
	if (m->block_left < size) {
		m->block_size = m->block_size ? 2 * m->block_size : FIRST_BLOCK;
		if (m->block_size > MAX_BLOCK)
			m->block_size = MAX_BLOCK;
		size_t alloc = size > m->block_size ? size : m->block_size;
		m->blocks = wa_reallocarray(m->blocks, m->nblocks + 1, sizeof *m->blocks);
		m->blocks[m->nblocks++] = m->block = wa_malloc(alloc);
		m->block_left = alloc;
	}
	struct strmap_entry *e = (struct strmap_entry *)(void *)m->block;
	e->value = NULL;
	e->hash = hash;
	memcpy(e->key, key, len + 1);
	m->block += size;
	m->block_left -= size;
	return e;
}

size_t
strmap_add_hashed(struct strmap *m, const char *key, size_t len, uint64_t hash,
    bool *added)
{
	struct strmap_slot *s = find(m, key, hash);
	if (added)
		*added = !s->entry;
	if (s->entry)
		return s->number;
	if (m->count == UINT32_MAX)
		wa_die("more than %" PRIu32 " keys in a string map", UINT32_MAX);
	if (2 * (m->count + 1) > m->mask + 1) {
		grow(m);
		s = free_slot(m, hash);
	}
	if (m->count == m->entry_cap) {
		m->entry_cap = m->entry_cap ? 2 * m->entry_cap : 64;
		m->entry = wa_reallocarray(m->entry, m->entry_cap, sizeof *m->entry);
	}
	struct strmap_entry *e = new_entry(m, key, len, hash);
	m->entry[m->count] = e;
	*s = (struct strmap_slot){ e, (uint32_t)(hash >> 32), (uint32_t)m->count };
	return m->count++;
}

size_t
strmap_add(struct strmap *m, const char *key, bool *added)
{
	size_t len = strlen(key);
	return strmap_add_hashed(m, key, len, strmap_hash(key, len), added);
}

size_t
strmap_find(const struct strmap *m, const char *key)
{
	const struct strmap_slot *s = find(m, key, strmap_hash(key, strlen(key)));
	return s->entry ? s->number : STRMAP_NONE;
}

void *
strmap_get(const struct strmap *m, const char *key)
{
	const struct strmap_slot *s = find(m, key, strmap_hash(key, strlen(key)));
	return s->entry ? s->entry->value : NULL;
}

const char *
strmap_put(struct strmap *m, const char *key, void *value)
{
	size_t i = strmap_add(m, key, NULL);
	struct strmap_entry *e = m->entry[i];
	e->value = value;
	return e->key;
}

void
strmap_prefetch_slot(const struct strmap *m, uint64_t hash)
{
	__builtin_prefetch(&m->slot[(size_t)hash & m->mask]);
}

size_t
strmap_prefetch_key(const struct strmap *m, uint64_t hash)
{
	const struct strmap_slot *s = &m->slot[(size_t)hash & m->mask];
	if (!s->entry || s->tag != (uint32_t)(hash >> 32))
		return STRMAP_NONE;
	__builtin_prefetch(s->entry->key);
	return s->number;
}

void
strmap_free(struct strmap *m, void (*fn)(void *value))
{
	if (fn)
		for (size_t i = 0; i < m->count; i++)
			fn(m->entry[i]->value);
	for (size_t i = 0; i < m->nblocks; i++)
		free(m->blocks[i]);
	free(m->blocks);
	free(m->entry);
	free(m->slot);
	*m = (struct strmap){ 0 };
}
