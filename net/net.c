// SPDX-License-Identifier: GPL-2.0-or-later
/* net.c - guest frames in: Ethernet, IPv4, IPv6; L2/L3 headers out
 *
 * Theory of operation: net_input() takes one Ethernet frame from the
 * backend and peels it layer by layer. Every length read from the frame is
 * checked against what is left of it before anything past it is touched,
 * and the frame is never cast to header structures (it may sit at any
 * alignment): fields are read with the byte helpers of net/ip.h.
 *
 * - Ethernet: ARP goes to arp_input(), IPv4 and IPv6 to their parsers,
 *   anything else (VLAN tags included) is dropped as unsupported.
 * - IPv4: version 4, IHL >= 5, header checksum, total length between the
 *   header length and the frame length (Ethernet padding is ignored),
 *   options skipped; fragments are dropped.
 * - IPv6: version 6, payload length within the frame; hop-by-hop, routing
 *   and destination options headers are walked, at most IP6_EXT_MAX of
 *   them; fragments are dropped.
 *
 * Once the network header is valid, the guest's MAC address and its
 * source address are learnt (guest/guest.c), and the payload
 * is dispatched by protocol: TCP to tcp/ with its length checked, ICMPv6
 * neighbour and router solicitations to net/ndp.c, DHCP and DHCPv6
 * requests to net/dhcp.c and net/dhcpv6.c, other UDP datagrams (with a
 * valid length, between unicast addresses) to udp/, ICMP and ICMPv6 echo
 * requests to net/icmp.c; with --mcast-ports, IGMP, MLD and UDP to those
 * ports of multicast groups to fwd/mcast.c. The layers above (tcp/, udp/,
 * fwd/) and net/icmp.c register their handlers at start-up
 * (net_l4_register(), net_mcast_register()): net/ never calls them by
 * name, and a protocol nobody registered is dropped as unsupported. Each
 * drop increments exactly one counter of net_stats, and each frame handed
 * on one to_ counter, so that every frame is accounted for once (frames =
 * drops + to_ counters).
 *
 * net_fill_l2l3() writes the Ethernet and IP headers of frames going to
 * the guest: 34 or 54 bytes written field by field, nothing else touched.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/ip_icmp.h>
#include <netinet/udp.h>

#include "../conf/ctx.h"
#include "../util/log.h"
#include "arp.h"
#include "checksum.h"
#include "dhcp.h"
#include "dhcpv6.h"
#include "icmp.h"
#include "../util/inany.h"
#include "ip.h"
#include "ndp.h"
#include "net.h"
#include "../guest/guest.h"

/* UDP (RFC 768): offsets of what we validate */
#define UDP_OFF_DPORT		2
#define UDP_OFF_LEN		4

struct net_stats net_stats;

/* Handlers of each protocol, and of the multicast proxy: registered */
static const struct net_l4_ops *net_l4[NET_L4S];
static const struct net_mcast_ops *net_mcast;

/**
 * net_drop_malformed() - count a malformed frame
 * @what:	short description, for trace logs
 */
static void net_drop_malformed(const char *what)
{
	net_stats.drop_malformed++;
	trace("net: dropping malformed frame from guest: %s", what);
}

/**
 * net_drop_unsupported() - count a frame we do not handle
 * @what:	short description, for trace logs
 */
static void net_drop_unsupported(const char *what)
{
	net_stats.drop_unsupported++;
	trace("net: dropping unsupported frame from guest: %s", what);
}

/**
 * net_drops() - total of the drop counters
 *
 * Return: drop_malformed + drop_unsupported
 */
static uint64_t net_drops(void)
{
	return net_stats.drop_malformed + net_stats.drop_unsupported;
}

/**
 * net_learn_mac() - remember the guest's MAC address from a valid frame
 * @frame:	Ethernet frame, at least ETH_HDR_LEN bytes
 */
static void net_learn_mac(const uint8_t *frame)
{
	const uint8_t *src = frame + ETH_OFF_SRC;

	if ((src[0] & 1) || net_mac_is_zero(src))
		return;

	if (memcmp(guest_mac(), src, ETH_ADDR_LEN) != 0)
		guest_mac_set(src);
}

