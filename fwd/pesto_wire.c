// SPDX-License-Identifier: GPL-2.0-or-later
/* pesto_wire.c - messages of the forwarding configuration protocol
 *
 * Theory of operation
 *
 * The protocol is upstream's (pesto, version 2), described in our own
 * words in doc/pesto.md. Everything is a fixed-size field: big-endian
 * 32-bit and 16-bit numbers, raw 16-byte IPv6 addresses (IPv4 mapped as
 * ::ffff:a.b.c.d) and NUL-padded names. A session is:
 *
 *   relay:  hello, then for each pif: identifier (1 byte), information
 *           (name, capabilities, rule count), rules; then identifier 0
 *   client: nothing (it only looked), or for each pif it changes:
 *           identifier, rule count, rules (the whole new table of that
 *           pif); then identifier 0
 *   relay:  a reply with a status and a message (this implementation's
 *           extension: upstream's client closes without reading it)
 *
 * Our relay also sends, right after the end of the tables, its derived
 * configuration as text (another extension, announced by PESTO_CAP_VIEW
 * in the tables' capabilities, so that our client reads it only from a
 * relay that sends it; upstream's client never reads past the tables).
 *
 * The relay never trusts the client: pesto_update_feed() takes the
 * client's bytes in whatever pieces they arrive, checks every field as
 * soon as it is complete (known pif, given once, bounded rule count, rules
 * with sane ports, protocol, flags and a terminated interface name), and
 * stops at the first error with a message. The whole message is bounded
 * (PESTO_UPDATE_MAX), and so is each table. What the rules mean for this
 * relay (families, overlaps) is checked later, by fwd/fwd_rules.c.
 *
 * Nothing here does I/O or allocates: the fuzz target drives the parser
 * with arbitrary bytes.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <netinet/in.h>

#include "pesto_wire.h"
#include "../net/ip.h"

/* Offsets in a rule */
#define PESTO_R_ADDR		0
#define PESTO_R_TADDR		16
#define PESTO_R_IFNAME		32
#define PESTO_R_FIRST		(PESTO_R_IFNAME + PESTO_IFNAMSIZ)
#define PESTO_R_LAST		(PESTO_R_FIRST + 2)
#define PESTO_R_TO		(PESTO_R_LAST + 2)
#define PESTO_R_PROTO		(PESTO_R_TO + 2)
#define PESTO_R_FLAGS		(PESTO_R_PROTO + 1)

/**
 * pesto_hello_encode() - the relay's greeting
 * @buf:	PESTO_HELLO_LEN bytes
 */
void pesto_hello_encode(uint8_t *buf)
{
	memcpy(buf, PESTO_MAGIC, PESTO_MAGIC_LEN);
	net_put32(buf + PESTO_MAGIC_LEN, PESTO_VERSION);
	net_put32(buf + PESTO_MAGIC_LEN + 4, PESTO_PIF_NAME_SIZE);
	net_put32(buf + PESTO_MAGIC_LEN + 8, PESTO_IFNAMSIZ);
}

/**
 * pesto_hello_check() - check the relay's greeting (client side)
 * @buf:	PESTO_HELLO_LEN bytes
 * @errbuf:	message on failure
 * @errlen:	its size
 *
 * Return: 0 if the relay speaks our version, -1 otherwise
 */
int pesto_hello_check(const uint8_t *buf, char *errbuf, size_t errlen)
{
	uint32_t version = net_get32(buf + PESTO_MAGIC_LEN);

	if (memcmp(buf, PESTO_MAGIC, PESTO_MAGIC_LEN) != 0) {
		snprintf(errbuf, errlen,
			 "not a passt or pasta configuration socket (bad greeting)");
		return -1;
	}
	if (version != PESTO_VERSION) {
		snprintf(errbuf, errlen,
			 "the relay speaks protocol version %u, we speak %u",
			 version, (unsigned int)PESTO_VERSION);
		return -1;
	}
	if (net_get32(buf + PESTO_MAGIC_LEN + 4) != PESTO_PIF_NAME_SIZE ||
	    net_get32(buf + PESTO_MAGIC_LEN + 8) != PESTO_IFNAMSIZ) {
		snprintf(errbuf, errlen,
			 "the relay uses other name sizes (%u, %u) than we do",
			 net_get32(buf + PESTO_MAGIC_LEN + 4),
			 net_get32(buf + PESTO_MAGIC_LEN + 8));
		return -1;
	}
	return 0;
}

