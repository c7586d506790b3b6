// SPDX-License-Identifier: GPL-2.0-or-later
/* guest.c - what the relay learnt about the guest while it runs
 *
 * Theory of operation: struct ctx holds what start-up decided and stays
 * read-only afterwards. What the guest tells us as it runs lives here
 * instead: its MAC address (from its frames, its DHCP requests, or for
 * pasta the tap device), and the source addresses it uses (the address of
 * each family it last sent from, and its IPv6 link-local one), which may
 * differ from the configured ones if the guest picked its own. An address
 * pasta moved the namespace away from (follow.c) is not learnt again from
 * the connections that still use it.
 *
 * net/ writes it as frames arrive, pasta's start-up and migration's target
 * set it in one go; flow/nat.c, the frame builders and migration's source
 * read it. The addresses start as the configured ones (guest_init()), the
 * MAC address as unknown (all zeroes): frames then go to the broadcast
 * address until the guest shows its own.
 */

#include <string.h>
#include <linux/if_ether.h>

#include "follow.h"
#include "guest.h"
#include "../conf/ctx.h"

/**
 * struct guest_seen - the guest's identity, as learnt
 * @mac:	MAC address, all zeroes until known
 * @addr4:	last IPv4 source address, initially the configured one
 * @addr6:	last global IPv6 source address, initially the configured one
 * @addr6_ll:	last link-local IPv6 source address, :: until seen
 */
struct guest_seen {
	unsigned char mac[ETH_ALEN];
	struct in_addr addr4;
	struct in6_addr addr6;
	struct in6_addr addr6_ll;
};

static struct guest_seen guest_seen;

/**
 * guest_init() - start from the configuration: addresses as configured,
 *		  MAC address unknown
 * @c:		execution context
 */
void guest_init(const struct ctx *c)
{
	memset(&guest_seen, 0, sizeof(guest_seen));
	guest_seen.addr4 = c->ip4.addr;
	guest_seen.addr6 = c->ip6.addr;
}

/**
 * guest_mac() - the guest's MAC address
 *
 * Return: ETH_ALEN bytes, all zeroes if not known yet
 */
const unsigned char *guest_mac(void)
{
	return guest_seen.mac;
}

/**
 * guest_mac_set() - remember the guest's MAC address
 * @mac:	ETH_ALEN bytes
 */
void guest_mac_set(const unsigned char *mac)
{
	memcpy(guest_seen.mac, mac, ETH_ALEN);
}

/**
 * guest_addr4() - the IPv4 address the guest last sent from
 *
 * Return: that address, the configured one until the guest sent any
 */
struct in_addr guest_addr4(void)
{
	return guest_seen.addr4;
}

/**
 * guest_addr4_set() - remember the IPv4 address the guest sent from
 * @a:		address
 */
void guest_addr4_set(struct in_addr a)
{
	if (follow_retired4(a))
		return;
	guest_seen.addr4 = a;
}

/**
 * guest_addr6() - the global IPv6 address the guest last sent from
 *
 * Return: that address, the configured one until the guest sent any
 */
const struct in6_addr *guest_addr6(void)
{
	return &guest_seen.addr6;
}

/**
 * guest_addr6_set() - remember the global IPv6 address the guest sent from
 * @a:		address
 */
void guest_addr6_set(const struct in6_addr *a)
{
	if (follow_retired6(a))
		return;
	guest_seen.addr6 = *a;
}

/**
 * guest_addr6_ll() - the link-local IPv6 address the guest last sent from
 *
 * Return: that address, :: until the guest sent from one
 */
const struct in6_addr *guest_addr6_ll(void)
{
	return &guest_seen.addr6_ll;
}

/**
 * guest_addr6_ll_set() - remember the guest's link-local IPv6 address
 * @a:		address
 */
void guest_addr6_ll_set(const struct in6_addr *a)
{
	guest_seen.addr6_ll = *a;
}
