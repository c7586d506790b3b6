// SPDX-License-Identifier: GPL-2.0-or-later
/* test_net_io.c - net/ input dispatch to the protocol modules, with doubles
 *
 * Build (not linked against the other modules: tests/unit/
 * net_io_doubles.h defines its own qdisc_send(), tcp_guest_input(),
 * tcp_input_done(), udp_guest_input(), icmp_guest_input(),
 * dhcp_input(), dhcpv6_input() and the entry points of fwd/mcast.c,
 * never called without --mcast-ports):
 *
 *   cc $(CFLAGS) -I. -o build/tests/test_net_io \
 *	tests/unit/standalone/test_net_io.c net/net.c net/arp.c net/ndp.c \
 *	net/dns_name.c net/checksum.c util/log.c \
 *	$(pkg-config --cflags --libs check)
 *
 * Theory of operation: qdisc_send() and the entry points of tcp/, udp/,
 * net/icmp.c, net/dhcp.c and net/dhcpv6.c are replaced by doubles that
 * record what net/ sends to the guest and hands to each module, and check
 * that every pointer they get lies inside the frame being fed. Hand-built
 * frames (tests/unit/net_frames.h) check TCP, UDP, ICMP and DHCP delivery
 * with the right addresses and lengths. A fuzzer mutates valid frames,
 * feeds each one from a heap buffer of its exact size (for
 * AddressSanitizer), and checks that every frame is accounted for exactly
 * once: dropped (malformed or unsupported), answered, given to tcp/, udp/
 * or net/icmp.c, or consumed by a DHCP server (one that declines it passes
 * it on to the UDP path, where it is counted again as one of the others).
 * ARP and NDP answers are tested by test_arp_ndp.c, with the same doubles.
 */

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include "../net_io_doubles.h"

/**
 * balance() - frames minus the drop_ and to_ counters of net_stats
 *
 * Return: 0 if net_stats alone accounts for every frame exactly once
 */
static long long balance(void)
{
	const struct net_stats *n = &net_stats;

	return (long long)n->frames -
	       (long long)(n->drop_malformed + n->drop_unsupported +
			   n->to_arp + n->to_ndp + n->to_dhcp + n->to_tcp +
			   n->to_udp + n->to_icmp);
}

/* TCP */

START_TEST(test_tcp4_delivered)
{
	uint8_t f[TF_FRAME_MAX];
	size_t len = tf_tcp4_frame(f, 100);
	struct in_addr s, d;

	feed(f, len);
	ck_assert_uint_eq(tcp_call.n, 1);
	inet_pton(AF_INET, "192.0.2.10", &s);
	inet_pton(AF_INET, "198.51.100.7", &d);
	ck_assert_ptr_nonnull(inany_v4(&tcp_call.saddr));
	ck_assert_uint_eq(inany_v4(&tcp_call.saddr)->s_addr, s.s_addr);
	ck_assert_uint_eq(inany_v4(&tcp_call.daddr)->s_addr, d.s_addr);
	ck_assert_ptr_eq(tcp_call.th, f + 34);
	ck_assert_uint_eq(tcp_call.l4len, 120);
	ck_assert_uint_eq(tcp_call.now_ms, 1234);
	ck_assert_uint_eq(guest_addr4().s_addr, s.s_addr);
	ck_assert_mem_eq(guest_mac(), tf_guest_mac, 6);

	/* Ethernet padding after the packet is not part of it */
	len = tf_tcp4_frame(f, 0);
	memset(f + len, 0xee, 6);
	feed(f, 60);
	ck_assert_uint_eq(tcp_call.n, 2);
	ck_assert_uint_eq(tcp_call.l4len, 20);
	ck_assert_uint_eq(accounted(), 0);
}
END_TEST

START_TEST(test_tcp4_options_skipped)
{
	uint8_t f[TF_FRAME_MAX];
	uint8_t *ip = f + 14;
	size_t len;

	/* IHL 6: one 4-byte option (NOPs), TCP after it */
	tf_eth(f, tf_our_mac, tf_guest_mac, 0x0800);
	tf_ip4(ip, "192.0.2.10", "198.51.100.7", IPPROTO_TCP, 4 + 20 + 5);
	ip[0] = 0x46;
	memset(ip + 20, 1, 4);
	tf_put16(ip + 10, 0);
	tf_put16(ip + 10, tf_finish(tf_sum(ip, 24, 0)));
	len = 14 + 24 + tf_tcp(ip + 24, 5);

	feed(f, len);
	ck_assert_uint_eq(tcp_call.n, 1);
	ck_assert_ptr_eq(tcp_call.th, f + 38);
	ck_assert_uint_eq(tcp_call.l4len, 25);
}
END_TEST

