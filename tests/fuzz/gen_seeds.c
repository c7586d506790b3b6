// SPDX-License-Identifier: GPL-2.0-or-later
/* gen_seeds.c - write the seed corpus of the fuzz targets
 *
 * Theory of operation
 *
 * Usage: gen_seeds DIR, e.g. gen_seeds tests/fuzz/corpus. For each target
 * it writes DIR/TARGET/NAME files: a handful of valid inputs in the
 * target's own input format (see each fuzz_*.c), built with the same
 * frame builders as the harness (fuzz_build.h); the vhost-user targets'
 * seeds replay recorded traffic (gen_seeds_vu.c). The output is
 * committed; run it again after changing an input format.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_build.h"
#include "gen_seeds.h"

static uint8_t gen_frame[FZ_FRAME_MAX];
static const char *gen_dir;

/**
 * gen_write() - write one seed file
 * @target:	target name (subdirectory)
 * @name:	file name
 * @data:	contents
 * @len:	length
 */
void gen_write(const char *target, const char *name, const void *data,
	       size_t len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", gen_dir, target);
	if (mkdir(path, 0755) && errno != EEXIST) {
		perror(path);
		exit(1);
	}
	snprintf(path, sizeof(path), "%s/%s/%s", gen_dir, target, name);
	f = fopen(path, "wb");
	if (!f || fwrite(data, 1, len, f) != len || fclose(f)) {
		perror(path);
		exit(1);
	}
}

/**
 * gen_copy() - copy bytes given as a string literal, without its NUL
 * @dst:	destination
 * @src:	bytes
 * @len:	how many
 */
static void gen_copy(uint8_t *dst, const char *src, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		dst[i] = (uint8_t)src[i];
}

/**
 * gen_dhcp4() - a DHCPv4 message with options
 * @buf:	output, at least 300 bytes
 * @type:	message type (1 DISCOVER, 3 REQUEST, 8 INFORM)
 *
 * Return: length
 */
static size_t gen_dhcp4(uint8_t *buf, uint8_t type)
{
	static const uint8_t prl[] = { 1, 3, 6, 12, 15, 26, 28, 51, 119, 121 };
	size_t n = 240;

	memset(buf, 0, 240);
	buf[0] = 1;			/* BOOTREQUEST */
	buf[1] = 1;			/* Ethernet */
	buf[2] = 6;
	fz_put32(buf + 4, 0x12345678);	/* xid */
	fz_put16(buf + 10, 0x8000);	/* broadcast */
	memcpy(buf + 28, fz_guest_mac, 6);
	fz_put32(buf + 236, 0x63825363);	/* magic cookie */

	buf[n++] = 53;
	buf[n++] = 1;
	buf[n++] = type;
	if (type == 3) {
		buf[n++] = 50;
		buf[n++] = 4;
		memcpy(buf + n, fz_guest4, 4);
		n += 4;
		buf[n++] = 54;
		buf[n++] = 4;
		memcpy(buf + n, fz_gw4, 4);
		n += 4;
		buf[n++] = 81;		/* client FQDN */
		buf[n++] = 7;
		buf[n++] = 0;
		buf[n++] = 0;
		buf[n++] = 0;
		memcpy(buf + n, "\003vm1", 4);
		n += 4;
	}
	buf[n++] = 57;
	buf[n++] = 2;
	fz_put16(buf + n, 1500);
	n += 2;
	buf[n++] = 61;			/* client identifier */
	buf[n++] = 7;
	buf[n++] = 1;
	memcpy(buf + n, fz_guest_mac, 6);
	n += 6;
	buf[n++] = 55;
	buf[n++] = sizeof(prl);
	memcpy(buf + n, prl, sizeof(prl));
	n += sizeof(prl);
	buf[n++] = 255;
	while (n < 300)
		buf[n++] = 0;
	return n;
}

/**
 * gen_dhcp6() - a DHCPv6 message with client ID, IA_NA and option request
 * @buf:	output, at least 128 bytes
 * @type:	message type (1 SOLICIT, 3 REQUEST, 11 INFORMATION-REQUEST)
 *
 * Return: length
 */
