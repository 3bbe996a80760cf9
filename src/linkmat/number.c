/* Numbering: the node lines from GNU sort, merged in SURT order with the
 * old graph's nodes, give the ids, the types, the (id, hash) map and the
 * URL lines of the new nodes (linkmat.h). */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "linkmat.h"
#include "wa.h"
#include "workdir.h"

struct evidence {
	int type;		/* from the pages stream, -1 if none */
	bool fetched, xml_link;
};

/* When pages rows disagree on a URL's type, a parsed type wins over a
 * failed parse, and XML over the others (higher is preferred). */
static const int type_rank[PAGE_TYPES] = {
	[PAGE_UNKNOWN] = 0, [PAGE_ERROR] = 1, [PAGE_DEAD] = 2, [PAGE_OTHER] = 3,
	[PAGE_HTML] = 4, [PAGE_NOINDEX] = 5, [PAGE_DTD] = 6, [PAGE_XML] = 7,
	[PAGE_SITEMAP] = 8, [PAGE_ROBOTS] = 9,
};

static void
evidence_add(struct evidence *ev, char c)
{
	if (c >= EV_PAGE && c < EV_PAGE + PAGE_TYPES && c != EV_PAGE + PAGE_XML_SUSPECT) {
		int t = c - EV_PAGE;
		if (ev->type < 0 || type_rank[t] > type_rank[ev->type])
			ev->type = t;
		ev->fetched = true;
	} else if (c == EV_SOURCE) {
		ev->fetched = true;
	} else if (c == EV_XML_TARGET) {
		ev->xml_link = true;
	} else if (c != EV_TARGET) {
		wa_die("internal error: evidence '%c'", c);
	}
}

/* The type of a node: the pages stream's, else the old graph's for a page
 * fetched before (old_type -1 for a new node), else an XML suspect, a file
 * that is no document by its suffix (other), or unknown.  A suspect stays
 * one. */
static int
node_type(const struct evidence *ev, int old_type, const char *url)
{
	bool known = old_type > PAGE_UNKNOWN && old_type != PAGE_XML_SUSPECT;
	/* An error is a failed read, most often passing: it hides no type
	 * known before. */
	if (ev && ev->type >= 0 && !(ev->type == PAGE_ERROR && known))
		return ev->type;
	if (known)
		return old_type;
	if (old_type == PAGE_XML_SUSPECT || (ev && ev->xml_link) || page_xml_suspect(url, false))
		return PAGE_XML_SUSPECT;
	return page_not_document(url) ? PAGE_OTHER : PAGE_UNKNOWN;
}

/* The lines of the node sort (NODE_HTTP), a URL at a time. */
struct node_lines {
	FILE *in;
	char *line;
	size_t cap;
	ssize_t len;		/* of the line read ahead, -1 at the end */
	/* Of the current node; a key of URL_MAX bytes would give back a URL
	 * of up to 7 more, and no line is trusted to hold less. */
	char surt[URL_BUFSIZE], url[URL_BUFSIZE + 7];
	size_t surt_len, url_len;
	struct evidence ev;
	bool have;
};

/* Checks a line "SURT<TAB>SE\n"; the length of its SURT key. */
static size_t
node_line_key(const struct node_lines *nl)
{
	if (nl->len < 5 || nl->len - 4 > URL_MAX || nl->line[nl->len - 1] != '\n' ||
	    nl->line[nl->len - 4] != '\t' ||
	    (nl->line[nl->len - 3] != NODE_HTTP && nl->line[nl->len - 3] != NODE_HTTPS))
		wa_die("internal error: bad node line from sort: %.200s", nl->line);
	return (size_t)nl->len - 4;
}

static void
node_lines_next(struct node_lines *nl)
{
	nl->have = nl->len >= 0;
	if (!nl->have)
		return;
	size_t klen = node_line_key(nl);
	memcpy(nl->surt, nl->line, klen);
	nl->surt[klen] = '\0';
	nl->surt_len = klen;
	nl->url_len = url_from_surt(nl->surt, nl->line[klen + 1] == NODE_HTTPS, nl->url);
	if (nl->url_len == 0)
		wa_die("internal error: bad node line from sort: %.200s", nl->line);
	nl->ev = (struct evidence){ .type = -1 };
	evidence_add(&nl->ev, nl->line[klen + 2]);
	/* The lines of one URL differ only in their evidence. */
	char scheme = nl->line[klen + 1];
	while ((nl->len = getline(&nl->line, &nl->cap, nl->in)) >= 0) {
		size_t k = node_line_key(nl);
		if (k != klen || nl->line[k + 1] != scheme || memcmp(nl->line, nl->surt, k) != 0)
			break;
		evidence_add(&nl->ev, nl->line[k + 2]);
	}
}

/* The old graph's nodes in id order, with their URLs read through a few
 * windows of its urls file: in id order the URLs of a host are in order in
 * that file too, in one region a scheme. */
