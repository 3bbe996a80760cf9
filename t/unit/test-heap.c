/* The heaps of heap.h: both kinds give the least first, and, where keys
 * tie, the same order for the same calls whether the order comes from the
 * elements or from a context. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "heap.h"
#include "tap.h"

#define N 1000

struct item {
	unsigned key, id;
};

static inline bool
item_before(const struct item *a, const struct item *b)
{
	return a->key < b->key;
}

HEAP_DEFINE(items, struct item, item_before)

/* The ids of items, ordered by their key in the context. */
static inline bool
id_before(const unsigned *keys, const unsigned *a, const unsigned *b)
{
	return keys[*a] < keys[*b];
}

HEAP_DEFINE_CTX(ids, unsigned, unsigned, id_before)

int
main(void)
{
	static unsigned keys[N];
	static struct item ih[N];
	static unsigned dh[N];
	size_t in = 0, dn = 0;

	srand(7);
	/* Few keys, so that most tie. */
	for (unsigned i = 0; i < N; i++)
		keys[i] = (unsigned)rand() % 16;
	/* Pushes with a pop now and then, the same on both. */
	bool same = true, sorted = true;
	unsigned last = 0;
	for (unsigned i = 0; i < N; i++) {
		items_push(ih, &in, (struct item){ keys[i], i });
		ids_push(keys, dh, &dn, i);
		if (i % 3 == 2)
			same &= items_pop(ih, &in).id == ids_pop(keys, dh, &dn);
	}
	while (in > 0) {
		struct item top = items_pop(ih, &in);
		sorted &= top.key >= last;
		last = top.key;
		same &= dn > 0 && top.id == ids_pop(keys, dh, &dn);
	}
	ok(sorted, "the least key first");
	ok(same && dn == 0, "a heap with a context pops the same elements in the same order");

	/* Built from an array by sift_down, as a merge does, then drained. */
	for (unsigned i = 0; i < N; i++)
		dh[i] = i;
	dn = N;
	for (size_t i = dn; i-- > 0;)
		ids_sift_down(keys, dh, dn, i);
	sorted = true;
	last = 0;
	while (dn > 0) {
		unsigned top = ids_pop(keys, dh, &dn);
		sorted &= keys[top] >= last;
		last = keys[top];
	}
	ok(sorted, "heapified by sift_down, then popped in order");
	return done_testing();
}
