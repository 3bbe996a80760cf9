/* The politeness of sites.c: which site comes next, and when; what a
 * request's outcome, robots.txt and the connection do to a site. */
#include <curl/curl.h>
#include <stdlib.h>
#include <string.h>

#include "robots.h"
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

static void
test_connection(void)
{
	struct sites s;
	sites_init(&s);
	struct site *a = sites_get(&s, "http://a.test", 5);

	ok(site_last_on_connection(a, 1), "-c 1: every request is the last");
	ok(!site_last_on_connection(a, 3), "-c 3: the first is not");
	site_count_request(a, true, false);
	ok(a->conn_pages == 1, "a new connection carries 1 page");
	site_count_request(a, false, false);
	ok(a->conn_pages == 2, "a reused one counts on (got %u)", a->conn_pages);
	ok(site_last_on_connection(a, 3), "-c 3: the third is the last");
	site_count_request(a, false, true);
	ok(a->conn_pages == 0, "a connection closing starts the count anew");
	site_count_request(a, true, false);
	site_count_request(a, true, false);
	ok(a->conn_pages == 1, "each new connection counts from 1");
	sites_free(&s);
}

/* The data of each entry of l, joined by spaces. */
static char *
joined(const struct curl_slist *l)
{
	static char buf[256];
	buf[0] = '\0';
	for (; l; l = l->next)
		snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s",
		    buf[0] ? " " : "", l->data);
	return buf;
}

static void
test_resolve(void)
{
	static const char *const entries[] = { "a.test:80:10.0.0.1",
	    "b.test:80:10.0.0.2", "+A.TEST:80:10.0.0.3", "a.test:8080:10.0.0.4",
	    "*:80:10.0.0.5", "*:443:10.0.0.6", "[::1]:8443:10.0.0.7",
	    "a.test:8:10.0.0.8" };
	struct curl_slist *list = NULL;
	for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++)
		list = curl_slist_append(list, entries[i]);
	struct sites s;
	sites_init(&s);
	struct site *a = sites_get(&s, "http://a.test", 5);
	struct site *b = sites_get(&s, "https://b.test", 5);
	struct site *v6 = sites_get(&s, "https://[::1]:8443", 5);
	struct site *c = sites_get(&s, "http://c.test:8080", 5);

	is_str(joined(site_resolve(a, list)),
	    "a.test:80:10.0.0.1 +A.TEST:80:10.0.0.3 *:80:10.0.0.5",
	    "http://a.test: its host on port 80, any case, '+' form, wildcard");
	struct curl_slist *first = site_resolve(a, list);
	ok(site_resolve(a, NULL) == first, "worked out once, then kept");
	is_str(joined(site_resolve(b, list)), "*:443:10.0.0.6",
	    "https://b.test: port 443");
	is_str(joined(site_resolve(v6, list)), "[::1]:8443:10.0.0.7",
	    "an IPv6 host with its port");
	ok(site_resolve(c, list) == NULL, "no entry for c.test:8080");
	sites_free(&s);
	curl_slist_free_all(list);
}

static void
test_robots(void)
{
	static const char rules[] = "User-agent: *\nCrawl-delay: 7\nDisallow: /x\n";
	struct sites s;
	sites_init(&s);
	struct site *a = sites_get(&s, "http://a.test", 5);
	struct site *b = sites_get(&s, "http://b.test", 10);
	struct site *c = sites_get(&s, "http://c.test", 5);
	struct site *d = sites_get(&s, "http://d.test", 5);

	site_set_robots(a, robots_parse(rules, strlen(rules), "wa"), 30);
	ok(a->robots_state == ROBOTS_KNOWN && !a->closed, "rules known, site open");
	ok(a->delay == 7, "a Crawl-delay of 7s raises a delay of 5s (got %g)", a->delay);
	ok(!robots_allowed(a->robots, "/x") && robots_allowed(a->robots, "/y"),
	    "the site keeps the rules given");
	site_set_robots(b, robots_parse(rules, strlen(rules), "wa"), 30);
	ok(b->delay == 10, "a Crawl-delay of 7s leaves a delay of 10s");
	site_set_robots(c, robots_parse(rules, strlen(rules), "wa"), 6);
	is_str(c->closed, "crawl-delay", "7s past --max-crawl-delay 6s closes the site");
	ok(c->delay == 5, "and leaves its delay");
	site_unreachable(d, "dns");
	is_str(d->closed, "dns", "an unreachable site is closed for its reason");
	ok(d->robots_state == ROBOTS_KNOWN && !robots_allowed(d->robots, "/"),
	    "and disallows everything");
	sites_free(&s);
}

