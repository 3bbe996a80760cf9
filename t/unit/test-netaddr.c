/* The address classes of netaddr.c against the rows of the IANA IPv4 and
 * IPv6 Special-Purpose Address Registries (as of 2025; RFC 6890 and the
 * RFCs named per row), the multicast and site-local blocks of the address
 * space registries, and the IPv6 forms that carry an IPv4 address
 * (RFC 4291 sec. 2.5.5, RFC 2765, RFC 6052, RFC 3056).  For each row, the
 * first and the last address of the block are checked, and for a refused
 * row the addresses just outside it where those are ordinary public
 * ones. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

#include "netaddr.h"
#include "tap.h"

static void
to_sockaddr(const char *s, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof *ss);
	if (strchr(s, ':')) {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;
		in6->sin6_family = AF_INET6;
		if (inet_pton(AF_INET6, s, &in6->sin6_addr) != 1)
			abort();
	} else {
		struct sockaddr_in *in = (struct sockaddr_in *)ss;
		in->sin_family = AF_INET;
		if (inet_pton(AF_INET, s, &in->sin_addr) != 1)
			abort();
	}
}

static bool
public(const char *s)
{
	struct sockaddr_storage ss;
	to_sockaddr(s, &ss);
	return netaddr_is_public((struct sockaddr *)&ss);
}

/* The first and last address of the block s, as text. */
static void
ends(const char *s, char *first, char *last)
{
	struct netaddr_block b;
	if (!netaddr_block_parse(s, &b))
		abort();
	unsigned char hi[16];
	unsigned n = b.family == AF_INET ? 4 : 16;
	memcpy(hi, b.net, n);
	for (unsigned i = b.bits; i < 8 * n; i++)
		hi[i / 8] |= (unsigned char)(0x80 >> (i % 8));
	inet_ntop(b.family, b.net, first, INET6_ADDRSTRLEN);
	inet_ntop(b.family, hi, last, INET6_ADDRSTRLEN);
}

static void
row(const char *block, bool want, const char *name)
{
	char first[INET6_ADDRSTRLEN], last[INET6_ADDRSTRLEN];
	ends(block, first, last);
	ok(public(first) == want, "%s %s (%s): %s", first, want ? "public" : "refused",
	    name, block);
	if (strcmp(first, last) != 0)
		ok(public(last) == want, "%s %s (%s): %s", last, want ? "public" : "refused",
		    name, block);
}

