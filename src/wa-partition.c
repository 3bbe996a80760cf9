/* wa-partition: splits the URL space among k crawlers by superpages of the
 * URL tree, and tags URL streams with the part of each URL (-a).
 *
 * Follows seed 001 (Teng et al., Collaborative Web Crawling): the URL tree
 * of sec. 4.2 in the SURT order of DESIGN.md, superpages as the frontier
 * of singleton and interval expansions (sec. 4.4), per node a visit
 * counter, the hot tokens and a random sample of the unmatched tokens
 * (sec. 5.1), superpage creation with Delta = W / (k delta) (sec. 5.2),
 * and Partition I and II with local improvement (sec. 5.3).  The rules
 * file is man/wa-formats.5 "Partition rules".
 *
 * Partition II is run from four starts, each locally improved by moves
 * and then exchanges of superpages, and the best kept: the paper's greedy
 * on superpages; the same greedy on whole subtrees (sites, directories)
 * that splits only what does not fit; runs of superpages in key order;
 * and a multilevel partition of the superpage graph (Karypis and Kumar's
 * scheme, the coarsening of seed 001 sec. 3), which places sites that
 * link to each other together wherever they are in key order.  A crawler
 * that ends within the tolerance of the ideal time counts as on time, so
 * that crossing links decide among balanced choices: the paper's min max
 * T_i alone would trade any number of crossing links for the last page
 * of balance.
 *
 * Each node of the tree is a contiguous range of SURT keys, so that a
 * frontier of superpages is a list of key ranges:
 *   domain "com,example"   keys from "com,example)" to "com,example-"
 *                          (the host itself and all its subdomains)
 *   host "com,example)"    keys from "com,example)" to "com,example*"
 *   directory "H)/a/"      keys that start with "H)/a/"
 *   leaf "H)/a/x?q"        that key alone (the query stays in the leaf)
 * A node's tokens, compared as strings, are in the order of their ranges.
 *
 * Memory: the distinct URLs are found by GNU sort (sorter.h) and kept on
 * disk with the links as SURT keys; the tree is built in rounds, one
 * sequential pass over the pages each, and a node only grows a child for a
 * token of weight Delta or more, so a level of the tree has at most about
 * k delta nodes, each with HOT_MAX hot tokens and SAMPLE_MAX samples, or
 * SAMPLES_PER_INTERVAL per interval when it needs more: at most about
 * 16 k delta samples a level.  The superpage graph has at most one entry
 * per pair of linked superpages. */
#include <float.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sorter.h"
#include "strmap.h"
#include "url.h"
#include "wa.h"

static const char usage[] =
    "usage: wa-partition -k PARTS [-quv] [-d DELTA] [-p 1|2] [-c COMM] [-t TOL]\n"
    "                    [-m SIZE] [-w WEIGHTS] [-r RATES] [-P PREVIOUS] [-o RULES]\n"
    "                    [LINKS...]\n"
    "       wa-partition -a RULES [-q] [URLS...]\n"
    "Splits the URLs of a links TSV (src, dst; or a URL list) among PARTS\n"
    "crawlers by superpages of the URL tree and writes the partition rules\n"
    "(SURT key, part).  With -a, appends the part of each row's first-column URL.\n"
    "  -k PARTS     number of crawlers\n"
    "  -d DELTA     superpage threshold: Delta = W / (PARTS * DELTA)\n"
    "               (default the larger of 20 and 6400 / PARTS)\n"
    "  -p ALGO      1: Partition I (load only); 2: Partition II, load and\n"
    "               crossing links (default 2)\n"
    "  -c COMM      crossing links handled in the time of one page (default 1000)\n"
    "  -m SIZE      memory for sorting the URLs (default 256M)\n"
    "  -w WEIGHTS   TSV url, weight sorted by url: page weights (default 1)\n"
    "  -r RATES     TSV part, SURT key prefix, rate: crawler speeds (default 1)\n"
    "  -P PREVIOUS  re-partition: keep PREVIOUS rules' parts where balanced\n"
    "  -t TOL       a part may end TOL later than the ideal time to save\n"
    "               crossing links; -P keeps parts within it (default 0.04)\n"
    "  -u           the input is a URL list (first column), not links\n"
    "  -o RULES     write the rules there (atomically) instead of stdout\n"
    "  -a RULES     tag mode: append the part to each row\n"
    "  -q  no progress line;  -v  figures of each part;  -h  this help;  --version\n"
    "See wa-partition(1).\n";

/* Without -d, delta is 20 (seed 001's "typically, 20 or more") or more, so
 * that there are about this many superpages: Partition II can only place
 * related sites together, or cut a big site along its directories, when
 * they are superpages of their own. */
#define SUPERPAGES_MIN 6400
#define HOT_MAX 200
#define SAMPLE_MAX 200
/* A node cut into more intervals than SAMPLE_MAX samples place well gets
 * another round with this many samples per interval. */
#define SAMPLES_PER_INTERVAL 16
/* The superpage links looked at by the exchanges of one start, at most:
 * about a second of work. */
#define SWAP_WORK 100000000u

enum kind { K_ROOT, K_DOMAIN, K_HOST, K_DIR, K_LEAF };

struct token {
	char *text;		/* the key bytes after the node's prefix */
	double weight;		/* hot: counted weight; sample: A-Res key */
	double error;		/* hot: the most weight counted that was not its own */
	uint32_t hash;
	enum kind kind;		/* of the child it would make */
};

struct node {
	const char *prefix;	/* the key up to the end of the node's token */
	size_t len;
	enum kind kind;
	bool open;		/* gathering statistics this round */
	double visits;
	struct token *hot;	/* HOT_MAX, while open */
	size_t nhot;
	struct token *sample;	/* a min-heap by A-Res key */
	size_t nsample, sample_cap;
	struct node **child;	/* singleton expansions */
	size_t nchild;
	char **split;		/* first keys of the 2nd, 3rd... intervals */
	size_t nsplit;
};

/* A key range of the frontier: from key to the next piece's key. */
struct piece {
	char *key;
	uint32_t sp;		/* its superpage */
};

struct superpage {
	double weight;
	const char *first;	/* the first key of its first piece */
	uint32_t part;
	uint32_t adj_start, adj_end;	/* in adj[] */
};

struct edge {
	uint32_t to;
	double links;		/* both directions */
};

/* Rules as read from a file: sorted keys, each with its part. */
struct rules {
	char **key;
	uint32_t *part;
	size_t n;
	uint32_t nparts;
};

struct rate_row {
	uint32_t part;
	char *prefix;
	double rate;
};

static uint32_t nparts;
static double delta, comm = 1000, tolerance = 0.04;
static int algorithm = 2;
static uint64_t sort_memory = 256 << 20;
static const char *weights_path, *rates_path, *previous_path, *out_path;
static struct progress pg;

static struct strmap nodes;
static struct node *root;
static struct node **open_nodes;
static size_t nopen;

static struct piece *pieces;
static size_t npieces, pieces_cap;
static struct superpage *sp;
static size_t nsp, sp_cap;
static struct edge *adj;

static FILE *page_file, *link_file;
static uint64_t npages, nlinks;
static double total_weight;
static char *min_key;

