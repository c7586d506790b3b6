/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pesto_wire.h - messages of the forwarding configuration protocol, the
 * one upstream's pesto client speaks over the -c socket
 *
 * Theory of operation: see fwd/pesto_wire.c and doc/pesto.md. This file
 * is shared by the relay (fwd/fwd_ctl.c), this project's client
 * (client/pesto.c) and the fuzz target of the update parser.
 */
#ifndef FWD_PESTO_WIRE_H
#define FWD_PESTO_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/inany.h"

/* Greeting of the relay: magic, version, two sizes the peer must share */
#define PESTO_MAGIC		"basil:s"
#define PESTO_MAGIC_LEN		8
#define PESTO_VERSION		2
#define PESTO_HELLO_LEN		(PESTO_MAGIC_LEN + 3 * 4)
#define PESTO_PIF_NAME_SIZE	128
#define PESTO_IFNAMSIZ		16

/* Interface ("pif") identifiers and names, as upstream numbers them */
#define PESTO_PIF_NONE		0
#define PESTO_PIF_HOST		1	/* -t, -u: sockets on the host */
#define PESTO_PIF_SPLICE	3	/* -T, -U: sockets in the namespace */
#define PESTO_PIFS_MAX		4	/* identifiers below this */

/* Per-pif information: name, capabilities, number of rules */
#define PESTO_PIF_INFO_LEN	(PESTO_PIF_NAME_SIZE + 2 * 4)
#define PESTO_CAP_IPV4		(1U << 0)
#define PESTO_CAP_IPV6		(1U << 1)
#define PESTO_CAP_TCP		(1U << 2)
#define PESTO_CAP_UDP		(1U << 3)
#define PESTO_CAP_SCAN		(1U << 4)	/* "auto" */
#define PESTO_CAP_IFNAME	(1U << 5)	/* binding to an interface */
/* This implementation's extension, from the top bit down (upstream's
 * bits grow from the bottom): a derived configuration block follows the
 * end of the tables (PESTO_VIEW_MAGIC). Set in every table.
 */
#define PESTO_CAP_VIEW		(1U << 31)

/* One rule: addresses, interface, ports, protocol, flags */
#define PESTO_RULE_LEN		(16 + 16 + PESTO_IFNAMSIZ + 3 * 2 + 2)
#define PESTO_RULE_DUAL		(1U << 0)	/* any address, both families */
#define PESTO_RULE_WEAK		(1U << 1)	/* best effort ("all") */
#define PESTO_RULE_SCAN		(1U << 2)	/* only ports found ("auto") */
#define PESTO_RULE_FLAGS	(PESTO_RULE_DUAL | PESTO_RULE_WEAK | \
				 PESTO_RULE_SCAN)

/* Most rules of one pif this implementation takes (upstream: 255) */
#define PESTO_PIF_RULES_MAX	512

/* Reply to an update, an extension of this implementation: magic, status
 * (0 or an errno value), length of the message that follows
 */
#define PESTO_REPLY_MAGIC	"basil:r"
#define PESTO_REPLY_HDR_LEN	(PESTO_MAGIC_LEN + 2 * 4)
#define PESTO_REPLY_MSG_MAX	1024

/* Derived configuration ("host view"), this implementation's extension,
 * sent after the end of the tables if they announce PESTO_CAP_VIEW: magic,
 * length of the text that follows (lines ending with '\n')
 */
#define PESTO_VIEW_MAGIC	"basil:h"
#define PESTO_VIEW_HDR_LEN	(PESTO_MAGIC_LEN + 4)
#define PESTO_VIEW_MAX		4096

/**
 * struct pesto_rule - one forwarding rule, as the protocol carries it
 * @addr:	address to listen on (:: with PESTO_RULE_DUAL: any)
 * @taddr:	target address, :: (or 0.0.0.0) for none
 * @ifname:	interface to listen on, empty for none, NUL-terminated
 * @first:	first port
 * @last:	last port
 * @to:		target port of @first
 * @proto:	IPPROTO_TCP or IPPROTO_UDP
 * @flags:	PESTO_RULE_*
 */