#define URL_WINDOWS 16
#define URL_WINDOW_BYTES (64u << 10)

struct old_nodes {
	uint64_t n, i;
	struct bin_in urloff, types;
	int urls_fd;
	char *urls_path;
	uint64_t urls_bytes;
	struct {
		uint64_t lo, len, used;
		char *buf;
	} win[URL_WINDOWS];
	uint64_t clock;
	char surt[URL_BUFSIZE], url[URL_BUFSIZE];
	char prev_surt[URL_BUFSIZE], prev_url[URL_BUFSIZE];
	size_t url_len;
	uint64_t off;
	int type;
	bool have;
};

static const char *
old_url_at(struct old_nodes *o, uint64_t off, size_t *len)
{
	if (off >= o->urls_bytes)
		wa_die("%s: an offset in urloff (%" PRIu64 ") is past the URLs", o->urls_path,
		    off);
	int w, lru = 0;
	for (w = 0; w < URL_WINDOWS; w++) {
		if (o->win[w].buf && off >= o->win[w].lo && off < o->win[w].lo + o->win[w].len) {
			const char *p = o->win[w].buf + (off - o->win[w].lo);
			const char *nl = memchr(p, '\n', o->win[w].lo + o->win[w].len - off);
			if (nl) {
				o->win[w].used = ++o->clock;
				*len = (size_t)(nl - p);
				return p;
			}
		}
		if (o->win[w].used < o->win[lru].used)
			lru = w;
	}
	w = lru;
	if (!o->win[w].buf)
		o->win[w].buf = wa_malloc(URL_WINDOW_BYTES);
	uint64_t want = o->urls_bytes - off < URL_WINDOW_BYTES ? o->urls_bytes - off :
	    URL_WINDOW_BYTES;
	if (pread_full(o->urls_fd, o->win[w].buf, want, BIN_HEADER_BYTES + off) != (ssize_t)want)
		wa_die_errno("%s: read error", o->urls_path);
	o->win[w].lo = off;
	o->win[w].len = want;
	o->win[w].used = ++o->clock;
	const char *nl = memchr(o->win[w].buf, '\n', want);
	if (!nl || nl == o->win[w].buf || nl - o->win[w].buf > URL_MAX)
		wa_die("%s: no URL at offset %" PRIu64, o->urls_path, off);
	*len = (size_t)(nl - o->win[w].buf);
	return o->win[w].buf;
}

static void
old_nodes_open(struct old_nodes *o, const struct graph *g)
{
	memset(o, 0, sizeof *o);
	o->n = g->nodes;
	old_member(g, GF_URLOFF, 8, &o->urloff);
	old_member(g, GF_TYPES, 1, &o->types);
	o->urls_path = graph_path(g, graph_file_names[GF_URLS]);
	struct bin_reader r;
	const char *msg = bin_reader_open(&r, o->urls_path, "URLS", GRAPH_VERSION, 0);
	if (msg)
		wa_die("%s", msg);
	if (r.h.payload_crc != g->file_crc[GF_URLS] || r.h.count != g->nodes)
		wa_die("%s: not the file the manifest lists", o->urls_path);
	o->urls_bytes = r.h.payload_bytes;
	bin_reader_close(&r);
	o->urls_fd = open(o->urls_path, O_RDONLY | O_CLOEXEC);
	if (o->urls_fd < 0)
		wa_die_errno("%s", o->urls_path);
}

static void
old_nodes_next(struct old_nodes *o)
{
	o->have = o->i < o->n;
	if (!o->have)
		return;
	uint8_t type;
	bin_in_read(&o->urloff, &o->off, 8);
	bin_in_read(&o->types, &type, 1);
	if (type >= PAGE_TYPES)
		wa_die("%s: type %u of id %" PRIu64 " is no page type", o->types.r.path, type,
		    o->i);
	o->type = type;
	if (o->i > 0) {
		memcpy(o->prev_surt, o->surt, strlen(o->surt) + 1);
		memcpy(o->prev_url, o->url, o->url_len + 1);
	}
	const char *url = old_url_at(o, o->off, &o->url_len);
	memcpy(o->url, url, o->url_len);
	o->url[o->url_len] = '\0';
	if (!url_surt(o->url, o->surt))
		wa_die("%s: id %" PRIu64 ": '%.200s' is no canonical URL", o->urls_path, o->i,
		    o->url);
	/* The merge with the new nodes needs the old ids in SURT order. */
	if (o->i > 0 && url_surt_cmp(o->prev_surt, o->prev_url, o->surt, o->url) >= 0)
		wa_die("%s: ids %" PRIu64 " and %" PRIu64 " are not in SURT order",
		    o->urls_path, o->i - 1, o->i);
	o->i++;
}

