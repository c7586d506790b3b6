/* SPDX-License-Identifier: GPL-2.0-or-later */
/* udp_internal.h - UDP flow state shared by the files of udp/
 *
 * Private to udp/: no other module includes this header.
 */
#ifndef UDP_UDP_INTERNAL_H
#define UDP_UDP_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "../util/inany.h"
#include "../qdisc/qdisc.h"
#include "../util/timer.h"

struct ctx;
struct iovec;

#define UDP_HDR_LEN		8
/* A flow with no datagram in either direction for this long is closed */
#define UDP_FLOW_TIMEOUT_MS	(180 * 1000)
/* Datagrams read per recvmmsg() toward the guest */
#define UDP_RECV_BATCH		32
/* Datagrams moved per event between two sockets (-U), before yielding */
#define UDP_SPLICE_BATCH	32
/* Receive buffer asked for every UDP socket: the kernel's queue is the
 * only buffer of a datagram socket, and it has to ride out the moments
 * the relay is not scheduled
 */
#define UDP_SOCK_RCVBUF		(4 * 1024 * 1024)
/* Largest datagram a socket can hold (IPv6 without jumbograms) */
#define UDP_DGRAM_MAX		65535
/* Send attempts of one datagram from the guest when an ICMP error of an
 * earlier datagram is reported instead
 */
#define UDP_SEND_TRIES		2

/* Datagrams from the guest sent in one call (UDP GSO, udp_gso.c): the
 * kernel takes at most 64 segments per send
 */
#define UDP_GSO_SEGS		64
/* Their payload bytes: one IPv4 packet before segmentation */
#define UDP_GSO_BYTES		(UINT16_MAX - UDP_HDR_LEN - 60)

/* Epoll reference data word: listening socket, index in the low bits */
#define UDP_REF_LSN		(1U << 31)

/* Room for the one control message asked for, a datagram's destination:
 * CMSG_SPACE(sizeof(struct in6_pktinfo)) is 40 bytes on Linux; a constant,
 * as C11 wants for an array in a structure
 */
#define UDP_CTL_LEN		64

/**
 * struct udp_ctl - control messages received with a datagram
 * @buf:	their buffer, aligned for struct cmsghdr
 * @len:	bytes of it the kernel used
 */
struct udp_ctl {
	_Alignas(struct cmsghdr) uint8_t buf[UDP_CTL_LEN];
	size_t len;
};

/**
 * enum udp_kind - what a UDP flow is
 * @UDP_KIND_NONE:	slot unused
 * @UDP_KIND_GUEST:	the guest started it: own socket, connected
 * @UDP_KIND_FWD:	forwarded from the host: a host peer started it on a
 *			-u port; replies leave from the listening socket
 *			toward @peer
 * @UDP_KIND_SPLICE:	-U: a peer in the namespace, on a listening socket
 *			there, and a connected socket on the host's loopback
 * @UDP_KIND_PROXY:	stands for all -u listening sockets in the output
 *			scheduler (no socket of its own, never hashed)
 */
enum udp_kind {
	UDP_KIND_NONE = 0,
	UDP_KIND_GUEST,
	UDP_KIND_FWD,
	UDP_KIND_SPLICE,
	UDP_KIND_PROXY,
};

/**
 * struct udp_flow - one UDP pseudo-connection
 * @timer:	idle timer
 * @peer:	UDP_KIND_FWD, UDP_KIND_SPLICE: the peer of the listening socket
 * @last_ms:	time of the last datagram, either direction
 * @sock:	UDP_KIND_GUEST, UDP_KIND_SPLICE: our own socket, else -1
 * @lsn:	UDP_KIND_FWD, UDP_KIND_SPLICE: index of the listening socket
 * @kind:	enum udp_kind
 * @v4:		IPv4 (else IPv6)
 */
struct udp_flow {
	struct wheel_timer timer;
	union sockaddr_inany peer;
	uint64_t last_ms;
	int sock;
	uint32_t lsn;
	uint8_t kind;
	bool v4;
};

/**
 * struct udp_lsn - a listening socket of a forwarded port
 * @addr:	address it is bound to (for -U by default the wildcard, see
 *		@lo_all)
 * @fd:		the socket
 * @port:	port it is bound to
 * @v4:		IPv4 (else IPv6)
 * @in_ns:	-U: in the namespace, spliced to the host's loopback
 * @lo_all:	-U: bound to every loopback address (@addr is the
 *		wildcard on the loopback interface)
 * @pktinfo:	bound to a wildcard (-U: @lo_all; pasta's -u: datagrams
 *		from the host's loopback are spliced): each datagram's
 *		destination comes with it (IP_PKTINFO), spliced replies leave
 *		from that address
 * @queued:	-u: on the proxy's list of sockets with datagrams to read
 */
struct udp_lsn {
	union inany_addr addr;
	int fd;
	uint16_t port;
	bool v4;
	bool in_ns;
	bool lo_all;
	bool pktinfo;
	bool queued;
};

