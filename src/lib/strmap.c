/* A string-keyed hash map (see strmap.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "msg.h"
#include "strmap.h"

struct strmap_slot {
	char *key;	/* NULL: empty */
	void *value;
};

static uint64_t
hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

void
strmap_init(struct strmap *m)
{
	m->cap = 64;
	m->count = 0;
	m->slot = wa_calloc(m->cap, sizeof *m->slot);
}

static struct strmap_slot *
find(const struct strmap *m, const char *key)
{
	size_t i = hash(key) & (m->cap - 1);
	while (m->slot[i].key && strcmp(m->slot[i].key, key) != 0)
		i = (i + 1) & (m->cap - 1);
	return &m->slot[i];
}

void *
strmap_get(const struct strmap *m, const char *key)
{
	return find(m, key)->value;
}

static void
grow(struct strmap *m)
{
	struct strmap old = *m;
	m->cap *= 2;
	m->slot = wa_calloc(m->cap, sizeof *m->slot);
	for (size_t i = 0; i < old.cap; i++)
		if (old.slot[i].key)
			*find(m, old.slot[i].key) = old.slot[i];
	free(old.slot);
}

const char *
strmap_put(struct strmap *m, const char *key, void *value)
{
	struct strmap_slot *s = find(m, key);
	if (!s->key) {
		if (2 * (m->count + 1) > m->cap) {
			grow(m);
			s = find(m, key);
		}
		s->key = wa_strdup(key);
		m->count++;
	}
	s->value = value;
	return s->key;
}

void
strmap_free(struct strmap *m, void (*fn)(void *value))
{
	for (size_t i = 0; i < m->cap; i++) {
		if (!m->slot[i].key)
			continue;
		if (fn)
			fn(m->slot[i].value);
		free(m->slot[i].key);
	}
	free(m->slot);
	m->slot = NULL;
	m->cap = m->count = 0;
}
