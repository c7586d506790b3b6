// SPDX-License-Identifier: GPL-2.0-or-later
/* dns6_probe.c - ask a link's router for its IPv6 DNS servers, for tests
 *
 * Theory of operation
 *
 *   dns6_probe dhcpv6 IFNAME [-w SECONDS]
 *	Send one DHCPv6 Information-Request (RFC 8415 18.2.6) from port 546
 *	of IFNAME's link-local address to All_DHCP_Relay_Agents_and_Servers
 *	(ff02::1:2), asking for option 23 (DNS Recursive Name Server, RFC
 *	3646), and print the servers of the Reply, one per line.
 *
 *   dns6_probe ra IFNAME [-w SECONDS]
 *	Send one Router Solicitation to all-routers (ff02::2) and print the
 *	servers of the Recursive DNS Server option (25, RFC 8106) of the
 *	first Router Advertisement that comes back, one per line.
 *
 * Exit status: 0 with at least one server printed, 1 if no answer came
 * within SECONDS (default 3) or it named no server, 2 on a usage or
 * system error. Busybox has no DHCPv6 client and the kernel keeps RDNSS
 * to itself: the guests of the passt tests use this to see what they are
 * offered, from inside their namespace.
 */

#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/icmp6.h>
#include <netinet/in.h>
#include <sys/socket.h>

#define PROBE_MSG_MAX		1500
#define PROBE_WAIT_DEFAULT	3.0
#define DHCP6_CLIENT_PORT	546
#define DHCP6_SERVER_PORT	547
#define DHCP6_INFO_REQUEST	11
#define DHCP6_REPLY		7
#define DHCP6_OPT_CLIENTID	1
#define DHCP6_OPT_ORO		6
#define DHCP6_OPT_ELAPSED	8
#define DHCP6_OPT_DNS		23
#define DHCP6_DUID_EN		2
#define ND_OPT_RDNSS_TYPE	25
#define ND_RA_HDR_LEN		16

/**
 * probe_usage() - print usage and exit
 * @name:	program name
 */
static void probe_usage(const char *name)
{
	fprintf(stderr, "Usage: %s dhcpv6|ra IFNAME [-w SECONDS]\n", name);
	exit(2);
}

/**
 * probe_put16() - write a 16-bit big-endian value
 * @p:		where
 * @v:		value
 */
static void probe_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/**
 * probe_get16() - read a 16-bit big-endian value
 * @p:		where
 *
 * Return: the value
 */
static uint16_t probe_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/**
 * probe_print() - print the IPv6 addresses of an option body
 * @p:		addresses
 * @len:	bytes, a multiple of 16 (a remainder is ignored)
 *
 * Return: number of addresses printed
 */
static int probe_print(const uint8_t *p, size_t len)
{
	char buf[INET6_ADDRSTRLEN];
	int n = 0;

	for (; len >= sizeof(struct in6_addr);
	     p += sizeof(struct in6_addr), len -= sizeof(struct in6_addr)) {
		struct in6_addr a;

		memcpy(&a, p, sizeof(a));
		printf("%s\n", inet_ntop(AF_INET6, &a, buf, sizeof(buf)));
		n++;
	}
	return n;
}

/**
 * probe_recv() - wait for one datagram
 * @s:		socket
 * @buf:	buffer, PROBE_MSG_MAX bytes
 * @deadline:	give up at this CLOCK_MONOTONIC time, in ms
 *
 * Return: length received, -1 on timeout or error
 */
static ssize_t probe_recv(int s, uint8_t *buf, long long deadline)
{
	struct pollfd pfd = { .fd = s, .events = POLLIN };
	struct timespec now;
	long long left;

	clock_gettime(CLOCK_MONOTONIC, &now);
	left = deadline - (now.tv_sec * 1000LL + now.tv_nsec / 1000000);
	if (left <= 0 || poll(&pfd, 1, (int)left) <= 0)
		return -1;
	return recv(s, buf, PROBE_MSG_MAX, 0);
}

