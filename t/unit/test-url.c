/* URL canonical form, resolution, SURT keys and domains (url.h).  Every
 * expected value is written out by hand: RFC 3986 section 5.4 for the
 * resolution examples (fragments cut, as our canonical form says), the
 * public-suffix list's rules for domains. */
#include <stdio.h>
#include <string.h>

#include "tap.h"
#include "url.h"

/* want NULL: an error with the reason why. */
struct canon_case {
	const char *in, *want, *why;
};

static const struct canon_case canon_cases[] = {
	/* case and default ports */
	{ "http://example.com", "http://example.com/", NULL },
	{ "HTTP://Example.COM/Path", "http://example.com/Path", NULL },
	{ "HtTpS://EXAMPLE.com:443/", "https://example.com/", NULL },
	{ "http://example.com:80/x", "http://example.com/x", NULL },
	{ "https://example.com:443/x", "https://example.com/x", NULL },
	{ "http://example.com:443/", "http://example.com:443/", NULL },
	{ "https://example.com:80/", "https://example.com:80/", NULL },
	{ "http://example.com:8080/", "http://example.com:8080/", NULL },
	{ "http://example.com:08080/", "http://example.com:8080/", NULL },
	{ "http://example.com:080/", "http://example.com/", NULL },
	{ "http://example.com:/", "http://example.com/", NULL },
	{ "http://example.com:65535/", "http://example.com:65535/", NULL },
	{ "http://example.com:0/", NULL, "bad port" },
	{ "http://example.com:65536/", NULL, "bad port" },
	{ "http://example.com:99999/", NULL, "bad port" },
	{ "http://example.com:8o/", NULL, "bad port" },
	{ "http://example.com:80:80/", NULL, "bad port" },
	/* dot-segments */
	{ "http://example.com/a/./b/../c", "http://example.com/a/c", NULL },
	{ "http://example.com/../a", "http://example.com/a", NULL },
	{ "http://example.com/a/b/../../..", "http://example.com/", NULL },
	{ "http://example.com/a/%2e%2E/b", "http://example.com/b", NULL },
	{ "http://example.com/a/.%2e", "http://example.com/", NULL },
	{ "http://example.com/a/./", "http://example.com/a/", NULL },
	{ "http://example.com/a?b/../c", "http://example.com/a?b/../c", NULL },
	/* percent-encoding */
	{ "http://example.com/%41%7E%2d%5f%2E", "http://example.com/A~-_.", NULL },
	{ "http://Example.com/%7euser", "http://example.com/~user", NULL },
	{ "http://example.com/a%2Fb", "http://example.com/a%2Fb", NULL },
	{ "http://example.com/a%2fb", "http://example.com/a%2Fb", NULL },
	{ "http://example.com/%e4%C3%a4", "http://example.com/%E4%C3%A4", NULL },
	{ "http://example.com/%zz", "http://example.com/%25zz", NULL },
	{ "http://example.com/100%", "http://example.com/100%25", NULL },
	{ "http://example.com/%2", "http://example.com/%252", NULL },
	{ "http://example.com/%2525", "http://example.com/%2525", NULL },
	{ "http://example.com/?%2b%3d", "http://example.com/?%2B%3D", NULL },
	{ "http://example.com/a b", "http://example.com/a%20b", NULL },
	{ "http://example.com/?q=a b", "http://example.com/?q=a%20b", NULL },
	{ "http://example.com/?q=a+b", "http://example.com/?q=a+b", NULL },
	{ "http://example.com/\xc3\xa4?\xc3\xa4", "http://example.com/%C3%A4?%C3%A4", NULL },
	{ "http://example.com/<>\"{}|\\^`", "http://example.com/%3C%3E%22%7B%7D%7C%5C%5E%60", NULL },
	{ "http://example.com/[x]?[y]", "http://example.com/[x]?[y]", NULL },
	{ "http://example.com/a\x01" "b\x7f", "http://example.com/a%01b%7F", NULL },
	{ "http://example.com/@:!$&'()*+,;=", "http://example.com/@:!$&'()*+,;=", NULL },
	{ "http://example.com/a?b?c/d", "http://example.com/a?b?c/d", NULL },
	/* empty path and query, fragments */
	{ "http://example.com?x=1", "http://example.com/?x=1", NULL },
	{ "http://example.com/a?", "http://example.com/a", NULL },
	{ "http://example.com/?#frag", "http://example.com/", NULL },
	{ "http://example.com/a#frag", "http://example.com/a", NULL },
	{ "http://example.com/a#b#c", "http://example.com/a", NULL },
	{ "http://example.com#?x", "http://example.com/", NULL },
	{ "http://example.com/a%23b", "http://example.com/a%23b", NULL },
	/* userinfo */
	{ "http://user:pw@example.com/", "http://example.com/", NULL },
	{ "http://user@example.com:8080/", "http://example.com:8080/", NULL },
	{ "http://a@b@example.com/", "http://example.com/", NULL },
	{ "http://@example.com/", "http://example.com/", NULL },
	{ "http://user:pw@/", NULL, "no host" },
	/* IDN and host spelling */
	{ "http://b\xc3\xbc" "cher.de/", "http://xn--bcher-kva.de/", NULL },
	{ "http://B\xc3\x9c" "CHER.DE/", "http://xn--bcher-kva.de/", NULL },
	{ "http://xn--bcher-kva.de/", "http://xn--bcher-kva.de/", NULL },
	{ "http://XN--BCHER-KVA.DE/", "http://xn--bcher-kva.de/", NULL },
	{ "http://fa\xc3\x9f.de/", "http://xn--fa-hia.de/", NULL },
	{ "http://%62%C3%BC" "cher.de/", "http://xn--bcher-kva.de/", NULL },
	{ "http://\xef\xbc\xa5\xef\xbc\xb8.com/", "http://ex.com/", NULL },
	{ "http://www.b\xc3\xbc" "cher.de./a", "http://www.xn--bcher-kva.de/a", NULL },
	{ "http://example.com./", "http://example.com/", NULL },
	{ "http://a_b.example.com/", "http://a_b.example.com/", NULL },
	{ "http://example.com../", NULL, "bad host" },
	{ "http://.example.com/", NULL, "bad host" },
	{ "http://a..b/", NULL, "bad host" },
	{ "http://ex ample.com/", NULL, "bad host" },
	{ "http://ex%20ample.com/", NULL, "bad host" },
	{ "http://ex%2Fample.com/", NULL, "bad host" },
	{ "http://exa<mple.com/", NULL, "bad host" },
	{ "http://b\xc3\xbc" "cher.-de/", NULL, "bad host" },
	{ "http://\xff.de/", NULL, "bad host" },
	/* IPv4 */
	{ "http://127.0.0.1/", "http://127.0.0.1/", NULL },
	{ "http://0x7f.1/", "http://127.0.0.1/", NULL },
	{ "http://127.1/", "http://127.0.0.1/", NULL },
	{ "http://2130706433/", "http://127.0.0.1/", NULL },
	{ "http://127.0.0.1.:8080/", "http://127.0.0.1:8080/", NULL },
	{ "http://1.2.3.256/", NULL, "bad host" },
	{ "http://1.2.3.999/", NULL, "bad host" },
	{ "http://example.123/", NULL, "bad host" },
	{ "http://1.2.3.example/", "http://1.2.3.example/", NULL },
	/* IPv6 */
	{ "http://[::1]/", "http://[::1]/", NULL },
	{ "http://[::1]:8080/x", "http://[::1]:8080/x", NULL },
	{ "http://[::1]:80/", "http://[::1]/", NULL },
	{ "https://[2001:DB8::A]:443/", "https://[2001:db8::a]/", NULL },
	{ "http://[0:0:0:0:0:0:0:1]/", "http://[::1]/", NULL },
	{ "http://[::FFFF:1.2.3.4]/", "http://[::ffff:1.2.3.4]/", NULL },
	{ "http://[::1%25eth0]/", NULL, "bad host" },
	{ "http://[::1/", NULL, "bad host" },
	{ "http://[::1]x/", NULL, "bad host" },
	{ "http://[]/", NULL, "bad host" },
	{ "http://[1:2:3]/", NULL, "bad host" },
	/* whitespace */
	{ "  http://example.com/  ", "http://example.com/", NULL },
	{ "\thttp://exa\nmple.com/a\r\n", "http://example.com/a", NULL },
	{ "http://example.com/a\tb", "http://example.com/ab", NULL },
	{ "\x01http://example.com/\x1f", "http://example.com/", NULL },
	/* garbage and other schemes */
	{ "", NULL, "empty URL" },
	{ "   ", NULL, "empty URL" },
	{ "#x", NULL, "empty URL" },
	{ "http://", NULL, "no host" },
	{ "http:///x", NULL, "no host" },
	{ "http://:80/", NULL, "no host" },
	{ "http:g", NULL, "no host" },
	{ "http:/x", NULL, "no host" },
	{ "https:example.com", NULL, "no host" },
	{ "://x", NULL, "no scheme" },
	{ "example.com/x", NULL, "no scheme" },
	{ "//example.com/", NULL, "no scheme" },
	{ "javascript:alert(1)", NULL, "unsupported scheme" },
	{ "mailto:a@example.com", NULL, "unsupported scheme" },
	{ "data:text/plain,x", NULL, "unsupported scheme" },
	{ "ftp://example.com/", NULL, "unsupported scheme" },
	{ "file:///etc/passwd", NULL, "unsupported scheme" },
	{ "httpx://example.com/", NULL, "unsupported scheme" },
	{ "g:h", NULL, "unsupported scheme" },
};