/**
 * net_tcp_input() - check the TCP header length, pass segment to tcp/
 * @c:		execution context
 * @saddr:	source address
 * @daddr:	destination address
 * @l4:		TCP header
 * @l4len:	TCP header and payload length, from the IP header
 * @now_ms:	current time
 */
static void net_tcp_input(const struct ctx *c, const union inany_addr *saddr,
			  const union inany_addr *daddr, const uint8_t *l4,
			  size_t l4len, uint64_t now_ms)
{
	size_t doff;

	if (c->no_tcp) {
		net_drop_unsupported("TCP disabled (--no-tcp)");
		return;
	}

	if (l4len < TCP_HDR_MIN) {
		net_drop_malformed("TCP segment shorter than its header");
		return;
	}

	doff = (size_t)(l4[TCP_OFF_DOFF] >> 4) * 4;
	if (doff < TCP_HDR_MIN || doff > l4len) {
		net_drop_malformed("bad TCP data offset");
		return;
	}

	if (!net_l4[NET_L4_TCP]) {
		net_drop_unsupported("TCP: no handler registered");
		return;
	}

	net_stats.to_tcp++;
	net_l4[NET_L4_TCP]->input(c, saddr, daddr, l4, l4len, now_ms);
}

/**
 * net_udp_input() - check a UDP datagram, pass it to DHCP or to udp/
 * @c:		execution context
 * @v4:		IPv4 (else IPv6)
 * @saddr:	source address
 * @daddr:	destination address
 * @l4:		UDP header
 * @l4len:	UDP header and payload length, from the IP header
 * @now_ms:	current time
 *
 * DHCP and DHCPv6 messages (from unspecified or link-local sources, to
 * broadcast or multicast destinations) go to our servers; what they don't
 * consume is handled as any other datagram, between unicast addresses.
 */
static void net_udp_input(const struct ctx *c, bool v4,
			  const union inany_addr *saddr,
			  const union inany_addr *daddr, const uint8_t *l4,
			  size_t l4len, uint64_t now_ms)
{
	const uint8_t *payload = l4 + sizeof(struct udphdr);
	size_t ulen, plen;
	uint16_t dport;

	if (l4len < sizeof(struct udphdr)) {
		net_drop_malformed("UDP datagram shorter than its header");
		return;
	}
	ulen = net_get16(l4 + UDP_OFF_LEN);
	if (ulen < sizeof(struct udphdr) || ulen > l4len) {
		net_drop_malformed("bad UDP length");
		return;
	}
	dport = net_get16(l4 + UDP_OFF_DPORT);
	plen = ulen - sizeof(struct udphdr);

	if ((v4 && dport == DHCP_SERVER_PORT && !c->no_dhcp &&
	     dhcp_input(c, payload, plen)) ||
	    (!v4 && dport == DHCPV6_SERVER_PORT && !c->no_dhcpv6 &&
	     dhcpv6_input(c, &saddr->a6, payload, plen))) {
		net_stats.to_dhcp++;
		return;
	}

	if (c->no_udp) {
		net_drop_unsupported("UDP disabled (--no-udp)");
		return;
	}

	if (c->mcast_nports && net_mcast &&
	    (v4 ? IN_MULTICAST(ntohl(daddr->v4mapped.a4.s_addr))
		: IN6_IS_ADDR_MULTICAST(&daddr->a6)) &&
	    (v4 ? net_ip4_is_unicast(saddr->v4mapped.a4)
		: net_ip6_is_unicast(&saddr->a6)) &&
	    net_mcast->udp(c, daddr, l4, ulen, now_ms)) {
		net_stats.to_mcast++;
		return;
	}

	if (v4 ? !net_ip4_is_unicast(saddr->v4mapped.a4) ||
		 !net_ip4_is_unicast(daddr->v4mapped.a4)
	       : !net_ip6_is_unicast(&saddr->a6) ||
		 !net_ip6_is_unicast(&daddr->a6)) {
		net_drop_unsupported("UDP with non-unicast address");
		return;
	}

	if (!net_l4[NET_L4_UDP]) {
		net_drop_unsupported("UDP: no handler registered");
		return;
	}

	net_stats.to_udp++;
	net_l4[NET_L4_UDP]->input(c, saddr, daddr, l4, l4len, now_ms);
}