/**
 * pesto_pif_info_encode() - information about a pif, before its rules
 * @buf:	PESTO_PIF_INFO_LEN bytes
 * @name:	pif name
 * @caps:	PESTO_CAP_*
 * @count:	number of rules that follow
 */
void pesto_pif_info_encode(uint8_t *buf, const char *name, uint32_t caps,
			   uint32_t count)
{
	memset(buf, 0, PESTO_PIF_NAME_SIZE);
	snprintf((char *)buf, PESTO_PIF_NAME_SIZE, "%s", name);
	net_put32(buf + PESTO_PIF_NAME_SIZE, caps);
	net_put32(buf + PESTO_PIF_NAME_SIZE + 4, count);
}

/**
 * pesto_pif_info_decode() - read information about a pif (client side)
 * @buf:	PESTO_PIF_INFO_LEN bytes
 * @name:	PESTO_PIF_NAME_SIZE bytes, set
 * @caps:	set
 * @count:	set
 *
 * Return: 0 on success, -1 if the name is not terminated or the count is
 *	   beyond PESTO_PIF_RULES_MAX
 */
int pesto_pif_info_decode(const uint8_t *buf, char *name, uint32_t *caps,
			  uint32_t *count)
{
	if (buf[PESTO_PIF_NAME_SIZE - 1])
		return -1;
	memcpy(name, buf, PESTO_PIF_NAME_SIZE);
	*caps = net_get32(buf + PESTO_PIF_NAME_SIZE);
	*count = net_get32(buf + PESTO_PIF_NAME_SIZE + 4);
	return *count > PESTO_PIF_RULES_MAX ? -1 : 0;
}

/**
 * pesto_rule_encode() - a rule for the wire
 * @buf:	PESTO_RULE_LEN bytes
 * @r:		rule
 */
void pesto_rule_encode(uint8_t *buf, const struct pesto_rule *r)
{
	memcpy(buf + PESTO_R_ADDR, &r->addr, 16);
	memcpy(buf + PESTO_R_TADDR, &r->taddr, 16);
	memset(buf + PESTO_R_IFNAME, 0, PESTO_IFNAMSIZ);
	memcpy(buf + PESTO_R_IFNAME, r->ifname,
	       strnlen(r->ifname, PESTO_IFNAMSIZ - 1));
	net_put16(buf + PESTO_R_FIRST, r->first);
	net_put16(buf + PESTO_R_LAST, r->last);
	net_put16(buf + PESTO_R_TO, r->to);
	buf[PESTO_R_PROTO] = r->proto;
	buf[PESTO_R_FLAGS] = r->flags;
}

/**
 * pesto_rule_decode() - a rule from the wire, unchecked
 * @buf:	PESTO_RULE_LEN bytes
 * @r:		rule, set (see pesto_rule_check())
 */
void pesto_rule_decode(const uint8_t *buf, struct pesto_rule *r)
{
	memcpy(&r->addr, buf + PESTO_R_ADDR, 16);
	memcpy(&r->taddr, buf + PESTO_R_TADDR, 16);
	memcpy(r->ifname, buf + PESTO_R_IFNAME, PESTO_IFNAMSIZ);
	r->first = net_get16(buf + PESTO_R_FIRST);
	r->last = net_get16(buf + PESTO_R_LAST);
	r->to = net_get16(buf + PESTO_R_TO);
	r->proto = buf[PESTO_R_PROTO];
	r->flags = buf[PESTO_R_FLAGS];
}

/**
 * pesto_rule_check() - check the fields of a rule read from the wire
 * @r:		rule
 * @errbuf:	message on failure
 * @errlen:	its size
 *
 * Return: 0 if well-formed, -1 with a message otherwise
 */
