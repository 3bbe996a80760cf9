/* A map from strings to pointers: open addressing with linear probing,
 * FNV-1a hashes, grown at half load.  Keys are copied; values are the
 * caller's.  No removal: wa-fetch only ever adds (sites, previous rows). */
#ifndef WA_STRMAP_H
#define WA_STRMAP_H

#include <stddef.h>

struct strmap {
	struct strmap_slot *slot;
	size_t cap, count;
};

void strmap_init(struct strmap *m);
/* The value stored under key, or NULL. */
void *strmap_get(const struct strmap *m, const char *key);
/* Stores value under key, replacing an earlier one; returns the stored
 * copy of the key. */
const char *strmap_put(struct strmap *m, const char *key, void *value);
/* Calls fn on each value (for freeing them), then frees the map. */
void strmap_free(struct strmap *m, void (*fn)(void *value));

#endif
