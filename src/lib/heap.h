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
 * one order for a given sequence of calls.
 *
 * HEAP_DEFINE_CTX(name, type, ctxtype, before) defines the same functions
 * for an order that needs more than the two elements: each takes a const
 * ctxtype *ctx first (name_sift_up(ctx, h, i) and so on) and hands it to
 * before(ctx, a, b). */
#ifndef WA_HEAP_H
#define WA_HEAP_H

#include <stddef.h>

/* Both from one body: param, the parameters every function takes first,
 * and pass, the arguments it hands on first (to before too), each in
 * parentheses. */
#define HEAP_UNWRAP_(...) __VA_ARGS__
/* A heap may leave some of its four functions unused (clang warns of an
 * unused static function that a macro defines in a .c file). */
#define HEAP_FUNCTION_ static inline __attribute__((unused))
#define HEAP_BODY_(name, type, param, pass, before)				\
HEAP_FUNCTION_ void								\
name##_sift_up(HEAP_UNWRAP_ param type *h, size_t i)				\
{										\
	type x = h[i];								\
	for (; i > 0 && before(HEAP_UNWRAP_ pass &x, &h[(i - 1) / 2]);		\
	    i = (i - 1) / 2)							\
		h[i] = h[(i - 1) / 2];						\
	h[i] = x;								\
}										\
										\
HEAP_FUNCTION_ void								\
name##_sift_down(HEAP_UNWRAP_ param type *h, size_t n, size_t i)		\
{										\
	type x = h[i];								\
	for (;;) {								\
		size_t m = i, l = 2 * i + 1, r = l + 1;				\
		const type *top = &x;						\
		if (l < n && before(HEAP_UNWRAP_ pass &h[l], top)) {		\
			m = l;							\
			top = &h[l];						\
		}								\
		if (r < n && before(HEAP_UNWRAP_ pass &h[r], top))		\
			m = r;							\
		if (m == i)							\
			break;							\
		h[i] = h[m];							\
		i = m;								\
	}									\
	h[i] = x;								\
}										\
										\
HEAP_FUNCTION_ void								\
name##_push(HEAP_UNWRAP_ param type *h, size_t *n, type x)			\
{										\
	h[*n] = x;								\
	name##_sift_up(HEAP_UNWRAP_ pass h, (*n)++);				\
}										\
										\
HEAP_FUNCTION_ type								\
name##_pop(HEAP_UNWRAP_ param type *h, size_t *n)				\
{										\
	type top = h[0];							\
	h[0] = h[--*n];								\
	name##_sift_down(HEAP_UNWRAP_ pass h, *n, 0);				\
	return top;								\
}

#define HEAP_DEFINE(name, type, before)						\
	HEAP_BODY_(name, type, (), (), before)

#define HEAP_DEFINE_CTX(name, type, ctxtype, before)				\
	HEAP_BODY_(name, type, (const ctxtype *ctx,), (ctx,), before)

#endif
