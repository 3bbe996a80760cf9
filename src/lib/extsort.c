#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "extsort.h"
#include "scratch.h"
#include "msg.h"
#include "thread.h"

/* A run reader never gets less than this, so that a pass reads the disk
 * in pieces larger than a seek; nor more than READ_MAX, beyond which
 * larger reads gain nothing. */
#define READ_MIN (4u << 10)
#define READ_MAX (1u << 20)
#define GROW_FIRST (64u << 10)
#define BACKGROUND_MIN (1u << 20)

struct run {
	uint64_t off;		/* bytes into the scratch file */
	uint64_t n;		/* records */
};

struct reader {
	uint64_t pos, left;	/* file offset and records not yet read */
	uint8_t *buf;
	size_t cap, have, at;	/* in records */
};

/* The runs of a merge, read through a tree of losers (Knuth, TAOCP vol.
 * 3, 5.4.1): each internal node keeps the reader that lost the match
 * there, tree[0] the overall winner, so that the next record costs one
 * match a level, on the path of the reader that moved.  key[i] is the
 * most significant 8 bytes of reader i's record, which settle most
 * matches without a look at the records; a reader past its run, or one of
 * the leaves beyond the runs, loses every match. */
struct merger {
	int fd;
	size_t rb;		/* the record size, for the matches */
	struct reader *rd;	/* leaves of them, the runs first */
	size_t nrd, leaves;	/* runs; leaves, a power of two */
	uint64_t *key;
	bool *done;
	uint32_t *tree;		/* leaves entries */
	uint8_t *bufs;
};

struct extsort {
	char *name, *dir;
	size_t rb;
	uint64_t budget;
	unsigned flags;

	uint8_t *buf, *scratch;	/* records in memory and the radix scratch */
	size_t n, cap, cap_max, scratch_cap;
	/* With EXTSORT_BACKGROUND a thread sorts and writes a full buffer, the
	 * spare one, while the caller fills the other. */
	uint8_t *spare;
	size_t spare_n;
	pthread_t spiller;
	bool spilling;

	int fd;			/* the file of the runs of the current pass */
	struct run *runs;
	size_t nruns, runs_cap;
	uint64_t file_end;

	bool finished, in_memory;
	size_t at;		/* next in-memory record */
	struct merger m;
	uint8_t cur[16], prev[16];
	bool have_prev;
	struct extsort_stats st;
};

/* Orders two records as little-endian integers of rb bytes. */
static inline __attribute__((always_inline)) int
rec_cmp(const uint8_t *a, const uint8_t *b, size_t rb)
{
	uint64_t x, y;
	uint32_t p, q;

	switch (rb) {
	case 4:
		memcpy(&p, a, 4);
		memcpy(&q, b, 4);
		return (p > q) - (p < q);
	case 8:
		memcpy(&x, a, 8);
		memcpy(&y, b, 8);
		return (x > y) - (x < y);
	case 12:
		memcpy(&p, a + 8, 4);
		memcpy(&q, b + 8, 4);
		if (p != q)
			return p < q ? -1 : 1;
		memcpy(&x, a, 8);
		memcpy(&y, b, 8);
		return (x > y) - (x < y);
	default:
		memcpy(&x, a + 8, 8);
		memcpy(&y, b + 8, 8);
		if (x != y)
			return x < y ? -1 : 1;
		memcpy(&x, a, 8);
		memcpy(&y, b, 8);
		return (x > y) - (x < y);
	}
}

/* Below this many records a bucket is sorted by insertion. */
#define RADIX_SMALL 32
/* Below this many records a second thread costs more than it saves. */
#define PARALLEL_SORT_MIN (1u << 16)

static inline __attribute__((always_inline)) void
insertion_sort(uint8_t *a, size_t n, size_t rb)
{
	uint8_t r[16];
	for (size_t i = 1; i < n; i++) {
		size_t j = i;
		memcpy(r, a + i * rb, rb);
		for (; j > 0 && rec_cmp(a + (j - 1) * rb, r, rb) > 0; j--)
			memcpy(a + j * rb, a + (j - 1) * rb, rb);
		memcpy(a + j * rb, r, rb);
	}
}

