/* robots.txt by RFC 9309's own examples and by the readings of Google's
 * parser (github.com/google/robotstxt, robots_test.cc) and crawler-commons
 * (SimpleRobotRulesParser since its RFC 9309 change), verdicts written
 * out by hand: percent-encoded special characters (sec. 2.2.3), the lines
 * that do not end a group's user-agent lines (sec. 2.1), the worked
 * example of sec. 5.1, and the Crawl-delay values a site may write.
 * Every body is handed over in a buffer of exactly its length. */
#include <stdlib.h>
#include <string.h>

#include "robots.h"
#include "tap.h"

static struct robots *
parse(const char *body, const char *agent)
{
	size_t n = strlen(body);
	char *copy = malloc(n ? n : 1);
	if (!copy)
		abort();
	memcpy(copy, body, n);
	struct robots *r = robots_parse(copy, n, agent);
	free(copy);
	return r;
}

static bool
allowed(const char *body, const char *agent, const char *path)
{
	struct robots *r = parse(body, agent);
	bool a = robots_allowed(r, path);
	robots_free(r);
	return a;
}

static double
delay(const char *body, const char *agent)
{
	struct robots *r = parse(body, agent);
	double d = robots_crawl_delay(r);
	robots_free(r);
	return d;
}

/* RFC 9309 section 5.1. */
#define RFC_EXAMPLE "User-Agent: *\nDisallow: *.gif$\nDisallow: /example/\n" \
	"Allow: /publications/\n\nUser-Agent: foobot\nDisallow:/\n" \
	"Allow:/example/page.html\nAllow:/example/allowed.gif\n\n" \
	"User-Agent: barbot\nUser-Agent: bazbot\nDisallow: /example/page.html\n\n" \
	"User-Agent: quxbot\n\nEOF\n"