static struct rate_row *rate_rows;
static size_t nrate_rows;

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t
rng_next(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint32_t
hash_bytes(const char *s, size_t n)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

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

static struct node *
node_new(const char *key, size_t len, enum kind kind)
{
	struct node *n = wa_calloc(1, sizeof *n);
	char *prefix = wa_strndup(key, len);
	n->prefix = strmap_put(&nodes, prefix, n);
	free(prefix);
	n->len = len;
	n->kind = kind;
	n->open = true;
	n->hot = wa_calloc(HOT_MAX, sizeof *n->hot);
	n->sample_cap = SAMPLE_MAX;
	n->sample = wa_calloc(n->sample_cap, sizeof *n->sample);
	open_nodes = wa_reallocarray(open_nodes, nopen + 1, sizeof *open_nodes);
	open_nodes[nopen++] = n;
	return n;
}

static void
sample_sift_down(struct token *h, size_t n, size_t i)
{
	for (;;) {
		size_t m = i, l = 2 * i + 1, r = l + 1;
		if (l < n && h[l].weight < h[m].weight)
			m = l;
		if (r < n && h[r].weight < h[m].weight)
			m = r;
		if (m == i)
			return;
		struct token t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

/* Weighted reservoir sampling (Efraimidis and Spirakis' A-Res): keeps
 * the sample_cap visits with the largest log(u) / weight. */
static void
sample_offer(struct node *n, const char *tok, size_t len, enum kind kind, double w)
{
	double u = ((double)(rng_next() >> 11) + 1) / 9007199254740993.0;
	double key = log(u) / w;
	if (n->nsample < n->sample_cap) {
		struct token *t = &n->sample[n->nsample++];
		*t = (struct token){ wa_strndup(tok, len), key, 0, 0, kind };
		for (size_t i = n->nsample - 1; i > 0 && n->sample[(i - 1) / 2].weight > n->sample[i].weight; i = (i - 1) / 2) {
			struct token s = n->sample[i];
			n->sample[i] = n->sample[(i - 1) / 2];
			n->sample[(i - 1) / 2] = s;
		}
		return;
	}
	if (key <= n->sample[0].weight)
		return;
	free(n->sample[0].text);
	n->sample[0] = (struct token){ wa_strndup(tok, len), key, 0, 0, kind };
	sample_sift_down(n->sample, n->nsample, 0);
}

/* The hot tokens by the Space-Saving algorithm (Metwally et al.): a token
 * not in the table replaces the lightest one and inherits its count, which
 * is remembered as the token's possible error. */
static void
hot_count(struct node *n, const char *tok, size_t len, enum kind kind, double w)
{
	uint32_t h = hash_bytes(tok, len);
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
descend(char *key, size_t keylen, size_t *end, enum kind *kind)
{
	struct node *n = root;
	for (;;) {
		size_t e = token_end(key, keylen, n->len, n->kind, kind);
		*end = e;
		if (e == 0 || n->nchild == 0)
			return n;
		char saved = key[e];
		key[e] = '\0';
		struct node *c = strmap_get(&nodes, key);
		key[e] = saved;
		if (!c)
			return n;
		n = c;
	}
}

/* Reads the next "key TAB weight" line of the page file. */
static bool
next_page(char **line, size_t *cap, size_t *keylen, double *w)
{
	ssize_t n = getline(line, cap, page_file);
	if (n < 0) {
		if (ferror(page_file))
			wa_die_errno("temporary page file");
		return false;
	}
	char *tab = strrchr(*line, '\t');
	*tab = '\0';
	*keylen = (size_t)(tab - *line);
	*w = strtod(tab + 1, NULL);
	return true;
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

/* Superpage creation (seed 001 sec. 5.2) at one node after a round. */
static void
create_superpages(struct node *n, double big)
{
	double rest = n->visits;
	size_t grown = n->nchild;
	for (size_t i = 0; i < n->nhot; i++) {
		struct token *t = &n->hot[i];
		/* Only a token sure to weigh Delta is expanded. */
		if (t->weight - t->error >= big && n->kind != K_LEAF) {
			size_t len = strlen(t->text);
			char *key = wa_asprintf("%s%s", n->prefix, t->text);
			struct node *c = node_new(key, n->len + len, t->kind);
			free(key);
			n->child = wa_reallocarray(n->child, n->nchild + 1, sizeof *n->child);
			n->child[n->nchild++] = c;
			rest -= t->weight - t->error;
		}
	}
	if (n->nchild)
		qsort(n->child, n->nchild, sizeof *n->child, node_cmp);

	/* What the singletons leave goes into intervals of weight about
	 * Delta, cut at evenly spaced tokens of the sample; the sample's
	 * tokens of the new singletons leave it (the hot tokens that stay
	 * were sampled with the others). */
	struct token *s = n->sample;
	size_t ns = 0;
	for (size_t i = 0; i < n->nsample; i++) {
		char *key = wa_asprintf("%s%s", n->prefix, s[i].text);
		if (strmap_get(&nodes, key))
			free(s[i].text);
		else
			s[ns++] = s[i];
		free(key);
	}
	qsort(s, ns, sizeof *s, token_cmp);
	size_t intervals = big > 0 && rest > big ? (size_t)(rest / big) : 1;
	if (SAMPLES_PER_INTERVAL * intervals > ns && (n->nchild > grown ||
	    n->sample_cap < SAMPLES_PER_INTERVAL * intervals)) {
		/* More heavy tokens than the table could hold, or more
		 * intervals than samples: another round on what is left,
		 * with samples enough to cut it evenly. */
		for (size_t i = 0; i < ns; i++)
			free(s[i].text);
		for (size_t i = 0; i < n->nhot; i++)
			free(n->hot[i].text);
		if (n->nchild == grown) {
			n->sample_cap = SAMPLES_PER_INTERVAL * intervals;
			n->sample = wa_reallocarray(n->sample, n->sample_cap, sizeof *n->sample);
		}
		n->nhot = n->nsample = 0;
		n->visits = 0;
		open_nodes = wa_reallocarray(open_nodes, nopen + 1, sizeof *open_nodes);
		open_nodes[nopen++] = n;
		return;
	}
	if (intervals > ns)
		intervals = ns ? ns : 1;
	n->split = wa_calloc(intervals, sizeof *n->split);
	for (size_t j = 1; j < intervals; j++) {
		struct token *t = &s[j * ns / intervals];
		char *first = wa_asprintf("%s%s%s", n->prefix, t->text,
		    t->kind == K_DOMAIN ? ")" : "");
		if (n->nsplit && strcmp(n->split[n->nsplit - 1], first) == 0)
			free(first);
		else
			n->split[n->nsplit++] = first;
	}
	for (size_t i = 0; i < ns; i++)
		free(s[i].text);
	for (size_t i = 0; i < n->nhot; i++)
		free(n->hot[i].text);
	free(n->hot);
	free(n->sample);
	n->hot = n->sample = NULL;
	n->nhot = n->nsample = 0;
	n->open = false;
}

/* The rounds of the expansion: each pass over the pages gathers the
 * statistics of the nodes made by the last round, and each of these nodes
 * then makes its singleton and interval expansions. */
static unsigned
build_tree(void)
{
	double big = total_weight / ((double)nparts * delta);
	char *line = NULL;
	size_t cap = 0, keylen;
	double w;
	unsigned round;

	strmap_init(&nodes);
	root = node_new("", 0, K_ROOT);
	for (round = 0; nopen; round++) {
		progress_note(&pg, "round %u: %zu nodes", round + 1, nopen);
		if (fseek(page_file, 0, SEEK_SET) != 0)
			wa_die_errno("temporary page file");
		while (next_page(&line, &cap, &keylen, &w)) {
			size_t end;
			enum kind kind;
			struct node *n = descend(line, keylen, &end, &kind);
			if (!n->open)
				continue;
			n->visits += w;
			if (end == 0)
				continue;
			hot_count(n, line + n->len, end - n->len, kind, w);
			sample_offer(n, line + n->len, end - n->len, kind, w);
		}
		struct node **batch = open_nodes;
		size_t nbatch = nopen;
		open_nodes = NULL;
		nopen = 0;
		for (size_t i = 0; i < nbatch; i++)
			create_superpages(batch[i], big);
		free(batch);
	}
	free(line);
	return round;
}

static uint32_t
superpage_new(void)
{
	if (nsp == sp_cap) {
		sp_cap = sp_cap ? 2 * sp_cap : 1024;
		sp = wa_reallocarray(sp, sp_cap, sizeof *sp);
	}
	sp[nsp] = (struct superpage){ .part = UINT32_MAX };
	return (uint32_t)nsp++;
}

/* Appends a piece; one that starts where the last one did replaces it. */
static void
piece_add(char *key, uint32_t superpage)
{
	if (npieces && strcmp(pieces[npieces - 1].key, key) == 0) {
		free(pieces[npieces - 1].key);
		npieces--;
	}
	if (npieces == pieces_cap) {
		pieces_cap = pieces_cap ? 2 * pieces_cap : 1024;
		pieces = wa_reallocarray(pieces, pieces_cap, sizeof *pieces);
	}
	pieces[npieces++] = (struct piece){ key, superpage };
}

/* A unit of the greedy: a node's subtree (the superpages lo..hi-1, which
 * walk numbers in a row) with its kids, or one superpage (no kids). */
struct unit {
	uint32_t lo, hi;
	uint32_t *kid;
	size_t nkid;
};
static struct unit *units;
static size_t nunits;

static uint32_t
unit_new(uint32_t lo, uint32_t hi)
{
	units = wa_reallocarray(units, nunits + 1, sizeof *units);
	units[nunits] = (struct unit){ lo, hi, NULL, 0 };
	return (uint32_t)nunits++;
}

static void
unit_add_kid(uint32_t u, uint32_t kid)
{
	units[u].kid = wa_reallocarray(units[u].kid, units[u].nkid + 1, sizeof *units[u].kid);
	units[u].kid[units[u].nkid++] = kid;
}

/* The frontier in key order: each node's intervals, with its singleton
 * children's ranges cut out of them.  Returns the node's unit. */
static uint32_t
walk(struct node *n)
{
	uint32_t u = unit_new((uint32_t)nsp, 0);
	uint32_t cur = superpage_new();
	unit_add_kid(u, unit_new(cur, cur + 1));
	piece_add(range_first(n->prefix, n->len, n->kind), cur);
	size_t c = 0, s = 0;
	while (c < n->nchild || s < n->nsplit) {
		char *child_first = c < n->nchild ? range_first(n->child[c]->prefix,
		    n->child[c]->len, n->child[c]->kind) : NULL;
		if (s < n->nsplit && (!child_first || strcmp(n->split[s], child_first) < 0)) {
			cur = superpage_new();
			unit_add_kid(u, unit_new(cur, cur + 1));
			piece_add(n->split[s++], cur);
		} else {
			char *end = range_end(n->child[c]);
			unit_add_kid(u, walk(n->child[c++]));
			piece_add(end, cur);
		}
		free(child_first);
	}
	free(n->split);
	free(n->child);
	free(n);
	units[u].hi = (uint32_t)nsp;
	return u;
}

/* The index of the range that holds key: the last first key not above
 * it, or the first range for a key before them all. */
static size_t
find_range(char *const *first, size_t n, const char *key)
{
	size_t lo = 0, hi = n;	/* first[lo - 1] <= key < first[hi] */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(first[mid], key) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? lo - 1 : 0;
}

static char **piece_keys;

static uint32_t
superpage_of(const char *key)
{
	return pieces[find_range(piece_keys, npieces, key)].sp;
}

/* An open-addressing map from a pair of superpages to its links. */
struct pair {
	uint64_t key;	/* (a << 32 | b) + 1, a < b; 0 for an empty slot */
	double links;
};
static struct pair *pairs;
static size_t pairs_cap, npairs;

static void
pair_add(uint32_t a, uint32_t b)
{
	if (2 * (npairs + 1) > pairs_cap) {
		size_t old = pairs_cap;
		struct pair *p = pairs;
		pairs_cap = old ? 2 * old : 4096;
		pairs = wa_calloc(pairs_cap, sizeof *pairs);
		npairs = 0;
		for (size_t i = 0; i < old; i++)
			if (p[i].key) {
				size_t j = (size_t)(p[i].key * 0x9e3779b97f4a7c15ull) & (pairs_cap - 1);
				while (pairs[j].key)
					j = (j + 1) & (pairs_cap - 1);
				pairs[j] = p[i];
				npairs++;
			}
		free(p);
	}
	uint64_t key = ((uint64_t)(a < b ? a : b) << 32 | (a < b ? b : a)) + 1;
	size_t j = (size_t)(key * 0x9e3779b97f4a7c15ull) & (pairs_cap - 1);
	while (pairs[j].key && pairs[j].key != key)
		j = (j + 1) & (pairs_cap - 1);
	if (!pairs[j].key) {
		pairs[j].key = key;
		npairs++;
	}
	pairs[j].links++;
}

/* Weights of the superpages, and the superpage graph (seed 001 sec. 4.3:
 * super-hyperlinks S_ij, here without direction). */
static void
measure_superpages(void)
{
	char *line = NULL;
	size_t cap = 0, keylen;
	double w;

	piece_keys = wa_calloc(npieces, sizeof *piece_keys);
	for (size_t i = 0; i < npieces; i++) {
		piece_keys[i] = pieces[i].key;
		if (!sp[pieces[i].sp].first)
			sp[pieces[i].sp].first = pieces[i].key;
	}
	if (fseek(page_file, 0, SEEK_SET) != 0)
		wa_die_errno("temporary page file");
	while (next_page(&line, &cap, &keylen, &w))
		sp[superpage_of(line)].weight += w;

	if (link_file) {
		if (fseek(link_file, 0, SEEK_SET) != 0)
			wa_die_errno("temporary link file");
		ssize_t n;
		while ((n = getline(&line, &cap, link_file)) > 0) {
			line[n - 1] = '\0';
			char *dst = strchr(line, '\t');
			*dst++ = '\0';
			uint32_t a = superpage_of(line), b = superpage_of(dst);
			if (a != b)
				pair_add(a, b);
		}
		if (ferror(link_file))
			wa_die_errno("temporary link file");
	}
	free(line);

	uint32_t *deg = wa_calloc(nsp + 1, sizeof *deg);
	for (size_t i = 0; i < pairs_cap; i++)
		if (pairs[i].key) {
			deg[(pairs[i].key - 1) >> 32]++;
			deg[(uint32_t)(pairs[i].key - 1)]++;
		}
	uint32_t at = 0;
	for (size_t i = 0; i < nsp; i++) {
		sp[i].adj_start = sp[i].adj_end = at;
		at += deg[i];
	}
	adj = wa_calloc(at + 1, sizeof *adj);
	for (size_t i = 0; i < pairs_cap; i++)
		if (pairs[i].key) {
			uint32_t a = (uint32_t)((pairs[i].key - 1) >> 32);
			uint32_t b = (uint32_t)(pairs[i].key - 1);
			adj[sp[a].adj_end++] = (struct edge){ b, pairs[i].links };
			adj[sp[b].adj_end++] = (struct edge){ a, pairs[i].links };
		}
	free(deg);
	free(pairs);
}

/* ---- Partition I and II (seed 001 sec. 5.3) ---- */

static double *load;		/* sum of w_j / r_ij over the part's superpages */
static double *crossing;	/* B_i: links between the part and the others */
static double *linkto;		/* scratch: links of one superpage to each part */
static uint32_t *touched;

/* r_ij: the rate of the longest prefix of the superpage's first key given
 * for the part in -r, or 1. */
static double
rate(uint32_t part, uint32_t j)
{
	double r = 1;
	size_t best = 0;
	for (size_t i = 0; i < nrate_rows; i++) {
		size_t len = strlen(rate_rows[i].prefix);
		if (rate_rows[i].part == part && len >= best &&
		    strncmp(rate_rows[i].prefix, sp[j].first, len) == 0) {
			best = len;
			r = rate_rows[i].rate;
		}
	}
	return r;
}

/* With Partition II, a part that ends within the tolerance of the ideal
 * time is not late: among such assignments the crossing links decide. */
static double on_time;

static double
not_late(double t)
{
	return t > on_time ? t : on_time;
}

static double
part_time(uint32_t i)
{
	return load[i] + (algorithm == 2 ? crossing[i] / comm : 0);
}

/* The two latest ends of the parts once the links gathered in linkto[]
 * cross to them: the latest in *top1 (part *arg1), the next in *top2, so
 * that the latest of the others is known for any one part. */
static void
latest_two(double *top1, double *top2, uint32_t *arg1)
{
	*top1 = *top2 = -INFINITY;
	*arg1 = UINT32_MAX;
	for (uint32_t h = 0; h < nparts; h++) {
		double v = part_time(h) + linkto[h] / comm;
		if (v > *top1) {
			*top2 = *top1;
			*top1 = v;
			*arg1 = h;
		} else if (v > *top2)
			*top2 = v;
	}
}

/* Adds to linkto[] the links of j to the assigned superpages of each part,
 * listing the parts it touches first in touched[*ntouched...]; returns
 * their sum. */
static double
gather_links(uint32_t j, size_t *ntouched)
{
	double sum = 0;
	size_t nt = *ntouched;
	for (uint32_t e = sp[j].adj_start; e < sp[j].adj_end; e++) {
		uint32_t h = sp[adj[e].to].part;
		if (h == UINT32_MAX)
			continue;
		if (linkto[h] == 0)
			touched[nt++] = h;
		linkto[h] += adj[e].links;
		sum += adj[e].links;
	}
	*ntouched = nt;
	return sum;
}

static void
clear_links(size_t nt)
{
	for (size_t i = 0; i < nt; i++)
		linkto[touched[i]] = 0;
}

static void
assign(uint32_t j, uint32_t s)
{
	size_t nt = 0;
	double sum = gather_links(j, &nt);
	sp[j].part = s;
	load[s] += sp[j].weight / rate(s, j);
	crossing[s] += sum - linkto[s];
	for (size_t i = 0; i < nt; i++)
		if (touched[i] != s)
			crossing[touched[i]] += linkto[touched[i]];
	clear_links(nt);
}

static int
weight_desc(const void *a, const void *b)
{
	const struct superpage *x = &sp[*(const uint32_t *)a], *y = &sp[*(const uint32_t *)b];
	if (x->weight != y->weight)
		return x->weight < y->weight ? 1 : -1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

/* The greedy of Partition I (each superpage, heaviest first, to the part
 * that ends soonest with it) and II (to the part that makes the latest
 * end of all parts the soonest, counting the crossing links it adds to
 * every part; ties go to the part it has the most links with). */
static void
greedy(uint32_t *order, size_t n)
{
	for (size_t o = 0; o < n; o++) {
		uint32_t j = order[o], best = 0;
		double best_cost = INFINITY, best_links = -1, best_own = INFINITY;
		size_t nt = 0;
		double sum = gather_links(j, &nt);
		/* The two largest T_h + links to h / c, for max over h != s. */
		double top1 = -INFINITY, top2 = -INFINITY;
		uint32_t arg1 = UINT32_MAX;
		if (algorithm == 2)
			latest_two(&top1, &top2, &arg1);
		for (uint32_t s = 0; s < nparts; s++) {
			double own = load[s] + sp[j].weight / rate(s, j), cost;
			if (algorithm == 2) {
				own += (crossing[s] + sum - linkto[s]) / comm;
				double others = s == arg1 ? top2 : top1;
				cost = not_late(own > others ? own : others);
			} else
				cost = own;
			double slack = 1e-12 * (fabs(best_cost) + 1);
			if (cost < best_cost - slack || (cost <= best_cost + slack &&
			    algorithm == 2 && (linkto[s] > best_links ||
			    (linkto[s] == best_links && own < best_own)))) {
				best = s;
				best_cost = cost;
				best_links = linkto[s];
				best_own = own;
			}
		}
		clear_links(nt);
		assign(j, best);
	}
}

struct item {
	double weight;
	uint32_t unit;
};

static void
heap_push(struct item *heap, size_t *n, double weight, uint32_t unit)
{
	size_t i = (*n)++;
	for (; i > 0 && heap[(i - 1) / 2].weight < weight; i = (i - 1) / 2)
		heap[i] = heap[(i - 1) / 2];
	heap[i] = (struct item){ weight, unit };
}

static double
unit_weight(uint32_t u)
{
	double w = 0;
	for (uint32_t j = units[u].lo; j < units[u].hi; j++)
		w += sp[j].weight;
	return w;
}

/* Partition II on whole subtrees of the URL tree first: the heaviest unit
 * goes where the greedy above would put it, unless that part would be
 * late.  Then a unit with subtrees gives way to its kids; a unit of
 * intervals only (a flat directory) fills the roomiest part in key order
 * and the rest stays one unit.  So a site or a directory is cut only when
 * it does not fit, and then in as few pieces as the room allows. */
static void
greedy_units(uint32_t top)
{
	struct item *heap = wa_calloc(2 * nunits + 1, sizeof *heap);
	size_t n = 0;

	heap[n++] = (struct item){ unit_weight(top), top };
	while (n) {
		struct item it = heap[0];
		heap[0] = heap[--n];
		for (size_t i = 0;;) {	/* sift down, heaviest on top */
			size_t m = i, l = 2 * i + 1, r = l + 1;
			if (l < n && heap[l].weight > heap[m].weight)
				m = l;
			if (r < n && heap[r].weight > heap[m].weight)
				m = r;
			if (m == i)
				break;
			struct item t = heap[i];
			heap[i] = heap[m];
			heap[m] = t;
			i = m;
		}
		if (it.weight == 0)
			continue;
		const struct unit *u = &units[it.unit];
		size_t nt = 0;
		double sum = 0;
		for (uint32_t j = u->lo; j < u->hi; j++)
			sum += gather_links(j, &nt);
		double top1, top2;
		uint32_t arg1, best = 0;
		latest_two(&top1, &top2, &arg1);
		double best_cost = INFINITY, best_links = -1, best_own = INFINITY;
		for (uint32_t s = 0; s < nparts; s++) {
			double own = load[s] + (crossing[s] + sum - linkto[s]) / comm;
			for (uint32_t j = u->lo; j < u->hi; j++)
				if (sp[j].weight > 0)
					own += sp[j].weight / rate(s, j);
			double others = s == arg1 ? top2 : top1;
			double cost = not_late(own > others ? own : others);
			double slack = 1e-12 * (fabs(best_cost) + 1);
			if (cost < best_cost - slack || (cost <= best_cost + slack &&
			    (linkto[s] > best_links || (linkto[s] == best_links && own < best_own)))) {
				best = s;
				best_cost = cost;
				best_links = linkto[s];
				best_own = own;
			}
		}
		clear_links(nt);
		if (best_own <= on_time || u->hi - u->lo == 1) {
			for (uint32_t j = u->lo; j < u->hi; j++)
				if (sp[j].weight > 0)
					assign(j, best);
			continue;
		}
		bool structured = false;
		for (size_t k = 0; k < u->nkid; k++)
			if (units[u->kid[k]].nkid && unit_weight(u->kid[k]) > 0)
				structured = true;
		if (structured) {
			/* Too heavy: its subtrees and intervals take its place. */
			for (size_t k = 0; k < u->nkid; k++)
				heap_push(heap, &n, unit_weight(u->kid[k]), u->kid[k]);
			continue;
		}
		/* Intervals of one node, in key order: the roomiest part takes
		 * as many as fit, the others stay together for another part. */
		uint32_t roomiest = 0, lo = u->lo, hi = u->hi;
		for (uint32_t h = 1; h < nparts; h++)
			if (part_time(h) < part_time(roomiest))
				roomiest = h;
		uint32_t j = lo;
		for (; j < hi; j++) {
			double w = sp[j].weight / rate(roomiest, j);
			if (w > 0 && part_time(roomiest) + w > on_time)
				break;
			if (w > 0)
				assign(j, roomiest);
		}
		if (j == lo)
			assign(j++, best);
		if (j < hi) {
			uint32_t rest = unit_new(j, hi);
			heap_push(heap, &n, unit_weight(rest), rest);
		}
	}
	free(heap);
}

/* Local improvement: moves one superpage at a time while it lowers the
 * latest end max T_i, or (Partition II) keeps it and lowers the number
 * of crossing links. */
static void
improve(void)
{
	for (int pass = 0; pass < 50; pass++) {
		bool moved = false;
		for (uint32_t j = 0; j < nsp; j++) {
			if (sp[j].weight == 0)
				continue;
			/* The three latest parts, for the max over the others. */
			uint32_t top[3] = { UINT32_MAX, UINT32_MAX, UINT32_MAX };
			uint32_t least = 0;
			for (uint32_t h = 0; h < nparts; h++) {
				double t = part_time(h);
				if (t < part_time(least))
					least = h;
				for (int i = 0; i < 3; i++)
					if (top[i] == UINT32_MAX || t > part_time(top[i])) {
						for (int m = 2; m > i; m--)
							top[m] = top[m - 1];
						top[i] = h;
						break;
					}
			}
			double cur_max = algorithm == 2 ? not_late(part_time(top[0])) : part_time(top[0]);
			uint32_t p = sp[j].part;
			size_t nt = 0;
			double sum = gather_links(j, &nt);
			double w_p = sp[j].weight / rate(p, j);
			uint32_t best = UINT32_MAX;
			double best_max = cur_max, best_gain = 0;
			for (size_t c = 0; c <= nt; c++) {
				uint32_t q = c < nt ? touched[c] : least;
				if (q == p)
					continue;
				double tp = load[p] - w_p, tq = load[q] + sp[j].weight / rate(q, j);
				double gain = 0;
				if (algorithm == 2) {
					tp += (crossing[p] - (sum - linkto[p]) + linkto[p]) / comm;
					tq += (crossing[q] + (sum - linkto[q]) - linkto[q]) / comm;
					gain = linkto[q] - linkto[p];
				}
				double m = tp > tq ? tp : tq;
				for (int i = 0; i < 3; i++)
					if (top[i] != UINT32_MAX && top[i] != p && top[i] != q) {
						if (part_time(top[i]) > m)
							m = part_time(top[i]);
						break;
					}
				if (algorithm == 2)
					m = not_late(m);
				double slack = 1e-9 * (cur_max + 1);
				if (m < best_max - slack || (m <= best_max + slack && gain > best_gain)) {
					best = q;
					best_max = m < best_max ? m : best_max;
					best_gain = gain;
				}
			}
			if (best != UINT32_MAX) {
				crossing[p] -= sum - 2 * linkto[p];
				crossing[best] += sum - 2 * linkto[best];
				load[p] -= w_p;
				load[best] += sp[j].weight / rate(best, j);
				sp[j].part = best;
				moved = true;
			}
			clear_links(nt);
		}
		if (!moved)
			break;
	}
}

static void
rules_load(const char *path, struct rules *r)
{
	struct tsv *t = tsv_open(path, 2, 2, TSV_STRICT);
	tsv_check_sorted(t, 0, true);
	size_t cap = 0;
	while (tsv_next(t)) {
		uint64_t part;
		if (t->col[0][0] == '\0')
			tsv_die(t, "empty key");
		if (!parse_u64(t->col[1], &part) || part >= UINT32_MAX)
			tsv_die(t, "bad part '%.40s'", t->col[1]);
		if (r->n == cap) {
			cap = cap ? 2 * cap : 1024;
			r->key = wa_reallocarray(r->key, cap, sizeof *r->key);
			r->part = wa_reallocarray(r->part, cap, sizeof *r->part);
		}
		r->key[r->n] = wa_strdup(t->col[0]);
		r->part[r->n++] = (uint32_t)part;
		if (part >= r->nparts)
			r->nparts = (uint32_t)part + 1;
	}
	tsv_close(t);
	if (r->n == 0)
		wa_die("%s: no rules", path);
}

static void
rules_free(struct rules *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->key[i]);
	free(r->key);
	free(r->part);
}

/* Re-partitioning from last cycle's rules (seed 001 sec. 4.3): each
 * superpage keeps its previous part; a part whose load ends above (1 +
 * TOL) times the ideal time gives up its lightest superpages until it
 * ends at most at the ideal time, and the greedy places those. */
static size_t
keep_previous(uint32_t *order, size_t n, double *kept_weight)
{
	struct rules prev = { 0 };
	rules_load(previous_path, &prev);
	double avg = on_time / (1 + tolerance);
	for (size_t o = 0; o < n; o++) {
		uint32_t j = order[o];
		uint32_t part = prev.part[find_range(prev.key, prev.n, sp[j].first)];
		if (part < nparts) {
			sp[j].part = part;
			load[part] += sp[j].weight / rate(part, j);
		}
	}
	rules_free(&prev);
	/* Lightest first (order[] is heaviest first), until the part is at
	 * the average. */
	bool *shedding = wa_calloc(nparts, sizeof *shedding);
	for (uint32_t p = 0; p < nparts; p++)
		shedding[p] = load[p] > (1 + tolerance) * avg;
	for (size_t o = n; o-- > 0;) {
		uint32_t j = order[o], p = sp[j].part;
		if (p != UINT32_MAX && shedding[p]) {
			load[p] -= sp[j].weight / rate(p, j);
			sp[j].part = UINT32_MAX;
			shedding[p] = load[p] > avg;
		}
	}
	free(shedding);
	size_t left = 0;
	*kept_weight = 0;
	for (size_t o = 0; o < n; o++) {
		uint32_t j = order[o];
		if (sp[j].part == UINT32_MAX)
			order[left++] = j;
		else
			*kept_weight += sp[j].weight;
	}
	/* The crossing links among the kept superpages. */
	for (uint32_t j = 0; j < nsp; j++)
		for (uint32_t e = sp[j].adj_start; e < sp[j].adj_end; e++) {
			uint32_t a = sp[j].part, b = sp[adj[e].to].part;
			if (a != UINT32_MAX && b != UINT32_MAX && a != b)
				crossing[a] += adj[e].links;
		}
	return left;
}

/* The start of the second try of Partition II: the superpages in key
 * order cut into PARTS runs of equal weight, so that a part is a few
 * ranges of neighbouring sites and directories. */
static void
key_order_runs(void)
{
	double done = 0, per_part = total_weight / nparts;
	uint32_t part = 0;
	for (size_t i = 0; i < npieces; i++) {
		uint32_t j = pieces[i].sp;
		if (sp[j].weight == 0 || sp[j].part != UINT32_MAX)
			continue;
		if (part + 1 < nparts && done + sp[j].weight / 2 > per_part * (part + 1))
			part++;
		assign(j, part);
		done += sp[j].weight;
	}
}

/* Moves superpage j to part q, keeping load[] and crossing[] exact. */
static void
move_superpage(uint32_t j, uint32_t q)
{
	uint32_t p = sp[j].part;
	size_t nt = 0;
	double sum = gather_links(j, &nt);
	crossing[p] -= sum - 2 * linkto[p];
	crossing[q] += sum - 2 * linkto[q];
	load[p] -= sp[j].weight / rate(p, j);
	load[q] += sp[j].weight / rate(q, j);
	sp[j].part = q;
	clear_links(nt);
}

static double
latest_end(void)
{
	double m = 0;
	for (uint32_t h = 0; h < nparts; h++)
		if (part_time(h) > m)
			m = part_time(h);
	return not_late(m);
}

/* Local improvement by exchanges (Partition II): a superpage j and a
 * superpage i of a part that j links to trade parts when that cuts
 * crossing links without making the latest end later.  Single moves stop
 * where every part is full; exchanges go on. */
static void
improve_swaps(void)
{
	double *with_j = wa_calloc(nsp + 1, sizeof *with_j);
	uint32_t *member = wa_calloc(nsp + 1, sizeof *member);
	uint32_t *first = wa_calloc(nparts + 1, sizeof *first);

	uint64_t work = 0;
	for (int pass = 0; pass < 10 && work < SWAP_WORK; pass++) {
		bool swapped = false;
		/* The superpages of each part, by a counting sort. */
		memset(first, 0, (nparts + 1) * sizeof *first);
		for (uint32_t j = 0; j < nsp; j++)
			if (sp[j].part != UINT32_MAX)
				first[sp[j].part + 1]++;
		for (uint32_t h = 0; h < nparts; h++)
			first[h + 1] += first[h];
		for (uint32_t j = 0, *at = wa_calloc(nparts, sizeof *at); j <= nsp; j++) {
			if (j == nsp) {
				free(at);
				break;
			}
			if (sp[j].part != UINT32_MAX)
				member[first[sp[j].part] + at[sp[j].part]++] = j;
		}

		for (uint32_t j = 0; j < nsp && work < SWAP_WORK; j++) {
			uint32_t p = sp[j].part;
			if (p == UINT32_MAX)
				continue;
			size_t nt = 0;
			gather_links(j, &nt);
			for (uint32_t e = sp[j].adj_start; e < sp[j].adj_end; e++)
				with_j[adj[e].to] = adj[e].links;
			double cur = latest_end(), best_gain = 0;
			uint32_t best_i = UINT32_MAX;
			for (size_t c = 0; c < nt; c++) {
				uint32_t q = touched[c];
				if (q == p)
					continue;
				for (uint32_t m = first[q]; m < first[q + 1]; m++) {
					uint32_t i = member[m];
					if (sp[i].part != q)
						continue;	/* moved this pass */
					double to_p = 0, to_q = 0;
					work += sp[i].adj_end - sp[i].adj_start + 1;
					for (uint32_t e = sp[i].adj_start; e < sp[i].adj_end; e++) {
						uint32_t h = sp[adj[e].to].part;
						if (h == p)
							to_p += adj[e].links;
						else if (h == q)
							to_q += adj[e].links;
					}
					double gain = linkto[q] - linkto[p] + to_p - to_q - 2 * with_j[i];
					if (gain <= best_gain)
						continue;
					/* Loads only, for a first look at the balance. */
					double tp = load[p] - sp[j].weight / rate(p, j) + sp[i].weight / rate(p, i);
					double tq = load[q] - sp[i].weight / rate(q, i) + sp[j].weight / rate(q, j);
					if (not_late(tp > tq ? tp : tq) > cur)
						continue;
					best_gain = gain;
					best_i = i;
				}
			}
			clear_links(nt);
			for (uint32_t e = sp[j].adj_start; e < sp[j].adj_end; e++)
				with_j[adj[e].to] = 0;
			if (best_i == UINT32_MAX)
				continue;
			uint32_t q = sp[best_i].part;
			move_superpage(j, q);
			move_superpage(best_i, p);
			if (latest_end() > cur * (1 + 1e-12)) {
				move_superpage(best_i, q);
				move_superpage(j, p);
			} else
				swapped = true;
		}
		if (!swapped)
			break;
	}
	free(with_j);
	free(member);
	free(first);
}

/* ---- The multilevel start of Partition II ----
 *
 * Seed 001 sec. 3 coarsens the web graph into super-nodes that keep its
 * locality, and partitions the coarse graph.  The superpages are such a
 * coarsening by the URL tree; this start coarsens them further by the
 * links (as METIS does, Karypis and Kumar 1998): superpages that share
 * many links join one group, lightest first, as long as a group fits in
 * a part, and the groups in turn, until a level hardly shrinks.  The
 * coarsest groups go, heaviest first, to the part they have the most
 * links with among those with room; each level on the way back moves its
 * nodes to the part they link to most while the parts stay within the
 * tolerance.  So related sites (linked superpages) end
 * in one part, and a site too big for a part is cut where its pieces
 * share the fewest links.  Loads here are weights: the rates of -r enter
 * with the local improvement that follows, as for the other starts. */

struct level {
	uint32_t n;
	double *w;
	uint32_t *start;	/* n + 1: the edges of node v are start[v].. */
	uint32_t *to;
	double *links;
	uint32_t *group;	/* the node of the next level that holds v */
	uint32_t *part;
};

#define LEVELS_MAX 64

static void
level_free(struct level *l)
{
	free(l->w);
	free(l->start);
	free(l->to);
	free(l->links);
	free(l->group);
	free(l->part);
}

static int
by_weight_asc(const void *a, const void *b, void *arg)
{
	const double *w = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	if (w[x] != w[y])
		return w[x] < w[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* Groups the nodes of l (l->group, returns their number): each node in
 * turn, lightest first, joins the group or the ungrouped neighbour it
 * shares the most links with, if the sum weighs at most cap. */
static uint32_t
group_nodes(struct level *l, double cap, double *acc, uint32_t *seen)
{
	uint32_t *order = wa_calloc(l->n + 1, sizeof *order);
	double *gw = wa_calloc(l->n + 1, sizeof *gw);
	uint32_t ng = 0;
	for (uint32_t v = 0; v < l->n; v++) {
		order[v] = v;
		l->group[v] = UINT32_MAX;
	}
	qsort_r(order, l->n, sizeof *order, by_weight_asc, l->w);
	for (uint32_t o = 0; o < l->n; o++) {
		uint32_t v = order[o];
		if (l->group[v] != UINT32_MAX)
			continue;
		/* acc[] by group; an ungrouped neighbour u is scored as the
		 * pair (v, u) under the id ng + u. */
		size_t ns = 0;
		for (uint32_t e = l->start[v]; e < l->start[v + 1]; e++) {
			uint32_t u = l->to[e];
			uint32_t g = l->group[u] != UINT32_MAX ? l->group[u] : ng + u;
			if (acc[g] == 0)
				seen[ns++] = g;
			acc[g] += l->links[e];
		}
		uint32_t best = UINT32_MAX;
		double best_links = 0;
		for (size_t i = 0; i < ns; i++) {
			uint32_t g = seen[i];
			double w = g < ng ? gw[g] : l->w[g - ng];
			if (w + l->w[v] <= cap && (acc[g] > best_links ||
			    (acc[g] == best_links && g < best))) {
				best = g;
				best_links = acc[g];
			}
			acc[g] = 0;
		}
		if (best == UINT32_MAX || best >= ng) {
			if (best != UINT32_MAX) {
				l->group[best - ng] = ng;
				gw[ng] = l->w[best - ng];
			}
			l->group[v] = ng;
			gw[ng++] += l->w[v];
		} else {
			l->group[v] = best;
			gw[best] += l->w[v];
		}
	}
	free(order);
	free(gw);
	return ng;
}

/* The level of the groups of l. */
static void
coarsen(const struct level *l, uint32_t ng, struct level *c, double *acc, uint32_t *seen)
{
	uint32_t *first = wa_calloc(ng + 2, sizeof *first);
	uint32_t *member = wa_calloc(l->n + 1, sizeof *member);
	for (uint32_t v = 0; v < l->n; v++)
		first[l->group[v] + 2]++;
	for (uint32_t g = 0; g < ng; g++)
		first[g + 2] += first[g + 1];
	for (uint32_t v = 0; v < l->n; v++)
		member[first[l->group[v] + 1]++] = v;
	c->n = ng;
	c->w = wa_calloc(ng + 1, sizeof *c->w);
	c->start = wa_calloc(ng + 1, sizeof *c->start);
	c->group = wa_calloc(ng + 1, sizeof *c->group);
	c->part = wa_calloc(ng + 1, sizeof *c->part);
	size_t cap = 0, ne = 0;
	c->to = NULL;
	c->links = NULL;
	for (uint32_t g = 0; g < ng; g++) {
		size_t ns = 0;
		for (uint32_t m = first[g]; m < first[g + 1]; m++) {
			uint32_t v = member[m];
			c->w[g] += l->w[v];
			for (uint32_t e = l->start[v]; e < l->start[v + 1]; e++) {
				uint32_t h = l->group[l->to[e]];
				if (h == g)
					continue;
				if (acc[h] == 0)
					seen[ns++] = h;
				acc[h] += l->links[e];
			}
		}
		if (ne + ns > cap) {
			cap = 2 * (ne + ns) + 16;
			c->to = wa_reallocarray(c->to, cap, sizeof *c->to);
			c->links = wa_reallocarray(c->links, cap, sizeof *c->links);
		}
		c->start[g] = (uint32_t)ne;
		for (size_t i = 0; i < ns; i++) {
			c->to[ne] = seen[i];
			c->links[ne++] = acc[seen[i]];
			acc[seen[i]] = 0;
		}
	}
	c->start[ng] = (uint32_t)ne;
	free(first);
	free(member);
}

/* Moves the nodes of l to the part they share the most links with while
 * that part stays at most cap; a node of a part above cap moves to the
 * part with room that costs the fewest links. */
static void
refine_level(struct level *l, double *pload, double cap, double *acc, uint32_t *seen)
{
	for (int pass = 0; pass < 8; pass++) {
		uint32_t moved = 0;
		for (uint32_t v = 0; v < l->n; v++) {
			uint32_t p = l->part[v];
			if (l->w[v] == 0)
				continue;
			size_t ns = 0;
			for (uint32_t e = l->start[v]; e < l->start[v + 1]; e++) {
				uint32_t h = l->part[l->to[e]];
				if (acc[h] == 0)
					seen[ns++] = h;
				acc[h] += l->links[e];
			}
			bool over = pload[p] > cap;
			uint32_t best = UINT32_MAX;
			double best_gain = over ? -INFINITY : 0;
			for (size_t i = 0; i < ns; i++) {
				uint32_t q = seen[i];
				double gain = acc[q] - acc[p];
				if (q != p && pload[q] + l->w[v] <= cap && gain > best_gain) {
					best = q;
					best_gain = gain;
				}
			}
			if (over && best == UINT32_MAX) {
				/* No linked part has room: the lightest part. */
				uint32_t q = 0;
				for (uint32_t h = 1; h < nparts; h++)
					if (pload[h] < pload[q])
						q = h;
				if (q != p && pload[q] + l->w[v] <= cap)
					best = q;
			}
			for (size_t i = 0; i < ns; i++)
				acc[seen[i]] = 0;
			if (best == UINT32_MAX)
				continue;
			pload[p] -= l->w[v];
			pload[best] += l->w[v];
			l->part[v] = best;
			moved++;
		}
		if (!moved)
			break;
	}
}

static void
multilevel(void)
{
	struct level lv[LEVELS_MAX];
	uint32_t nlv = 1;
	size_t nedges = sp[nsp - 1].adj_end;
	double all = 0;

	struct level *l = &lv[0];
	l->n = (uint32_t)nsp;
	l->w = wa_calloc(nsp + 1, sizeof *l->w);
	l->start = wa_calloc(nsp + 1, sizeof *l->start);
	l->to = wa_calloc(nedges + 1, sizeof *l->to);
	l->links = wa_calloc(nedges + 1, sizeof *l->links);
	l->group = wa_calloc(nsp + 1, sizeof *l->group);
	l->part = wa_calloc(nsp + 1, sizeof *l->part);
	for (uint32_t j = 0; j < nsp; j++) {
		l->w[j] = sp[j].weight;
		all += sp[j].weight;
		l->start[j] = sp[j].adj_start;
		for (uint32_t e = sp[j].adj_start; e < sp[j].adj_end; e++) {
			l->to[e] = adj[e].to;
			l->links[e] = adj[e].links;
		}
	}
	l->start[nsp] = (uint32_t)nedges;

	/* Scratch by node (2 n: group_nodes scores pairs too) and by part. */
	double *acc = wa_calloc(2 * nsp + nparts + 1, sizeof *acc);
	uint32_t *seen = wa_calloc(2 * nsp + nparts + 1, sizeof *seen);
	double per_part = all / nparts, cap = (1 + tolerance) * per_part;
	while (nlv < LEVELS_MAX) {
		struct level *f = &lv[nlv - 1];
		uint32_t ng = group_nodes(f, cap, acc, seen);
		if (ng > 0.95 * f->n)
			break;
		coarsen(f, ng, &lv[nlv++], acc, seen);
	}

	/* The coarsest level: heaviest first, to the part with room it
	 * shares the most links with, or else the lightest part. */
	struct level *c = &lv[nlv - 1];
	double *pload = wa_calloc(nparts, sizeof *pload);
	uint32_t *order = wa_calloc(c->n + 1, sizeof *order);
	for (uint32_t v = 0; v < c->n; v++) {
		order[v] = v;
		c->part[v] = UINT32_MAX;
	}
	qsort_r(order, c->n, sizeof *order, by_weight_asc, c->w);
	for (uint32_t o = c->n; o-- > 0;) {
		uint32_t v = order[o], best = 0;
		size_t ns = 0;
		for (uint32_t e = c->start[v]; e < c->start[v + 1]; e++) {
			uint32_t h = c->part[c->to[e]];
			if (h == UINT32_MAX)
				continue;
			if (acc[h] == 0)
				seen[ns++] = h;
			acc[h] += c->links[e];
		}
		for (uint32_t h = 1; h < nparts; h++)
			if (pload[h] < pload[best])
				best = h;
		double best_links = 0;
		for (size_t i = 0; i < ns; i++) {
			uint32_t h = seen[i];
			if (pload[h] + c->w[v] <= cap && acc[h] > best_links) {
				best = h;
				best_links = acc[h];
			}
			acc[h] = 0;
		}
		c->part[v] = best;
		pload[best] += c->w[v];
	}
	free(order);
	refine_level(c, pload, cap, acc, seen);
	for (uint32_t i = nlv - 1; i-- > 0;) {
		for (uint32_t v = 0; v < lv[i].n; v++)
			lv[i].part[v] = lv[i + 1].part[lv[i].group[v]];
		refine_level(&lv[i], pload, cap, acc, seen);
	}
	for (uint32_t j = 0; j < nsp; j++)
		if (sp[j].weight > 0)
			assign(j, l->part[j]);
	for (uint32_t i = 0; i < nlv; i++)
		level_free(&lv[i]);
	free(pload);
	free(acc);
	free(seen);
}

/* Latest end (with the tolerance), then crossing links. */
static void
score(double *latest, double *links)
{
	*latest = 0;
	*links = 0;
	for (uint32_t i = 0; i < nparts; i++) {
		if (part_time(i) > *latest)
			*latest = part_time(i);
		*links += crossing[i];
	}
	*latest = not_late(*latest);
}

static void
partition(uint32_t top)
{
	uint32_t *order = wa_calloc(nsp + 1, sizeof *order);
	size_t n = 0;
	load = wa_calloc(nparts, sizeof *load);
	crossing = wa_calloc(nparts, sizeof *crossing);
	linkto = wa_calloc(nparts, sizeof *linkto);
	touched = wa_calloc(nparts, sizeof *touched);
	for (uint32_t j = 0; j < nsp; j++)
		if (sp[j].weight > 0)
			order[n++] = j;
	qsort(order, n, sizeof *order, weight_desc);
	/* The ideal time: all crawlers busy to the end, each superpage
	 * shared among them at their rates. */
	double ideal = 0;
	for (size_t o = 0; o < n; o++) {
		double rates = 0;
		for (uint32_t i = 0; i < nparts; i++)
			rates += rate(i, order[o]);
		ideal += sp[order[o]].weight / rates;
	}
	on_time = (1 + tolerance) * ideal;
	if (previous_path) {
		double kept;
		size_t left = keep_previous(order, n, &kept);
		greedy(order, left);
		if (!wa_quiet)
			wa_note("%zu superpages (%.4g%% of the weight) kept their part",
			    n - left, 100 * kept / total_weight);
	} else if (algorithm == 1) {
		greedy(order, n);
		improve();
	} else {
		/* Three starts, each locally improved; the best stays: the
		 * greedy of Partition II on superpages (seed 001), the same on
		 * whole subtrees first, and runs in key order. */
		static const char *const start_name[] = { "superpages", "subtrees", "key order",
		    "multilevel" };
		uint32_t *best = wa_calloc(nsp + 1, sizeof *best);
		double best_latest = INFINITY, best_links = INFINITY;
		for (int start = 0; start < 4; start++) {
			for (uint32_t j = 0; j < nsp; j++)
				sp[j].part = UINT32_MAX;
			memset(load, 0, nparts * sizeof *load);
			memset(crossing, 0, nparts * sizeof *crossing);
			if (start == 0)
				greedy(order, n);
			else if (start == 1)
				greedy_units(top);
			else if (start == 2)
				key_order_runs();
			else
				multilevel();
			improve();
			improve_swaps();
			double latest, links;
			score(&latest, &links);
			if (wa_verbose)
				wa_note("from %s: latest end %.6g, %.6g crossing links",
				    start_name[start], latest, links / 2);
			if (latest < best_latest * (1 - 1e-9) || (latest <= best_latest *
			    (1 + 1e-9) && links < best_links)) {
				best_latest = latest;
				best_links = links;
				for (uint32_t j = 0; j < nsp; j++)
					best[j] = sp[j].part;
			}
		}
		memset(load, 0, nparts * sizeof *load);
		memset(crossing, 0, nparts * sizeof *crossing);
		for (uint32_t j = 0; j < nsp; j++)
			sp[j].part = UINT32_MAX;
		for (uint32_t j = 0; j < nsp; j++)
			if (best[j] != UINT32_MAX)
				assign(j, best[j]);
		free(best);
	}
	if (wa_verbose)
		for (uint32_t i = 0; i < nparts; i++)
			wa_note("part %u: load %.6g, crossing links %.6g, time %.6g", i,
			    load[i], crossing[i], part_time(i));
	free(order);
	free(load);
	free(crossing);
	free(linkto);
	free(touched);
}

/* The rules: runs of pieces in one part.  A piece of an empty superpage
 * takes the part of the piece before it (the first ones that of the piece
 * after), so that it adds no rule. */
static void
write_rules(FILE *out, double *max_over_avg, double *cross_fraction)
{
	uint32_t *part = wa_calloc(npieces, sizeof *part), last = UINT32_MAX;
	for (size_t i = 0; i < npieces; i++)
		last = part[i] = sp[pieces[i].sp].part == UINT32_MAX ? last : sp[pieces[i].sp].part;
	for (size_t i = npieces; i-- > 0;)
		last = part[i] = part[i] == UINT32_MAX ? last : part[i];
	/* The root's first piece starts at the empty key, which is no rule
	 * key: it starts at its first page instead, or goes if it has none. */
	size_t from = 0;
	if (pieces[0].key[0] == '\0') {
		if (npieces > 1 && strcmp(min_key, pieces[1].key) >= 0)
			from = 1;
		else {
			free(pieces[0].key);
			pieces[0].key = wa_strdup(min_key);
		}
	}
	last = UINT32_MAX;
	for (size_t i = from; i < npieces; i++) {
		if (part[i] == last)
			continue;
		if (fprintf(out, "%s\t%u\n", pieces[i].key, part[i]) < 0)
			wa_die_errno("%s", out_path ? out_path : "standard output");
		last = part[i];
	}
	free(part);

	double *w = wa_calloc(nparts, sizeof *w), max = 0, cross = 0, links = 0;
	for (size_t j = 0; j < nsp; j++)
		if (sp[j].part != UINT32_MAX) {
			w[sp[j].part] += sp[j].weight;
			for (uint32_t e = sp[j].adj_start; e < sp[j].adj_end; e++)
				if (sp[adj[e].to].part != sp[j].part)
					cross += adj[e].links;
		}
	for (uint32_t i = 0; i < nparts; i++)
		if (w[i] > max)
			max = w[i];
	free(w);
	links = (double)nlinks;
	*max_over_avg = max / (total_weight / nparts);
	*cross_fraction = links ? cross / 2 / links : 0;
}

/* ---- Reading the input ---- */

static bool urls_only;

static void
read_input(const char *path, struct sorter *so)
{
	static char src[URL_BUFSIZE], dst[URL_BUFSIZE], last_src[URL_BUFSIZE];
	struct tsv *t = tsv_open(path, urls_only ? 1 : 2, 0, 0);
	while (tsv_next(t)) {
		if (!url_surt(t->col[0], src)) {
			tsv_reject(t, "not a canonical URL: %.200s", t->col[0]);
			continue;
		}
		if (!urls_only && !url_surt(t->col[1], dst)) {
			tsv_reject(t, "not a canonical URL: %.200s", t->col[1]);
			continue;
		}
		/* Links come grouped by source: one of each group is enough. */
		if (strcmp(t->col[0], last_src) != 0) {
			if (fprintf(so->in, "%s\n", t->col[0]) < 0)
				sorter_close_input(so);
			strcpy(last_src, t->col[0]);
		}
		if (!urls_only) {
			if (fprintf(so->in, "%s\n", t->col[1]) < 0)
				sorter_close_input(so);
			if (fprintf(link_file, "%s\t%s\n", src, dst) < 0)
				wa_die_errno("temporary link file");
			nlinks++;
		}
		progress_set(&pg, pg.done + 1);
	}
	tsv_close(t);
}

/* The distinct URLs, sorted, joined with their weights, written to the
 * page file as SURT key and weight. */
static void
write_pages(struct sorter *so)
{
	static char key[URL_BUFSIZE];
	struct tsv *wt = NULL;
	bool more = false;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	if (weights_path) {
		wt = tsv_open(weights_path, 2, 0, TSV_STRICT);
		tsv_check_url(wt, 0);
		tsv_check_sorted(wt, 0, true);
		more = tsv_next(wt);
	}
	while ((n = getline(&line, &cap, so->out)) > 0) {
		line[n - 1] = '\0';
		double w = 1;
		while (more && strcmp(wt->col[0], line) < 0)
			more = tsv_next(wt);
		if (more && strcmp(wt->col[0], line) == 0 &&
		    (!parse_double(wt->col[1], &w) || !(w > 0)))
			tsv_die(wt, "bad weight '%.40s' (a positive number)", wt->col[1]);
		if (!url_surt(line, key))
			wa_die("internal error: %s lost its canonical form", line);
		if (fprintf(page_file, "%s\t%.17g\n", key, w) < 0)
			wa_die_errno("temporary page file");
		if (!min_key || strcmp(key, min_key) < 0) {
			free(min_key);
			min_key = wa_strdup(key);
		}
		total_weight += w;
		/* Each is finite; loads and the ideal share are their sums. */
		if (isinf(total_weight))
			tsv_die(wt, "the weights sum past %g: scale them down", DBL_MAX);
		npages++;
	}
	if (ferror(so->out))
		wa_die_errno("sort of the URLs");
	free(line);
	/* The rows past the last URL are read too, so that their order is
	 * checked like the others'. */
	while (more)
		more = tsv_next(wt);
	if (wt)
		tsv_close(wt);
	if (fflush(page_file) == EOF || ferror(page_file))
		wa_die_errno("temporary page file");
}

static void
read_rates(void)
{
	struct tsv *t = tsv_open(rates_path, 3, 3, TSV_STRICT);
	while (tsv_next(t)) {
		uint64_t part;
		double r;
		if (!parse_u64(t->col[0], &part) || part >= nparts)
			tsv_die(t, "bad part '%.40s' (0 to %u)", t->col[0], nparts - 1);
		if (!parse_double(t->col[2], &r) || !(r > 0))
			tsv_die(t, "bad rate '%.40s' (a positive number)", t->col[2]);
		rate_rows = wa_reallocarray(rate_rows, nrate_rows + 1, sizeof *rate_rows);
		rate_rows[nrate_rows++] = (struct rate_row){ (uint32_t)part,
		    wa_strdup(t->col[1]), r };
	}
	tsv_close(t);
}

static void
make_rules(char **paths, int npaths)
{
	struct sorter so;
	double max_over_avg, cross_fraction;

	if (rates_path)
		read_rates();
	if (!(page_file = tmpfile()) || (!urls_only && !(link_file = tmpfile())))
		wa_die_errno("temporary file");
	progress_start(&pg, "rows", 0);
	sorter_start(&so, "URLs", sort_memory, 1, NULL, true, -1);
	if (npaths == 0)
		read_input(NULL, &so);
	for (int i = 0; i < npaths; i++)
		read_input(paths[i], &so);
	sorter_close_input(&so);
	write_pages(&so);
	sorter_finish(&so);
	if (npages == 0)
		wa_die("no URLs in the input");
	if (link_file && (fflush(link_file) == EOF || ferror(link_file)))
		wa_die_errno("temporary link file");

	unsigned rounds = build_tree();
	uint32_t top = walk(root);
	strmap_free(&nodes, NULL);
	measure_superpages();
	partition(top);
	progress_end(&pg);

	struct atomic_file *af = out_path ? atomic_open(out_path) : NULL;
	write_rules(af ? af->fp : stdout, &max_over_avg, &cross_fraction);
	if (af)
		atomic_commit(af);
	else if (fflush(stdout) == EOF || ferror(stdout))
		wa_die_errno("standard output");
	if (!wa_quiet)
		wa_note("%" PRIu64 " pages, %" PRIu64 " links, %zu superpages in %u rounds; "
		    "largest part %.4f of the average, %.4f of the links cross parts",
		    npages, nlinks, nsp, rounds, max_over_avg, cross_fraction);

	for (size_t i = 0; i < npieces; i++)
		free(pieces[i].key);
	free(pieces);
	free(piece_keys);
	free(sp);
	free(adj);
	free(min_key);
	free(open_nodes);
	for (size_t i = 0; i < nunits; i++)
		free(units[i].kid);
	free(units);
	for (size_t i = 0; i < nrate_rows; i++)
		free(rate_rows[i].prefix);
	free(rate_rows);
	fclose(page_file);
	if (link_file)
		fclose(link_file);
}

/* ---- Tagging (-a) ---- */

static void
tag(const char *path, const struct rules *r)
{
	static char key[URL_BUFSIZE];
	struct tsv *t = tsv_open(path, 1, 0, 0);
	while (tsv_next(t)) {
		if (!url_surt(t->col[0], key)) {
			tsv_reject(t, "not a canonical URL: %.200s", t->col[0]);
			continue;
		}
		uint32_t part = r->part[find_range(r->key, r->n, key)];
		for (size_t i = 0; i < t->ncol; i++) {
			fputs_unlocked(t->col[i], stdout);
			putchar_unlocked('\t');
		}
		char num[16], *d = num + sizeof num;
		*--d = '\0';
		*--d = '\n';
		do
			*--d = (char)('0' + part % 10);
		while (part /= 10);
		fputs_unlocked(d, stdout);
		progress_set(&pg, pg.done + 1);
	}
	tsv_close(t);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = { WA_COMMON_LONGOPTS };
	const char *tag_rules = NULL;
	bool comm_given = false, tolerance_given = false;
	int rule_options = 0;
	int c;

	wa_init(argc, argv, usage);
	while ((c = getopt_long(argc, argv, "a:c:d:hk:m:o:p:P:qr:t:uvw:", longopts, NULL)) != -1) {
		if (c != 'a' && c != 'q')
			rule_options++;
		switch (c) {
		case 'a':
			tag_rules = optarg;
			break;
		case 'c':
			comm_given = true;
			comm = opt_double("-c", optarg, 1e-9, 1e300);
			break;
		case 'd':
			delta = opt_double("-d", optarg, 1e-3, 1e9);
			break;
		case 'k':
			nparts = (uint32_t)opt_count("-k", optarg, 1, 1u << 20);
			break;
		case 'm':
			sort_memory = opt_size("-m", optarg);
			break;
		case 'o':
			out_path = optarg;
			break;
		case 'p':
			algorithm = (int)opt_count("-p", optarg, 1, 2);
			break;
		case 'P':
			previous_path = optarg;
			break;
		case 'r':
			rates_path = optarg;
			break;
		case 't':
			tolerance_given = true;
			tolerance = opt_double("-t", optarg, 0, 1e9);
			break;
		case 'u':
			urls_only = true;
			break;
		case 'w':
			weights_path = optarg;
			break;
		default:
			wa_common_option(c);
		}
	}

	if (tag_rules) {
		if (rule_options)
			wa_usage_error("-a takes no other option than -q");
		struct rules r = { 0 };
		rules_load(tag_rules, &r);
		progress_start(&pg, "URLs", 0);
		if (optind == argc)
			tag(NULL, &r);
		for (int i = optind; i < argc; i++)
			tag(argv[i], &r);
		progress_end(&pg);
		if (fflush(stdout) == EOF || ferror(stdout))
			wa_die_errno("standard output");
		rules_free(&r);
	} else {
		if (!nparts)
			wa_usage_error("-k PARTS or -a RULES is needed");
		if (comm_given && algorithm != 2)
			wa_usage_error("-c is for Partition II (-p 2)");
		if (tolerance_given && algorithm != 2 && !previous_path)
			wa_usage_error("-t is for Partition II (-p 2) and -P");
		if (!delta)
			delta = fmax(20, (double)SUPERPAGES_MIN / nparts);
		make_rules(argv + optind, argc - optind);
	}
	url_cleanup();
	return WA_EXIT_OK;
}