static void
test_registry_rows(void)
{
	/* IPv4 Special-Purpose Address Registry, every row. */
	row("0.0.0.0/8", false, "this network");
	row("0.0.0.0/32", false, "this host on this network");
	row("10.0.0.0/8", false, "private-use");
	row("100.64.0.0/10", false, "shared address space");
	row("127.0.0.0/8", false, "loopback");
	row("169.254.0.0/16", false, "link local");
	row("172.16.0.0/12", false, "private-use");
	row("192.0.0.0/24", false, "IETF protocol assignments");
	row("192.0.0.0/29", false, "IPv4 service continuity prefix");
	row("192.0.0.8/32", false, "IPv4 dummy address");
	row("192.0.0.9/32", false, "port control protocol anycast: a service, no host");
	row("192.0.0.10/32", false, "TURN anycast: a service, no host");
	row("192.0.0.170/32", false, "NAT64/DNS64 discovery");
	row("192.0.0.171/32", false, "NAT64/DNS64 discovery");
	row("192.0.2.0/24", false, "documentation (TEST-NET-1)");
	row("192.31.196.0/24", true, "AS112-v4");
	row("192.52.193.0/24", true, "AMT");
	row("192.88.99.0/24", false, "deprecated 6to4 relay anycast");
	row("192.88.99.2/32", false, "6a44-relay anycast");
	row("192.168.0.0/16", false, "private-use");
	row("192.175.48.0/24", true, "direct delegation AS112 service");
	row("198.18.0.0/15", false, "benchmarking");
	row("198.51.100.0/24", false, "documentation (TEST-NET-2)");
	row("203.0.113.0/24", false, "documentation (TEST-NET-3)");
	row("240.0.0.0/4", false, "reserved");
	row("255.255.255.255/32", false, "limited broadcast");
	/* Multicast, from the IPv4 Multicast Address Space registry. */
	row("224.0.0.0/4", false, "multicast");

	/* IPv6 Special-Purpose Address Registry, every row. */
	row("::1/128", false, "loopback");
	row("::/128", false, "unspecified");
	row("64:ff9b:1::/48", false, "local-use IPv4/IPv6 translation");
	row("100::/64", false, "discard-only");
	row("100:0:0:1::/64", false, "dummy IPv6 prefix");
	row("2001::/23", false, "IETF protocol assignments");
	row("2001::/32", false, "TEREDO");
	row("2001:1::1/128", false, "port control protocol anycast: a service, no host");
	row("2001:1::2/128", false, "TURN anycast: a service, no host");
	row("2001:1::3/128", false, "DNS-SD SRP anycast: a service, no host");
	row("2001:2::/48", false, "benchmarking");
	row("2001:3::/32", true, "AMT");
	row("2001:4:112::/48", true, "AS112-v6");
	row("2001:10::/28", false, "deprecated ORCHID");
	row("2001:20::/28", false, "ORCHIDv2: identifiers, not locators");
	row("2001:30::/28", false, "drone remote ID tags: identifiers, not locators");
	row("2001:db8::/32", false, "documentation");
	row("2620:4f:8000::/48", true, "direct delegation AS112 service");
	row("3fff::/20", false, "documentation");
	row("5f00::/16", false, "segment routing SIDs");
	row("fc00::/7", false, "unique-local");
	row("fe80::/10", false, "link-local unicast");
	/* From the IPv6 Address Space registry: no global unicast. */
	row("fec0::/10", false, "deprecated site-local");
	row("ff00::/8", false, "multicast");
	row("4000::/3", false, "unassigned");
	row("e000::/4", false, "unassigned");

	/* Ordinary public neighbours of refused rows. */
	static const char *const public_ones[] = { "1.1.1.1", "8.8.8.8", "100.63.255.255",
	    "100.128.0.0", "172.15.255.255", "172.32.0.0", "192.0.1.255", "192.0.3.0",
	    "192.88.98.255", "192.88.100.0", "198.17.255.255", "198.20.0.0",
	    "198.51.99.255", "198.51.101.0", "203.0.112.255", "203.0.114.0",
	    "223.255.255.255", "2001:200::", "2001:db7:ffff:ffff:ffff:ffff:ffff:ffff",
	    "2001:db9::", "2001:4860:4860::8888", "2606:4700::1111", "3ffe:ffff::1",
	    "3fff:1000::", "2620:4f:7fff:ffff:ffff:ffff:ffff:ffff" };
	for (size_t i = 0; i < sizeof public_ones / sizeof *public_ones; i++)
		ok(public(public_ones[i]), "%s public", public_ones[i]);
}

