/* The politeness order of sites.c: which site comes next, and when. */
#include <stdlib.h>

#include "sites.h"
#include "tap.h"
#include "wa.h"

static void
test_sites(void)
{
	struct sites s;
	struct job job;

	sites_init(&s);
	struct site *a = sites_get(&s, "http://a.test", 10);
	struct site *b = sites_get(&s, "http://b.test", 10);
	ok(sites_get(&s, "http://a.test", 99) == a, "one site per origin");
	sites_push(&s, a, 3, wa_strdup("http://a.test/3"), 0);
	sites_push(&s, b, 1, wa_strdup("http://b.test/1"), 0);
	sites_push(&s, a, 0, wa_strdup("http://a.test/0"), 0);
	sites_push(&s, b, 2, wa_strdup("http://b.test/2"), 0);
	ok(s.pending == 4, "four jobs pending");

	struct site *first = sites_next(&s, 100);
	ok(first == a && a->busy, "the site whose first URL comes first goes first");
	ok(sites_next(&s, 100) == b, "then the other site");
	ok(sites_next(&s, 100) == NULL, "busy sites are not handed out twice");
	ok(site_pop(&s, a, &job) && job.entry == 0, "a site's jobs come in input order");
	free(job.url);
	sites_release(&s, a, 100, 0);
	ok(sites_next(&s, 105) == NULL, "a released site waits its delay");
	ok(sites_next_time(&s) == 110, "and says when it is ready (got %g)",
	    sites_next_time(&s));
	ok(sites_next(&s, 110) == a, "after its delay it is ready again");
	sites_release(&s, a, 110, 30);
	ok(sites_next_time(&s) == 140, "a back-off longer than the delay wins");
	ok(site_pop(&s, b, &job) && job.entry == 1, "b's first job");
	free(job.url);
	sites_return(&s, b);
	ok(sites_next(&s, 110) == b, "a site returned without a request keeps its time");
	sites_free(&s);
}

int
main(void)
{
	test_sites();
	return done_testing();
}
