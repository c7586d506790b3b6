// SPDX-License-Identifier: GPL-2.0-or-later
/* udp_gso.c - guest datagrams to flow sockets, in segmented runs (UDP GSO)
 *
 * Theory of operation
 *
 * Sending a datagram to a host socket costs a system call and a pass of
 * the kernel's UDP and IP output path (for a local peer, its receive path
 * too, in the same call). A bulk sender in the guest sends runs of
 * datagrams of one size to one peer, so datagrams from the guest for a
 * connected flow socket (UDP_KIND_GUEST) are not sent one by one: they are
 * collected into a run, which leaves in one sendmsg() with UDP_SEGMENT
 * (UDP GSO): the kernel builds and routes one packet, and cuts it into
 * the original datagrams on the way out (or at a local receiver).
 *
 * A run holds datagrams of one flow, in the guest's order, all of the run's
 * first size except the last, which may be shorter, up to UDP_GSO_SEGS
 * datagrams and UDP_GSO_BYTES bytes: exactly what UDP_SEGMENT splits back
 * into the same datagrams. A datagram that does not fit sends the run and
 * starts a new one, so order within a flow is kept. The payloads stay in
 * the guest's frames, which the backend keeps until net_input_done(): the
 * run leaves there at the latest, so a datagram never waits for company
 * beyond the batch it came in.
 *
 * If the kernel refuses a run (no UDP GSO toward that route, for example a
 * datagram larger than the path MTU, which must be fragmented), its
 * datagrams are sent one by one, as they would have been without runs.
 */

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "udp.h"
#include "udp_internal.h"
#include "../util/log.h"
#include "../util/util.h"
#include "../util/syscalls.h"

/* System calls after start-up: a run of datagrams in one call */
SYSCALLS(SYSCALLS_RELAY,
	 SYSCALLS_CALL("sendmsg", "datagrams of a flow, segmented (GSO)"));

#ifndef UDP_SEGMENT
#define UDP_SEGMENT		103
#endif

/**
 * struct udp_gso_run - datagrams of one flow waiting to leave together
 * @iov:	their payloads, inside the guest's frames
 * @shape:	flow, count, sizes
 * @sock:	the flow's socket
 */
struct udp_gso_run {
	struct iovec iov[UDP_GSO_SEGS];
	struct udp_gso_shape shape;
	int sock;
};

static struct udp_gso_run udp_gso = { .shape.flow = FLOW_IDX_NONE };

/**
 * udp_gso_fits() - tell if a datagram can join a run
 * @sh:		shape of the run, not empty
 * @flow:	flow of the datagram
 * @len:	its length
 *
 * Return: true if UDP_SEGMENT would give the datagram back as it is, in
 *	   its place after the others
 */
bool udp_gso_fits(const struct udp_gso_shape *sh, uint32_t flow, size_t len)
{
	return flow == sh->flow && !sh->closed && len && len <= sh->size &&
	       sh->n < UDP_GSO_SEGS && sh->bytes + len <= UDP_GSO_BYTES;
}

/**
 * udp_gso_add() - count a datagram into a run's shape
 * @sh:		shape of the run, empty (flow FLOW_IDX_NONE) or one that
 *		udp_gso_fits() the datagram
 * @flow:	flow of the datagram
 * @len:	its length
 */
void udp_gso_add(struct udp_gso_shape *sh, uint32_t flow, size_t len)
{
	if (sh->flow == FLOW_IDX_NONE) {
		sh->flow = flow;
		sh->size = len;
		sh->n = 0;
		sh->bytes = 0;
		sh->closed = false;
	} else if (len < sh->size) {
		sh->closed = true;	/* a shorter one can only be the last */
	}
	sh->n++;
	sh->bytes += len;
}

/**
 * udp_gso_send() - send datagrams of the guest on a socket, in one call
 * @s:		socket
 * @iov:	payloads
 * @n:		number of payloads
 * @seg:	segment size if they are @n datagrams (UDP_SEGMENT), 0 if
 *		they make up one datagram
 * @to:		destination, NULL for a connected socket
 *
 * A socket reports an ICMP error of an earlier datagram on the next send,
 * which then does not leave: try again once in that case (the error itself
 * is reflected from the error queue).
 *
 * Return: 0 on success, -errno on failure
 */