/* A bit for each byte of the records, set if the byte is not the same in
 * all n records of x.  Counting the values of a byte that never changes
 * would cost a pass, each count waiting for the one before. */
static inline __attribute__((always_inline)) uint32_t
varying_bytes(const uint8_t *x, size_t n, size_t rb)
{
	uint64_t lo0 = 0, hi0 = 0, lo = 0, hi = 0, a = 0, b = 0;
	size_t lo_bytes = rb < 8 ? rb : 8;
	memcpy(&lo0, x, lo_bytes);
	if (rb > 8)
		memcpy(&hi0, x + 8, rb - 8);
	for (size_t i = 1; i < n; i++) {
		memcpy(&a, x + i * rb, lo_bytes);
		lo |= a ^ lo0;
		if (rb > 8) {
			memcpy(&b, x + i * rb + 8, rb - 8);
			hi |= b ^ hi0;
		}
	}
	uint32_t mask = 0;
	for (size_t k = 0; k < 8; k++)
		mask |= (uint32_t)((lo >> 8 * k & 0xff) != 0) << k |
		    (uint32_t)((hi >> 8 * k & 0xff) != 0) << (k + 8);
	return mask;
}

/* A level of the MSD radix sort of the n records of x, on bytes [0, *top],
 * the higher ones being equal in every record: finds the most significant
 * of those bytes that varies, counts its values in count and scatters x
 * by it into y, in buckets.  False when every record is the same from
 * *top down: x is sorted. */
static inline __attribute__((always_inline)) bool
msd_scatter(const uint8_t *x, uint8_t *y, size_t n, size_t rb, size_t *top, size_t count[256])
{
	uint32_t vary = varying_bytes(x, n, rb) & ((2u << *top) - 1);
	if (vary == 0)
		return true;
	*top = 31 - (size_t)__builtin_clz(vary);
	memset(count, 0, 256 * sizeof *count);
	for (size_t i = 0; i < n; i++)
		count[x[i * rb + *top]]++;
	size_t off[256], sum = 0;
	for (int v = 0; v < 256; v++) {
		off[v] = sum;
		sum += count[v];
	}
	for (size_t i = 0; i < n; i++) {
		const uint8_t *r = x + i * rb;
		memcpy(y + off[r[*top]]++ * rb, r, rb);
	}
	return false;
}

/* The sort of a bucket, the same for one record size: its records are in
 * x, the result ends in y if into_y, else in x; y is as large. */
typedef void msd_fn(uint8_t *x, uint8_t *y, size_t n, size_t top, bool into_y);

/* After msd_scatter by byte top: sorts the buckets of values [from, to),
 * so that they end in their place in y if into_y, else in x. */
static inline __attribute__((always_inline)) void
msd_buckets(uint8_t *x, uint8_t *y, size_t rb, size_t top, bool into_y,
    const size_t count[256], int from, int to, msd_fn *sort_bucket)
{
	size_t first = 0;
	for (int v = 0; v < from; v++)
		first += count[v] * rb;
	for (int v = from; v < to; first += count[v++] * rb) {
		if (count[v] == 0)
			continue;
		if (top > 0)
			sort_bucket(y + first, x + first, count[v], top - 1, !into_y);
		else if (!into_y)
			memcpy(x + first, y + first, count[v] * rb);
	}
}

/* Up to this many records, the buckets of a level hold a few records
 * each: one insertion sort of the whole finishes them, rather than a
 * level for each. */
#define RADIX_LAST_LEVEL 4096

/* MSD radix sort, a byte a level from the most significant one that
 * varies: random keys take a few levels, not one pass a byte, and past the
 * first two levels a bucket is in the cache. */
