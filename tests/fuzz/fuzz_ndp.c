// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_ndp.c - libFuzzer target: NDP and other ICMPv6 messages
 *
 * Theory of operation
 *
 * Input: a selector byte, the ICMPv6 type, its code, then the message
 * body (what follows the checksum: reserved or flags, target, options).
 * The harness wraps it in a valid ICMPv6 packet (checksum right) from the
 * guest. Selector bits:
 *
 *   bits 0-1	source: 0 the guest's link-local address, 1 :: (duplicate
 *		address detection), 2 the guest's global address, 3 the
 *		relay's own link-local address
 *   bits 2-3	destination: 0 all-routers, 1 the solicited-node group of
 *		the relay's link-local address, 2 the relay's link-local
 *		address, 3 all-nodes
 *   bit 4	hop limit 64 (NDP requires 255: such messages are invalid)
 */

#include <stddef.h>
#include <stdint.h>

#include "fuzz.h"
#include "fuzz_build.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint8_t fuzz_snm6[16] = { 0xff, 0x02, 0, 0, 0, 0, 0, 0,
				       0, 0, 0, 1, 0xff, 0, 0, 0x01 };
static const uint8_t fuzz_allnodes6[16] = { 0xff, 0x02, 0, 0, 0, 0, 0, 0,
					    0, 0, 0, 0, 0, 0, 0, 0x01 };

/**
 * LLVMFuzzerTestOneInput() - wrap the input in ICMPv6, feed it
 * @data:	selector, type, code, body
 * @size:	input length
 *
 * Return: 0
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t *srcs[4] = { fz_guest_ll6, fz_any6, fz_guest6,
					  fz_our_ll6 };
	static const uint8_t *dsts[4] = { fz_allrouters6, fuzz_snm6,
					  fz_our_ll6, fuzz_allnodes6 };
	static uint8_t frame[FZ_FRAME_MAX];
	uint8_t sel;
	size_t n;

	fuzz_init();
	if (size < 3)
		return 0;

	sel = data[0];
	if (size - 3 > 65000)
		size = 65000 + 3;
	n = fz_icmp(frame, 1, srcs[sel & 3], dsts[(sel >> 2) & 3],
		    (sel & 0x10) ? 64 : 255, data[1], data[2], data + 3,
		    size - 3);
	fuzz_frame_in(frame, n);

	fuzz_tick();
	return 0;
}
