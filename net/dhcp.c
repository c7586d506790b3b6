// SPDX-License-Identifier: GPL-2.0-or-later
/* dhcp.c - DHCPv4 server for the guest (RFC 2131, RFC 2132, BOOTP)
 *
 * Theory of operation: the guest is the only client on its link and there
 * is exactly one address to give it, c->ip4.addr, so the server keeps no
 * lease table. Every request is answered from the configuration alone:
 *
 * - DHCPDISCOVER gets a DHCPOFFER, or a DHCPACK carrying Rapid Commit if
 *   the client asked for it (RFC 4039).
 * - DHCPREQUEST gets a DHCPACK if the address it asks for (option 50, or
 *   ciaddr when renewing) is c->ip4.addr, a DHCPNAK otherwise. A request
 *   naming another server identifier is for another server: ignored.
 * - DHCPINFORM gets a DHCPACK with configuration only: no yiaddr, no
 *   lease times.
 * - DHCPDECLINE and DHCPRELEASE are logged and not answered.
 * - A BOOTP request (RFC 951: no message type option) gets a BOOTREPLY
 *   with the address and the configuration options.
 *
 * Options sent: subnet mask, router, DNS servers (a resolver on the
 * host's loopback as the --dns-forward or gateway address, see conf/),
 * interface MTU, host name, domain name (first search domain), client
 * FQDN (RFC 4702), domain search list (RFC 3397), lease, renewal
 * and rebinding times, server identifier. The lease is --dhcp-lease long
 * (default 600 s while the relay follows the host, guest/follow.c: a
 * guest renews at half of it, and so learns the host's new address
 * within 5 minutes); infinite with --no-follow-host, where the
 * configuration never changes and an infinite lease keeps the guest's
 * address if the relay is briefly away. When the
 * gateway is outside the guest's subnet, classless static routes (RFC
 * 3442) give a host route to the gateway and the default route through
 * it. Clients that support that option ignore the router option then, so
 * it is left out for clients that ask for option 121, and still sent to
 * the others, which may not know option 121 (RFC 3442 suggests giving
 * the default router both ways for those).
 *
 * Options are sent in a fixed order, all of them whatever the parameter
 * request list says; those that do not fit the client's maximum message
 * size (576 bytes unless option 57 says more) are left out, the last ones
 * first. Options longer than 255 bytes are split (RFC 3396).
 *
 * Replies go from the server identifier address (the gateway) port 67 to
 * port 68, to ciaddr if the client has an address, to 255.255.255.255
 * otherwise (always for a DHCPNAK), and at Ethernet level to the guest's
 * MAC address: learnt from chaddr if no frame has told it yet.
 *
 * Messages are read with bounds checks on every field and option: the
 * fixed header, htype and hlen (Ethernet), the magic cookie (a BOOTP
 * vendor area of zeroes is accepted as "no options"), each option's
 * length within the message and within what its type allows. Anything
 * else makes dhcp_input() return false, for the caller to count.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/uio.h>

#include "../conf/ctx.h"
#include "../qdisc/qdisc.h"
#include "../util/log.h"
#include "../util/util.h"
#include "checksum.h"
#include "dhcp.h"
#include "dns_name.h"
#include "../util/inany.h"
#include "ip.h"
#include "net.h"
#include "../guest/follow.h"
#include "../guest/guest.h"
#include "frame.h"

/* BOOTP/DHCP message layout (RFC 2131, section 2) */
#define DHCP_OFF_OP		0
#define DHCP_OFF_HTYPE		1
#define DHCP_OFF_HLEN		2
#define DHCP_OFF_HOPS		3
#define DHCP_OFF_XID		4
#define DHCP_OFF_SECS		8
#define DHCP_OFF_FLAGS		10
#define DHCP_OFF_CIADDR		12
#define DHCP_OFF_YIADDR		16
#define DHCP_OFF_SIADDR		20
#define DHCP_OFF_GIADDR		24
#define DHCP_OFF_CHADDR		28
#define DHCP_CHADDR_LEN		16
#define DHCP_HDR_LEN		236	/* up to the vendor area / options */
#define DHCP_OFF_COOKIE		236
#define DHCP_COOKIE_LEN		4
#define DHCP_OFF_OPTS		240

