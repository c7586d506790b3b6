// SPDX-License-Identifier: GPL-2.0-or-later
/* dhcpv6.c - DHCPv6 server for the guest (RFC 8415), one address
 *
 * Theory of operation: as for DHCPv4, the guest is the only client and
 * c->ip6.addr the only address, so no binding is stored: each message is
 * answered from the configuration.
 *
 * - Solicit gets an Advertise with Preference 255 (the client need not
 *   wait for other servers), or a Reply if it asked for Rapid Commit.
 * - Request, Renew and Rebind get a Reply with the address. Addresses
 *   a renewing client holds that are not ours come back with zero
 *   lifetimes (RFC 8415, section 18.3.4).
 * - Confirm gets a Reply with status Success if every address it lists is
 *   on the guest's prefix, NotOnLink otherwise; none listed, no answer.
 * - Release and Decline get a Reply with status Success.
 * - Information-request gets a Reply with configuration options only.
 *
 * Identity associations: the first IA_NA gets the address, with infinite
 * lifetimes and T1/T2 (DHCPV6_LIFETIME: the configuration is static);
 * further IA_NAs and every IA_TA get status NoAddrsAvail, IA_PDs status
 * NoPrefixAvail. Configuration options: DNS servers (23, a resolver on
 * ::1 as the --dns-forward or gateway address), domain search list (24)
 * and client FQDN (39, RFC 4704, when set or when the client sent one).
 * Our DUID is a DUID-LL from our MAC address. Replies are kept within the
 * IPv6 minimum MTU: search domains that do not fit are left out.
 *
 * Replies go from our link-local address port 547 to the client's source
 * address port 546. Messages are checked as RFC 8415 section 16 asks
 * (Client and Server Identifier presence per type, our DUID where one is
 * named) and every option and sub-option length is checked against its
 * container; anything else makes dhcpv6_input() return false.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/uio.h>

#include "../conf/ctx.h"
#include "../guest/follow.h"
#include "../qdisc/qdisc.h"
#include "../util/log.h"
#include "../util/util.h"
#include "checksum.h"
#include "dns_name.h"
#include "dhcpv6.h"
#include "../util/inany.h"
#include "ip.h"
#include "net.h"
#include "frame.h"

/* Message: type, 24-bit transaction ID, options (RFC 8415, section 8) */
#define DHCPV6_OFF_TYPE		0
#define DHCPV6_OFF_XID		1
#define DHCPV6_XID_LEN		3
#define DHCPV6_HDR_LEN		4
#define DHCPV6_OPT_HDR_LEN	4
#define DHCPV6_UDP_HDR_LEN	8

/* Replies stay within the IPv6 minimum MTU */
#define DHCPV6_MSG_MAX		(MTU_MIN_IPV6 - IP6_HDR_LEN - DHCPV6_UDP_HDR_LEN)

/* Message types */
#define DHCPV6_SOLICIT		1
#define DHCPV6_ADVERTISE	2
#define DHCPV6_REQUEST		3
#define DHCPV6_CONFIRM		4
#define DHCPV6_RENEW		5
#define DHCPV6_REBIND		6
#define DHCPV6_REPLY		7
#define DHCPV6_RELEASE		8
#define DHCPV6_DECLINE		9
#define DHCPV6_INFO_REQUEST	11

/* Options */
#define DHCPV6_OPT_CLIENTID	1
#define DHCPV6_OPT_SERVERID	2
#define DHCPV6_OPT_IA_NA	3
#define DHCPV6_OPT_IA_TA	4
#define DHCPV6_OPT_IAADDR	5
#define DHCPV6_OPT_PREFERENCE	7
#define DHCPV6_OPT_STATUS	13
#define DHCPV6_OPT_RAPID	14
#define DHCPV6_OPT_DNS		23	/* RFC 3646 */
#define DHCPV6_OPT_DOMAINS	24	/* RFC 3646 */
#define DHCPV6_OPT_IA_PD	25
#define DHCPV6_OPT_FQDN		39	/* RFC 4704 */

/* Status codes */
#define DHCPV6_SUCCESS		0
#define DHCPV6_NO_ADDRS_AVAIL	2
#define DHCPV6_NOT_ON_LINK	4
#define DHCPV6_NO_PREFIX_AVAIL	6

