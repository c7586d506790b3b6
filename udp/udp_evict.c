// SPDX-License-Identifier: GPL-2.0-or-later
/* udp_evict.c - make room for a new UDP flow: close an idle one
 *
 * Theory of operation
 *
 * A UDP flow lives until UDP_FLOW_TIMEOUT_MS (three minutes) pass without
 * a datagram, and each one the guest starts holds a host socket. A guest
 * that sends one datagram to many ports or from many source ports (a
 * scan, a DNS resolver under load, or a hostile guest) would fill the
 * flow table, or run the relay out of descriptors, with flows nobody uses
 * any more, and every new flow would then be refused for minutes.
 *
 * So when a new UDP flow finds the table full, or socket() fails with
 * EMFILE/ENFILE, udp_evict() closes the least recently used UDP flow it
 * can find, provided it has been idle for at least UDP_EVICT_IDLE_MS: a
 * flow in use (a datagram in the last second) is never taken, so a flood
 * of new flows can only displace flows that already went quiet. Finding
 * the least recently used flow exactly would need a list updated on every
 * datagram; instead a clock hand walks the table, looks at up to
 * UDP_EVICT_SCAN entries per call and takes the oldest idle UDP flow
 * among them. The cost of a refused datagram is thus bounded, and traffic
 * keeps costing one store per datagram (udp_flow_touch()). TCP flows are
 * never closed here. Evictions are counted (udp "evicted") and logged at
 * debug level.
 */

#include <stdbool.h>
#include <stdint.h>

#include "udp_internal.h"
#include "../flow/flow.h"
#include "../conf/ctx.h"
#include "../util/log.h"

/* A flow with a datagram more recent than this is never evicted */
#define UDP_EVICT_IDLE_MS	1000
/* Table entries looked at per eviction attempt */
#define UDP_EVICT_SCAN		256

static uint32_t udp_evict_hand;	/* next table entry to look at */

/**
 * udp_evict() - close the oldest idle UDP flow near the clock hand
 * @c:		execution context
 * @now_ms:	current time
 *
 * Return: true if a flow was closed (its table entry and socket are free)
 */
bool udp_evict(const struct ctx *c, uint64_t now_ms)
{
	uint32_t victim = FLOW_IDX_NONE, cap = c->flow_max, i;
	uint64_t oldest = UINT64_MAX;

	if (!cap)
		return false;

	for (i = 0; i < UDP_EVICT_SCAN && i < cap; i++) {
		uint32_t idx = (udp_evict_hand + i) % cap;
		const struct udp_flow *uf = udp_flow_at(idx);

		if (!uf || uf->kind == UDP_KIND_PROXY)
			continue;
		if (uf->last_ms + UDP_EVICT_IDLE_MS > now_ms)
			continue;
		if (uf->last_ms < oldest) {
			oldest = uf->last_ms;
			victim = idx;
		}
	}
	udp_evict_hand = (udp_evict_hand + i) % cap;

	if (victim == FLOW_IDX_NONE)
		return false;

	debug("UDP flow %u: idle for %llu ms, closed to make room for a new "
	      "flow", victim, (unsigned long long)(now_ms - oldest));
	udp_flow_close(c, victim);
	udp_stats.evicted++;
	return true;
}
