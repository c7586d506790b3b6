/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nat.h - address mapping between the guest's view and the host's
 *
 * Theory of operation: the guest has the host's own address, so there is
 * no NAT for ordinary traffic. A few guest destinations are special and
 * are mapped when a flow starts:
 *   - the --map-host-loopback address (default: the gateway, unless
 *     --no-map-gw) means the host's loopback (127.0.0.1 or ::1);
 *   - the --map-guest-addr address means the host's own address;
 *   - the --dns-forward address, port 53, means the --dns-host address
 *     (default: the first host resolver).
 * For flows the host starts toward the guest (forwarded ports), a host-side
 * source of loopback is shown to the guest as the --map-host-loopback
 * address, and a source equal to the guest's own address as the
 * --map-guest-addr address (or the gateway, if none).
 */
#ifndef FLOW_NAT_H
#define FLOW_NAT_H

#include <stdbool.h>
#include <stdint.h>

#include "../util/inany.h"

struct ctx;

bool nat_outbound(const struct ctx *c, const union inany_addr *guest_dst,
		  uint16_t dport, union inany_addr *host_dst);
bool nat_inbound(const struct ctx *c, const union inany_addr *host_src,
		 union inany_addr *guest_src);
void nat_guest_addr(const struct ctx *c, bool v4, union inany_addr *guest);
void nat_guest_addr_from(const struct ctx *c, const union inany_addr *src,
			 union inany_addr *guest);
uint32_t nat_host_scope(const struct ctx *c, const union inany_addr *dst);
void nat_outbound_src(const struct ctx *c, const union inany_addr *dst,
		      union inany_addr *src);

#endif /* FLOW_NAT_H */
