/* wa-opic's state file, kind "OPIC" version 2 (man/wa-formats.5, "OPIC
 * state"), read and written: aux = { reads, measures, URL bytes }, count =
 * URLs; payload: the head, a record per URL, the measures of every URL in
 * turn, the URLs each ended by a NUL. */
#include <sys/stat.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "opic-run.h"

struct state_head {
	struct opic_params p;
	double now, virt_cash, virt_hist;
};

struct page_record {
	double cash, hist, t_last, base;
	uint64_t measures;
};

const char *const opic_policy_option[] = { "", "-W", "-K", "-F" };

/* The options that make a state with these parameters. */
static char *
describe(const struct opic_params *p)
{
	const char *s = p->unit == OPIC_SECONDS ? "s" : "";
	switch (p->policy) {
	case OPIC_INTERPOLATION:
		return wa_asprintf("-c %g -W %.15g%s", p->c, p->window, s);
	case OPIC_VARIABLE_WINDOW:
		return wa_asprintf("-c %g -K %llu", p->c, (unsigned long long)p->keep);
	case OPIC_FIXED_WINDOW:
		return wa_asprintf("-c %g -F %.15g%s --min-measures %llu", p->c, p->window,
		    s, (unsigned long long)p->keep);
	}
	return wa_asprintf("-c %g (plain OPIC)", p->c);
}

static bool
finite_nonneg(double v)
{
	return isfinite(v) && v >= 0;
}

static void
check_head(const char *path, const struct state_head *h, uint64_t reads)
{
	const struct opic_params *p = &h->p;
	if (p->policy > OPIC_FIXED_WINDOW || p->unit > OPIC_SECONDS)
		wa_die("%s: bad policy %llu or time unit %llu", path,
		    (unsigned long long)p->policy, (unsigned long long)p->unit);
	bool windowed = p->policy == OPIC_INTERPOLATION || p->policy == OPIC_FIXED_WINDOW;
	if (!(p->c >= 0 && p->c <= 1) || !finite_nonneg(p->window) ||
	    windowed != (p->window > 0))
		wa_die("%s: bad c %g or window %g", path, p->c, p->window);
	if (p->policy == OPIC_VARIABLE_WINDOW ? p->keep < 1 || p->keep > OPIC_MAX_MEASURES :
	    p->policy == OPIC_FIXED_WINDOW ? p->keep > OPIC_MAX_MEASURES : p->keep != 0)
		wa_die("%s: bad number of measures %llu", path,
		    (unsigned long long)p->keep);
	if (!finite_nonneg(h->now) || (p->unit == OPIC_READS && h->now != (double)reads))
		wa_die("%s: bad time now %g after %llu reads", path, h->now,
		    (unsigned long long)reads);
	if (!finite_nonneg(h->virt_cash) || !finite_nonneg(h->virt_hist))
		wa_die("%s: bad virtual page cash %g or history %g", path, h->virt_cash,
		    h->virt_hist);
}

/* The options given must agree with the state's parameters. */
static void
check_params(const char *path, const struct opic_params *have,
    const struct opic_params *want, bool c_given, bool policy_given)
{
	if ((c_given && have->c != want->c) || (policy_given &&
	    (have->policy != want->policy || have->window != want->window ||
	    have->keep != want->keep)))
		wa_usage_error("%s was made with %s", path, describe(have));
	if (have->unit != want->unit)
		wa_usage_error(have->unit == OPIC_SECONDS ?
		    "%s counts time in seconds of fetch logs: give -t FETCHLOG" :
		    "%s counts time in page reads: -t cannot be used with it", path);
}

/* Checks the sizes of a state of n URLs, m measures, b URL bytes against
 * the payload's, without overflow. */
static bool
sizes_agree(uint64_t payload, uint64_t n, uint64_t m, uint64_t b)
{
	uint64_t recs, meas, total;
	return !__builtin_mul_overflow(n, sizeof(struct page_record), &recs) &&
	    !__builtin_mul_overflow(m, sizeof(struct opic_measure), &meas) &&
	    !__builtin_add_overflow(recs, meas, &total) &&
	    !__builtin_add_overflow(total, b, &total) &&
	    !__builtin_add_overflow(total, sizeof(struct state_head), &total) &&
	    total == payload;
}

static void
load_page(struct opic *op, const char *path, uint64_t i, const struct page_record *r,
    const struct opic_measure *m)
{
	unsigned long long u = (unsigned long long)i;
	size_t limit = opic_measure_limit(op);
	if (!finite_nonneg(r->cash) || !finite_nonneg(r->hist))
		wa_die("%s: URL %llu: bad cash %g or history %g", path, u, r->cash,
		    r->hist);
	if (!finite_nonneg(r->base) || !(r->base <= r->t_last && r->t_last <= op->now))
		wa_die("%s: URL %llu: times %g, %g out of order (now %g)", path, u,
		    r->base, r->t_last, op->now);
	if (r->measures > limit)
		wa_die("%s: URL %llu: %llu measures, more than %zu", path, u,
		    (unsigned long long)r->measures, limit);
	struct opic_page *p = &op->page[i];
	*p = (struct opic_page){ .hist = r->hist, .t_last = r->t_last, .base = r->base,
	    .nm = (uint32_t)r->measures, .mcap = (uint32_t)r->measures };
	op->cash[i] = (struct opic_cash){ .cash = r->cash };
	op->n++;
	if (!p->nm)
		return;
	double prev = r->base;
	for (size_t k = 0; k < p->nm; k++) {
		if (!finite_nonneg(m[k].cash) || !(m[k].time >= prev && m[k].time <= r->t_last))
			wa_die("%s: URL %llu: bad measure %zu (cash %g, time %g)", path, u,
			    k, m[k].cash, m[k].time);
		prev = m[k].time;
	}
	p->m = wa_reallocarray(NULL, p->nm, sizeof *p->m);
	memcpy(p->m, m, p->nm * sizeof *p->m);
}

