/* The parts of wa-schedule (wa-schedule(1)), which share one struct
 * schedule: the options, the page state read twice (state.c), the refresh
 * frequencies of each page (refresh.c), the division of the cycle's G*T
 * rows (cycle.c), the fetch list with its bounded heaps (list.c) and the
 * summary (summary.c).  src/wa-schedule.c runs them in that order. */
#ifndef WA_SCHEDULE_H
#define WA_SCHEDULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "scope.h"
#include "wa.h"

#define SECONDS_PER_DAY 86400.0

/* One row of the page state, with its override and cash. */
struct page {
	const char *url;
	bool xml;		/* weight from importance, scaled by chi */
	bool document;		/* html, xml, dtd or noindex: refreshed */
	bool sitemap;		/* read again in spare slots, for its links */
	unsigned failures;	/* fetches failed in a row: retried, not refreshed */
	bool out_of_scope;	/* the scope rules exclude it: as never */
	bool discoverable;	/* never fetched, and may be a document */
	bool suspect;		/* never fetched and an XML suspect */
	double importance, weight_base, factor, lambda;
	int64_t access;		/* -1: never fetched */
	enum { OV_NONE, OV_NEVER, OV_NOW, OV_PERIOD } override;
	double period;		/* seconds, for OV_PERIOD */
	double cash;		/* NAN without --cash */
};

/* A min-heap of the n largest doubles seen. */
struct top_u {
	double *v;
	size_t n, cap;
};

/* In the order of their priority.  An early refresh is of a page not yet
 * due, fetched T or more ago, in slots that nothing else can use; one
 * without a frequency (a sitemap, a page with no change rate) is listed
 * as a reread. */
enum reason { R_NOW, R_PERIOD, R_REFRESH, R_RETRY, R_DISCOVER_XML, R_DISCOVER_HTML,
	R_REFRESH_EARLY, NREASONS };
/* The reason column of the fetch list and the summary's keys. */
extern const char *const reason_name[NREASONS];

/* A candidate of the fetch list. */
struct row {
	char *url;
	double key;		/* higher is better within its reason */
	int64_t due;		/* -1: none */
	enum reason reason;
	/* for the output order */
	uint64_t priority;
	char *site;
	size_t site_rank, site_len;
};

/* A min-heap (worst at the root) of the cap best rows. */
struct row_heap {
	struct row *r;
	size_t n, cap, alloc;
};

/* Pass 1: sums, counts and the largest u. */
struct page_sums {
	uint64_t pages, refreshable, no_lambda, never, out_of_scope, now, period_due, period;
	uint64_t new_xml, new_html;
	uint64_t rested;	/* documents and sitemaps fetched T or more ago */
	uint64_t retry_due;	/* failed pages to try again */
	long double s_xml_raw, s_html;	/* sums of u, XML before the chi scale */
	long double a_xml_raw, a_html;	/* sums of u^(alpha+1) = w lambda^alpha */
	long double base_xml, base_html;	/* sums of base weights, for chi */
	uint64_t n_xml, n_html;
	uint64_t positive;	/* refreshable pages with u > 0 */
	double period_bandwidth;	/* pages/day the fixed periods take */
	struct top_u top_xml, top_html;
};

/* Between the passes: slots, bandwidth, water level. */
struct cycle_plan {
	uint64_t rows;		/* G*T */
	uint64_t slots[NREASONS];
	double g_refresh;	/* pages/day for the optimised refresh */
	double cap;		/* 1/T, refreshes/day */
	double xml_scale;	/* chi scale of XML weights */
	double u_scale;		/* its power 1/(alpha+1), on u */
	long double s;		/* S */
	double level;		/* f_i = min(cap, level u_i); INFINITY: all capped */
	double level_cost, cap_cost;	/* level^-alpha, cap^-alpha */
	uint64_t capped;
	uint64_t rereads;	/* early refreshes without a frequency */
};

struct schedule {
	/* options */
	double bandwidth;		/* G, pages/day */
	double cycle_days;		/* T */
	double alpha, chi;
	double share_xml, share_html;	/* percent */
	double retry_max;		/* seconds */
	int64_t now;
	const char *categories_path, *overrides_path, *cash_path;
	const char *plan_path, *summary_path;
	struct scope scope;		/* --scope, --include, --exclude */

	/* the input: categories sorted by name, the page state files */
	struct category *categories;
	size_t ncategories;
	char *const *state_paths;
	size_t nstate;
	char *spool_path;		/* stdin spooled, as /dev/fd/N */
	int spool_fd;			/* -1: stdin not read */
	struct progress pg;

	struct page_sums p1;
	struct cycle_plan plan;

	/* pass 2 */
	struct atomic_file *plan_file;	/* --plan */
	struct row_heap heaps[NREASONS];
	uint64_t n_due;
	long double cost;
};

/* state.c */
/* Takes the n state files (stdin when n is 0), spooling stdin to read it
 * twice, and reads --categories. */
void state_open(struct schedule *s, size_t n, char *const *paths);
/* Calls fn on every page of the state in URL order, with its override and
 * cash; pass 1 warns of the side streams' URLs not in the state. */
void scan_state(struct schedule *s, int pass,
    void (*fn)(struct schedule *, const struct page *));
/* Frees the categories and closes the spooled stdin. */
void state_close(struct schedule *s);

/* refresh.c */
/* Pass 1: the sums and counts of the page state, and its G*T+1 largest u
 * (each capped page uses 1/T of G, so they hold every page the cap can
 * bind). */
void first_pass(struct schedule *s);
/* The refresh plan of every page (--plan) and the candidates of the list. */
void second_pass(struct schedule *s);

/* cycle.c */
/* The slots and the water level of the refresh, from pass 1's sums; frees
 * the largest u. */
void plan_cycle(struct schedule *s);
/* Cuts the heaps to the cycle's G*T rows. */
void fill_cycle(struct schedule *s);

/* list.c */
/* Offers a row to h; keeps a copy of url if it is among the cap best. */
void row_push(struct row_heap *h, const char *url, double key, int64_t due,
    enum reason reason);
/* Keeps the best n rows of a heap, freeing the others. */
void heap_keep(struct row_heap *h, uint64_t n);
/* Writes the fetch list to stdout, sites interleaved, and frees the heaps. */
void write_list(struct schedule *s);

/* summary.c */
/* The summary to --summary and, without -q, to stderr. */
void write_summaries(const struct schedule *s);

#endif
