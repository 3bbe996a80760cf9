/* The frontier of the URL tree: its superpages (sec. 4.4) as key ranges,
 * their weights and the superpage graph.
 *
 * Each node of the tree is a contiguous range of SURT keys, so that a
 * frontier of superpages is a list of key ranges:
 *   domain "com,example"   keys from "com,example)" to "com,example-"
 *                          (the host itself and all its subdomains)
 *   host "com,example)"    keys from "com,example)" to "com,example*"
 *   directory "H)/a/"      keys that start with "H)/a/"
 *   leaf "H)/a/x?q"        that key alone (the query stays in the leaf)
 * A node's tokens, compared as strings, are in the order of their ranges.
 * The superpage graph has at most one entry per pair of linked
 * superpages. */
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "partition.h"

/* The first key of the range of the node prefix (of kind kind). */
static char *
range_first(const char *prefix, size_t len, enum kind kind)
{
	return kind == K_DOMAIN ? wa_asprintf("%.*s)", (int)len, prefix) :
	    wa_strndup(prefix, len);
}

/* The first key after the node's range. */
static char *
range_end(const struct node *n)
{
	switch (n->kind) {
	case K_DOMAIN:
		return wa_asprintf("%s-", n->prefix);
	case K_HOST:
		return wa_asprintf("%.*s*", (int)n->len - 1, n->prefix);
	case K_DIR:
		return wa_asprintf("%.*s0", (int)n->len - 1, n->prefix);
	case K_LEAF:
		/* No canonical key holds a byte below '!'. */
		return wa_asprintf("%s!", n->prefix);
	case K_ROOT:
		break;
	}
	wa_die("internal error: the root has no end");
}

static uint32_t
superpage_new(struct partition *p)
{
	if (p->nsp == p->sp_cap) {
		p->sp_cap = p->sp_cap ? 2 * p->sp_cap : 1024;
		p->sp = wa_reallocarray(p->sp, p->sp_cap, sizeof *p->sp);
	}
	p->sp[p->nsp] = (struct superpage){ .part = UINT32_MAX };
	return (uint32_t)p->nsp++;
}

/* Appends a piece; one that starts where the last one did replaces it. */
static void
piece_add(struct partition *p, char *key, uint32_t superpage)
{
	if (p->npieces && strcmp(p->pieces[p->npieces - 1].key, key) == 0) {
		free(p->pieces[p->npieces - 1].key);
		p->npieces--;
	}
	if (p->npieces == p->pieces_cap) {
		p->pieces_cap = p->pieces_cap ? 2 * p->pieces_cap : 1024;
		p->pieces = wa_reallocarray(p->pieces, p->pieces_cap, sizeof *p->pieces);
	}
	p->pieces[p->npieces++] = (struct piece){ key, superpage };
}

uint32_t
unit_new(struct partition *p, uint32_t lo, uint32_t hi)
{
	p->units = wa_reallocarray(p->units, p->nunits + 1, sizeof *p->units);
	p->units[p->nunits] = (struct unit){ lo, hi, NULL, 0 };
	return (uint32_t)p->nunits++;
}

static void
unit_add_kid(struct partition *p, uint32_t u, uint32_t kid)
{
	struct unit *un = &p->units[u];
	un->kid = wa_reallocarray(un->kid, un->nkid + 1, sizeof *un->kid);
	un->kid[un->nkid++] = kid;
}

/* The frontier in key order: each node's intervals, with its singleton
 * children's ranges cut out of them.  Returns the node's unit. */
static uint32_t
walk(struct partition *p, struct node *n)
{
	uint32_t u = unit_new(p, (uint32_t)p->nsp, 0);
	uint32_t cur = superpage_new(p);
	unit_add_kid(p, u, unit_new(p, cur, cur + 1));
	piece_add(p, range_first(n->prefix, n->len, n->kind), cur);
	size_t c = 0, s = 0;
	while (c < n->nchild || s < n->nsplit) {
		char *child_first = c < n->nchild ? range_first(n->child[c]->prefix,
		    n->child[c]->len, n->child[c]->kind) : NULL;
		if (s < n->nsplit && (!child_first || strcmp(n->split[s], child_first) < 0)) {
			cur = superpage_new(p);
			unit_add_kid(p, u, unit_new(p, cur, cur + 1));
			piece_add(p, n->split[s++], cur);
		} else {
			char *end = range_end(n->child[c]);
			unit_add_kid(p, u, walk(p, n->child[c++]));
			piece_add(p, end, cur);
		}
		free(child_first);
	}
	free(n->split);
	free(n->child);
	free(n);
	p->units[u].hi = (uint32_t)p->nsp;
	return u;
}

uint32_t
frontier_walk(struct partition *p)
{
	uint32_t top = walk(p, p->root);
	strmap_free(&p->nodes, NULL);
	return top;
}