/**
 * probe_dhcpv6_reply() - print the DNS servers of a DHCPv6 Reply
 * @buf:	message
 * @len:	its length
 * @xid:	transaction ID we sent, 3 bytes
 *
 * Return: servers printed, -1 if this is not our Reply
 */
static int probe_dhcpv6_reply(const uint8_t *buf, size_t len,
			      const uint8_t *xid)
{
	size_t off = 4;
	int n = 0;

	if (len < 4 || buf[0] != DHCP6_REPLY || memcmp(buf + 1, xid, 3) != 0)
		return -1;

	while (off + 4 <= len) {
		uint16_t code = probe_get16(buf + off);
		uint16_t olen = probe_get16(buf + off + 2);

		if (off + 4 + olen > len)
			break;
		if (code == DHCP6_OPT_DNS)
			n += probe_print(buf + off + 4, olen);
		off += 4 + (size_t)olen;
	}
	return n;
}

/**
 * probe_dhcpv6() - Information-Request, print the DNS servers
 * @ifname:	interface
 * @deadline:	give up at this CLOCK_MONOTONIC time, in ms
 *
 * Return: exit status
 */
static int probe_dhcpv6(const char *ifname, long long deadline)
{
	struct sockaddr_in6 sa = { .sin6_family = AF_INET6,
				   .sin6_port = htons(DHCP6_CLIENT_PORT) };
	uint8_t msg[64], buf[PROBE_MSG_MAX];
	unsigned int ifi = if_nametoindex(ifname);
	uint8_t xid[3] = { 0x5e, 0x1f, 0x0d };
	size_t len = 0;
	int s, one = 1;
	ssize_t n;

	s = socket(AF_INET6, SOCK_DGRAM, IPPROTO_UDP);
	if (!ifi || s < 0 ||
	    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    setsockopt(s, SOL_SOCKET, SO_BINDTODEVICE, ifname,
		       (socklen_t)strlen(ifname)) ||
	    setsockopt(s, IPPROTO_IPV6, IPV6_MULTICAST_IF, &ifi,
		       sizeof(ifi)) ||
	    bind(s, (struct sockaddr *)&sa, sizeof(sa))) {
		perror("dns6_probe: DHCPv6 socket");
		return 2;
	}

	msg[len++] = DHCP6_INFO_REQUEST;
	memcpy(msg + len, xid, sizeof(xid));
	len += sizeof(xid);
	probe_put16(msg + len, DHCP6_OPT_CLIENTID);	/* DUID-EN, RFC 8415 */
	probe_put16(msg + len + 2, 2 + 4 + 4);
	probe_put16(msg + len + 4, DHCP6_DUID_EN);
	memcpy(msg + len + 6, "\0\0\x7f\xff" "test", 8);
	len += 14;
	probe_put16(msg + len, DHCP6_OPT_ORO);
	probe_put16(msg + len + 2, 2);
	probe_put16(msg + len + 4, DHCP6_OPT_DNS);
	len += 6;
	probe_put16(msg + len, DHCP6_OPT_ELAPSED);
	probe_put16(msg + len + 2, 2);
	probe_put16(msg + len + 4, 0);
	len += 6;

	sa.sin6_port = htons(DHCP6_SERVER_PORT);
	sa.sin6_scope_id = ifi;
	inet_pton(AF_INET6, "ff02::1:2", &sa.sin6_addr);
	if (sendto(s, msg, len, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		perror("dns6_probe: DHCPv6 send");
		return 2;
	}

	while ((n = probe_recv(s, buf, deadline)) >= 0) {
		int got = probe_dhcpv6_reply(buf, (size_t)n, xid);

		if (got >= 0)
			return got ? 0 : 1;
	}
	fprintf(stderr, "dns6_probe: no DHCPv6 reply\n");
	return 1;
}

/**
 * probe_ra_rdnss() - print the RDNSS servers of a Router Advertisement
 * @buf:	ICMPv6 message
 * @len:	its length
 *
 * Return: servers printed, -1 if this is not a Router Advertisement
 */
static int probe_ra_rdnss(const uint8_t *buf, size_t len)
{
	size_t off = ND_RA_HDR_LEN;
	int n = 0;

	if (len < ND_RA_HDR_LEN || buf[0] != ND_ROUTER_ADVERT)
		return -1;

	while (off + 2 <= len && buf[off + 1]) {
		size_t olen = (size_t)buf[off + 1] * 8;

		if (off + olen > len)
			break;
		if (buf[off] == ND_OPT_RDNSS_TYPE && olen > 8)
			n += probe_print(buf + off + 8, olen - 8);
		off += olen;
	}
	return n;
}

/**
 * probe_ra() - Router Solicitation, print the RDNSS servers
 * @ifname:	interface
 * @deadline:	give up at this CLOCK_MONOTONIC time, in ms
 *
 * Return: exit status
 */
static int probe_ra(const char *ifname, long long deadline)
{
	struct sockaddr_in6 sa = { .sin6_family = AF_INET6 };
	unsigned int ifi = if_nametoindex(ifname);
	uint8_t rs[8] = { ND_ROUTER_SOLICIT }, buf[PROBE_MSG_MAX];
	struct icmp6_filter filter;
	int s, hops = 255;
	ssize_t n;

	ICMP6_FILTER_SETBLOCKALL(&filter);
	ICMP6_FILTER_SETPASS(ND_ROUTER_ADVERT, &filter);
	s = socket(AF_INET6, SOCK_RAW, IPPROTO_ICMPV6);
	if (!ifi || s < 0 ||
	    setsockopt(s, IPPROTO_ICMPV6, ICMP6_FILTER, &filter,
		       sizeof(filter)) ||
	    setsockopt(s, SOL_SOCKET, SO_BINDTODEVICE, ifname,
		       (socklen_t)strlen(ifname)) ||
	    setsockopt(s, IPPROTO_IPV6, IPV6_MULTICAST_HOPS, &hops,
		       sizeof(hops)) ||
	    setsockopt(s, IPPROTO_IPV6, IPV6_MULTICAST_IF, &ifi,
		       sizeof(ifi))) {
		perror("dns6_probe: ICMPv6 socket");
		return 2;
	}

	sa.sin6_scope_id = ifi;
	inet_pton(AF_INET6, "ff02::2", &sa.sin6_addr);
	if (sendto(s, rs, sizeof(rs), 0, (struct sockaddr *)&sa,
		   sizeof(sa)) < 0) {
		perror("dns6_probe: router solicitation");
		return 2;
	}

	while ((n = probe_recv(s, buf, deadline)) >= 0) {
		int got = probe_ra_rdnss(buf, (size_t)n);

		if (got >= 0)
			return got ? 0 : 1;
	}
	fprintf(stderr, "dns6_probe: no router advertisement\n");
	return 1;
}

/**
 * main() - dns6_probe entry point
 * @argc:	argument count
 * @argv:	arguments
 *
 * Return: exit status, see the top of the file
 */
int main(int argc, char **argv)
{
	double wait_s = PROBE_WAIT_DEFAULT;
	struct timespec now;
	long long deadline;
	int opt;

	if (argc < 3)
		probe_usage(argv[0]);

	optind = 3;
	while ((opt = getopt(argc, argv, "w:")) != -1) {
		if (opt != 'w')
			probe_usage(argv[0]);
		wait_s = strtod(optarg, NULL);
	}

	setvbuf(stdout, NULL, _IOLBF, 0);
	clock_gettime(CLOCK_MONOTONIC, &now);
	deadline = now.tv_sec * 1000LL + now.tv_nsec / 1000000 +
		   (long long)(wait_s * 1000);

	if (!strcmp(argv[1], "dhcpv6"))
		return probe_dhcpv6(argv[2], deadline);
	if (!strcmp(argv[1], "ra"))
		return probe_ra(argv[2], deadline);
	probe_usage(argv[0]);
	return 2;
}