static void
test_outcome(void)
{
	struct sites s;
	struct job job;
	sites_init(&s);
	struct site *a = sites_get(&s, "http://a.test", 5);
	for (size_t i = 0; i < 7; i++)
		sites_push(&s, a, i, wa_strdup("http://a.test/"), 0);
	struct site_request fail = { .code = 500, .answered = true, .status = "500" };
	struct site_request fine = { .code = 200, .answered = true, .status = "200" };
	struct site_request broken = { .code = 200, .answered = true,
	    .broken = true, .status = "timeout" };
	struct site_request none = { .status = "timeout" };

#define REQUEST(at, r) do { \
	ok(sites_next(&s, at) == a && site_pop(&s, a, &job), "a request at %d", at); \
	free(job.url); \
	sites_outcome(&s, a, at, &(r), 30); \
} while (0)
	REQUEST(0, fail);
	REQUEST(5, broken);
	ok(a->failures == 2 && !a->closed, "a 5xx and a broken transfer: 2 failures");
	REQUEST(10, fine);
	ok(a->failures == 0, "a success resets the count");
	ok(sites_next_time(&s) == 15, "the site waits its delay (got %g)",
	    sites_next_time(&s));
	REQUEST(15, none);
	REQUEST(20, fail);
	ok(!a->closed, "2 failures in a row leave it open");
	REQUEST(25, broken);
	is_str(a->closed, "site-failed", "the third in a row closes it");
	ok(sites_next_time(&s) == 25, "a closed site keeps its time, 25 and not 30: "
	    "its rows need no request (got %g)", sites_next_time(&s));
	sites_free(&s);
}

static void
test_retry_after(void)
{
	struct sites s;
	sites_init(&s);
	struct site *a = sites_get(&s, "http://a.test", 5);
	sites_push(&s, a, 0, wa_strdup("http://a.test/0"), 0);
	sites_push(&s, a, 1, wa_strdup("http://a.test/1"), 0);

	struct site_request slow = { .code = 503, .answered = true,
	    .retry_after = 20, .status = "503" };
	ok(sites_next(&s, 100) == a, "the site's turn");
	sites_outcome(&s, a, 100, &slow, 30);
	ok(sites_next_time(&s) == 120 && !a->closed,
	    "a 503 with Retry-After 20s holds it back 20s (got %g)", sites_next_time(&s));
	ok(a->failures == 1, "and counts as a failure");
	struct site_request ignored = { .code = 200, .answered = true,
	    .retry_after = 99, .status = "200" };
	ok(sites_next(&s, 120) == a, "its next turn");
	sites_outcome(&s, a, 120, &ignored, 30);
	ok(sites_next_time(&s) == 125 && !a->closed,
	    "a Retry-After with a 200 is not obeyed (got %g)", sites_next_time(&s));
	struct site_request too_slow = { .code = 429, .answered = true,
	    .retry_after = 31, .status = "429" };
	ok(sites_next(&s, 125) == a, "its next turn");
	sites_outcome(&s, a, 125, &too_slow, 30);
	is_str(a->closed, "retry-after", "a 429 asking 31s past 30s closes it");
	sites_free(&s);
}

int
main(void)
{
	test_sites();
	test_connection();
	test_resolve();
	test_robots();
	test_outcome();
	test_retry_after();
	return done_testing();
}
