#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "msg.h"
#include "propagate.h"
#include "scratch.h"

#define PART_PAGES ((uint64_t)1 << PROPAGATE_PART_BITS)
#define PART_MASK (PART_PAGES - 1)
/* Links a window of a stream on disk holds. */
#define WINDOW_LINKS ((uint64_t)1 << 16)

static uint64_t
part_count(uint64_t nodes)
{
	return (nodes + PART_PAGES - 1) >> PROPAGATE_PART_BITS;
}

static uint64_t
part_width(const struct propagation *pb, uint64_t part)
{
	uint64_t lo = part * PART_PAGES;
	return pb->nodes - lo < PART_PAGES ? pb->nodes - lo : PART_PAGES;
}

/* A stream of that many bytes, in memory, or on disk in files cut at
 * the starts of columns (gather order) [0, parts) in equal counts. */
static void
stream_open(struct propagation_stream *s, const struct propagation *pb, bool on_disk,
    unsigned files, unsigned link_bytes)
{
	const uint64_t np = pb->parts, bytes = pb->gather_off[np * np] * link_bytes;
	memset(s, 0, sizeof *s);
	if (!on_disk) {
		s->mem = wa_calloc(bytes + 1, 1);
		return;
	}
	s->files = files;
	for (unsigned f = 0; f < files; f++)
		s->start[f] = pb->gather_off[f * np / files * np] * link_bytes;
	s->start[files] = bytes;
	for (unsigned f = 0; f < files; f++)
		s->fd[f] = rank_temp_file(s->start[f + 1] - s->start[f]);
}

static void
stream_close(struct propagation_stream *s)
{
	free(s->mem);
	for (unsigned f = 0; f < s->files; f++)
		close(s->fd[f]);
	memset(s, 0, sizeof *s);
}

/* bytes at off read into buf, or written from it. */
static void
stream_io(const struct propagation_stream *s, uint64_t off, uint64_t bytes, void *buf,
    bool write)
{
	unsigned f = 0;
	for (uint64_t done = 0; done < bytes;) {
		uint64_t at = off + done;
		while (at >= s->start[f + 1])
			f++;
		uint64_t want = s->start[f + 1] - at < bytes - done ? s->start[f + 1] - at :
		    bytes - done;
		char *p = (char *)buf + done;
		uint64_t pos = at - s->start[f];
		bool whole = write ? pwrite_full(s->fd[f], p, want, pos) :
		    pread_full(s->fd[f], p, want, pos) == (ssize_t)want;
		if (!whole)
			wa_die_errno("%s: cannot %s a temporary file of propagation blocking",
			    rank_temp_dir(), write ? "write" : "read");
		done += want;
	}
}

/* bytes at off: in place in memory, or read into buf. */
static const void *
stream_get(const struct propagation_stream *s, uint64_t off, uint64_t bytes, void *buf)
{
	if (s->mem)
		return s->mem + off;
	stream_io(s, off, bytes, buf, false);
	return buf;
}

static void
stream_put(struct propagation_stream *s, uint64_t off, const void *data, uint64_t bytes)
{
	if (s->mem)
		memcpy(s->mem + off, data, bytes);
	else
		stream_io(s, off, bytes, (void *)data, true);
}

/* The parts the build holds at once: those of the slice being read. */
struct part_build {
	uint16_t *dst, *src;	/* the links from other parts, gather order */
	uint32_t *pairs;	/* the links within: destination << 16 | source */
	uint64_t *pos;		/* of the next link from each other part */
	uint64_t npairs;
};

struct build {
	struct propagation *pb;
	bool inverted;		/* each link taken from its destination to its source */
	const struct slice *slices;
	uint32_t nslices;
	uint64_t *internal;	/* parts + 1: the links within parts before each */
	struct part_build *open;	/* indexed by part */
	uint32_t *buf;		/* a run of a streamed slice */
	size_t buf_cap;
};