/* Option layouts */
#define DHCPV6_IA_NA_LEN	12	/* IAID, T1, T2 */
#define DHCPV6_IA_TA_LEN	4	/* IAID */
#define DHCPV6_IA_PD_LEN	12	/* IAID, T1, T2 */
#define DHCPV6_IAADDR_LEN	24	/* address, preferred, valid */
#define DHCPV6_DUID_MIN		3	/* type and something */
#define DHCPV6_DUID_MAX		130	/* type and 128 bytes */
#define DHCPV6_DUID_LL		3
#define DHCPV6_HWTYPE_ETHER	1
#define DHCPV6_DUID_LL_LEN	(2 + 2 + ETH_ADDR_LEN)
#define DHCPV6_PREFERENCE_MAX	255
#define DHCPV6_STATUS_TEXT_MAX	64

/* FQDN flags (RFC 4704, section 4.1) */
#define DHCPV6_FQDN_S		0x01
#define DHCPV6_FQDN_O		0x02
#define DHCPV6_FQDN_N		0x04

/* Lifetimes, T1 and T2: infinite, the configuration never changes */
#define DHCPV6_LIFETIME		0xffffffffU

/* Identity associations answered per message; extra ones are ignored */
#define DHCPV6_IA_MAX		8
/* Foreign addresses returned with zero lifetimes per IA_NA */
#define DHCPV6_IAADDR_MAX	4

#define DHCPV6_NAME_MAX		255

/**
 * struct dhcpv6_ia - an identity association option of a request
 * @code:	DHCPV6_OPT_IA_NA, DHCPV6_OPT_IA_TA or DHCPV6_OPT_IA_PD
 * @v:		option data, length checked against the fixed part
 * @len:	option data length
 */
struct dhcpv6_ia {
	uint16_t code;
	const uint8_t *v;
	size_t len;
};

/**
 * struct dhcpv6_req - what a client message says, after validation
 * @type:		message type
 * @xid:		transaction ID
 * @clientid:		Client Identifier data, NULL if absent
 * @clientid_len:	its length
 * @has_serverid:	Server Identifier present
 * @serverid_ours:	and it is our DUID
 * @rapid_commit:	Rapid Commit present
 * @has_fqdn:		Client FQDN present
 * @fqdn_flags:		its flags
 * @ia:			identity associations, in order
 * @ia_count:		number of entries in @ia
 */
struct dhcpv6_req {
	uint8_t type;
	const uint8_t *xid;
	const uint8_t *clientid;
	size_t clientid_len;
	bool has_serverid;
	bool serverid_ours;
	bool rapid_commit;
	bool has_fqdn;
	uint8_t fqdn_flags;
	struct dhcpv6_ia ia[DHCPV6_IA_MAX];
	size_t ia_count;
};

/**
 * struct dhcpv6_out - a message (or option data) being built
 * @p:		first byte
 * @len:	bytes used
 * @room:	bytes available
 */
struct dhcpv6_out {
	uint8_t *p;
	size_t len;
	size_t room;
};

/**
 * dhcpv6_duid() - our DUID: DUID-LL from our MAC address (RFC 8415, 11.4)
 * @c:		execution context
 * @duid:	output, DHCPV6_DUID_LL_LEN bytes
 */
static void dhcpv6_duid(const struct ctx *c, uint8_t *duid)
{
	net_put16(duid, DHCPV6_DUID_LL);
	net_put16(duid + 2, DHCPV6_HWTYPE_ETHER);
	memcpy(duid + 4, c->our_mac, ETH_ADDR_LEN);
}

/**
 * dhcpv6_opts_check() - check that options tile their container exactly
 * @p:		first option
 * @len:	bytes of options
 *
 * Return: true if every option header and body lies within @len
 */
static bool dhcpv6_opts_check(const uint8_t *p, size_t len)
{
	size_t i = 0;

	while (i < len) {
		size_t l;

		if (len - i < DHCPV6_OPT_HDR_LEN)
			return false;
		l = net_get16(p + i + 2);
		if (l > len - i - DHCPV6_OPT_HDR_LEN)
			return false;
		i += DHCPV6_OPT_HDR_LEN + l;
	}

	return true;
}

/**
 * dhcpv6_ia_check() - validate an identity association option
 * @code:	option code
 * @v:		option data
 * @len:	its length
 *
 * Return: true if the fixed part is there, sub-options well-formed, and
 *	   IA Address sub-options of IA_NA and IA_TA long enough
 */
