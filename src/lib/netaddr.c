/* Public and non-public IP addresses (see netaddr.h; IANA special-purpose
 * address registries, RFC 6890). */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "netaddr.h"

static bool
ipv4_is_public(uint32_t a)
{
	static const struct {
		uint32_t net;
		int bits;
	} blocked[] = {
		{ 0x00000000, 8 },	/* 0/8 */
		{ 0x0a000000, 8 },	/* 10/8 */
		{ 0x64400000, 10 },	/* 100.64/10 */
		{ 0x7f000000, 8 },	/* 127/8 */
		{ 0xa9fe0000, 16 },	/* 169.254/16 */
		{ 0xac100000, 12 },	/* 172.16/12 */
		{ 0xc0000000, 24 },	/* 192.0.0/24 */
		{ 0xc0a80000, 16 },	/* 192.168/16 */
		{ 0xc6120000, 15 },	/* 198.18/15 */
		{ 0xe0000000, 4 },	/* 224/4 multicast */
		{ 0xf0000000, 4 },	/* 240/4 reserved, broadcast */
	};
	for (size_t i = 0; i < sizeof blocked / sizeof blocked[0]; i++) {
		uint32_t mask = ~(uint32_t)0 << (32 - blocked[i].bits);
		if ((a & mask) == blocked[i].net)
			return false;
	}
	return true;
}

static bool
ipv6_is_public(const unsigned char *b)
{
	static const unsigned char zero[16];
	static const unsigned char mapped[12] = { [10] = 0xff, [11] = 0xff };
	static const unsigned char nat64[12] = { 0, 0x64, 0xff, 0x9b };

	if (memcmp(b, zero, 15) == 0 && (b[15] == 0 || b[15] == 1))
		return false;	/* :: and ::1 */
	if ((b[0] & 0xfe) == 0xfc || (b[0] == 0xfe && (b[1] & 0xc0) == 0x80) ||
	    b[0] == 0xff)
		return false;
	if (memcmp(b, mapped, 12) == 0 || memcmp(b, nat64, 12) == 0)
		return ipv4_is_public((uint32_t)b[12] << 24 |
		    (uint32_t)b[13] << 16 | (uint32_t)b[14] << 8 | b[15]);
	return true;
}

bool
netaddr_is_public(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)(const void *)sa;
		return ipv4_is_public(ntohl(in->sin_addr.s_addr));
	}
	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)(const void *)sa;
		return ipv6_is_public(in6->sin6_addr.s6_addr);
	}
	return false;
}

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
	static const unsigned char mapped[12] = { [10] = 0xff, [11] = 0xff };
	const unsigned char *a;

	if (sa->sa_family == AF_INET) {
		if (b->family != AF_INET)
			return false;
		a = (const unsigned char *)&((const struct sockaddr_in *)(const void *)sa)->sin_addr;
	} else if (sa->sa_family == AF_INET6) {
		a = ((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr.s6_addr;
		if (b->family == AF_INET) {
			if (memcmp(a, mapped, 12) != 0)
				return false;
			a += 12;
		}
	} else
		return false;
	return prefix_equal(a, b->net, b->bits);
}
