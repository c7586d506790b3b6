// SPDX-License-Identifier: GPL-2.0-or-later
/* frame_storm.c - inject random, mutated and flooding frames on a device
 *
 * Theory of operation
 *
 * A frame sent with an AF_PACKET socket on a tap device is handed to the
 * tap's reader: the relay itself (pasta), or tests/tools/tap_bridge, which
 * passes it on through the relay's stream socket (passt). This tool writes
 * only to the one interface it is given, which the test scripts create
 * inside a network namespace of their own: nothing it sends can reach a
 * real host. Every frame comes from one seeded generator (xorshift64*), so
 * a run is reproduced by its seed.
 *
 *   frame_storm [options] IFNAME
 *	Send COUNT frames, each one of:
 *	- random: random length (14 to 1514 bytes), random bytes;
 *	- valid: a well-formed template aimed at the relay's gateway (ARP
 *	  request, IPv4/IPv6 TCP SYN, UDP, ICMP/ICMPv6 echo request, DHCP
 *	  discover, DHCPv6 solicit, NDP neighbour solicitation), checksums
 *	  right;
 *	- mutated: a template with one to three mutations: bit flips past
 *	  the Ethernet addresses, truncation, random trailing bytes, a bad IP
 *	  length, a bad IP version, a bad header length, a bad IPv4 header
 *	  checksum, a bad L4 checksum, an IPv4 fragment, bogus IPv4 or TCP
 *	  options, bogus IPv6 extension headers.
 *	The Ethernet source is the interface's own address (the guest's), so
 *	that junk does not teach the relay another guest MAC address; random
 *	frames are random throughout.
 *	With --inject PATH, one frame in STORM_SHORT_EVERY (in the mix
 *	above, at random) is instead 0 to 13 bytes long, shorter than an
 *	Ethernet header: no device can send that, so it goes as a datagram
 *	to PATH, the injection socket of tests/tools/tap_bridge or vu_bridge,
 *	which hand it to the relay as one frame. Counted as "short".
 *
 *   frame_storm --inject PATH --lengths LIST [options]
 *	Send one frame of random bytes of each length in LIST (lengths and
 *	ranges, "0-13,65554", at most STORM_INJECT_MAX) through PATH, in
 *	that order, and nothing else.
 *
 *	Some frames are built so that the relay's input parser must drop
 *	them: random frames with an EtherType other than ARP, IPv4 and IPv6,
 *	and frames with a bad IP version, IPv4 header length or header
 *	checksum, an IP length past the end of the frame, or an IPv4
 *	fragment flag. They are counted as "must_drop": the test compares
 *	that count with the relay's drop counters. L4 checksums are not
 *	checked by the relay (a guest may leave them to offloads), so frames
 *	with only a bad L4 checksum are not among them. Template ports and
 *	echo identifiers come from small pools (UDP and ICMP flows are
 *	bounded), toward ports nothing listens on.
 *
 *   frame_storm --flood KIND [options] IFNAME
 *	Send COUNT valid frames of one kind:
 *	- syn (also --syn-flood): TCP SYNs from random addresses of the
 *	  given IPv4 /24 (last byte 3 to 254) and random ports, to the
 *	  gateway, on the ports of --ports in turn;
 *	- dhcp: DHCP messages the relay logs, alternating a DHCPDECLINE of
 *	  the --src4 address (a warning) and a DHCPREQUEST for
 *	  STORM_DHCP_OTHER, not the guest's address (answered with a NAK,
 *	  logged as info), both broadcast from 0.0.0.0 as a client sends
 *	  them;
 *	- echo: ICMP echo requests to the --dst4 address, frame N with
 *	  identifier N (modulo 65536): each one a new echo flow.
 *
 * Options: -n COUNT (default 100000), -s SEED, -r FRAMES_PER_SECOND
 * (default: as fast as the device takes them), --flood KIND, --inject
 * PATH, --lengths LIST, --gw-mac MAC, --src4,
 * --dst4, --src6, --dst6 ADDR (defaults: the test rig's 192.0.2.2 to
 * 192.0.2.1, 2001:db8::2 to 2001:db8::1), --ports P[,P...] (SYN flood
 * destination ports).
 *
 * Output, one line: "frame_storm: sent=N random=N valid=N mutated=N
 * short=N must_drop=N send_errors=N seconds=S" (sent includes short).
 * Exit status 0 if every frame was sent, 1 otherwise.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <net/if.h>
#include <netinet/in.h>
#include <linux/if_packet.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "lib/storm_frames.h"

#define STORM_COUNT_DEFAULT	100000
#define STORM_SEND_TRIES	1000	/* ENOBUFS retries per frame */
#define STORM_SHORT_EVERY	30	/* --inject: one frame in this many */
#define STORM_INJECT_MAX	(256 * 1024)	/* see tests/tools/lib/ */
#define STORM_INJECT_SNDBUF	(1024 * 1024)
#define STORM_DHCP_OTHER	"198.51.100.77"	/* requested, never ours */
#define STORM_ECHO_LEN		16	/* echo request: header and 8 bytes */