/**
 * net_ip4_header() - check an IPv4 header, count a drop if it is bad
 * @ip:		IPv4 header
 * @len:	bytes from @ip to the end of the frame
 * @ihl:	header length, set
 * @tot_len:	total length from the header, set
 *
 * Return: true if the packet may be dispatched
 */
static bool net_ip4_header(const uint8_t *ip, size_t len, size_t *ihl,
			   size_t *tot_len)
{
	if (len < IP4_HDR_LEN) {
		net_drop_malformed("IPv4 header truncated");
		return false;
	}

	if ((ip[IP4_OFF_VER_IHL] >> 4) != 4) {
		net_drop_malformed("IPv4 version is not 4");
		return false;
	}

	*ihl = (size_t)(ip[IP4_OFF_VER_IHL] & 0xf) * 4;
	*tot_len = net_get16(ip + IP4_OFF_TOT_LEN);
	if (*ihl < IP4_HDR_LEN || *tot_len < *ihl || *tot_len > len) {
		net_drop_malformed("bad IPv4 header or total length");
		return false;
	}

	if (csum_ip4_header(ip, *ihl)) {
		net_drop_malformed("bad IPv4 header checksum");
		return false;
	}

	if (net_get16(ip + IP4_OFF_FRAG) & (IP4_FRAG_MF | IP4_FRAG_OFFSET)) {
		net_drop_unsupported("IPv4 fragment");
		return false;
	}

	return true;
}

/**
 * net_icmp4_input() - pass an ICMP echo request from the guest on
 * @c:		execution context
 * @saddr:	source address
 * @daddr:	destination address
 * @l4:		ICMP header
 * @l4len:	ICMP header and payload length, from the IP header
 * @now_ms:	current time
 */
static void net_icmp4_input(const struct ctx *c, const union inany_addr *saddr,
			    const union inany_addr *daddr, const uint8_t *l4,
			    size_t l4len, uint64_t now_ms)
{
	if (l4len < sizeof(struct icmphdr)) {
		net_drop_malformed("ICMP header truncated");
		return;
	}
	if (c->no_icmp || !net_l4[NET_L4_ICMP] || l4[0] != ICMP_ECHO ||
	    l4[1]) {
		net_drop_unsupported("ICMP type or code, or --no-icmp");
		return;
	}
	if (!net_ip4_is_unicast(saddr->v4mapped.a4) ||
	    !net_ip4_is_unicast(daddr->v4mapped.a4)) {
		net_drop_unsupported("ICMP echo, non-unicast address");
		return;
	}
	net_stats.to_icmp++;
	net_l4[NET_L4_ICMP]->input(c, saddr, daddr, l4, l4len, now_ms);
}

/**
 * net_ip4_input() - parse an IPv4 packet from the guest
 * @c:		execution context
 * @frame:	Ethernet frame
 * @len:	frame length, at least ETH_HDR_LEN
 * @now_ms:	current time
 */