static void
old_nodes_close(struct old_nodes *o)
{
	bin_in_close(&o->urloff);
	bin_in_close(&o->types);
	close(o->urls_fd);
	free(o->urls_path);
	for (int w = 0; w < URL_WINDOWS; w++)
		free(o->win[w].buf);
}

static uint32_t
new_id(struct linkmat *lm)
{
	if (lm->n == GRAPH_MAX_NODES)
		wa_die("more than %u nodes: graph ids are 32-bit", GRAPH_MAX_NODES);
	return (uint32_t)lm->n++;
}

static void
put_type(struct linkmat *lm, int type)
{
	uint8_t t = (uint8_t)type;
	graph_writer_put(&lm->types, &t, 1);
}

static void
map_add(struct linkmat *lm, uint32_t id, const char *url, size_t len)
{
	uint8_t rec[12];
	put32(rec, id);
	put64(rec + 4, url_hash(url, len));
	extsort_add(lm->map, rec);
}

static void
number_new(struct linkmat *lm, const struct node_lines *nl)
{
	uint32_t id = new_id(lm);
	put_type(lm, node_type(&nl->ev, -1, nl->url));
	map_add(lm, id, nl->url, nl->url_len);
	/* "URL<TAB>id\n", the id written by hand: printf took a tenth of
	 * the numbering. */
	char tail[16], *p = tail + sizeof tail;
	*--p = '\n';
	uint32_t v = id;
	do
		*--p = (char)('0' + v % 10);
	while ((v /= 10));
	*--p = '\t';
	fwrite_unlocked(nl->url, 1, nl->url_len, lm->urls.in);
	fwrite_unlocked(p, 1, (size_t)(tail + sizeof tail - p), lm->urls.in);
}

/* An old node, with what this cycle says of it, if anything. */
static void
number_old(struct linkmat *lm, const struct old_nodes *o, const struct node_lines *nl)
{
	uint32_t id = new_id(lm);
	uint64_t old = o->i - 1;
	put_type(lm, node_type(nl ? &nl->ev : NULL, o->type, o->url));
	if (nl) {
		map_add(lm, id, o->url, o->url_len);
		if (nl->ev.fetched)
			lm->fetched[old / 64] |= UINT64_C(1) << (old % 64);
	}
	u32file_append(&lm->oldmap, id);
	uint8_t rec[12];
	put32(rec, id);
	put64(rec + 4, o->off);
	extsort_add(lm->oldurl, rec);
}

void
linkmat_number(struct linkmat *lm)
{
	struct node_lines nl = { .in = lm->nodes.out };
	struct old_nodes o;

	lm->map = extsort_new("URL hashes", workdir_path(), 12, SHARE(lm, 1, 16), 0);
	/* On one thread, as the sort of the node lines (read.c). */
	sorter_start(&lm->urls, "URLs", SHARE(lm, 1, 16), 1,
	    workdir_path(), false, -1);
	graph_writer_open(&lm->types, workdir_path(), "types", graph_file_kinds[GF_TYPES]);
	if (lm->old_path) {
		uint64_t words = (lm->old.nodes + 63) / 64;
		if (words * 8 > SHARE(lm, 1, 8))
			wa_die("-m %" PRIu64 "K is too small to update a graph of %" PRIu64
			    " nodes: give at least %" PRIu64 "K", lm->budget >> 10, lm->old.nodes,
			    (words * 64 >> 10) + 1);
		lm->fetched = wa_calloc(words ? words : 1, sizeof *lm->fetched);
		u32file_open(&lm->oldmap, workdir_path());
		lm->oldurl = extsort_new("old URLs", workdir_path(), 12, SHARE(lm, 1, 16), 0);
		old_nodes_open(&o, &lm->old);
		old_nodes_next(&o);
	} else {
		o.have = false;
	}
	progress_start(&lm->pg, "nodes", 0);
	nl.len = getline(&nl.line, &nl.cap, nl.in);
	node_lines_next(&nl);
	while (nl.have || o.have) {
		int c = !o.have ? 1 : !nl.have ? -1 :
		    url_surt_cmp(o.surt, o.url, nl.surt, nl.url);
		if (c <= 0) {
			number_old(lm, &o, c == 0 ? &nl : NULL);
			if (c == 0)
				node_lines_next(&nl);
			old_nodes_next(&o);
		} else {
			number_new(lm, &nl);
			node_lines_next(&nl);
		}
		progress_set(&lm->pg, lm->n);
	}
	progress_end(&lm->pg);
	free(nl.line);
	sorter_finish(&lm->nodes);
	if (lm->old_path) {
		old_nodes_close(&o);
		u32file_flush(&lm->oldmap);
		extsort_finish(lm->oldurl);
	}
	sorter_close_input(&lm->urls);
	graph_writer_commit(&lm->types, lm->n, NULL);
	extsort_finish(lm->map);
	verbose("numbered %" PRIu64 " nodes", lm->n);
	sort_done("URL hashes", lm->map);
	phase_done(lm, "numbering");
}

