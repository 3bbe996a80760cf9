/* The vectors of src/lib/vec.c: views of a file written and read back in
 * ranges that start and end off the page boundaries, views of a vector in
 * memory, two views of one range on disk, copies that go back to the file
 * only if written, a read-only file of u32 values after a 64-byte
 * header, and the cache of views read and written at random with one slot
 * and with several.  Each value is checked against the formula that made
 * it, never against another view. */
#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>

#include "tap.h"
#include "vec.h"
#include "wa.h"

#define N 100003		/* not a whole number of pages of doubles */

static int
temp_file(uint64_t bytes)
{
	const char *dir = getenv("TMPDIR");
	int fd = open(dir && *dir ? dir : "/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0 || ftruncate(fd, (off_t)bytes) != 0) {
		perror("temporary file");
		exit(1);
	}
	return fd;
}

static double
value(uint64_t i)
{
	return (double)i * 0.5 + 1;
}

/* Writes value(i) into v in views of step values, then counts the values
 * that differ when read back in views of another step. */
static uint64_t
write_and_check(struct vec *v, uint64_t step_write, uint64_t step_read)
{
	for (uint64_t lo = 0; lo < v->n; lo += step_write) {
		uint64_t hi = v->n - lo < step_write ? v->n : lo + step_write;
		double *d = vec_view(v, lo, hi, lo % 2 ? VEC_WRITE : VEC_FILL);
		for (uint64_t i = lo; i < hi; i++)
			d[i - lo] = value(i);
		vec_unview(v, d, lo, hi);
	}
	uint64_t wrong = 0;
	for (uint64_t lo = 0; lo < v->n; lo += step_read) {
		uint64_t hi = v->n - lo < step_read ? v->n : lo + step_read;
		const double *d = vec_view(v, lo, hi, VEC_READ);
		for (uint64_t i = lo; i < hi; i++)
			wrong += d[i - lo] != value(i);
		vec_unview(v, d, lo, hi);
	}
	return wrong;
}

static void
test_file_views(void)
{
	struct vec v;
	vec_new(&v, N, sizeof(double), temp_file(N * sizeof(double)), "test.vec");
	ok(vec_exists(&v) && vec_on_disk(&v), "a vector in a file is on disk");
	const double *z = vec_view(&v, 5, 9000, VEC_READ);
	bool zero = true;
	for (uint64_t i = 0; i < 8995; i++)
		zero &= z[i] == 0;
	vec_unview(&v, z, 5, 9000);
	ok(zero, "a new vector in a file reads as zeros");
	ok(write_and_check(&v, 777, 4099) == 0,
	    "written in views of 777 values, read back in views of 4099");
	ok(vec_view(&v, 7, 7, VEC_READ) == NULL, "an empty view of a file is none");

	/* Views of a file are copies: a written one reaches the file when it
	 * ends, a read one never, and neither sees the other meanwhile. */
	double *a = vec_view(&v, 1000, 3000, VEC_WRITE);
	double *b = vec_view(&v, 2500, 6000, VEC_READ);
	a[2600 - 1000] = -1;
	b[2700 - 2500] = -2;
	ok(b[2600 - 2500] == value(2600) && a[2700 - 1000] == value(2700),
	    "two views of one range on disk do not see each other's writes");
	vec_unview(&v, a, 1000, 3000);
	vec_unview(&v, b, 2500, 6000);
	const double *c = vec_view(&v, 2600, 2701, VEC_READ);
	ok(c[0] == -1 && c[100] == value(2700),
	    "the written view's values are in the file after it ends, the read one's not");
	vec_unview(&v, c, 2600, 2701);
	double part[3] = { -5, -6, -7 };
	vec_write(&v, 10, 13, part);
	vec_read(&v, 9, 12, part);
	ok(part[0] == value(9) && part[1] == -5 && part[2] == -6,
	    "values written and read without a view");
	vec_free(&v);
	ok(!vec_exists(&v), "a freed vector is none");
	vec_free(&v);
	ok(true, "freeing none is harmless");
}