uint32_t
superpage_of(const struct partition *p, const char *key)
{
	return p->pieces[find_range(p->piece_keys, p->npieces, key)].sp;
}

/* An open-addressing map from a pair of superpages to its links. */
struct pair {
	uint64_t key;	/* (a << 32 | b) + 1, a < b; 0 for an empty slot */
	double links;
};

struct pair_map {
	struct pair *slot;
	size_t cap, n;
};

static void
pair_add(struct pair_map *m, uint32_t a, uint32_t b)
{
	if (2 * (m->n + 1) > m->cap) {
		size_t old = m->cap;
		struct pair *p = m->slot;
		m->cap = old ? 2 * old : 4096;
		m->slot = wa_calloc(m->cap, sizeof *m->slot);
		m->n = 0;
		for (size_t i = 0; i < old; i++)
			if (p[i].key) {
				size_t j = (size_t)(p[i].key * HASH_GOLDEN64) & (m->cap - 1);
				while (m->slot[j].key)
					j = (j + 1) & (m->cap - 1);
				m->slot[j] = p[i];
				m->n++;
			}
		free(p);
	}
	uint64_t key = ((uint64_t)(a < b ? a : b) << 32 | (a < b ? b : a)) + 1;
	size_t j = (size_t)(key * HASH_GOLDEN64) & (m->cap - 1);
	while (m->slot[j].key && m->slot[j].key != key)
		j = (j + 1) & (m->cap - 1);
	if (!m->slot[j].key) {
		m->slot[j].key = key;
		m->n++;
	}
	m->slot[j].links++;
}

/* The links between superpages, by pair. */
static void
count_links(struct partition *p, struct pair_map *m)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	if (fseek(p->link_file, 0, SEEK_SET) != 0)
		wa_die_errno("temporary link file");
	while ((n = getline(&line, &cap, p->link_file)) > 0) {
		line[n - 1] = '\0';
		char *dst = strchr(line, '\t');
		*dst++ = '\0';
		uint32_t a = superpage_of(p, line), b = superpage_of(p, dst);
		if (a != b)
			pair_add(m, a, b);
	}
	if (ferror(p->link_file))
		wa_die_errno("temporary link file");
	free(line);
}

/* adj[]: each pair of m in the edges of both its superpages. */
static void
build_graph(struct partition *p, const struct pair_map *m)
{
	struct superpage *sp = p->sp;
	uint32_t *deg = wa_calloc(p->nsp + 1, sizeof *deg);
	for (size_t i = 0; i < m->cap; i++)
		if (m->slot[i].key) {
			deg[(m->slot[i].key - 1) >> 32]++;
			deg[(uint32_t)(m->slot[i].key - 1)]++;
		}
	uint32_t at = 0;
	for (size_t i = 0; i < p->nsp; i++) {
		sp[i].adj_start = sp[i].adj_end = at;
		at += deg[i];
	}
	p->adj = wa_calloc(at + 1, sizeof *p->adj);
	for (size_t i = 0; i < m->cap; i++)
		if (m->slot[i].key) {
			uint32_t a = (uint32_t)((m->slot[i].key - 1) >> 32);
			uint32_t b = (uint32_t)(m->slot[i].key - 1);
			p->adj[sp[a].adj_end++] = (struct edge){ b, m->slot[i].links };
			p->adj[sp[b].adj_end++] = (struct edge){ a, m->slot[i].links };
		}
	free(deg);
}

/* Weights of the superpages, and the superpage graph (sec. 4.3:
 * super-hyperlinks S_ij, here without direction). */
void
frontier_measure(struct partition *p)
{
	struct pair_map pairs = { 0 };
	char *line = NULL;
	size_t cap = 0, keylen;
	double w;

	p->piece_keys = wa_calloc(p->npieces, sizeof *p->piece_keys);
	for (size_t i = 0; i < p->npieces; i++) {
		p->piece_keys[i] = p->pieces[i].key;
		if (!p->sp[p->pieces[i].sp].first)
			p->sp[p->pieces[i].sp].first = p->pieces[i].key;
	}
	pages_rewind(p);
	while (pages_next(p, &line, &cap, &keylen, &w))
		p->sp[superpage_of(p, line)].weight += w;
	free(line);

	if (p->link_file)
		count_links(p, &pairs);
	build_graph(p, &pairs);
	free(pairs.slot);
}

void
partition_free(struct partition *p)
{
	for (size_t i = 0; i < p->npieces; i++)
		free(p->pieces[i].key);
	free(p->pieces);
	free(p->piece_keys);
	free(p->sp);
	free(p->adj);
	free(p->min_key);
	free(p->open_nodes);
	for (size_t i = 0; i < p->nunits; i++)
		free(p->units[i].kid);
	free(p->units);
	for (size_t i = 0; i < p->nrate_rows; i++)
		free(p->rate_rows[i].prefix);
	free(p->rate_rows);
	fclose(p->page_file);
	if (p->link_file)
		fclose(p->link_file);
}
