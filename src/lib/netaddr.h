/* Which IP addresses a public web crawler may connect to.  By default
 * wa-fetch refuses, at connect time, every address that does not lead to
 * the public Internet, so that a URL or a redirect cannot aim it at the
 * crawling host or its intranet (server-side request forgery). */
#ifndef WA_NETADDR_H
#define WA_NETADDR_H

#include <stdbool.h>
#include <sys/socket.h>

/* False for IPv4 0/8 "this network", 10/8, 172.16/12, 192.168/16
 * (RFC 1918), 100.64/10 (shared, RFC 6598), 127/8 loopback, 169.254/16
 * link-local, 192.0.0/24, 198.18/15 (benchmarking), 224/4 multicast and
 * 240/4 reserved with the broadcast address; for IPv6 ::, ::1, fc00::/7
 * unique-local, fe80::/10 link-local, ff00::/8 multicast, and IPv4-mapped
 * or NAT64 (64:ff9b::/96) addresses of the IPv4 ranges above.  Other
 * families are not public either. */
bool netaddr_is_public(const struct sockaddr *sa);

/* A block of addresses let through all the same (wa-fetch --allow-net):
 * an IPv4 block also holds the IPv4-mapped IPv6 addresses of its own. */
struct netaddr_block {
	int family;		/* AF_INET or AF_INET6 */
	unsigned char net[16];	/* network byte order; 4 bytes for IPv4 */
	unsigned bits;		/* prefix length */
};

/* Parses "ADDR/BITS" or a single "ADDR" (all bits); false if it is
 * neither, or the address has bits set past the prefix. */
bool netaddr_block_parse(const char *s, struct netaddr_block *b);
bool netaddr_in_block(const struct sockaddr *sa, const struct netaddr_block *b);

#endif
