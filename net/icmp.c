// SPDX-License-Identifier: GPL-2.0-or-later
/* icmp.c - ICMP and ICMPv6 echo through unprivileged ping sockets
 *
 * Theory of operation
 *
 * Echo requests: the relay can't send raw ICMP without privileges, but
 * Linux offers "ping sockets" (socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP)
 * and the IPv6 twin) to the groups in net.ipv4.ping_group_range. Each
 * (guest address, echo identifier, remote address) is a flow
 * (FLOW_TYPE_PING) with one such socket, connect()ed to the destination as
 * flow/nat.c maps it (the gateway answers for the host's loopback, the
 * --map-guest-addr address for the host). The guest's request is sent as
 * it is: the kernel fills in its own identifier (the socket's "port") and
 * checksum. Replies are read, when the flow's turn comes in the output
 * scheduler, straight into a frame: the guest's identifier is put back and
 * the checksum computed again. A flow idle for ICMP_FLOW_TIMEOUT_MS is
 * closed (the timer re-arms itself while echoes keep coming, see udp.c).
 * When a new flow of any protocol finds the flow table full, or the relay
 * out of descriptors, an echo flow idle for a second may be taken instead,
 * as UDP flows are (flow/flow_evict.c): a guest pinging with many
 * identifiers can't keep TCP and UDP out for a minute.
 *
 * If the kernel refuses ping sockets, the relay says once which sysctl to
 * change, and drops echo requests.
 *
 * Errors: icmp_guest_error() builds ICMP "destination unreachable" and
 * similar errors toward the guest, quoting the packet that caused them
 * (used by udp/ to reflect errors of host sockets).
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "icmp.h"
#include "sock.h"
#include "checksum.h"
#include "ip.h"
#include "net.h"
#include "../flow/flow.h"
#include "../flow/nat.h"
#include "../conf/ctx.h"
#include "../qdisc/qdisc.h"
#include "../util/log.h"
#include "../util/timer.h"
#include "../util/util.h"
#include "../util/syscalls.h"
#include "frame.h"

/* System calls after start-up: ping sockets, one per echo flow (bound and
 * connected by net/sock.c)
 */
SYSCALLS(SYSCALLS_RELAY,
	 SYSCALLS_SOCKET("an echo flow, IPv4", AF_INET, SOCK_DGRAM,
			 IPPROTO_ICMP),
	 SYSCALLS_SOCKET("an echo flow, IPv6", AF_INET6, SOCK_DGRAM,
			 IPPROTO_ICMPV6),
	 SYSCALLS_CALL("sendto", "an echo request (send())"),
	 SYSCALLS_CALL("recvfrom", "echo replies (recv())"),
	 SYSCALLS_CALL("getsockopt", "the socket's error (SO_ERROR)"),
	 SYSCALLS_CALL("epoll_ctl", "watch a flow's socket, or stop"),
	 SYSCALLS_CALL("close", "the socket of a flow that ended"));

#define ICMP_ECHO_HDR_LEN	8
#define ICMP4_ECHO_REQUEST	8
#define ICMP4_ECHO_REPLY	0
#define ICMP_OFF_TYPE		0
#define ICMP_OFF_CODE		1
#define ICMP_OFF_CSUM		2
#define ICMP_OFF_ID		4
/* A flow with no echo in either direction for this long is closed */
#define ICMP_FLOW_TIMEOUT_MS	(60 * 1000)
/* Replies read per turn in the output scheduler */
#define ICMP_REPLIES_PER_TURN	32
/* Quoted bytes of errors: IPv4 within 576 bytes, IPv6 within 1280 */
#define ICMP_ERR_QUOTE_MAX4	(576 - IP4_HDR_LEN - ICMP_ECHO_HDR_LEN)
#define ICMP_ERR_QUOTE_MAX6	(1280 - IP6_HDR_LEN - ICMP_ECHO_HDR_LEN)

/**
 * struct icmp_flow - one echo flow
 * @timer:	idle timer
 * @last_ms:	time of the last request or reply
 * @sock:	ping socket, -1 if the slot is unused
 * @v4:		ICMP (else ICMPv6)
 */