/* Opens the state of path, version 2, telling a version 1 apart. */
static void
open_state(struct bin_map *m, const char *path)
{
	const char *msg = bin_map_open(m, path, "OPIC", 2, 0);
	if (!msg)
		return;
	struct bin_map old;
	if (!bin_map_open(&old, path, "OPIC", 1, 0)) {
		bin_map_close(&old);
		wa_die("%s: an OPIC state of version 1, from an earlier wa-opic:"
		    " this one reads version 2 only; start a new state", path);
	}
	wa_die("%s", msg);
}

/* The URLs, records and measures of the n pages of the state after its
 * head h, with nmeas measures and bytes URL bytes. */
static void
load_pages(struct opic_run *r, const char *path, const struct state_head *h,
    uint64_t n, uint64_t nmeas, uint64_t bytes)
{
	struct opic *op = &r->op;
	const struct page_record *rec = (const void *)(h + 1);
	const struct opic_measure *meas = (const void *)(rec + n);
	const char *s = (const char *)(meas + nmeas), *end = s + bytes;
	opic_reserve(op, n ? n : 1);
	r->mark_cap = op->cap;
	r->mark = wa_calloc(r->mark_cap, sizeof *r->mark);
	uint64_t used = 0;
	double cash = op->virt_cash;
	for (uint64_t i = 0; i < n; i++) {
		const char *nul = memchr(s, '\0', (size_t)(end - s));
		if (!nul || nul == s)
			wa_die("%s: URL %llu is %s", path, (unsigned long long)i,
			    nul ? "empty" : "not NUL-terminated");
		bool added;
		if (strmap_add(&r->urls, s, &added) != i || !added)
			wa_die("%s: URL %llu appears twice: %s", path,
			    (unsigned long long)i, s);
		if (rec[i].measures > nmeas - used)
			wa_die("%s: URL %llu: measures beyond the %llu of the state",
			    path, (unsigned long long)i, (unsigned long long)nmeas);
		load_page(op, path, i, &rec[i], meas + used);
		used += rec[i].measures;
		cash += rec[i].cash;
		s = nul + 1;
	}
	if (s != end)
		wa_die("%s: %zu bytes after the last URL", path, (size_t)(end - s));
	if (used != nmeas)
		wa_die("%s: the URLs hold %llu measures, the state %llu", path,
		    (unsigned long long)used, (unsigned long long)nmeas);
	if (fabs(cash - 1) > 1e-6)
		wa_die("%s: the total cash is %.17g, not 1", path, cash);
}

void
state_load(struct opic_run *r, const char *path, const struct opic_params *want,
    bool c_given, bool policy_given)
{
	struct opic *op = &r->op;
	strmap_init(&r->urls);
	opic_init(op, (enum opic_policy)want->policy, (enum opic_unit)want->unit, want->c,
	    want->window, want->keep);
	struct stat sb;
	if (stat(path, &sb) == -1) {
		if (errno == ENOENT)
			return;
		wa_die_errno("%s", path);
	}
	struct bin_map m;
	open_state(&m, path);
	uint64_t n = m.h.count, reads = m.h.aux[0], nmeas = m.h.aux[1], bytes = m.h.aux[2];
	if (m.h.payload_bytes < sizeof(struct state_head))
		wa_die("%s: state too short for its head", path);
	const struct state_head *h = m.data;
	check_head(path, h, reads);
	if (n > OPIC_MAX_PAGES || !sizes_agree(m.h.payload_bytes, n, nmeas, bytes))
		wa_die("%s: state sizes do not agree (%llu URLs, %llu measures, %llu URL"
		    " bytes, %llu payload bytes)", path, (unsigned long long)n,
		    (unsigned long long)nmeas, (unsigned long long)bytes,
		    (unsigned long long)m.h.payload_bytes);
	check_params(path, &h->p, want, c_given, policy_given);
	opic_init(op, (enum opic_policy)h->p.policy, (enum opic_unit)h->p.unit, h->p.c,
	    h->p.window, h->p.keep);
	op->now = h->now;
	op->virt_cash = h->virt_cash;
	op->virt_hist = h->virt_hist;
	op->reads = reads;
	load_pages(r, path, h, n, nmeas, bytes);
	bin_map_close(&m);
}

void
state_save(const struct opic_run *r, const char *path)
{
	const struct opic *op = &r->op;
	struct bin_writer *w = bin_create(path, "OPIC", 2);
	struct state_head head = { { op->policy, op->unit, op->c, op->window, op->keep },
	    op->now, op->virt_cash, op->virt_hist };
	uint64_t bytes = 0, nmeas = 0;
	bin_write(w, &head, sizeof head);
	for (size_t i = 0; i < op->n; i++) {
		const struct opic_page *p = &op->page[i];
		struct page_record rec = { op->cash[i].cash, p->hist, p->t_last, p->base, p->nm };
		bin_write(w, &rec, sizeof rec);
		nmeas += p->nm;
	}
	for (size_t i = 0; i < op->n; i++)
		if (op->page[i].nm)
			bin_write(w, op->page[i].m, op->page[i].nm * sizeof *op->page[i].m);
	for (size_t i = 0; i < op->n; i++) {
		size_t len = strlen(url_of(r, i)) + 1;
		bin_write(w, url_of(r, i), len);
		bytes += len;
	}
	uint64_t aux[3] = { op->reads, nmeas, bytes };
	bin_commit(w, op->n, aux);
}