START_TEST(test_tcp6_delivered)
{
	uint8_t f[TF_FRAME_MAX];
	size_t len = tf_tcp6_frame(f, 33);
	struct in6_addr s, d;

	feed(f, len);
	ck_assert_uint_eq(tcp_call.n, 1);
	inet_pton(AF_INET6, "2001:db8:1:2::10", &s);
	inet_pton(AF_INET6, "2001:db8:9::7", &d);
	ck_assert_ptr_null(inany_v4(&tcp_call.saddr));
	ck_assert_mem_eq(&tcp_call.saddr.a6, &s, 16);
	ck_assert_mem_eq(&tcp_call.daddr.a6, &d, 16);
	ck_assert_ptr_eq(tcp_call.th, f + 54);
	ck_assert_uint_eq(tcp_call.l4len, 53);
	ck_assert_mem_eq(guest_addr6(), &s, 16);
}
END_TEST

START_TEST(test_tcp6_ext_headers)
{
	uint8_t f[TF_FRAME_MAX];
	uint8_t *ip = f + 14;
	size_t len;

	/* Hop-by-hop (8 bytes), routing (24 bytes), dest options (16) */
	tf_eth(f, tf_our_mac, tf_guest_mac, 0x86dd);
	tf_ip6(ip, "2001:db8:1:2::10", "2001:db8:9::7", 0, 64,
	       8 + 24 + 16 + 20 + 3);
	memset(ip + 40, 0, 48);
	ip[40] = 43;
	ip[48] = 60;
	ip[49] = 2;
	ip[72] = IPPROTO_TCP;
	ip[73] = 1;
	len = 14 + 40 + 48 + tf_tcp(ip + 88, 3);

	feed(f, len);
	ck_assert_uint_eq(tcp_call.n, 1);
	ck_assert_ptr_eq(tcp_call.th, f + 14 + 88);
	ck_assert_uint_eq(tcp_call.l4len, 23);
	ck_assert_uint_eq(accounted(), 0);
}
END_TEST

START_TEST(test_tcp_options_doff)
{
	uint8_t f[TF_FRAME_MAX];
	size_t len = tf_tcp4_frame(f, 40);

	/* 60-byte header within a 60-byte segment is fine */
	f[34 + 12] = 15 << 4;
	feed(f, len);
	ck_assert_uint_eq(tcp_call.n, 1);
}
END_TEST

/* UDP */

START_TEST(test_udp_delivered)
{
	uint8_t f[TF_FRAME_MAX];
	size_t len = tf_udp_frame(f, 1, "192.0.2.10", "198.51.100.7", 40000,
				  53, 12);
	struct in_addr s, d;
	struct in6_addr s6, d6;

	feed(f, len);
	ck_assert_uint_eq(udp_call.n, 1);
	inet_pton(AF_INET, "192.0.2.10", &s);
	inet_pton(AF_INET, "198.51.100.7", &d);
	ck_assert_ptr_nonnull(inany_v4(&udp_call.saddr));
	ck_assert_uint_eq(inany_v4(&udp_call.saddr)->s_addr, s.s_addr);
	ck_assert_uint_eq(inany_v4(&udp_call.daddr)->s_addr, d.s_addr);
	ck_assert_ptr_eq(udp_call.l4, f + 34);
	ck_assert_uint_eq(udp_call.l4len, 20);
	ck_assert_uint_eq(udp_call.now_ms, 1234);
	ck_assert_uint_eq(guest_addr4().s_addr, s.s_addr);
	ck_assert_mem_eq(guest_mac(), tf_guest_mac, 6);

	/* Ethernet padding is not part of the datagram */
	len = tf_udp_frame(f, 1, "192.0.2.10", "198.51.100.7", 40000, 53, 0);
	memset(f + len, 0xee, 60 - len);
	feed(f, 60);
	ck_assert_uint_eq(udp_call.n, 2);
	ck_assert_uint_eq(udp_call.l4len, 8);

	len = tf_udp_frame(f, 0, "2001:db8:1:2::10", "2001:db8:9::7", 40000,
			   53, 7);
	feed(f, len);
	ck_assert_uint_eq(udp_call.n, 3);
	inet_pton(AF_INET6, "2001:db8:1:2::10", &s6);
	inet_pton(AF_INET6, "2001:db8:9::7", &d6);
	ck_assert_ptr_null(inany_v4(&udp_call.saddr));
	ck_assert_mem_eq(&udp_call.saddr.a6, &s6, 16);
	ck_assert_mem_eq(&udp_call.daddr.a6, &d6, 16);
	ck_assert_ptr_eq(udp_call.l4, f + 54);
	ck_assert_uint_eq(udp_call.l4len, 15);
	ck_assert_mem_eq(guest_addr6(), &s6, 16);

	ck_assert_uint_eq(dhcp_call.n4 + dhcp_call.n6, 0);
	ck_assert_uint_eq(accounted(), 0);
}
END_TEST