struct icmp_flow {
	struct wheel_timer timer;
	uint64_t last_ms;
	int sock;
	bool v4;
};

/**
 * struct icmp_counters - events of the ICMP module, for debugging
 * @requests:	echo requests sent for the guest
 * @replies:	echo replies sent to the guest
 * @errors:	ICMP errors sent to the guest
 * @drops:	requests dropped (no socket, table full, send failed)
 * @evicted:	idle echo flows closed to make room (flow/flow_evict.c)
 */
static struct icmp_counters {
	uint64_t requests;
	uint64_t replies;
	uint64_t errors;
	uint64_t drops;
	uint64_t evicted;
} icmp_stats;

/* Zeroed, never walked at start-up: icmp_flow_at() checks the flow's type
 * before the socket, and the socket is set when the flow is allocated.
 */
static struct icmp_flow *icmp_flows;	/* indexed like the flow table */
static unsigned int icmp_cap;
static bool icmp_denied_logged;
static gid_t icmp_gid;			/* group the relay runs with */

/**
 * icmp_flow_at() - state of an echo flow
 * @idx:	flow index
 *
 * Return: state, or NULL if @idx is not a live echo flow
 */
static struct icmp_flow *icmp_flow_at(uint32_t idx)
{
	if (idx >= icmp_cap || flow_type_of(idx) != FLOW_TYPE_PING)
		return NULL;
	if (icmp_flows[idx].sock < 0)
		return NULL;
	return &icmp_flows[idx];
}

/**
 * icmp_flow_close() - close an echo flow
 * @c:		execution context
 * @idx:	flow index
 */
static void icmp_flow_close(const struct ctx *c, uint32_t idx)
{
	struct icmp_flow *f = icmp_flow_at(idx);

	if (!f)
		return;

	epoll_ctl(c->epollfd, EPOLL_CTL_DEL, f->sock, NULL);
	close(f->sock);
	f->sock = -1;
	timer_cancel(&f->timer);
	qdisc_forget(idx);
	flow_free(idx);
}

/**
 * icmp_evict_last_ms() - time of the last echo of a flow, for eviction
 * @idx:	flow index
 *
 * Return: that time, FLOW_EVICT_NEVER if @idx is not an echo flow
 */
static uint64_t icmp_evict_last_ms(uint32_t idx)
{
	const struct icmp_flow *f = icmp_flow_at(idx);

	return f ? f->last_ms : FLOW_EVICT_NEVER;
}

/**
 * icmp_evict_close() - close an idle echo flow to make room, count it
 * @c:		execution context
 * @idx:	flow index
 * @idle_ms:	how long it was idle
 */
static void icmp_evict_close(const struct ctx *c, uint32_t idx,
			     uint64_t idle_ms)
{
	debug("ICMP flow %u: idle for %llu ms, closed to make room for a new "
	      "flow", idx, (unsigned long long)idle_ms);
	icmp_flow_close(c, idx);
	icmp_stats.evicted++;
}

static const struct flow_evict_ops icmp_evict_ops = {
	.last_ms = icmp_evict_last_ms,
	.evict = icmp_evict_close,
};

/**
 * icmp_timer_fn() - idle timer of an echo flow expired
 * @c:		execution context
 * @t:		timer, embedded in a struct icmp_flow
 * @now_ms:	current time
 */
static void icmp_timer_fn(const struct ctx *c, struct wheel_timer *t,
			  uint64_t now_ms)
{
	struct icmp_flow *f = (struct icmp_flow *)((char *)t -
			      offsetof(struct icmp_flow, timer));

	if (now_ms < f->last_ms + ICMP_FLOW_TIMEOUT_MS) {
		timer_arm(&f->timer, f->last_ms + ICMP_FLOW_TIMEOUT_MS);
		return;
	}

	icmp_flow_close(c, (uint32_t)(f - icmp_flows));
}

/**
 * icmp_sock_open() - open and connect a ping socket
 * @c:		execution context
 * @key:	flow as the guest sees it (guest_port is the identifier)
 * @dst:	host-side destination
 *
 * Return: socket, or -errno
 */