static bool dhcpv6_ia_check(uint16_t code, const uint8_t *v, size_t len)
{
	size_t fixed = code == DHCPV6_OPT_IA_TA ? DHCPV6_IA_TA_LEN :
						 DHCPV6_IA_NA_LEN;
	size_t i;

	if (len < fixed || !dhcpv6_opts_check(v + fixed, len - fixed))
		return false;

	if (code == DHCPV6_OPT_IA_PD)
		return true;

	for (i = fixed; i < len; ) {
		size_t l = net_get16(v + i + 2);

		if (net_get16(v + i) == DHCPV6_OPT_IAADDR &&
		    l < DHCPV6_IAADDR_LEN)
			return false;
		i += DHCPV6_OPT_HDR_LEN + l;
	}

	return true;
}

/**
 * dhcpv6_parse() - validate a client message and collect what it says
 * @c:		execution context
 * @r:		output
 * @msg:	message
 * @len:	its length
 *
 * Return: true if well-formed
 */
static bool dhcpv6_parse(const struct ctx *c, struct dhcpv6_req *r,
			 const uint8_t *msg, size_t len)
{
	uint8_t duid[DHCPV6_DUID_LL_LEN];
	size_t i;

	memset(r, 0, sizeof(*r));

	if (len < DHCPV6_HDR_LEN)
		return false;

	r->type = msg[DHCPV6_OFF_TYPE];
	r->xid = msg + DHCPV6_OFF_XID;

	if (!dhcpv6_opts_check(msg + DHCPV6_HDR_LEN, len - DHCPV6_HDR_LEN))
		return false;

	dhcpv6_duid(c, duid);

	for (i = DHCPV6_HDR_LEN; i < len; ) {
		uint16_t code = net_get16(msg + i);
		size_t l = net_get16(msg + i + 2);
		const uint8_t *v = msg + i + DHCPV6_OPT_HDR_LEN;

		i += DHCPV6_OPT_HDR_LEN + l;

		switch (code) {
		case DHCPV6_OPT_CLIENTID:
			if (r->clientid || l < DHCPV6_DUID_MIN ||
			    l > DHCPV6_DUID_MAX)
				return false;
			r->clientid = v;
			r->clientid_len = l;
			break;
		case DHCPV6_OPT_SERVERID:
			if (r->has_serverid || l < DHCPV6_DUID_MIN ||
			    l > DHCPV6_DUID_MAX)
				return false;
			r->has_serverid = true;
			r->serverid_ours = l == sizeof(duid) &&
					   !memcmp(v, duid, sizeof(duid));
			break;
		case DHCPV6_OPT_RAPID:
			if (l)
				return false;
			r->rapid_commit = true;
			break;
		case DHCPV6_OPT_FQDN:
			if (r->has_fqdn || l < 1)
				return false;
			r->has_fqdn = true;
			r->fqdn_flags = v[0];
			break;
		case DHCPV6_OPT_IA_NA:
		case DHCPV6_OPT_IA_TA:
		case DHCPV6_OPT_IA_PD:
			if (!dhcpv6_ia_check(code, v, l))
				return false;
			if (r->ia_count < DHCPV6_IA_MAX) {
				r->ia[r->ia_count].code = code;
				r->ia[r->ia_count].v = v;
				r->ia[r->ia_count].len = l;
				r->ia_count++;
			}
			break;
		default:
			break;
		}
	}

	return true;
}

/**
 * dhcpv6_put() - append an option
 * @o:		message or container being built
 * @code:	option code
 * @data:	option data, may be NULL if @len is 0
 * @len:	its length
 *
 * Return: true if written, false (nothing written) if it does not fit
 */
static bool dhcpv6_put(struct dhcpv6_out *o, uint16_t code, const void *data,
		       size_t len)
{
	if (len > UINT16_MAX || o->len + DHCPV6_OPT_HDR_LEN + len > o->room)
		return false;

	net_put16(o->p + o->len, code);
	net_put16(o->p + o->len + 2, (uint16_t)len);
	if (len)
		memcpy(o->p + o->len + DHCPV6_OPT_HDR_LEN, data, len);
	o->len += DHCPV6_OPT_HDR_LEN + len;

	return true;
}