struct resolve_case {
	const char *base, *ref, *want, *why;
};

#define B "http://a/b/c/d;p?q"

static const struct resolve_case resolve_cases[] = {
	/* RFC 3986 section 5.4.1 */
	{ B, "g:h", NULL, "unsupported scheme" },
	{ B, "g", "http://a/b/c/g", NULL },
	{ B, "./g", "http://a/b/c/g", NULL },
	{ B, "g/", "http://a/b/c/g/", NULL },
	{ B, "/g", "http://a/g", NULL },
	{ B, "//g", "http://g/", NULL },
	{ B, "?y", "http://a/b/c/d;p?y", NULL },
	{ B, "g?y", "http://a/b/c/g?y", NULL },
	{ B, "#s", "http://a/b/c/d;p?q", NULL },
	{ B, "g#s", "http://a/b/c/g", NULL },
	{ B, "g?y#s", "http://a/b/c/g?y", NULL },
	{ B, ";x", "http://a/b/c/;x", NULL },
	{ B, "g;x", "http://a/b/c/g;x", NULL },
	{ B, "g;x?y#s", "http://a/b/c/g;x?y", NULL },
	{ B, "", "http://a/b/c/d;p?q", NULL },
	{ B, ".", "http://a/b/c/", NULL },
	{ B, "./", "http://a/b/c/", NULL },
	{ B, "..", "http://a/b/", NULL },
	{ B, "../", "http://a/b/", NULL },
	{ B, "../g", "http://a/b/g", NULL },
	{ B, "../..", "http://a/", NULL },
	{ B, "../../", "http://a/", NULL },
	{ B, "../../g", "http://a/g", NULL },
	/* RFC 3986 section 5.4.2 */
	{ B, "../../../g", "http://a/g", NULL },
	{ B, "../../../../g", "http://a/g", NULL },
	{ B, "/./g", "http://a/g", NULL },
	{ B, "/../g", "http://a/g", NULL },
	{ B, "g.", "http://a/b/c/g.", NULL },
	{ B, ".g", "http://a/b/c/.g", NULL },
	{ B, "g..", "http://a/b/c/g..", NULL },
	{ B, "..g", "http://a/b/c/..g", NULL },
	{ B, "./../g", "http://a/b/g", NULL },
	{ B, "./g/.", "http://a/b/c/g/", NULL },
	{ B, "g/./h", "http://a/b/c/g/h", NULL },
	{ B, "g/../h", "http://a/b/c/h", NULL },
	{ B, "g;x=1/./y", "http://a/b/c/g;x=1/y", NULL },
	{ B, "g;x=1/../y", "http://a/b/c/y", NULL },
	{ B, "g?y/./x", "http://a/b/c/g?y/./x", NULL },
	{ B, "g?y/../x", "http://a/b/c/g?y/../x", NULL },
	{ B, "g#s/./x", "http://a/b/c/g", NULL },
	{ B, "g#s/../x", "http://a/b/c/g", NULL },
	{ B, "http:g", NULL, "no host" },
	/* ours */
	{ B, "?", "http://a/b/c/d;p", NULL },
	{ B, "%2e%2e/g", "http://a/b/g", NULL },
	{ B, "g h?a b", "http://a/b/c/g%20h?a%20b", NULL },
	{ B, "1a:b", "http://a/b/c/1a:b", NULL },
	{ B, "\\g", "http://a/b/c/%5Cg", NULL },
	{ B, "  g\n", "http://a/b/c/g", NULL },
	{ B, " ", "http://a/b/c/d;p?q", NULL },
	{ B, "HTTPS://X.org:443", "https://x.org/", NULL },
	{ B, "//user@X.org:81/p#f", "http://x.org:81/p", NULL },
	{ B, "javascript:void(0)", NULL, "unsupported scheme" },
	{ B, "mailto:a@b.c", NULL, "unsupported scheme" },
	{ B, "//", NULL, "no host" },
	{ "https://Ex.com:443/a/b#f", "c?d", "https://ex.com/a/c?d", NULL },
	{ "https://ex.com/a/b", "//other.org/x", "https://other.org/x", NULL },
	{ "http://ex.com/%7Ea/b c/d", "e", "http://ex.com/~a/b%20c/e", NULL },
	{ "ftp://ex.com/", "g", NULL, "bad base URL" },
	{ "/relative", "g", NULL, "bad base URL" },
};