static void net_ip4_input(const struct ctx *c, const uint8_t *frame, size_t len,
			  uint64_t now_ms)
{
	const uint8_t *ip = frame + ETH_HDR_LEN;
	union inany_addr saddr, daddr;
	struct in_addr s4, d4;
	size_t ihl, tot_len;

	if (!net_ip4_header(ip, len - ETH_HDR_LEN, &ihl, &tot_len))
		return;

	memcpy(&s4, ip + IP4_OFF_SADDR, sizeof(s4));
	memcpy(&d4, ip + IP4_OFF_DADDR, sizeof(d4));

	/* 0.0.0.0 is a valid source (DHCP), the others never are */
	if (s4.s_addr != htonl(INADDR_ANY) && !net_ip4_is_unicast(s4)) {
		net_drop_malformed("IPv4 source is not a unicast address");
		return;
	}

	net_learn_mac(frame);
	if (s4.s_addr != htonl(INADDR_ANY))
		guest_addr4_set(s4);

	inany_from_v4(&saddr, s4);
	inany_from_v4(&daddr, d4);

	switch (ip[IP4_OFF_PROTO]) {
	case IPPROTO_TCP:
		if (!net_ip4_is_unicast(s4) || !net_ip4_is_unicast(d4)) {
			net_drop_malformed("TCP with non-unicast address");
			return;
		}
		net_tcp_input(c, &saddr, &daddr, ip + ihl, tot_len - ihl,
			      now_ms);
		return;
	case IPPROTO_UDP:
		net_udp_input(c, true, &saddr, &daddr, ip + ihl,
			      tot_len - ihl, now_ms);
		return;
	case IPPROTO_ICMP:
		net_icmp4_input(c, &saddr, &daddr, ip + ihl, tot_len - ihl,
				now_ms);
		return;
	case IPPROTO_IGMP:
		if (!c->mcast_nports || !net_mcast) {
			net_drop_unsupported("IGMP without --mcast-ports");
			return;
		}
		if (net_mcast->igmp(c, ip + ihl, tot_len - ihl, now_ms)) {
			net_drop_malformed("IGMP message");
			return;
		}
		net_stats.to_mcast++;
		return;
	default:
		net_drop_unsupported("IPv4 protocol");
		return;
	}
}

/**
 * net_icmp6_input() - dispatch an ICMPv6 message from the guest
 * @c:		execution context
 * @frame:	Ethernet frame
 * @saddr:	IPv6 source address
 * @daddr:	IPv6 destination address
 * @hop_limit:	hop limit of the IPv6 header
 * @l4:		ICMPv6 header
 * @l4len:	ICMPv6 message length
 * @now_ms:	current time
 */
static void net_icmp6_input(const struct ctx *c, const uint8_t *frame,
			    const struct in6_addr *saddr,
			    const struct in6_addr *daddr, uint8_t hop_limit,
			    const uint8_t *l4, size_t l4len, uint64_t now_ms)
{
	if (l4len < ICMP6_HDR_LEN) {
		net_drop_malformed("ICMPv6 header truncated");
		return;
	}

	switch (l4[ICMP6_OFF_TYPE]) {
	case ICMP6_ROUTER_SOL:
	case ICMP6_NEIGH_SOL: {
		uint64_t drops = net_drops();

		/* ndp_input() counts its own drops */
		ndp_input(c, frame + ETH_OFF_SRC, saddr, daddr, hop_limit,
			  l4, l4len);
		if (net_drops() == drops)
			net_stats.to_ndp++;
		return;
	}
	case ICMP6_ECHO_REQUEST: {
		union inany_addr s, d;

		if (c->no_icmp || !net_l4[NET_L4_ICMP] ||
		    l4len < sizeof(struct icmphdr) || l4[1] ||
		    !net_ip6_is_unicast(saddr) || !net_ip6_is_unicast(daddr)) {
			net_drop_unsupported("ICMPv6 echo request");
			return;
		}
		s.a6 = *saddr;
		d.a6 = *daddr;
		net_stats.to_icmp++;
		net_l4[NET_L4_ICMP]->input(c, &s, &d, l4, l4len, now_ms);
		return;
	}
	case ICMP6_MLD_QUERY:
	case ICMP6_MLD_REPORT:
	case ICMP6_MLD_DONE:
	case ICMP6_MLD2_REPORT:
		if (!c->mcast_nports || !net_mcast) {
			net_drop_unsupported("MLD without --mcast-ports");
			return;
		}
		if (net_mcast->mld(c, saddr, daddr, l4, l4len, now_ms)) {
			net_drop_malformed("MLD message");
			return;
		}
		net_stats.to_mcast++;
		return;
	default:
		net_drop_unsupported("ICMPv6 type");
		return;
	}
}