/**
 * struct udp_counters - events of the UDP module, for debugging
 * @flows_guest:	flows started by the guest
 * @flows_fwd:		flows started by host peers on -u ports (forwarded
 *			from the host)
 * @flows_splice:	flows started by namespace peers on -U ports, and by
 *			host loopback peers on -u ports (pasta)
 * @to_guest:		datagrams sent to the guest
 * @from_guest:		datagrams sent for the guest
 * @drop_mtu:		datagrams too large for the guest's MTU
 * @drop_send:		datagrams from the guest the host socket refused
 * @gso_runs:		runs of datagrams from the guest sent in one call
 * @gso_refused:	runs the kernel would not segment, sent one by one
 * @drop_no_flow:	datagrams dropped: no socket, flow table full, or no
 *			flow they may belong to (udp_fwd_flow())
 * @drop_splice:	-U datagrams the destination socket refused
 * @icmp_errors:	ICMP errors reflected to the guest
 * @evicted:		idle flows closed to make room (udp_evict.c)
 */
struct udp_counters {
	uint64_t flows_guest;
	uint64_t flows_fwd;
	uint64_t flows_splice;
	uint64_t to_guest;
	uint64_t from_guest;
	uint64_t drop_mtu;
	uint64_t drop_send;
	uint64_t gso_runs;
	uint64_t gso_refused;
	uint64_t drop_no_flow;
	uint64_t drop_splice;
	uint64_t icmp_errors;
	uint64_t evicted;
};

extern struct udp_counters udp_stats;

/* udp_flow.c */
int udp_flow_init(void);
struct udp_flow *udp_flow_at(uint32_t idx);
uint32_t udp_flow_new(const struct ctx *c, enum udp_kind kind, bool v4,
		      uint64_t now_ms);
void udp_flow_close(const struct ctx *c, uint32_t idx);
int udp_epoll_add(const struct ctx *c, int fd, uint32_t data, bool edge);
void udp_sock_rcvbuf(int s);
void udp_flow_touch(struct udp_flow *uf, uint64_t now_ms);

/**
 * struct udp_gso_shape - what a run of datagrams from the guest holds
 * @flow:	their flow, FLOW_IDX_NONE for an empty run
 * @n:		number of datagrams
 * @bytes:	their total length
 * @size:	length of the first one: the segment size
 * @closed:	the last one is shorter than @size, nothing may follow
 */
struct udp_gso_shape {
	uint32_t flow;
	unsigned int n;
	size_t bytes;
	size_t size;
	bool closed;
};

/* udp_gso.c */
bool udp_gso_fits(const struct udp_gso_shape *sh, uint32_t flow, size_t len);
void udp_gso_add(struct udp_gso_shape *sh, uint32_t flow, size_t len);
void udp_gso_queue(uint32_t flow, int sock, const uint8_t *payload,
		   size_t len);
void udp_gso_forget(uint32_t flow);
int udp_gso_send(int s, const struct iovec *iov, unsigned int n, size_t seg,
		 const union sockaddr_inany *to);
void udp_gso_count(uint32_t flow, unsigned int n, int ret);
void udp_gso_flush(void);

/* udp_evict.c */
void udp_evict_init(void);

/* udp_emit.c */
struct flow_key;
size_t udp_payload_off(bool v4);
int udp_recv_frames(int fd, size_t off, unsigned int n,
		    union sockaddr_inany *names, struct udp_ctl *ctls,
		    uint8_t **bufs, size_t *lens, unsigned int *got);
bool udp_emit(const struct ctx *c, uint8_t *const *bufs, unsigned int i,
	      unsigned int *j, const struct flow_key *key, size_t plen);
enum qdisc_pull_result udp_emit_pull(const struct ctx *c, uint32_t idx,
				     struct udp_flow *uf, size_t budget,
				     uint64_t now_ms);

/* udp_err.c */
int udp_sock_recverr(int s, bool v4);
void udp_err_drain(const struct ctx *c, uint32_t idx);
void udp_err_refuse(const struct ctx *c, const struct flow_key *key,
		    const uint8_t *data, size_t dlen);

/* udp_fwd.c */
int udp_fwd_init(const struct ctx *c);
struct udp_lsn *udp_lsn_at(uint32_t i);
void udp_lsn_handler(const struct ctx *c, uint32_t i, uint32_t events,
		     uint64_t now_ms);
enum qdisc_pull_result udp_proxy_pull(const struct ctx *c, size_t budget,
				      uint64_t now_ms);

/* udp_splice.c */
void udp_splice_init(void);
void udp_ctl_dst(const struct udp_lsn *l, const struct udp_ctl *ctl,
		 union inany_addr *dst);
bool udp_splice_from_host(const struct ctx *c, const struct udp_lsn *l,
			  uint32_t li, const union sockaddr_inany *peer,
			  const struct udp_ctl *ctl, const uint8_t *data,
			  size_t len, uint64_t now_ms);
void udp_splice_from_ns(const struct ctx *c, struct udp_lsn *l, uint32_t li,
			uint64_t now_ms);
void udp_splice_to_ns(const struct ctx *c, uint32_t idx,
		      const struct udp_lsn *l, uint64_t now_ms);

#endif /* UDP_UDP_INTERNAL_H */
