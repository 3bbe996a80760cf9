/* The old graph in update mode (linkmat.h): its files read in order, the
 * new id of each old id, and its links that stay. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "linkmat.h"
#include "wa.h"

/* Bytes of an old file read at a time. */
#define BIN_IN_BLOCK (1u << 20)

static void
bin_in_open(struct bin_in *s, const char *path, const char *kind, size_t rec)
{
	const char *msg = bin_reader_open(&s->r, path, kind, GRAPH_VERSION, rec);
	if (msg)
		wa_die("%s", msg);
	s->buf = wa_malloc(BIN_IN_BLOCK);
	s->have = s->at = 0;
	s->consumed = 0;
}

/* Keeps the unread bytes and reads more after them; false at the end. */
static bool
bin_in_fill(struct bin_in *s)
{
	if (s->r.left == 0)
		return false;
	memmove(s->buf, s->buf + s->at, s->have - s->at);
	s->have -= s->at;
	s->at = 0;
	size_t got;
	const char *msg = bin_read(&s->r, s->buf + s->have, BIN_IN_BLOCK - s->have, &got);
	if (msg)
		wa_die("%s", msg);
	s->have += got;
	return true;
}

void
bin_in_read(struct bin_in *s, void *out, size_t n)
{
	while (s->have - s->at < n)
		if (!bin_in_fill(s))
			wa_die("%s: the payload ends early", s->r.path);
	memcpy(out, s->buf + s->at, n);
	s->at += n;
	s->consumed += n;
}

void
bin_in_close(struct bin_in *s)
{
	if (s->r.left != 0)
		wa_die("internal error: %s closed before its end", s->r.path);
	bin_reader_close(&s->r);
	free(s->buf);
	s->buf = NULL;
}

void
u32file_open(struct u32file *f, const char *dir)
{
	f->dir = dir;
	f->fd = scratch_open(dir, ".oldmap");
	f->buf = wa_calloc(U32FILE_WINDOW, sizeof *f->buf);
	f->n = 0;
	f->count = 0;
	f->win_lo = f->win_n = 0;
}

void
u32file_flush(struct u32file *f)
{
	if (!pwrite_full(f->fd, f->buf, f->n * 4, (f->count - f->n) * 4))
		wa_die_errno("%s: cannot write to the scratch space", f->dir);
	f->n = 0;
}

/* Reads ids [lo, lo + n) into out. */
static void
u32file_read(const struct u32file *f, uint64_t lo, uint64_t n, uint32_t *out)
{
	size_t bytes = n * 4;
	if (pread_full(f->fd, out, bytes, lo * 4) != (ssize_t)bytes)
		wa_die_errno("%s: cannot read back the scratch space", f->dir);
}

static uint32_t
u32file_get(struct u32file *f, uint64_t i)
{
	if (i < f->win_lo || i >= f->win_lo + f->win_n) {
		f->win_lo = i;
		f->win_n = f->count - i < U32FILE_WINDOW ? f->count - i : U32FILE_WINDOW;
		u32file_read(f, i, f->win_n, f->buf);
	}
	return f->buf[i - f->win_lo];
}

static void
u32file_close(struct u32file *f)
{
	close(f->fd);
	free(f->buf);
}

/* Opens a per-node file of the old graph for reading in order, checked
 * against its manifest. */
void
old_member(const struct graph *g, enum graph_file f, size_t rec, struct bin_in *in)
{
	char *path = graph_path(g, graph_file_names[f]);
	bin_in_open(in, path, graph_file_kinds[f], rec);
	if (in->r.h.payload_crc != g->file_crc[f])
		wa_die("%s: not the file the manifest lists (payload CRC %08x, manifest %08x)",
		    path, in->r.h.payload_crc, g->file_crc[f]);
	if (in->r.h.count != g->nodes)
		wa_die("%s: %" PRIu64 " records, the graph has %" PRIu64, path, in->r.h.count,
		    g->nodes);
	free(path);
}