static int icmp_sock_open(const struct ctx *c, const struct flow_key *key,
			  const union inany_addr *dst)
{
	bool v4 = inany_v4(dst) != NULL;
	union inany_addr src;
	int s;

	s = socket(v4 ? AF_INET : AF_INET6,
		   SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		   v4 ? IPPROTO_ICMP : IPPROTO_ICMPV6);
	if (s < 0)
		return -errno;

	nat_outbound_src(c, dst, &src);

	/* Ask for the guest's identifier; any other one will do too. No
	 * SO_REUSEADDR (sock_open()): replies are matched to ping sockets by
	 * identifier alone
	 */
	return sock_bind_connect(s, &src, key->guest_port, dst, 0,
				 nat_host_scope(c, dst));
}

/**
 * icmp_flow_new() - start an echo flow for a request from the guest
 * @c:		execution context
 * @key:	flow as the guest sees it
 * @v4:		ICMP (else ICMPv6)
 * @now_ms:	current time
 *
 * Return: flow index, FLOW_IDX_NONE on failure
 */
static uint32_t icmp_flow_new(const struct ctx *c, const struct flow_key *key,
			      bool v4, uint64_t now_ms)
{
	union epoll_ref ref = { .type = EPOLL_TYPE_PING };
	struct epoll_event ev = { .events = EPOLLIN | EPOLLET };
	char buf[INANY_STRLEN];
	union inany_addr dst;
	struct icmp_flow *f;
	uint32_t idx;
	int s;

	nat_outbound(c, &key->remote_addr, 0, &dst);

	s = icmp_sock_open(c, key, &dst);
	if ((s == -EMFILE || s == -ENFILE) && flow_evict(c, now_ms))
		s = icmp_sock_open(c, key, &dst);
	if (s == -EACCES || s == -EPERM) {
		if (!icmp_denied_logged) {
			warn("ICMP: the kernel refuses ping sockets, echo requests are dropped: set net.ipv4.ping_group_range to include group %u",
			     (unsigned int)icmp_gid);
			icmp_denied_logged = true;
		}
		return FLOW_IDX_NONE;
	}
	if (s < 0) {
		debug("ICMP: can't open a ping socket toward %s: %s",
		      inany_ntop(&dst, buf), strerror(-s));
		return FLOW_IDX_NONE;
	}

	idx = flow_alloc(FLOW_TYPE_PING);
	if (idx == FLOW_IDX_NONE && flow_evict(c, now_ms))
		idx = flow_alloc(FLOW_TYPE_PING);
	if (idx == FLOW_IDX_NONE || idx >= icmp_cap) {
		flow_free(idx);
		close(s);
		debug("ICMP: flow table full, dropping echo request");
		return FLOW_IDX_NONE;
	}

	f = &icmp_flows[idx];
	f->sock = s;
	f->v4 = v4;
	f->last_ms = now_ms;
	timer_init(&f->timer, icmp_timer_fn);
	timer_arm(&f->timer, now_ms + ICMP_FLOW_TIMEOUT_MS);

	ref.fd = (uint32_t)s;
	ref.data = idx;
	ev.data.u64 = ref.u64;
	if (epoll_ctl(c->epollfd, EPOLL_CTL_ADD, s, &ev) ||
	    flow_hash_insert(idx, key)) {
		icmp_flow_close(c, idx);
		return FLOW_IDX_NONE;
	}

	trace("ICMP flow %u: echo id %u to %s", idx, key->guest_port,
	      inany_ntop(&dst, buf));
	return idx;
}

/**
 * icmp_guest_input() - an ICMP or ICMPv6 message from the guest
 * @c:		execution context
 * @saddr:	source address (the guest's), unicast
 * @daddr:	destination address, unicast
 * @icmp:	ICMP header and data, any alignment
 * @l4len:	message length
 * @now_ms:	current time
 *
 * Only echo requests are handled; anything else is ignored.
 */
