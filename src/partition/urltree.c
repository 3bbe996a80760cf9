/* The URL tree of Teng et al. (sec. 4.2) in SURT key order (wa-formats(5),
 * "SURT keys"), grown in rounds: each pass over the page file gathers per
 * open node a visit counter, the hot tokens and a weighted sample of the
 * tokens (sec. 5.1), and each such node then makes its singleton and
 * interval expansions with Delta = W / (k delta) (sec. 5.2).
 *
 * A node only grows a child for a token of weight Delta or more, so a
 * level of the tree has at most about k delta nodes, each with HOT_MAX hot
 * tokens and SAMPLE_MAX samples, or SAMPLES_PER_INTERVAL per interval when
 * it needs more: at most about 16 k delta samples a level. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "heap.h"
#include "partition.h"

#define HOT_MAX 200
#define SAMPLE_MAX 200
/* A node cut into more intervals than SAMPLE_MAX samples place well gets
 * another round with this many samples per interval. */
#define SAMPLES_PER_INTERVAL 16

static inline bool
smaller_key(const struct token *a, const struct token *b)
{
	return a->weight < b->weight;
}

HEAP_DEFINE(sample_heap, struct token, smaller_key)

/* The end of the token that follows a node's prefix key[0..len) in key,
 * and the kind of node it leads to; 0 if the key ends at the node. */
static size_t
token_end(const char *key, size_t keylen, size_t len, enum kind kind, enum kind *child)
{
	size_t i = len;
	switch (kind) {
	case K_DOMAIN:
		if (key[i] == ')') {
			*child = K_HOST;
			return i + 1;
		}
		i++;	/* the ',' before the next label */
		/* FALLTHROUGH */
	case K_ROOT:
		i += strcspn(key + i, ",)");
		*child = K_DOMAIN;
		return i;
	case K_HOST:
	case K_DIR:
		if (i == keylen)
			return 0;
		while (i < keylen && key[i] != '/' && key[i] != '?')
			i++;
		if (i < keylen && key[i] == '/') {
			*child = K_DIR;
			return i + 1;
		}
		*child = K_LEAF;
		return keylen;
	case K_LEAF:
		break;
	}
	return 0;
}

static void
open_node(struct partition *p, struct node *n)
{
	p->open_nodes = wa_reallocarray(p->open_nodes, p->nopen + 1, sizeof *p->open_nodes);
	p->open_nodes[p->nopen++] = n;
}

static struct node *
node_new(struct partition *p, const char *key, size_t len, enum kind kind)
{
	struct node *n = wa_calloc(1, sizeof *n);
	char *prefix = wa_strndup(key, len);
	n->prefix = strmap_put(&p->nodes, prefix, n);
	free(prefix);
	n->len = len;
	n->kind = kind;
	n->open = true;
	n->hot = wa_calloc(HOT_MAX, sizeof *n->hot);
	n->sample_cap = SAMPLE_MAX;
	n->sample = wa_calloc(n->sample_cap, sizeof *n->sample);
	open_node(p, n);
	return n;
}

/* Weighted reservoir sampling (Efraimidis and Spirakis' A-Res): keeps
 * the sample_cap visits with the largest log(u) / weight. */
static void
sample_offer(struct partition *p, struct node *n, const char *tok, size_t len,
    enum kind kind, double w)
{
	double u = ((double)(hash_splitmix64(&p->rng_state) >> 11) + 1) / 9007199254740993.0;
	double key = log(u) / w;
	if (n->nsample < n->sample_cap) {
		sample_heap_push(n->sample, &n->nsample,
		    (struct token){ wa_strndup(tok, len), key, 0, 0, kind });
		return;
	}
	if (key <= n->sample[0].weight)
		return;
	free(n->sample[0].text);
	n->sample[0] = (struct token){ wa_strndup(tok, len), key, 0, 0, kind };
	sample_heap_sift_down(n->sample, n->nsample, 0);
}

/* The hot tokens by the Space-Saving algorithm (Metwally et al.): a token
 * not in the table replaces the lightest one and inherits its count, which
 * is remembered as the token's possible error. */
static void
hot_count(struct node *n, const char *tok, size_t len, enum kind kind, double w)
{
	uint32_t h = hash_fnv1a32(tok, len);
	size_t lightest = 0;
	for (size_t i = 0; i < n->nhot; i++) {
		struct token *t = &n->hot[i];
		if (t->hash == h && strncmp(t->text, tok, len) == 0 && t->text[len] == '\0') {
			t->weight += w;
			return;
		}
		if (t->weight < n->hot[lightest].weight)
			lightest = i;
	}
	if (n->nhot < HOT_MAX) {
		n->hot[n->nhot++] = (struct token){ wa_strndup(tok, len), w, 0, h, kind };
		return;
	}
	struct token *t = &n->hot[lightest];
	free(t->text);
	*t = (struct token){ wa_strndup(tok, len), t->weight + w, t->weight, h, kind };
}

/* Pushes a page down the expansion: returns the deepest node whose range
 * holds it; *end is the end of the next token, 0 if the key ends there. */
static struct node *
descend(struct partition *p, char *key, size_t keylen, size_t *end, enum kind *kind)
{
	struct node *n = p->root;
	for (;;) {
		size_t e = token_end(key, keylen, n->len, n->kind, kind);
		*end = e;
		if (e == 0 || n->nchild == 0)
			return n;
		char saved = key[e];
		key[e] = '\0';
		struct node *c = strmap_get(&p->nodes, key);
		key[e] = saved;
		if (!c)
			return n;
		n = c;
	}
}