/**
 * dhcpv6_put_status() - append a Status Code option
 * @o:		message or container being built
 * @status:	status code
 * @text:	status message, UTF-8, not NUL-terminated on the wire
 * @tlen:	its length, at most DHCPV6_STATUS_TEXT_MAX
 *
 * Return: true if written
 */
static bool dhcpv6_put_status(struct dhcpv6_out *o, uint16_t status,
			      const char *text, size_t tlen)
{
	uint8_t v[2 + DHCPV6_STATUS_TEXT_MAX];

	tlen = MIN(tlen, DHCPV6_STATUS_TEXT_MAX);
	net_put16(v, status);
	memcpy(v + 2, text, tlen);

	return dhcpv6_put(o, DHCPV6_OPT_STATUS, v, 2 + tlen);
}

/* Status Code option with a message given as a string literal */
#define DHCPV6_PUT_STATUS(o, status, lit)				\
	dhcpv6_put_status((o), (status), (lit), sizeof(lit) - 1)

/**
 * dhcpv6_put_iaaddr() - append an IA Address option
 * @o:		IA being built
 * @a:		address
 * @lifetime:	preferred and valid lifetime
 *
 * Return: true if written
 */
static bool dhcpv6_put_iaaddr(struct dhcpv6_out *o, const struct in6_addr *a,
			      uint32_t lifetime)
{
	uint8_t v[DHCPV6_IAADDR_LEN];

	memcpy(v, a, sizeof(*a));
	net_put32(v + 16, lifetime);
	net_put32(v + 20, lifetime);
	return dhcpv6_put(o, DHCPV6_OPT_IAADDR, v, sizeof(v));
}

/**
 * dhcpv6_put_ia() - answer one identity association
 * @c:		execution context
 * @r:		request
 * @ia:		the IA of the request
 * @give:	give it our address (IA_NA only)
 * @o:		reply being built
 */
static void dhcpv6_put_ia(const struct ctx *c, const struct dhcpv6_req *r,
			  const struct dhcpv6_ia *ia, bool give,
			  struct dhcpv6_out *o)
{
	const struct ip6_ctx *ip6 = follow_ip6(c);
	uint8_t v[DHCPV6_IA_NA_LEN + (DHCPV6_OPT_HDR_LEN + DHCPV6_IAADDR_LEN) *
		  (1 + DHCPV6_IAADDR_MAX) + DHCPV6_OPT_HDR_LEN + 2 +
		  DHCPV6_STATUS_TEXT_MAX];
	struct dhcpv6_out ia_o = { .p = v, .len = 0, .room = sizeof(v) };
	size_t i, foreign = 0;
	bool renew;

	if (ia->code == DHCPV6_OPT_IA_TA) {
		memcpy(v, ia->v, DHCPV6_IA_TA_LEN);
		ia_o.len = DHCPV6_IA_TA_LEN;
		(void)DHCPV6_PUT_STATUS(&ia_o, DHCPV6_NO_ADDRS_AVAIL,
					"temporary addresses not supported");
		(void)dhcpv6_put(o, ia->code, v, ia_o.len);
		return;
	}

	/* IAID, then T1 and T2 */
	memcpy(v, ia->v, 4);
	ia_o.len = DHCPV6_IA_NA_LEN;

	if (ia->code == DHCPV6_OPT_IA_PD) {
		net_put32(v + 4, 0);
		net_put32(v + 8, 0);
		(void)DHCPV6_PUT_STATUS(&ia_o, DHCPV6_NO_PREFIX_AVAIL,
					"prefix delegation not supported");
		(void)dhcpv6_put(o, ia->code, v, ia_o.len);
		return;
	}

	if (!give) {
		net_put32(v + 4, 0);
		net_put32(v + 8, 0);
		(void)DHCPV6_PUT_STATUS(&ia_o, DHCPV6_NO_ADDRS_AVAIL,
					"address already given to another IA");
		(void)dhcpv6_put(o, ia->code, v, ia_o.len);
		return;
	}

	net_put32(v + 4, DHCPV6_LIFETIME);
	net_put32(v + 8, DHCPV6_LIFETIME);
	(void)dhcpv6_put_iaaddr(&ia_o, &ip6->addr, DHCPV6_LIFETIME);

