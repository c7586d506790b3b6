/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mcast_msg.h - IGMP and MLD: group membership reports of the guest, and
 * the general queries we send it
 *
 * See net/mcast_msg.c for the theory of operation.
 */
#ifndef NET_MCAST_MSG_H
#define NET_MCAST_MSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/inany.h"

/* Changes one report may carry that we act on */
#define MCAST_EVENTS_MAX	32

/* Longest query we build: headers of either family, Router Alert, body */
#define MCAST_QUERY_MAX		(14 + 40 + 8 + 28)

/**
 * struct mcast_event - what a report says about one group
 * @group:	the group (IPv4-mapped for IPv4)
 * @join:	the guest wants it (else it leaves it)
 */
struct mcast_event {
	union inany_addr group;
	bool join;
};

int mcast_igmp_parse(const uint8_t *msg, size_t len, struct mcast_event *ev,
		     unsigned int max);
int mcast_mld_parse(const struct in6_addr *src, const struct in6_addr *dst,
		    const uint8_t *msg, size_t len, struct mcast_event *ev,
		    unsigned int max);
bool mcast_group_ok(const union inany_addr *group);
bool mcast_group_link_local(const union inany_addr *group);
void mcast_mac(uint8_t *mac, const union inany_addr *group);
size_t mcast_igmp_query(uint8_t *buf, const uint8_t *our_mac,
			struct in_addr src);
size_t mcast_mld_query(uint8_t *buf, const uint8_t *our_mac,
		       const struct in6_addr *src);

#endif /* NET_MCAST_MSG_H */