struct pair_case {
	const char *url, *want;
};

static const struct pair_case surt_cases[] = {
	{ "http://www.example.com/a/b", "com,example,www)/a/b" },
	{ "http://example.com:8080/x?y=1", "com,example):8080/x?y=1" },
	{ "http://127.0.0.2:8080/", "127.0.0.2):8080/" },
	{ "https://example.com/", "com,example)/" },
	{ "http://example.com/", "com,example)/" },
	{ "http://[::1]:8080/x", "[::1]):8080/x" },
	{ "https://[2001:db8::1]/", "[2001:db8::1])/" },
	{ "http://localhost/", "localhost)/" },
	{ "http://a.b.c.example.co.uk/p?q", "uk,co,example,c,b,a)/p?q" },
	{ "http://xn--bcher-kva.de/%C3%A4", "de,xn--bcher-kva)/%C3%A4" },
	{ "http://10.0.0.1/", "10.0.0.1)/" },
	{ "http://1.2.3.example/", "example,3,2,1)/" },
	{ "https://a_b.example.com:8443/?x", "com,example,a_b):8443/?x" },
	{ "ftp://example.com/", NULL },
	{ "http://example.com", NULL },
	{ "http:///x", NULL },
	{ "http://example.com?x", NULL },
};

/* CDX keys as warcio.js 2.4's getSurt gives them (its cdx-index key),
 * but the last five, where url_canon's percent-encoding, trailing dot and
 * IPv4 part of an IPv6 address differ from the WHATWG parser's (url.h). */
static const struct pair_case cdx_key_cases[] = {
	{ "http://www.example.com/a/b", "com,example)/a/b" },
	{ "http://www2.Example.COM:8080/A/B?b=2&a=1&A=0#frag",
	    "com,example:8080)/a/b?a=0&a=1&b=2" },
	{ "https://WWW.example.com/", "com,example,www)/" },
	{ "http://www.www.example.com/", "com,example,www)/" },
	{ "http://wwwx.example.com/", "com,example,wwwx)/" },
	{ "http://example.com:80/x", "com,example)/x" },
	{ "https://example.com:443/", "com,example)/" },
	{ "https://example.com:80/", "com,example:80)/" },
	{ "http://127.0.0.1:8080/p", "1,0,0,127:8080)/p" },
	{ "http://[::1]:8080/x", "[::1]:8080)/x" },
	{ "http://[2001:DB8::1]/X", "[2001:db8::1])/x" },
	{ "http://example.com/?", "com,example)/" },
	{ "http://example.com/p?&b&a", "com,example)/p?&a&b" },
	{ "http://example.com/a/../b/./c", "com,example)/b/c" },
	{ "http://example.com/x?q=%2F", "com,example)/x?q=%2f" },
	{ "http://example.com", "com,example)/" },
	{ "http://user:pw@www.example.com/", "com,example,www)/" },
	{ "http://www.example.com/a b", "com,example)/a%20b" },
	{ "http://Bücher.de/", "de,xn--bcher-kva)/" },
	{ "http://example.com/?a=1;b=2", "com,example)/?a=1;b=2" },
	{ "metadata://gnu.org/x", "metadata://gnu.org/x" },
	{ "dns:example.com", "dns:example.com" },
	{ "HTTP://www.example.com/", "HTTP://www.example.com/" },
	{ "http://www.example.com:99999/X", "http://example.com:99999/X" },
	{ "http://example.com/%7Euser", "com,example)/~user" },
	{ "http://example.com/a|b", "com,example)/a%7cb" },
	{ "http://example.com/a\\b?c\\d", "com,example)/a/b?c%5cd" },
	{ "http://www.example.com.:8080/", "com,example:8080)/" },
	{ "http://[::ffff:1.2.3.4]:8080/", "[::ffff:1.2.3.4]:8080)/" },
};

static const struct pair_case host_cases[] = {
	{ "http://www.example.com:8080/x", "www.example.com" },
	{ "https://[::1]:8443/", "[::1]" },
	{ "http://127.0.0.1/", "127.0.0.1" },
	{ "http://xn--bcher-kva.de/", "xn--bcher-kva.de" },
	{ "mailto:x@example.com", NULL },
};