static size_t gen_dhcp6(uint8_t *buf, uint8_t type)
{
	size_t n = 4;

	buf[0] = type;
	buf[1] = 0xab;			/* transaction ID */
	buf[2] = 0xcd;
	buf[3] = 0xef;

	fz_put16(buf + n, 1);		/* client ID: DUID-LL */
	fz_put16(buf + n + 2, 10);
	fz_put16(buf + n + 4, 3);
	fz_put16(buf + n + 6, 1);
	memcpy(buf + n + 8, fz_guest_mac, 6);
	n += 14;

	if (type == 3) {		/* server ID: the relay's DUID-LL */
		fz_put16(buf + n, 2);
		fz_put16(buf + n + 2, 10);
		fz_put16(buf + n + 4, 3);
		fz_put16(buf + n + 6, 1);
		memcpy(buf + n + 8, fz_our_mac, 6);
		n += 14;
	}

	if (type != 11) {		/* IA_NA with IAID 1, an address */
		fz_put16(buf + n, 3);
		fz_put16(buf + n + 2, 12 + 28);
		fz_put32(buf + n + 4, 1);
		fz_put32(buf + n + 8, 0);
		fz_put32(buf + n + 12, 0);
		n += 16;
		fz_put16(buf + n, 5);	/* IA address */
		fz_put16(buf + n + 2, 24);
		memcpy(buf + n + 4, fz_guest6, 16);
		fz_put32(buf + n + 20, 3600);
		fz_put32(buf + n + 24, 7200);
		n += 28;
	}

	fz_put16(buf + n, 6);		/* option request: DNS, domains, FQDN */
	fz_put16(buf + n + 2, 6);
	fz_put16(buf + n + 4, 23);
	fz_put16(buf + n + 6, 24);
	fz_put16(buf + n + 8, 39);
	n += 10;

	fz_put16(buf + n, 8);		/* elapsed time */
	fz_put16(buf + n + 2, 2);
	fz_put16(buf + n + 4, 0);
	n += 6;

	if (type == 3) {		/* client FQDN */
		fz_put16(buf + n, 39);
		fz_put16(buf + n + 2, 5);
		gen_copy(buf + n + 4, "\001\003vm1", 5);
		n += 9;
	}
	return n;
}

/**
 * gen_frames() - seeds of fuzz_frame: whole frames of every kind
 */
static void gen_frames(void)
{
	static const uint8_t mss[] = { 2, 4, 0x05, 0xb4, 1, 3, 3, 7,
				       4, 2, 1, 1 };
	static const uint8_t remote4[4] = { 192, 0, 2, 1 };
	uint8_t msg[512], *f = gen_frame;
	struct fz_tcp_seg s = {
		.sport = 40000, .dport = FZ_TCP_PORT, .seq = 1000,
		.flags = FZ_TCP_SYN, .win = 65535,
		.opts = mss, .optlen = sizeof(mss),
	};
	size_t n, off;

	/* ARP request for the gateway */
	off = fz_eth(f, fz_bcast_mac, fz_guest_mac, FZ_ETH_ARP);
	gen_copy(msg, "\x00\x01\x08\x00\x06\x04\x00\x01", 8);
	memcpy(msg + 8, fz_guest_mac, 6);
	memcpy(msg + 14, fz_guest4, 4);
	memset(msg + 18, 0, 6);
	memcpy(msg + 24, fz_gw4, 4);
	memcpy(f + off, msg, 28);
	gen_write("fuzz_frame", "arp_request", f, off + 28);

	n = fz_tcp(f, 0, fz_guest4, fz_gw4, &s);
	gen_write("fuzz_frame", "tcp4_syn", f, n);
	n = fz_tcp(f, 1, fz_guest6, fz_gw6, &s);
	gen_write("fuzz_frame", "tcp6_syn", f, n);
	s.flags = FZ_TCP_ACK | FZ_TCP_PSH;
	s.optlen = 0;
	s.data = (const uint8_t *)"hello";
	s.len = 5;
	n = fz_tcp(f, 0, fz_guest4, remote4, &s);
	gen_write("fuzz_frame", "tcp4_data_nonflow", f, n);

	n = fz_udp(f, 0, fz_guest4, fz_gw4, 41000, FZ_UDP_PORT,
		   (const uint8_t *)"ping", 4);
	gen_write("fuzz_frame", "udp4_echo", f, n);
	n = fz_udp(f, 1, fz_guest6, fz_gw6, 41000, FZ_UDP_PORT,
		   (const uint8_t *)"ping", 4);
	gen_write("fuzz_frame", "udp6_echo", f, n);

	gen_copy(msg, "\x12\x34\x00\x01" "abcdefgh", 12);
	n = fz_icmp(f, 0, fz_guest4, fz_gw4, 64, 8, 0, msg, 12);
	gen_write("fuzz_frame", "icmp4_echo", f, n);
	n = fz_icmp(f, 1, fz_guest6, fz_gw6, 64, 128, 0, msg, 12);
	gen_write("fuzz_frame", "icmp6_echo", f, n);

	/* Router solicitation with a source link-layer address option */
	memset(msg, 0, 4);
	msg[4] = 1;
	msg[5] = 1;
	memcpy(msg + 6, fz_guest_mac, 6);
	n = fz_icmp(f, 1, fz_guest_ll6, fz_allrouters6, 255, 133, 0, msg, 12);
	gen_write("fuzz_frame", "ndp_rs", f, n);

	n = gen_dhcp4(msg, 1);
	n = fz_udp(f, 0, fz_any4, fz_bcast4, 68, 67, msg, n);
	gen_write("fuzz_frame", "dhcp_discover", f, n);
	n = gen_dhcp6(msg, 1);
	n = fz_udp(f, 1, fz_guest_ll6, fz_dhcp6_mc, 546, 547, msg, n);
	gen_write("fuzz_frame", "dhcpv6_solicit", f, n);

	/* An IPv4 fragment and an IPv6 packet with a hop-by-hop header */
	n = fz_udp(f, 0, fz_guest4, fz_gw4, 41001, FZ_UDP_PORT,
		   (const uint8_t *)"frag", 4);
	f[14 + 6] = 0x20;		/* MF */
	gen_write("fuzz_frame", "ip4_fragment", f, n);
	n = fz_udp(f, 1, fz_guest6, fz_gw6, 41002, FZ_UDP_PORT,
		   (const uint8_t *)"12345678", 8);
	memmove(f + 14 + 48, f + 14 + 40, n - 14 - 40);
	memset(f + 14 + 40, 0, 8);
	f[14 + 40] = FZ_PROTO_UDP;	/* next header of hop-by-hop */
	f[14 + 6] = 0;			/* hop-by-hop */
	fz_put16(f + 14 + 4, (uint16_t)(n - 14 - 40 + 8));
	gen_write("fuzz_frame", "ip6_hopbyhop", f, n + 8);
}

