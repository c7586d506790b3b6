// SPDX-License-Identifier: GPL-2.0-or-later
/* mcast_msg.c - IGMP and MLD: group membership reports of the guest, and
 * the general queries we send it
 *
 * Theory of operation
 *
 * The guest says which multicast groups it wants with membership reports:
 * IGMP for IPv4 (version 1 and 2, RFC 2236: one group per message; version
 * 3, RFC 3376: records), MLD for IPv6 (version 1, RFC 2710; version 2,
 * RFC 3810, records of the same shape). A parser here turns one message
 * into a short list of changes, "joins G" or "leaves G", with every length
 * checked before it is read, and the checksum verified. A version 3 (or
 * MLDv2) record is read as: EXCLUDE mode (any sources, or all but some) is
 * a join; INCLUDE of nothing is a leave; INCLUDE or ALLOW of some sources
 * is a join too, as the relay forwards a group from every source; BLOCK
 * changes nothing that we track. Groups that are not multicast, the
 * all-hosts and all-nodes groups (every host is in them), and the
 * solicited-node groups of NDP (answered by the relay itself) are left
 * out.
 * At most MCAST_EVENTS_MAX changes are taken from one message.
 *
 * A host only repeats its reports when asked: the relay, as the link's
 * querier, sends general queries (IGMPv3 to 224.0.0.1, MLDv2 to ff02::1;
 * hosts of older versions answer them too), built here with TTL or hop
 * limit 1 and the Router Alert option, MLD from our link-local address.
 */

#include <string.h>
#include <netinet/in.h>
#include <sys/uio.h>

#include "checksum.h"
#include "ip.h"
#include "mcast_msg.h"
#include "net.h"

/* IGMP (RFC 2236, RFC 3376) */
#define IGMP_QUERY		0x11
#define IGMP_V1_REPORT		0x12
#define IGMP_V2_REPORT		0x16
#define IGMP_V2_LEAVE		0x17
#define IGMP_V3_REPORT		0x22
#define IGMP_MSG_LEN		8	/* v1, v2: type, time, sum, group */
#define IGMP_V3_HDR_LEN		8	/* type, -, sum, -, records */
#define IGMP_V3_REC_LEN		8	/* type, aux, sources, group */
#define IGMP_V3_QUERY_LEN	12

/* MLD (RFC 2710, RFC 3810): ICMPv6 types */
#define MLD_QUERY		130
#define MLD_V1_REPORT		131
#define MLD_V1_DONE		132
#define MLD_V2_REPORT		143
#define MLD_V1_LEN		24	/* ICMPv6 header, delay, -, group */
#define MLD_V2_HDR_LEN		8
#define MLD_V2_REC_LEN		20	/* type, aux, sources, group */
#define MLD_V2_QUERY_LEN	28

/* Record types of version 3 and MLDv2 reports */
#define MCAST_MODE_IS_INCLUDE	1
#define MCAST_MODE_IS_EXCLUDE	2
#define MCAST_TO_INCLUDE	3
#define MCAST_TO_EXCLUDE	4
#define MCAST_ALLOW_NEW		5

/* Queries: robustness 2, interval 125 s, answers within 10 s (RFC 3376,
 * section 8, defaults)
 */
#define MCAST_QRV		2
#define MCAST_QQIC		125
#define IGMP_MAX_RESP_DS	100	/* tenths of a second */
#define MLD_MAX_RESP_MS		10000

/* Router Alert: IPv4 option (RFC 2113), IPv6 hop-by-hop option (RFC 2711) */
#define IP4_OPT_RA_LEN		4
#define IP6_HBH_RA_LEN		8
#define IP4_TOS_NETCTL		0xc0

/**
 * mcast_group_ok() - tell if the guest may ask for a group
 * @group:	address (IPv4-mapped for IPv4)
 *
 * Return: true for multicast groups but all-hosts, all-nodes and
 *	   solicited-node groups
 */