static const struct pair_case domain_cases[] = {
	{ "http://www.example.co.uk/", "example.co.uk" },
	{ "http://a.b.example.com/x", "example.com" },
	{ "http://example.com/", "example.com" },
	{ "https://co.uk/", "co.uk" },
	{ "http://com/", "com" },
	{ "http://localhost:8080/", "localhost" },
	{ "http://127.0.0.1/", "127.0.0.1" },
	{ "http://[::1]/", "[::1]" },
	{ "http://x.blogspot.com/", "x.blogspot.com" },
	{ "http://user.github.io/", "user.github.io" },
	{ "http://www.xn--bcher-kva.de/", "xn--bcher-kva.de" },
	{ "http://shop.example.xn--p1ai/", "example.xn--p1ai" },
	{ "http://a.b.example.com.au/", "example.com.au" },
	{ "http:/x", NULL },
};

/* The test's name: s with control, space and non-ASCII bytes escaped. */
static const char *
show(const char *s)
{
	static char buf[4][160];
	static int next;
	char *b = buf[next++ % 4], *d = b;
	for (; *s && d < b + sizeof buf[0] - 8; s++) {
		unsigned char c = (unsigned char)*s;
		if (c <= ' ' || c >= 0x7f)
			d += sprintf(d, "\\x%02x", c);
		else
			*d++ = (char)c;
	}
	strcpy(d, *s ? "..." : "");
	return b;
}

/* Checks a result against want, or the reason against why. */
static void
check(bool got_ok, const char *got, const char *got_why, const char *want, const char *why,
    const char *name)
{
	if (want)
		is_str(got_ok ? got : NULL, want, "%s -> %s", name, want);
	else
		is_str(got_ok ? got : got_why, why, "%s fails: %s", name, why);
}

static void
test_canon(void)
{
	char out[URL_BUFSIZE], again[URL_BUFSIZE];
	const char *why, *why2;
	int fixed = 0, n = 0;
	for (size_t i = 0; i < sizeof canon_cases / sizeof canon_cases[0]; i++) {
		const struct canon_case *c = &canon_cases[i];
		bool r = url_canon(c->in, out, &why);
		char name[200];
		snprintf(name, sizeof name, "\"%s\"", show(c->in));
		check(r, out, why, c->want, c->why, name);
		if (r) {
			/* The canonical form is a fixed point. */
			n++;
			if (url_canon(out, again, &why2) && strcmp(again, out) == 0)
				fixed++;
			else
				diag("not a fixed point: %s", out);
		}
	}
	ok(fixed == n, "canonicalising again changes none of the %d canonical URLs", n);
}

/* url_canon with and without its fast path for canonical input. */
static bool
both_ways_agree(const char *in)
{
	char fast[URL_BUFSIZE], slow[URL_BUFSIZE];
	const char *fast_why = NULL, *slow_why = NULL;
	url_fast_path = true;
	bool f = url_canon(in, fast, &fast_why);
	url_fast_path = false;
	bool s = url_canon(in, slow, &slow_why);
	url_fast_path = true;
	if (f == s && (f ? strcmp(fast, slow) == 0 : strcmp(fast_why, slow_why) == 0))
		return true;
	diag("\"%s\": fast path %s, libcurl's parse %s", show(in), f ? fast : fast_why,
	    s ? slow : slow_why);
	return false;
}

/* url_resolve takes a canonical base as it is (the fast path) and cleans
 * any other through libcurl first; either way it merges the reference
 * itself (RFC 3986 sec. 5.2). */
static void
test_resolve_fast_path(void)
{
	static const char *const bases[] = {
		"http://a.example/b/c/d;p?q", "https://a.example:8443/", "http://a.example/x?y=/z/",
		"http://[2001:db8::1]/d/", "http://a.example/dir/",
		"http://a.example:8080/b/c/d.html", "http://a.example:8080/", "http://a.example/b/c/?q=/./..",
	};
	static const char *const refs[] = {
		"", "#f", "?", "?q=1", "?q=1#f", "g", "./g", "g/", "/g", "//g", "//G.Example:80/x",
		"g?y", "#s", "g#s", "g?y#s", ";x", "g;x", "g;x?y#s", ".", "./", "..", "../",
		"../g", "../..", "../../", "../../g", "../../../g", "../../../../g", "/./g",
		"/../g", "g.", ".g", "g..", "..g", "./../g", "./g/.", "g/./h", "g/../h",
		"g;x=1/./y", "g;x=1/../y", "%2e%2E/x", "a%2fb", "%41%7e%7E", "a b", "caf\xc3\xa9",
		"\\x\\y", "1a:b", ":x", "g:h", "http:g", "HTTP://X.Example/../y",
		"https://x.example:443/p", "mailto:a@b", "javascript:x()", "data:,x",
		"ftp://x/", "//", "///x", "  \t/spaced \n", "x\ty", "[x]", "{x}|^`",
		"?a=1&b=%zz", "//a.example:99999/", "//user:pw@h.example/", "g?", "%",
		"http://h.example/a/%2E%2e/b", "//xn--bcher-kva.example/", "//b\xc3\xbc" "cher.example/",
	};
	int agree = 0, total = 0;
	for (size_t i = 0; i < sizeof bases / sizeof *bases; i++)
		for (size_t j = 0; j < sizeof refs / sizeof *refs; j++) {
			char a[URL_BUFSIZE], b[URL_BUFSIZE];
			const char *why;
			const char *why_fast = "";
			url_fast_path = true;
			bool ra = url_resolve(bases[i], refs[j], a, &why_fast);
			url_fast_path = false;
			bool rb = url_resolve(bases[i], refs[j], b, &why);
			url_fast_path = true;
			total++;
			if (ra == rb && (ra ? strcmp(a, b) == 0 : strcmp(why_fast, why) == 0))
				agree++;
			else
				diag("%s + \"%s\": %s, url_resolve %s", bases[i], refs[j],
				    ra ? a : why_fast, rb ? b : why);
		}
	/* Random references of dot-segments, slashes and queries. */
	static const char ref_bytes[] = "./a?%2E;";
	unsigned long r = 4242;
	for (int i = 0; i < 20000; i++) {
		char ref[24], a[URL_BUFSIZE], b[URL_BUFSIZE];
		const char *why = "", *why_fast = "";
		int len = 1 + (int)((r >> 7) % 16);
		for (int k = 0; k < len; k++) {
			r = r * 6364136223846793005UL + 1442695040888963407UL;
			ref[k] = ref_bytes[(r >> 33) % (sizeof ref_bytes - 1)];
		}
		ref[len] = '\0';
		const char *base = bases[(r >> 40) % (sizeof bases / sizeof *bases)];
		url_fast_path = true;
		bool ra = url_resolve(base, ref, a, &why_fast);
		url_fast_path = false;
		bool rb = url_resolve(base, ref, b, &why);
		url_fast_path = true;
		total++;
		if (ra == rb && (ra ? strcmp(a, b) == 0 : strcmp(why_fast, why) == 0))
			agree++;
		else
			diag("%s + \"%s\": %s, url_resolve %s", base, ref,
			    ra ? a : why_fast, rb ? b : why);
	}
	ok(agree == total, "url_resolve's merge agrees with libcurl's (%d of %d)",
	    agree, total);
}