#define DHCP_BOOTREQUEST	1
#define DHCP_BOOTREPLY		2
#define DHCP_HTYPE_ETHER	1

static const uint8_t dhcp_cookie[DHCP_COOKIE_LEN] = { 99, 130, 83, 99 };

/* RFC 1542, section 2.1: BOOTP replies are at least this long */
#define DHCP_MSG_MIN		300
/* RFC 2131: every client accepts IP datagrams of 576 bytes */
#define DHCP_IP_DGRAM_MIN	576
#define DHCP_UDP_HDR_LEN	8
/* Largest reply we build, for clients announcing a large option 57 */
#define DHCP_MSG_MAX		(1500 - IP4_HDR_LEN - DHCP_UDP_HDR_LEN)

/* Message types (option 53) */
#define DHCPDISCOVER		1
#define DHCPOFFER		2
#define DHCPREQUEST		3
#define DHCPDECLINE		4
#define DHCPACK			5
#define DHCPNAK			6
#define DHCPRELEASE		7
#define DHCPINFORM		8

/* Options (RFC 2132 unless noted) */
#define DHCP_OPT_PAD		0
#define DHCP_OPT_MASK		1
#define DHCP_OPT_ROUTER		3
#define DHCP_OPT_DNS		6
#define DHCP_OPT_HOSTNAME	12
#define DHCP_OPT_DOMAIN		15
#define DHCP_OPT_MTU		26
#define DHCP_OPT_REQ_ADDR	50
#define DHCP_OPT_LEASE		51
#define DHCP_OPT_TYPE		53
#define DHCP_OPT_SERVER_ID	54
#define DHCP_OPT_PRL		55
#define DHCP_OPT_MESSAGE	56
#define DHCP_OPT_MAX_SIZE	57
#define DHCP_OPT_T1		58
#define DHCP_OPT_T2		59
#define DHCP_OPT_RAPID		80	/* RFC 4039 */
#define DHCP_OPT_FQDN		81	/* RFC 4702 */
#define DHCP_OPT_SEARCH		119	/* RFC 3397 */
#define DHCP_OPT_ROUTES		121	/* RFC 3442 */
#define DHCP_OPT_END		255
#define DHCP_OPT_DATA_MAX	255

/* Client FQDN option (RFC 4702, section 2): flags, then two RCODEs */
#define DHCP_FQDN_S		0x01
#define DHCP_FQDN_O		0x02
#define DHCP_FQDN_E		0x04
#define DHCP_FQDN_N		0x08
#define DHCP_FQDN_HDR_LEN	3
#define DHCP_FQDN_RCODE		255

#define DHCP_FLAG_BROADCAST	0x8000

#define DHCP_LEASE_INFINITE	0xffffffffU

/* Interface MTU option range (RFC 2132, section 5.1) */
#define DHCP_MTU_MIN		68
#define DHCP_MTU_MAX		65535

#define DHCP_DNS_NAME_MAX	255

/**
 * struct dhcp_req - what a request says, after validation
 * @msg:		message, at least DHCP_HDR_LEN bytes
 * @type:		option 53, 0 for BOOTP
 * @req_addr:		option 50, INADDR_ANY if absent
 * @server_id:		option 54, INADDR_ANY if absent
 * @has_server_id:	option 54 present
 * @rapid_commit:	option 80 present
 * @has_fqdn:		option 81 present
 * @fqdn_flags:		flags of option 81
 * @wants_routes:	option 121 in the parameter request list
 * @max_size:		largest DHCP message the client accepts
 * @seen:		options already met, for duplicates of fixed ones
 */
struct dhcp_req {
	const uint8_t *msg;
	uint8_t type;
	struct in_addr req_addr;
	struct in_addr server_id;
	bool has_server_id;
	bool rapid_commit;
	bool has_fqdn;
	uint8_t fqdn_flags;
	bool wants_routes;
	size_t max_size;
	uint8_t seen[32];
};

