// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_tcp.c - libFuzzer target: TCP segments on an established flow
 *
 * Theory of operation
 *
 * For every input the harness opens a new connection, in one of two
 * directions. Outbound: from the guest to the harness's TCP server (the
 * gateway address, mapped to the host's loopback, port FZ_TCP_PORT): a
 * SYN with the usual options, the relay's SYN-ACK read back from the guest
 * socket, the final ACK. Inbound: the harness connects on the loopback to
 * the port the relay forwards (-t FZ_TCP_FWD_PORT), the relay's SYN to the
 * guest is read back and the guest answers with a SYN-ACK. The input then
 * describes segments on that flow, each wrapped in valid IP and TCP
 * headers (lengths and checksums right), so the fuzzer works on the
 * established-state code (data, windows, SACK, FIN, RST, out-of-window
 * numbers) instead of the parsers. A final RST closes the flow, so that
 * the flow table does not fill up.
 *
 * Input: one byte (bit 0: IPv6, bit 1: inbound), then records:
 *
 *   flags	TCP flags; bit 7 (CWR) also moves virtual time 200 ms on
 *		first, so that retransmission and ACK timers fire
 *   seq	2 bytes, signed offset from the guest's next sequence number
 *   ack	2 bytes, signed offset from the relay's next sequence number
 *   win	2 bytes, window field
 *   optlen	options length: (optlen % 11) * 4 bytes
 *   len	2 bytes, payload length (cut to what the input holds)
 *   options, payload
 *
 * A segment with data at offset 0 moves the guest's sequence number on
 * (and FIN counts one), as a well-behaved sender's would; the relay's
 * sequence number is tracked from the segments it sends to the guest.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fuzz.h"
#include "fuzz_build.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_TCP_REC_HDR	10	/* bytes before options and payload */
#define FUZZ_TCP_PORT_BASE	20000	/* guest ports used, and how many */
#define FUZZ_TCP_PORTS		20000
#define FUZZ_TCP_TIME_MS	200

/**
 * struct fuzz_tcp_state - the connection of the current input
 * @v6:		over IPv6
 * @gport:	the guest's port
 * @rport:	the remote port, as the guest sees it
 * @raddr:	the remote address, as the guest sees it
 * @open:	the relay's SYN or SYN-ACK was seen
 * @relay_nxt:	next sequence number the relay will send
 * @guest_nxt:	next sequence number of the guest
 */
static struct fuzz_tcp_state {
	bool v6;
	uint16_t gport;
	uint16_t rport;
	uint8_t raddr[16];
	bool open;
	uint32_t relay_nxt;
	uint32_t guest_nxt;
} fuzz_tcp;

static const uint8_t fuzz_tcp_syn_opts[] = {
	2, 4, 0x05, 0xb4,		/* MSS 1460 */
	1, 3, 3, 7,			/* window scale 7 */
	4, 2, 1, 1,			/* SACK permitted */
};

/**
 * fuzz_tcp_out() - track the relay's sequence numbers on our connection
 * @f:		frame sent to the guest
 * @len:	its length
 */
static void fuzz_tcp_out(const uint8_t *f, size_t len)
{
	size_t l3 = 14, l4, hl, dlen;
	uint32_t seq, end;
	uint16_t type;
	uint8_t flags;

	if (len < 14)
		return;
	type = fz_get16(f + 12);
	if (!fuzz_tcp.v6 && type == FZ_ETH_IP4 && len >= 14 + 20 &&
	    f[l3 + 9] == FZ_PROTO_TCP)
		l4 = l3 + (size_t)(f[l3] & 0xf) * 4;
	else if (fuzz_tcp.v6 && type == FZ_ETH_IP6 && len >= 14 + 40 &&
		 f[l3 + 6] == FZ_PROTO_TCP)
		l4 = l3 + 40;
	else
		return;

	if (len < l4 + 20 || fz_get16(f + l4 + 2) != fuzz_tcp.gport ||
	    fz_get16(f + l4) != fuzz_tcp.rport)
		return;

	hl = (size_t)(f[l4 + 12] >> 4) * 4;
	if (len < l4 + hl)
		return;
	dlen = len - l4 - hl;
	seq = fz_get32(f + l4 + 4);
	flags = f[l4 + 13];
	if (fuzz_verbose)
		fprintf(stderr, "out: flags %02x seq %u ack %u len %zu\n",
			flags, seq, fz_get32(f + l4 + 8), dlen);

	if (flags & FZ_TCP_SYN) {
		fuzz_tcp.open = true;
		fuzz_tcp.relay_nxt = seq + 1;
		if (fuzz_tcp.v6)
			memcpy(fuzz_tcp.raddr, f + l3 + 8, 16);
		else
			memcpy(fuzz_tcp.raddr, f + l3 + 12, 4);
		return;
	}
	end = seq + (uint32_t)dlen + ((flags & FZ_TCP_FIN) ? 1 : 0);
	if ((int32_t)(end - fuzz_tcp.relay_nxt) > 0)
		fuzz_tcp.relay_nxt = end;
}