bool mcast_group_ok(const union inany_addr *group)
{
	const struct in_addr *v4 = inany_v4(group);
	static const uint8_t all_nodes[16] = { 0xff, 0x02, [15] = 1 };
	static const uint8_t sol_node[13] = { 0xff, 0x02, [11] = 1, 0xff };

	if (v4)
		return IN_MULTICAST(ntohl(v4->s_addr)) &&
		       ntohl(v4->s_addr) != INADDR_ALLHOSTS_GROUP;
	return IN6_IS_ADDR_MULTICAST(&group->a6) &&
	       memcmp(&group->a6, all_nodes, sizeof(all_nodes)) != 0 &&
	       memcmp(&group->a6, sol_node, sizeof(sol_node)) != 0;
}

/**
 * mcast_group_link_local() - tell if a group stays on the link
 * @group:	address (IPv4-mapped for IPv4)
 *
 * Return: true for 224.0.0.0/24 and link-local scope IPv6 groups
 */
bool mcast_group_link_local(const union inany_addr *group)
{
	const struct in_addr *v4 = inany_v4(group);

	if (v4)
		return (ntohl(v4->s_addr) & 0xffffff00U) == 0xe0000000U;
	return IN6_IS_ADDR_MC_LINKLOCAL(&group->a6);
}

/**
 * mcast_mac() - the Ethernet address of a group (RFC 1112, RFC 2464)
 * @mac:	output, ETH_ADDR_LEN bytes
 * @group:	address (IPv4-mapped for IPv4)
 */
void mcast_mac(uint8_t *mac, const union inany_addr *group)
{
	const struct in_addr *v4 = inany_v4(group);

	if (v4) {
		const uint8_t *a = (const uint8_t *)&v4->s_addr;

		mac[0] = 0x01;
		mac[1] = 0x00;
		mac[2] = 0x5e;
		mac[3] = a[1] & 0x7f;
		mac[4] = a[2];
		mac[5] = a[3];
		return;
	}
	mac[0] = mac[1] = 0x33;
	memcpy(mac + 2, &group->a6.s6_addr[12], 4);
}

/**
 * mcast_event_add() - record a change, if the group is one we follow
 * @ev:		changes
 * @n:		number of changes so far, updated
 * @max:	room in @ev
 * @group:	the group
 * @join:	joined, else left
 */
static void mcast_event_add(struct mcast_event *ev, unsigned int *n,
			    unsigned int max, const union inany_addr *group,
			    bool join)
{
	if (*n >= max || !mcast_group_ok(group))
		return;
	ev[*n].group = *group;
	ev[(*n)++].join = join;
}

/**
 * mcast_record_join() - what a version 3 or MLDv2 record means
 * @type:	record type
 * @nsrc:	number of sources
 * @join:	set: true for a join, false for a leave
 *
 * Return: true if the record changes membership as we track it
 */
static bool mcast_record_join(uint8_t type, unsigned int nsrc, bool *join)
{
	switch (type) {
	case MCAST_MODE_IS_EXCLUDE:
	case MCAST_TO_EXCLUDE:
		*join = true;
		return true;
	case MCAST_MODE_IS_INCLUDE:
	case MCAST_TO_INCLUDE:
	case MCAST_ALLOW_NEW:
		*join = nsrc > 0;
		return nsrc > 0 || type != MCAST_ALLOW_NEW;
	default:
		return false;
	}
}

/**
 * mcast_records() - read the records of an IGMPv3 or MLDv2 report
 * @rec:	first record
 * @len:	bytes from @rec to the end of the message
 * @nrec:	number of records the header announces
 * @v4:		IGMPv3 (4-byte addresses), else MLDv2
 * @ev:		changes, set
 * @max:	room in @ev
 *
 * Return: number of changes, -1 if a record runs past the message
 */
static int mcast_records(const uint8_t *rec, size_t len, unsigned int nrec,
			 bool v4, struct mcast_event *ev, unsigned int max)
{
	size_t alen = v4 ? 4 : 16, hlen = v4 ? IGMP_V3_REC_LEN
					     : MLD_V2_REC_LEN;
	unsigned int i, n = 0;

	for (i = 0; i < nrec; i++) {
		union inany_addr group = { 0 };
		unsigned int nsrc;
		size_t rlen;
		bool join;

		if (len < hlen)
			return -1;
		nsrc = net_get16(rec + 2);
		rlen = hlen + nsrc * alen + (size_t)rec[1] * 4;
		if (rlen > len)
			return -1;

		if (v4) {
			struct in_addr a;

			memcpy(&a, rec + 4, sizeof(a));
			inany_from_v4(&group, a);
		} else {
			memcpy(&group.a6, rec + 4, sizeof(group.a6));
		}
		if (mcast_record_join(rec[0], nsrc, &join))
			mcast_event_add(ev, &n, max, &group, join);

		rec += rlen;
		len -= rlen;
	}

	return (int)n;
}