/**
 * struct dhcp_out - options area of a reply being built
 * @p:		first option byte
 * @len:	bytes used
 * @room:	bytes available, one kept back for the End option
 */
struct dhcp_out {
	uint8_t *p;
	size_t len;
	size_t room;
};

/**
 * dhcp_mask() - netmask of the guest's prefix
 * @c:		execution context
 *
 * Return: netmask, network order
 */
static struct in_addr dhcp_mask(const struct ctx *c)
{
	const struct ip4_ctx *ip4 = follow_ip4(c);
	int plen = ip4->prefix_len;
	struct in_addr m;

	if (plen <= 0)
		m.s_addr = 0;
	else if (plen >= 32)
		m.s_addr = htonl(0xffffffffU);
	else
		m.s_addr = htonl(0xffffffffU << (32 - plen));

	return m;
}

/**
 * dhcp_gw_onlink() - tell if the gateway is inside the guest's subnet
 * @c:		execution context
 *
 * Return: true if it is (or there is no gateway)
 */
static bool dhcp_gw_onlink(const struct ctx *c)
{
	const struct ip4_ctx *ip4 = follow_ip4(c);
	uint32_t m = dhcp_mask(c).s_addr;

	if (!net_ip4_is_unicast(ip4->gw))
		return true;

	return (ip4->gw.s_addr & m) == (ip4->addr.s_addr & m);
}

/**
 * dhcp_server_addr() - address we answer from, also the server identifier
 * @c:		execution context
 *
 * The relay answers ARP for every address but the guest's: without a
 * gateway, any other address of the guest's subnet is ours to use.
 *
 * Return: the gateway, or the first usable address of the guest's subnet
 *	   that is not the guest's
 */
static struct in_addr dhcp_server_addr(const struct ctx *c)
{
	const struct ip4_ctx *ip4 = follow_ip4(c);
	uint32_t addr = ntohl(ip4->addr.s_addr);
	uint32_t mask = ntohl(dhcp_mask(c).s_addr);
	struct in_addr s;

	if (net_ip4_is_unicast(ip4->gw) &&
	    ip4->gw.s_addr != ip4->addr.s_addr)
		return ip4->gw;

	if (ip4->prefix_len >= 31) {
		s.s_addr = htonl(addr ^ 1);
	} else {
		uint32_t first = (addr & mask) + 1;

		s.s_addr = htonl(first == addr ? first + 1 : first);
	}

	return s;
}

/**
 * dhcp_seen() - note an option, tell if it was met before
 * @r:		request
 * @code:	option code
 *
 * Return: true if @code was already seen
 */
static bool dhcp_seen(struct dhcp_req *r, uint8_t code)
{
	uint8_t bit = (uint8_t)(1U << (code % 8));
	bool seen = r->seen[code / 8] & bit;

	r->seen[code / 8] |= bit;
	return seen;
}

/**
 * dhcp_opt_in() - take in one option of a request
 * @r:		request being parsed
 * @code:	option code
 * @v:		option data
 * @len:	option data length, within the message
 *
 * Return: false if the option is malformed or a forbidden duplicate
 */