/* The IPv6 forms of IPv4 addresses are judged by the IPv4 address. */
static void
test_embedded(void)
{
	static const struct { const char *addr; bool pub; } cases[] = {
		{ "::ffff:127.0.0.1", false },		/* mapped */
		{ "::ffff:10.0.0.1", false },
		{ "::ffff:192.0.2.1", false },
		{ "::ffff:8.8.8.8", true },
		{ "::127.0.0.1", false },		/* compatible */
		{ "::7f00:1", false },
		{ "::169.254.169.254", false },
		{ "::8.8.8.8", true },
		{ "::ffff:0:127.0.0.1", false },	/* translated */
		{ "::ffff:0:8.8.8.8", true },
		{ "64:ff9b::127.0.0.1", false },	/* NAT64 */
		{ "64:ff9b::192.168.0.1", false },
		{ "64:ff9b::203.0.113.5", false },
		{ "64:ff9b::8.8.8.8", true },
		{ "64:ff9b:1::8.8.8.8", false },	/* local-use NAT64: refused whole */
		{ "2002:7f00:1::1", false },		/* 6to4 of 127.0.0.1 */
		{ "2002:a00:1::", false },		/* of 10.0.0.1 */
		{ "2002:c000:201::1", false },		/* of 192.0.2.1 */
		{ "2002:808:808::1", true },		/* of 8.8.8.8 */
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
		ok(public(cases[i].addr) == cases[i].pub, "%s %s", cases[i].addr,
		    cases[i].pub ? "public" : "refused");
}

static bool
in_block(const char *addr, const char *block)
{
	struct sockaddr_storage ss;
	struct netaddr_block b;
	if (!netaddr_block_parse(block, &b))
		abort();
	to_sockaddr(addr, &ss);
	return netaddr_in_block((struct sockaddr *)&ss, &b);
}

/* The blocks of --allow-net; an IPv4 block lets in the IPv6 forms judged
 * by it. */
static void
test_blocks(void)
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
		{ "::ffff:127.0.0.1", "127.0.0.0/8", true },
		{ "::127.0.0.1", "127.0.0.0/8", true },
		{ "::ffff:0:127.0.0.1", "127.0.0.0/8", true },
		{ "64:ff9b::127.0.0.1", "127.0.0.0/8", true },
		{ "2002:7f00:1::1", "127.0.0.0/8", true },
		{ "2002:800:1::1", "127.0.0.0/8", false },
		{ "::1", "0.0.0.0/8", false },
		{ "::", "0.0.0.0/8", false },
		{ "64:ff9b:1::7f00:1", "127.0.0.0/8", false },
		{ "192.0.2.7", "192.0.2.0/24", true },
		{ "2001:db8::7", "2001:db8::/32", true },
		{ "2001:db8::7", "192.0.2.0/24", false },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
		ok(in_block(cases[i].addr, cases[i].block) == cases[i].in, "%s %s %s",
		    cases[i].addr, cases[i].in ? "is in" : "is not in", cases[i].block);
}

static void
test_addresses(void)
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
		ok(!public(blocked4[i]), "%s is not public", blocked4[i]);
	for (size_t i = 0; i < sizeof public4s / sizeof *public4s; i++)
		ok(public(public4s[i]), "%s is public", public4s[i]);
	for (size_t i = 0; i < sizeof blocked6 / sizeof *blocked6; i++)
		ok(!public(blocked6[i]), "%s is not public", blocked6[i]);
	for (size_t i = 0; i < sizeof public6s / sizeof *public6s; i++)
		ok(public(public6s[i]), "%s is public", public6s[i]);
}

/* What --allow-net takes as a block, and what it refuses. */
static void
test_block_parse(void)
{
	static const char *bad[] = { "", "/8", "10.0.0.0/", "10.0.0.0/33",
	    "10.0.0.0/-1", "10.0.0.0/8x", "10.1.0.0/8", "::1/129", "fd00::1/8",
	    "10.0.0", "example.com", "10.0.0.0/ 8", "1.2.3.4/+8" };
	struct netaddr_block b;

	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		ok(!netaddr_block_parse(bad[i], &b), "'%s' is refused as a block", bad[i]);
	ok(netaddr_block_parse("127.0.0.0/8", &b) && b.family == AF_INET && b.bits == 8,
	    "127.0.0.0/8: IPv4, 8 bits");
	ok(netaddr_block_parse("2001:db8::/32", &b) && b.family == AF_INET6 && b.bits == 32,
	    "2001:db8::/32: IPv6, 32 bits");
}

int
main(void)
{
	test_addresses();
	test_block_parse();
	test_registry_rows();
	test_embedded();
	test_blocks();
	return done_testing();
}
