/* Public and non-public IP addresses (see netaddr.h).
 *
 * The tables follow the IANA IPv4 and IPv6 Special-Purpose Address
 * Registries (RFC 6890 and the RFCs of their rows) and the IANA IPv6
 * Address Space registry, row by row; t/unit/test-netaddr.c checks every
 * row.  A row is refused when it holds no ordinary host of the public
 * Internet: not globally reachable, or reachable but a protocol's anycast
 * service (192.0.0.9, 2001:1::1), an identifier that is no locator
 * (ORCHID, drone tags) or deprecated (6to4 relays).  The rows kept public
 * are those whose hosts are ordinary public servers: AS112 (192.31.196/24,
 * 192.175.48/24, 2001:4:112::/48, 2620:4f:8000::/48) and AMT
 * (192.52.193/24, 2001:3::/32).
 *
 * An IPv6 address that carries an IPv4 address the network may deliver to
 * is judged by that IPv4 address, so that no IPv6 spelling of 127.0.0.1
 * gets through: IPv4-mapped ::ffff:0:0/96 (RFC 4291), IPv4-compatible
 * ::/96 (deprecated by RFC 4291, still routed by some stacks),
 * IPv4-translated ::ffff:0:0:0/96 (RFC 2765), NAT64 64:ff9b::/96
 * (RFC 6052) and 6to4 2002::/16 (RFC 3056, the IPv4 address in bits 16 to
 * 47).  The local-use NAT64 prefix 64:ff9b:1::/48 (RFC 8215) is refused
 * whole: it is not globally reachable, and where the IPv4 address lies in
 * it depends on the network's choice of prefix length.  Past these, only
 * the global unicast space 2000::/3 holds public IPv6 addresses; the rest
 * is reserved, unique-local, site-local, link-local or multicast. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "netaddr.h"

struct prefix {
	unsigned char net[16];
	unsigned bits;
};

/* Whether the first bits of a and b agree. */
static bool
prefix_equal(const unsigned char *a, const unsigned char *b, unsigned bits)
{
	unsigned whole = bits / 8, rest = bits % 8;
	if (memcmp(a, b, whole) != 0)
		return false;
	if (rest == 0)
		return true;
	unsigned char mask = (unsigned char)(0xff << (8 - rest));
	return ((a[whole] ^ b[whole]) & mask) == 0;
}

static bool
in_any(const unsigned char *a, const struct prefix *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (prefix_equal(a, p[i].net, p[i].bits))
			return true;
	return false;
}

#define N(a) (sizeof(a) / sizeof((a)[0]))

static bool
ipv4_is_public(const unsigned char *a)
{
	static const struct prefix blocked[] = {
		{ { 0 }, 8 },			/* "this network" (RFC 791) */
		{ { 10 }, 8 },			/* private (RFC 1918) */
		{ { 100, 64 }, 10 },		/* shared (RFC 6598) */
		{ { 127 }, 8 },			/* loopback (RFC 1122) */
		{ { 169, 254 }, 16 },		/* link-local (RFC 3927) */
		{ { 172, 16 }, 12 },		/* private (RFC 1918) */
		{ { 192, 0, 0 }, 24 },		/* IETF protocol assignments (RFC 6890) */
		{ { 192, 0, 2 }, 24 },		/* documentation (RFC 5737) */
		{ { 192, 88, 99 }, 24 },	/* 6to4 relay anycast (RFC 7526) */
		{ { 192, 168 }, 16 },		/* private (RFC 1918) */
		{ { 198, 18 }, 15 },		/* benchmarking (RFC 2544) */
		{ { 198, 51, 100 }, 24 },	/* documentation (RFC 5737) */
		{ { 203, 0, 113 }, 24 },	/* documentation (RFC 5737) */
		{ { 224 }, 4 },			/* multicast (RFC 5771) */
		{ { 240 }, 4 },			/* reserved, broadcast (RFC 1112, 919) */
	};
	return !in_any(a, blocked, N(blocked));
}

/* The IPv4 address that the IPv6 address a carries (see above), or NULL. */
static const unsigned char *
embedded_ipv4(const unsigned char *a)
{
	static const struct prefix carriers[] = {
		{ { [10] = 0xff, [11] = 0xff }, 96 },		/* mapped */
		{ { [8] = 0xff, [9] = 0xff }, 96 },		/* translated */
		{ { 0, 0x64, 0xff, 0x9b }, 96 },		/* NAT64 */
	};
	static const unsigned char zero[16];

	if (in_any(a, carriers, N(carriers)))
		return a + 12;
	/* IPv4-compatible: ::/96 but for :: and ::1, which RFC 4291 keeps. */
	if (memcmp(a, zero, 12) == 0 && !(memcmp(a + 12, zero, 3) == 0 && a[15] <= 1))
		return a + 12;
	if (a[0] == 0x20 && a[1] == 0x02)
		return a + 2;	/* 6to4 */
	return NULL;
}