static bool dhcp_opt_in(struct dhcp_req *r, uint8_t code, const uint8_t *v,
			size_t len)
{
	size_t i;

	switch (code) {
	case DHCP_OPT_TYPE:
		if (dhcp_seen(r, code) || len != 1 || !v[0])
			return false;
		r->type = v[0];
		return true;
	case DHCP_OPT_REQ_ADDR:
		if (dhcp_seen(r, code) || len != sizeof(r->req_addr))
			return false;
		memcpy(&r->req_addr, v, sizeof(r->req_addr));
		return true;
	case DHCP_OPT_SERVER_ID:
		if (dhcp_seen(r, code) || len != sizeof(r->server_id))
			return false;
		memcpy(&r->server_id, v, sizeof(r->server_id));
		r->has_server_id = true;
		return true;
	case DHCP_OPT_MAX_SIZE:
		if (dhcp_seen(r, code) || len != 2)
			return false;
		if (net_get16(v) > DHCP_IP_DGRAM_MIN) {
			r->max_size = net_get16(v) - IP4_HDR_LEN -
				      DHCP_UDP_HDR_LEN;
		}
		return true;
	case DHCP_OPT_RAPID:
		if (dhcp_seen(r, code) || len)
			return false;
		r->rapid_commit = true;
		return true;
	case DHCP_OPT_FQDN:
		if (dhcp_seen(r, code) || len < DHCP_FQDN_HDR_LEN)
			return false;
		r->has_fqdn = true;
		r->fqdn_flags = v[0];
		return true;
	case DHCP_OPT_PRL:
		/* May come in several parts (RFC 3396) */
		for (i = 0; i < len; i++) {
			if (v[i] == DHCP_OPT_ROUTES)
				r->wants_routes = true;
		}
		return true;
	default:
		return true;
	}
}

/**
 * dhcp_parse() - validate a request and collect what it says
 * @r:		output
 * @msg:	BOOTP message
 * @len:	its length
 *
 * Return: true if valid
 */
static bool dhcp_parse(struct dhcp_req *r, const uint8_t *msg, size_t len)
{
	static const uint8_t zero[DHCP_COOKIE_LEN];
	const uint8_t *o;
	size_t i, olen;

	memset(r, 0, sizeof(*r));
	r->msg = msg;
	r->max_size = DHCP_IP_DGRAM_MIN - IP4_HDR_LEN - DHCP_UDP_HDR_LEN;

	if (len < DHCP_HDR_LEN)
		return false;

	if (msg[DHCP_OFF_OP] != DHCP_BOOTREQUEST ||
	    msg[DHCP_OFF_HTYPE] != DHCP_HTYPE_ETHER ||
	    msg[DHCP_OFF_HLEN] != ETH_ADDR_LEN)
		return false;

	/* No vendor area, or one starting with zeroes: plain BOOTP */
	if (!memcmp(msg + DHCP_OFF_COOKIE, zero,
		    MIN(len - DHCP_OFF_COOKIE, DHCP_COOKIE_LEN)))
		return true;

	if (len < DHCP_OFF_OPTS ||
	    memcmp(msg + DHCP_OFF_COOKIE, dhcp_cookie, DHCP_COOKIE_LEN) != 0)
		return false;

	o = msg + DHCP_OFF_OPTS;
	olen = len - DHCP_OFF_OPTS;
	for (i = 0; i < olen; ) {
		uint8_t code = o[i];
		size_t l;

		if (code == DHCP_OPT_PAD) {
			i++;
			continue;
		}
		if (code == DHCP_OPT_END)
			return true;

		if (olen - i < 2)
			return false;
		l = o[i + 1];
		if (l > olen - i - 2)
			return false;

		if (!dhcp_opt_in(r, code, o + i + 2, l))
			return false;

		i += 2 + l;
	}

	/* No End option: tolerated, every option was complete */
	return true;
}

/**
 * dhcp_put() - append an option to a reply, split in parts if long
 * @o:		options area
 * @code:	option code
 * @data:	option data, may be NULL if @len is 0
 * @len:	data length
 *
 * Options longer than 255 bytes become consecutive instances with the
 * same code, which the client concatenates (RFC 3396).
 *
 * Return: true if written, false (nothing written) if it does not fit
 */
static bool dhcp_put(struct dhcp_out *o, uint8_t code, const void *data,
		     size_t len)
{
	size_t parts = len ? DIV_ROUND_UP(len, DHCP_OPT_DATA_MAX) : 1;
	const uint8_t *d = data;

	if (o->len + len + 2 * parts > o->room)
		return false;

	do {
		size_t l = MIN(len, DHCP_OPT_DATA_MAX);

		o->p[o->len++] = code;
		o->p[o->len++] = (uint8_t)l;
		if (l) {	/* no arithmetic on @data: NULL when empty */
			memcpy(o->p + o->len, d, l);
			d += l;
		}
		o->len += l;
		len -= l;
	} while (len);

	return true;
}