/**
 * struct storm_counts - what was sent
 * @sent:	frames sent
 * @random:	random frames
 * @valid:	unmodified templates
 * @mutated:	mutated templates
 * @short_frames: frames shorter than an Ethernet header (--inject)
 * @must_drop:	frames the relay's parser must drop
 * @errors:	frames the socket refused
 */
struct storm_counts {
	unsigned long sent, random, valid, mutated, short_frames, must_drop;
	unsigned long errors;
};

/**
 * mutate_bytes() - bit flips, truncation or random trailing bytes
 * @f:		frame
 * @len:	frame length, updated
 * @k:		0: bit flips past the Ethernet addresses, 1: truncation,
 *		2: random trailing bytes
 *
 * Return: false: the relay may take the frame
 */
static bool mutate_bytes(uint8_t *f, size_t *len, unsigned int k)
{
	unsigned int i, n;

	if (k == 0) {
		n = 1 + storm_below(8);
		for (i = 0; i < n; i++) {
			size_t at = 12 + storm_below((unsigned int)*len - 12);

			f[at] ^= (uint8_t)(1U << storm_below(8));
		}
	} else if (k == 1) {
		*len = STORM_ETH_LEN + storm_below((unsigned int)*len -
						   STORM_ETH_LEN);
	} else {
		n = storm_below(64);
		if (*len + n > STORM_FRAME_MAX)
			n = (unsigned int)(STORM_FRAME_MAX - *len);
		for (i = 0; i < n; i++)
			f[*len + i] = (uint8_t)storm_rand();
		*len += n;
	}
	return false;
}

/**
 * ip4_recsum() - recompute the checksum of an IPv4 header without options
 * @ip:		header
 */
static void ip4_recsum(uint8_t *ip)
{
	put16(ip + 10, 0);
	put16(ip + 10, csum_fold(csum_add(0, ip, 20)));
}

/**
 * mutate_ip() - break the IPv4 or IPv6 header so that it must be dropped
 * @f:		frame
 * @len:	frame length
 * @k:		3: IP length past the end of the frame, 4: bad IP version,
 *		5: IPv4 header length below 5 words, 6: bad IPv4 header
 *		checksum, 8: IPv4 fragment
 *
 * Return: true if the relay's parser must now drop the frame
 */
static bool mutate_ip(uint8_t *f, size_t len, unsigned int k)
{
	uint16_t type = (uint16_t)(f[12] << 8 | f[13]);
	bool ip4 = type == ETH_TYPE_IP4, ip6 = type == ETH_TYPE_IP6;
	uint8_t *ip = f + STORM_ETH_LEN;
	unsigned int n;

	if (k == 3 && ip4) {
		put16(ip + 2, (uint16_t)(len - STORM_ETH_LEN + 1 +
					 storm_below(1000)));
		ip4_recsum(ip);
	} else if (k == 3 && ip6) {
		put16(ip + 4, (uint16_t)(len - STORM_ETH_LEN - STORM_IP6_LEN +
					 1 + storm_below(1000)));
	} else if (k == 4 && (ip4 || ip6)) {
		n = storm_below(15);	/* any version but the right one */
		if (n >= (ip4 ? 4U : 6U))
			n++;
		ip[0] = (uint8_t)((ip[0] & 0x0f) | n << 4);
	} else if (k == 5 && ip4) {
		ip[0] = (uint8_t)(0x40 | storm_below(5));
	} else if (k == 6 && ip4) {
		ip[10] ^= (uint8_t)(1 + storm_below(255));
	} else if (k == 8 && ip4) {
		put16(ip + 6, (uint16_t)(0x2000 | storm_below(0x2000)));
		ip4_recsum(ip);
	} else {
		return false;
	}
	return true;
}