static void
test_fast_path(void)
{
	static const char *const edges[] = {
		"http://example.com/", "https://a.b-c.d/x/y?z=1&w", "http://x.example/a//b",
		"http://x.example/a/.b/..c/", "http://x.example/.", "http://x.example/a/..",
		"http://x.example/./a", "http://x.example/a/../b", "http://x.example/?",
		"http://x.example/a?b/../c", "http://x.example/a?./", "http://1.2.3.4/",
		"http://a.1/", "http://a.b1/", "http://-a-.example/", "http://a..b/", "http://a./",
		"http://.a/", "http://x.example/a[1]", "http://x.example/~u_s!$&'()*+,;=:@",
		"http://x.example", "http://x.example?q", "http://x.example:80/",
		"http://x.example/%41", "http://xn--bcher-kva.example/", "http://x.example/a?%zz",
		"http://EXAMPLE.com/", "http://x_y.example/", "http://x.example/a b",
		"http://x.example/\xc3\xa4", "http://x.example/a\\b", "http://x.example/a?b#c",
		"https://x.example:443/", "http://x.example/a?b?c", "http:/x.example/",
		"http://x.example/a/%2e/", "http://0x7f.1/", "http://x.example/.a./..b",
		"http://x.example:8080/", "http://x.example:8080", "http://x.example:0/",
		"http://x.example:080/", "http://x.example:443/", "https://x.example:80/",
		"http://x.example:65535/", "http://x.example:65536/", "http://x.example:99999999999/",
		"http://x.example:/", "http://x.example:8080:80/", "http://x.example:8a/",
		"http://1.2.3.4:8080/a", "http://x.example:8080/a/../b",
	};
	unsigned agree = 0, total = 0;
	for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++, total++)
		agree += both_ways_agree(edges[i]);
	for (size_t i = 0; i < sizeof canon_cases / sizeof canon_cases[0]; i++, total += 2) {
		agree += both_ways_agree(canon_cases[i].in);
		agree += canon_cases[i].want ? both_ways_agree(canon_cases[i].want) : 1;
	}
	/* Random URLs over the bytes that matter to either way. */
	static const char host_bytes[] = "ab1.-A_", path_bytes[] = "a1./?%[]~:@!2E";
	unsigned long r = 12345;
	char in[80];
	for (int i = 0; i < 20000; i++, total++) {
		size_t n = (size_t)sprintf(in, "%s://", (r >> 3) & 1 ? "http" : "https");
		for (int k = 0, len = 1 + (int)((r >> 5) % 8); k < len; k++) {
			r = r * 6364136223846793005UL + 1442695040888963407UL;
			in[n++] = host_bytes[(r >> 33) % (sizeof host_bytes - 1)];
		}
		/* A port, now and then, of digits that may not make one. */
		if ((r >> 50) % 4 == 0) {
			in[n++] = ':';
			for (int k = 0, len = (int)((r >> 52) % 7); k < len; k++) {
				r = r * 6364136223846793005UL + 1442695040888963407UL;
				in[n++] = (char)('0' + (r >> 33) % 10);
			}
		}
		in[n++] = '/';
		for (int k = 0, len = (int)((r >> 40) % 10); k < len; k++) {
			r = r * 6364136223846793005UL + 1442695040888963407UL;
			in[n++] = path_bytes[(r >> 33) % (sizeof path_bytes - 1)];
		}
		in[n] = '\0';
		r = r * 6364136223846793005UL + 1442695040888963407UL;
		agree += both_ways_agree(in);
	}
	ok(agree == total, "the fast path for canonical input gives what libcurl's parse gives, "
	    "on %u inputs", total);
}

static void
test_lengths(void)
{
	static char in[3 * URL_MAX], want[URL_BUFSIZE];
	char out[URL_BUFSIZE];
	const char *why;
	size_t prefix = strlen("http://example.com/");

	/* Exactly URL_MAX bytes is allowed. */
	memset(in, 'a', URL_MAX);
	memcpy(in, "http://example.com/", prefix);
	in[URL_MAX] = '\0';
	strcpy(want, in);
	is_str(url_canon(in, out, &why) ? out : why, want, "a URL of 8192 bytes is kept");

	in[URL_MAX] = 'a';
	in[URL_MAX + 1] = '\0';
	is_str(url_canon(in, out, &why) ? out : why, "URL longer than 8192 bytes",
	    "a URL of 8193 bytes fails");

	/* Dot-segments shrink a long input below the limit, but the input
	 * itself is too long already. */
	in[URL_MAX + 1] = '/';
	memcpy(in + URL_MAX + 2, "..", 3);
	is_str(url_canon(in, out, &why) ? out : why, "URL longer than 8192 bytes",
	    "an input of 8196 bytes fails even if its canonical form is short");

	/* 3000 raw two-byte characters: 6019 bytes in, 18019 encoded. */
	memcpy(in, "http://example.com/", prefix);
	for (size_t i = 0; i < 3000; i++)
		memcpy(in + prefix + 2 * i, "\xc3\xa4", 2);
	in[prefix + 6000] = '\0';
	is_str(url_canon(in, out, &why) ? out : why, "URL longer than 8192 bytes",
	    "a URL whose encoding grows past 8192 bytes fails");

	/* A long fragment does not count. */
	memcpy(in, "http://example.com/#", prefix + 1);
	memset(in + prefix + 1, 'f', URL_MAX);
	in[prefix + 1 + URL_MAX] = '\0';
	is_str(url_canon(in, out, &why) ? out : why, "http://example.com/",
	    "a fragment longer than 8192 bytes is cut, not counted");
}