size_t
bin_in_line(struct bin_in *s, char *out)
{
	char *nl;
	while (!(nl = memchr(s->buf + s->at, '\n', s->have - s->at)))
		if (!bin_in_fill(s))
			wa_die("%s: the last URL has no newline", s->r.path);
	size_t n = (size_t)(nl - (char *)(s->buf + s->at));
	if (n == 0 || n > URL_MAX)
		wa_die("%s: a URL of %zu bytes at payload byte %" PRIu64, s->r.path, n,
		    s->consumed);
	memcpy(out, s->buf + s->at, n);
	out[n] = '\0';
	s->at += n + 1;
	s->consumed += n + 1;
	return n;
}

static bool
is_fetched(const struct linkmat *lm, uint64_t old)
{
	return lm->fetched[old / 64] >> (old % 64) & 1;
}

/* One pass over old slice k for the destinations [w0, w1): the links of
 * pages not fetched this cycle go to the matrix with their new ids.  The
 * words are checked as graph.c's reader checks them. */
static void
old_slice_pass(struct linkmat *lm, uint32_t k, uint64_t w0, uint64_t w1, const uint32_t *remap,
    uint32_t *kept)
{
	char *name = graph_slice_name(k), *path = graph_path(&lm->old, name);
	struct bin_in in;
	bin_in_open(&in, path, "SLCE", 0);
	const struct bin_header *h = &in.r.h;
	if (h->payload_crc != lm->old.file_crc[GF_COUNT + k])
		wa_die("%s: not the file the manifest lists (payload CRC %08x, manifest %08x)",
		    path, h->payload_crc, lm->old.file_crc[GF_COUNT + k]);
	uint64_t lo = h->aux[0], hi = h->aux[1];
	if (lo != lm->old.bound[k] || hi != lm->old.bound[k + 1])
		wa_die("%s: covers ids %" PRIu64 " to %" PRIu64 ", the manifest says %" PRIu64
		    " to %" PRIu64, path, lo, hi, lm->old.bound[k], lm->old.bound[k + 1]);
	uint64_t counts[2];
	if (h->payload_bytes < 16)
		wa_die("%s: no block index", path);
	bin_in_read(&in, counts, 16);
	if (counts[0] > (h->payload_bytes - 16) / 12 ||
	    counts[1] > (h->payload_bytes - 16) / 12 - counts[0])
		wa_die("%s: a block index of %" PRIu64 " and %" PRIu64 " entries does not fit the "
		    "payload", path, counts[0], counts[1]);
	uint64_t nb = counts[0] + counts[1], index_bytes = 16 + 12 * nb;
	if ((h->payload_bytes - index_bytes) % 4)
		wa_die("%s: the payload does not end on a word", path);
	uint64_t *boff = wa_calloc(nb + 1, sizeof *boff);
	uint32_t *first = wa_calloc(nb + 1, sizeof *first);
	bin_in_read(&in, boff, 8 * nb);
	bin_in_read(&in, first, 4 * nb);
	boff[nb] = (h->payload_bytes - index_bytes) / 4;
	for (uint64_t i = 0; i < nb; i++)
		if (boff[i] >= boff[i + 1] || (i == 0 && boff[0] != 0))
			wa_die("%s: block %" PRIu64 " starts at word %" PRIu64 ", out of order", path,
			    i, boff[i]);
	unsigned bits = slice_bits(hi - lo);
	uint32_t escape = UINT32_MAX >> bits, mask = (UINT32_C(1) << bits) - 1;
	uint64_t at = 0, links = 0, internal = 0;
	for (uint64_t blk = 0; blk < nb; blk++) {
		bool inner = blk >= counts[0];
		uint64_t major = first[blk];
		while (at < boff[blk + 1]) {
			uint32_t w, delta;
			bin_in_read(&in, &w, 4);
			delta = w >> bits;
			if (delta == escape) {
				if (++at == boff[blk + 1])
					wa_die("%s: block %" PRIu64 ": an escaped word cut short", path,
					    blk);
				bin_in_read(&in, &delta, 4);
			}
			at++;
			major += delta;
			uint64_t src = inner ? lo + (w & mask) : major;
			uint64_t dst = inner ? major : lo + (w & mask);
			if (src >= lm->old.nodes || dst < lo || dst >= hi || (inner && src >= hi))
				wa_die("%s: block %" PRIu64 ": a link %" PRIu64 " -> %" PRIu64
				    " out of the slice", path, blk, src, dst);
			links++;
			internal += inner;
			if (dst < w0 || dst >= w1)
				continue;
			if (is_fetched(lm, src)) {
				lm->old_dropped++;
				continue;
			}
			uint32_t new_src = src >= w0 && src < w1 ? remap[src - w0] :
			    u32file_get(&lm->oldmap, src);
			matrix_add(lm, new_src, remap[dst - w0]);
			kept[dst - w0]++;
			lm->old_kept++;
		}
	}
	if (links != h->count || internal != h->aux[2])
		wa_die("%s: %" PRIu64 " links, %" PRIu64 " internal, the header says %" PRIu64
		    " and %" PRIu64, path, links, internal, h->count, h->aux[2]);
	free(first);
	bin_in_close(&in);
	free(boff);
	free(name);
	free(path);
}