/* Each link of slice s: counted (fill false) or put into its part. */
static void
visit_words(struct build *b, const struct slice *s, uint64_t b0, uint64_t b1,
    const uint32_t *words, bool fill)
{
	struct propagation *pb = b->pb;
	const uint64_t np = pb->parts;
	const uint32_t *base = words - s->block_off[b0];
	for (uint64_t k = b0; k < b1; k++) {
		const bool internal = k >= s->external_blocks;
		const uint32_t *p = base + s->block_off[k], *end = base + s->block_off[k + 1];
		uint64_t major = s->block_first[k];
		while (p < end) {
			uint64_t other = slice_word(&p, &major, s->bits) + s->lo;
			bool forwards = internal != b->inverted;
			uint64_t src = forwards ? other : major, dst = forwards ? major : other;
			uint64_t i = src >> PROPAGATE_PART_BITS, j = dst >> PROPAGATE_PART_BITS;
			if (!fill) {
				if (i == j)
					b->internal[j + 1]++;
				else
					pb->gather_off[j * np + i + 1]++;
				continue;
			}
			struct part_build *part = &b->open[j];
			if (!part->pos)
				continue;	/* built by another pass */
			if (i == j) {
				part->pairs[part->npairs++] =
				    (uint32_t)((dst & PART_MASK) << 16 | (src & PART_MASK));
			} else {
				uint64_t at = part->pos[i]++;
				part->dst[at] = (uint16_t)(dst & PART_MASK);
				part->src[at] = (uint16_t)(src & PART_MASK);
			}
		}
	}
}

static void
visit_slice(struct build *b, const struct slice *s, bool fill, uint64_t run_bytes)
{
	if (s->data) {
		visit_words(b, s, 0, s->blocks, s->data, fill);
		return;
	}
	for (uint64_t b0 = 0, b1; b0 < s->blocks; b0 = b1) {
		b1 = slice_read_run(s, b0, s->blocks, run_bytes, &b->buf, &b->buf_cap);
		visit_words(b, s, b0, b1, b->buf, fill);
	}
}

static uint64_t
column_links(const struct propagation *pb, uint64_t j)
{
	return pb->gather_off[(j + 1) * pb->parts] - pb->gather_off[j * pb->parts];
}

static void
open_part(struct build *b, uint64_t j)
{
	const struct propagation *pb = b->pb;
	struct part_build *part = &b->open[j];
	uint64_t links = column_links(pb, j), first = pb->gather_off[j * pb->parts];
	part->dst = wa_reallocarray(NULL, links + 1, sizeof *part->dst);
	part->src = wa_reallocarray(NULL, links + 1, sizeof *part->src);
	part->pairs = wa_reallocarray(NULL, b->internal[j + 1] - b->internal[j] + 1,
	    sizeof *part->pairs);
	part->pos = wa_reallocarray(NULL, pb->parts, sizeof *part->pos);
	for (uint64_t i = 0; i < pb->parts; i++)
		part->pos[i] = pb->gather_off[j * pb->parts + i] - first;
	part->npairs = 0;
}

/* The links within part j as the words of a slice's internal section,
 * destinations in order, each one's sources in the order read.  Its
 * blocks close as wa-linkmat closes them, and rankscan.c cuts its lanes at
 * block starts: blocks of fewer pages, which balance the lanes on links
 * more finely, cut sites where links are dense, and Gauss-Seidel took 57
 * iterations instead of 41 on a generated site graph of 2^22 pages. */