/**
 * gen_tcp() - seeds of fuzz_tcp: segment records after the handshake
 */
static void gen_tcp(void)
{
	uint8_t in[256];
	size_t n;

	/* Format (fuzz_tcp.c): family and direction byte, then records
	 * of flags, seq offset (2), ack offset (2), window (2), options
	 * length, payload length (2), options, payload
	 */
	n = 0;
	in[n++] = 0;
	in[n++] = FZ_TCP_ACK | FZ_TCP_PSH;
	fz_put16(in + n, 0);
	fz_put16(in + n + 2, 0);
	fz_put16(in + n + 4, 65535);
	n += 6;
	in[n++] = 0;
	fz_put16(in + n, 5);
	n += 2;
	memcpy(in + n, "hello", 5);
	n += 5;
	in[n++] = FZ_TCP_ACK | FZ_TCP_FIN;
	fz_put16(in + n, 0);
	fz_put16(in + n + 2, 0);
	fz_put16(in + n + 4, 65535);
	n += 6;
	in[n++] = 0;
	fz_put16(in + n, 0);
	n += 2;
	gen_write("fuzz_tcp", "data_fin_v4", in, n);
	in[0] = 1;
	gen_write("fuzz_tcp", "data_fin_v6", in, n);
	in[0] = 2;
	gen_write("fuzz_tcp", "in_data_fin_v4", in, n);
	in[0] = 3;
	gen_write("fuzz_tcp", "in_data_fin_v6", in, n);

	/* Out of order data, a duplicate ACK with SACK, a zero window */
	n = 0;
	in[n++] = 0;
	in[n++] = FZ_TCP_ACK;
	fz_put16(in + n, 100);
	fz_put16(in + n + 2, 0);
	fz_put16(in + n + 4, 4096);
	n += 6;
	in[n++] = 0;
	fz_put16(in + n, 8);
	n += 2;
	memcpy(in + n, "ABCDEFGH", 8);
	n += 8;
	in[n++] = FZ_TCP_ACK;
	fz_put16(in + n, 0);
	fz_put16(in + n + 2, 0);
	fz_put16(in + n + 4, 0);
	n += 6;
	in[n++] = 3;		/* 12 bytes of options */
	fz_put16(in + n, 0);
	n += 2;
	memcpy(in + n, "\x01\x01\x05\x0a\x00\x00\x00\x10\x00\x00\x00\x20",
	       12);
	n += 12;
	in[n++] = FZ_TCP_RST;
	memset(in + n, 0, 9);
	n += 9;
	gen_write("fuzz_tcp", "ooo_sack_rst", in, n);
}

/**
 * gen_udp_icmp() - seeds of fuzz_udp_icmp
 */