/* Update mode: the links of the old graph whose source was not fetched
 * this cycle.  The old ids of a window of destinations are renumbered
 * through an array; a window is a slice unless the budget says otherwise. */
void
linkmat_keep_old_links(struct linkmat *lm)
{
	uint64_t window = SHARE(lm, 1, 8) / 8;
	uint64_t widest = 1;
	for (uint32_t k = 0; k < lm->old.slices; k++)
		if (lm->old.bound[k + 1] - lm->old.bound[k] > widest)
			widest = lm->old.bound[k + 1] - lm->old.bound[k];
	if (window > widest)
		window = widest;
	uint32_t *remap = wa_calloc(window, sizeof *remap);
	uint32_t *kept = wa_calloc(window, sizeof *kept);
	progress_start(&lm->pg, "old slices", lm->old.slices);
	for (uint32_t k = 0; k < lm->old.slices; k++) {
		uint64_t lo = lm->old.bound[k], hi = lm->old.bound[k + 1];
		for (uint64_t w0 = lo; w0 < hi; w0 += window) {
			uint64_t w1 = hi - w0 < window ? hi : w0 + window;
			u32file_read(&lm->oldmap, w0, w1 - w0, remap);
			memset(kept, 0, (w1 - w0) * sizeof *kept);
			old_slice_pass(lm, k, w0, w1, remap, kept);
			/* Unless the degrees are counted from the matrix. */
			for (uint64_t i = 0; i < w1 - w0 && lm->indeg; i++)
				if (kept[i])
					degree_add(lm->indeg, remap[i], kept[i]);
		}
		progress_set(&lm->pg, k + 1);
	}
	progress_end(&lm->pg);
	free(remap);
	free(kept);

	/* The pages not fetched keep all their old links: their old
	 * out-degree (unless the degrees are counted from the matrix), which
	 * adds up to the links kept. */
	struct bin_in od;
	uint64_t kept_out = 0;
	old_member(&lm->old, GF_OUTDEG, 4, &od);
	for (uint64_t i = 0; i < lm->old.nodes; i++) {
		uint32_t d;
		bin_in_read(&od, &d, 4);
		if (!d || is_fetched(lm, i))
			continue;
		kept_out += d;
		if (lm->outdeg)
			degree_add(lm->outdeg, u32file_get(&lm->oldmap, i), d);
	}
	if (kept_out != lm->old_kept)
		wa_die("%s: the out-degrees of the pages not fetched add up to %" PRIu64
		    " links, their slices hold %" PRIu64, od.r.path, kept_out, lm->old_kept);
	bin_in_close(&od);
	u32file_close(&lm->oldmap);
	free(lm->fetched);
	lm->fetched = NULL;
	phase_done(lm, "old links");
}