int pesto_rule_check(const struct pesto_rule *r, char *errbuf, size_t errlen)
{
	if (r->ifname[PESTO_IFNAMSIZ - 1]) {
		snprintf(errbuf, errlen, "interface name not terminated");
		return -1;
	}
	if (r->proto != IPPROTO_TCP && r->proto != IPPROTO_UDP) {
		snprintf(errbuf, errlen, "unknown protocol %u", r->proto);
		return -1;
	}
	if (!r->first || r->first > r->last) {
		snprintf(errbuf, errlen, "invalid port range %u-%u",
			 r->first, r->last);
		return -1;
	}
	if (!r->to || (unsigned int)r->to + (r->last - r->first) > 65535) {
		snprintf(errbuf, errlen,
			 "target ports %u-%u out of range", r->to,
			 (unsigned int)r->to + (r->last - r->first));
		return -1;
	}
	if (r->flags & ~PESTO_RULE_FLAGS) {
		snprintf(errbuf, errlen, "unknown flags 0x%x", r->flags);
		return -1;
	}
	if ((r->flags & PESTO_RULE_DUAL) &&
	    !IN6_IS_ADDR_UNSPECIFIED(&r->addr.a6)) {
		snprintf(errbuf, errlen,
			 "a rule for any address of both families has an address");
		return -1;
	}
	return 0;
}

/**
 * pesto_rule_same() - compare two rules, field by field
 * @a:		first
 * @b:		second
 *
 * Return: true if equal
 */
bool pesto_rule_same(const struct pesto_rule *a, const struct pesto_rule *b)
{
	return inany_equals(&a->addr, &b->addr) &&
	       inany_equals(&a->taddr, &b->taddr) &&
	       !strncmp(a->ifname, b->ifname, sizeof(a->ifname)) &&
	       a->first == b->first && a->last == b->last && a->to == b->to &&
	       a->proto == b->proto && a->flags == b->flags;
}

/**
 * pesto_addr_fmt() - format an address of a rule
 * @a:		address
 * @buf:	output, INANY_STRLEN bytes
 *
 * Return: @buf
 */
static const char *pesto_addr_fmt(const union inany_addr *a, char *buf)
{
	return inany_ntop(a, buf) ? buf : "?";
}

/**
 * pesto_rule_fmt() - describe a rule, as upstream's pesto shows it
 * @r:		rule
 * @buf:	output
 * @size:	size of @buf
 *
 * Return: @buf
 */
const char *pesto_rule_fmt(const struct pesto_rule *r, char *buf,
			   size_t size)
{
	char a[INANY_STRLEN], t[INANY_STRLEN + 1] = "", ports[16], to[16];
	unsigned int tolast = (unsigned int)r->to + (r->last - r->first);

	if (!inany_is_unspecified(&r->taddr)) {
		pesto_addr_fmt(&r->taddr, a);
		snprintf(t, sizeof(t), "%s:", a);
	}
	if (r->flags & PESTO_RULE_DUAL)
		snprintf(a, sizeof(a), "*");
	else
		pesto_addr_fmt(&r->addr, a);

	if (r->first == r->last) {
		snprintf(ports, sizeof(ports), "%u", r->first);
		snprintf(to, sizeof(to), "%u", r->to);
	} else {
		snprintf(ports, sizeof(ports), "%u-%u", r->first, r->last);
		snprintf(to, sizeof(to), "%u-%u", r->to, tolast);
	}

	snprintf(buf, size, "%s [%s]%s%.*s:%s  =>  %s%s %s%s",
		 r->proto == IPPROTO_TCP ? "TCP" :
		 r->proto == IPPROTO_UDP ? "UDP" : "?",
		 a, *r->ifname ? "%" : "", PESTO_IFNAMSIZ - 1, r->ifname,
		 ports, t, to,
		 (r->flags & PESTO_RULE_WEAK) ? " (best effort)" : "",
		 (r->flags & PESTO_RULE_SCAN) ? " (auto-scan)" : "");
	return buf;
}

/**
 * pesto_pif_name() - the name of a pif, as upstream calls it
 * @pif:	identifier
 *
 * Return: "HOST", "SPLICE", or "?"
 */
