// SPDX-License-Identifier: GPL-2.0-or-later
/* udp_evict.c - UDP flows the flow table may take back when it is full
 *
 * Theory of operation
 *
 * A UDP flow lives until UDP_FLOW_TIMEOUT_MS (three minutes) pass without
 * a datagram, and each one the guest starts holds a host socket; a guest
 * sending to many ports, or from many, would fill the flow table with
 * flows nobody uses any more. flow/flow_evict.c walks the table when a new
 * flow (of any protocol) finds it full, or socket() fails with
 * EMFILE/ENFILE, and closes the least recently used idle flow it finds
 * among the types registered with it. This file registers UDP flows: their
 * last activity is the time of their last datagram (udp_flow_touch()),
 * and the proxy entry standing for the -u listening sockets is never
 * taken. Evictions are counted (udp "evicted") and logged at debug level.
 */

#include <stdbool.h>
#include <stdint.h>

#include "udp_internal.h"
#include "../flow/flow.h"
#include "../util/log.h"

/**
 * udp_evict_last_ms() - time of the last datagram of a UDP flow
 * @idx:	flow index
 *
 * Return: that time, FLOW_EVICT_NEVER for the -u proxy entry or no flow
 */
static uint64_t udp_evict_last_ms(uint32_t idx)
{
	const struct udp_flow *uf = udp_flow_at(idx);

	if (!uf || uf->kind == UDP_KIND_PROXY)
		return FLOW_EVICT_NEVER;
	return uf->last_ms;
}

/**
 * udp_evict_close() - close an idle UDP flow to make room, count it
 * @c:		execution context
 * @idx:	flow index
 * @idle_ms:	how long it was idle
 */
static void udp_evict_close(const struct ctx *c, uint32_t idx,
			    uint64_t idle_ms)
{
	debug("UDP flow %u: idle for %llu ms, closed to make room for a new "
	      "flow", idx, (unsigned long long)idle_ms);
	udp_flow_close(c, idx);
	udp_stats.evicted++;
}

static const struct flow_evict_ops udp_evict_ops = {
	.last_ms = udp_evict_last_ms,
	.evict = udp_evict_close,
};

/**
 * udp_evict_init() - let a full flow table take idle UDP flows
 */
void udp_evict_init(void)
{
	flow_evict_register(FLOW_TYPE_UDP, &udp_evict_ops);
}