/**
 * mutate_extra() - bad L4 checksum, bogus options or extension headers
 * @f:		frame
 * @len:	frame length
 * @k:		7: bad L4 checksum, 9: bogus IPv4 header or TCP options
 *		(IPv6: as 10), 10: bogus IPv6 extension header chain
 *
 * Return: true if the relay's parser must now drop the frame
 */
static bool mutate_extra(uint8_t *f, size_t len, unsigned int k)
{
	static const uint8_t ext[] = { 0, 43, 60, 44 };
	uint16_t type = (uint16_t)(f[12] << 8 | f[13]);
	bool ip4 = type == ETH_TYPE_IP4, ip6 = type == ETH_TYPE_IP6;
	uint8_t *ip = f + STORM_ETH_LEN;
	size_t l4 = STORM_ETH_LEN + 20, i;

	if (k == 7) {		/* the relay can't tell */
		if (ip4 && len > STORM_ETH_LEN + 24)
			f[STORM_ETH_LEN + 22 + storm_below(2)] ^= 0x5a;
		else if (ip6 && len > STORM_ETH_LEN + 44)
			f[STORM_ETH_LEN + 42 + storm_below(2)] ^= 0x5a;
		return false;
	}
	if (k == 9 && ip4 && ip[9] == IPPROTO_TCP &&
	    len >= STORM_ETH_LEN + 40) {
		/* Garbage TCP options, data offset anywhere */
		for (i = 20; i < 28 && l4 + i < len; i++)
			f[l4 + i] = (uint8_t)storm_rand();
		f[l4 + 12] = (uint8_t)(storm_below(16) << 4);
		return false;
	}
	if (k == 9 && ip4) {
		/* IHL claims options: what follows is read as such */
		ip[0] = (uint8_t)(0x40 | (6 + storm_below(10)));
		put16(ip + 10, 0);
		if ((size_t)(ip[0] & 0xf) * 4 > len - STORM_ETH_LEN)
			return true;
		put16(ip + 10, csum_fold(csum_add(0, ip, (size_t)
						  (ip[0] & 0xf) * 4)));
		return false;
	}
	if (ip6 && len >= STORM_ETH_LEN + STORM_IP6_LEN + 8) {
		uint8_t *e = ip + STORM_IP6_LEN;

		e[0] = ext[storm_below(4)];
		e[1] = (uint8_t)storm_rand();
		ip[6] = ext[storm_below(4)];
	}
	return false;
}

/**
 * mutate() - apply one mutation, of a random kind, to a template
 * @f:		frame
 * @len:	frame length, updated
 *
 * Return: true if the relay's parser must now drop the frame
 */
static bool mutate(uint8_t *f, size_t *len)
{
	unsigned int k = storm_below(11);

	if (k < 3)
		return mutate_bytes(f, len, k);
	if (k == 7 || k >= 9)
		return mutate_extra(f, *len, k);
	return mutate_ip(f, *len, k);
}

/**
 * storm_frame() - build the next frame of the storm
 * @cfg:	configuration
 * @f:		frame, STORM_FRAME_MAX bytes
 * @len:	frame length, set
 * @cnt:	counters, updated
 */
static void storm_frame(const struct storm_cfg *cfg, uint8_t *f, size_t *len,
			struct storm_counts *cnt)
{
	unsigned int r = storm_below(10), i, n;
	bool drop = false;

	if (r < 3) {
		uint16_t type;

		*len = STORM_ETH_LEN + storm_below(STORM_FRAME_MAX -
						   STORM_ETH_LEN + 1);
		for (i = 0; i < *len; i++)
			f[i] = (uint8_t)storm_rand();
		type = (uint16_t)(f[12] << 8 | f[13]);
		if (type != ETH_TYPE_ARP && type != ETH_TYPE_IP4 &&
		    type != ETH_TYPE_IP6)
			cnt->must_drop++;
		cnt->random++;
		return;
	}

	*len = build_template(cfg, f);
	if (r == 3) {
		cnt->valid++;
		return;
	}

	n = 1 + storm_below(3);
	for (i = 0; i < n && !drop; i++)
		drop = mutate(f, len);
	if (drop)
		cnt->must_drop++;
	cnt->mutated++;
}