START_TEST(test_udp_dropped)
{
	uint8_t f[TF_FRAME_MAX], g[TF_FRAME_MAX];
	size_t len = tf_udp_frame(f, 1, "192.0.2.10", "198.51.100.7", 40000,
				  53, 12);
	size_t len6;

	/* UDP length below the header, past the IP payload */
	memcpy(g, f, len);
	tf_put16(g + 34 + 4, 7);
	feed_exact(g, len);
	memcpy(g, f, len);
	tf_put16(g + 34 + 4, 21);
	feed_exact(g, len);

	/* IP payload shorter than a UDP header */
	memcpy(g, f, len);
	tf_put16(g + 14 + 2, 20 + 7);
	tf_put16(g + 14 + 10, 0);
	tf_put16(g + 14 + 10, tf_finish(tf_sum(g + 14, 20, 0)));
	feed_exact(g, len);
	ck_assert_uint_eq(net_stats.drop_malformed, 3);

	/* To a broadcast address, from 0.0.0.0 (not DHCP) */
	len = tf_udp_frame(g, 1, "192.0.2.10", "255.255.255.255", 40000, 53,
			   4);
	feed_exact(g, len);
	len = tf_udp_frame(g, 1, "0.0.0.0", "198.51.100.7", 40000, 53, 4);
	feed_exact(g, len);

	/* To a multicast group, from :: */
	len6 = tf_udp_frame(g, 0, "2001:db8:1:2::10", "ff02::fb", 5353, 5353,
			    4);
	feed_exact(g, len6);
	len6 = tf_udp_frame(g, 0, "::", "2001:db8:9::7", 40000, 53, 4);
	feed_exact(g, len6);

	/* --no-udp */
	ctx.no_udp = true;
	len = tf_udp_frame(g, 1, "192.0.2.10", "198.51.100.7", 40000, 53, 4);
	feed_exact(g, len);
	len6 = tf_udp_frame(g, 0, "2001:db8:1:2::10", "2001:db8:9::7", 40000,
			    53, 4);
	feed_exact(g, len6);

	ck_assert_uint_eq(net_stats.drop_unsupported, 6);
	ck_assert_uint_eq(net_stats.drop_malformed, 3);
	ck_assert_uint_eq(udp_call.n, 0);
	ck_assert_uint_eq(accounted(), 0);
}
END_TEST

/* DHCP and DHCPv6 */

