/* The external sort of extsort.h against qsort: every record size, keys
 * that are random, of few values and of sparse high bytes, with and
 * without EXTSORT_UNIQUE and EXTSORT_BACKGROUND, under budgets that keep
 * everything in memory, spill runs, and merge in several passes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "extsort.h"
#include "tap.h"

/* The records' order: one little-endian integer, the last byte the most
 * significant. */
static size_t cmp_bytes;

static int
record_cmp(const void *a, const void *b)
{
	const unsigned char *x = a, *y = b;
	for (size_t i = cmp_bytes; i-- > 0;)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

static uint64_t rng = 88172645463325252ULL;

static uint64_t
next_random(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

enum keys { RANDOM, FEW_VALUES, SPARSE_HIGH };

static void
make_record(unsigned char *rec, size_t size, enum keys keys)
{
	for (size_t i = 0; i < size; i++) {
		uint64_t r = next_random();
		rec[i] = keys == RANDOM ? (unsigned char)r :
		    keys == FEW_VALUES ? (unsigned char)(r % 3) :
		    i + 1 == size ? (unsigned char)(r % 2 * 0x80) : (unsigned char)r;
	}
}

/* Sorts n records both ways; true if extsort gives qsort's order (equal
 * records once with EXTSORT_UNIQUE), and again after a rewind.  The
 * records go to extsort one by one (group 1), or group by group with
 * extsort_add_many. */
static bool
same_as_qsort(size_t size, size_t n, enum keys keys, uint64_t budget, unsigned flags,
    size_t group)
{
	unsigned char *recs = malloc(n * size + 1);
	const char *dir = getenv("TMPDIR");
	struct extsort *s = extsort_new("test", dir && *dir ? dir : "/tmp", size, budget, flags);
	for (size_t i = 0; i < n; i++)
		make_record(recs + i * size, size, keys);
	for (size_t i = 0; i < n; i += group) {
		if (group == 1)
			extsort_add(s, recs + i * size);
		else
			extsort_add_many(s, recs + i * size, n - i < group ? n - i : group);
	}
	extsort_finish(s);
	cmp_bytes = size;
	qsort(recs, n, size, record_cmp);
	bool same = true;
	for (int pass = 0; pass < 2 && same; pass++) {
		size_t got = 0;
		const unsigned char *last = NULL;
		for (size_t i = 0; i < n && same; i++) {
			const unsigned char *want = recs + i * size;
			if ((flags & EXTSORT_UNIQUE) && last && record_cmp(last, want) == 0)
				continue;
			const unsigned char *rec = extsort_next(s);
			same = rec && memcmp(rec, want, size) == 0;
			last = want;
			got++;
		}
		same = same && !extsort_next(s);
		extsort_rewind(s);
	}
	extsort_free(s);
	free(recs);
	return same;
}

int
main(void)
{
	static const size_t sizes[] = { 4, 8, 12, 16 };
	static const char *const key_names[] = { "random", "few values", "sparse high bytes" };
	/* Many runs merged in several passes; runs spilled (by a thread with
	 * EXTSORT_BACKGROUND); all in memory, sorted at the end on two threads
	 * (from 2^16 records). */
	static const uint64_t budgets[] = { EXTSORT_MIN_BUDGET * 4, 1u << 20, 1u << 30 };
	for (size_t b = 0; b < sizeof budgets / sizeof *budgets; b++)
		for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++)
			for (int k = RANDOM; k <= SPARSE_HIGH; k++)
				for (unsigned flags = 0; flags < 4; flags++) {
					size_t n = budgets[b] == 1u << 30 ? 70000 : 20000;
					ok(same_as_qsort(sizes[z], n, k, budgets[b], flags, 1),
					    "%zu-byte records, %s, %zu, budget %llu, flags %u: "
					    "qsort's order", sizes[z], key_names[k], n,
					    (unsigned long long)budgets[b], flags);
				}
	/* Groups across the ends of runs, and all the records at once. */
	static const size_t groups[] = { 777, 20000 };
	for (size_t b = 0; b < sizeof budgets / sizeof *budgets; b++)
		for (unsigned flags = 0; flags < 4; flags++)
			for (size_t g = 0; g < sizeof groups / sizeof *groups; g++)
				ok(same_as_qsort(12, 20000, FEW_VALUES, budgets[b], flags, groups[g]),
				    "12-byte records, few values, budget %llu, flags %u: in groups of "
				    "%zu, qsort's order", (unsigned long long)budgets[b], flags, groups[g]);
	ok(same_as_qsort(8, 0, RANDOM, 1u << 20, 0, 1), "no record");
	ok(same_as_qsort(8, 0, RANDOM, 1u << 20, 0, 5), "no record, in groups");
	ok(same_as_qsort(8, 1, RANDOM, 1u << 20, EXTSORT_UNIQUE, 1), "one record");
	return done_testing();
}