/**
 * net_ip6_header() - check an IPv6 header, walk its extension headers
 * @ip:		IPv6 header
 * @len:	bytes from @ip to the end of the frame
 * @end:	end of the payload (from the header's payload length), set
 * @off:	offset of the upper-layer header, set
 * @nh:		upper-layer protocol, set
 *
 * Counts a drop if the packet is bad or unsupported.
 *
 * Return: true if the packet may be dispatched
 */
static bool net_ip6_header(const uint8_t *ip, size_t len, size_t *end,
			   size_t *off, uint8_t *nh)
{
	unsigned int n_ext;

	if (len < IP6_HDR_LEN) {
		net_drop_malformed("IPv6 header truncated");
		return false;
	}

	if ((ip[IP6_OFF_VER_TC_FL] >> 4) != 6) {
		net_drop_malformed("IPv6 version is not 6");
		return false;
	}

	*end = IP6_HDR_LEN + (size_t)net_get16(ip + IP6_OFF_PLEN);
	if (*end > len) {
		net_drop_malformed("IPv6 payload length past end of frame");
		return false;
	}

	*off = IP6_HDR_LEN;
	*nh = ip[IP6_OFF_NEXT];
	for (n_ext = 0; ; n_ext++) {
		size_t hlen;

		if (*nh == IP6_NH_FRAGMENT) {
			net_drop_unsupported("IPv6 fragment");
			return false;
		}

		if (*nh != IP6_NH_HOPOPTS && *nh != IP6_NH_ROUTING &&
		    *nh != IP6_NH_DSTOPTS)
			return true;

		if (n_ext >= IP6_EXT_MAX) {
			net_drop_unsupported("too many IPv6 extension headers");
			return false;
		}

		/* 8 bytes at least: next header, length in 8-byte units */
		if (*end - *off < 8) {
			net_drop_malformed("IPv6 extension header truncated");
			return false;
		}
		hlen = ((size_t)ip[*off + 1] + 1) * 8;
		if (hlen > *end - *off) {
			net_drop_malformed("IPv6 extension header too long");
			return false;
		}

		*nh = ip[*off];
		*off += hlen;
	}
}

/**
 * net_ip6_input() - parse an IPv6 packet from the guest
 * @c:		execution context
 * @frame:	Ethernet frame
 * @len:	frame length, at least ETH_HDR_LEN
 * @now_ms:	current time
 */
static void net_ip6_input(const struct ctx *c, const uint8_t *frame, size_t len,
			  uint64_t now_ms)
{
	const uint8_t *ip = frame + ETH_HDR_LEN;
	union inany_addr saddr, daddr;
	size_t end, off;
	uint8_t nh;

	if (!net_ip6_header(ip, len - ETH_HDR_LEN, &end, &off, &nh))
		return;

	memcpy(&saddr.a6, ip + IP6_OFF_SADDR, sizeof(saddr.a6));
	memcpy(&daddr.a6, ip + IP6_OFF_DADDR, sizeof(daddr.a6));

	/* :: is a valid source (DAD), the others never are */
	if (!IN6_IS_ADDR_UNSPECIFIED(&saddr.a6) &&
	    !net_ip6_is_unicast(&saddr.a6)) {
		net_drop_malformed("IPv6 source is not a unicast address");
		return;
	}

	net_learn_mac(frame);
	if (IN6_IS_ADDR_LINKLOCAL(&saddr.a6))
		guest_addr6_ll_set(&saddr.a6);
	else if (!IN6_IS_ADDR_UNSPECIFIED(&saddr.a6))
		guest_addr6_set(&saddr.a6);

	switch (nh) {
	case IPPROTO_TCP:
		if (!net_ip6_is_unicast(&saddr.a6) ||
		    !net_ip6_is_unicast(&daddr.a6)) {
			net_drop_malformed("TCP with non-unicast address");
			return;
		}
		net_tcp_input(c, &saddr, &daddr, ip + off, end - off, now_ms);
		return;
	case IPPROTO_ICMPV6:
		net_icmp6_input(c, frame, &saddr.a6, &daddr.a6,
				ip[IP6_OFF_HOP_LIMIT], ip + off, end - off,
				now_ms);
		return;
	case IPPROTO_UDP:
		net_udp_input(c, false, &saddr, &daddr, ip + off, end - off,
			      now_ms);
		return;
	default:
		net_drop_unsupported("IPv6 next header");
		return;
	}
}

