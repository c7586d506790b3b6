// SPDX-License-Identifier: GPL-2.0-or-later
/* flow_evict.c - make room in a full flow table: close an idle flow
 *
 * Theory of operation
 *
 * UDP flows and ICMP echo flows have no end the guest can signal: each
 * lives until its idle timer expires (UDP: three minutes, echo: one), and
 * each holds a host socket. A guest that sends one datagram to many ports,
 * from many source ports, or pings with many echo identifiers (a scan, a
 * DNS resolver under load, a hostile guest) would fill the flow table, or
 * run the relay out of descriptors, with flows nobody uses any more, and
 * every new flow, TCP connections included, would be refused until the
 * timers ran out.
 *
 * So the protocols whose flows may be taken register, per flow type, how
 * to read a flow's last activity and how to close it
 * (flow_evict_register(): udp/ for UDP flows, net/icmp.c for echo flows).
 * When a new flow of any protocol finds the table full, or socket() fails
 * with EMFILE/ENFILE, the protocol calls flow_evict(), which closes the
 * least recently used registered flow it can find, provided it has been
 * idle for at least FLOW_EVICT_IDLE_MS: a flow in use (a datagram or an
 * echo in the last second) is never taken, so a flood of new flows can
 * only displace flows that already went quiet. Finding the least recently
 * used flow exactly would need a list updated on every datagram; instead
 * a clock hand walks the table, looks at up to FLOW_EVICT_SCAN entries
 * per call and takes the oldest idle flow among them, whatever its type.
 * The cost of a refused flow is thus bounded, and traffic keeps costing
 * one store per datagram (its protocol's time of last activity). TCP
 * connections register nothing here and are never taken: tcp/ evicts its
 * own half-open connections first (tcp_limits.c).
 */

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include "flow.h"

/* A flow active more recently than this is never evicted */
#define FLOW_EVICT_IDLE_MS	1000
/* Table entries looked at per eviction attempt */
#define FLOW_EVICT_SCAN		256

static const struct flow_evict_ops *flow_evict_ops[FLOW_TYPE_MAX];
static uint32_t flow_evict_hand;	/* next table entry to look at */

/**
 * flow_evict_register() - let flow_evict() take idle flows of one type
 * @type:	flow type
 * @ops:	how to read a flow's last activity and close it, NULL to
 *		stop
 */
void flow_evict_register(enum flow_type type,
			 const struct flow_evict_ops *ops)
{
	if (type > FLOW_TYPE_NONE && type < FLOW_TYPE_MAX)
		flow_evict_ops[type] = ops;
}

/**
 * flow_evict() - close the oldest idle flow near the clock hand
 * @c:		execution context, passed to the flow type's close function
 * @now_ms:	current time
 *
 * Return: true if a flow was closed (its table entry and socket are free)
 */
bool flow_evict(const struct ctx *c, uint64_t now_ms)
{
	uint32_t victim = FLOW_IDX_NONE, cap = flow_capacity(), i;
	const struct flow_evict_ops *vops = NULL;
	uint64_t oldest = UINT64_MAX;

	if (!cap)
		return false;

	for (i = 0; i < FLOW_EVICT_SCAN && i < cap; i++) {
		uint32_t idx = (flow_evict_hand + i) % cap;
		const struct flow_evict_ops *ops;
		uint64_t last;

		ops = flow_evict_ops[flow_type_of(idx)];
		if (!ops)
			continue;
		last = ops->last_ms(idx);
		if (last == FLOW_EVICT_NEVER ||
		    last + FLOW_EVICT_IDLE_MS > now_ms)
			continue;
		if (last < oldest) {
			oldest = last;
			victim = idx;
			vops = ops;
		}
	}
	flow_evict_hand = (flow_evict_hand + i) % cap;

	if (!vops)
		return false;

	vops->evict(c, victim, now_ms - oldest);
	return true;
}