/**
 * mcast_igmp_parse() - read an IGMP message from the guest
 * @msg:	IGMP message, after the IPv4 header
 * @len:	its length
 * @ev:		changes, set
 * @max:	room in @ev
 *
 * Return: number of changes (0 for messages changing nothing, queries),
 *	   -1 if malformed
 */
int mcast_igmp_parse(const uint8_t *msg, size_t len, struct mcast_event *ev,
		     unsigned int max)
{
	union inany_addr group;
	struct in_addr a;
	unsigned int n = 0;

	if (len < IGMP_MSG_LEN || csum(msg, len, 0))
		return -1;

	switch (msg[0]) {
	case IGMP_V1_REPORT:
	case IGMP_V2_REPORT:
	case IGMP_V2_LEAVE:
		memcpy(&a, msg + 4, sizeof(a));
		inany_from_v4(&group, a);
		mcast_event_add(ev, &n, max, &group, msg[0] != IGMP_V2_LEAVE);
		return (int)n;
	case IGMP_V3_REPORT:
		return mcast_records(msg + IGMP_V3_HDR_LEN,
				     len - IGMP_V3_HDR_LEN,
				     net_get16(msg + 6), true, ev, max);
	default:
		return 0;
	}
}

/**
 * mcast_mld_parse() - read an MLD message from the guest
 * @src:	IPv6 source
 * @dst:	IPv6 destination
 * @msg:	ICMPv6 message
 * @len:	its length
 * @ev:		changes, set
 * @max:	room in @ev
 *
 * Return: number of changes (0 for messages changing nothing, queries),
 *	   -1 if malformed
 */
int mcast_mld_parse(const struct in6_addr *src, const struct in6_addr *dst,
		    const uint8_t *msg, size_t len, struct mcast_event *ev,
		    unsigned int max)
{
	struct iovec iov = { .iov_base = (void *)msg, .iov_len = len };
	union inany_addr s = { .a6 = *src }, d = { .a6 = *dst }, group = { 0 };
	unsigned int n = 0;

	if (len < MLD_V2_HDR_LEN ||
	    csum_l4(&s, &d, IPPROTO_ICMPV6, &iov, 1, len))
		return -1;

	switch (msg[0]) {
	case MLD_V1_REPORT:
	case MLD_V1_DONE:
		if (len < MLD_V1_LEN)
			return -1;
		memcpy(&group.a6, msg + 8, sizeof(group.a6));
		mcast_event_add(ev, &n, max, &group, msg[0] == MLD_V1_REPORT);
		return (int)n;
	case MLD_V2_REPORT:
		return mcast_records(msg + MLD_V2_HDR_LEN,
				     len - MLD_V2_HDR_LEN, net_get16(msg + 6),
				     false, ev, max);
	default:
		return 0;
	}
}

/**
 * mcast_igmp_query() - build an IGMPv3 general query frame
 * @buf:	output, MCAST_QUERY_MAX bytes
 * @our_mac:	our Ethernet address
 * @src:	our IPv4 address on the link
 *
 * Return: frame length
 */
size_t mcast_igmp_query(uint8_t *buf, const uint8_t *our_mac,
			struct in_addr src)
{
	size_t ihl = IP4_HDR_LEN + IP4_OPT_RA_LEN;
	uint8_t *ip = buf + ETH_HDR_LEN, *q = ip + ihl;
	union inany_addr all;
	uint16_t sum;

	inany_from_v4(&all, (struct in_addr){ htonl(INADDR_ALLHOSTS_GROUP) });
	memset(buf, 0, ETH_HDR_LEN + ihl + IGMP_V3_QUERY_LEN);
	mcast_mac(buf + ETH_OFF_DST, &all);
	memcpy(buf + ETH_OFF_SRC, our_mac, ETH_ADDR_LEN);
	net_put16(buf + ETH_OFF_TYPE, ETH_TYPE_IP4);

