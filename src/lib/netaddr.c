/* Public and non-public IP addresses (see netaddr.h; IANA special-purpose
 * address registries, RFC 6890). */
#include <netinet/in.h>
#include <stdint.h>
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
