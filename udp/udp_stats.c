// SPDX-License-Identifier: GPL-2.0-or-later
/* udp_stats.c - counters of the UDP module
 *
 * Theory of operation
 *
 * Every file of udp/ counts its events (flows started, datagrams carried
 * or dropped, GSO runs, ICMP errors, evictions) in one structure,
 * udp_stats, declared in udp_internal.h. It lives here, below every other
 * file of udp/ (doc/udp.md), so that each of them may count without using
 * anything above it. udp_stats_log() prints the counters on SIGUSR1 and
 * with --stats; the test rig reads that line (tests/lib/rig.sh).
 */

#include "udp.h"
#include "udp_internal.h"
#include "../util/log.h"

struct udp_counters udp_stats;

/**
 * udp_stats_log() - log the module's counters (SIGUSR1, --stats)
 */
void udp_stats_log(void)
{
	const struct udp_counters *u = &udp_stats;

	info("udp: flows_guest=%llu flows_fwd=%llu flows_splice=%llu "
	     "to_guest=%llu from_guest=%llu drop_mtu=%llu drop_send=%llu "
	     "gso_runs=%llu gso_refused=%llu "
	     "drop_no_flow=%llu drop_splice=%llu icmp_errors=%llu "
	     "evicted=%llu",
	     (unsigned long long)u->flows_guest,
	     (unsigned long long)u->flows_fwd,
	     (unsigned long long)u->flows_splice,
	     (unsigned long long)u->to_guest,
	     (unsigned long long)u->from_guest,
	     (unsigned long long)u->drop_mtu,
	     (unsigned long long)u->drop_send,
	     (unsigned long long)u->gso_runs,
	     (unsigned long long)u->gso_refused,
	     (unsigned long long)u->drop_no_flow,
	     (unsigned long long)u->drop_splice,
	     (unsigned long long)u->icmp_errors,
	     (unsigned long long)u->evicted);
}