/**
 * flood_syn() - build the next SYN of a flood
 * @cfg:	configuration
 * @f:		frame, STORM_FRAME_MAX bytes
 * @len:	frame length, set
 * @i:		sequence number of the frame
 */
static void flood_syn(const struct storm_cfg *cfg, uint8_t *f, size_t *len,
		      unsigned long i)
{
	uint8_t *ip = f + STORM_ETH_LEN, *l4 = ip + STORM_IP4_LEN;
	struct in_addr src = cfg->src4;
	size_t l4len;

	eth_hdr(cfg, f, ETH_TYPE_IP4, NULL);
	((uint8_t *)&src)[3] = (uint8_t)(3 + storm_below(252));
	l4len = tcp_syn(l4, (uint16_t)(1024 + storm_below(64511)),
			cfg->ports[i % cfg->n_ports]);
	ip4_hdr(ip, src, cfg->dst4, IPPROTO_TCP, l4len);
	l4_csum(ip, true, IPPROTO_TCP, l4, l4len, 16);
	*len = STORM_ETH_LEN + STORM_IP4_LEN + l4len;
}

/**
 * flood_dhcp() - build the next DHCP message of a flood
 * @cfg:	configuration
 * @f:		frame, STORM_FRAME_MAX bytes
 * @len:	frame length, set
 * @i:		sequence number: even, a decline; odd, a request
 */
static void flood_dhcp(const struct storm_cfg *cfg, uint8_t *f, size_t *len,
		       unsigned long i)
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	uint8_t *ip = f + STORM_ETH_LEN, *l4 = ip + STORM_IP4_LEN;
	size_t l4len = 8 + 240 + 3 + 6 + 6 + 1;
	struct in_addr any = { 0 }, all, want = cfg->src4;
	uint8_t *o;

	all.s_addr = htonl(INADDR_BROADCAST);
	if (i % 2)
		inet_pton(AF_INET, STORM_DHCP_OTHER, &want);

	eth_hdr(cfg, f, ETH_TYPE_IP4, bcast);
	o = dhcp_bootrequest(cfg, l4, l4len);
	o[0] = 53;			/* message type */
	o[1] = 1;
	o[2] = i % 2 ? 3 : 4;		/* DHCPREQUEST : DHCPDECLINE */
	o[3] = 50;			/* requested (declined) address */
	o[4] = 4;
	memcpy(o + 5, &want, 4);
	o[9] = 54;			/* server identifier */
	o[10] = 4;
	memcpy(o + 11, &cfg->dst4, 4);
	o[15] = 255;
	ip4_hdr(ip, any, all, IPPROTO_UDP, l4len);
	l4_csum(ip, true, IPPROTO_UDP, l4, l4len, 6);
	*len = STORM_ETH_LEN + STORM_IP4_LEN + l4len;
}

/**
 * flood_echo() - build the next echo request of a flood
 * @cfg:	configuration
 * @f:		frame, STORM_FRAME_MAX bytes
 * @len:	frame length, set
 * @i:		sequence number of the frame, its identifier
 */
static void flood_echo(const struct storm_cfg *cfg, uint8_t *f, size_t *len,
		       unsigned long i)
{
	uint8_t *ip = f + STORM_ETH_LEN, *l4 = ip + STORM_IP4_LEN;

	eth_hdr(cfg, f, ETH_TYPE_IP4, NULL);
	memset(l4, 0x5a, STORM_ECHO_LEN);
	l4[0] = 8;			/* echo request */
	l4[1] = 0;
	put16(l4 + 2, 0);
	put16(l4 + 4, (uint16_t)i);
	put16(l4 + 6, 1);
	put16(l4 + 2, csum_fold(csum_add(0, l4, STORM_ECHO_LEN)));
	ip4_hdr(ip, cfg->src4, cfg->dst4, IPPROTO_ICMP, STORM_ECHO_LEN);
	*len = STORM_ETH_LEN + STORM_IP4_LEN + STORM_ECHO_LEN;
}

/**
 * flood_frame() - build the next frame of a flood
 * @cfg:	configuration
 * @f:		frame, STORM_FRAME_MAX bytes
 * @len:	frame length, set
 * @i:		sequence number of the frame
 */