static int
token_cmp(const void *a, const void *b)
{
	return strcmp(((const struct token *)a)->text, ((const struct token *)b)->text);
}

static int
node_cmp(const void *a, const void *b)
{
	return strcmp((*(struct node *const *)a)->prefix, (*(struct node *const *)b)->prefix);
}

/* The singleton expansions of n: its hot tokens sure to weigh big;
 * returns the weight they leave. */
static double
expand_singletons(struct partition *p, struct node *n, double big)
{
	double rest = n->visits;
	for (size_t i = 0; i < n->nhot; i++) {
		struct token *t = &n->hot[i];
		/* Only a token sure to weigh Delta is expanded. */
		if (t->weight - t->error >= big && n->kind != K_LEAF) {
			size_t len = strlen(t->text);
			char *key = wa_asprintf("%s%s", n->prefix, t->text);
			struct node *c = node_new(p, key, n->len + len, t->kind);
			free(key);
			n->child = wa_reallocarray(n->child, n->nchild + 1, sizeof *n->child);
			n->child[n->nchild++] = c;
			rest -= t->weight - t->error;
		}
	}
	if (n->nchild)
		qsort(n->child, n->nchild, sizeof *n->child, node_cmp);
	return rest;
}

/* Cuts what the singletons leave into intervals at evenly spaced tokens
 * of the sample s[0..ns), sorted. */
static void
expand_intervals(struct node *n, const struct token *s, size_t ns, size_t intervals)
{
	if (intervals > ns)
		intervals = ns ? ns : 1;
	n->split = wa_calloc(intervals, sizeof *n->split);
	for (size_t j = 1; j < intervals; j++) {
		const struct token *t = &s[j * ns / intervals];
		char *first = wa_asprintf("%s%s%s", n->prefix, t->text,
		    t->kind == K_DOMAIN ? ")" : "");
		if (n->nsplit && strcmp(n->split[n->nsplit - 1], first) == 0)
			free(first);
		else
			n->split[n->nsplit++] = first;
	}
}

/* Superpage creation (sec. 5.2) at one node after a round. */
static void
create_superpages(struct partition *p, struct node *n, double big)
{
	size_t grown = n->nchild;
	double rest = expand_singletons(p, n, big);

	/* What the singletons leave goes into intervals of weight about
	 * Delta, cut at evenly spaced tokens of the sample; the sample's
	 * tokens of the new singletons leave it (the hot tokens that stay
	 * were sampled with the others). */
	struct token *s = n->sample;
	size_t ns = 0;
	for (size_t i = 0; i < n->nsample; i++) {
		char *key = wa_asprintf("%s%s", n->prefix, s[i].text);
		if (strmap_get(&p->nodes, key))
			free(s[i].text);
		else
			s[ns++] = s[i];
		free(key);
	}
	qsort(s, ns, sizeof *s, token_cmp);
	size_t intervals = big > 0 && rest > big ? (size_t)(rest / big) : 1;
	bool again = SAMPLES_PER_INTERVAL * intervals > ns && (n->nchild > grown ||
	    n->sample_cap < SAMPLES_PER_INTERVAL * intervals);
	if (!again)
		expand_intervals(n, s, ns, intervals);
	for (size_t i = 0; i < ns; i++)
		free(s[i].text);
	for (size_t i = 0; i < n->nhot; i++)
		free(n->hot[i].text);
	n->nhot = n->nsample = 0;
	if (again) {
		/* More heavy tokens than the table could hold, or more
		 * intervals than samples: another round on what is left,
		 * with samples enough to cut it evenly. */
		if (n->nchild == grown) {
			n->sample_cap = SAMPLES_PER_INTERVAL * intervals;
			n->sample = wa_reallocarray(n->sample, n->sample_cap, sizeof *n->sample);
		}
		n->visits = 0;
		open_node(p, n);
		return;
	}
	free(n->hot);
	free(n->sample);
	n->hot = n->sample = NULL;
	n->open = false;
}

/* The rounds of the expansion: each pass over the pages gathers the
 * statistics of the nodes made by the last round, and each of these nodes
 * then makes its singleton and interval expansions. */
unsigned
tree_build(struct partition *p)
{
	double big = p->total_weight / ((double)p->nparts * p->delta);
	char *line = NULL;
	size_t cap = 0, keylen;
	double w;
	unsigned round;

	p->rng_state = HASH_GOLDEN64;
	strmap_init(&p->nodes);
	p->root = node_new(p, "", 0, K_ROOT);
	for (round = 0; p->nopen; round++) {
		progress_note(&p->pg, "round %u: %zu nodes", round + 1, p->nopen);
		pages_rewind(p);
		while (pages_next(p, &line, &cap, &keylen, &w)) {
			size_t end;
			enum kind kind;
			struct node *n = descend(p, line, keylen, &end, &kind);
			if (!n->open)
				continue;
			n->visits += w;
			if (end == 0)
				continue;
			hot_count(n, line + n->len, end - n->len, kind, w);
			sample_offer(p, n, line + n->len, end - n->len, kind, w);
		}
		struct node **batch = p->open_nodes;
		size_t nbatch = p->nopen;
		p->open_nodes = NULL;
		p->nopen = 0;
		for (size_t i = 0; i < nbatch; i++)
			create_superpages(p, batch[i], big);
		free(batch);
	}
	free(line);
	return round;
}