static void gen_udp_icmp(void)
{
	uint8_t in[64];

	/* Format (fuzz_udp_icmp.c): selector, 4 header bytes, payload */
	gen_copy(in, "\x40\xa0\x00\x00\x00" "echo me", 12);
	gen_write("fuzz_udp_icmp", "udp4_echo", in, 12);
	in[0] = 0x41;
	gen_write("fuzz_udp_icmp", "udp6_echo", in, 12);
	memcpy(in, "\x04\x9c\x41\x00\x35" "\x12\x34\x01\x00\x00\x01\x00\x00"
	       "\x00\x00\x00\x00\x03www\x07" "example\x03org\x00\x00\x01\x00\x01",
	       5 + 33);
	gen_write("fuzz_udp_icmp", "udp4_dns", in, 5 + 33);
	gen_copy(in, "\x02\x08\x00\x12\x34" "\x00\x01" "abcdefgh", 15);
	gen_write("fuzz_udp_icmp", "icmp4_echo", in, 15);
	gen_copy(in, "\x03\x80\x00\x12\x34" "\x00\x01" "abcdefgh", 15);
	gen_write("fuzz_udp_icmp", "icmp6_echo", in, 15);
	gen_copy(in, "\x08\xa0\x00\x00\x35" "remote", 11);
	gen_write("fuzz_udp_icmp", "udp4_unreachable", in, 11);
}

/**
 * gen_dhcp() - seeds of fuzz_dhcp: selector byte, then the message
 */
static void gen_dhcp(void)
{
	static const uint8_t types4[] = { 1, 3, 8 };
	static const uint8_t types6[] = { 1, 3, 11 };
	uint8_t in[1024];
	char name[32];
	size_t i, n;

	for (i = 0; i < sizeof(types4); i++) {
		in[0] = 0;
		n = gen_dhcp4(in + 1, types4[i]);
		snprintf(name, sizeof(name), "dhcp4_type%u", types4[i]);
		gen_write("fuzz_dhcp", name, in, n + 1);
	}
	for (i = 0; i < sizeof(types6); i++) {
		in[0] = 1;
		n = gen_dhcp6(in + 1, types6[i]);
		snprintf(name, sizeof(name), "dhcp6_type%u", types6[i]);
		gen_write("fuzz_dhcp", name, in, n + 1);
	}
}

/**
 * gen_ndp() - seeds of fuzz_ndp: selector, type, code, message body
 */
static void gen_ndp(void)
{
	uint8_t in[64];

	/* RS from the guest's link-local address: reserved, then SLLA */
	memset(in, 0, sizeof(in));
	in[0] = 0x00;
	in[1] = 133;
	in[7] = 1;
	in[8] = 1;
	memcpy(in + 9, fz_guest_mac, 6);
	gen_write("fuzz_ndp", "rs", in, 15);

	/* NS for the relay's link-local address, to its solicited-node
	 * group, with SLLA
	 */
	memset(in, 0, sizeof(in));
	in[0] = 0x04;
	in[1] = 135;
	memcpy(in + 7, fz_our_ll6, 16);
	in[23] = 1;
	in[24] = 1;
	memcpy(in + 25, fz_guest_mac, 6);
	gen_write("fuzz_ndp", "ns", in, 31);

	/* DAD NS from :: for the guest's own address */
	memset(in, 0, sizeof(in));
	in[0] = 0x01;
	in[1] = 135;
	memcpy(in + 7, fz_guest6, 16);
	gen_write("fuzz_ndp", "ns_dad", in, 23);

	/* Unsolicited NA from the guest */
	memset(in, 0, sizeof(in));
	in[0] = 0x0c;
	in[1] = 136;
	in[3] = 0x20;
	memcpy(in + 7, fz_guest_ll6, 16);
	in[23] = 2;
	in[24] = 1;
	memcpy(in + 25, fz_guest_mac, 6);
	gen_write("fuzz_ndp", "na", in, 31);
}

/**
 * gen_conf() - seeds of fuzz_conf: mode byte, NUL-separated arguments
 */
