// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_frame.c - libFuzzer target: one raw Ethernet frame from the guest
 *
 * Theory of operation
 *
 * The input is a whole frame, as the guest would send it: Ethernet, then
 * ARP, IPv4 or IPv6 and everything behind them (TCP, UDP, ICMP, DHCP,
 * DHCPv6, NDP). Nothing is fixed up, so this target covers the parsers'
 * bounds and sanity checks; the other targets wrap their input in valid
 * headers to reach deeper. The relay persists across inputs
 * (fuzz_common.c).
 */

#include <stddef.h>
#include <stdint.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/**
 * LLVMFuzzerTestOneInput() - feed one frame to the relay
 * @data:	the frame
 * @size:	its length
 *
 * Return: 0
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_init();
	fuzz_frame_in(data, size);
	fuzz_tick();
	return 0;
}