/**
 * dhcp_put32() - append an option holding one 32-bit value
 * @o:		options area
 * @code:	option code
 * @v:		value, host order
 *
 * Return: true if written
 */
static bool dhcp_put32(struct dhcp_out *o, uint8_t code, uint32_t v)
{
	uint8_t b[4];

	net_put32(b, v);
	return dhcp_put(o, code, b, sizeof(b));
}

/**
 * dhcp_put_routes() - classless static routes to an off-link gateway
 * @c:		execution context
 * @o:		options area
 *
 * RFC 3442 encoding: prefix length, significant octets of the
 * destination, router. A host route to the gateway with router 0.0.0.0
 * (directly connected), then the default route through the gateway.
 */
static void dhcp_put_routes(const struct ctx *c, struct dhcp_out *o)
{
	const struct ip4_ctx *ip4 = follow_ip4(c);
	uint8_t r[(1 + 4 + 4) + (1 + 4)];
	const struct in_addr gw = ip4->gw;

	r[0] = 32;
	memcpy(r + 1, &gw, 4);
	memset(r + 5, 0, 4);
	r[9] = 0;
	memcpy(r + 10, &gw, 4);

	(void)dhcp_put(o, DHCP_OPT_ROUTES, r, sizeof(r));
}

/**
 * dhcp_put_dns() - DNS servers option
 * @c:		execution context
 * @o:		options area
 */
static void dhcp_put_dns(const struct ctx *c, struct dhcp_out *o)
{
	const struct ip4_ctx *ip4 = follow_ip4(c);
	struct in_addr d[DNS_MAX];
	size_t n = 0;
	int i;

	if (c->no_dns || c->no_dhcp_dns)
		return;

	/* conf/ already put the --dns-forward or gateway address in place
	 * of resolvers on the host's loopback
	 */
	for (i = 0; i < ip4->dns_count && i < DNS_MAX; i++) {
		if (ip4->dns[i].s_addr != htonl(INADDR_ANY))
			d[n++] = ip4->dns[i];
	}

	if (n)
		(void)dhcp_put(o, DHCP_OPT_DNS, d, n * sizeof(d[0]));
}

/**
 * dhcp_put_domain() - domain name option: the first search domain
 * @c:		execution context
 * @o:		options area
 */
static void dhcp_put_domain(const struct ctx *c, struct dhcp_out *o)
{
	const char *name;
	size_t len;

	if (c->no_search || c->no_dhcp_search || follow_search_count(c) < 1)
		return;

	name = follow_search_name(c, 0);
	len = strnlen(name, SEARCH_LEN_MAX + 1);
	if (len == SEARCH_LEN_MAX + 1)
		return;
	if (len && name[len - 1] == '.')
		len--;
	if (!len)
		return;

	(void)dhcp_put(o, DHCP_OPT_DOMAIN, name, len);
}

/**
 * dhcp_put_search() - domain search list option (RFC 3397)
 * @c:		execution context
 * @o:		options area
 *
 * Names are encoded without compression; the names that do not fit the
 * reply are left out, the last ones first.
 */
static void dhcp_put_search(const struct ctx *c, struct dhcp_out *o)
{
	uint8_t buf[DNS_SEARCH_BUF];
	size_t end[SEARCH_MAX], n;

	if (c->no_search || c->no_dhcp_search)
		return;

	n = dns_search_encode(c, buf, sizeof(buf), end);
	while (n) {
		if (dhcp_put(o, DHCP_OPT_SEARCH, buf, end[n - 1]))
			return;
		n--;
	}
}

/**
 * dhcp_put_fqdn() - client FQDN option (RFC 4702)
 * @c:		execution context
 * @r:		request
 * @o:		options area
 *
 * We do no DNS updates: N set, S clear, O set if the client asked for S.
 * The name goes in the encoding the client used (E), canonical wire
 * format if the client sent no FQDN option.
 */