void icmp_guest_input(const struct ctx *c, const union inany_addr *saddr,
		      const union inany_addr *daddr, const uint8_t *icmp,
		      size_t l4len, uint64_t now_ms)
{
	bool v4 = inany_v4(saddr) != NULL;
	struct flow_key key;
	struct icmp_flow *f;
	uint32_t idx;

	if (c->no_icmp || !icmp_flows || l4len < ICMP_ECHO_HDR_LEN)
		return;
	if (icmp[ICMP_OFF_TYPE] != (v4 ? ICMP4_ECHO_REQUEST
				       : ICMP6_ECHO_REQUEST) ||
	    icmp[ICMP_OFF_CODE])
		return;

	memset(&key, 0, sizeof(key));
	key.guest_addr = *saddr;
	key.remote_addr = *daddr;
	key.guest_port = net_get16(icmp + ICMP_OFF_ID);
	key.proto = v4 ? IPPROTO_ICMP : IPPROTO_ICMPV6;

	idx = flow_lookup(&key);
	if (idx == FLOW_IDX_NONE)
		idx = icmp_flow_new(c, &key, v4, now_ms);
	f = icmp_flow_at(idx);
	if (!f) {
		icmp_stats.drops++;
		return;
	}

	f->last_ms = now_ms;
	if (send(f->sock, icmp, l4len, MSG_DONTWAIT) < 0) {
		icmp_stats.drops++;
		trace("ICMP flow %u: send failed: %s", idx, strerror(errno));
		return;
	}
	icmp_stats.requests++;
}

/**
 * icmp_sock_handler() - events on a ping socket
 * @c:		execution context
 * @ref:	epoll reference: flow index
 * @events:	epoll events
 * @now_ms:	current time
 */
void icmp_sock_handler(const struct ctx *c, union epoll_ref ref,
		       uint32_t events, uint64_t now_ms)
{
	const struct icmp_flow *f = icmp_flow_at(ref.data);

	(void)c;
	(void)now_ms;

	/* The flow may have closed earlier in this batch of events */
	if (!f || f->sock != (int)ref.fd)
		return;

	if (events & EPOLLERR) {
		socklen_t sl = sizeof(int);
		int e = 0;

		getsockopt(f->sock, SOL_SOCKET, SO_ERROR, &e, &sl);
	}
	if (events & EPOLLIN)
		qdisc_wake(ref.data);
}

/**
 * icmp_pull() - output scheduler's turn: echo replies to the guest
 * @c:		execution context
 * @idx:	flow index
 * @budget:	bytes to send in this turn
 * @now_ms:	current time
 *
 * Return: QDISC_MORE if the socket may hold more replies, else QDISC_DONE
 */
static enum qdisc_pull_result icmp_pull(const struct ctx *c, uint32_t idx,
					size_t budget, uint64_t now_ms)
{
	unsigned int mtu = c->mtu ? c->mtu : MTU_DEFAULT, i;
	const struct flow_key *key = flow_key_of(idx);
	struct icmp_flow *f = icmp_flow_at(idx);
	size_t off, sent = 0;

	if (!f || !key)
		return QDISC_DONE;

	off = ETH_HDR_LEN + (f->v4 ? IP4_HDR_LEN : IP6_HDR_LEN);
	for (i = 0; i < ICMP_REPLIES_PER_TURN && sent < budget; i++) {
		uint8_t *buf, *p;
		struct iovec iov;
		uint16_t sum;
		ssize_t n;

		if (!qdisc_frames_avail())
			return QDISC_MORE;

		buf = qdisc_frame_buf(0);
		p = buf + off;
		n = recv(f->sock, p, QDISC_FRAME_SIZE - off, MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return QDISC_DONE;
			continue;	/* a reported error: go on */
		}

		if ((size_t)n < ICMP_ECHO_HDR_LEN ||
		    off - ETH_HDR_LEN + (size_t)n > mtu ||
		    p[ICMP_OFF_TYPE] != (f->v4 ? ICMP4_ECHO_REPLY
					       : ICMP6_ECHO_REPLY))
			continue;

		f->last_ms = now_ms;
		net_put16(p + ICMP_OFF_ID, key->guest_port);
		net_put16(p + ICMP_OFF_CSUM, 0);
		iov.iov_base = p;
		iov.iov_len = (size_t)n;
		if (f->v4)
			sum = csum(p, (size_t)n, 0);
		else
			sum = csum_l4(&key->remote_addr, &key->guest_addr,
				      IPPROTO_ICMPV6, &iov, 1, (size_t)n);
		memcpy(p + ICMP_OFF_CSUM, &sum, sizeof(sum));

		net_fill_l2l3(c, buf, &key->remote_addr, &key->guest_addr,
			      f->v4 ? IPPROTO_ICMP : IPPROTO_ICMPV6,
			      (size_t)n);
		qdisc_frame_commit(off + (size_t)n);
		sent += (size_t)n;
		icmp_stats.replies++;
	}

	return QDISC_MORE;
}