static void
test_memory_views(void)
{
	struct vec v;
	vec_new(&v, N, sizeof(double), -1, "test.vec");
	ok(vec_exists(&v) && !vec_on_disk(&v), "a vector in memory is not on disk");
	ok((char *)vec_view(&v, 12345, 20000, VEC_READ) == v.mem + 12345 * sizeof(double),
	    "a view in memory is the vector from its first value");
	ok(write_and_check(&v, 999, 65536) == 0, "written and read back in views");
	vec_free(&v);
}

static void
test_read_only_file(void)
{
	/* A header of 64 bytes, then u32 values 3i + 7. */
	uint64_t n = 50000;
	int fd = temp_file(64 + n * 4);
	uint32_t *all = wa_malloc(n * 4);
	for (uint64_t i = 0; i < n; i++)
		all[i] = (uint32_t)(3 * i + 7);
	if (pwrite(fd, all, n * 4, 64) != (ssize_t)(n * 4)) {
		perror("pwrite");
		exit(1);
	}
	free(all);
	struct vec v;
	vec_of_file(&v, fd, 64, n, 4, "u32.test");
	uint64_t wrong = 0;
	for (uint64_t lo = 1; lo < n; lo += 3001) {
		uint64_t hi = n - lo < 3001 ? n : lo + 3001;
		const uint32_t *d = vec_view(&v, lo, hi, VEC_READ);
		for (uint64_t i = lo; i < hi; i++)
			wrong += d[i - lo] != 3 * i + 7;
		vec_unview(&v, d, lo, hi);
	}
	const uint32_t *last = vec_view(&v, n - 1, n, VEC_READ);
	ok(wrong == 0 && *last == 3 * (n - 1) + 7,
	    "a read-only file viewed after its header, from value 1 in steps of 3001");
	vec_unview(&v, last, n - 1, n);
	ok(strcmp(v.name, "u32.test") == 0, "the vector keeps the file's name for its messages");
	vec_free(&v);
}

static uint64_t
next_random(uint64_t *state)
{
	*state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
	return *state >> 33;
}

/* 20000 lookups at random through a cache of that many bytes: writes
 * first, then reads of the same ids. */
static void
test_cache(uint64_t bytes, const char *what)
{
	struct vec v;
	vec_new(&v, N, sizeof(double), temp_file(N * sizeof(double)), "test.vec");
	write_and_check(&v, 65536, 65536);
	struct vec_cache c;
	vec_cache_open(&c, &v, bytes, true);
	uint64_t state = 42, wrong = 0;
	for (int k = 0; k < 20000; k++) {
		uint64_t i = next_random(&state) % N;
		double got = *(double *)vec_cache_at(&c, i);
		wrong += got != value(i) && got != -value(i);	/* a repeat: written */
		*(double *)vec_cache_at(&c, i) = -value(i);
	}
	unsigned slots = c.slots;
	vec_cache_close(&c);
	ok(wrong == 0, "%s (%u slots): values read at random", what, slots);
	state = 42;
	wrong = 0;
	for (int k = 0; k < 20000; k++) {
		uint64_t i = next_random(&state) % N;
		const double *d = vec_view(&v, i, i + 1, VEC_READ);
		wrong += *d != -value(i);
		vec_unview(&v, d, i, i + 1);
	}
	ok(wrong == 0, "%s: and written, in the file after the cache closes", what);
	vec_free(&v);
}

int
main(void)
{
	test_file_views();
	test_memory_views();
	test_read_only_file();
	test_cache(0, "a cache of one slot");
	test_cache(5 * VEC_CACHE_BLOCK * sizeof(double), "a cache of five slots");
	struct vec m;
	vec_new(&m, N, sizeof(double), -1, "test.vec");
	struct vec_cache c;
	vec_cache_open(&c, &m, 0, false);
	ok((char *)vec_cache_at(&c, 777) == m.mem + 777 * sizeof(double),
	    "the cache of a vector in memory is the vector");
	vec_cache_close(&c);
	vec_free(&m);
	return done_testing();
}