	/* Renewing or rebinding an address that is not ours: invalidate */
	renew = r->type == DHCPV6_RENEW || r->type == DHCPV6_REBIND;
	for (i = DHCPV6_IA_NA_LEN; renew && i < ia->len; ) {
		size_t l = net_get16(ia->v + i + 2);
		struct in6_addr a;

		if (net_get16(ia->v + i) == DHCPV6_OPT_IAADDR &&
		    foreign < DHCPV6_IAADDR_MAX) {
			memcpy(&a, ia->v + i + DHCPV6_OPT_HDR_LEN, sizeof(a));
			if (!IN6_ARE_ADDR_EQUAL(&a, &ip6->addr)) {
				(void)dhcpv6_put_iaaddr(&ia_o, &a, 0);
				foreign++;
			}
		}
		i += DHCPV6_OPT_HDR_LEN + l;
	}

	(void)dhcpv6_put(o, ia->code, v, ia_o.len);
}

/**
 * dhcpv6_put_ias() - answer every identity association of a request
 * @c:		execution context
 * @r:		request
 * @o:		reply being built
 */
static void dhcpv6_put_ias(const struct ctx *c, const struct dhcpv6_req *r,
			   struct dhcpv6_out *o)
{
	const struct ip6_ctx *ip6 = follow_ip6(c);
	bool avail = net_ip6_is_unicast(&ip6->addr);
	size_t i;

	for (i = 0; i < r->ia_count; i++) {
		bool give = avail && r->ia[i].code == DHCPV6_OPT_IA_NA;

		dhcpv6_put_ia(c, r, &r->ia[i], give, o);
		if (give)
			avail = false;
	}
}

/**
 * dhcpv6_put_dns() - DNS Recursive Name Server option
 * @c:		execution context
 * @o:		reply being built
 */
static void dhcpv6_put_dns(const struct ctx *c, struct dhcpv6_out *o)
{
	const struct ip6_ctx *ip6 = follow_ip6(c);
	struct in6_addr d[DNS_MAX];
	size_t n = 0;
	int i;

	if (c->no_dns || c->no_dhcp_dns)
		return;

	/* As for DHCP: loopback resolvers were replaced by conf/ */
	for (i = 0; i < ip6->dns_count && i < DNS_MAX; i++) {
		if (!IN6_IS_ADDR_UNSPECIFIED(&ip6->dns[i]))
			d[n++] = ip6->dns[i];
	}

	if (n)
		(void)dhcpv6_put(o, DHCPV6_OPT_DNS, d, n * sizeof(d[0]));
}

/**
 * dhcpv6_put_search() - Domain Search List option
 * @c:		execution context
 * @o:		reply being built
 *
 * Names that do not fit are left out, the last ones first.
 */
static void dhcpv6_put_search(const struct ctx *c, struct dhcpv6_out *o)
{
	uint8_t buf[DNS_SEARCH_BUF];
	size_t end[SEARCH_MAX], n;

	if (c->no_search || c->no_dhcp_search)
		return;

	n = dns_search_encode(c, buf, sizeof(buf), end);
	while (n) {
		if (dhcpv6_put(o, DHCPV6_OPT_DOMAINS, buf, end[n - 1]))
			return;
		n--;
	}
}

/**
 * dhcpv6_put_fqdn() - Client FQDN option (RFC 4704)
 * @c:		execution context
 * @r:		request
 * @o:		reply being built
 *
 * We do no DNS updates: N set, S clear, O set if the client asked for S.
 */
static void dhcpv6_put_fqdn(const struct ctx *c, const struct dhcpv6_req *r,
			    struct dhcpv6_out *o)
{
	uint8_t v[1 + DHCPV6_NAME_MAX];
	size_t len = 1;

	if (!r->has_fqdn && !*c->fqdn)
		return;

	v[0] = DHCPV6_FQDN_N;
	if (r->has_fqdn && (r->fqdn_flags & DHCPV6_FQDN_S))
		v[0] |= DHCPV6_FQDN_O;

	if (memchr(c->fqdn, '\0', sizeof(c->fqdn)))
		len += dns_name_encode(v + 1, sizeof(v) - 1, c->fqdn);

	(void)dhcpv6_put(o, DHCPV6_OPT_FQDN, v, len);
}

/**
 * dhcpv6_on_link() - tell if an address is on the guest's prefix
 * @c:		execution context
 * @a:		address
 *
 * Return: true if the first prefix_len bits match c->ip6.addr
 */
