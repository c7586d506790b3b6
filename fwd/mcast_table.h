/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mcast_table.h - the multicast groups of the guest, and their timers
 *
 * See fwd/mcast_table.c for the theory of operation.
 */
#ifndef FWD_MCAST_TABLE_H
#define FWD_MCAST_TABLE_H

#include <stdbool.h>
#include <stdint.h>

#include "../util/inany.h"

/* Groups followed at once (joined by the guest, or sent to) */
#define MCAST_GROUPS_MAX	32
/* Membership without a report: robustness 2 x query interval 125 s +
 * response interval 10 s (RFC 3376, section 8.4)
 */
#define MCAST_MEMBER_MS		260000
/* A group the guest only sends to is kept this long after its last one */
#define MCAST_SEND_IDLE_MS	60000

/**
 * enum mcast_expiry - what a timer ended for an entry
 * @MCAST_EXP_NONE:	nothing
 * @MCAST_EXP_MEMBER:	the guest's membership (no report for too long)
 * @MCAST_EXP_SEND:	sending (no datagram for too long)
 */
enum mcast_expiry {
	MCAST_EXP_NONE = 0,
	MCAST_EXP_MEMBER = 1,
	MCAST_EXP_SEND = 2,
};

int mcast_table_lookup(const union inany_addr *group);
int mcast_table_get(const union inany_addr *group);
const union inany_addr *mcast_table_group(int i);
bool mcast_table_member(int i);
bool mcast_table_sending(int i);
bool mcast_table_joined(int i, uint64_t now_ms);
void mcast_table_left(int i);
void mcast_table_sent(int i, uint64_t now_ms);
bool mcast_table_release(int i);
unsigned int mcast_table_expire(int i, uint64_t now_ms);
unsigned int mcast_table_count(void);
void mcast_table_reset(void);

#endif /* FWD_MCAST_TABLE_H */
