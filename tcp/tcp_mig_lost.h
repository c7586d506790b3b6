/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tcp_mig_lost.h - connections a migration target can't restore
 *
 * See tcp_mig_lost.c for the theory of operation.
 */

#ifndef TCP_TCP_MIG_LOST_H
#define TCP_TCP_MIG_LOST_H

#include <stdint.h>

#include "../flow/flow.h"

struct ctx;

int tcp_mig_lost_init(unsigned int cap);
void tcp_mig_lost_add(unsigned int index, const struct flow_key *key,
		      uint32_t seq, uint32_t ack, const char *why);
unsigned int tcp_mig_lost_count(void);
unsigned int tcp_mig_lost_reset(const struct ctx *c);
void tcp_mig_lost_clear(void);

#endif /* TCP_TCP_MIG_LOST_H */
