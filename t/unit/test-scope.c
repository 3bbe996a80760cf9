/* The scope rules of src/lib/scope.c against decisions worked out by
 * hand: the Heritrix SURT form of URLs, SURT prefixes with and without a
 * port, subdomains, path prefixes, regular expressions, the order of the
 * rules, suffix rules, the non-documents of the page types and the
 * include that lets them in, and the refusal of bad rules. */
#include <stdlib.h>

#include "scope.h"
#include "tap.h"
#include "url.h"

static const char *const decision_names[] = { "in", "out", "not-document" };

static void
test_surt(void)
{
	static const char *const cases[][2] = {
		{ "http://www.example.org/a/b", "http://(org,example,www,)/a/b" },
		{ "https://example.org:8443/x?y=1", "http://(org,example,:8443)/x?y=1" },
		{ "http://127.0.0.2:8080/", "http://(127.0.0.2:8080)/" },
		{ "http://[::1]/a", "http://([::1])/a" },
		{ "http://localhost/", "http://(localhost,)/" },
	};
	char out[URL_BUFSIZE + 16];
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
		is_str(scope_surt(cases[i][0], out) ? out : NULL, cases[i][1],
		    "SURT form of %s", cases[i][0]);
	ok(!scope_surt("not a url", out), "no SURT form for what is no canonical URL");
}

/* Builds a scope from rules, NULL-ended, and checks each URL's decision. */
static void
check(const char *what, const char *const *rules, const char *const (*cases)[2])
{
	struct scope s;
	char why[512];
	scope_init(&s);
	for (; *rules; rules++)
		if (!ok(scope_add(&s, *rules, why, sizeof why), "%s: rule %s", what, *rules))
			diag("%s", why);
	for (; (*cases)[0]; cases++)
		is_str(decision_names[scope_decide(&s, (*cases)[0])], (*cases)[1], "%s: %s",
		    what, (*cases)[0]);
	scope_free(&s);
}