static void
close_part(struct slice *part, const struct part_build *pbd, uint32_t *words)
{
	/* A counting sort by destination: end[d + 1] counts the links to d;
	 * summed, end[d] is where those of d start, and placing them moves it
	 * to where they end. */
	uint64_t *end = wa_calloc(PART_PAGES + 1, sizeof *end);
	for (uint64_t k = 0; k < pbd->npairs; k++)
		end[(pbd->pairs[k] >> 16) + 1]++;
	for (uint64_t d = 0; d < PART_PAGES; d++)
		end[d + 1] += end[d];
	for (uint64_t k = 0; k < pbd->npairs; k++)
		words[end[pbd->pairs[k] >> 16]++] = pbd->pairs[k] & PART_MASK;

	uint64_t blocks = 0, cap = 16, last = 0;
	part->block_off = wa_reallocarray(NULL, cap + 1, sizeof *part->block_off);
	part->block_first = wa_reallocarray(NULL, cap, sizeof *part->block_first);
	for (uint64_t d = 0, at = 0; d < part->hi - part->lo; at = end[d++]) {
		uint64_t id = part->lo + d;
		if (end[d] == at)
			continue;
		if (!blocks || id - part->block_first[blocks - 1] >= GRAPH_BLOCK_SPAN ||
		    at - part->block_off[blocks - 1] >= GRAPH_BLOCK_LINKS) {
			if (blocks == cap) {
				cap *= 2;
				part->block_off = wa_reallocarray(part->block_off, cap + 1,
				    sizeof *part->block_off);
				part->block_first = wa_reallocarray(part->block_first, cap,
				    sizeof *part->block_first);
			}
			part->block_off[blocks] = at;
			part->block_first[blocks++] = (uint32_t)id;
			last = id;
		}
		/* Within a block the delta stays below GRAPH_BLOCK_SPAN, far from
		 * the escape of any part's word. */
		words[at] |= (uint32_t)(id - last) << part->bits;
		last = id;
	}
	part->block_off[blocks] = pbd->npairs;
	part->blocks = blocks;
	part->external_blocks = 0;
	part->words = part->links = part->internal = pbd->npairs;
	free(end);
}

/* Part j has all its links: its column of the streams goes out, and its
 * links within become the words of its slice. */
static void
finish_part(struct build *b, uint64_t j, struct slice *part)
{
	struct propagation *pb = b->pb;
	struct part_build *pbd = &b->open[j];
	const uint64_t np = pb->parts, first = pb->gather_off[j * np];
	stream_put(&pb->dst, first * 2, pbd->dst, column_links(pb, j) * 2);
	for (uint64_t i = 0; i < np; i++) {
		uint64_t at = pb->gather_off[j * np + i], len = pb->gather_off[j * np + i + 1] - at;
		if (len)
			stream_put(&pb->src, pb->scatter_off[i * np + j] * 2, pbd->src + (at - first),
			    len * 2);
	}
	uint32_t *words = wa_reallocarray(NULL, pbd->npairs + 1, sizeof *words);
	close_part(part, pbd, words);
	if (pb->on_disk) {
		part->fd = pb->internal.fd[0];
		part->fd_shared = true;
		part->data_pos = b->internal[j] * 4;
		stream_put(&pb->internal, part->data_pos, words, pbd->npairs * 4);
		free(words);
	} else {
		part->data = words;
	}
	free(pbd->dst);
	free(pbd->src);
	free(pbd->pairs);
	free(pbd->pos);
	memset(pbd, 0, sizeof *pbd);
}

/* The bytes part j takes while it is built. */
static uint64_t
part_build_bytes(const struct build *b, uint64_t j)
{
	const struct propagation *pb = b->pb;
	return column_links(pb, j) * 4 + (b->internal[j + 1] - b->internal[j]) * 8 + pb->parts * 8;
}

/* The most bytes the parts being built take at once, reading slice by
 * slice: the parts a slice reaches stay open until their last page.
 * Inverted, a part has links in every slice, and the build takes as many
 * parts as fit at a time, one at least. */
static uint64_t
build_peak(const struct build *b)
{
	const struct propagation *pb = b->pb;
	uint64_t peak = 0;
	if (b->inverted) {
		for (uint64_t j = 0; j < pb->parts; j++)
			if (part_build_bytes(b, j) > peak)
				peak = part_build_bytes(b, j);
		return peak + (PART_PAGES + 1) * 8;
	}
	for (uint32_t k = 0; k < b->nslices; k++) {
		const struct slice *s = &b->slices[k];
		if (s->hi == s->lo)
			continue;
		uint64_t bytes = 0;
		for (uint64_t j = s->lo >> PROPAGATE_PART_BITS;
		    j <= (s->hi - 1) >> PROPAGATE_PART_BITS; j++)
			bytes += part_build_bytes(b, j);
		if (bytes > peak)
			peak = bytes;
	}
	return peak + (PART_PAGES + 1) * 8;
}

