/* Hosts in canonical URLs (url.h) against independent sources, each row
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
#include <stdio.h>
#include <string.h>

#include "tap.h"
#include "url.h"

struct host_case {
	const char *in, *want;	/* want NULL: refused */
	const char *source;
};

static const struct host_case cases[] = {
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
check(const struct host_case *c)
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
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
		check(&cases[i]);
	url_cleanup();
	return done_testing();
}