START_TEST(test_dhcp_dispatch)
{
	uint8_t f[TF_FRAME_MAX];
	size_t len = tf_udp_frame(f, 1, "0.0.0.0", "255.255.255.255", 68, 67,
				  300);

	/* Consumed by the server: nothing else */
	feed(f, len);
	ck_assert_uint_eq(dhcp_call.n4, 1);
	ck_assert_ptr_eq(dhcp_call.payload, f + 42);
	ck_assert_uint_eq(dhcp_call.len, 300);
	ck_assert_uint_eq(udp_call.n, 0);
	ck_assert_mem_eq(guest_mac(), tf_guest_mac, 6);
	ck_assert_uint_eq(guest_addr4().s_addr, 0);
	ck_assert_uint_eq(accounted(), 0);

	/* Declined, broadcast: dropped by the UDP path */
	dhcp_call.consume = false;
	feed(f, len);
	ck_assert_uint_eq(dhcp_call.n4, 2);
	ck_assert_uint_eq(net_stats.drop_unsupported, 1);

	/* Declined, unicast to the gateway: to udp/ */
	len = tf_udp_frame(f, 1, "192.0.2.10", "192.0.2.1", 68, 67, 300);
	feed(f, len);
	ck_assert_uint_eq(dhcp_call.n4, 3);
	ck_assert_uint_eq(udp_call.n, 1);
	ck_assert_uint_eq(accounted(), 0);

	/* --no-dhcp: the server is not asked */
	dhcp_call.consume = true;
	ctx.no_dhcp = true;
	len = tf_udp_frame(f, 1, "0.0.0.0", "255.255.255.255", 68, 67, 300);
	feed(f, len);
	ck_assert_uint_eq(dhcp_call.n4, 3);
	ck_assert_uint_eq(net_stats.drop_unsupported, 2);

	/* Port 547 over IPv4 is not DHCPv6, 67 over IPv6 is not DHCP */
	ctx.no_dhcp = false;
	len = tf_udp_frame(f, 1, "192.0.2.10", "192.0.2.1", 546, 547, 40);
	feed(f, len);
	len = tf_udp_frame(f, 0, "fe80::5054:ff:fe12:3456", "ff02::1:2", 68,
			   67, 40);
	feed(f, len);
	ck_assert_uint_eq(dhcp_call.n4 + dhcp_call.n6, 3);
	ck_assert_uint_eq(udp_call.n, 2);
	ck_assert_uint_eq(net_stats.drop_unsupported, 3);
	ck_assert_uint_eq(accounted(), 0);
}
END_TEST

START_TEST(test_dhcpv6_dispatch)
{
	uint8_t f[TF_FRAME_MAX];
	size_t len = tf_udp_frame(f, 0, "fe80::5054:ff:fe12:3456", "ff02::1:2",
				  546, 547, 60);
	struct in6_addr s;

	feed(f, len);
	ck_assert_uint_eq(dhcp_call.n6, 1);
	ck_assert_ptr_eq(dhcp_call.payload, f + 62);
	ck_assert_uint_eq(dhcp_call.len, 60);
	inet_pton(AF_INET6, "fe80::5054:ff:fe12:3456", &s);
	ck_assert_mem_eq(&dhcp_call.saddr6, &s, 16);
	ck_assert_mem_eq(guest_addr6_ll(), &s, 16);
	ck_assert_uint_eq(udp_call.n, 0);
	ck_assert_uint_eq(accounted(), 0);

	/* Declined, to a multicast group: dropped by the UDP path */
	dhcp_call.consume = false;
	feed(f, len);
	ck_assert_uint_eq(dhcp_call.n6, 2);
	ck_assert_uint_eq(net_stats.drop_unsupported, 1);

	/* --no-dhcpv6: the server is not asked */
	dhcp_call.consume = true;
	ctx.no_dhcpv6 = true;
	feed(f, len);
	ck_assert_uint_eq(dhcp_call.n6, 2);
	ck_assert_uint_eq(net_stats.drop_unsupported, 2);
	ck_assert_uint_eq(accounted(), 0);
}
END_TEST

/* ICMP */

START_TEST(test_icmp_echo)
{
	uint8_t f[TF_FRAME_MAX];
	size_t len = tf_echo_frame(f, 1, "192.0.2.10", "198.51.100.7", 77, 56);
	struct in_addr d;
	struct in6_addr d6;

	feed(f, len);
	ck_assert_uint_eq(icmp_call.n, 1);
	inet_pton(AF_INET, "198.51.100.7", &d);
	ck_assert_ptr_nonnull(inany_v4(&icmp_call.daddr));
	ck_assert_uint_eq(inany_v4(&icmp_call.daddr)->s_addr, d.s_addr);
	ck_assert_ptr_eq(icmp_call.l4, f + 34);
	ck_assert_uint_eq(icmp_call.l4len, 64);
	ck_assert_uint_eq(icmp_call.now_ms, 1234);

	len = tf_echo_frame(f, 0, "2001:db8:1:2::10", "2001:db8:9::7", 77, 56);
	feed(f, len);
	ck_assert_uint_eq(icmp_call.n, 2);
	inet_pton(AF_INET6, "2001:db8:9::7", &d6);
	ck_assert_ptr_null(inany_v4(&icmp_call.daddr));
	ck_assert_mem_eq(&icmp_call.daddr.a6, &d6, 16);
	ck_assert_ptr_eq(icmp_call.l4, f + 54);
	ck_assert_uint_eq(icmp_call.l4len, 64);
	ck_assert_uint_eq(accounted(), 0);
}
END_TEST