static void
test_decisions(void)
{
	static const char *const none[] = { NULL };
	static const char *const none_cases[][2] = {
		{ "http://a.test/", "in" }, { "http://a.test/x.html", "in" },
		{ "http://a.test/s.css", "not-document" }, { "http://a.test/e.MP3?x=1", "not-document" },
		{ "http://a.test/d.pdf", "not-document" }, { "http://a.test/feed.xml", "in" },
		{ NULL, NULL },
	};
	check("no rule", none, none_cases);

	static const char *const site[] = { "+http://(org,example,)/", NULL };
	static const char *const site_cases[][2] = {
		{ "http://example.org/", "in" }, { "https://example.org/a", "in" },
		{ "http://www.example.org/", "out" }, { "http://example.org:8080/", "out" },
		{ "http://examples.org/", "out" }, { "http://example.org/s.css", "not-document" },
		{ NULL, NULL },
	};
	check("one host", site, site_cases);

	static const char *const domain[] = { "+https://(ORG,Example,", NULL };
	static const char *const domain_cases[][2] = {
		{ "http://example.org/", "in" }, { "http://www.example.org/a", "in" },
		{ "http://a.b.example.org:8080/", "in" }, { "http://example.org:81/", "in" },
		{ "http://notexample.org/", "out" }, { "http://example.com/", "out" },
		{ NULL, NULL },
	};
	check("a domain and its subdomains", domain, domain_cases);

	static const char *const port[] = { "+http://(test,a,:8080)/", "+http://(127.0.0.2:8080)/d/",
		NULL };
	static const char *const port_cases[][2] = {
		{ "http://a.test:8080/x", "in" }, { "http://a.test/x", "out" },
		{ "http://a.test:8081/x", "out" }, { "http://127.0.0.2:8080/d/x", "in" },
		{ "http://127.0.0.2:8080/e", "out" }, { "http://127.0.0.2/d/x", "out" },
		{ NULL, NULL },
	};
	check("ports", port, port_cases);

	/* The last matching rule wins: a directory out, a file of it in. */
	static const char *const order[] = { "+http://(test,a,)/", "-http://(test,a,)/private/",
		"+http://(test,a,)/private/open.html", "-~[?&]print=", NULL };
	static const char *const order_cases[][2] = {
		{ "http://a.test/", "in" }, { "http://a.test/private/", "out" },
		{ "http://a.test/private/x.html", "out" },
		{ "http://a.test/private/open.html", "in" },
		{ "http://a.test/private/open.html?print=1", "out" },
		{ "http://a.test/privateer", "in" }, { "http://b.test/", "out" },
		{ NULL, NULL },
	};
	check("order", order, order_cases);

	/* Excludes only: everything else is in. */
	static const char *const excl[] = { "-~^https://", "-.mp3", "-.PHP", NULL };
	static const char *const excl_cases[][2] = {
		{ "http://a.test/", "in" }, { "https://a.test/", "out" },
		{ "http://a.test/ep.mp3", "out" }, { "http://a.test/p.php?x=1", "out" },
		{ "http://a.test/php", "in" }, { "http://a.test/.php", "in" },
		{ "http://a.test/x.php/y", "in" }, { "http://a.test/s.css", "not-document" },
		{ NULL, NULL },
	};
	check("excludes only", excl, excl_cases);

	/* A suffix include lets a non-document in, where the places are. */
	static const char *const pdf[] = { "+.pdf", "+http://(test,a,)/", NULL };
	static const char *const pdf_cases[][2] = {
		{ "http://a.test/d.pdf", "in" }, { "http://a.test/D.PDF", "in" },
		{ "http://b.test/d.pdf", "out" }, { "http://a.test/s.css", "not-document" },
		{ "http://a.test/x.html", "in" },
		{ NULL, NULL },
	};
	check("PDFs on purpose", pdf, pdf_cases);

	/* Suffix rules: the last one naming the suffix wins. */
	static const char *const suffixes[] = { "+.css", "-.css", "-.pdf", "+.pdf", NULL };
	static const char *const suffix_cases[][2] = {
		{ "http://a.test/s.css", "out" }, { "http://a.test/d.pdf", "in" },
		{ "http://a.test/x.png", "not-document" },
		{ NULL, NULL },
	};
	check("suffix order", suffixes, suffix_cases);

	/* The example of wa-formats(5), "Scope rules". */
	static const char *const manual[] = { "+http://(org,example,",
		"-http://(org,example,www,)/private/",
		"+http://(org,example,www,)/private/press.html", "-~[?&](sid|sessionid)=",
		"+.pdf", NULL };
	static const char *const manual_cases[][2] = {
		{ "http://www.example.org/private/press.html", "in" },
		{ "https://www.example.org/private/a.html", "out" },
		{ "http://example.org/?sid=1", "out" },
		{ "http://cdn.example.org:8080/report.pdf", "in" },
		{ "http://www.example.org/style.css", "not-document" },
		{ "http://example.com/", "out" },
		{ NULL, NULL },
	};
	check("the manual's example", manual, manual_cases);

	static const char *const ere[] = { "+~^http://[a-z]+[.]test:8080/", NULL };
	static const char *const ere_cases[][2] = {
		{ "http://www.test:8080/a", "in" }, { "http://www.test/a", "out" },
		{ "http://w3.test:8080/a", "out" }, { "http://www.w3.org/", "out" },
		{ NULL, NULL },
	};
	check("the cycle's SCOPE as an include", ere, ere_cases);
}

static void
test_bad_rules(void)
{
	static const char *const bad[] = {
		"http://(org,example,)/", "+", "+~", "+~a(", "+example.org", "+ftp://(org,",
		"+http://(org,exa mple,)/", "+.", "+.p-df", "+.abcdefghijklmnopq", "*.pdf",
	};
	struct scope s;
	char why[512];
	scope_init(&s);
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		why[0] = '\0';
		ok(!scope_add(&s, bad[i], why, sizeof why) && why[0], "'%s' is refused: %s", bad[i],
		    why);
	}
	ok(s.n == 0, "and no rule was added");
	scope_free(&s);
}

int
main(void)
{
	test_surt();
	test_decisions();
	test_bad_rules();
	url_cleanup();
	return done_testing();
}
