/* The library pieces of wa-fetch against hand-computed values: the
 * address classes of netaddr.c (IANA special-purpose registries) and its
 * blocks (--allow-net), the
 * decoded-size counter of decoded.c against zlib's own compressor, and
 * the politeness order of sites.c (the string map has t/strmap.t). */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <zlib.h>

#include "decoded.h"
#include "netaddr.h"
#include "sites.h"
#include "tap.h"
#include "wa.h"

static bool
public4(const char *s)
{
	struct sockaddr_in in = { .sin_family = AF_INET };
	if (inet_pton(AF_INET, s, &in.sin_addr) != 1)
		abort();
	return netaddr_is_public((struct sockaddr *)&in);
}

static bool
public6(const char *s)
{
	struct sockaddr_in6 in6 = { .sin6_family = AF_INET6 };
	if (inet_pton(AF_INET6, s, &in6.sin6_addr) != 1)
		abort();
	return netaddr_is_public((struct sockaddr *)&in6);
}

static void
test_netaddr(void)
{
	static const char *blocked4[] = { "0.0.0.0", "10.1.2.3", "100.64.0.1",
	    "100.127.255.255", "127.0.0.1", "127.200.3.4", "169.254.169.254",
	    "172.16.0.1", "172.31.255.255", "192.0.0.8", "192.168.1.1",
	    "198.18.0.1", "198.19.255.255", "224.0.0.1", "239.255.255.250",
	    "240.0.0.1", "255.255.255.255" };
	static const char *public4s[] = { "1.1.1.1", "8.8.8.8", "100.63.255.255",
	    "100.128.0.0", "172.15.255.255", "172.32.0.0", "192.0.1.1",
	    "192.169.0.1", "198.17.255.255", "198.20.0.0", "223.255.255.255",
	    "93.184.216.34" };
	static const char *blocked6[] = { "::", "::1", "fc00::1", "fd12:3456::1",
	    "fe80::1", "febf::1", "fec0::1", "ff02::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1",
	    "64:ff9b::192.168.0.1" };
	static const char *public6s[] = { "2001:4860:4860::8888", "2606:4700::1111",
	    "::ffff:8.8.8.8", "64:ff9b::8.8.8.8" };

	for (size_t i = 0; i < sizeof blocked4 / sizeof *blocked4; i++)
		ok(!public4(blocked4[i]), "%s is not public", blocked4[i]);
	for (size_t i = 0; i < sizeof public4s / sizeof *public4s; i++)
		ok(public4(public4s[i]), "%s is public", public4s[i]);
	for (size_t i = 0; i < sizeof blocked6 / sizeof *blocked6; i++)
		ok(!public6(blocked6[i]), "%s is not public", blocked6[i]);
	for (size_t i = 0; i < sizeof public6s / sizeof *public6s; i++)
		ok(public6(public6s[i]), "%s is public", public6s[i]);
}