/* The parts built in id order, each finished once the slices have given
 * it all its links.  Slices hold the links by destination, so the parts a
 * slice reaches are built as it is read.  Inverted, every slice may hold
 * links of every part: the matrix is read once for each run of parts
 * whose builds fit half of limit together. */
static void
build_parts(struct build *b, const struct rank_plan *plan, struct slice *parts, uint64_t limit)
{
	const uint64_t np = b->pb->parts;
	if (!b->inverted) {
		uint64_t opened = 0, finished = 0;
		for (uint32_t k = 0; k < b->nslices; k++) {
			const struct slice *s = &b->slices[k];
			if (s->hi == s->lo)
				continue;
			for (; opened <= (s->hi - 1) >> PROPAGATE_PART_BITS; opened++)
				open_part(b, opened);
			visit_slice(b, s, true, plan->run_bytes);
			for (; finished < opened && parts[finished].hi <= s->hi; finished++)
				finish_part(b, finished, &parts[finished]);
		}
		return;
	}
	/* Half the limit: the rest of the run (the runs of matrix read, the
	 * views of the vectors) stays within it too; with all of it, 10^7
	 * pages under -m 256M peaked at 272 MiB. */
	const uint64_t sort = (PART_PAGES + 1) * 8, room = limit / 2 > sort ? limit / 2 - sort : 0;
	for (uint64_t j0 = 0, j1; j0 < np; j0 = j1) {
		uint64_t bytes = part_build_bytes(b, j0);
		for (j1 = j0 + 1; j1 < np && bytes + part_build_bytes(b, j1) <= room; j1++)
			bytes += part_build_bytes(b, j1);
		for (uint64_t j = j0; j < j1; j++)
			open_part(b, j);
		for (uint32_t k = 0; k < b->nslices; k++)
			visit_slice(b, &b->slices[k], true, plan->run_bytes);
		for (uint64_t j = j0; j < j1; j++)
			finish_part(b, j, &parts[j]);
	}
}

/* On disk, every pair of parts with links between them cost a write a
 * sweep before the changes were written in groups.  Pairs of fewer links
 * than this on average cost more than the slices saved: 10^8 pages and
 * 2*10^8 links in 1526 parts, 86 links a pair, took 4.02 s an iteration
 * against 4.17 s by the slices, and a slower start; at 2^24 pages, 2550
 * links a pair, 0.76 to 0.82 s against 1.64 to 1.76 s, side by side.
 * Groups cut the writes, so the limit is now cautious. */
#define FILES_MIN_PAIR_LINKS 256

static bool
worth_files(const struct propagation *pb)
{
	uint64_t pairs = 0;
	for (uint64_t k = 0; k < pb->parts * pb->parts; k++)
		pairs += pb->gather_off[k + 1] > pb->gather_off[k];
	return pb->gather_off[pb->parts * pb->parts] >= pairs * FILES_MIN_PAIR_LINKS;
}

/* Consecutive parts grouped while their changes take at most limit
 * bytes; a part that alone takes more is a group of its own, and writes
 * its blocks as it goes. */
static void
group_parts(struct propagation *pb, uint64_t limit)
{
	const uint64_t np = pb->parts, *row = pb->scatter_off;
	uint64_t most = 0;
	pb->group_end = wa_calloc(np, sizeof *pb->group_end);
	for (uint64_t g0 = 0, g1; g0 < np; g0 = g1, pb->groups++) {
		for (g1 = g0 + 1; g1 < np && (row[(g1 + 1) * np] - row[g0 * np]) * 2 <= limit; g1++)
			;
		for (uint64_t i = g0; i < g1; i++)
			pb->group_end[i] = g1;
		if (g1 - g0 > 1 && (row[g1 * np] - row[g0 * np]) * 2 > most)
			most = (row[g1 * np] - row[g0 * np]) * 2;
	}
	if (most) {
		pb->pending = wa_reallocarray(NULL, most / 2, sizeof *pb->pending);
		pb->pending_col = wa_calloc(np + 1, sizeof *pb->pending_col);
	}
}