static bool
ipv6_is_public(const unsigned char *a)
{
	static const struct prefix blocked[] = {
		{ { 0x01 }, 64 },			/* discard-only 100::/64 (RFC 6666) */
		{ { 0x01, 0, 0, 0, 0, 0, 0, 1 }, 64 },	/* dummy prefix (RFC 9780) */
		{ { 0, 0x64, 0xff, 0x9b, 0, 1 }, 48 },	/* local-use NAT64 (RFC 8215) */
		/* IETF protocol assignments (RFC 2928), but for the rows
		 * kept below: TEREDO 2001::/32 (RFC 4380), anycast services
		 * 2001:1::/48, benchmarking 2001:2::/48 (RFC 5180), ORCHID
		 * 2001:10::/28 (RFC 4843), ORCHIDv2 2001:20::/28 (RFC 7343),
		 * drone tags 2001:30::/28 (RFC 9374). */
		{ { 0x20, 0x01, 0x00, 0x00 }, 23 },
		{ { 0x20, 0x01, 0x0d, 0xb8 }, 32 },	/* documentation (RFC 3849) */
		{ { 0x3f, 0xff }, 20 },			/* documentation (RFC 9637) */
	};
	/* In 2001::/23, the rows whose hosts are public servers. */
	static const struct prefix kept[] = {
		{ { 0x20, 0x01, 0x00, 0x03 }, 32 },			/* AMT (RFC 7450) */
		{ { 0x20, 0x01, 0x00, 0x04, 0x01, 0x12 }, 48 },	/* AS112-v6 (RFC 7535) */
	};

	const unsigned char *v4 = embedded_ipv4(a);
	if (v4)
		return ipv4_is_public(v4);
	if ((a[0] & 0xe0) != 0x20)
		return false;	/* outside global unicast 2000::/3 */
	return in_any(a, kept, N(kept)) || !in_any(a, blocked, N(blocked));
}

bool
netaddr_is_public(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)(const void *)sa;
		return ipv4_is_public((const unsigned char *)&in->sin_addr);
	}
	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)(const void *)sa;
		return ipv6_is_public(in6->sin6_addr.s6_addr);
	}
	return false;
}

bool
netaddr_block_parse(const char *s, struct netaddr_block *b)
{
	char addr[INET6_ADDRSTRLEN];
	const char *slash = strchr(s, '/');
	size_t len = slash ? (size_t)(slash - s) : strlen(s);

	if (len == 0 || len >= sizeof addr)
		return false;
	memcpy(addr, s, len);
	addr[len] = '\0';
	memset(b, 0, sizeof *b);
	b->family = strchr(addr, ':') ? AF_INET6 : AF_INET;
	if (inet_pton(b->family, addr, b->net) != 1)
		return false;
	unsigned max = b->family == AF_INET ? 32 : 128;
	b->bits = max;
	if (slash) {
		char *end;
		const char *digits = slash + 1;
		if (*digits < '0' || *digits > '9')
			return false;
		unsigned long bits = strtoul(digits, &end, 10);
		if (*end != '\0' || bits > max)
			return false;
		b->bits = (unsigned)bits;
	}
	/* 10.1.2.3/8 is a slip for 10.0.0.0/8 or 10.1.2.3: refuse to guess. */
	for (unsigned i = b->bits; i < max; i++)
		if (b->net[i / 8] & (0x80 >> (i % 8)))
			return false;
	return true;
}

bool
netaddr_in_block(const struct sockaddr *sa, const struct netaddr_block *b)
{
	const unsigned char *a;

	if (sa->sa_family == AF_INET) {
		if (b->family != AF_INET)
			return false;
		a = (const unsigned char *)&((const struct sockaddr_in *)(const void *)sa)->sin_addr;
	} else if (sa->sa_family == AF_INET6) {
		a = ((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr.s6_addr;
		/* An IPv6 address judged by its IPv4 address is let in by
		 * the IPv4 blocks. */
		if (b->family == AF_INET && !(a = embedded_ipv4(a)))
			return false;
	} else
		return false;
	return prefix_equal(a, b->net, b->bits);
}
