/* A map from strings to pointers that also numbers its keys 0, 1, ... in
 * the order they came.  Open addressing with linear probing, at most half
 * full.  The hash reads 8 bytes a step and ends with the splitmix64
 * finaliser (Steele, Lea, Flood, "Fast Splittable Pseudorandom Number
 * Generators", OOPSLA 2014).  A slot holds its key's entry, number and 32
 * other bits of the hash, so that a probe compares strings only when those
 * agree.  Keys are copied into large blocks, each beside its value and
 * hash: no allocation per key, and growing rehashes no string.  Values are
 * the caller's.  No removal: the users only ever add (wa-fetch's sites and
 * previous rows, wa-partition's nodes, wa-opic's URLs). */
#ifndef WA_STRMAP_H
#define WA_STRMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The number of no key. */
#define STRMAP_NONE SIZE_MAX

struct strmap_entry {
	void *value;
	uint64_t hash;
	char key[];
};

struct strmap {
	struct strmap_slot *slot;
	size_t mask;			/* slots - 1 */
	size_t count;			/* keys */
	struct strmap_entry **entry;	/* by number */
	size_t entry_cap;
	char *block;			/* where the next entry goes */
	size_t block_left, block_size;
	char **blocks;
	size_t nblocks;
};

void strmap_init(struct strmap *m);
/* The value stored under key, or NULL. */
void *strmap_get(const struct strmap *m, const char *key);
/* Stores value under key, replacing an earlier one; returns the stored
 * copy of the key (it stays until strmap_free). */
const char *strmap_put(struct strmap *m, const char *key, void *value);
/* The number of key, or STRMAP_NONE. */
size_t strmap_find(const struct strmap *m, const char *key);
/* The number of key, which is added (value NULL) when absent; *added
 * (when added is not NULL) tells whether it was. */
size_t strmap_add(struct strmap *m, const char *key, bool *added);
/* Calls fn on each value (for freeing them), then frees the map. */
void strmap_free(struct strmap *m, void (*fn)(void *value));

/* The key numbered i (< count); it stays until strmap_free. */
static inline const char *
strmap_key(const struct strmap *m, size_t i)
{
	return m->entry[i]->key;
}

/* For callers that hash a key ahead of its lookup, so as to have the
 * memory it needs fetched meanwhile: strmap_hash(key, strlen(key)) is the
 * hash the map uses; strmap_add_hashed is strmap_add given it. */
uint64_t strmap_hash(const char *key, size_t len);
size_t strmap_add_hashed(struct strmap *m, const char *key, size_t len, uint64_t hash,
    bool *added);
/* Cache hints, with no effect on the map: for a lookup of hash, its first
 * slot; then, once that is likely in the cache, the key in it when the
 * slot's bits of the hash agree, whose number is returned (a guess, for
 * the caller's own hints: the lookup may find another), else STRMAP_NONE.
 * Not inline on purpose: gcc finds a function whose only effect is
 * __builtin_prefetch pure and may drop the calls (gcc 12 dropped every
 * hint of wa-opic's former table that way). */
void strmap_prefetch_slot(const struct strmap *m, uint64_t hash);
size_t strmap_prefetch_key(const struct strmap *m, uint64_t hash);

#endif
