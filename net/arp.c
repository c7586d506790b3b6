// SPDX-License-Identifier: GPL-2.0-or-later
/* arp.c - ARP responder (RFC 826)
 *
 * Theory of operation: the relay is the only other host on the guest's
 * link, so it claims every IPv4 address except the guest's own: any ARP
 * request for another address is answered, and the guest then sends all
 * its traffic to us. The MAC address in the answer is ours, or for a
 * neighbour of the host on its LAN that neighbour's real one (see
 * net/neigh.c, which also has arp_announce() send a gratuitous ARP when
 * a neighbour appears or moves); the frame always comes from ours.
 * Requests are ignored when they ask for the guest's configured or last
 * seen address, when they are gratuitous announcements (sender address
 * equal to target address) or address probes (sender address 0.0.0.0,
 * RFC 5227): answering those would make the guest believe its own address
 * is taken. Replies from the guest are ignored too. Only Ethernet/IPv4 ARP
 * is understood.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include "../conf/ctx.h"
#include "../qdisc/qdisc.h"
#include "../util/log.h"
#include "arp.h"
#include "ip.h"
#include "neigh.h"
#include "net.h"
#include "../guest/follow.h"
#include "../guest/guest.h"

/* ARP packet for Ethernet and IPv4 */
#define ARP_OFF_HTYPE		0
#define ARP_OFF_PTYPE		2
#define ARP_OFF_HLEN		4
#define ARP_OFF_PLEN		5
#define ARP_OFF_OP		6
#define ARP_OFF_SHA		8
#define ARP_OFF_SPA		14
#define ARP_OFF_THA		18
#define ARP_OFF_TPA		24
#define ARP_LEN			28

#define ARP_HTYPE_ETHER		1
#define ARP_OP_REQUEST		1
#define ARP_OP_REPLY		2

/**
 * arp_is_guest_addr() - tell if an address is one the guest uses
 * @c:		execution context
 * @a:		address
 *
 * Return: true if @a is the guest's configured or last seen address
 */
static bool arp_is_guest_addr(const struct ctx *c, struct in_addr a)
{
	const struct ip4_ctx *ip4 = follow_ip4(c);

	return a.s_addr == ip4->addr.s_addr ||
	       a.s_addr == guest_addr4().s_addr;
}

/**
 * arp_headers() - the Ethernet header and the fixed ARP fields of a frame
 *		   we send (Ethernet, IPv4, the operation)
 * @frame:	frame of ETH_HDR_LEN + ARP_LEN bytes
 * @dst:	destination MAC address
 * @src:	source MAC address
 * @op:		ARP_OP_REQUEST or ARP_OP_REPLY
 */
static void arp_headers(uint8_t *frame, const uint8_t *dst,
			const uint8_t *src, uint16_t op)
{
	uint8_t *ap = frame + ETH_HDR_LEN;

	memcpy(frame + ETH_OFF_DST, dst, ETH_ADDR_LEN);
	memcpy(frame + ETH_OFF_SRC, src, ETH_ADDR_LEN);
	net_put16(frame + ETH_OFF_TYPE, ETH_TYPE_ARP);

	net_put16(ap + ARP_OFF_HTYPE, ARP_HTYPE_ETHER);
	net_put16(ap + ARP_OFF_PTYPE, ETH_TYPE_IP4);
	ap[ARP_OFF_HLEN] = ETH_ADDR_LEN;
	ap[ARP_OFF_PLEN] = sizeof(struct in_addr);
	net_put16(ap + ARP_OFF_OP, op);
}

/**
 * arp_input() - handle an ARP frame from the guest, answer requests
 * @c:		execution context
 * @frame:	Ethernet frame, at least ETH_HDR_LEN bytes
 * @len:	frame length
 *
 * Drops are counted in net_stats.
 *
 * Return: true if the frame is a well-formed Ethernet/IPv4 ARP packet
 */