const char *pesto_pif_name(uint8_t pif)
{
	switch (pif) {
	case PESTO_PIF_HOST:
		return "HOST";
	case PESTO_PIF_SPLICE:
		return "SPLICE";
	default:
		return "?";
	}
}

/**
 * pesto_update_init() - start parsing a client's update
 * @u:		parser
 * @pifs_ok:	bitmap (1 << pif) of the pifs the relay has
 */
void pesto_update_init(struct pesto_update *u, unsigned int pifs_ok)
{
	u->state = PESTO_UP_PIF;
	u->pifs_ok = pifs_ok;
	u->have = 0;
	u->bytes = 0;
	u->cur = NULL;
	u->left = 0;
	u->n = 0;
	u->err[0] = '\0';
}

/**
 * pesto_update_fail() - stop with an error
 * @u:		parser
 * @msg:	what is wrong
 *
 * Return: -1
 */
static int pesto_update_fail(struct pesto_update *u, const char *msg)
{
	snprintf(u->err, sizeof(u->err), "byte %zu: %s", u->bytes, msg);
	u->state = PESTO_UP_ERROR;
	return -1;
}

/**
 * pesto_update_pif() - a complete pif identifier
 * @u:		parser
 * @pif:	identifier
 *
 * Return: 0 on success, -1 on error
 */
static int pesto_update_pif(struct pesto_update *u, uint8_t pif)
{
	unsigned int i;

	if (pif == PESTO_PIF_NONE) {
		u->state = PESTO_UP_DONE;
		return 0;
	}
	if (pif >= PESTO_PIFS_MAX || !(u->pifs_ok & (1U << pif)))
		return pesto_update_fail(u, "rules for a pif this relay doesn't have");
	for (i = 0; i < u->n; i++) {
		if (u->tables[i].pif == pif)
			return pesto_update_fail(u, "rules for a pif given twice");
	}

	u->cur = &u->tables[u->n++];
	u->cur->pif = pif;
	u->cur->caps = 0;
	u->cur->count = 0;
	u->state = PESTO_UP_COUNT;
	return 0;
}

/**
 * pesto_update_field() - a complete field: act on it
 * @u:		parser, with the field in @buf
 *
 * Return: 0 on success, -1 on error
 */
static int pesto_update_field(struct pesto_update *u)
{
	char why[96];

	switch (u->state) {
	case PESTO_UP_PIF:
		return pesto_update_pif(u, u->buf[0]);
	case PESTO_UP_COUNT:
		u->left = net_get32(u->buf);
		if (u->left > PESTO_PIF_RULES_MAX)
			return pesto_update_fail(u, "too many rules for one pif");
		u->state = u->left ? PESTO_UP_RULE : PESTO_UP_PIF;
		return 0;
	case PESTO_UP_RULE: {
		struct pesto_rule *r = &u->cur->rules[u->cur->count];

		pesto_rule_decode(u->buf, r);
		if (pesto_rule_check(r, why, sizeof(why)))
			return pesto_update_fail(u, why);
		u->cur->count++;
		if (!--u->left)
			u->state = PESTO_UP_PIF;
		return 0;
	}
	default:
		return pesto_update_fail(u, "data after the end of the update");
	}
}

/**
 * pesto_update_want() - size of the field the parser expects
 * @state:	parser state
 *
 * Return: bytes
 */
static size_t pesto_update_want(enum pesto_update_state state)
{
	switch (state) {
	case PESTO_UP_COUNT:
		return 4;
	case PESTO_UP_RULE:
		return PESTO_RULE_LEN;
	default:
		return 1;
	}
}

/**
 * pesto_update_feed() - parse more bytes of a client's update
 * @u:		parser
 * @data:	bytes, as received
 * @len:	number of bytes
 *
 * Return: 1 once the whole update was read (no byte may follow), 0 if
 *	   more is needed, -1 if the update is malformed (see @u->err)
 */
