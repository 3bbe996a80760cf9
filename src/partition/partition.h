/* The parts of wa-partition (wa-partition(1)), which share one context,
 * struct partition, filled phase by phase:
 *
 *   input.c       reads the links or URLs into the page and link files
 *   urltree.c     grows the URL tree in rounds over the page file
 *   frontier.c    turns the tree into superpages and their key ranges,
 *                 and measures their weights and the links between them
 *   place.c       Partition I and II: the starts and the best of them
 *   improve.c     local improvement by moves and exchanges
 *   multilevel.c  the multilevel start of Partition II
 *   rules.c       the rules file: read, written, and tagging (-a)
 *
 * The paper is Teng, Lu, Eichstaedt, Ford and Lehman, "Collaborative Web
 * Crawling: Information Gathering/Processing over Internet", 1999; its
 * sections are cited as "sec.". */
#ifndef WA_PARTITION_PARTITION_H
#define WA_PARTITION_PARTITION_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "strmap.h"
#include "url.h"
#include "wa.h"

/* The kinds of node of the URL tree, from the root down. */
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
	uint32_t part;		/* UINT32_MAX while unassigned */
	uint32_t adj_start, adj_end;	/* in adj[] */
};

struct edge {
	uint32_t to;
	double links;		/* both directions */
};

/* A unit of the greedy on subtrees: a node's subtree (the superpages
 * lo..hi-1, which the walk numbers in a row) with its kids, or one
 * superpage (no kids). */
struct unit {
	uint32_t lo, hi;
	uint32_t *kid;
	size_t nkid;
};

struct rate_row {
	uint32_t part;
	char *prefix;
	double rate;
};

/* Rules as read from a file: sorted keys, each with its part. */
struct rules {
	char **key;
	uint32_t *part;
	size_t n;
	uint32_t nparts;
};

struct partition {
	/* The options; the defaults are set by the driver. */
	uint32_t nparts;
	double delta, comm, tolerance;
	int algorithm;			/* Partition I or II */
	uint64_t sort_memory;
	const char *weights_path, *rates_path, *previous_path, *out_path;
	bool urls_only;
	struct progress pg;

	/* The input, on disk: the page file holds the distinct URLs as "SURT
	 * key TAB weight" in key order, the link file "key TAB key". */
	FILE *page_file, *link_file;
	uint64_t npages, nlinks;
	double total_weight;
	char *min_key;
	char last_src[URL_BUFSIZE];	/* the source of the last link read */
	struct rate_row *rate_rows;	/* --rates */
	size_t nrate_rows;

	/* The URL tree while it grows, by prefix. */
	struct strmap nodes;
	struct node *root;
	struct node **open_nodes;	/* those that gather in the next round */
	size_t nopen;
	uint64_t rng_state;		/* of the samples */

	/* The frontier: pieces in key order, their superpages, the
	 * superpage graph and the subtrees. */
	struct piece *pieces;
	size_t npieces, pieces_cap;
	char **piece_keys;		/* pieces[i].key, for find_range */
	struct superpage *sp;
	size_t nsp, sp_cap;
	struct edge *adj;
	struct unit *units;
	size_t nunits;

	/* The placement, by part. */
	double *load;		/* sum of w_j / r_ij over the part's superpages */
	double *crossing;	/* B_i: links between the part and the others */
	double *linkto;		/* scratch: links of one superpage to each part */
	uint32_t *touched;	/* scratch: the parts linkto[] holds */
	/* With Partition II, a part that ends by then is not late: among
	 * such assignments the crossing links decide. */
	double on_time;
};

/* input.c */

/* Reads the --rates file into rate_rows. */
void input_read_rates(struct partition *p);
/* Reads the links (or with --urls the URLs) of the paths, or of the standard
 * input when npaths is 0, and writes the page and link files; dies if
 * there is no URL. */
void input_read(struct partition *p, char **paths, int npaths);
/* The SURT key of a URL of row t, which must be canonical already; false
 * if it is not, the row then rejected. */
bool input_url_key(struct tsv *t, const char *url, char key[URL_BUFSIZE]);
/* Goes back to the first page of the page file. */
void pages_rewind(struct partition *p);
/* Reads the next page: *line holds its key (*keylen bytes), *w its
 * weight; false at the end. */
bool pages_next(struct partition *p, char **line, size_t *cap, size_t *keylen, double *w);

/* urltree.c */

/* Grows the URL tree from the root (sec. 5.1, 5.2); returns the number
 * of rounds, each a pass over the page file. */
unsigned tree_build(struct partition *p);

/* frontier.c */

/* Cuts the tree into pieces and superpages (and frees it); returns the
 * unit of the root. */
uint32_t frontier_walk(struct partition *p);
/* A new unit of the superpages lo..hi-1, without kids. */
uint32_t unit_new(struct partition *p, uint32_t lo, uint32_t hi);
/* The superpage of the piece that holds key. */
uint32_t superpage_of(const struct partition *p, const char *key);
/* Weighs the superpages and builds their graph, adj[]. */
void frontier_measure(struct partition *p);

/* place.c */

/* Places every superpage of weight in a part (sec. 5.3); top is the unit
 * of the root. */
void place(struct partition *p, uint32_t top);
/* r_ij: the rate of part for superpage j. */
double part_rate(const struct partition *p, uint32_t part, uint32_t j);
/* T_i: the load of part i, with its crossing links under Partition II. */
double part_time(const struct partition *p, uint32_t i);
/* t, or the on-time end if t is before it. */
double not_late(const struct partition *p, double t);
/* Adds to linkto[] the links of j to the assigned superpages of each
 * part, listing the parts it touches first in touched[*ntouched...];
 * returns their sum.  clear_links(p, nt) clears linkto[] again. */
double gather_links(struct partition *p, uint32_t j, size_t *ntouched);
void clear_links(struct partition *p, size_t nt);
/* Puts the unassigned superpage j in part s. */
void assign(struct partition *p, uint32_t j, uint32_t s);

/* improve.c: local improvement of a complete placement. */

/* Moves one superpage at a time while it pays. */
void improve_moves(struct partition *p);
/* Exchanges superpages of two parts while it pays (Partition II). */
void improve_swaps(struct partition *p);

/* multilevel.c */

/* Assigns every superpage of weight by a multilevel partition of the
 * superpage graph. */
void multilevel(struct partition *p);

/* rules.c */

/* The index of the range that holds key among n ranges by their sorted
 * first keys: the last first key not above it, or the first range for a
 * key before them all. */
size_t find_range(char *const *first, size_t n, const char *key);
/* Reads a rules file (sorted by key, not empty), or dies. */
void rules_load(const char *path, struct rules *r);
void rules_free(struct rules *r);
/* Writes the rules of the placement to -o or the standard output; the
 * largest part's weight over the average, and the fraction of the links
 * that cross parts, in *max_over_avg and *cross_fraction. */
void rules_write(struct partition *p, double *max_over_avg, double *cross_fraction);
/* Writes the rows of path (the standard input if NULL) with the part of
 * their first column's URL appended. */
void rules_tag(struct partition *p, const char *path, const struct rules *r);

/* Frees what the phases left. */
void partition_free(struct partition *p);

#endif