static void dhcp_put_fqdn(const struct ctx *c, const struct dhcp_req *r,
			  struct dhcp_out *o)
{
	uint8_t v[DHCP_FQDN_HDR_LEN + DHCP_DNS_NAME_MAX];
	bool wire = !r->has_fqdn || (r->fqdn_flags & DHCP_FQDN_E);
	size_t len = DHCP_FQDN_HDR_LEN;

	if (!r->has_fqdn && !*c->fqdn)
		return;

	v[0] = DHCP_FQDN_N;
	if (wire)
		v[0] |= DHCP_FQDN_E;
	if (r->has_fqdn && (r->fqdn_flags & DHCP_FQDN_S))
		v[0] |= DHCP_FQDN_O;
	v[1] = DHCP_FQDN_RCODE;
	v[2] = DHCP_FQDN_RCODE;

	if (memchr(c->fqdn, '\0', sizeof(c->fqdn))) {
		if (wire) {
			len += dns_name_encode(v + len, sizeof(v) - len,
					     c->fqdn);
		} else {
			size_t l = strlen(c->fqdn);

			if (l <= sizeof(v) - len) {
				memcpy(v + len, c->fqdn, l);
				len += l;
			}
		}
	}

	(void)dhcp_put(o, DHCP_OPT_FQDN, v, len);
}

/**
 * dhcp_put_config() - options describing the guest's configuration
 * @c:		execution context
 * @r:		request
 * @o:		options area
 */
static void dhcp_put_config(const struct ctx *c, const struct dhcp_req *r,
			    struct dhcp_out *o)
{
	const struct ip4_ctx *ip4 = follow_ip4(c);
	struct in_addr mask = dhcp_mask(c);
	size_t hlen;

	(void)dhcp_put(o, DHCP_OPT_MASK, &mask, sizeof(mask));

	if (net_ip4_is_unicast(ip4->gw) &&
	    ip4->gw.s_addr != ip4->addr.s_addr) {
		bool onlink = dhcp_gw_onlink(c);

		if (!onlink)
			dhcp_put_routes(c, o);
		if (onlink || !r->wants_routes) {
			(void)dhcp_put(o, DHCP_OPT_ROUTER, &ip4->gw,
				       sizeof(ip4->gw));
		}
	}

	dhcp_put_dns(c, o);

	if (c->mtu >= DHCP_MTU_MIN && c->mtu <= DHCP_MTU_MAX) {
		uint8_t m[2];

		net_put16(m, (uint16_t)c->mtu);
		(void)dhcp_put(o, DHCP_OPT_MTU, m, sizeof(m));
	}

	hlen = strnlen(c->hostname, sizeof(c->hostname));
	if (hlen && hlen < sizeof(c->hostname))
		(void)dhcp_put(o, DHCP_OPT_HOSTNAME, c->hostname, hlen);

	dhcp_put_domain(c, o);

	if (r->type)
		dhcp_put_fqdn(c, r, o);

	dhcp_put_search(c, o);
}

/**
 * dhcp_send() - finish a reply and queue its frame
 * @c:		execution context
 * @buf:	frame buffer, message at net_l2l3_len() + DHCP_UDP_HDR_LEN
 * @o:		options area of the message, End not yet written
 * @src:	IPv4 source address
 * @dst:	IPv4 destination address
 */
static void dhcp_send(const struct ctx *c, uint8_t *buf, struct dhcp_out *o,
		      struct in_addr src, struct in_addr dst)
{
	size_t msglen, l4len, l2l3;
	union inany_addr s, d;
	uint8_t *uh;

	o->p[o->len++] = DHCP_OPT_END;
	msglen = DHCP_OFF_OPTS + o->len;
	if (msglen < DHCP_MSG_MIN) {
		memset(o->p + o->len, DHCP_OPT_PAD, DHCP_MSG_MIN - msglen);
		msglen = DHCP_MSG_MIN;
	}
	l4len = DHCP_UDP_HDR_LEN + msglen;

