// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_dhcp.c - libFuzzer target: DHCP and DHCPv6 messages
 *
 * Theory of operation
 *
 * The first byte picks how the rest is sent; the rest is the DHCP or
 * DHCPv6 message, wrapped in a valid UDP datagram from the guest:
 *
 *   bit 0	DHCPv6 (from the guest's link-local address, port 546, to
 *		ff02::1:2 port 547); else DHCP (0.0.0.0 port 68 to
 *		255.255.255.255 port 67)
 *   bit 1	unicast instead: DHCP from the guest's address to the
 *		gateway, DHCPv6 to the relay's link-local address
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fuzz.h"
#include "fuzz_build.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/**
 * LLVMFuzzerTestOneInput() - wrap the input in UDP to the DHCP server
 * @data:	selector, then the message
 * @size:	input length
 *
 * Return: 0
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t frame[FZ_FRAME_MAX];
	bool unicast;
	uint8_t sel;
	size_t n;

	fuzz_init();
	if (!size)
		return 0;

	sel = data[0];
	data++;
	size--;
	if (size > 65000)
		size = 65000;
	unicast = sel & 2;

	if (sel & 1) {
		n = fz_udp(frame, 1, fz_guest_ll6,
			   unicast ? fz_our_ll6 : fz_dhcp6_mc, 546, 547,
			   data, size);
	} else {
		n = fz_udp(frame, 0, unicast ? fz_guest4 : fz_any4,
			   unicast ? fz_gw4 : fz_bcast4, 68, 67, data, size);
	}
	fuzz_frame_in(frame, n);

	fuzz_tick();
	return 0;
}
