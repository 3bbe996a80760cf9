/* opic: the OPIC computation (Abiteboul, Preda, Cobena, "Adaptive On-Line
 * Page Importance Computation", 2003) on integer page ids, without
 * URLs or files: cash, history, measures, the virtual page, the window
 * policies, a page read given its children, focus shares, importance and
 * the greedy list.  wa-opic(1) feeds it from links and fetch logs;
 * scripts/opic-kernel times it alone. */
#ifndef WA_OPIC_H
#define WA_OPIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum opic_policy { OPIC_PLAIN, OPIC_INTERPOLATION, OPIC_VARIABLE_WINDOW, OPIC_FIXED_WINDOW };
enum opic_unit { OPIC_READS, OPIC_SECONDS };

/* A page holds at most this many measures: -k's bound, and under -F the
 * oldest measure goes early when a page read more often than this in a
 * window is read again. */
#define OPIC_MAX_MEASURES 4096
/* Page ids are 32 bits. */
#define OPIC_MAX_PAGES (UINT32_MAX - 1)

/* A measure of the OPIC paper's sec. 3: the cash a read added to the
 * history, and the time of that read. */
struct opic_measure {
	double cash, time;
};

/* What a read of a parent touches of a page, apart from the rest so that
 * a read's children cost one cache line each: its cash, and "seen", the
 * virtual page's cumulative gift per page when this cash was last brought
 * up to date (the virtual page spreads its cash over all pages in O(1) by
 * raising "spread"; a page collects spread - seen when it is touched). */
struct opic_cash {
	double cash, seen;
};

/* The rest of a page, touched only when the page itself is read. */
struct opic_page {
	double hist;
	double t_last;		/* time of the last read, or of the introduction */
	double base;		/* -k, -F: time before the oldest kept measure;
				 * else the introduction */
	struct opic_measure *m;	/* -k, -F: kept measures, oldest first */
	uint32_t nm, mcap;
};

struct opic {
	struct opic_cash *cash;
	struct opic_page *page;
	size_t n, cap;
	enum opic_policy policy;
	enum opic_unit unit;
	double c, window;	/* -W or -F's T */
	size_t keep;		/* -k's K or --min-measures */
	double focus_share;	/* share of the virtual page's cash for focus pages */
	double now;		/* reads, or the latest read's time in seconds */
	double virt_cash, virt_hist, spread;
	uint64_t reads;
	uint64_t capped;	/* reads that found a page's measures full */
};

/* A new state, with no pages and the virtual page holding cash 1. */
void opic_init(struct opic *, enum opic_policy, enum opic_unit, double c, double window,
    size_t keep);
void opic_free(struct opic *);
/* Room for n pages without reallocation. */
void opic_reserve(struct opic *, size_t n);
/* A new page introduced at time t, with the default history of the OPIC
 * paper's sec. 3; its id. */
uint32_t opic_add_page(struct opic *, double t);
/* The most measures a page may hold under the policy. */
size_t opic_measure_limit(const struct opic *);

/* Reads page src with its distinct children (none equal to src) at time
 * t, then the virtual page, which gives focus_share of its cash to the
 * focused pages. */
void opic_read(struct opic *, uint32_t src, const uint32_t *child, size_t nchild,
    const uint32_t *focused, size_t nfocused, double t);

/* Asks the cache for what a later read of page i touches: its cash alone
 * when as_child, else its whole record. */
static inline void
opic_prefetch(const struct opic *o, uint32_t i, bool as_child)
{
	__builtin_prefetch(&o->cash[i], 1);
	if (!as_child)
		__builtin_prefetch(&o->page[i], 1);
}

/* Brings every page up to date at the end of a run: its cash, and under
 * the Fixed Window its measures at the final time. */
void opic_settle(struct opic *);
/* Importance of every page into key[0..n): (H + C) / sum over the pages,
 * the windows dividing H + C by the time it covers first. */
void opic_importance(const struct opic *, double *key);
/* The greedy list: the k pages (at most n) with the most cash, most
 * first, ties broken by tie_before(i, j, arg) (true when i goes before
 * j); order gets their ids and the count is returned. */
size_t opic_greedy(const struct opic *, size_t k, uint32_t *order,
    bool (*tie_before)(uint32_t, uint32_t, void *), void *arg);

#endif
