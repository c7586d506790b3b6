// SPDX-License-Identifier: GPL-2.0-or-later
/* frame.c - Ethernet and IP headers of the frames the relay sends the guest
 *
 * Theory of operation: every protocol builds its frames for the guest in
 * place, in its own buffers: it leaves room for the Ethernet and IP
 * headers (net_l2l3_len(), at most L2L3_HDR_MAX), writes its own header
 * and payload after them, and has net_fill_l2l3() write the headers field
 * by field, 34 bytes for IPv4 or 54 for IPv6, nothing else touched. The
 * buffers may have any alignment: nothing is cast to header structures.
 * This sits below tcp/, udp/ and fwd/, which all build frames, and needs
 * nothing of net/'s input side.
 */

#include <string.h>

#include "frame.h"
#include "ip.h"
#include "checksum.h"
#include "../conf/ctx.h"
#include "../guest/guest.h"

/**
 * net_l2l3_len() - length of the Ethernet and IP headers for a source
 * @src:	source address of the packet (IPv4-mapped for IPv4)
 *
 * Return: 34 for IPv4, 54 for IPv6
 */
size_t net_l2l3_len(const union inany_addr *src)
{
	if (inany_v4(src))
		return ETH_HDR_LEN + IP4_HDR_LEN;
	return ETH_HDR_LEN + IP6_HDR_LEN;
}

/**
 * net_fill_l2l3() - write Ethernet and IP headers of a frame to the guest
 * @c:		execution context
 * @buf:	frame buffer, at least L2L3_HDR_MAX bytes, any alignment
 * @src:	source address (IPv4-mapped for IPv4)
 * @dst:	destination address, same family as @src
 * @proto:	L4 protocol number
 * @l4len:	L4 header and payload length (at most 65515 for IPv4,
 *		65535 for IPv6)
 *
 * The Ethernet destination is the guest's MAC address, broadcast while it
 * is unknown. IPv4: DF set, TTL 64, ID 0, header checksum filled in.
 * IPv6: hop limit 64, traffic class and flow label zero.
 *
 * Return: bytes written, the offset of the L4 header in @buf
 */
size_t net_fill_l2l3(const struct ctx *c, uint8_t *buf,
		     const union inany_addr *src, const union inany_addr *dst,
		     uint8_t proto, size_t l4len)
{
	const struct in_addr *s4 = inany_v4(src);
	uint8_t *ip = buf + ETH_HDR_LEN;

	if (net_mac_is_zero(guest_mac()))
		memset(buf + ETH_OFF_DST, 0xff, ETH_ADDR_LEN);
	else
		memcpy(buf + ETH_OFF_DST, guest_mac(), ETH_ADDR_LEN);
	memcpy(buf + ETH_OFF_SRC, c->our_mac, ETH_ADDR_LEN);

	if (s4) {
		uint16_t sum;

		net_put16(buf + ETH_OFF_TYPE, ETH_TYPE_IP4);
		ip[IP4_OFF_VER_IHL] = 0x45;
		ip[IP4_OFF_TOS] = 0;
		net_put16(ip + IP4_OFF_TOT_LEN,
			  (uint16_t)(IP4_HDR_LEN + l4len));
		net_put16(ip + IP4_OFF_ID, 0);
		net_put16(ip + IP4_OFF_FRAG, IP4_FRAG_DF);
		ip[IP4_OFF_TTL] = IP4_TTL_DEFAULT;
		ip[IP4_OFF_PROTO] = proto;
		net_put16(ip + IP4_OFF_CSUM, 0);
		memcpy(ip + IP4_OFF_SADDR, s4, sizeof(*s4));
		memcpy(ip + IP4_OFF_DADDR, &dst->v4mapped.a4,
		       sizeof(dst->v4mapped.a4));

		sum = csum_ip4_header(ip, IP4_HDR_LEN);
		memcpy(ip + IP4_OFF_CSUM, &sum, sizeof(sum));

		return ETH_HDR_LEN + IP4_HDR_LEN;
	}

	net_put16(buf + ETH_OFF_TYPE, ETH_TYPE_IP6);
	net_put32(ip + IP6_OFF_VER_TC_FL, 6U << 28);
	net_put16(ip + IP6_OFF_PLEN, (uint16_t)l4len);
	ip[IP6_OFF_NEXT] = proto;
	ip[IP6_OFF_HOP_LIMIT] = IP6_HOP_LIMIT_DEFAULT;
	memcpy(ip + IP6_OFF_SADDR, &src->a6, sizeof(src->a6));
	memcpy(ip + IP6_OFF_DADDR, &dst->a6, sizeof(dst->a6));

	return ETH_HDR_LEN + IP6_HDR_LEN;
}