static void
test_resolve(void)
{
	char out[URL_BUFSIZE];
	const char *why;
	for (size_t i = 0; i < sizeof resolve_cases / sizeof resolve_cases[0]; i++) {
		const struct resolve_case *c = &resolve_cases[i];
		char name[400];
		snprintf(name, sizeof name, "resolve \"%s\"", show(c->ref));
		if (strcmp(c->base, B) != 0)
			snprintf(name, sizeof name, "resolve \"%s\" on %s", show(c->ref),
			    show(c->base));
		bool r = url_resolve(c->base, c->ref, out, &why);
		check(r, out, why, c->want, c->why, name);
	}
}

static void
test_pairs(const char *what, bool (*fn)(const char *, char *), const struct pair_case *c,
    size_t n)
{
	char out[URL_BUFSIZE];
	for (size_t i = 0; i < n; i++) {
		bool r = fn(c[i].url, out);
		if (c[i].want)
			is_str(r ? out : NULL, c[i].want, "%s of %s is %s", what, c[i].url,
			    c[i].want);
		else
			ok(!r, "%s of %s fails: not a canonical URL", what, c[i].url);
	}
}

/* url_from_surt undoes url_surt: on the keys above, and on the key of
 * every canonical URL of the canonicalisation cases. */
static void
test_from_surt(void)
{
	char url[URL_BUFSIZE], key[URL_BUFSIZE], canon_url[URL_BUFSIZE];
	for (size_t i = 0; i < sizeof surt_cases / sizeof surt_cases[0]; i++) {
		if (!surt_cases[i].want)
			continue;
		bool https = strncmp(surt_cases[i].url, "https:", 6) == 0;
		size_t n = url_from_surt(surt_cases[i].want, https, url);
		is_str(n == strlen(url) ? url : NULL, surt_cases[i].url, "URL of the SURT key %s%s",
		    surt_cases[i].want, https ? " and https" : "");
	}
	unsigned back = 0, total = 0;
	const char *why;
	for (size_t i = 0; i < sizeof canon_cases / sizeof canon_cases[0]; i++) {
		if (!url_canon(canon_cases[i].in, canon_url, &why))
			continue;
		total++;
		url[0] = '\0';
		if (url_surt(canon_url, key) &&
		    url_from_surt(key, canon_url[4] == 's', url) == strlen(canon_url) &&
		    strcmp(url, canon_url) == 0)
			back++;
		else
			diag("%s: its SURT key gives back %s", canon_url, url);
	}
	ok(back == total && total >= 50, "the SURT key and the scheme give back each of %u URLs",
	    total);
	ok(url_from_surt("no host", false, url) == 0 && url_from_surt(")/", true, url) == 0,
	    "a key without a host gives no URL");
}

static void
test_cdx_keys(void)
{
	for (size_t i = 0; i < sizeof cdx_key_cases / sizeof *cdx_key_cases; i++) {
		char *key = url_cdx_key(cdx_key_cases[i].url);
		is_str(key, cdx_key_cases[i].want, "CDX key of %s is %s",
		    show(cdx_key_cases[i].url), cdx_key_cases[i].want);
		free(key);
	}
}

static int
order(const void *a, const void *b)
{
	char ka[URL_BUFSIZE], kb[URL_BUFSIZE];
	const char *ua = *(const char *const *)a, *ub = *(const char *const *)b;
	url_surt(ua, ka);
	url_surt(ub, kb);
	return url_surt_cmp(ka, ua, kb, ub);
}

static void
test_order(void)
{
	const char *urls[] = {
		"http://example.org/",
		"https://www.example.com/",
		"http://example.com:8080/",
		"http://www.example.com/",
		"https://example.com/b",
		"http://example-x.com/",
		"http://example.com/a",
		"http://a.www.example.com/",
		"http://127.0.0.1/",
	};
	const char *want[] = {
		"http://127.0.0.1/",
		"http://example.com/a",
		"https://example.com/b",
		"http://example.com:8080/",
		"http://www.example.com/",
		"https://www.example.com/",
		"http://a.www.example.com/",
		"http://example-x.com/",
		"http://example.org/",
	};
	size_t n = sizeof urls / sizeof urls[0];
	qsort(urls, n, sizeof urls[0], order);
	bool same = true;
	for (size_t i = 0; i < n; i++)
		if (strcmp(urls[i], want[i]) != 0) {
			diag("position %zu: %s, expected %s", i, urls[i], want[i]);
			same = false;
		}
	ok(same, "(SURT key, URL) order: a host's URLs together, subdomains after their parent");
}

/* Hosts in canonical URLs against independent sources, each row
 * with the value its source gives:
 *   - RFC 5952 (Kawamura, Kawashima, "A Recommendation for IPv6 Address
 *     Text Representation", 2010), the examples of sections 4 and 5;
 *   - the web-platform-tests URL data (url/resources/urltestdata.json of
 *     github.com/web-platform-tests/wpt), rows about hosts, input and
 *     expected href or failure as there;
 *   - Unicode's IdnaTestV2.txt (UTS #46 conformance data), rows whose
 *     toAsciiN value or error is taken over as the host, and the validity
 *     criteria of UTS #46 section 4.1 for a decoded A-label.
 * Where wa departs from a source on purpose, the row says so and gives
 * wa's value: an IPv6 address carrying an IPv4 address is written with
 * it in dotted decimal (RFC 5952 sec. 5) where the WHATWG serialiser
 * writes hex; a host ending in a number that libcurl does not read as an
 * IPv4 address is refused; a symbol that IDNA2008 disallows is refused
 * though UTS #46 lets it pass. */