int pesto_update_feed(struct pesto_update *u, const uint8_t *data,
		      size_t len)
{
	size_t i;

	if (u->state == PESTO_UP_ERROR)
		return -1;

	for (i = 0; i < len; i++) {
		if (u->state == PESTO_UP_DONE)
			return pesto_update_fail(u, "data after the end of the update");
		if (u->bytes >= PESTO_UPDATE_MAX)
			return pesto_update_fail(u, "update too long");

		u->buf[u->have++] = data[i];
		u->bytes++;
		if (u->have < pesto_update_want(u->state))
			continue;
		u->have = 0;
		if (pesto_update_field(u))
			return -1;
	}

	return u->state == PESTO_UP_DONE ? 1 : 0;
}

/**
 * pesto_reply_encode() - the relay's reply to an update
 * @buf:	output
 * @size:	its size, at least PESTO_REPLY_HDR_LEN
 * @status:	0 if applied, else an errno value
 * @msg:	message for the user, may be empty
 *
 * Return: length of the reply
 */
size_t pesto_reply_encode(uint8_t *buf, size_t size, uint32_t status,
			  const char *msg)
{
	size_t len = strlen(msg);

	if (len > PESTO_REPLY_MSG_MAX)
		len = PESTO_REPLY_MSG_MAX;
	if (len > size - PESTO_REPLY_HDR_LEN)
		len = size - PESTO_REPLY_HDR_LEN;

	memcpy(buf, PESTO_REPLY_MAGIC, PESTO_MAGIC_LEN);
	net_put32(buf + PESTO_MAGIC_LEN, status);
	net_put32(buf + PESTO_MAGIC_LEN + 4, (uint32_t)len);
	memcpy(buf + PESTO_REPLY_HDR_LEN, msg, len);
	return PESTO_REPLY_HDR_LEN + len;
}

/**
 * pesto_reply_decode() - read the header of a reply (client side)
 * @hdr:	PESTO_REPLY_HDR_LEN bytes
 * @status:	set
 * @msglen:	set, at most PESTO_REPLY_MSG_MAX
 *
 * Return: 0 on success, -1 if this is not a reply
 */
int pesto_reply_decode(const uint8_t *hdr, uint32_t *status,
		       uint32_t *msglen)
{
	if (memcmp(hdr, PESTO_REPLY_MAGIC, PESTO_MAGIC_LEN) != 0)
		return -1;
	*status = net_get32(hdr + PESTO_MAGIC_LEN);
	*msglen = net_get32(hdr + PESTO_MAGIC_LEN + 4);
	return *msglen > PESTO_REPLY_MSG_MAX ? -1 : 0;
}

/**
 * pesto_view_encode() - the relay's derived configuration, for the wire
 * @buf:	output
 * @size:	its size, at least PESTO_VIEW_HDR_LEN
 * @text:	lines of text, cut at PESTO_VIEW_MAX bytes
 *
 * Return: length of the block
 */
size_t pesto_view_encode(uint8_t *buf, size_t size, const char *text)
{
	size_t len = strlen(text);

	if (len > PESTO_VIEW_MAX)
		len = PESTO_VIEW_MAX;
	if (len > size - PESTO_VIEW_HDR_LEN)
		len = size - PESTO_VIEW_HDR_LEN;

	memcpy(buf, PESTO_VIEW_MAGIC, PESTO_MAGIC_LEN);
	net_put32(buf + PESTO_MAGIC_LEN, (uint32_t)len);
	memcpy(buf + PESTO_VIEW_HDR_LEN, text, len);
	return PESTO_VIEW_HDR_LEN + len;
}

/**
 * pesto_view_decode() - read the header of the derived configuration
 * @hdr:	PESTO_VIEW_HDR_LEN bytes
 * @len:	set to the length of the text, at most PESTO_VIEW_MAX
 *
 * Return: 0 on success, -1 if this is not the block or it is too long
 */
int pesto_view_decode(const uint8_t *hdr, uint32_t *len)
{
	if (memcmp(hdr, PESTO_VIEW_MAGIC, PESTO_MAGIC_LEN) != 0)
		return -1;
	*len = net_get32(hdr + PESTO_MAGIC_LEN);
	return *len > PESTO_VIEW_MAX ? -1 : 0;
}
