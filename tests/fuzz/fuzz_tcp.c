// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_tcp.c - libFuzzer target: TCP segments on an established flow
 *
 * Theory of operation
 *
 * For every input the harness opens a new connection from the guest to
 * the harness's TCP server (the gateway address, mapped to the host's
 * loopback, port FZ_TCP_PORT): a SYN with the usual options, the relay's
 * SYN-ACK read back from the guest socket, the final ACK. The input then
 * describes segments on that flow, each wrapped in valid IP and TCP
 * headers (lengths and checksums right), so the fuzzer works on the
 * established-state code (data, windows, SACK, FIN, RST, out-of-window
 * numbers) instead of the parsers. A final RST closes the flow, so that
 * the flow table does not fill up.
 *
 * Input: one byte (bit 0: IPv6), then records:
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
 * @port:	the guest's port
 * @synack:	the relay's SYN-ACK was seen
 * @relay_nxt:	next sequence number the relay will send
 * @guest_nxt:	next sequence number of the guest
 */
static struct fuzz_tcp_state {
	bool v6;
	uint16_t port;
	bool synack;
	uint32_t relay_nxt;
	uint32_t guest_nxt;
} fuzz_tcp;

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
	if (type == FZ_ETH_IP4 && len >= 14 + 20 && f[l3 + 9] == FZ_PROTO_TCP)
		l4 = l3 + (size_t)(f[l3] & 0xf) * 4;
	else if (type == FZ_ETH_IP6 && len >= 14 + 40 &&
		 f[l3 + 6] == FZ_PROTO_TCP)
		l4 = l3 + 40;
	else
		return;

	if (len < l4 + 20 || fz_get16(f + l4 + 2) != fuzz_tcp.port ||
	    fz_get16(f + l4) != FZ_TCP_PORT)
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

	if ((flags & (FZ_TCP_SYN | FZ_TCP_ACK)) == (FZ_TCP_SYN | FZ_TCP_ACK)) {
		fuzz_tcp.synack = true;
		fuzz_tcp.relay_nxt = seq + 1;
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

	s->sport = fuzz_tcp.port;
	s->dport = FZ_TCP_PORT;
	if (fuzz_tcp.v6)
		n = fz_tcp(frame, 1, fz_guest6, fz_gw6, s);
	else
		n = fz_tcp(frame, 0, fz_guest4, fz_gw4, s);
	if (fuzz_verbose)
		fprintf(stderr, "in:  flags %02x seq %u ack %u len %zu\n",
			s->flags, s->seq, s->ack, s->len);
	fuzz_frame_in(frame, n);
}

/**
 * fuzz_tcp_open() - handshake of a new connection
 * @v6:		over IPv6
 */
static void fuzz_tcp_open(bool v6)
{
	static const uint8_t syn_opts[] = {
		2, 4, 0x05, 0xb4,		/* MSS 1460 */
		1, 3, 3, 7,			/* window scale 7 */
		4, 2, 1, 1,			/* SACK permitted */
	};
	static unsigned int next;
	struct fz_tcp_seg s = { 0 };
	int i;

	fuzz_tcp.v6 = v6;
	fuzz_tcp.port = (uint16_t)(FUZZ_TCP_PORT_BASE +
				   next++ % FUZZ_TCP_PORTS);
	fuzz_tcp.synack = false;
	fuzz_tcp.relay_nxt = 0;
	fuzz_tcp.guest_nxt = 0x10000000u + next * 7919u;

	s.seq = fuzz_tcp.guest_nxt++;
	s.flags = FZ_TCP_SYN;
	s.win = 65535;
	s.opts = syn_opts;
	s.optlen = sizeof(syn_opts);
	fuzz_tcp_send(&s);
	for (i = 0; i < 8 && !fuzz_tcp.synack; i++)
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

	fuzz_tcp_open(data[0] & 1);

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
