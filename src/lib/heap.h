/* Binary heaps on arrays of any type.  HEAP_DEFINE(name, type, before)
 * defines, for an array h of n elements of type:
 *
 *   name_sift_up(h, i)        moves h[i] up to its place
 *   name_sift_down(h, n, i)   moves h[i] down to its place
 *   name_push(h, &n, x)       adds x; h has room for n + 1 elements
 *   name_pop(h, &n)           removes and returns the top h[0]; n > 0
 *
 * where before(a, b), on two const pointers, is true when *a must be
 * nearer the top than *b: a->key < b->key makes a min-heap.  An element
 * moves only past one it must come before, and going down it takes the
 * left child unless the right one must come before it, so that ties keep
 * one order for a given sequence of calls. */
#ifndef WA_HEAP_H
#define WA_HEAP_H

#include <stddef.h>

#define HEAP_DEFINE(name, type, before)						\
static inline void								\
name##_sift_up(type *h, size_t i)						\
{										\
	type x = h[i];								\
	for (; i > 0 && before(&x, &h[(i - 1) / 2]); i = (i - 1) / 2)		\
		h[i] = h[(i - 1) / 2];						\
	h[i] = x;								\
}										\
										\
static inline void								\
name##_sift_down(type *h, size_t n, size_t i)					\
{										\
	type x = h[i];								\
	for (;;) {								\
		size_t m = i, l = 2 * i + 1, r = l + 1;				\
		const type *top = &x;						\
		if (l < n && before(&h[l], top)) {				\
			m = l;							\
			top = &h[l];						\
		}								\
		if (r < n && before(&h[r], top))				\
			m = r;							\
		if (m == i)							\
			break;							\
		h[i] = h[m];							\
		i = m;								\
	}									\
	h[i] = x;								\
}										\
										\
static inline void								\
name##_push(type *h, size_t *n, type x)					\
{										\
	h[*n] = x;								\
	name##_sift_up(h, (*n)++);						\
}										\
										\
static inline type								\
name##_pop(type *h, size_t *n)							\
{										\
	type top = h[0];							\
	h[0] = h[--*n];								\
	name##_sift_down(h, *n, 0);						\
	return top;								\
}

#endif