START_TEST(test_icmp_dropped)
{
	uint8_t f[TF_FRAME_MAX];
	size_t len;

	/* Echo replies, and ICMPv6 echo with a non-zero code */
	len = tf_echo_frame(f, 1, "192.0.2.10", "198.51.100.7", 77, 8);
	f[34] = 0;
	feed_exact(f, len);
	len = tf_echo_frame(f, 0, "2001:db8:1:2::10", "2001:db8:9::7", 77, 8);
	f[54] = 129;
	tf_icmp6_csum(f);
	feed_exact(f, len);
	len = tf_echo_frame(f, 0, "2001:db8:1:2::10", "2001:db8:9::7", 77, 8);
	f[55] = 1;
	tf_icmp6_csum(f);
	feed_exact(f, len);

	/* To broadcast and multicast addresses */
	len = tf_echo_frame(f, 1, "192.0.2.10", "192.0.2.255", 77, 8);
	inet_pton(AF_INET, "255.255.255.255", f + 30);
	tf_put16(f + 24, 0);
	tf_put16(f + 24, tf_finish(tf_sum(f + 14, 20, 0)));
	feed_exact(f, len);
	len = tf_echo_frame(f, 0, "2001:db8:1:2::10", "ff02::1", 77, 8);
	feed_exact(f, len);

	/* --no-icmp */
	ctx.no_icmp = true;
	len = tf_echo_frame(f, 1, "192.0.2.10", "198.51.100.7", 77, 8);
	feed_exact(f, len);
	len = tf_echo_frame(f, 0, "2001:db8:1:2::10", "2001:db8:9::7", 77, 8);
	feed_exact(f, len);
	ck_assert_uint_eq(net_stats.drop_unsupported, 7);

	/* ICMP shorter than an echo header */
	ctx.no_icmp = false;
	len = tf_echo_frame(f, 1, "192.0.2.10", "198.51.100.7", 77, 0);
	tf_put16(f + 14 + 2, 20 + 7);
	tf_put16(f + 24, 0);
	tf_put16(f + 24, tf_finish(tf_sum(f + 14, 20, 0)));
	feed_exact(f, len - 1);
	ck_assert_uint_eq(net_stats.drop_malformed, 1);

	ck_assert_uint_eq(icmp_call.n, 0);
	ck_assert_uint_eq(accounted(), 0);
}
END_TEST

START_TEST(test_input_done)
{
	net_input_done(&ctx);
	ck_assert_uint_eq(input_done_calls, 1);
}
END_TEST

/* Fuzzing */

/**
 * fuzz_one() - mutate a frame a little and feed it
 * @base:	valid frame
 * @len:	its length
 */
static void fuzz_one(const uint8_t *base, size_t len)
{
	uint8_t g[TF_FRAME_MAX];
	size_t glen = len;
	int k, muts = 1 + (int)(random() % 4);

	memcpy(g, base, len);
	for (k = 0; k < muts; k++) {
		switch (random() % 5) {
		case 0:		/* flip a byte */
			g[(size_t)random() % len] ^=
				(uint8_t)(1 + random() % 255);
			break;
		case 1:		/* random byte */
			g[(size_t)random() % len] = (uint8_t)random();
			break;
		case 2:		/* truncate */
			glen = (size_t)random() % (glen + 1);
			break;
		case 3:		/* hit a length-like field in the headers */
			g[12 + (size_t)random() % 50 % len] =
				(uint8_t)random();
			break;
		default:	/* extend with garbage */
			if (glen + 16 <= sizeof(g)) {
				size_t j;

				for (j = 0; j < 16; j++)
					g[glen + j] = (uint8_t)random();
				glen += 16;
			}
			break;
		}
	}

	/* Sometimes fix the checksums so that deeper code runs */
	if (glen >= 54 && tf_get16(g + 12) == 0x86dd && g[20] == 58 &&
	    54 + (size_t)tf_get16(g + 18) <= glen && tf_get16(g + 18) >= 4 &&
	    random() % 2)
		tf_icmp6_csum(g);
	if (glen >= 34 && tf_get16(g + 12) == 0x0800 && random() % 2) {
		size_t ihl = (size_t)(g[14] & 0xf) * 4;

		if (ihl >= 20 && 14 + ihl <= glen) {
			tf_put16(g + 24, 0);
			tf_put16(g + 24, tf_finish(tf_sum(g + 14, ihl, 0)));
		}
	}

	feed_exact(g, glen);
}