bool
propagation_build(struct propagation *pb, const struct graph *g, const struct rank_plan *plan,
    struct slice *slices, bool inverted, bool on_disk, uint64_t limit, struct slice **parts_out)
{
	const uint64_t n = g->nodes, np = part_count(n);
	memset(pb, 0, sizeof *pb);
	pb->nodes = n;
	pb->parts = np;
	pb->on_disk = on_disk;
	pb->stale_scale = 1;
	pb->gather_off = wa_calloc(np * np + 1, sizeof *pb->gather_off);
	pb->scatter_off = wa_calloc(np * np + 1, sizeof *pb->scatter_off);
	struct build b = { .pb = pb, .inverted = inverted, .slices = slices,
	    .nslices = g->slices };
	b.internal = wa_calloc(np + 1, sizeof *b.internal);
	for (uint32_t k = 0; k < g->slices; k++)
		visit_slice(&b, &slices[k], false, plan->run_bytes);

	/* Offsets: the block lengths in gather order, then the same lengths
	 * in scatter order. */
	for (uint64_t j = 0; j < np; j++)
		for (uint64_t i = 0; i < np; i++)
			pb->scatter_off[i * np + j + 1] = pb->gather_off[j * np + i + 1];
	for (uint64_t k = 0; k < np * np; k++) {
		pb->gather_off[k + 1] += pb->gather_off[k];
		pb->scatter_off[k + 1] += pb->scatter_off[k];
	}
	for (uint64_t j = 0; j < np; j++)
		b.internal[j + 1] += b.internal[j];
	if (on_disk && (build_peak(&b) > limit || !worth_files(pb))) {
		free(b.buf);
		free(b.internal);
		free(pb->gather_off);
		free(pb->scatter_off);
		memset(pb, 0, sizeof *pb);
		return false;
	}

	/* The changes, written by every thread at once, in as many files as
	 * there can be. */
	stream_open(&pb->dst, pb, on_disk, 1, 2);
	stream_open(&pb->src, pb, on_disk, 1, 2);
	stream_open(&pb->change, pb, on_disk,
	    np < PROPAGATION_FILES_MAX ? (unsigned)np : PROPAGATION_FILES_MAX, 2);
	if (on_disk) {
		pb->internal.files = 1;
		pb->internal.start[1] = b.internal[np] * 4;
		pb->internal.fd[0] = rank_temp_file(b.internal[np] * 4);
	}
	rank_vector_new(plan, n, &pb->sent);
	rank_vector_new(plan, n, &pb->received);
	pb->part_change = wa_calloc(PART_PAGES, sizeof *pb->part_change);

	struct slice *parts = wa_calloc(np, sizeof *parts);
	for (uint64_t j = 0; j < np; j++) {
		struct slice *part = &parts[j];
		part->k = (uint32_t)j;
		part->fd = -1;
		part->path = wa_asprintf("%s: a temporary file of propagation blocking",
		    rank_temp_dir());
		part->lo = j * PART_PAGES;
		part->hi = part->lo + part_width(pb, j);
		part->bits = slice_bits(part->hi - part->lo);
	}
	b.open = wa_calloc(np, sizeof *b.open);
	build_parts(&b, plan, parts, limit);
	free(b.open);
	free(b.buf);
	free(b.internal);
	if (on_disk)
		group_parts(pb, plan->group_bytes);
	*parts_out = parts;
	return true;
}