/**
 * icmp_guest_error() - send the guest an ICMP or ICMPv6 error message
 * @c:		execution context
 * @src:	source of the error, as the guest sees it
 * @dst:	the guest's address (same family as @src)
 * @type:	ICMP type (IPv4) or ICMPv6 type (IPv6)
 * @code:	code
 * @quote:	the packet that caused it, from its IP header on
 * @qlen:	length of @quote (truncated to fit the minimum MTU)
 */
void icmp_guest_error(const struct ctx *c, const union inany_addr *src,
		      const union inany_addr *dst, uint8_t type, uint8_t code,
		      const uint8_t *quote, size_t qlen)
{
	uint8_t frame[L2L3_HDR_MAX + ICMP_ECHO_HDR_LEN + ICMP_ERR_QUOTE_MAX6];
	bool v4 = inany_v4(dst) != NULL;
	size_t l4len, off;
	struct iovec iov;
	uint8_t *p;
	uint16_t sum;

	qlen = MIN(qlen, v4 ? ICMP_ERR_QUOTE_MAX4 : ICMP_ERR_QUOTE_MAX6);
	l4len = ICMP_ECHO_HDR_LEN + qlen;
	off = net_fill_l2l3(c, frame, src, dst,
			    v4 ? IPPROTO_ICMP : IPPROTO_ICMPV6, l4len);

	p = frame + off;
	p[ICMP_OFF_TYPE] = type;
	p[ICMP_OFF_CODE] = code;
	memset(p + ICMP_OFF_CSUM, 0, ICMP_ECHO_HDR_LEN - ICMP_OFF_CSUM);
	memcpy(p + ICMP_ECHO_HDR_LEN, quote, qlen);

	iov.iov_base = p;
	iov.iov_len = l4len;
	if (v4)
		sum = csum(p, l4len, 0);
	else
		sum = csum_l4(src, dst, IPPROTO_ICMPV6, &iov, 1, l4len);
	memcpy(p + ICMP_OFF_CSUM, &sum, sizeof(sum));

	qdisc_send(c, frame, off + l4len);
	icmp_stats.errors++;
}

static const struct net_l4_ops icmp_net_ops = {
	.input = icmp_guest_input,
};

/**
 * icmp_init() - allocate echo flow state
 * @c:		execution context
 *
 * Return: 0 on success, -ENOMEM on failure (logged)
 */
int icmp_init(const struct ctx *c)
{
	net_l4_register(NET_L4_ICMP, &icmp_net_ops);

	/* The group we'll have once privileges are dropped, for messages */
	icmp_gid = (geteuid() == 0 && c->uid != 0) ? c->gid : getegid();

	if (c->no_icmp)
		return 0;

	icmp_cap = flow_capacity();
	icmp_flows = calloc(icmp_cap, sizeof(*icmp_flows));
	if (!icmp_flows) {
		err("ICMP: can't allocate state for %u flows: lower --max-flows",
		    icmp_cap);
		icmp_cap = 0;
		return -ENOMEM;
	}

	qdisc_register(FLOW_TYPE_PING, icmp_pull);
	flow_evict_register(FLOW_TYPE_PING, &icmp_evict_ops);
	return 0;
}

/**
 * icmp_stats_log() - log the echo counters, one line of key=value pairs
 */
void icmp_stats_log(void)
{
	const struct icmp_counters *n = &icmp_stats;

	info("icmp: requests=%llu replies=%llu errors=%llu drops=%llu "
	     "evicted=%llu",
	     (unsigned long long)n->requests, (unsigned long long)n->replies,
	     (unsigned long long)n->errors, (unsigned long long)n->drops,
	     (unsigned long long)n->evicted);
}
