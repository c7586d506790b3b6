/* SPDX-License-Identifier: GPL-2.0-or-later */
/* flow.h - fixed-capacity flow table with hashed lookup
 *
 * Theory of operation: a flow is one conversation between the guest and the
 * host side (a TCP connection, a UDP or ICMP echo pseudo-connection). The
 * table is allocated once at start-up with --max-flows entries; a flow is
 * identified by its index, which protocol modules use to index their own
 * per-flow state arrays (each module owns its state). Lookups from guest
 * frames go through an open-addressing hash table keyed by the addresses
 * and ports as the guest sees them, sized to twice the capacity. When the
 * table is full, flow_evict() (flow_evict.c) closes an idle flow of a type
 * whose protocol registered how (UDP, ICMP echo).
 */
#ifndef FLOW_FLOW_H
#define FLOW_FLOW_H

#include <stdbool.h>
#include <stdint.h>

#include "../util/inany.h"

#define FLOW_IDX_NONE		UINT32_MAX
#define FLOW_EVICT_NEVER	UINT64_MAX	/* from last_ms(): keep it */

struct ctx;

/**
 * enum flow_type - what a flow table entry is
 */
enum flow_type {
	FLOW_TYPE_NONE = 0,
	FLOW_TYPE_TCP,
	FLOW_TYPE_TCP_SPLICE,
	FLOW_TYPE_UDP,
	FLOW_TYPE_PING,
	FLOW_TYPE_MAX,
};

/**
 * struct flow_key - a flow as the guest sees it
 * @guest_addr:		the guest's address
 * @remote_addr:	the address the guest talks to
 * @guest_port:		the guest's port (or ICMP echo identifier)
 * @remote_port:	the remote port (0 for ICMP)
 * @proto:		IPPROTO_TCP, IPPROTO_UDP, IPPROTO_ICMP, IPPROTO_ICMPV6
 */
struct flow_key {
	union inany_addr guest_addr;
	union inany_addr remote_addr;
	uint16_t guest_port;
	uint16_t remote_port;
	uint8_t proto;
};

/**
 * struct flow_evict_ops - how flow_evict() takes flows of one type
 * @last_ms:	time of the flow's last activity, FLOW_EVICT_NEVER if it
 *		must not be evicted
 * @evict:	close the flow (count and log it); arguments: context, flow
 *		index, milliseconds it was idle
 */
struct flow_evict_ops {
	uint64_t (*last_ms)(uint32_t idx);
	void (*evict)(const struct ctx *c, uint32_t idx, uint64_t idle_ms);
};

int flow_table_init(unsigned int capacity);
void flow_table_fini(void);
uint32_t flow_alloc(enum flow_type type);
void flow_free(uint32_t idx);
void flow_log(uint32_t idx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
enum flow_type flow_type_of(uint32_t idx);
int flow_hash_insert(uint32_t idx, const struct flow_key *key);
void flow_hash_remove(uint32_t idx);
uint32_t flow_lookup(const struct flow_key *key);
const struct flow_key *flow_key_of(uint32_t idx);
unsigned int flow_capacity(void);
unsigned int flow_in_use(void);
void flow_evict_register(enum flow_type type,
			 const struct flow_evict_ops *ops);
bool flow_evict(const struct ctx *c, uint64_t now_ms);

#endif /* FLOW_FLOW_H */