static bool dhcpv6_on_link(const struct ctx *c, const struct in6_addr *a)
{
	const struct ip6_ctx *ip6 = follow_ip6(c);
	int plen = MIN(MAX(ip6->prefix_len, 0), 128);
	int bytes = plen / 8, bits = plen % 8;

	if (memcmp(a->s6_addr, ip6->addr.s6_addr, (size_t)bytes) != 0)
		return false;
	if (bits) {
		uint8_t m = (uint8_t)(0xff << (8 - bits));

		return !((a->s6_addr[bytes] ^ ip6->addr.s6_addr[bytes]) & m);
	}
	return true;
}

/**
 * dhcpv6_confirm_status() - status for a Confirm: are its addresses on-link?
 * @c:		execution context
 * @r:		request
 * @status:	output: DHCPV6_SUCCESS or DHCPV6_NOT_ON_LINK
 *
 * Return: false if the message lists no address (no reply then)
 */
static bool dhcpv6_confirm_status(const struct ctx *c,
				  const struct dhcpv6_req *r,
				  uint16_t *status)
{
	bool any = false;
	size_t n, i;

	*status = DHCPV6_SUCCESS;

	for (n = 0; n < r->ia_count; n++) {
		const struct dhcpv6_ia *ia = &r->ia[n];
		size_t fixed = ia->code == DHCPV6_OPT_IA_TA ? DHCPV6_IA_TA_LEN :
							  DHCPV6_IA_NA_LEN;

		if (ia->code == DHCPV6_OPT_IA_PD)
			continue;

		for (i = fixed; i < ia->len; ) {
			size_t l = net_get16(ia->v + i + 2);
			struct in6_addr a;

			if (net_get16(ia->v + i) == DHCPV6_OPT_IAADDR) {
				memcpy(&a, ia->v + i + DHCPV6_OPT_HDR_LEN,
				       sizeof(a));
				any = true;
				if (!dhcpv6_on_link(c, &a))
					*status = DHCPV6_NOT_ON_LINK;
			}
			i += DHCPV6_OPT_HDR_LEN + l;
		}
	}

	return any;
}

/**
 * dhcpv6_send() - finish a reply and queue its frame
 * @c:		execution context
 * @buf:	frame buffer, message at IPv6 l2l3 length + UDP header
 * @msglen:	message length
 * @dst:	destination address
 */
static void dhcpv6_send(const struct ctx *c, uint8_t *buf, size_t msglen,
			const struct in6_addr *dst)
{
	const struct ip6_ctx *ip6 = follow_ip6(c);
	size_t l4len = DHCPV6_UDP_HDR_LEN + msglen, l2l3;
	union inany_addr s, d;
	uint8_t *uh;

	s.a6 = ip6->our_tap_ll;
	d.a6 = *dst;
	l2l3 = net_fill_l2l3(c, buf, &s, &d, IPPROTO_UDP, l4len);

	uh = buf + l2l3;
	csum_udp_header(uh, &s, &d, DHCPV6_SERVER_PORT, DHCPV6_CLIENT_PORT, l4len);

	qdisc_send(c, buf, l2l3 + l4len);
}

/**
 * dhcpv6_reply() - build and send the answer to a validated message
 * @c:		execution context
 * @r:		request
 * @dst:	client's address
 */
