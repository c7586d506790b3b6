// SPDX-License-Identifier: GPL-2.0-or-later
/* udp_emit.c - host datagrams to the guest, read straight into frames
 *
 * Theory of operation
 *
 * When a UDP flow's turn comes in the output scheduler (qdisc/), its
 * socket is read with recvmmsg() into the free frame buffers of the output
 * queue, each datagram at the offset where its payload belongs behind the
 * Ethernet, IP and UDP headers, so the data is copied once, from the
 * socket to the frame. The headers are then written in front of it and
 * the frame is committed to the queue.
 *
 * The guest gets datagrams up to its MTU: larger ones are counted and
 * dropped, as the relay does not fragment. A dropped datagram leaves a
 * hole among the buffers read in one batch; the datagrams after it are
 * moved down so that committed frames stay contiguous (rare: only for
 * oversized datagrams).
 *
 * A flow reads batch after batch until its socket is empty (the socket is
 * edge-triggered: its next datagram raises a new event), the output queue
 * is full, or its byte budget for the turn is spent; in the last two
 * cases it asks the scheduler for another turn.
 */

#include <errno.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "udp.h"
#include "udp_internal.h"
#include "../flow/flow.h"
#include "../net/checksum.h"
#include "../conf/ctx.h"
#include "../qdisc/qdisc.h"
#include "../util/log.h"
#include "../util/util.h"
#include "../util/syscalls.h"
#include "../net/frame.h"

/* System calls after start-up: batches of datagrams for the guest */
SYSCALLS(SYSCALLS_RELAY,
	 SYSCALLS_CALL("recvmmsg", "datagrams, into frames for the guest"));

/* recvmmsg() errors to skip in one turn: each reports one ICMP error */
#define UDP_RECV_ERRORS_MAX	4

/**
 * udp_payload_off() - offset of the UDP payload in a frame to the guest
 * @v4:		IPv4 (else IPv6)
 *
 * Return: Ethernet, IP and UDP header length
 */
size_t udp_payload_off(bool v4)
{
	return ETH_HDR_LEN + (v4 ? IP4_HDR_LEN : IP6_HDR_LEN) + UDP_HDR_LEN;
}

/**
 * udp_put16() - store a 16-bit value in network order, any alignment
 * @p:		destination
 * @v:		value, host order
 */
static void udp_put16(uint8_t *p, uint16_t v)
{
	uint16_t n = htons(v);

	memcpy(p, &n, sizeof(n));
}

/**
 * udp_recv_frames() - read datagrams into free buffers of the output queue
 * @fd:		socket
 * @off:	payload offset in the frames, see udp_payload_off()
 * @n:		datagrams to read at most, up to UDP_RECV_BATCH and to
 *		qdisc_frames_avail()
 * @names:	source addresses of the datagrams (@n entries), or NULL
 * @ctls:	their control messages (@n entries), or NULL
 * @bufs:	output: the frame buffers used, @n entries
 * @lens:	output: payload length of each datagram read, SIZE_MAX for
 *		a truncated one
 * @got:	output: number of datagrams read, at most @n
 *
 * Return: 0 on success, -errno on failure (then @got is 0)
 */
int udp_recv_frames(int fd, size_t off, unsigned int n,
		    union sockaddr_inany *names, struct udp_ctl *ctls,
		    uint8_t **bufs, size_t *lens, unsigned int *got)
{
	struct mmsghdr mm[UDP_RECV_BATCH];
	struct iovec iov[UDP_RECV_BATCH];
	unsigned int i;
	int ret;

	n = MIN(n, UDP_RECV_BATCH);
	for (i = 0; i < n; i++) {
		lens[i] = 0;
		bufs[i] = qdisc_frame_buf(i);
		iov[i].iov_base = bufs[i] + off;
		iov[i].iov_len = QDISC_FRAME_SIZE - off;

		memset(&mm[i], 0, sizeof(mm[i]));
		mm[i].msg_hdr.msg_iov = &iov[i];
		mm[i].msg_hdr.msg_iovlen = 1;
		if (names) {
			mm[i].msg_hdr.msg_name = &names[i];
			mm[i].msg_hdr.msg_namelen = sizeof(names[i]);
		}
		if (ctls) {
			mm[i].msg_hdr.msg_control = ctls[i].buf;
			mm[i].msg_hdr.msg_controllen = sizeof(ctls[i].buf);
		}
	}

	*got = 0;
	ret = recvmmsg(fd, mm, n, MSG_DONTWAIT, NULL);
	if (ret < 0)
		return -errno;
	*got = MIN((unsigned int)ret, n);

	for (i = 0; i < *got; i++) {
		lens[i] = mm[i].msg_len;
		if (mm[i].msg_hdr.msg_flags & MSG_TRUNC)
			lens[i] = SIZE_MAX;
		if (ctls)
			ctls[i].len = mm[i].msg_hdr.msg_controllen;
	}

	return 0;
}

