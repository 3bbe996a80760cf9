/* Which IP addresses a public web crawler may connect to.  By default
 * wa-fetch refuses, at connect time, every address that does not lead to
 * the public Internet, so that a URL or a redirect cannot aim it at the
 * crawling host or its intranet (server-side request forgery). */
#ifndef WA_NETADDR_H
#define WA_NETADDR_H

#include <stdbool.h>
#include <sys/socket.h>

/* False for every address of the IANA special-purpose registries that
 * holds no ordinary public host: "this network", private, shared,
 * loopback, link-local, documentation, benchmarking, reserved and the
 * like, multicast, IPv6 outside 2000::/3; an IPv6 address that carries an
 * IPv4 address (mapped, compatible, translated, NAT64, 6to4) is judged by
 * that.  netaddr.c lists the rows and the reasons.  Other families are
 * not public either. */
bool netaddr_is_public(const struct sockaddr *sa);

/* A block of addresses let through all the same (wa-fetch --allow-net):
 * an IPv4 block also holds the IPv6 addresses judged by an IPv4 address
 * of its own. */
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