static void dhcpv6_reply(const struct ctx *c, const struct dhcpv6_req *r,
			 const struct in6_addr *dst)
{
	uint8_t buf[ETH_HDR_LEN + IP6_HDR_LEN + DHCPV6_UDP_HDR_LEN +
		    DHCPV6_MSG_MAX];
	uint8_t *m = buf + ETH_HDR_LEN + IP6_HDR_LEN + DHCPV6_UDP_HDR_LEN;
	struct dhcpv6_out o = {
		.p = m, .len = DHCPV6_HDR_LEN, .room = DHCPV6_MSG_MAX
	};
	uint8_t duid[DHCPV6_DUID_LL_LEN];
	bool config = true;

	m[DHCPV6_OFF_TYPE] = DHCPV6_REPLY;
	if (r->type == DHCPV6_SOLICIT && !r->rapid_commit)
		m[DHCPV6_OFF_TYPE] = DHCPV6_ADVERTISE;
	memcpy(m + DHCPV6_OFF_XID, r->xid, DHCPV6_XID_LEN);

	if (r->clientid)
		(void)dhcpv6_put(&o, DHCPV6_OPT_CLIENTID, r->clientid,
				 r->clientid_len);
	dhcpv6_duid(c, duid);
	(void)dhcpv6_put(&o, DHCPV6_OPT_SERVERID, duid, sizeof(duid));

	switch (r->type) {
	case DHCPV6_SOLICIT:
		if (r->rapid_commit) {
			(void)dhcpv6_put(&o, DHCPV6_OPT_RAPID, NULL, 0);
		} else {
			uint8_t pref = DHCPV6_PREFERENCE_MAX;

			(void)dhcpv6_put(&o, DHCPV6_OPT_PREFERENCE, &pref, 1);
		}
		dhcpv6_put_ias(c, r, &o);
		break;
	case DHCPV6_REQUEST:
	case DHCPV6_RENEW:
	case DHCPV6_REBIND:
		dhcpv6_put_ias(c, r, &o);
		break;
	case DHCPV6_CONFIRM: {
		uint16_t status;

		if (!dhcpv6_confirm_status(c, r, &status)) {
			debug("dhcpv6: confirm without addresses, ignoring");
			return;
		}
		if (status == DHCPV6_SUCCESS)
			(void)DHCPV6_PUT_STATUS(&o, status, "on link");
		else
			(void)DHCPV6_PUT_STATUS(&o, status, "not on link");
		config = false;
		break;
	}
	case DHCPV6_RELEASE:
	case DHCPV6_DECLINE:
		(void)DHCPV6_PUT_STATUS(&o, DHCPV6_SUCCESS, "");
		config = false;
		break;
	default:
		break;
	}

	if (config) {
		dhcpv6_put_dns(c, &o);
		dhcpv6_put_fqdn(c, r, &o);
		dhcpv6_put_search(c, &o);
	}

	dhcpv6_send(c, buf, o.len, dst);
}

/**
 * dhcpv6_acceptable() - check identifiers as RFC 8415 section 16 asks
 * @r:		parsed message
 * @ignore:	set if valid but for another server
 *
 * Return: true if the message is one we answer
 */
static bool dhcpv6_acceptable(const struct dhcpv6_req *r, bool *ignore)
{
	*ignore = false;

	switch (r->type) {
	case DHCPV6_SOLICIT:
	case DHCPV6_CONFIRM:
	case DHCPV6_REBIND:
		return r->clientid && !r->has_serverid;
	case DHCPV6_REQUEST:
	case DHCPV6_RENEW:
	case DHCPV6_RELEASE:
	case DHCPV6_DECLINE:
		if (!r->clientid || !r->has_serverid)
			return false;
		*ignore = !r->serverid_ours;
		return true;
	case DHCPV6_INFO_REQUEST:
		/* No identity association of any kind (section 16.12) */
		*ignore = r->has_serverid && !r->serverid_ours;
		return !r->ia_count;
	default:
		return false;
	}
}

/**
 * dhcpv6_input() - handle a DHCPv6 message from the guest
 * @c:		execution context
 * @saddr:	IPv6 source address of the datagram
 * @payload:	UDP payload of a datagram to port 547, any alignment
 * @len:	its length
 *
 * Return: true if consumed (answered, or valid and needing no answer),
 *	   false if malformed, not a client message, or DHCPv6 is off
 */
bool dhcpv6_input(const struct ctx *c, const struct in6_addr *saddr,
		  const uint8_t *payload, size_t len)
{
	const struct ip6_ctx *ip6 = follow_ip6(c);
	struct dhcpv6_req r;
	bool ignore;

	if (c->no_dhcpv6 || !c->ip6.enabled || !net_ip6_is_unicast(saddr))
		return false;

	if (!IN6_IS_ADDR_LINKLOCAL(&ip6->our_tap_ll)) {
		debug("dhcpv6: no link-local address of ours to answer from");
		return false;
	}

	if (!dhcpv6_parse(c, &r, payload, len) ||
	    !dhcpv6_acceptable(&r, &ignore)) {
		trace("dhcpv6: malformed or unexpected message, %zu bytes",
		      len);
		return false;
	}

	if (ignore) {
		debug("dhcpv6: message type %u for another server, ignoring",
		      r.type);
		return true;
	}

	if (r.type == DHCPV6_DECLINE)
		warn_rl("DHCPv6: guest declined its address, it may be in use "
			"on its link: pick another with -a");

	debug("dhcpv6: answering message type %u", r.type);
	dhcpv6_reply(c, &r, saddr);
	return true;
}