/**
 * udp_emit() - turn a datagram read by udp_recv_frames() into a frame
 * @c:		execution context
 * @bufs:	buffers of the batch, from udp_recv_frames()
 * @i:		index of the datagram in the batch
 * @j:		frames of the batch committed so far, updated
 * @key:	flow, as the guest sees it: the frame goes from its remote
 *		address and port to its guest address and port
 * @plen:	payload length
 *
 * Return: true if queued, false if dropped (too large for the MTU)
 */
bool udp_emit(const struct ctx *c, uint8_t *const *bufs, unsigned int i,
	      unsigned int *j, const struct flow_key *key, size_t plen)
{
	unsigned int mtu = c->mtu ? c->mtu : MTU_DEFAULT;
	bool v4 = inany_v4(&key->guest_addr) != NULL;
	size_t off = udp_payload_off(v4), l4len, l4off;
	uint8_t *buf = bufs[*j];
	struct iovec iov;
	uint16_t sum;

	if (plen == SIZE_MAX ||
	    plen + UDP_HDR_LEN + (v4 ? IP4_HDR_LEN : IP6_HDR_LEN) > mtu) {
		udp_stats.drop_mtu++;
		trace("UDP: dropping %zu-byte datagram, larger than MTU %u",
		      plen, mtu);
		return false;
	}

	/* Close the hole left by a dropped datagram */
	if (*j != i)
		memmove(buf + off, bufs[i] + off, plen);

	l4len = UDP_HDR_LEN + plen;
	l4off = net_fill_l2l3(c, buf, &key->remote_addr, &key->guest_addr,
			      IPPROTO_UDP, l4len);
	udp_put16(buf + l4off, key->remote_port);
	udp_put16(buf + l4off + 2, key->guest_port);
	udp_put16(buf + l4off + 4, (uint16_t)l4len);
	udp_put16(buf + l4off + 6, 0);

	iov.iov_base = buf + l4off;
	iov.iov_len = l4len;
	sum = csum_l4(&key->remote_addr, &key->guest_addr, IPPROTO_UDP, &iov,
		      1, l4len);
	memcpy(buf + l4off + 6, &sum, sizeof(sum));

	qdisc_frame_commit(l4off + l4len);
	(*j)++;
	udp_stats.to_guest++;
	return true;
}

/**
 * udp_emit_pull() - read a connected flow socket into frames for the guest
 * @c:		execution context
 * @idx:	flow index
 * @uf:		flow
 * @budget:	bytes to send in this turn
 * @now_ms:	current time
 *
 * Return: QDISC_MORE if the socket may still hold datagrams, QDISC_DONE if
 *	   it is empty
 */
enum qdisc_pull_result udp_emit_pull(const struct ctx *c, uint32_t idx,
				     struct udp_flow *uf, size_t budget,
				     uint64_t now_ms)
{
	const struct flow_key *key = flow_key_of(idx);
	size_t off = udp_payload_off(uf->v4), sent = 0;
	unsigned int errors = 0;

	if (!key)
		return QDISC_DONE;

	for (;;) {
		uint8_t *bufs[UDP_RECV_BATCH];
		size_t lens[UDP_RECV_BATCH];
		unsigned int n, i, j = 0, got;
		int ret;

		n = (unsigned int)MIN(qdisc_frames_avail(), UDP_RECV_BATCH);
		if (!n)
			return QDISC_MORE;

		ret = udp_recv_frames(uf->sock, off, n, NULL, NULL, bufs, lens,
				      &got);
		if (ret == -EAGAIN || ret == -EWOULDBLOCK)
			return QDISC_DONE;
		if (ret < 0) {
			/* A pending ICMP error is reported before data */
			if (++errors <= UDP_RECV_ERRORS_MAX)
				continue;
			debug("UDP flow %u: receive failed: %s", idx,
			      strerror(-ret));
			return QDISC_DONE;
		}

		udp_flow_touch(uf, now_ms);
		for (i = 0; i < got; i++) {
			if (udp_emit(c, bufs, i, &j, key, lens[i]))
				sent += lens[i];
		}

		if (got < n)
			return QDISC_DONE;
		if (sent >= budget)
			return QDISC_MORE;
	}
}