bool arp_input(const struct ctx *c, const uint8_t *frame, size_t len)
{
	const uint8_t *arp = frame + ETH_HDR_LEN;
	uint8_t reply[ETH_HDR_LEN + ARP_LEN];
	uint8_t *ra = reply + ETH_HDR_LEN;
	union inany_addr target;
	struct in_addr spa, tpa;

	if (len < ETH_HDR_LEN + ARP_LEN) {
		net_stats.drop_malformed++;
		trace("arp: dropping truncated ARP frame (%zu bytes)", len);
		return false;
	}

	if (net_get16(arp + ARP_OFF_HTYPE) != ARP_HTYPE_ETHER ||
	    net_get16(arp + ARP_OFF_PTYPE) != ETH_TYPE_IP4 ||
	    arp[ARP_OFF_HLEN] != ETH_ADDR_LEN ||
	    arp[ARP_OFF_PLEN] != sizeof(struct in_addr)) {
		net_stats.drop_unsupported++;
		trace("arp: dropping ARP packet that is not Ethernet/IPv4");
		return false;
	}

	if ((arp[ARP_OFF_SHA] & 1) || net_mac_is_zero(arp + ARP_OFF_SHA)) {
		net_stats.drop_malformed++;
		trace("arp: dropping ARP packet with bad sender MAC address");
		return false;
	}

	memcpy(&spa, arp + ARP_OFF_SPA, sizeof(spa));
	memcpy(&tpa, arp + ARP_OFF_TPA, sizeof(tpa));

	/* Not a request; a probe, an announcement; a question about the
	 * guest itself (before learning from this packet)
	 */
	if (net_get16(arp + ARP_OFF_OP) != ARP_OP_REQUEST ||
	    spa.s_addr == htonl(INADDR_ANY) || spa.s_addr == tpa.s_addr ||
	    !net_ip4_is_unicast(tpa) || arp_is_guest_addr(c, tpa)) {
		if (net_ip4_is_unicast(spa))
			guest_addr4_set(spa);
		net_stats.drop_unsupported++;
		return true;
	}

	if (net_ip4_is_unicast(spa))
		guest_addr4_set(spa);

	arp_headers(reply, arp + ARP_OFF_SHA, c->our_mac, ARP_OP_REPLY);
	inany_from_v4(&target, tpa);
	neigh_mac(c, &target, ra + ARP_OFF_SHA);
	memcpy(ra + ARP_OFF_SPA, &tpa, sizeof(tpa));
	memcpy(ra + ARP_OFF_THA, arp + ARP_OFF_SHA, ETH_ADDR_LEN);
	memcpy(ra + ARP_OFF_TPA, &spa, sizeof(spa));

	qdisc_send(c, reply, sizeof(reply));
	net_stats.arp_replies++;

	return true;
}

/**
 * arp_announce() - gratuitous ARP for a neighbour (RFC 5227 2.3)
 * @c:		execution context
 * @a:		its address
 *
 * A broadcast request from the neighbour's MAC address (neigh_mac()),
 * with sender and target addresses both @a: the guest updates the entry
 * it may hold for @a.
 */
void arp_announce(const struct ctx *c, struct in_addr a)
{
	static const uint8_t bcast[ETH_ADDR_LEN] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff
	};
	uint8_t frame[ETH_HDR_LEN + ARP_LEN], mac[ETH_ADDR_LEN];
	uint8_t *ap = frame + ETH_HDR_LEN;
	union inany_addr target;

	inany_from_v4(&target, a);
	neigh_mac(c, &target, mac);
	memset(frame, 0, sizeof(frame));
	arp_headers(frame, bcast, mac, ARP_OP_REQUEST);
	memcpy(ap + ARP_OFF_SHA, mac, ETH_ADDR_LEN);
	memcpy(ap + ARP_OFF_SPA, &a, sizeof(a));
	memcpy(ap + ARP_OFF_TPA, &a, sizeof(a));

	qdisc_send(c, frame, sizeof(frame));
}