static void flood_frame(const struct storm_cfg *cfg, uint8_t *f, size_t *len,
			unsigned long i)
{
	switch (cfg->flood) {
	case STORM_FLOOD_DHCP:
		flood_dhcp(cfg, f, len, i);
		break;
	case STORM_FLOOD_ECHO:
		flood_echo(cfg, f, len, i);
		break;
	default:
		flood_syn(cfg, f, len, i);
		break;
	}
}

/**
 * parse_flood() - parse the kind of --flood, exit if unknown
 * @s:		"syn", "dhcp" or "echo"
 *
 * Return: STORM_FLOOD_SYN, STORM_FLOOD_DHCP or STORM_FLOOD_ECHO
 */
static unsigned int parse_flood(const char *s)
{
	if (!strcmp(s, "syn"))
		return STORM_FLOOD_SYN;
	if (!strcmp(s, "dhcp"))
		return STORM_FLOOD_DHCP;
	if (!strcmp(s, "echo"))
		return STORM_FLOOD_ECHO;
	fprintf(stderr, "frame_storm: unknown flood %s\n", s);
	exit(2);
}

/**
 * now_ns() - monotonic time
 *
 * Return: nanoseconds
 */
static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/**
 * parse_mac() - parse a MAC address, exit on error
 * @s:		string, six hexadecimal bytes with colons
 * @mac:	result
 */
static void parse_mac(const char *s, uint8_t *mac)
{
	unsigned int b[6], i;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x", &b[0], &b[1], &b[2], &b[3], &b[4],
		   &b[5]) != 6) {
		fprintf(stderr, "frame_storm: bad MAC address %s\n", s);
		exit(2);
	}
	for (i = 0; i < 6; i++)
		mac[i] = (uint8_t)b[i];
}

/**
 * parse_addr() - parse an address, exit on error
 * @af:		AF_INET or AF_INET6
 * @s:		string
 * @dst:	result
 */
static void parse_addr(int af, const char *s, void *dst)
{
	if (inet_pton(af, s, dst) != 1) {
		fprintf(stderr, "frame_storm: bad address %s\n", s);
		exit(2);
	}
}

/**
 * parse_ports() - parse a comma-separated port list, exit on error
 * @s:		string
 * @cfg:	configuration, ports set
 */
static void parse_ports(const char *s, struct storm_cfg *cfg)
{
	char *end;

	cfg->n_ports = 0;
	while (*s && cfg->n_ports < STORM_PORTS_MAX) {
		unsigned long p = strtoul(s, &end, 10);

		if (end == s || !p || p > 65535 || (*end && *end != ',')) {
			fprintf(stderr, "frame_storm: bad port list\n");
			exit(2);
		}
		cfg->ports[cfg->n_ports++] = (uint16_t)p;
		s = *end ? end + 1 : end;
	}
}

/**
 * short_open() - connect a datagram socket to an injection socket
 * @path:	its path
 *
 * Return: socket (blocking: a full receiver makes us wait, nothing lost)
 */
static int short_open(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int s;

	if (strlen(path) >= sizeof(a.sun_path)) {
		fprintf(stderr, "frame_storm: path too long: %s\n", path);
		exit(2);
	}
	memcpy(a.sun_path, path, strlen(path) + 1);
	s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0 || connect(s, (struct sockaddr *)&a, sizeof(a))) {
		fprintf(stderr, "frame_storm: connect to %s: %s\n", path,
			strerror(errno));
		exit(2);
	}
	/* Room for the longest injected frame in one datagram */
	setsockopt(s, SOL_SOCKET, SO_SNDBUF, &(int){ STORM_INJECT_SNDBUF },
		   sizeof(int));
	return s;
}

/**
 * inject_lengths() - --lengths: one frame of each listed length, and exit
 * @cfg:	configuration, with short_fd and lengths
 *
 * Return: exit status, 0 if every frame was sent
 */