static void
test_rules(void)
{
	static const struct {
		const char *body, *agent, *path;
		bool allowed;
		const char *what;
	} cases[] = {
		/* sec. 2.2.3: "%2A" and "%24" match '*' and '$' verbatim */
		{ "User-agent: *\nDisallow: /path/file-with-a-%2A.html\n", "wa-fetch",
		  "/path/file-with-a-*.html", false, "sec. 2.2.3: %2A matches '*'" },
		{ "User-agent: *\nDisallow: /path/file-with-a-%2A.html\n", "wa-fetch",
		  "/path/file-with-a-b.html", true, "sec. 2.2.3: %2A is no wildcard" },
		{ "User-agent: *\nDisallow: /path/foo-%24\n", "wa-fetch",
		  "/path/foo-$", false, "sec. 2.2.3: /path/foo-%24 matches /path/foo-$" },
		{ "User-agent: *\nDisallow: /path/foo-%24\n", "wa-fetch",
		  "/path/foo-", true, "sec. 2.2.3: %24 is no end anchor" },
		{ "User-agent: *\nDisallow: /path/foo-%24\n", "wa-fetch",
		  "/path/foo-$/x", false, "sec. 2.2.3: a prefix as any rule" },
		{ "User-agent: *\nDisallow: /a%2a\n", "wa-fetch", "/a*", false,
		  "lower-case %2a as well" },
		{ "User-agent: *\nDisallow: /a$b\n", "wa-fetch", "/a$b", false,
		  "a '$' before the end is itself" },
		{ "User-agent: *\nDisallow: /a$b\n", "wa-fetch", "/a%24b", false,
		  "and matches its encoded form" },
		/* sec. 2.2.2: percent-encoding of the path */
		{ "User-agent: *\nDisallow: /foo/bar?baz=quz\n", "wa-fetch",
		  "/foo/bar?baz=quz", false, "sec. 2.2.2: /foo/bar?baz=quz" },
		{ "User-agent: *\nDisallow: /foo/bar/\xe3\x83\x84\n", "wa-fetch",
		  "/foo/bar/%E3%83%84", false, "sec. 2.2.2: UTF-8 in a rule is %E3%83%84" },
		{ "User-agent: *\nDisallow: /foo/bar/%62%61%7A\n", "wa-fetch",
		  "/foo/bar/baz", false, "sec. 2.2.2: %62%61%7A is baz" },
		/* sec. 2.1: only a rule ends the user-agent lines (Google's
		 * ID_LineSyntax_Groups_OtherRules; crawler-commons alike) */
		{ "User-agent: BarBot\nSitemap: https://foo.bar/sitemap\nUser-agent: *\n"
		  "Disallow: /\n", "BarBot", "/", false, "a Sitemap line does not end a group" },
		{ "User-agent: FooBot\nInvalid-Unknown-Line: unknown\nUser-agent: *\n"
		  "Disallow: /\n", "FooBot", "/", false, "an unknown line does not end a group" },
		{ "User-agent: bingbot\nCrawl-delay: 30\n\nUser-agent: AhrefsBot\n"
		  "Disallow: /\n", "bingbot", "/x", false,
		  "a Crawl-delay line does not end a group" },
		{ "User-agent: bingbot\nCrawl-delay: 30\n\nUser-agent: AhrefsBot\n"
		  "Disallow: /\n", "AhrefsBot", "/x", false, "the group's other agent" },
		{ "User-agent: a\nDisallow: /x\nUser-agent: b\nDisallow: /y\n", "a", "/y", true,
		  "a rule does end it" },
		/* sec. 5.1 */
		{ RFC_EXAMPLE, "foobot", "/", false, "sec. 5.1: foobot /" },
		{ RFC_EXAMPLE, "foobot", "/example/page.html", true,
		  "sec. 5.1: foobot /example/page.html" },
		{ RFC_EXAMPLE, "foobot", "/example/allowed.gif", true,
		  "sec. 5.1: foobot /example/allowed.gif" },
		{ RFC_EXAMPLE, "barbot", "/example/page.html", false,
		  "sec. 5.1: barbot /example/page.html" },
		{ RFC_EXAMPLE, "bazbot", "/example/page.html", false,
		  "sec. 5.1: bazbot /example/page.html" },
		{ RFC_EXAMPLE, "barbot", "/example/x.gif", true,
		  "sec. 5.1: barbot does not obey '*'" },
		{ RFC_EXAMPLE, "quxbot", "/example/x.gif", true,
		  "sec. 5.1: quxbot's empty group allows all" },
		{ RFC_EXAMPLE, "otherbot", "/a.gif", false, "sec. 5.1: '*': *.gif$" },
		{ RFC_EXAMPLE, "otherbot", "/a.gif?x", true, "sec. 5.1: '*': $ ends it" },
		{ RFC_EXAMPLE, "otherbot", "/example/x", false, "sec. 5.1: '*': /example/" },
		{ RFC_EXAMPLE, "otherbot", "/publications/x", true, "sec. 5.1: '*': /publications/" },
		/* sec. 5.2 */
		{ "User-Agent: foobot\nAllow: /example/page/\n"
		  "Disallow: /example/page/disallowed.gif\n", "foobot",
		  "/example/page/disallowed.gif", false, "sec. 5.2: the longest match" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
		ok(allowed(cases[i].body, cases[i].agent, cases[i].path) == cases[i].allowed,
		    "%s: %s %s", cases[i].what, cases[i].path,
		    cases[i].allowed ? "allowed" : "disallowed");
}

static void
test_crawl_delay(void)
{
	static const struct {
		const char *value;
		double want;
	} cases[] = {
		{ "1e3", 1000 }, { "2.5E1", 25 }, { "inf", ROBOTS_MAX_DELAY },
		{ "Infinity", ROBOTS_MAX_DELAY }, { "1e10", ROBOTS_MAX_DELAY },
		{ "1e999", ROBOTS_MAX_DELAY }, { "1000000001", ROBOTS_MAX_DELAY },
		{ "99999999999999999999", ROBOTS_MAX_DELAY }, { "1000000000", 1e9 },
		{ "nan", -1 }, { "-5", -1 }, { "-inf", -1 }, { "0x10", -1 }, { "5s", -1 },
	};
	char body[64];
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		snprintf(body, sizeof body, "User-agent: *\nCrawl-delay: %s\n", cases[i].value);
		double got = delay(body, "wa-fetch");
		ok(got == cases[i].want, "Crawl-delay: %s is %g (got %g)", cases[i].value,
		    cases[i].want, got);
	}
	ok(delay("User-agent: bingbot\nCrawl-delay: 30\n\nUser-agent: AhrefsBot\n"
	    "Disallow: /\n", "bingbot") == 30, "a Crawl-delay inside the user-agent lines "
	    "is the delay of the agents named before it");
	ok(delay("User-agent: bingbot\nCrawl-delay: 30\n\nUser-agent: AhrefsBot\n"
	    "Disallow: /\n", "AhrefsBot") == -1, "not of those named after it");
}

int
main(void)
{
	test_rules();
	test_crawl_delay();
	return done_testing();
}
