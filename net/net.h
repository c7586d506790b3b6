/* SPDX-License-Identifier: GPL-2.0-or-later */
/* net.h - guest frames in: Ethernet, ARP, IPv4/IPv6, NDP; frame headers out
 *
 * Theory of operation: net_input() parses one Ethernet frame from the
 * guest with bounds checks at every layer, answers ARP and NDP itself,
 * and hands TCP segments (and later UDP datagrams and ICMP echo) to their
 * protocol module with the addresses already extracted. Malformed frames
 * are counted in net_stats and dropped. The headers of frames going to
 * the guest are net/frame.c's.
 *
 * Frames given to net_input() must stay in place until the backend calls
 * net_input_done(): TCP writes guest payloads from there, once per batch.
 */
#ifndef NET_NET_H
#define NET_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "frame.h"
#include "../util/inany.h"

struct ctx;
struct ip6_ctx;
struct in6_addr;

/**
 * enum net_l4 - protocols net_input() hands the guest's payloads to
 * @NET_L4_TCP:		TCP segments (tcp/)
 * @NET_L4_UDP:		UDP datagrams between unicast addresses (udp/)
 * @NET_L4_ICMP:	ICMP and ICMPv6 echo requests (net/icmp.c)
 * @NET_L4S:		number of protocols
 */
enum net_l4 {
	NET_L4_TCP = 0,
	NET_L4_UDP,
	NET_L4_ICMP,
	NET_L4S,
};

/**
 * struct net_l4_ops - what a protocol registers to get the guest's payloads
 * @input:	take one payload: source and destination addresses, the
 *		protocol's header and its data (@l4len bytes, from the IP
 *		header, already checked against the frame), current time
 * @input_done:	optional: the backend is about to reuse the memory of the
 *		frames given so far (see net_input_done()), or NULL
 */
struct net_l4_ops {
	void (*input)(const struct ctx *c, const union inany_addr *saddr,
		      const union inany_addr *daddr, const uint8_t *l4,
		      size_t l4len, uint64_t now_ms);
	void (*input_done)(const struct ctx *c);
};

/**
 * struct net_mcast_ops - what the multicast proxy registers (fwd/mcast.c)
 * @igmp:	an IGMP message; return 0, or -1 if it is malformed
 * @mld:	an MLD message between two addresses; return 0 or -1 likewise
 * @udp:	a UDP datagram (header and data, @ulen bytes) to a group;
 *		return true if the proxy took it
 */
struct net_mcast_ops {
	int (*igmp)(const struct ctx *c, const uint8_t *msg, size_t len,
		    uint64_t now_ms);
	int (*mld)(const struct ctx *c, const struct in6_addr *src,
		   const struct in6_addr *dst, const uint8_t *msg, size_t len,
		   uint64_t now_ms);
	bool (*udp)(const struct ctx *c, const union inany_addr *daddr,
		    const uint8_t *l4, size_t ulen, uint64_t now_ms);
};

void net_l4_register(enum net_l4 p, const struct net_l4_ops *ops);
void net_mcast_register(const struct net_mcast_ops *ops);


/* Call net_ndp_unsolicited() this often (RFC 4861 MaxRtrAdvInterval) */
#define NET_RA_INTERVAL_MS	(600 * 1000)

/**
 * struct net_stats - counters of the input path
 * @frames:		frames received from the guest
 * @bytes:		bytes received from the guest
 * @drop_malformed:	frames dropped as malformed (bad lengths, versions)
 * @drop_unsupported:	frames dropped as not handled (protocol, type)
 * @arp_replies:	ARP replies sent
 * @ndp_replies:	NDP messages sent
 * @to_arp:		ARP packets handled (answered or learnt from)
 * @to_ndp:		NDP solicitations handled
 * @to_dhcp:		DHCP and DHCPv6 messages consumed by our servers
 * @to_tcp:		TCP segments passed to tcp/
 * @to_udp:		UDP datagrams passed to udp/
 * @to_icmp:		ICMP and ICMPv6 echo requests passed to net/icmp.c
 * @to_mcast:		IGMP, MLD and multicast UDP passed to fwd/mcast.c
 *
 * Every frame counted in @frames is counted once more, in exactly one of
 * the drop_ or to_ counters: frames equals their sum whenever the
 * counters are read between two frames.
 */
struct net_stats {
	uint64_t frames;
	uint64_t bytes;
	uint64_t drop_malformed;
	uint64_t drop_unsupported;
	uint64_t arp_replies;
	uint64_t ndp_replies;
	uint64_t to_arp;
	uint64_t to_ndp;
	uint64_t to_dhcp;
	uint64_t to_tcp;
	uint64_t to_udp;
	uint64_t to_icmp;
	uint64_t to_mcast;
};

extern struct net_stats net_stats;

void net_input(const struct ctx *c, const uint8_t *frame, size_t len,
	       uint64_t now_ms);
void net_ndp_unsolicited(const struct ctx *c);
void net_ndp_follow(const struct ctx *c, const struct ip6_ctx *old6);
void net_stats_log(void);
void net_input_done(const struct ctx *c);

#endif /* NET_NET_H */