static int inject_lengths(const struct storm_cfg *cfg)
{
	static uint8_t f[STORM_INJECT_MAX];
	unsigned long sent = 0, errors = 0;
	const char *p = cfg->lengths;

	while (*p) {
		unsigned long lo, hi, len;
		char *end;
		size_t i;

		lo = hi = strtoul(p, &end, 10);
		if (end != p && *end == '-')
			hi = strtoul(end + 1, &end, 10);
		if (end == p || hi < lo || hi > STORM_INJECT_MAX ||
		    (*end && *end != ',')) {
			fprintf(stderr, "frame_storm: bad length list %s\n",
				cfg->lengths);
			return 2;
		}
		for (len = lo; len <= hi; len++) {
			for (i = 0; i < len; i++)
				f[i] = (uint8_t)storm_rand();
			if (send(cfg->short_fd, f, len, 0) == (ssize_t)len) {
				sent++;
			} else {
				fprintf(stderr, "frame_storm: %lu bytes: %s\n",
					len, strerror(errno));
				errors++;
			}
		}
		p = *end ? end + 1 : end;
	}

	printf("frame_storm: injected=%lu send_errors=%lu\n", sent, errors);
	return errors ? 1 : 0;
}

/**
 * short_frame() - maybe send the next frame shorter than Ethernet instead
 * @cfg:	configuration, with short_fd
 * @f:		frame buffer
 * @cnt:	counters, updated
 *
 * Return: true if this frame was one (sent through --inject, or failed)
 */
static bool short_frame(const struct storm_cfg *cfg, uint8_t *f,
			struct storm_counts *cnt)
{
	size_t len, i;

	if (cfg->short_fd < 0 || storm_below(STORM_SHORT_EVERY))
		return false;

	len = storm_below(STORM_ETH_LEN);
	for (i = 0; i < len; i++)
		f[i] = (uint8_t)storm_rand();
	if (send(cfg->short_fd, f, len, 0) == (ssize_t)len) {
		cnt->short_frames++;
		cnt->sent++;
	} else {
		cnt->errors++;
	}
	return true;
}

/**
 * usage() - print usage and exit
 * @name:	program name
 */
static void usage(const char *name)
{
	fprintf(stderr,
		"Usage: %s [--flood syn|dhcp|echo] [--syn-flood] [-n COUNT]\n"
		"       [-s SEED] [-r PPS]\n"
		"       [--inject PATH [--lengths LIST]]\n"
		"       [--gw-mac MAC] [--src4 A] [--dst4 A] [--src6 A]"
		" [--dst6 A]\n"
		"       [--ports P[,P...]] IFNAME\n", name);
	exit(2);
}

/**
 * storm_send() - send one frame, retrying while the device queue is full
 * @s:		packet socket
 * @f:		frame
 * @len:	length
 *
 * Return: 0 on success, -1 if the frame could not be sent
 */
static int storm_send(int s, const uint8_t *f, size_t len)
{
	int i;

	for (i = 0; i < STORM_SEND_TRIES; i++) {
		if (send(s, f, len, 0) == (ssize_t)len)
			return 0;
		if (errno != ENOBUFS && errno != EAGAIN && errno != EINTR)
			return -1;
		usleep(100);
	}
	return -1;
}

/**
 * storm_open() - a packet socket bound to the interface
 * @ifname:	interface name
 * @mac:	set to its address
 *
 * Return: socket, -1 on failure (reported)
 */
static int storm_open(const char *ifname, uint8_t *mac)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET };
	struct ifreq ifr;
	int s;

	s = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (s < 0) {
		perror("frame_storm: AF_PACKET socket");
		return -1;
	}
	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, ifname, strlen(ifname) + 1);
	if (ioctl(s, SIOCGIFINDEX, &ifr)) {
		perror("frame_storm: interface index");
		return -1;
	}
	sll.sll_ifindex = ifr.ifr_ifindex;
	if (ioctl(s, SIOCGIFHWADDR, &ifr)) {
		perror("frame_storm: interface address");
		return -1;
	}
	memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
	if (bind(s, (struct sockaddr *)&sll, sizeof(sll))) {
		perror("frame_storm: bind to interface");
		return -1;
	}
	return s;
}

/**
 * parse_opts() - set the defaults, parse options, exit on errors
 * @argc:	argument count
 * @argv:	arguments
 * @cfg:	configuration, set
 */