uint64_t
propagation_split(const struct propagation *pb, bool gather, uint64_t part, unsigned t,
    unsigned nt)
{
	const uint64_t *off = (gather ? pb->gather_off : pb->scatter_off) + part * pb->parts;
	uint64_t want = (off[pb->parts] - off[0]) * t / nt, lo = 0, hi = pb->parts;
	if (t == 0)
		return 0;
	while (lo < hi) {
		uint64_t mid = (lo + hi) / 2;
		if (off[mid] - off[0] < want)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void
propagation_window_open(const struct propagation *pb, struct propagation_window *w)
{
	memset(w, 0, sizeof *w);
	if (!pb->on_disk)
		return;
	w->index = wa_reallocarray(NULL, WINDOW_LINKS, sizeof *w->index);
	w->change = wa_reallocarray(NULL, WINDOW_LINKS, sizeof *w->change);
}

void
propagation_window_close(struct propagation_window *w)
{
	free(w->index);
	free(w->change);
	memset(w, 0, sizeof *w);
}

/* The links [k, end) of the gather order into acc, their changes from
 * the stream, or from held (the change of link k first) if not NULL. */
static void
gather_links(const struct propagation *pb, uint64_t k, uint64_t end, const uint16_t *held,
    double *acc, struct propagation_window *w)
{
	for (uint64_t step; k < end; k += step) {
		step = pb->on_disk && end - k > WINDOW_LINKS ? WINDOW_LINKS : end - k;
		const uint16_t *dst = stream_get(&pb->dst, k * 2, step * 2, w->index);
		const uint16_t *change = held ? held : stream_get(&pb->change, k * 2, step * 2,
		    w->change);
		for (uint64_t l = 0; l < step; l++)
			acc[dst[l]] += propagation_unpack(change[l]);
		if (held)
			held += step;
	}
}

/* The links into part j from parts [i0, i1): the changes of the parts
 * held in memory read there, those of the others from the stream. */
static void
gather_parts(const struct propagation *pb, uint64_t j, uint64_t i0, uint64_t i1,
    double *acc, struct propagation_window *w)
{
	const uint64_t *off = pb->gather_off + j * pb->parts;
	uint64_t lo = pb->pending_lo > i0 ? pb->pending_lo : i0;
	uint64_t hi = pb->pending_hi < i1 ? pb->pending_hi : i1;
	if (lo >= hi) {
		gather_links(pb, off[i0], off[i1], NULL, acc, w);
		return;
	}
	gather_links(pb, off[i0], off[lo], NULL, acc, w);
	gather_links(pb, off[lo], off[hi],
	    pb->pending + pb->pending_col[j] + (off[lo] - off[pb->pending_lo]), acc, w);
	gather_links(pb, off[hi], off[i1], NULL, acc, w);
}

void
propagation_gather(const struct propagation *pb, uint64_t j, uint64_t i0, uint64_t i1,
    const double *received, double *acc, struct propagation_window *w)
{
	uint64_t width = part_width(pb, j);
	bool first = received != NULL;
	if (first)
		memcpy(acc, received, width * sizeof *acc);
	else
		memset(acc, 0, width * sizeof *acc);
	/* What came before this sweep, the parts after j sending last in the
	 * sweep before, is scaled as the vector was at its end. */
	uint64_t after = i0 > j + 1 ? i0 : j + 1;
	if (after < i1)
		gather_parts(pb, j, after, i1, acc, w);
	if (pb->stale_scale != 1 && (first || after < i1))
		for (uint64_t d = 0; d < width; d++)
			acc[d] *= pb->stale_scale;
	uint64_t before = i1 < j ? i1 : j;
	if (i0 < before)
		gather_parts(pb, j, i0, before, acc, w);
}

void
propagation_receive(const struct propagation *pb, uint64_t j, double *const *acc, unsigned nt,
    double *received)
{
	uint64_t width = part_width(pb, j);
	for (uint64_t d = 0; d < width; d++) {
		double sum = acc[0][d];
		for (unsigned t = 1; t < nt; t++)
			sum += acc[t][d];
		received[d] = sum;
	}
}

void
propagation_send(struct propagation *pb, uint64_t i, const double *x_part, double *sent)
{
	uint64_t width = part_width(pb, i);
	for (uint64_t d = 0; d < width; d++)
		pb->part_change[d] = propagation_change(x_part[d], &sent[d], pb->stale_scale);
}

void
propagation_clear(struct propagation *pb)
{
	struct propagation_stream *s = &pb->change;
	pb->pending_lo = pb->pending_hi = 0;
	if (s->mem) {
		memset(s->mem, 0, pb->gather_off[pb->parts * pb->parts] * sizeof(uint16_t));
		return;
	}
	/* A file cut to nothing and grown again reads as zeros. */
	for (unsigned f = 0; f < s->files; f++)
		if (ftruncate(s->fd[f], 0) != 0 ||
		    ftruncate(s->fd[f], (off_t)(s->start[f + 1] - s->start[f])) != 0)
			wa_die_errno("%s: cannot clear a temporary file of propagation blocking",
			    rank_temp_dir());
}

void
propagation_scatter_begin(struct propagation *pb, uint64_t i)
{
	if (!pb->group_end)
		return;	/* in memory */
	const uint64_t np = pb->parts, g1 = pb->group_end[i];
	bool first = i == 0 || pb->group_end[i - 1] == i;
	if (first && g1 == i + 1)
		return;	/* alone in its group */
	if (first) {
		pb->pending_lo = i;
		for (uint64_t j = 0; j < np; j++)
			pb->pending_col[j + 1] = pb->pending_col[j] +
			    pb->gather_off[j * np + g1] - pb->gather_off[j * np + i];
	}
	pb->pending_hi = i + 1;
}

/* The changes held for the group whose last part has just scattered,
 * written a column of [j0, j1) at a time. */
static void
write_group(struct propagation *pb, uint64_t j0, uint64_t j1)
{
	const uint64_t np = pb->parts;
	for (uint64_t j = j0; j < j1; j++)
		if (pb->pending_col[j + 1] > pb->pending_col[j])
			stream_put(&pb->change, pb->gather_off[j * np + pb->pending_lo] * 2,
			    pb->pending + pb->pending_col[j],
			    (pb->pending_col[j + 1] - pb->pending_col[j]) * 2);
}

void
propagation_scatter(struct propagation *pb, uint64_t i, uint64_t j0, uint64_t j1,
    struct propagation_window *w)
{
	const uint64_t np = pb->parts, *row = pb->scatter_off + i * np;
	const uint16_t *change = pb->part_change;
	if (!pb->on_disk) {
		for (uint64_t j = j0; j < j1; j++) {
			const uint16_t *src = (const uint16_t *)pb->src.mem + row[j];
			uint16_t *out = (uint16_t *)pb->change.mem + pb->gather_off[j * np + i];
			for (uint64_t l = 0; l < row[j + 1] - row[j]; l++)
				out[l] = change[src[l]];
		}
		return;
	}
	/* The row read a window at a time, each block's part of it held with
	 * the group's (propagation_scatter_begin), or written where part j
	 * gathers. */
	const bool held = pb->pending_hi == i + 1;
	uint64_t j = j0;
	for (uint64_t k = row[j0], step; k < row[j1]; k += step) {
		step = row[j1] - k > WINDOW_LINKS ? WINDOW_LINKS : row[j1] - k;
		const uint16_t *src = stream_get(&pb->src, k * 2, step * 2, w->index);
		for (uint64_t at = k, end; at < k + step; at = end) {
			while (row[j + 1] <= at)
				j++;
			end = row[j + 1] < k + step ? row[j + 1] : k + step;
			uint16_t *out = held ? pb->pending + pb->pending_col[j] +
			    pb->gather_off[j * np + i] - pb->gather_off[j * np + pb->pending_lo] +
			    (at - row[j]) : w->change + (at - k);
			for (uint64_t l = at; l < end; l++)
				out[l - at] = change[src[l - k]];
			if (!held)
				stream_put(&pb->change, (pb->gather_off[j * np + i] + at - row[j]) * 2,
				    out, (end - at) * 2);
		}
	}
	if (held && pb->group_end[i] == i + 1)
		write_group(pb, j0, j1);
}

void
propagation_free(struct propagation *pb)
{
	free(pb->gather_off);
	free(pb->scatter_off);
	stream_close(&pb->dst);
	stream_close(&pb->src);
	stream_close(&pb->change);
	stream_close(&pb->internal);
	vec_free(&pb->sent);
	vec_free(&pb->received);
	free(pb->part_change);
	free(pb->group_end);
	free(pb->pending);
	free(pb->pending_col);
	memset(pb, 0, sizeof *pb);
}
