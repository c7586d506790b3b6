// SPDX-License-Identifier: GPL-2.0-or-later
/* tcp_keepalive.c - the guest's keepalives, mirrored onto the host socket
 *
 * Theory of operation
 *
 * A guest socket with SO_KEEPALIVE, once idle for its keepalive time,
 * sends a segment one below the next sequence number we expect, with no
 * payload (Linux) or with one byte it sent before (other stacks), and
 * waits for an ACK. tcp_guest.c answers it at once with our sequence and
 * window, as any live peer would. Then the guest alone can never find out
 * that the host peer is gone, and the host side of the connection, where
 * NAT and firewall state expires, stays silent.
 *
 * So a keepalive from the guest turns SO_KEEPALIVE on for the host
 * socket: the host's kernel probes the peer while the connection is idle,
 * and when the peer stops answering, the socket fails with ETIMEDOUT and
 * tcp_sock_handler() resets the guest's connection, which is how the guest
 * learns of it. Upstream passt does as much, with the host's timing
 * (net.ipv4.tcp_keepalive_time, 2 hours by default). Here each keepalive
 * also sets the host socket's idle time and probe interval to the guest's
 * idle time, the time since its previous segment, rounded to a second,
 * when that is shorter than the host's values (read once at start): the
 * host path sees traffic about as often as the guest asked for, and a
 * peer that vanished is found in a time of the order the guest expects,
 * not hours later. The number of probes stays the host's
 * (net.ipv4.tcp_keepalive_probes). Keepalives the guest answers itself
 * reset its idle time, so the time between two of them is its keepalive
 * time; its interval between unanswered probes never shows, and the
 * host's interval is never set above the idle time.
 *
 * A segment like that while the window we last advertised is zero is a
 * window probe, not a keepalive: a Linux sender probes a closed window
 * with the same segment, and sends keepalives only with nothing to send.
 */

#include <unistd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include "tcp.h"
#include "tcp_internal.h"
#include "../flow/flow.h"
#include "../util/log.h"
#include "../util/util.h"
#include "../util/syscalls.h"

/* System calls after start-up: keepalive options of host sockets */
SYSCALLS(SYSCALLS_RELAY,
	 SYSCALLS_SETSOCKOPT("SO_KEEPALIVE", SOL_SOCKET),
	 SYSCALLS_SETSOCKOPT_TCP("TCP_KEEPIDLE, TCP_KEEPINTVL, TCP_KEEPCNT"));

/* Host values if they can't be read: Linux's defaults */
#define TCP_KA_IDLE_DEFAULT_S	7200
#define TCP_KA_INTVL_DEFAULT_S	75
/* Largest TCP_KEEPIDLE and TCP_KEEPINTVL Linux takes (MAX_TCP_KEEPIDLE) */
#define TCP_KA_MAX_S		32767

/* The host's keepalive time and interval (the relay's network namespace) */
static unsigned int tcp_ka_idle_host_s = TCP_KA_IDLE_DEFAULT_S;
static unsigned int tcp_ka_intvl_host_s = TCP_KA_INTVL_DEFAULT_S;

/**
 * tcp_keepalive_init() - read the host's keepalive time and interval
 *
 * A socket that never set them reports the namespace's sysctls.
 */
void tcp_keepalive_init(void)
{
	socklen_t sl = sizeof(int);
	int s, v;

	s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_TCP);
	if (s < 0)
		s = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_TCP);
	if (s < 0)
		return;

	if (!getsockopt(s, IPPROTO_TCP, TCP_KEEPIDLE, &v, &sl) && v > 0)
		tcp_ka_idle_host_s = MIN((unsigned int)v, TCP_KA_MAX_S);
	sl = sizeof(int);
	if (!getsockopt(s, IPPROTO_TCP, TCP_KEEPINTVL, &v, &sl) && v > 0)
		tcp_ka_intvl_host_s = MIN((unsigned int)v, TCP_KA_MAX_S);
	close(s);
}

/**
 * tcp_keepalive_is() - is a segment the guest repeats a keepalive?
 * @conn:	established connection
 * @skip:	how far its sequence is below the next one expected
 * @plen:	its payload length
 *
 * Return: true for a keepalive, false for anything else (a window probe
 *	   among them)
 */
bool tcp_keepalive_is(const struct tcp_conn *conn, uint32_t skip,
		      size_t plen)
{
	return conn->state == CONN_ESTABLISHED && skip == 1 && plen <= 1 &&
	       conn->wnd_to_guest;
}

/**
 * tcp_keepalive_set() - set one keepalive option of a host socket
 * @conn:	connection
 * @opt:	TCP_KEEPIDLE or TCP_KEEPINTVL
 * @s:		seconds
 *
 * Return: 0 on success, -1 on failure (logged with -d)
 */
static int tcp_keepalive_set(const struct tcp_conn *conn, int opt,
			     unsigned int s)
{
	int v = (int)s;

	if (!setsockopt(conn->sock, IPPROTO_TCP, opt, &v, sizeof(v)))
		return 0;
	debug_perror("TCP flow %u: keepalive option %d", conn->flow, opt);
	return -1;
}

/**
 * tcp_keepalive_mirror() - a keepalive from the guest: keepalives on the
 *			    host socket, at the guest's pace
 * @conn:	established connection
 * @now_ms:	current time
 *
 * The time of the guest's previous segment is @conn->guest_seen_ms, which
 * the caller updates after this.
 */
void tcp_keepalive_mirror(struct tcp_conn *conn, uint64_t now_ms)
{
	uint64_t idle_ms = now_ms - MIN(now_ms, conn->guest_seen_ms);
	unsigned int idle_s = (unsigned int)MIN((idle_ms + 500) / 1000,
						(uint64_t)TCP_KA_MAX_S);
	int one = 1;

	tcp_stats.keepalives++;
	if (conn->sock < 0)
		return;

	idle_s = MIN(MAX(idle_s, 1U), tcp_ka_idle_host_s);
	if (conn->ka_idle_s == idle_s)
		return;

	if (!conn->ka_idle_s &&
	    setsockopt(conn->sock, SOL_SOCKET, SO_KEEPALIVE, &one,
		       sizeof(one))) {
		debug_perror("TCP flow %u: SO_KEEPALIVE", conn->flow);
		return;
	}
	if (tcp_keepalive_set(conn, TCP_KEEPIDLE, idle_s) ||
	    tcp_keepalive_set(conn, TCP_KEEPINTVL,
			      MIN(idle_s, tcp_ka_intvl_host_s)))
		return;

	flow_log(conn->flow, "guest keepalives every %u s: host socket too",
		 idle_s);
	conn->ka_idle_s = (uint16_t)idle_s;
}