struct pesto_rule {
	union inany_addr addr;
	union inany_addr taddr;
	char ifname[PESTO_IFNAMSIZ];
	uint16_t first;
	uint16_t last;
	uint16_t to;
	uint8_t proto;
	uint8_t flags;
};

/**
 * struct pesto_pif - the rules of one pif
 * @pif:	identifier, PESTO_PIF_NONE for an unused entry
 * @caps:	PESTO_CAP_* (as the relay announced it)
 * @count:	number of @rules
 * @rules:	rules
 */
struct pesto_pif {
	uint8_t pif;
	uint32_t caps;
	unsigned int count;
	struct pesto_rule rules[PESTO_PIF_RULES_MAX];
};

/**
 * enum pesto_update_state - where the update parser is
 * @PESTO_UP_PIF:	expects a pif identifier (or the end, 0)
 * @PESTO_UP_COUNT:	expects the number of rules of the pif
 * @PESTO_UP_RULE:	expects a rule
 * @PESTO_UP_DONE:	the end was seen
 * @PESTO_UP_ERROR:	the message is malformed
 */
enum pesto_update_state {
	PESTO_UP_PIF = 0,
	PESTO_UP_COUNT,
	PESTO_UP_RULE,
	PESTO_UP_DONE,
	PESTO_UP_ERROR,
};

/**
 * struct pesto_update - parser of a client's update, fed in pieces
 * @state:	enum pesto_update_state
 * @pifs_ok:	bitmap of the pif identifiers the relay has
 * @buf:	bytes of the field being read
 * @have:	bytes in @buf
 * @bytes:	bytes of the message so far
 * @cur:	table being read
 * @left:	rules still to read for @cur
 * @n:		tables read (@tables)
 * @tables:	the tables, in the order given
 * @err:	what is wrong, once in PESTO_UP_ERROR
 */
struct pesto_update {
	enum pesto_update_state state;
	unsigned int pifs_ok;
	uint8_t buf[PESTO_RULE_LEN];
	size_t have;
	size_t bytes;
	struct pesto_pif *cur;
	uint32_t left;
	unsigned int n;
	struct pesto_pif tables[PESTO_PIFS_MAX];
	char err[160];
};

/* Longest update: every pif, every rule */
#define PESTO_UPDATE_MAX	(PESTO_PIFS_MAX * \
				 (1 + 4 + PESTO_PIF_RULES_MAX * PESTO_RULE_LEN) + 1)

void pesto_hello_encode(uint8_t *buf);
int pesto_hello_check(const uint8_t *buf, char *errbuf, size_t errlen);
void pesto_pif_info_encode(uint8_t *buf, const char *name, uint32_t caps,
			   uint32_t count);
int pesto_pif_info_decode(const uint8_t *buf, char *name, uint32_t *caps,
			  uint32_t *count);
void pesto_rule_encode(uint8_t *buf, const struct pesto_rule *r);
void pesto_rule_decode(const uint8_t *buf, struct pesto_rule *r);
int pesto_rule_check(const struct pesto_rule *r, char *errbuf, size_t errlen);
bool pesto_rule_same(const struct pesto_rule *a, const struct pesto_rule *b);
const char *pesto_rule_fmt(const struct pesto_rule *r, char *buf,
			   size_t size);
const char *pesto_pif_name(uint8_t pif);
void pesto_update_init(struct pesto_update *u, unsigned int pifs_ok);
int pesto_update_feed(struct pesto_update *u, const uint8_t *data,
		      size_t len);
size_t pesto_reply_encode(uint8_t *buf, size_t size, uint32_t status,
			  const char *msg);
int pesto_reply_decode(const uint8_t *hdr, uint32_t *status,
		       uint32_t *msglen);
size_t pesto_view_encode(uint8_t *buf, size_t size, const char *text);
int pesto_view_decode(const uint8_t *hdr, uint32_t *len);

#endif /* FWD_PESTO_WIRE_H */
