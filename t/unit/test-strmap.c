/* The string map of src/lib/strmap.c: values, overwriting, missing keys,
 * the numbering of keys, keys that share prefixes (the hash reads 8 bytes
 * a step), the empty key, a key longer than a block, and 10^5 keys with
 * repeats, which grow the map many times, against a record of what was
 * put kept by sorting (no hashing).  Run under valgrind, the frees. */
#include <stdint.h>

#include "strmap.h"
#include "tap.h"
#include "wa.h"

static void
test_basics(void)
{
	struct strmap m;
	int a, b, c;
	char key[] = "http://a.test/";

	strmap_init(&m);
	ok(m.count == 0 && strmap_get(&m, "x") == NULL && strmap_find(&m, "x") == STRMAP_NONE,
	    "an empty map has no keys");
	const char *stored = strmap_put(&m, key, &a);
	key[7] = 'b';
	ok(stored != key && strcmp(stored, "http://a.test/") == 0,
	    "put returns its own copy of the key");
	ok(strmap_get(&m, "http://a.test/") == &a && strmap_get(&m, key) == NULL,
	    "the copy is found, the changed caller's string is not");
	strmap_put(&m, key, &b);
	ok(strmap_get(&m, "http://a.test/") == &a && strmap_get(&m, "http://b.test/") == &b &&
	    m.count == 2, "a second key");
	ok(strmap_put(&m, "http://a.test/", &c) == stored &&
	    strmap_get(&m, "http://a.test/") == &c && m.count == 2,
	    "putting a key again replaces its value and keeps its copy");
	strmap_put(&m, "http://b.test/", NULL);
	ok(strmap_get(&m, "http://b.test/") == NULL && strmap_find(&m, "http://b.test/") == 1,
	    "a NULL value: get says NULL, find still has the key");
	ok(strmap_get(&m, "http://a.test") == NULL &&
	    strmap_get(&m, "http://a.test//") == NULL && strmap_get(&m, "") == NULL,
	    "a prefix, an extension and the empty key are missing");
	ok(strmap_put(&m, "", &a) != NULL && strmap_get(&m, "") == &a &&
	    strmap_find(&m, "") == 2 && strcmp(strmap_key(&m, 2), "") == 0 && m.count == 3,
	    "the empty key is a key");
	strmap_put(&m, "h\xc3\xa9\xff", &b);
	ok(strmap_get(&m, "h\xc3\xa9\xff") == &b && strmap_get(&m, "h\xc3\xa9") == NULL,
	    "bytes above 127");
	strmap_free(&m, NULL);
	ok(m.count == 0 && m.slot == NULL, "free leaves an empty map");
}

static void
test_numbers(void)
{
	struct strmap m;
	bool added = false, all = true;
	const char *word[] = { "one", "two", "three", "four", "five" };

	strmap_init(&m);
	for (size_t i = 0; i < 5; i++) {
		all &= strmap_add(&m, word[i], &added) == i && added;
		all &= strmap_get(&m, word[i]) == NULL;
	}
	ok(all, "add numbers new keys 0, 1, ... and gives them no value");
	ok(strmap_add(&m, "three", &added) == 2 && !added && m.count == 5,
	    "adding a key again gives its number, nothing added");
	ok(strmap_add(&m, "four", NULL) == 3, "added may be NULL");
	all = true;
	for (size_t i = 0; i < 5; i++)
		all &= strcmp(strmap_key(&m, i), word[i]) == 0 && strmap_find(&m, word[i]) == i;
	ok(all, "key(i) and find agree with the order of adding");
	strmap_put(&m, "six", word);
	ok(strmap_find(&m, "six") == 5 && strmap_get(&m, "six") == word,
	    "put numbers its new key too");
	uint64_t h = strmap_hash("seven", 5);
	ok(strmap_add_hashed(&m, "seven", 5, h, &added) == 6 && added &&
	    strmap_find(&m, "seven") == 6, "add_hashed with strmap_hash is add");
	char buf[32];
	strcpy(buf + 1, "a key of 23 characters.");
	ok(strmap_hash(buf + 1, 23) == strmap_hash("a key of 23 characters.", 23),
	    "the hash is that of the bytes, wherever they are");
	strmap_free(&m, NULL);
}

/* Keys that differ in one byte only, at each place, in keys of each
 * length around the 8-byte steps of the hash; and all the prefixes of one
 * key. */
static void
test_prefixes(void)
{
	struct strmap m;
	char key[40];
	static int value[40][40];
	bool all = true;

	strmap_init(&m);
	for (int len = 1; len < 40; len++)
		for (int at = 0; at < len; at++) {
			memset(key, 'a', (size_t)len);
			key[len] = '\0';
			key[at] = 'b';
			strmap_put(&m, key, &value[len][at]);
		}
	for (int len = 0; len < 40; len++) {
		memset(key, 'a', (size_t)len);
		key[len] = '\0';
		strmap_put(&m, key, &value[0][len]);
	}
	for (int len = 1; len < 40; len++)
		for (int at = 0; at < len; at++) {
			memset(key, 'a', (size_t)len);
			key[len] = '\0';
			key[at] = 'b';
			all &= strmap_get(&m, key) == &value[len][at];
		}
	ok(all, "780 keys differing in one byte each keep their values");
	all = true;
	for (int len = 0; len < 40; len++) {
		memset(key, 'a', (size_t)len);
		key[len] = '\0';
		all &= strmap_get(&m, key) == &value[0][len];
	}
	ok(all && m.count == 780 + 40,
	    "the 40 prefixes of a...a (the empty one too) are apart");
	strmap_free(&m, NULL);
}