static void parse_opts(int argc, char **argv, struct storm_cfg *cfg)
{
	static const struct option opts[] = {
		{ "syn-flood",	no_argument,		NULL, 'F' },
		{ "flood",	required_argument,	NULL, 'K' },
		{ "gw-mac",	required_argument,	NULL, 'g' },
		{ "src4",	required_argument,	NULL, 'a' },
		{ "dst4",	required_argument,	NULL, 'b' },
		{ "src6",	required_argument,	NULL, 'c' },
		{ "dst6",	required_argument,	NULL, 'd' },
		{ "ports",	required_argument,	NULL, 'p' },
		{ "inject",	required_argument,	NULL, 'S' },
		{ "lengths",	required_argument,	NULL, 'L' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	parse_mac("02:00:00:00:00:01", cfg->gw_mac);
	parse_addr(AF_INET, "192.0.2.2", &cfg->src4);
	parse_addr(AF_INET, "192.0.2.1", &cfg->dst4);
	parse_addr(AF_INET6, "2001:db8::2", &cfg->src6);
	parse_addr(AF_INET6, "2001:db8::1", &cfg->dst6);
	parse_ports("7", cfg);

	while ((opt = getopt_long(argc, argv, "n:s:r:", opts, NULL)) != -1) {
		switch (opt) {
		case 'n': cfg->count = strtoul(optarg, NULL, 0); break;
		case 's': cfg->seed = strtoull(optarg, NULL, 0); break;
		case 'r': cfg->pps = strtoul(optarg, NULL, 0); break;
		case 'F': cfg->flood = STORM_FLOOD_SYN; break;
		case 'K': cfg->flood = parse_flood(optarg); break;
		case 'g': parse_mac(optarg, cfg->gw_mac); break;
		case 'a': parse_addr(AF_INET, optarg, &cfg->src4); break;
		case 'b': parse_addr(AF_INET, optarg, &cfg->dst4); break;
		case 'c': parse_addr(AF_INET6, optarg, &cfg->src6); break;
		case 'd': parse_addr(AF_INET6, optarg, &cfg->dst6); break;
		case 'p': parse_ports(optarg, cfg); break;
		case 'S': cfg->short_fd = short_open(optarg); break;
		case 'L': cfg->lengths = optarg; break;
		default: usage(argv[0]);
		}
	}
}

/**
 * storm_run() - send the frames of the storm or of the flood, paced
 * @cfg:	configuration
 * @s:		packet socket
 * @start:	start time, nanoseconds, for the pace
 * @cnt:	counters, updated
 */
static void storm_run(const struct storm_cfg *cfg, int s, uint64_t start,
		      struct storm_counts *cnt)
{
	uint8_t frame[STORM_FRAME_MAX];
	unsigned long i;

	for (i = 0; i < cfg->count; i++) {
		size_t len;

		if (cfg->pps) {
			uint64_t due = start + i * 1000000000ULL / cfg->pps;
			uint64_t now = now_ns();

			if (due > now)
				usleep((useconds_t)((due - now) / 1000));
		}

		if (!cfg->flood && short_frame(cfg, frame, cnt))
			continue;

		if (cfg->flood)
			flood_frame(cfg, frame, &len, i);
		else
			storm_frame(cfg, frame, &len, cnt);

		if (storm_send(s, frame, len))
			cnt->errors++;
		else
			cnt->sent++;
	}
}

/**
 * main() - parse options, send the frames, print the counts
 * @argc:	argument count
 * @argv:	arguments
 *
 * Return: 0 if every frame was sent, 1 otherwise
 */
int main(int argc, char **argv)
{
	struct storm_cfg cfg = { .count = STORM_COUNT_DEFAULT, .seed = 1,
				 .short_fd = -1 };
	struct storm_counts cnt = { 0 };
	uint64_t start;
	int s;

	parse_opts(argc, argv, &cfg);
	storm_rng_state = cfg.seed ? cfg.seed : 1;
	if (cfg.lengths) {
		if (cfg.short_fd < 0 || optind != argc)
			usage(argv[0]);
		return inject_lengths(&cfg);
	}
	if (optind != argc - 1 || strlen(argv[optind]) >= IFNAMSIZ ||
	    !cfg.n_ports)
		usage(argv[0]);

	s = storm_open(argv[optind], cfg.own_mac);
	if (s < 0)
		return 1;

	start = now_ns();
	storm_run(&cfg, s, start, &cnt);

	printf("frame_storm: sent=%lu random=%lu valid=%lu mutated=%lu "
	       "short=%lu must_drop=%lu send_errors=%lu seconds=%.1f\n",
	       cnt.sent, cnt.random, cnt.valid, cnt.mutated, cnt.short_frames,
	       cnt.must_drop, cnt.errors, (double)(now_ns() - start) / 1e9);
	close(s);
	return cnt.errors ? 1 : 0;
}
