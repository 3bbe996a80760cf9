/* wa-opic's output: the importance of every URL, or the greedy list of
 * --next, and the notes of the run's end. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opic-run.h"

static int
by_url(const void *a, const void *b, void *run)
{
	const struct opic_run *r = run;
	return strcmp(url_of(r, *(const uint32_t *)a), url_of(r, *(const uint32_t *)b));
}

static bool
url_before(uint32_t i, uint32_t j, void *run)
{
	const struct opic_run *r = run;
	return strcmp(url_of(r, i), url_of(r, j)) < 0;
}

void
write_output(struct opic_run *r, uint64_t next)
{
	const struct opic *op = &r->op;
	size_t n = op->n;
	uint32_t *order = wa_reallocarray(NULL, n ? n : 1, sizeof *order);
	size_t rows;
	double *key = NULL;
	if (next)
		rows = opic_greedy(op, next < n ? (size_t)next : n, order, url_before, r);
	else {
		key = wa_reallocarray(NULL, n ? n : 1, sizeof *key);
		opic_importance(op, key);
		for (size_t i = 0; i < n; i++)
			order[i] = (uint32_t)i;
		qsort_r(order, n, sizeof *order, by_url, r);
		rows = n;
	}
	for (size_t k = 0; k < rows; k++) {
		uint32_t i = order[k];
		printf("%s\t%.17g\n", url_of(r, i), next ? op->cash[i].cash : key[i]);
	}
	if (fflush(stdout) == EOF || ferror(stdout))
		wa_die_errno("standard output");
	free(order);
	free(key);
}

void
write_notes(const struct opic_run *r)
{
	uint64_t capped = r->op.capped;
	if (r->clamped)
		wa_note("%llu read%s earlier than the page's previous read or"
		    " introduction taken at that time", (unsigned long long)r->clamped,
		    r->clamped == 1 ? "" : "s");
	if (capped)
		wa_warn("%llu read%s found the page's %d measures full: the oldest"
		    " left the window early", (unsigned long long)capped,
		    capped == 1 ? "" : "s", OPIC_MAX_MEASURES);
}
