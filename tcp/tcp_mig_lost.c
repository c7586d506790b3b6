// SPDX-License-Identifier: GPL-2.0-or-later
/* tcp_mig_lost.c - connections a migration target can't restore
 *
 * Theory of operation
 *
 * A target builds every connection of a state it reads (tcp_migrate.c),
 * and one of them may fail where the others work: its addresses taken
 * here already (a socket of the same four-tuple: EADDRNOTAVAIL), no
 * passt-repair connected, the flow table or the memory for send queues
 * full, a queue the kernel won't take. Refusing the whole state for that
 * would cost the guest everything: QEMU's load fails with it, and with
 * QEMU alone (no libvirt to resume the source) the guest is gone. So
 * such a connection is dropped here, without a trace on the host side
 * (its socket, if any, closed in repair mode or before it was connected:
 * nothing reaches the peer), and remembered with what it takes to reset
 * it toward the guest: its flow key, the sequence the guest expects next
 * from us and the one we expect from it. When the guest runs here, each
 * gets a reset (tcp_mig_lost_reset()); the guest's next segment of one,
 * if its sequence was elsewhere, finds no flow and gets a reset with its
 * own acknowledgement number, as any unknown segment does.
 *
 * The list is as long as the flow table; connections beyond it (a source
 * with more connections than --max-flows here) get only the reset of an
 * unknown segment, and are counted.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/tcp.h>

#include "tcp.h"
#include "tcp_internal.h"
#include "tcp_mig_lost.h"
#include "../util/inany.h"
#include "../util/log.h"

/**
 * struct tcp_mig_lost - a connection to reset toward the guest
 * @key:	its flow key, as the guest sees it
 * @seq:	next sequence number the guest expects from us
 * @ack:	next sequence number we expect from the guest
 */
struct tcp_mig_lost {
	struct flow_key key;
	uint32_t seq;
	uint32_t ack;
};

static struct tcp_mig_lost *tcp_mig_lost_list;
static unsigned int tcp_mig_lost_cap;
static unsigned int tcp_mig_lost_n;
static unsigned int tcp_mig_lost_untracked;

/**
 * tcp_mig_lost_init() - the list, as long as the flow table
 * @cap:	flow table capacity
 *
 * Return: 0, or -ENOMEM
 */
int tcp_mig_lost_init(unsigned int cap)
{
	tcp_mig_lost_list = calloc(cap, sizeof(*tcp_mig_lost_list));
	if (!tcp_mig_lost_list)
		return -ENOMEM;
	tcp_mig_lost_cap = cap;
	return 0;
}

/**
 * tcp_mig_lost_add() - a connection of the state can't be restored here
 * @index:	its place among the connection records, for the log
 * @key:	its flow key
 * @seq:	next sequence number the guest expects from us: the highest
 *		we sent (a FIN included)
 * @ack:	next sequence number we expect from the guest
 * @why:	what failed, for the log
 */
void tcp_mig_lost_add(unsigned int index, const struct flow_key *key,
		      uint32_t seq, uint32_t ack, const char *why)
{
	char ga[INANY_STRLEN], ra[INANY_STRLEN];

	warn("Migration: TCP connection %u (guest %s:%u, remote %s:%u): "
	     "can't restore it here: %s; the guest gets a reset for it, the "
	     "other connections move", index, inany_ntop(&key->guest_addr, ga),
	     key->guest_port, inany_ntop(&key->remote_addr, ra),
	     key->remote_port, why);

	if (tcp_mig_lost_n == tcp_mig_lost_cap) {
		tcp_mig_lost_untracked++;
		return;
	}
	tcp_mig_lost_list[tcp_mig_lost_n].key = *key;
	tcp_mig_lost_list[tcp_mig_lost_n].seq = seq;
	tcp_mig_lost_list[tcp_mig_lost_n].ack = ack;
	tcp_mig_lost_n++;
}

/**
 * tcp_mig_lost_count() - connections lost so far in this state
 *
 * Return: their number
 */
unsigned int tcp_mig_lost_count(void)
{
	return tcp_mig_lost_n + tcp_mig_lost_untracked;
}

/**
 * tcp_mig_lost_reset() - the guest runs here: reset every lost connection
 * @c:		execution context
 *
 * A reset with the sequence number the guest expects is taken at once;
 * one it doesn't expect gets its acknowledgement, whose segment then finds
 * no flow and is answered with a reset it takes.
 *
 * Return: connections lost, all of them counted in tcp_stats.mig_lost
 */
unsigned int tcp_mig_lost_reset(const struct ctx *c)
{
	unsigned int i, n = tcp_mig_lost_count();

	for (i = 0; i < tcp_mig_lost_n; i++) {
		const struct tcp_mig_lost *l = &tcp_mig_lost_list[i];
		struct tcphdr th;

		/* As if the guest had sent a segment acknowledging @seq: the
		 * answer to that is a reset at @seq
		 */
		memset(&th, 0, sizeof(th));
		th.source = htons(l->key.guest_port);
		th.dest = htons(l->key.remote_port);
		th.seq = htonl(l->ack);
		th.ack_seq = htonl(l->seq);
		th.ack = 1;
		tcp_send_rst_unknown(c, &l->key.guest_addr, &l->key.remote_addr,
				     &th, 0);
	}
	tcp_stats.mig_lost += n;
	tcp_mig_lost_clear();
	return n;
}

/**
 * tcp_mig_lost_clear() - forget the list (a new state, or none is used)
 */
void tcp_mig_lost_clear(void)
{
	tcp_mig_lost_n = 0;
	tcp_mig_lost_untracked = 0;
}