static inline __attribute__((always_inline)) void
msd_sort(uint8_t *x, uint8_t *y, size_t n, size_t rb, size_t top, bool into_y,
    msd_fn *sort_bucket)
{
	size_t count[256];
	if (n < RADIX_SMALL) {
		insertion_sort(x, n, rb);
	} else if (!msd_scatter(x, y, n, rb, &top, count)) {
		if (n > RADIX_LAST_LEVEL || top == 0) {
			msd_buckets(x, y, rb, top, into_y, count, 0, 256, sort_bucket);
			return;
		}
		insertion_sort(y, n, rb);
		if (!into_y)
			memcpy(x, y, n * rb);
		return;
	}
	if (into_y)
		memcpy(y, x, n * rb);
}

#define MSD_SORT_OF_SIZE(RB) \
	static void \
	msd_sort##RB(uint8_t *x, uint8_t *y, size_t n, size_t top, bool into_y) \
	{ \
		msd_sort(x, y, n, RB, top, into_y, msd_sort##RB); \
	}
MSD_SORT_OF_SIZE(4)
MSD_SORT_OF_SIZE(8)
MSD_SORT_OF_SIZE(12)
MSD_SORT_OF_SIZE(16)

static void
msd_sort_of_size(uint8_t *x, uint8_t *y, size_t n, size_t rb, size_t top, bool into_y)
{
	switch (rb) {
	case 4: msd_sort4(x, y, n, top, into_y); break;
	case 8: msd_sort8(x, y, n, top, into_y); break;
	case 12: msd_sort12(x, y, n, top, into_y); break;
	default: msd_sort16(x, y, n, top, into_y); break;
	}
}

/* Sorts the n records of a, with tmp as scratch of the same size. */
static void
radix_sort(uint8_t *a, uint8_t *tmp, size_t n, size_t rb)
{
	msd_sort_of_size(a, tmp, n, rb, rb - 1, false);
}

/* Buckets [from, to) of a level but skip, for a second thread: after the
 * scatter of x into y, sorted so that they end in y if into_y, else in x. */
struct bucket_range {
	uint8_t *x, *y;
	size_t rb, top;
	bool into_y;
	const size_t *count;
	int from, to, skip;
};

static void
sort_buckets(const struct bucket_range *h, int from, int to)
{
	switch (h->rb) {
	case 4: msd_buckets(h->x, h->y, 4, h->top, h->into_y, h->count, from, to, msd_sort4); break;
	case 8: msd_buckets(h->x, h->y, 8, h->top, h->into_y, h->count, from, to, msd_sort8); break;
	case 12: msd_buckets(h->x, h->y, 12, h->top, h->into_y, h->count, from, to, msd_sort12); break;
	default: msd_buckets(h->x, h->y, 16, h->top, h->into_y, h->count, from, to, msd_sort16); break;
	}
}

static void *
sort_bucket_range(void *arg)
{
	const struct bucket_range *h = arg;
	if (h->skip >= h->from && h->skip < h->to) {
		sort_buckets(h, h->from, h->skip);
		sort_buckets(h, h->skip + 1, h->to);
	} else {
		sort_buckets(h, h->from, h->to);
	}
	return NULL;
}

/* msd_sort on two threads, the caller's and another: a level splits the
 * records, and each thread sorts about half of its buckets.  When one
 * bucket holds most records (the same high bytes in most keys), the other
 * thread takes the others, and this one splits that bucket again. */
static void
msd_sort_2(uint8_t *x, uint8_t *y, size_t n, size_t rb, size_t top, bool into_y)
{
	size_t count[256];
	if (n < PARALLEL_SORT_MIN) {
		msd_sort_of_size(x, y, n, rb, top, into_y);
		return;
	}
	bool sorted;
	switch (rb) {
	case 4: sorted = msd_scatter(x, y, n, 4, &top, count); break;
	case 8: sorted = msd_scatter(x, y, n, 8, &top, count); break;
	case 12: sorted = msd_scatter(x, y, n, 12, &top, count); break;
	default: sorted = msd_scatter(x, y, n, 16, &top, count); break;
	}
	if (sorted) {
		if (into_y)
			memcpy(y, x, n * rb);
		return;
	}
	int big = 0;
	for (int v = 1; v < 256; v++)
		if (count[v] > count[big])
			big = v;
	struct bucket_range lo = { x, y, rb, top, into_y, count, 0, 256, 256 }, hi = lo;
	pthread_t helper;
	bool two;
	if (count[big] > n / 2 && top > 0) {
		hi.skip = big;
		two = wa_thread_start(&helper, sort_bucket_range, &hi) == 0;
		size_t first = 0;
		for (int v = 0; v < big; v++)
			first += count[v] * rb;
		msd_sort_2(y + first, x + first, count[big], rb, top - 1, !into_y);
	} else {
		int mid = 0;
		for (size_t below = 0; mid < 256 && below + count[mid] <= n / 2; mid++)
			below += count[mid];
		lo.to = mid;
		hi.from = mid;
		two = wa_thread_start(&helper, sort_bucket_range, &hi) == 0;
		sort_bucket_range(&lo);
	}
	if (two)
		pthread_join(helper, NULL);
	else
		sort_bucket_range(&hi);
}

/* radix_sort on two threads, when the caller waits for the result. */
static void
radix_sort_2(uint8_t *a, uint8_t *tmp, size_t n, size_t rb)
{
	msd_sort_2(a, tmp, n, rb, rb - 1, false);
}

struct extsort *
extsort_new(const char *name, const char *dir, size_t rec_bytes, uint64_t budget,
    unsigned flags)
{
	if (rec_bytes != 4 && rec_bytes != 8 && rec_bytes != 12 && rec_bytes != 16)
		wa_die("internal error: %s: records of %zu bytes", name, rec_bytes);
	struct extsort *s = wa_calloc(1, sizeof *s);
	s->name = wa_strdup(name);
	s->dir = wa_strdup(dir);
	s->rb = rec_bytes;
	s->budget = budget < EXTSORT_MIN_BUDGET ? EXTSORT_MIN_BUDGET : budget;
	/* A thread costs more than sorting a small run. */
	if (s->budget / 3 < BACKGROUND_MIN)
		flags &= ~(unsigned)EXTSORT_BACKGROUND;
	s->flags = flags;
	s->fd = -1;
	s->m.fd = -1;
	/* Room for the records, the radix scratch and, in the background
	 * mode, the buffer being spilled. */
	s->cap_max = (size_t)(s->budget / (flags & EXTSORT_BACKGROUND ? 3 : 2) / rec_bytes);
	return s;
}

/* A scratch file that exists only through its descriptor. */
static int
scratch_file(const struct extsort *s)
{
	int fd = scratch_try_open(s->dir, ".extsort");
	if (fd < 0)
		wa_die_errno("%s: cannot create a scratch file in %s", s->name, s->dir);
	return fd;
}

static void
write_all(const struct extsort *s, int fd, const void *buf, size_t n, uint64_t off)
{
	if (!pwrite_full(fd, buf, n, off))
		wa_die_errno("%s: cannot write to the scratch space in %s", s->name, s->dir);
}

static size_t
dedup(uint8_t *a, size_t n, size_t rb)
{
	if (n == 0)
		return 0;
	size_t j = 1;
	for (size_t i = 1; i < n; i++)
		if (rec_cmp(a + i * rb, a + (j - 1) * rb, rb) != 0)
			memmove(a + j++ * rb, a + i * rb, rb);
	return j;
}

/* Sorts n records of a in place, on two threads if the caller waits for
 * it and the sort may use threads; returns how many remain unique. */
static size_t
sort_records(struct extsort *s, uint8_t *a, size_t n, bool caller_waits)
{
	if (s->scratch_cap < n) {
		free(s->scratch);
		s->scratch_cap = s->cap > n ? s->cap : n;
		s->scratch = wa_reallocarray(NULL, s->scratch_cap, s->rb);
	}
	if (caller_waits && s->flags & EXTSORT_BACKGROUND)
		radix_sort_2(a, s->scratch, n, s->rb);
	else
		radix_sort(a, s->scratch, n, s->rb);
	return s->flags & EXTSORT_UNIQUE ? dedup(a, n, s->rb) : n;
}

static void
add_run(struct extsort *s, uint64_t off, uint64_t n)
{
	if (s->nruns == s->runs_cap) {
		s->runs_cap = s->runs_cap ? 2 * s->runs_cap : 16;
		s->runs = wa_reallocarray(s->runs, s->runs_cap, sizeof *s->runs);
	}
	s->runs[s->nruns++] = (struct run){ off, n };
	s->st.runs++;
	s->st.spilled_bytes += n * s->rb;
}

static void
write_run(struct extsort *s, const uint8_t *a, size_t n)
{
	write_all(s, s->fd, a, n * s->rb, s->file_end);
	add_run(s, s->file_end, n);
	s->file_end += n * s->rb;
}

static void *
spill_thread(void *arg)
{
	struct extsort *s = arg;
	write_run(s, s->spare, sort_records(s, s->spare, s->spare_n, false));
	return NULL;
}

static void
wait_spill(struct extsort *s)
{
	if (s->spilling)
		pthread_join(s->spiller, NULL);
	s->spilling = false;
}

static void
spill(struct extsort *s)
{
	if (s->fd < 0)
		s->fd = scratch_file(s);
	if (!(s->flags & EXTSORT_BACKGROUND)) {
		write_run(s, s->buf, sort_records(s, s->buf, s->n, false));
		s->n = 0;
		return;
	}
	wait_spill(s);
	if (!s->spare)
		s->spare = wa_reallocarray(NULL, s->cap_max, s->rb);
	uint8_t *t = s->buf;
	s->buf = s->spare;
	s->spare = t;
	s->spare_n = s->n;
	s->n = 0;
	s->cap = s->cap_max;
	int rc = wa_thread_start(&s->spiller, spill_thread, s);
	if (rc) {
		errno = rc;
		wa_die_errno("%s: cannot start a thread", s->name);
	}
	s->spilling = true;
}

/* Room for a record more in the buffer: grown to its most, then spilled. */
static void
make_room(struct extsort *s)
{
	if (s->cap < s->cap_max) {
		size_t want = s->cap ? 2 * s->cap : GROW_FIRST / s->rb;
		s->cap = want < s->cap_max ? want : s->cap_max;
		s->buf = wa_reallocarray(s->buf, s->cap, s->rb);
	} else {
		spill(s);
	}
}

void
extsort_add(struct extsort *s, const void *rec)
{
	if (s->n == s->cap)
		make_room(s);
	memcpy(s->buf + s->n++ * s->rb, rec, s->rb);
	s->st.added++;
}

void
extsort_add_many(struct extsort *s, const void *recs, size_t n)
{
	const uint8_t *rec = recs;
	while (n > 0) {
		if (s->n == s->cap)
			make_room(s);
		size_t k = s->cap - s->n < n ? s->cap - s->n : n;
		memcpy(s->buf + s->n * s->rb, rec, k * s->rb);
		s->n += k;
		s->st.added += k;
		rec += k * s->rb;
		n -= k;
	}
}

static bool
reader_fill(const struct extsort *s, int fd, struct reader *r)
{
	if (r->left == 0)
		return false;
	size_t want = r->left < r->cap ? (size_t)r->left : r->cap;
	size_t bytes = want * s->rb;
	ssize_t got = pread_full(fd, r->buf, bytes, r->pos);
	if (got != (ssize_t)bytes) {
		if (got >= 0)
			errno = EIO;
		wa_die_errno("%s: cannot read back the scratch space in %s", s->name, s->dir);
	}
	r->pos += bytes;
	r->left -= want;
	r->have = want;
	r->at = 0;
	return true;
}

static inline const uint8_t *
reader_rec(size_t rb, const struct reader *r)
{
	return r->buf + r->at * rb;
}

/* The most significant 8 bytes of a record, as an integer. */
static inline uint64_t
record_key(const uint8_t *r, size_t rb)
{
	uint64_t k = 0;
	if (rb >= 8)
		memcpy(&k, r + rb - 8, 8);
	else
		memcpy(&k, r, rb);
	return k;
}

/* Whether reader a's record comes before reader b's. */
static inline bool
beats(const struct merger *m, uint32_t a, uint32_t b)
{
	/* A reader done has the greatest key: it loses unless keys tie. */
	if (m->key[a] != m->key[b])
		return m->key[a] < m->key[b];
	if (m->done[a] || m->done[b])
		return !m->done[a] && m->done[b];
	return rec_cmp(reader_rec(m->rb, &m->rd[a]), reader_rec(m->rb, &m->rd[b]), m->rb) < 0;
}

/* Reader i's key after a move, or the mark of its end. */
static inline void
merger_key(struct merger *m, uint32_t i)
{
	struct reader *r = &m->rd[i];
	m->done[i] = r->at == r->have;
	m->key[i] = m->done[i] ? UINT64_MAX : record_key(reader_rec(m->rb, r), m->rb);
}

static void
merger_close(struct merger *m)
{
	free(m->rd);
	free(m->key);
	free(m->done);
	free(m->tree);
	free(m->bufs);
	m->rd = NULL;
	m->key = NULL;
	m->done = NULL;
	m->tree = NULL;
	m->bufs = NULL;
	m->nrd = m->leaves = 0;
}

/* The first matches: the winner of each node's subtree goes up, the loser
 * stays. */
static void
merger_build(struct merger *m)
{
	uint32_t *win = wa_reallocarray(NULL, 2 * m->leaves, sizeof *win);
	for (size_t i = 0; i < m->leaves; i++)
		win[m->leaves + i] = (uint32_t)i;
	for (size_t n = m->leaves - 1; n >= 1; n--) {
		uint32_t a = win[2 * n], b = win[2 * n + 1];
		bool b_wins = beats(m, b, a);
		win[n] = b_wins ? b : a;
		m->tree[n] = b_wins ? a : b;
	}
	m->tree[0] = win[1];
	free(win);
}

/* Read buffers for n runs out of bytes of memory. */
static void
merger_open(struct extsort *s, struct merger *m, int fd, const struct run *runs, size_t n,
    uint64_t bytes)
{
	uint64_t each = bytes / (n ? n : 1);
	if (each > READ_MAX)
		each = READ_MAX;
	if (each < READ_MIN)
		each = READ_MIN;
	size_t cap = (size_t)each / s->rb;
	m->fd = fd;
	m->rb = s->rb;
	m->nrd = n;
	for (m->leaves = 1; m->leaves < n; m->leaves *= 2)
		;
	m->rd = wa_calloc(m->leaves, sizeof *m->rd);
	m->key = wa_calloc(m->leaves, sizeof *m->key);
	m->done = wa_calloc(m->leaves, sizeof *m->done);
	m->tree = wa_calloc(m->leaves, sizeof *m->tree);
	m->bufs = wa_reallocarray(NULL, n ? n * cap : 1, s->rb);
	for (size_t i = 0; i < m->leaves; i++) {
		struct reader *r = &m->rd[i];
		if (i < n) {
			r->pos = runs[i].off;
			r->left = runs[i].n;
			r->cap = cap;
			r->buf = m->bufs + i * cap * s->rb;
			reader_fill(s, fd, r);
		}
		merger_key(m, (uint32_t)i);
	}
	merger_build(m);
}

/* Copies the least record to out; false when every run is done. */
static bool
merger_pop(struct extsort *s, struct merger *m, uint8_t *out)
{
	uint32_t w = m->tree[0];
	if (m->done[w])
		return false;
	struct reader *r = &m->rd[w];
	memcpy(out, reader_rec(s->rb, r), s->rb);
	if (++r->at == r->have)
		reader_fill(s, m->fd, r);
	merger_key(m, w);
	for (size_t n = (w + m->leaves) / 2; n >= 1; n /= 2) {
		uint32_t t = m->tree[n];
		bool lost = beats(m, t, w);
		m->tree[n] = lost ? w : t;
		w = lost ? t : w;
	}
	m->tree[0] = w;
	return true;
}

/* The most runs one merge can read at once within the budget, keeping a
 * quarter of it for the output buffer. */
static size_t
max_fanin(const struct extsort *s)
{
	uint64_t f = s->budget / 4 * 3 / READ_MIN;
	return f < 2 ? 2 : (size_t)f;
}

/* Merges groups of runs into a new file until one merge can take them all. */
static void
merge_passes(struct extsort *s)
{
	size_t fanin = max_fanin(s);
	size_t out_cap = (size_t)(s->budget / 4 / s->rb);
	while (s->nruns > fanin) {
		int in = s->fd;
		struct run *runs = s->runs;
		size_t nruns = s->nruns;
		s->fd = scratch_file(s);
		s->runs = NULL;
		s->nruns = s->runs_cap = 0;
		s->file_end = 0;
		uint8_t *out = wa_reallocarray(NULL, out_cap, s->rb);
		for (size_t g = 0; g < nruns; g += fanin) {
			size_t n = nruns - g < fanin ? nruns - g : fanin;
			struct merger m = { 0 };
			merger_open(s, &m, in, runs + g, n, s->budget / 4 * 3);
			uint64_t start = s->file_end, count = 0;
			size_t have = 0;
			bool have_prev = false;
			while (merger_pop(s, &m, s->cur)) {
				if ((s->flags & EXTSORT_UNIQUE) && have_prev &&
				    memcmp(s->cur, s->prev, s->rb) == 0)
					continue;
				memcpy(s->prev, s->cur, s->rb);
				have_prev = true;
				memcpy(out + have++ * s->rb, s->cur, s->rb);
				if (have == out_cap) {
					write_all(s, s->fd, out, have * s->rb, s->file_end);
					s->file_end += have * s->rb;
					count += have;
					have = 0;
				}
			}
			write_all(s, s->fd, out, have * s->rb, s->file_end);
			s->file_end += have * s->rb;
			add_run(s, start, count + have);
			merger_close(&m);
		}
		free(out);
		free(runs);
		close(in);
		s->st.passes++;
	}
}

void
extsort_finish(struct extsort *s)
{
	if (s->finished)
		wa_die("internal error: %s: finished twice", s->name);
	s->finished = true;
	wait_spill(s);
	if (s->nruns == 0) {
		s->n = sort_records(s, s->buf, s->n, true);
		s->in_memory = true;
	} else {
		if (s->n > 0)
			write_run(s, s->buf, sort_records(s, s->buf, s->n, true));
		free(s->buf);
		free(s->spare);
		s->spare = NULL;
		s->buf = NULL;
		s->cap = 0;
		merge_passes(s);
	}
	free(s->scratch);
	s->scratch = NULL;
	s->scratch_cap = 0;
	extsort_rewind(s);
}

void
extsort_rewind(struct extsort *s)
{
	if (!s->finished)
		wa_die("internal error: %s: read before it is finished", s->name);
	s->at = 0;
	s->have_prev = false;
	if (!s->in_memory) {
		merger_close(&s->m);
		merger_open(s, &s->m, s->fd, s->runs, s->nruns, s->budget);
	}
}

const void *
extsort_next(struct extsort *s)
{
	if (s->in_memory)
		return s->at < s->n ? s->buf + s->at++ * s->rb : NULL;
	for (;;) {
		if (!merger_pop(s, &s->m, s->cur))
			return NULL;
		if ((s->flags & EXTSORT_UNIQUE) && s->have_prev &&
		    memcmp(s->cur, s->prev, s->rb) == 0)
			continue;
		memcpy(s->prev, s->cur, s->rb);
		s->have_prev = true;
		return s->cur;
	}
}

const struct extsort_stats *
extsort_stats(const struct extsort *s)
{
	return &s->st;
}

void
extsort_free(struct extsort *s)
{
	if (!s)
		return;
	wait_spill(s);
	merger_close(&s->m);
	if (s->fd >= 0)
		close(s->fd);
	free(s->runs);
	free(s->buf);
	free(s->spare);
	free(s->scratch);
	free(s->name);
	free(s->dir);
	free(s);
}