/* Compresses n bytes of text with zlib: gzip, zlib or raw deflate. */
static unsigned char *
compress_with(int window_bits, const unsigned char *in, size_t n, size_t *out_len)
{
	z_stream z = { 0 };
	size_t cap = n + 1024;
	unsigned char *out = wa_malloc(cap);
	if (deflateInit2(&z, 9, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		abort();
	z.next_in = (unsigned char *)(uintptr_t)in;
	z.avail_in = (uInt)n;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	if (deflate(&z, Z_FINISH) != Z_STREAM_END)
		abort();
	*out_len = cap - z.avail_out;
	deflateEnd(&z);
	return out;
}

/* Feeds the encoded body in pieces of step bytes, as a network would. */
static uint64_t
count(const char *coding, const unsigned char *data, size_t n, size_t step,
    uint64_t limit, bool *within)
{
	struct decoded d;
	decoded_init(&d, coding, NULL, NULL);
	*within = true;
	for (size_t i = 0; i < n && *within; i += step)
		*within = decoded_feed(&d, data + i, n - i < step ? n - i : step, limit);
	decoded_end(&d);
	return d.bytes;
}

static bool
in_block(const char *addr, const char *block)
{
	struct sockaddr_storage ss = { 0 };
	struct netaddr_block b;
	if (!netaddr_block_parse(block, &b))
		abort();
	if (strchr(addr, ':')) {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
		in6->sin6_family = AF_INET6;
		if (inet_pton(AF_INET6, addr, &in6->sin6_addr) != 1)
			abort();
	} else {
		struct sockaddr_in *in = (struct sockaddr_in *)&ss;
		in->sin_family = AF_INET;
		if (inet_pton(AF_INET, addr, &in->sin_addr) != 1)
			abort();
	}
	return netaddr_in_block((struct sockaddr *)&ss, &b);
}

static void
test_netaddr_blocks(void)
{
	static const struct { const char *addr, *block; bool in; } cases[] = {
		{ "127.1.2.3", "127.1.2.0/24", true },
		{ "127.1.3.3", "127.1.2.0/24", false },
		{ "10.200.0.1", "10.192.0.0/10", true },
		{ "10.128.0.1", "10.192.0.0/10", false },
		{ "192.168.7.7", "192.168.7.7", true },
		{ "192.168.7.8", "192.168.7.7", false },
		{ "8.8.8.8", "0.0.0.0/0", true },
		{ "::ffff:127.1.2.9", "127.1.2.0/24", true },
		{ "::ffff:127.1.9.9", "127.1.2.0/24", false },
		{ "127.1.2.3", "::ffff:0:0/96", false },
		{ "fd00:1::5", "fd00:1::/32", true },
		{ "fd00:2::5", "fd00:1::/32", false },
		{ "fe80::1", "fc00::/7", false },
		{ "fd00:1::5", "fc00::/7", true },
		{ "::1", "::1", true },
	};
	static const char *bad[] = { "", "/8", "10.0.0.0/", "10.0.0.0/33",
	    "10.0.0.0/-1", "10.0.0.0/8x", "10.1.0.0/8", "::1/129", "fd00::1/8",
	    "10.0.0", "example.com", "10.0.0.0/ 8", "1.2.3.4/+8" };
	struct netaddr_block b;

	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
		ok(in_block(cases[i].addr, cases[i].block) == cases[i].in, "%s %s %s",
		    cases[i].addr, cases[i].in ? "is in" : "is not in", cases[i].block);
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		ok(!netaddr_block_parse(bad[i], &b), "'%s' is refused as a block", bad[i]);
	ok(netaddr_block_parse("127.0.0.0/8", &b) && b.family == AF_INET && b.bits == 8,
	    "127.0.0.0/8: IPv4, 8 bits");
	ok(netaddr_block_parse("2001:db8::/32", &b) && b.family == AF_INET6 && b.bits == 32,
	    "2001:db8::/32: IPv6, 32 bits");
}

static void
test_decoded(void)
{
	size_t n = 200000, len;
	unsigned char *text = wa_malloc(n);
	bool within;
	for (size_t i = 0; i < n; i++)
		text[i] = "a crawler counts decoded bytes\n"[i % 31];

	static const struct { const char *coding; int bits; } kinds[] = {
		{ "gzip", 15 + 16 }, { "x-gzip", 15 + 16 }, { "deflate", 15 },
		{ "deflate", -15 }, { "GZIP", 15 + 16 },
	};
	for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
		unsigned char *z = compress_with(kinds[k].bits, text, n, &len);
		uint64_t got = count(kinds[k].coding, z, len, 1000, 1 << 20, &within);
		ok(got == n && within, "%s (window bits %d): %zu encoded bytes decode to %zu "
		    "(got %llu)", kinds[k].coding, kinds[k].bits, len, n,
		    (unsigned long long)got);
		got = count(kinds[k].coding, z, len, 7, 50000, &within);
		ok(got == 50001 && !within, "%s with a cap of 50000: stops past the cap "
		    "(got %llu)", kinds[k].coding, (unsigned long long)got);
		free(z);
	}
	ok(count(NULL, text, n, 4096, 1 << 20, &within) == n && within,
	    "no coding counts the bytes as they are");
	ok(count("identity", text, n, 4096, 1000, &within) == 1001 && !within,
	    "and caps them too");
	/* Made by libbrotlienc (quality 11) from a 43-byte text. */
	static const unsigned char br[] = "\x1b\x2a\x00\xf8\xc5\x6d\x6c\x5d\xf9\xde"
	    "\xa3\xad\xa0\x10\xa2\x94\xa4\x14\x79\xd2\x81\x12\x70\x22\x14\x2a\xbb"
	    "\xa7\x3d\x5f\x7e\x9a\x00";
	ok(count("br", br, sizeof br - 1, 1, 1 << 20, &within) == 43 && within,
	    "br fed a byte at a time decodes to its 43 bytes");
	ok(count("br", br, sizeof br - 1, 7, 40, &within) == 41 && !within,
	    "br stops at the cap");
	ok(count("compress", text, 5000, 4096, 1 << 20, &within) == 5000 && within,
	    "an unknown coding counts the bytes as they are");
	ok(count("gzip", text, 5000, 4096, 1 << 20, &within) == 0 && within,
	    "a body that is no gzip decodes to nothing, without an error");
	free(text);
}

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
	test_netaddr();
	test_netaddr_blocks();
	test_decoded();
	test_sites();
	printf("1..%d\n", tap_count);
	return tap_failed != 0;
}