	ip[IP4_OFF_VER_IHL] = 0x40 | (uint8_t)(ihl / 4);
	ip[IP4_OFF_TOS] = IP4_TOS_NETCTL;
	net_put16(ip + IP4_OFF_TOT_LEN, (uint16_t)(ihl + IGMP_V3_QUERY_LEN));
	ip[IP4_OFF_TTL] = 1;
	ip[IP4_OFF_PROTO] = IPPROTO_IGMP;
	memcpy(ip + IP4_OFF_SADDR, &src, sizeof(src));
	memcpy(ip + IP4_OFF_DADDR, &all.v4mapped.a4, 4);
	ip[IP4_HDR_LEN] = 0x94;			/* Router Alert, copied */
	ip[IP4_HDR_LEN + 1] = IP4_OPT_RA_LEN;
	sum = csum_ip4_header(ip, ihl);
	memcpy(ip + IP4_OFF_CSUM, &sum, sizeof(sum));

	q[0] = IGMP_QUERY;
	q[1] = IGMP_MAX_RESP_DS;
	q[8] = MCAST_QRV;
	q[9] = MCAST_QQIC;
	sum = csum(q, IGMP_V3_QUERY_LEN, 0);
	memcpy(q + 2, &sum, sizeof(sum));

	return ETH_HDR_LEN + ihl + IGMP_V3_QUERY_LEN;
}

/**
 * mcast_mld_query() - build an MLDv2 general query frame
 * @buf:	output, MCAST_QUERY_MAX bytes
 * @our_mac:	our Ethernet address
 * @src:	our link-local address
 *
 * Return: frame length
 */
size_t mcast_mld_query(uint8_t *buf, const uint8_t *our_mac,
		       const struct in6_addr *src)
{
	static const uint8_t hbh[IP6_HBH_RA_LEN] = {
		IPPROTO_ICMPV6, 0, 5, 2, 0, 0, 1, 0	/* RA: MLD, PadN */
	};
	uint8_t *ip = buf + ETH_HDR_LEN, *q = ip + IP6_HDR_LEN + sizeof(hbh);
	union inany_addr s = { .a6 = *src }, all = { 0 };
	struct iovec iov = { .iov_base = q, .iov_len = MLD_V2_QUERY_LEN };
	uint16_t sum;

	all.a6.s6_addr[0] = 0xff;
	all.a6.s6_addr[1] = 0x02;
	all.a6.s6_addr[15] = 1;
	memset(buf, 0, ETH_HDR_LEN + IP6_HDR_LEN + sizeof(hbh) +
		       MLD_V2_QUERY_LEN);
	mcast_mac(buf + ETH_OFF_DST, &all);
	memcpy(buf + ETH_OFF_SRC, our_mac, ETH_ADDR_LEN);
	net_put16(buf + ETH_OFF_TYPE, ETH_TYPE_IP6);

	net_put32(ip + IP6_OFF_VER_TC_FL, 6U << 28);
	net_put16(ip + IP6_OFF_PLEN, sizeof(hbh) + MLD_V2_QUERY_LEN);
	ip[IP6_OFF_NEXT] = IP6_NH_HOPOPTS;
	ip[IP6_OFF_HOP_LIMIT] = 1;
	memcpy(ip + IP6_OFF_SADDR, src, sizeof(*src));
	memcpy(ip + IP6_OFF_DADDR, &all.a6, sizeof(all.a6));
	memcpy(ip + IP6_HDR_LEN, hbh, sizeof(hbh));

	q[0] = MLD_QUERY;
	net_put16(q + 4, MLD_MAX_RESP_MS);
	q[24] = MCAST_QRV;
	q[25] = MCAST_QQIC;
	sum = csum_l4(&s, &all, IPPROTO_ICMPV6, &iov, 1, MLD_V2_QUERY_LEN);
	memcpy(q + 2, &sum, sizeof(sum));

	return ETH_HDR_LEN + IP6_HDR_LEN + sizeof(hbh) + MLD_V2_QUERY_LEN;
}