struct host_case {
	const char *in, *want;	/* want NULL: refused */
	const char *source;
};

static const struct host_case host_source_cases[] = {
	/* RFC 5952 sec. 4.1: no leading zeros */
	{ "http://[2001:0db8::0001]/", "http://[2001:db8::1]/", "RFC 5952 4.1" },
	/* sec. 4.2.1: "::" as far as it goes */
	{ "http://[2001:db8:0:0:0:0:2:1]/", "http://[2001:db8::2:1]/", "RFC 5952 4.2.1" },
	{ "http://[2001:db8::0:1]/", "http://[2001:db8::1]/", "RFC 5952 4.2.1" },
	/* sec. 4.2.2: not for one 16-bit 0 field */
	{ "http://[2001:db8::1:1:1:1:1]/", "http://[2001:db8:0:1:1:1:1:1]/", "RFC 5952 4.2.2" },
	/* sec. 4.2.3: the longest run, the first of equal ones */
	{ "http://[2001:0:0:1:0:0:0:1]/", "http://[2001:0:0:1::1]/", "RFC 5952 4.2.3" },
	{ "http://[2001:db8:0:0:1:0:0:1]/", "http://[2001:db8::1:0:0:1]/", "RFC 5952 4.2.3" },
	/* sec. 4.3: lower case */
	{ "http://[2001:DB8::1]/", "http://[2001:db8::1]/", "RFC 5952 4.3" },
	/* sec. 5: an IPv4-mapped address in mixed notation */
	{ "http://[::ffff:192.0.2.1]/", "http://[::ffff:192.0.2.1]/", "RFC 5952 5" },
	{ "http://[::ffff:c000:201]/", "http://[::ffff:192.0.2.1]/", "RFC 5952 5" },
	{ "http://[0:0:0:0:0:ffff:192.0.2.1]/", "http://[::ffff:192.0.2.1]/", "RFC 5952 5" },

	/* WPT urltestdata.json, IPv6 */
	{ "http://[2001::1]", "http://[2001::1]/", "WPT" },
	{ "http://[2001::1]:80", "http://[2001::1]/", "WPT" },
	{ "http://[::127.0.0.1]", "http://[::127.0.0.1]/", "WPT [::7f00:1]; RFC 5952 5" },
	{ "http://[::7f00:1]", "http://[::127.0.0.1]/", "one form for [::127.0.0.1]" },
	{ "http://[0:0:0:0:0:0:13.1.68.3]", "http://[::13.1.68.3]/",
	  "WPT [::d01:4403]; RFC 5952 5" },
	{ "http://[::d01:4403]", "http://[::13.1.68.3]/", "one form for it" },
	{ "http://[1::2]:3:4", NULL, "WPT" },
	{ "http://2001::1", NULL, "WPT" },
	{ "http://2001::1]", NULL, "WPT" },
	{ "http://[::1.2.3.]", NULL, "WPT" },
	{ "http://[::1.2.]", NULL, "WPT" },
	{ "http://[::1.]", NULL, "WPT" },
	{ "http://[::1.2.3.4x]", NULL, "WPT" },
	{ "http://[0:1:2:3:4:5:6:7:8]", NULL, "WPT" },
	{ "http://[::%31]", NULL, "WPT" },
	{ "http://%5B::1]", NULL, "WPT" },
	{ "http://[www.google.com]/", NULL, "WPT" },

	/* WPT, IPv4 in any radix; a last label that is a number */
	{ "http://0Xc0.0250.01", "http://192.168.0.1/", "WPT" },
	{ "http://192.0x00A80001", "http://192.168.0.1/", "WPT" },
	{ "http://0xffffffff", "http://255.255.255.255/", "WPT" },
	{ "http://1.2.3.4.", "http://1.2.3.4/", "WPT" },
	{ "http://%30%78%63%30%2e%30%32%35%30.01", "http://192.168.0.1/", "WPT" },
	{ "http://\xef\xbc\x90\xef\xbc\xb8\xef\xbd\x83\xef\xbc\x90\xef\xbc\x8e"
	  "\xef\xbc\x90\xef\xbc\x92\xef\xbc\x95\xef\xbc\x90\xef\xbc\x8e\xef\xbc\x90"
	  "\xef\xbc\x91", "http://192.168.0.1/", "WPT (fullwidth 0Xc0.0250.01)" },
	{ "http://192.168.0.257", NULL, "WPT" },
	{ "http://256.256.256.256", NULL, "WPT" },
	{ "http://4294967296", NULL, "WPT" },
	{ "http://0xffffffff1", NULL, "WPT" },
	{ "http://0x100000000", NULL, "WPT" },
	{ "http://0999999999999999999/", NULL, "WPT" },
	{ "http://0x100.2.3.4.", NULL, "WPT" },
	{ "http://0x1.2.3.4.5", NULL, "WPT" },
	{ "http://foo.1.2.3.4", NULL, "WPT" },
	{ "http://foo.2.3.4", NULL, "WPT" },
	{ "http://foo.09", NULL, "WPT" },
	{ "http://foo.0x4", NULL, "WPT" },
	{ "http://foo.0x4.", NULL, "WPT" },
	{ "http://foo.0x", NULL, "WPT" },
	{ "http://foo.0XFfFfFfFfFfFfFfFfFfAcE123", NULL, "WPT" },
	{ "http://0x.0x.0", NULL, "WPT 0.0.0.0; libcurl reads no empty hex number" },
	{ "http://foo.0x7g/", "http://foo.0x7g/", "no hexadecimal number" },
	{ "http://0177.0.0.1/", "http://127.0.0.1/", "octal" },
	{ "http://0x7f000001/", "http://127.0.0.1/", "hexadecimal" },

	/* WPT, IDN */
	{ "http://fa\xc3\x9f.ExAmPlE/", "http://xn--fa-hia.example/", "WPT" },
	{ "http://www.foo\xe3\x80\x82" "bar.com", "http://www.foo.bar.com/", "WPT" },
	{ "http://\xef\xbc\xa7\xef\xbd\x8f.com", "http://go.com/", "WPT" },
	{ "http://\xe4\xbd\xa0\xe5\xa5\xbd\xe4\xbd\xa0\xe5\xa5\xbd", "http://xn--6qqa088eba/", "WPT" },
	{ "http://GOO\xe2\x80\x8b\xe2\x81\xa0\xef\xbb\xbfgoo.com", "http://googoo.com/", "WPT" },
	{ "http://a.b.c.xn--pokxncvks", NULL, "WPT" },
	{ "http://10.0.0.xn--pokxncvks", NULL, "WPT" },
	{ "http://a.b.c.XN--pokxncvks", NULL, "WPT" },
	{ "http://\xef\xbc\x85\xef\xbc\x94\xef\xbc\x91.com", NULL, "WPT" },

	/* IdnaTestV2, toAsciiN */
	{ "http://fass.de/", "http://fass.de/", "IdnaTestV2" },
	{ "http://fa\xc3\x9f.de/", "http://xn--fa-hia.de/", "IdnaTestV2" },
	{ "http://Fa\xc3\x9f.de/", "http://xn--fa-hia.de/", "IdnaTestV2" },
	{ "http://xn--fa-hia.de/", "http://xn--fa-hia.de/", "IdnaTestV2" },
	{ "http://\xce\xb2\xce\xbf\xcc\x81\xce\xbb\xce\xbf\xcf\x82.com/",
	  "http://xn--nxasmm1c.com/", "IdnaTestV2" },
	{ "http://A\xe0\xa5\x8d\xe2\x80\x8c" "B/", "http://xn--ab-fsf604u/", "IdnaTestV2" },
	{ "http://A\xe0\xa5\x8d\xe2\x80\x8d" "B/", "http://xn--ab-fsf014u/", "IdnaTestV2" },
	{ "http://xn--ab-fsf604u/", "http://xn--ab-fsf604u/", "IdnaTestV2" },
	{ "http://a\xcc\x80.\xd7\x90\xcc\x88/", "http://xn--0ca.xn--ssa73l/", "IdnaTestV2" },
	{ "http://xn--0ca.xn--ssa73l/", "http://xn--0ca.xn--ssa73l/", "IdnaTestV2" },
	{ "http://xn--0ca81i.xn--4db/", "http://xn--0ca81i.xn--4db/", "IdnaTestV2" },
	{ "http://BU\xcc\x88" "CHER.DE/", "http://xn--bcher-kva.de/", "IdnaTestV2" },
	{ "http://www.eXample.cOm/", "http://www.example.com/", "IdnaTestV2" },
	{ "http://\xc3\xa0\xd7\x90/", NULL, "IdnaTestV2 [B5, B6]: the bidi rule" },
	{ "http://0\xc3\xa0.\xd7\x90/", NULL, "IdnaTestV2 [B1]: the bidi rule across labels" },
	{ "http://xn--0-sfa.xn--4db/", NULL, "IdnaTestV2 [B1], as A-labels" },
	{ "http://0a.\xd7\x90/", NULL, "IdnaTestV2 [B1]" },
	{ "http://0a.xn--4db/", NULL, "IdnaTestV2 [B1], an A-label" },
	{ "http://\xc3\xa0.\xd7\x90" "0\xd9\xa0\xd7\x90/", NULL, "IdnaTestV2 [B4]" },
	{ "http://a\xe2\x80\x8c" "b/", NULL, "IdnaTestV2 [C1]" },
	{ "http://xn--ab-j1t/", NULL, "IdnaTestV2 [C1], as an A-label" },
	{ "http://xn--aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/", NULL,
	  "IdnaTestV2 (U+0080s)" },
	{ "http://xn--0ca24w/", NULL, "IdnaTestV2 [B5, B6], as an A-label" },
	{ "http://xn--a.pt/", NULL, "IdnaTestV2: no Punycode" },
	/* UTS #46 sec. 4.1, the validity of a decoded A-label */
	{ "http://xn--u-ccb.com/", NULL, "UTS #46 4.1: not NFC" },
	{ "http://xn--0.pt/", NULL, "UTS #46 4.1: no Punycode" },
	{ "http://xn--a-.com/", NULL, "UTS #46 4.1: an A-label of ASCII" },
	{ "http://xn--7a/", NULL, "IdnaTestV2 valid; IDNA2008 disallows U+00A1" },
	{ "http://xn--ls8h.la/", NULL, "as the U-label below" },
	{ "http://\xf0\x9f\x92\xa9.la/", NULL, "IDNA2008 disallows U+1F4A9" },
};

/* A canonical form must come back unchanged (and by the fast path). */
static void
test_host(const struct host_case *c)
{
	char out[URL_BUFSIZE], again[URL_BUFSIZE];
	const char *why = NULL;
	bool got = url_canon(c->in, out, &why);
	is_str(got ? out : NULL, c->want, "%s (%s)", c->in, c->source);
	if (got && c->want)
		is_str(url_canon(out, again, &why) ? again : NULL, out, "  %s is canonical", out);
}

int
main(void)
{
	test_canon();
	test_fast_path();
	test_resolve_fast_path();
	test_lengths();
	test_resolve();
	test_pairs("SURT key", url_surt, surt_cases, sizeof surt_cases / sizeof surt_cases[0]);
	test_from_surt();
	test_pairs("host", url_host, host_cases, sizeof host_cases / sizeof host_cases[0]);
	test_pairs("registrable domain", url_registrable_domain, domain_cases,
	    sizeof domain_cases / sizeof domain_cases[0]);
	test_cdx_keys();
	test_order();
	for (size_t i = 0; i < sizeof host_source_cases / sizeof *host_source_cases; i++)
		test_host(&host_source_cases[i]);
	url_cleanup();
	return done_testing();
}