/**
 * fuzz_tcp_send() - send one segment of the current connection
 * @s:		segment, ports filled here
 */
static void fuzz_tcp_send(struct fz_tcp_seg *s)
{
	static uint8_t frame[FZ_FRAME_MAX];
	size_t n;

	if (fuzz_verbose)
		fprintf(stderr, "in:  flags %02x seq %u ack %u len %zu\n",
			s->flags, s->seq, s->ack, s->len);
	s->sport = fuzz_tcp.gport;
	s->dport = fuzz_tcp.rport;
	n = fz_tcp(frame, fuzz_tcp.v6, fuzz_tcp.v6 ? fz_guest6 : fz_guest4,
		   fuzz_tcp.raddr, s);
	fuzz_frame_in(frame, n);
}

/**
 * fuzz_tcp_open() - handshake of a new connection
 * @v6:		over IPv6
 * @inbound:	from the host side to the guest (else from the guest)
 */
static void fuzz_tcp_open(bool v6, bool inbound)
{
	static unsigned int next;
	struct fz_tcp_seg s = { 0 };
	int i;

	next++;
	memset(&fuzz_tcp, 0, sizeof(fuzz_tcp));
	fuzz_tcp.v6 = v6;
	fuzz_tcp.guest_nxt = 0x10000000u + next * 7919u;

	s.win = 65535;
	s.opts = fuzz_tcp_syn_opts;
	s.optlen = sizeof(fuzz_tcp_syn_opts);

	if (inbound) {
		fuzz_tcp.gport = FZ_TCP_FWD_PORT;
		fuzz_tcp.rport = fuzz_connect(v6, FZ_TCP_FWD_PORT);
		for (i = 0; i < 8 && !fuzz_tcp.open; i++)
			fuzz_pump(1);
		s.seq = fuzz_tcp.guest_nxt++;
		s.ack = fuzz_tcp.relay_nxt;
		s.flags = FZ_TCP_SYN | FZ_TCP_ACK;
		fuzz_tcp_send(&s);
		return;
	}

	fuzz_tcp.gport = (uint16_t)(FUZZ_TCP_PORT_BASE + next % FUZZ_TCP_PORTS);
	fuzz_tcp.rport = FZ_TCP_PORT;
	memcpy(fuzz_tcp.raddr, v6 ? fz_gw6 : fz_gw4, v6 ? 16 : 4);

	s.seq = fuzz_tcp.guest_nxt++;
	s.flags = FZ_TCP_SYN;
	fuzz_tcp_send(&s);
	for (i = 0; i < 8 && !fuzz_tcp.open; i++)
		fuzz_pump(1);

	s.seq = fuzz_tcp.guest_nxt;
	s.ack = fuzz_tcp.relay_nxt;
	s.flags = FZ_TCP_ACK;
	s.optlen = 0;
	fuzz_tcp_send(&s);
}

/**
 * LLVMFuzzerTestOneInput() - open a connection, send the segments, reset
 * @data:	family byte, then segment records
 * @size:	input length
 *
 * Return: 0
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_tcp_seg s = { 0 };
	size_t off = 1;

	fuzz_init();
	fuzz_set_out(fuzz_tcp_out);
	if (!size)
		return 0;

	fuzz_tcp_open(data[0] & 1, data[0] & 2);

	while (off + FUZZ_TCP_REC_HDR <= size) {
		const uint8_t *r = data + off;
		size_t optlen = (size_t)(r[7] % 11) * 4;
		size_t len = fz_get16(r + 8);
		int16_t dseq = (int16_t)fz_get16(r + 1);
		int16_t dack = (int16_t)fz_get16(r + 3);

		off += FUZZ_TCP_REC_HDR;
		if (optlen > size - off)
			optlen = size - off;
		optlen &= ~(size_t)3;
		s.opts = data + off;
		s.optlen = optlen;
		off += optlen;
		if (len > size - off)
			len = size - off;
		s.data = data + off;
		s.len = len;
		off += len;

		if (r[0] & 0x80)
			fuzz_advance(FUZZ_TCP_TIME_MS);

		s.flags = r[0];
		s.seq = fuzz_tcp.guest_nxt + (uint32_t)(int32_t)dseq;
		s.ack = fuzz_tcp.relay_nxt + (uint32_t)(int32_t)dack;
		s.win = fz_get16(r + 5);
		fuzz_tcp_send(&s);

		if (!dseq && !(s.flags & (FZ_TCP_SYN | FZ_TCP_RST)))
			fuzz_tcp.guest_nxt += (uint32_t)len +
					      ((s.flags & FZ_TCP_FIN) ? 1 : 0);
	}

	s.flags = FZ_TCP_RST;
	s.seq = fuzz_tcp.guest_nxt;
	s.ack = 0;
	s.optlen = 0;
	s.len = 0;
	fuzz_tcp_send(&s);

	fuzz_tick();
	return 0;
}
