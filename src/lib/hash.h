/* Small hash functions, inline for the loops that call them.
 *
 *   hash_fnv1a32     the 32-bit FNV-1a hash of bytes (Fowler, Noll, Vo):
 *                    a byte a step, for short strings compared often.
 *   hash_mix64       the splitmix64 finaliser (Steele, Lea, Flood, "Fast
 *                    Splittable Pseudorandom Number Generators", OOPSLA
 *                    2014): every bit of x reaches every bit of the result,
 *                    a bijection of the 64-bit words.
 *   hash_splitmix64  the splitmix64 generator: the next pseudorandom word
 *                    of the stream *state, which it advances.
 *   HASH_GOLDEN64    2^64 divided by the golden ratio, odd: splitmix64's
 *                    increment, and the multiplier of Fibonacci hashing
 *                    (Knuth, TAOCP vol. 3, 6.4), whose high bits, or low
 *                    bits of a table of a power of two, spread keys in a
 *                    row. */
#ifndef WA_HASH_H
#define WA_HASH_H

#include <stddef.h>
#include <stdint.h>

#define HASH_GOLDEN64 0x9e3779b97f4a7c15ull

static inline uint32_t
hash_fnv1a32(const void *data, size_t n)
{
	const unsigned char *s = data;
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * 16777619u;
	return h;
}

static inline uint64_t
hash_mix64(uint64_t x)
{
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static inline uint64_t
hash_splitmix64(uint64_t *state)
{
	return hash_mix64(*state += HASH_GOLDEN64);
}

#endif