static void gen_conf(void)
{
	static const char passt1[] = "\0-f\0-a\0" "10.0.2.15/24\0-g\0"
		"10.0.2.2\0-t\0" "22,80:8080,1000-1010\0-u\0" "~53\0-D\0"
		"1.1.1.1\0-S\0" "a.example,b.example\0--mtu\0" "1500";
	static const char passt2[] = "\0-6\0-a\0" "2001:db8::2/64\0"
		"--map-host-loopback\0" "2001:db8::1\0--dns-forward\0fd00::3"
		"\0--no-dhcp\0-M\0" "02:00:00:00:00:01\0--max-flows\0" "4096";
	static const char pasta1[] = "\x01-t\0auto\0-T\0" "8000-8010:9000"
		"\0-u\0none\0--config-net\0--netns\0testns\0--ns-mac-addr\0"
		"9a:00:00:00:00:01\0-I\0tap9";
	static const char pasta2[] = "\x01--netns-only\0--userns\0"
		"/proc/1/ns/user\0" "1234\0--no-splice\0-o\0" "192.0.2.5";
	static const char help[] = "\0--help";

	gen_write("fuzz_conf", "passt_basic", passt1, sizeof(passt1) - 1);
	gen_write("fuzz_conf", "passt_v6", passt2, sizeof(passt2) - 1);
	gen_write("fuzz_conf", "pasta_ports", pasta1, sizeof(pasta1) - 1);
	gen_write("fuzz_conf", "pasta_ns", pasta2, sizeof(pasta2) - 1);
	gen_write("fuzz_conf", "help", help, sizeof(help) - 1);
}

/**
 * gen_pesto_rule() - one rule of the configuration protocol
 * @p:		56 bytes, set
 * @first:	first port
 * @last:	last port
 * @to:		target of @first
 * @proto:	6 (TCP) or 17 (UDP)
 * @flags:	1: any address of both families, 2: best effort, 4: auto
 * @ifname:	interface, NULL for none
 */
static void gen_pesto_rule(uint8_t *p, unsigned int first, unsigned int last,
			   unsigned int to, uint8_t proto, uint8_t flags,
			   const char *ifname)
{
	memset(p, 0, 56);
	if (ifname)
		snprintf((char *)p + 32, 16, "%s", ifname);
	p[48] = (uint8_t)(first >> 8);
	p[49] = (uint8_t)first;
	p[50] = (uint8_t)(last >> 8);
	p[51] = (uint8_t)last;
	p[52] = (uint8_t)(to >> 8);
	p[53] = (uint8_t)to;
	p[54] = proto;
	p[55] = flags;
}

/**
 * gen_pesto() - seeds of fuzz_pesto: set-up byte, then a client's update
 */
static void gen_pesto(void)
{
	uint8_t in[1 + 2 * (5 + 3 * 56) + 1], *p = in;
	static const uint8_t empty[] = { 0x01, 0x00 };
	static const uint8_t bad[] = { 0x01, 0x01, 0xff, 0xff, 0xff, 0xff };

	*p++ = 0x31;			/* pasta, 8-byte pieces */
	*p++ = 1;			/* HOST: -t 8080, -t 9000-9004:19000 */
	*p++ = 0, *p++ = 0, *p++ = 0, *p++ = 3;
	gen_pesto_rule(p, 8080, 8080, 8080, 6, 1, NULL);
	gen_pesto_rule(p + 56, 9000, 9004, 19000, 6, 1, NULL);
	gen_pesto_rule(p + 112, 1, 32767, 1, 17, 3, NULL);
	p += 3 * 56;
	*p++ = 3;			/* SPLICE: -T 3000 */
	*p++ = 0, *p++ = 0, *p++ = 0, *p++ = 1;
	gen_pesto_rule(p, 3000, 3000, 3000, 6, 1, "lo");
	p += 56;
	*p++ = 0;
	gen_write("fuzz_pesto", "update", in, (size_t)(p - in));

	p = in;
	*p++ = 0x08 | 0x01;		/* "auto" in force, 1-byte pieces */
	*p++ = 1;
	*p++ = 0, *p++ = 0, *p++ = 0, *p++ = 2;
	gen_pesto_rule(p, 1, 14, 1, 6, 7, NULL);
	gen_pesto_rule(p + 56, 16, 65535, 16, 6, 7, NULL);
	p += 2 * 56;
	*p++ = 0;
	gen_write("fuzz_pesto", "keep_auto", in, (size_t)(p - in));

	gen_write("fuzz_pesto", "empty", empty, sizeof(empty));
	gen_write("fuzz_pesto", "too_many", bad, sizeof(bad));
}

/**
 * main() - write every target's seeds
 * @argc:	argument count
 * @argv:	program name, output directory
 *
 * Return: 0 on success
 */
int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "Usage: %s DIR\n", argv[0]);
		return 1;
	}
	gen_dir = argv[1];
	if (mkdir(gen_dir, 0755) && errno != EEXIST) {
		perror(gen_dir);
		return 1;
	}

	gen_frames();
	gen_tcp();
	gen_udp_icmp();
	gen_dhcp();
	gen_ndp();
	gen_conf();
	gen_pesto();
	gen_vu();
	gen_stream();
	gen_pesto_reply();
	return 0;
}