	inany_from_v4(&s, src);
	inany_from_v4(&d, dst);
	l2l3 = net_fill_l2l3(c, buf, &s, &d, IPPROTO_UDP, l4len);

	uh = buf + l2l3;
	csum_udp_header(uh, &s, &d, DHCP_SERVER_PORT, DHCP_CLIENT_PORT, l4len);

	qdisc_send(c, buf, l2l3 + l4len);
}

/**
 * dhcp_reply() - build and send a reply to a validated request
 * @c:		execution context
 * @r:		request
 * @type:	DHCPOFFER, DHCPACK, DHCPNAK, or 0 for a BOOTP reply
 */
static void dhcp_reply(const struct ctx *c, const struct dhcp_req *r,
		       uint8_t type)
{
	const struct ip4_ctx *ip4 = follow_ip4(c);
	uint8_t buf[L2L3_HDR_MAX + DHCP_UDP_HDR_LEN + DHCP_MSG_MAX];
	struct in_addr server = dhcp_server_addr(c), dst, ciaddr;
	const uint8_t *q = r->msg;
	union inany_addr s;
	struct dhcp_out o;
	uint8_t *m;

	inany_from_v4(&s, server);
	m = buf + net_l2l3_len(&s) + DHCP_UDP_HDR_LEN;

	memset(m, 0, DHCP_OFF_OPTS);
	m[DHCP_OFF_OP] = DHCP_BOOTREPLY;
	m[DHCP_OFF_HTYPE] = DHCP_HTYPE_ETHER;
	m[DHCP_OFF_HLEN] = ETH_ADDR_LEN;
	memcpy(m + DHCP_OFF_XID, q + DHCP_OFF_XID, 4);
	memcpy(m + DHCP_OFF_FLAGS, q + DHCP_OFF_FLAGS, 2);
	memcpy(m + DHCP_OFF_GIADDR, q + DHCP_OFF_GIADDR, 4);
	memcpy(m + DHCP_OFF_CHADDR, q + DHCP_OFF_CHADDR, DHCP_CHADDR_LEN);
	memcpy(m + DHCP_OFF_COOKIE, dhcp_cookie, DHCP_COOKIE_LEN);

	memcpy(&ciaddr, q + DHCP_OFF_CIADDR, sizeof(ciaddr));
	if (type == DHCPACK)
		memcpy(m + DHCP_OFF_CIADDR, &ciaddr, sizeof(ciaddr));
	if (type != DHCPNAK && r->type != DHCPINFORM)
		memcpy(m + DHCP_OFF_YIADDR, &ip4->addr, sizeof(ip4->addr));

	o.p = m + DHCP_OFF_OPTS;
	o.len = 0;
	o.room = MIN(r->max_size, DHCP_MSG_MAX) - DHCP_OFF_OPTS - 1;

	if (type) {
		(void)dhcp_put(&o, DHCP_OPT_TYPE, &type, 1);
		(void)dhcp_put(&o, DHCP_OPT_SERVER_ID, &server,
			       sizeof(server));
	}

	if (type == DHCPNAK) {
		static const char msg[] = "requested address is not ours";

		(void)dhcp_put(&o, DHCP_OPT_MESSAGE, msg, sizeof(msg) - 1);
	} else {
		if (type && r->type != DHCPINFORM) {
			uint32_t lease = c->dhcp_lease ? c->dhcp_lease :
						 DHCP_LEASE_INFINITE;
			uint32_t t1 = lease, t2 = lease;

			if (lease != DHCP_LEASE_INFINITE) {
				t1 = lease / 2;
				t2 = lease / 8 * 7;
			}
			(void)dhcp_put32(&o, DHCP_OPT_LEASE, lease);
			(void)dhcp_put32(&o, DHCP_OPT_T1, t1);
			(void)dhcp_put32(&o, DHCP_OPT_T2, t2);
		}
		if (r->type == DHCPDISCOVER && type == DHCPACK)
			(void)dhcp_put(&o, DHCP_OPT_RAPID, NULL, 0);

		dhcp_put_config(c, r, &o);
	}

	if (type != DHCPNAK && ciaddr.s_addr != htonl(INADDR_ANY))
		dst = ciaddr;
	else
		dst.s_addr = htonl(INADDR_BROADCAST);

	dhcp_send(c, buf, &o, server, dst);
}

