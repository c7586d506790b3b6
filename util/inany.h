/* SPDX-License-Identifier: GPL-2.0-or-later */
/* inany.h - one address type for IPv4 and IPv6
 *
 * Theory of operation: IPv4 addresses are kept as IPv4-mapped IPv6
 * addresses (::ffff:a.b.c.d), so flow keys, hashes and comparisons handle
 * both families with one code path. Helpers convert to and from the
 * socket address structures.
 */
#ifndef UTIL_INANY_H
#define UTIL_INANY_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <sys/socket.h>

/**
 * union inany_addr - an IPv6 address, or an IPv4 one mapped into IPv6
 * @a6:		the address as IPv6
 * @v4mapped:	view of the IPv4-mapped form
 * @u32:	32-bit words, for hashing
 */
union inany_addr {
	struct in6_addr a6;
	struct {
		uint8_t zero[10];
		uint8_t one[2];
		struct in_addr a4;
	} v4mapped;
	uint32_t u32[4];
};

/**
 * union sockaddr_inany - socket address of either family
 */
union sockaddr_inany {
	struct sockaddr sa;
	struct sockaddr_in sa4;
	struct sockaddr_in6 sa6;
};

#define INANY_STRLEN	INET6_ADDRSTRLEN

/**
 * inany_v4() - the IPv4 address inside an IPv4-mapped address
 * @a:		address
 *
 * Return: pointer to the IPv4 address, or NULL if @a is IPv6
 */
static inline const struct in_addr *inany_v4(const union inany_addr *a)
{
	if (!IN6_IS_ADDR_V4MAPPED(&a->a6))
		return NULL;
	return &a->v4mapped.a4;
}

/**
 * inany_from_v4() - make an IPv4-mapped address
 * @a:		output
 * @v4:		IPv4 address
 */
static inline void inany_from_v4(union inany_addr *a, struct in_addr v4)
{
	memset(a, 0, sizeof(*a));
	a->v4mapped.one[0] = a->v4mapped.one[1] = 0xff;
	a->v4mapped.a4 = v4;
}

/**
 * inany_equals() - compare two addresses
 * @a:		first
 * @b:		second
 *
 * Return: true if equal
 */
static inline bool inany_equals(const union inany_addr *a,
				const union inany_addr *b)
{
	return IN6_ARE_ADDR_EQUAL(&a->a6, &b->a6);
}

/**
 * inany_is_unspecified() - tell if an address is :: or 0.0.0.0
 * @a:		address
 *
 * Return: true if unspecified in either family
 */
static inline bool inany_is_unspecified(const union inany_addr *a)
{
	const struct in_addr *v4 = inany_v4(a);

	if (v4)
		return v4->s_addr == htonl(INADDR_ANY);
	return IN6_IS_ADDR_UNSPECIFIED(&a->a6);
}

/**
 * inany_is_loopback() - tell if an address is a loopback one
 * @a:		address
 *
 * Return: true for 127.0.0.0/8 and ::1
 */
static inline bool inany_is_loopback(const union inany_addr *a)
{
	const struct in_addr *v4 = inany_v4(a);

	if (v4)
		return (ntohl(v4->s_addr) >> IN_CLASSA_NSHIFT) ==
		       IN_LOOPBACKNET;
	return IN6_IS_ADDR_LOOPBACK(&a->a6);
}

/**
 * inany_lo_or_any() - the loopback or the wildcard address of a family
 * @a:		output
 * @v4:		IPv4 (else IPv6)
 * @lo:		127.0.0.1 or ::1, else 0.0.0.0 or ::
 */
static inline void inany_lo_or_any(union inany_addr *a, bool v4, bool lo)
{
	if (v4) {
		inany_from_v4(a, (struct in_addr){
			htonl(lo ? INADDR_LOOPBACK : INADDR_ANY) });
		return;
	}
	memset(a, 0, sizeof(*a));
	a->a6 = lo ? in6addr_loopback : in6addr_any;
}

/**
 * inany_ntop() - format an address for messages
 * @a:		address
 * @buf:	output, at least INANY_STRLEN bytes
 *
 * Return: @buf
 */
static inline const char *inany_ntop(const union inany_addr *a, char *buf)
{
	const struct in_addr *v4 = inany_v4(a);

	if (v4)
		return inet_ntop(AF_INET, v4, buf, INANY_STRLEN);
	return inet_ntop(AF_INET6, &a->a6, buf, INANY_STRLEN);
}

/**
 * sockaddr_from_inany() - build a socket address
 * @sa:		output
 * @a:		address
 * @port:	port, host order
 * @scope_id:	IPv6 scope (interface index), 0 if none
 *
 * Return: length of the socket address
 */
static inline socklen_t sockaddr_from_inany(union sockaddr_inany *sa,
					    const union inany_addr *a,
					    uint16_t port, uint32_t scope_id)
{
	const struct in_addr *v4 = inany_v4(a);

	memset(sa, 0, sizeof(*sa));
	if (v4) {
		sa->sa4.sin_family = AF_INET;
		sa->sa4.sin_addr = *v4;
		sa->sa4.sin_port = htons(port);
		return sizeof(sa->sa4);
	}
	sa->sa6.sin6_family = AF_INET6;
	sa->sa6.sin6_addr = a->a6;
	sa->sa6.sin6_port = htons(port);
	sa->sa6.sin6_scope_id = scope_id;
	return sizeof(sa->sa6);
}

/**
 * inany_from_sockaddr() - read address and port of a socket address
 * @a:		output address
 * @port:	output port, host order
 * @sa:		socket address (AF_INET or AF_INET6)
 */
static inline void inany_from_sockaddr(union inany_addr *a, uint16_t *port,
				       const union sockaddr_inany *sa)
{
	if (sa->sa.sa_family == AF_INET) {
		inany_from_v4(a, sa->sa4.sin_addr);
		*port = ntohs(sa->sa4.sin_port);
	} else {
		a->a6 = sa->sa6.sin6_addr;
		*port = ntohs(sa->sa6.sin6_port);
	}
}

/**
 * sockaddr_inany_eq() - compare two socket addresses
 * @a:		first
 * @b:		second
 *
 * Return: true if same family, address and port
 */
static inline bool sockaddr_inany_eq(const union sockaddr_inany *a,
				     const union sockaddr_inany *b)
{
	if (a->sa.sa_family != b->sa.sa_family)
		return false;
	if (a->sa.sa_family == AF_INET)
		return a->sa4.sin_port == b->sa4.sin_port &&
		       a->sa4.sin_addr.s_addr == b->sa4.sin_addr.s_addr;
	return a->sa6.sin6_port == b->sa6.sin6_port &&
	       IN6_ARE_ADDR_EQUAL(&a->sa6.sin6_addr, &b->sa6.sin6_addr);
}

#endif /* UTIL_INANY_H */
