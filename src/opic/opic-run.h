/* The parts of wa-opic (wa-opic(1)), which share one struct opic_run:
 * src/wa-opic.c loads the state file (state.c), the fetch times of -t
 * (fetchtimes.c), reads the links in crawl order (links.c) into the pages,
 * the URLs numbered as the computation's page ids (pages.c), then writes
 * the output (output.c) and the state.  The computation itself is
 * src/lib/opic.c. */
#ifndef WA_OPIC_RUN_H
#define WA_OPIC_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "opic.h"
#include "strmap.h"
#include "wa.h"

/* The parameters a state is made with, as its file holds them. */
struct opic_params {
	uint64_t policy, unit;
	double c, window;
	uint64_t keep;
};

/* The option that chooses each policy (none for plain OPIC). */
extern const char *const opic_policy_option[];

/* The children of the read in progress, and those of them in focus. */
struct group {
	uint32_t *child, *focused;
	size_t nchild, nfocused, cap;
	uint32_t src;
	bool open;
};

/* -t: per URL of the fetch log its fetch times, in the log's order, and
 * the next one to take. */
struct fetch_times {
	struct strmap urls;
	size_t *first;		/* times of URL i: time[first[i] .. first[i+1]) */
	size_t *next;
	double *time;
};

/* Rows wait in a ring between being read and being used (links.c). */
#define LOOKAHEAD 16

struct row {
	char *src, *dst;
	size_t src_cap, dst_cap, src_len, dst_len;
	uint64_t src_hash, dst_hash, line;
	bool new_read;
};

struct opic_run {
	/* options */
	const char *log;	/* -t's fetch log; NULL: time counts page reads */
	const char *focus;	/* -f's text, or NULL */

	/* The OPIC state, and what wa-opic keeps beside it per page: its URL
	 * (number = page id) and the reads + 1 of the read that last linked
	 * to it, to drop a read's duplicate links. */
	struct opic op;
	struct strmap urls;
	uint64_t *mark;
	size_t mark_cap;

	struct fetch_times fl;
	double read_time;	/* the time of the read in progress */
	uint64_t clamped;	/* reads taken at a later time, for the note */
	struct group g;

	struct row ring[LOOKAHEAD];
	char *last_src;		/* the source of the last row read, across files */
	size_t last_src_cap;
	struct progress pg;
};

/* pages.c */
/* Asks the cache for what a lookup of hash will read: its slot, and when
 * deep and the slot is already known its string and page. */
void url_prefetch(struct opic_run *r, uint64_t hash, bool deep);
/* The page of url (len bytes, hash), introduced at the read's time when
 * new. */
uint32_t intern_hashed(struct opic_run *r, const char *url, size_t len, uint64_t hash);
/* The URL of page i. */
static inline const char *
url_of(const struct opic_run *r, size_t i)
{
	return strmap_key(&r->urls, i);
}
/* Adds page i to the children of the read in progress.  Inline: it is
 * called for every link. */
static inline void
group_add(struct group *g, uint32_t i)
{
	if (g->nchild == g->cap) {
		g->cap = g->cap ? 2 * g->cap : 64;
		g->child = wa_reallocarray(g->child, g->cap, sizeof *g->child);
		g->focused = wa_reallocarray(g->focused, g->cap, sizeof *g->focused);
	}
	g->child[g->nchild++] = i;
}
/* Reads the page of the open group, if any, with its children. */
void group_flush(struct opic_run *r);
/* Frees the URLs, the marks and the group. */
void pages_free(struct opic_run *r);

/* fetchtimes.c */
/* Reads the fetch times of r->log. */
void fetch_times_load(struct opic_run *r);
/* The time of the read of src at line of links: the next fetch time of
 * src in the log.  Dies when the log has none left. */
double fetch_time(struct opic_run *r, const char *links, uint64_t line, const char *src);
/* Frees them, if r->log was read. */
void fetch_times_free(struct opic_run *r);

/* links.c */
/* Reads the links of the n files (stdin when n is 0) into the state, in
 * their order, a read per run of adjacent rows of a source, with a
 * progress line. */
void read_crawl(struct opic_run *r, char *const *paths, size_t n);
/* Frees the rows of the ring. */
void links_free(struct opic_run *r);

/* state.c */
/* Loads the state of path into r->op and r->urls, or sets up a new one
 * from want when path does not exist.  The parameters given (the c when
 * c_given, the policy when policy_given, and the time unit always) must
 * agree with an existing state's. */
void state_load(struct opic_run *r, const char *path, const struct opic_params *want,
    bool c_given, bool policy_given);
/* Writes the state to path, replacing it whole. */
void state_save(const struct opic_run *r, const char *path);

/* output.c */
/* The importance of every URL in byte order of URLs, or with next > 0 the
 * greedy list of the next URLs to read (url TAB cash), to stdout. */
void write_output(struct opic_run *r, uint64_t next);
/* The notes and warnings of the run's end. */
void write_notes(const struct opic_run *r);

#endif