static void
test_long_key(void)
{
	struct strmap m;
	size_t len = (size_t)3 << 20;
	char *key = wa_malloc(len + 1);
	int v;

	for (size_t i = 0; i < len; i++)
		key[i] = (char)('a' + i % 26);
	key[len] = '\0';
	strmap_init(&m);
	strmap_put(&m, "short", &v);
	const char *stored = strmap_put(&m, key, &v);
	strmap_put(&m, "after", &m);
	ok(strmap_get(&m, key) == &v && strcmp(stored, key) == 0 &&
	    strmap_get(&m, "after") == &m && strmap_get(&m, "short") == &v,
	    "a 3 MB key, longer than a block, and keys around it");
	key[len - 1] = 'X';
	ok(strmap_get(&m, key) == NULL, "the same but its last byte is missing");
	strmap_free(&m, NULL);
	free(key);
}

/* 10^5 puts of keys drawn from 60000 with repeats.  The record: the puts
 * sorted by key, then by order, give each key its last value, and its
 * first put its number among the first puts. */
#define PUTS 100000

struct put {
	char key[48];
	uint32_t order;
};

static int
by_key_then_order(const void *a, const void *b)
{
	const struct put *x = a, *y = b;
	int c = strcmp(x->key, y->key);
	return c ? c : (x->order > y->order) - (x->order < y->order);
}

static int frees;

static void
count_free(void *value)
{
	(void)value;
	frees++;
}

static void
test_many(void)
{
	struct strmap m;
	struct put *put = wa_calloc(PUTS, sizeof *put), *sorted;
	static int value[PUTS];
	size_t *want_number = wa_calloc(PUTS, sizeof *want_number);
	bool *first = wa_calloc(PUTS, sizeof *first);
	const char **early = wa_calloc(1000, sizeof *early);
	uint64_t x = 88172645463325252ULL;

	for (uint32_t i = 0; i < PUTS; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;	/* xorshift64 */
		unsigned k = (unsigned)(x % 60000);
		/* lengths 20 to 40: shared prefixes, tails of each size */
		snprintf(put[i].key, sizeof put[i].key, "http://s%u.test/%.*s%u", k % 97,
		    (int)(k % 19), "pppppppppppppppppppp", k);
		put[i].order = i;
	}
	strmap_init(&m);
	for (uint32_t i = 0; i < PUTS; i++) {
		const char *s = strmap_put(&m, put[i].key, &value[i]);
		if (i < 1000)
			early[i] = s;
	}

	sorted = wa_reallocarray(NULL, PUTS, sizeof *sorted);
	memcpy(sorted, put, PUTS * sizeof *put);
	qsort(sorted, PUTS, sizeof *sorted, by_key_then_order);
	size_t distinct = 0;
	for (size_t i = 0; i < PUTS; i++)
		if (i == 0 || strcmp(sorted[i].key, sorted[i - 1].key) != 0) {
			first[sorted[i].order] = true;
			distinct++;
		}
	for (size_t i = 0, n = 0; i < PUTS; i++)
		if (first[i])
			want_number[i] = n++;
	ok(m.count == distinct, "%zu distinct keys of %d puts (got %zu)", distinct, PUTS,
	    m.count);

	bool values = true, numbers = true, keys = true;
	for (size_t i = 0; i < PUTS; i++) {
		bool last = i + 1 == PUTS || strcmp(sorted[i].key, sorted[i + 1].key) != 0;
		if (last)
			values &= strmap_get(&m, sorted[i].key) == &value[sorted[i].order];
	}
	for (size_t i = 0; i < PUTS; i++)
		if (first[i]) {
			numbers &= strmap_find(&m, put[i].key) == want_number[i];
			keys &= strcmp(strmap_key(&m, want_number[i]), put[i].key) == 0;
		}
	ok(values, "every key has the value of its last put");
	ok(numbers, "every key has the number of its first put among the first puts");
	ok(keys, "key(number) is the key");
	bool stable = true;
	for (size_t i = 0; i < 1000; i++)
		stable &= strcmp(early[i], put[i].key) == 0 &&
		    strmap_put(&m, put[i].key, &value[i]) == early[i];
	ok(stable, "the copies put returned before the map grew stay, and are the ones kept");
	ok(m.count == distinct, "putting again adds nothing");

	bool missing = true;
	char key[64];
	for (unsigned k = 60000; k < 70000; k++) {
		snprintf(key, sizeof key, "http://s%u.test/%.*s%u", k % 97, (int)(k % 19),
		    "pppppppppppppppppppp", k);
		missing &= strmap_get(&m, key) == NULL && strmap_find(&m, key) == STRMAP_NONE;
	}
	ok(missing, "10^4 keys never put are missing");

	size_t right = 0;
	bool plausible = true;
	for (size_t i = 0; i < m.count; i++) {
		const char *k = strmap_key(&m, i);
		size_t guess = strmap_prefetch_key(&m, strmap_hash(k, strlen(k)));
		strmap_prefetch_slot(&m, strmap_hash(k, strlen(k)));
		plausible &= guess == STRMAP_NONE || guess < m.count;
		right += guess == i;
	}
	ok(plausible && 2 * right > m.count, "prefetch_key guesses a key's number for most"
	    " keys (%zu of %zu)", right, m.count);

	strmap_free(&m, count_free);
	ok((size_t)frees == distinct, "free calls fn once per key (%d)", frees);
	free(put);
	free(sorted);
	free(want_number);
	free(first);
	free(early);
}

int
main(void)
{
	test_basics();
	test_numbers();
	test_prefixes();
	test_long_key();
	test_many();
	return done_testing();
}