/**
 * net_input() - handle one Ethernet frame from the guest
 * @c:		execution context
 * @frame:	frame, starting with the Ethernet header, any alignment
 * @len:	frame length (without any backend length prefix)
 * @now_ms:	current time
 */
void net_input(const struct ctx *c, const uint8_t *frame, size_t len,
	       uint64_t now_ms)
{
	net_stats.frames++;
	net_stats.bytes += len;

	if (len < ETH_HDR_LEN) {
		net_drop_malformed("Ethernet header truncated");
		return;
	}

	switch (net_get16(frame + ETH_OFF_TYPE)) {
	case ETH_TYPE_ARP: {
		uint64_t drops = net_drops();

		if (!c->ip4.enabled) {
			net_drop_unsupported("ARP, IPv4 disabled");
			return;
		}
		/* arp_input() counts its own drops */
		if (arp_input(c, frame, len))
			net_learn_mac(frame);
		if (net_drops() == drops)
			net_stats.to_arp++;
		return;
	}
	case ETH_TYPE_IP4:
		if (!c->ip4.enabled) {
			net_drop_unsupported("IPv4 disabled");
			return;
		}
		net_ip4_input(c, frame, len, now_ms);
		return;
	case ETH_TYPE_IP6:
		if (!c->ip6.enabled) {
			net_drop_unsupported("IPv6 disabled");
			return;
		}
		net_ip6_input(c, frame, len, now_ms);
		return;
	default:
		net_drop_unsupported("EtherType");
		return;
	}
}

/**
 * net_stats_log() - log the input counters, one line of key=value pairs
 */
void net_stats_log(void)
{
	const struct net_stats *n = &net_stats;

	info("net: frames=%llu bytes=%llu drop_malformed=%llu "
	     "drop_unsupported=%llu arp_replies=%llu ndp_replies=%llu "
	     "to_arp=%llu to_ndp=%llu to_dhcp=%llu to_tcp=%llu to_udp=%llu "
	     "to_icmp=%llu to_mcast=%llu",
	     (unsigned long long)n->frames, (unsigned long long)n->bytes,
	     (unsigned long long)n->drop_malformed,
	     (unsigned long long)n->drop_unsupported,
	     (unsigned long long)n->arp_replies,
	     (unsigned long long)n->ndp_replies,
	     (unsigned long long)n->to_arp, (unsigned long long)n->to_ndp,
	     (unsigned long long)n->to_dhcp, (unsigned long long)n->to_tcp,
	     (unsigned long long)n->to_udp, (unsigned long long)n->to_icmp,
	     (unsigned long long)n->to_mcast);
}

/**
 * net_input_done() - the backend is about to reuse the memory of the frames
 *		      it gave to net_input(): finish what still points there
 * @c:		execution context
 *
 * TCP queues guest payloads by reference to write them with one sendmsg()
 * per connection, and UDP runs of datagrams of one flow for one sendmsg()
 * with segmentation; this writes them.
 */
void net_input_done(const struct ctx *c)
{
	unsigned int p;

	for (p = 0; p < NET_L4S; p++) {
		if (net_l4[p] && net_l4[p]->input_done)
			net_l4[p]->input_done(c);
	}
}

/**
 * net_l4_register() - take a protocol's handlers for the guest's payloads
 * @p:		protocol
 * @ops:	handlers, static storage
 */
void net_l4_register(enum net_l4 p, const struct net_l4_ops *ops)
{
	net_l4[p] = ops;
}

/**
 * net_mcast_register() - take the multicast proxy's handlers
 * @ops:	handlers, static storage
 */
void net_mcast_register(const struct net_mcast_ops *ops)
{
	net_mcast = ops;
}
