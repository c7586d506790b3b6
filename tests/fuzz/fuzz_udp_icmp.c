// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_udp_icmp.c - libFuzzer target: UDP datagrams and ICMP messages
 *
 * Theory of operation
 *
 * The input is a selector byte, four header bytes and a payload; the
 * harness wraps it in a valid UDP or ICMP/ICMPv6 packet (lengths and
 * checksums right) from the guest, so that it reaches the flow code
 * behind the parsers. Selector bits:
 *
 *   bit 0	IPv6 (else IPv4)
 *   bit 1	ICMP: header bytes are type, code and the first two bytes of
 *		the body (echo identifier); else UDP: source port, then
 *		destination port
 *   bits 2-3	destination: 0 the gateway (the host's loopback, where the
 *		harness echoes UDP port FZ_UDP_PORT), 1 the DNS address,
 *		2 a remote address (no route in the fuzzer's namespace),
 *		3 broadcast (IPv4) or all-nodes multicast (IPv6)
 *   bit 4	source: the guest's link-local (IPv6) or 0.0.0.0 (IPv4)
 *		instead of its address
 *   bit 5	UDP: send the payload twice (a second datagram on the flow)
 *   bit 6	UDP: destination port FZ_UDP_PORT whatever the header says
 *   bit 7	hop limit 1 (else 64)
 */

#include <stddef.h>
#include <stdint.h>

#include "fuzz.h"
#include "fuzz_build.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint8_t fuzz_remote4[4] = { 192, 0, 2, 1 };
static const uint8_t fuzz_remote6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0,
					  0, 0, 0, 0, 0, 0, 0, 1 };
static const uint8_t fuzz_dns6[16] = { 0xfd, 0, 0, 0, 0, 0, 0, 0,
				       0, 0, 0, 0, 0, 0, 0, 0x03 };
static const uint8_t fuzz_allnodes6[16] = { 0xff, 0x02, 0, 0, 0, 0, 0, 0,
					    0, 0, 0, 0, 0, 0, 0, 0x01 };

/**
 * LLVMFuzzerTestOneInput() - wrap the input in UDP or ICMP, feed it
 * @data:	selector, header bytes, payload
 * @size:	input length
 *
 * Return: 0
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t frame[FZ_FRAME_MAX];
	const uint8_t *src, *dst;
	uint8_t sel, hdr[4] = { 0 };
	size_t n, i;
	int v6;

	fuzz_init();
	if (!size)
		return 0;

	sel = data[0];
	for (i = 0; i < 4 && i + 1 < size; i++)
		hdr[i] = data[i + 1];
	data += 1 + i;
	size -= 1 + i;
	if (size > 65000)
		size = 65000;

	v6 = sel & 1;
	switch ((sel >> 2) & 3) {
	case 0:
		dst = v6 ? fz_gw6 : fz_gw4;
		break;
	case 1:
		dst = v6 ? fuzz_dns6 : fz_dns4;
		break;
	case 2:
		dst = v6 ? fuzz_remote6 : fuzz_remote4;
		break;
	default:
		dst = v6 ? fuzz_allnodes6 : fz_bcast4;
		break;
	}
	if (sel & 0x10)
		src = v6 ? fz_guest_ll6 : fz_any4;
	else
		src = v6 ? fz_guest6 : fz_guest4;

	if (sel & 2) {
		static uint8_t body[2 + 65000];

		body[0] = hdr[2];
		body[1] = hdr[3];
		for (i = 0; i < size; i++)
			body[2 + i] = data[i];
		n = fz_icmp(frame, v6, src, dst, (sel & 0x80) ? 1 : 64,
			    hdr[0], hdr[1], body, 2 + size);
		fuzz_frame_in(frame, n);
	} else {
		uint16_t sport = fz_get16(hdr);
		uint16_t dport = (sel & 0x40) ? FZ_UDP_PORT : fz_get16(hdr + 2);

		n = fz_udp(frame, v6, src, dst, sport, dport, data, size);
		if (sel & 0x80)
			frame[14 + (v6 ? 7 : 8)] = 1;
		if (!v6 && (sel & 0x80)) {	/* TTL changed: IPv4 checksum */
			frame[14 + 10] = frame[14 + 11] = 0;
			fz_put16(frame + 14 + 10,
				 fz_fold(fz_sum(frame + 14, 20, 0)));
		}
		fuzz_frame_in(frame, n);
		if (sel & 0x20)
			fuzz_frame_in(frame, n);
	}

	fuzz_tick();
	return 0;
}