int udp_gso_send(int s, const struct iovec *iov, unsigned int n, size_t seg,
		 const union sockaddr_inany *to)
{
	union {
		char buf[CMSG_SPACE(sizeof(uint16_t))];
		struct cmsghdr align;
	} u;
	struct msghdr mh = {
		.msg_iov = (struct iovec *)iov,
		.msg_iovlen = n,
	};
	int i;

	if (to) {
		mh.msg_name = (void *)&to->sa;
		mh.msg_namelen = to->sa.sa_family == AF_INET ?
				 sizeof(to->sa4) : sizeof(to->sa6);
	}
	if (seg) {
		uint16_t size = (uint16_t)seg;
		struct cmsghdr *cm;

		memset(&u, 0, sizeof(u));
		mh.msg_control = u.buf;
		mh.msg_controllen = sizeof(u.buf);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_UDP;
		cm->cmsg_type = UDP_SEGMENT;
		cm->cmsg_len = CMSG_LEN(sizeof(size));
		memcpy(CMSG_DATA(cm), &size, sizeof(size));
	}

	for (i = 0; i < UDP_SEND_TRIES; i++) {
		if (sendmsg(s, &mh, MSG_DONTWAIT) >= 0)
			return 0;
		if (errno != ECONNREFUSED && errno != EHOSTUNREACH &&
		    errno != ENETUNREACH && errno != EHOSTDOWN)
			return -errno;
	}
	return -errno;
}

/**
 * udp_gso_count() - count the outcome of sending datagrams of a flow
 * @flow:	flow index
 * @n:		number of datagrams
 * @ret:	0 if they left, -errno if not
 */
void udp_gso_count(uint32_t flow, unsigned int n, int ret)
{
	if (ret) {
		udp_stats.drop_send += n;
		trace("UDP flow %u: send failed: %s", flow, strerror(-ret));
		return;
	}
	udp_stats.from_guest += n;
}

/**
 * udp_gso_refused() - tell if the kernel refused to segment a run
 * @ret:	what udp_gso_send() returned for it
 *
 * Return: true for no segmentation toward this route, or a datagram above
 *	   the path MTU: the datagrams can still go one by one
 */
static bool udp_gso_refused(int ret)
{
	return ret == -EINVAL || ret == -EMSGSIZE || ret == -EIO;
}

/**
 * udp_gso_flush() - send the run collected so far
 */
void udp_gso_flush(void)
{
	struct udp_gso_run *run = &udp_gso;
	const struct udp_gso_shape *sh = &run->shape;
	unsigned int i;
	int ret;

	if (sh->flow == FLOW_IDX_NONE)
		return;

	if (sh->n == 1) {
		udp_gso_count(sh->flow, 1,
			      udp_gso_send(run->sock, run->iov, 1, 0, NULL));
	} else {
		ret = udp_gso_send(run->sock, run->iov, sh->n, sh->size, NULL);
		if (udp_gso_refused(ret)) {
			udp_stats.gso_refused++;
			for (i = 0; i < sh->n; i++)
				udp_gso_count(sh->flow, 1,
					      udp_gso_send(run->sock,
					      &run->iov[i], 1, 0,
					      NULL));
		} else {
			udp_stats.gso_runs += !ret;
			udp_gso_count(sh->flow, sh->n, ret);
		}
	}

	run->shape.flow = FLOW_IDX_NONE;
}

/**
 * udp_gso_queue() - a datagram from the guest for a flow's own socket
 * @flow:	flow index
 * @sock:	the flow's socket
 * @payload:	payload, inside the guest's frame, valid until
 *		net_input_done()
 * @len:	payload length
 */
void udp_gso_queue(uint32_t flow, int sock, const uint8_t *payload,
		   size_t len)
{
	struct udp_gso_run *run = &udp_gso;

	if (run->shape.flow != FLOW_IDX_NONE &&
	    !udp_gso_fits(&run->shape, flow, len))
		udp_gso_flush();

	udp_gso_add(&run->shape, flow, len);
	run->iov[run->shape.n - 1].iov_base = (void *)payload;
	run->iov[run->shape.n - 1].iov_len = len;
	run->sock = sock;
}

/**
 * udp_gso_forget() - a flow closes: send what it has waiting first
 * @flow:	flow index
 */
void udp_gso_forget(uint32_t flow)
{
	if (udp_gso.shape.flow == flow)
		udp_gso_flush();
}