/**
 * dhcp_request() - answer a DHCPREQUEST
 * @c:		execution context
 * @r:		request
 *
 * Return: true (consumed, answered or deliberately ignored)
 */
static bool dhcp_request(const struct ctx *c, const struct dhcp_req *r)
{
	const struct ip4_ctx *ip4 = follow_ip4(c);
	struct in_addr server = dhcp_server_addr(c), want;
	char a[INET_ADDRSTRLEN];

	if (r->has_server_id && r->server_id.s_addr != server.s_addr) {
		debug("dhcp: request for server %s, not us: ignoring",
		      inet_ntop(AF_INET, &r->server_id, a, sizeof(a)));
		return true;
	}

	/* Selecting or init-reboot: option 50; renewing, rebinding: ciaddr */
	want = r->req_addr;
	if (want.s_addr == htonl(INADDR_ANY))
		memcpy(&want, r->msg + DHCP_OFF_CIADDR, sizeof(want));

	if (want.s_addr != ip4->addr.s_addr) {
		info_rl("DHCP: guest asked for address %s, sending NAK: the "
			"guest's address is set with -a",
			inet_ntop(AF_INET, &want, a, sizeof(a)));
		dhcp_reply(c, r, DHCPNAK);
		return true;
	}

	debug("dhcp: ack to request for %s",
	      inet_ntop(AF_INET, &want, a, sizeof(a)));
	dhcp_reply(c, r, DHCPACK);
	return true;
}

/**
 * dhcp_input() - handle a BOOTP/DHCP message from the guest
 * @c:		execution context
 * @payload:	UDP payload of an IPv4 datagram to port 67, any alignment
 * @len:	its length
 *
 * Return: true if consumed (answered, or not needing an answer), false if
 *	   malformed, not a client message we handle, or DHCP is disabled
 */
bool dhcp_input(const struct ctx *c, const uint8_t *payload, size_t len)
{
	const struct ip4_ctx *ip4 = follow_ip4(c);
	const uint8_t *chaddr;
	char a[INET_ADDRSTRLEN];
	struct dhcp_req r;

	if (c->no_dhcp || !c->ip4.enabled ||
	    !net_ip4_is_unicast(ip4->addr))
		return false;

	if (!dhcp_parse(&r, payload, len)) {
		trace("dhcp: malformed message from guest, %zu bytes", len);
		return false;
	}

	chaddr = payload + DHCP_OFF_CHADDR;
	if (net_mac_is_zero(guest_mac()) && !(chaddr[0] & 1) &&
	    !net_mac_is_zero(chaddr))
		guest_mac_set(chaddr);

	switch (r.type) {
	case 0:
		debug("dhcp: BOOTP reply");
		dhcp_reply(c, &r, 0);
		return true;
	case DHCPDISCOVER:
		if (r.rapid_commit) {
			debug("dhcp: ack with rapid commit to discover");
			dhcp_reply(c, &r, DHCPACK);
		} else {
			debug("dhcp: offer to discover");
			dhcp_reply(c, &r, DHCPOFFER);
		}
		return true;
	case DHCPREQUEST:
		return dhcp_request(c, &r);
	case DHCPINFORM:
		debug("dhcp: ack to inform");
		dhcp_reply(c, &r, DHCPACK);
		return true;
	case DHCPDECLINE:
		warn_rl("DHCP: guest declined address %s, it may be in use on "
			"its link: pick another with -a",
			inet_ntop(AF_INET, &r.req_addr, a, sizeof(a)));
		return true;
	case DHCPRELEASE:
		debug("dhcp: guest released its address");
		return true;
	default:
		trace("dhcp: unhandled message type %u", r.type);
		return false;
	}
}