#define FUZZ_KINDS	12

START_TEST(test_fuzz)
{
	uint8_t frames[FUZZ_KINDS][TF_FRAME_MAX];
	size_t lens[FUZZ_KINDS];
	long i;

	srandom(42);
	lens[0] = tf_tcp4_frame(frames[0], 30);
	lens[1] = tf_tcp6_frame(frames[1], 30);
	lens[2] = tf_arp_frame(frames[2], 1, "192.0.2.10", "192.0.2.1");
	lens[3] = tf_ns_frame(frames[3], "fe80::5054:ff:fe12:3456", "fe80::1",
			      1);
	lens[4] = tf_rs_frame(frames[4], "fe80::5054:ff:fe12:3456");
	lens[5] = tf_ns_frame(frames[5], "::", "fe80::9855:9aff:fe55:9a55", 0);
	lens[6] = tf_udp_frame(frames[6], 1, "192.0.2.10", "198.51.100.7",
			       40000, 53, 20);
	lens[7] = tf_udp_frame(frames[7], 0, "2001:db8:1:2::10",
			       "2001:db8:9::7", 40000, 53, 20);
	lens[8] = tf_udp_frame(frames[8], 1, "0.0.0.0", "255.255.255.255", 68,
			       67, 30);
	lens[9] = tf_udp_frame(frames[9], 0, "fe80::5054:ff:fe12:3456",
			       "ff02::1:2", 546, 547, 30);
	lens[10] = tf_echo_frame(frames[10], 1, "192.0.2.10", "198.51.100.7",
				 7, 16);
	lens[11] = tf_echo_frame(frames[11], 0, "2001:db8:1:2::10",
				 "2001:db8:9::7", 7, 16);

	for (i = 0; i < 150000; i++) {
		int k = (int)(random() % FUZZ_KINDS);

		/* DHCP servers take or decline what they are given */
		dhcp_call.consume = random() % 2;
		fuzz_one(frames[k], lens[k]);
		ck_assert_int_eq(accounted(), 0);
		ck_assert_int_eq(balance(), 0);
		sent.n = 0;
	}
	ck_assert_uint_eq(net_stats.to_tcp, tcp_call.n);
	ck_assert_uint_eq(net_stats.to_udp, udp_call.n);
	ck_assert_uint_eq(net_stats.to_icmp, icmp_call.n);
	ck_assert_uint_eq(net_stats.to_dhcp, dhcp_call.consumed);
	ck_assert_uint_eq(net_stats.to_arp, net_stats.arp_replies);
	ck_assert_uint_gt(udp_call.n, 0);
	ck_assert_uint_gt(icmp_call.n, 0);
	ck_assert_uint_gt(dhcp_call.consumed, 0);

	/* Each kind still works after all that */
	for (i = 0; i < FUZZ_KINDS; i++) {
		setup();
		if (i < 2)
			feed(frames[i], lens[i]);
		else
			feed_exact(frames[i], lens[i]);
		ck_assert_uint_eq(sent.n + delivered(), 1);
	}
}
END_TEST

/**
 * net_io_suite() - build the test suite
 *
 * Return: suite
 */
static Suite *net_io_suite(void)
{
	Suite *s = suite_create("net_io");
	TCase *tc = tcase_create("core");
	TCase *fz = tcase_create("fuzz");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_tcp4_delivered);
	tcase_add_test(tc, test_tcp4_options_skipped);
	tcase_add_test(tc, test_tcp6_delivered);
	tcase_add_test(tc, test_tcp6_ext_headers);
	tcase_add_test(tc, test_tcp_options_doff);
	tcase_add_test(tc, test_udp_delivered);
	tcase_add_test(tc, test_udp_dropped);
	tcase_add_test(tc, test_dhcp_dispatch);
	tcase_add_test(tc, test_dhcpv6_dispatch);
	tcase_add_test(tc, test_icmp_echo);
	tcase_add_test(tc, test_icmp_dropped);
	tcase_add_test(tc, test_input_done);
	suite_add_tcase(s, tc);

	tcase_add_checked_fixture(fz, setup, NULL);
	tcase_add_test(fz, test_fuzz);
	tcase_set_timeout(fz, 300);
	suite_add_tcase(s, fz);

	return s;
}

/**
 * main() - run the net input tests
 *
 * Return: 0 if all passed
 */
int main(void)
{
	SRunner *sr = srunner_create(net_io_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);

	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
