// SPDX-License-Identifier: GPL-2.0-or-later
/* test_netlink.c - unit tests for conf/netlink.c and conf/netlink_ns.c
 *
 * Theory of operation: Check runs every test in a child process. Each test
 * moves that child into a network namespace of its own (as root, or in a
 * new user namespace if allowed), creates a tap device there, and points
 * both netlink sockets (host and namespace) at it. nl_ns_configure() then
 * sets the device up and the result is read back twice: with getifaddrs()
 * and if_nametoindex(), independent of the code under test, and with the
 * host-side queries (default route, first address, MTU, link-local
 * address). Tests that can't get a namespace or /dev/net/tun pass with a
 * note on stderr, as they can't say anything there. The link-local address
 * and the copy of a template interface's addresses and routes (a second
 * tap device in the same namespace stands for the host's) are read back
 * with ip(8).
 */

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <sys/ioctl.h>

#include "../../conf/ctx.h"
#include "../../conf/netlink.h"

#define TEST_TAP	"nltest0"
/* Template interface of the copy tests */
#define TEST_HOST	"nlhost0"
#define TEST_MTU	9000

/* ip(8) commands showing what the tap got, for test_shows() */
#define TEST_ADDR4	"ip -4 -o addr show dev " TEST_TAP
#define TEST_ADDR6	"ip -6 -o addr show dev " TEST_TAP
#define TEST_ROUTE4	"ip route show dev " TEST_TAP

static const unsigned char test_mac[ETH_ALEN] = {
	0x02, 0x00, 0x5e, 0x10, 0x20, 0x30,
};

/**
 * test_tap_open() - create a tap device in the test's namespace
 * @name:	its name
 *
 * Return: its descriptor (the device lives as long as it is open), or -1
 * with errno set if there is no /dev/net/tun
 */
static int test_tap_open(const char *name)
{
	struct ifreq ifr;
	int fd;

	fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -1;
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	ck_assert_int_eq(ioctl(fd, TUNSETIFF, &ifr), 0);

	return fd;
}

/**
 * test_ctx() - a context as --config-net would have it
 * @c:		context to fill
 * @gw4:	IPv4 gateway
 */
static void test_ctx(struct ctx *c, const char *gw4)
{
	memset(c, 0, sizeof(*c));
	c->mode = MODE_PASTA;
	c->pasta_conf_ns = true;
	c->mtu = TEST_MTU;
	memcpy(c->ns_mac, test_mac, sizeof(test_mac));

	c->ip4.enabled = true;
	inet_pton(AF_INET, "192.0.2.2", &c->ip4.addr);
	c->ip4.prefix_len = 24;
	inet_pton(AF_INET, gw4, &c->ip4.gw);

	c->ip6.enabled = true;
	inet_pton(AF_INET6, "2001:db8::2", &c->ip6.addr);
	c->ip6.prefix_len = 64;
	inet_pton(AF_INET6, "2001:db8::1", &c->ip6.gw);
}

/**
 * test_ns_setup() - enter a new network namespace with a tap device, and
 *		     make a context for it (test_ctx())
 * @c:		context to fill
 * @gw4:	IPv4 gateway
 *
 * Return: tap descriptor, or -1 if the environment doesn't allow it
 */
static int test_ns_setup(struct ctx *c, const char *gw4)
{
	int fd, nsfd;

	if (unshare(CLONE_NEWNET) &&
	    unshare(CLONE_NEWUSER | CLONE_NEWNET)) {
		fprintf(stderr, "test_netlink: no network namespace (%s), "
			"skipping\n", strerror(errno));
		return -1;
	}

	fd = test_tap_open(TEST_TAP);
	if (fd < 0) {
		fprintf(stderr, "test_netlink: no /dev/net/tun (%s), "
			"skipping\n", strerror(errno));
		return -1;
	}

	nsfd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(nsfd, 0);
	ck_assert_int_ge(nl_sock_init_ns(nsfd), 0);
	ck_assert_int_ge(nl_sock_init_host(), 0);
	close(nsfd);

	test_ctx(c, gw4);
	return fd;
}

/**
 * struct test_seen - what getifaddrs() shows
 * @v4:		the IPv4 address is on the tap, /24
 * @v6:		the IPv6 address is on the tap
 * @tap_up:	the tap is up
 * @lo_up:	loopback is up
 * @mac:	the tap has the MAC address we set
 */
struct test_seen {
	bool v4, v6, tap_up, lo_up, mac;
};

/**
 * test_ifaddrs() - look at interfaces with getifaddrs()
 * @s:		filled with what was found
 */
static void test_ifaddrs(struct test_seen *s)
{
	struct ifaddrs *ifa, *i;
	struct in6_addr a6;
	struct in_addr a4;

	memset(s, 0, sizeof(*s));
	inet_pton(AF_INET, "192.0.2.2", &a4);
	inet_pton(AF_INET6, "2001:db8::2", &a6);
	ck_assert_int_eq(getifaddrs(&ifa), 0);

	for (i = ifa; i; i = i->ifa_next) {
		bool tap = !strcmp(i->ifa_name, TEST_TAP);

		if (!strcmp(i->ifa_name, "lo") && (i->ifa_flags & IFF_UP))
			s->lo_up = true;
		if (!tap || !i->ifa_addr)
			continue;
		if (i->ifa_flags & IFF_UP)
			s->tap_up = true;

		if (i->ifa_addr->sa_family == AF_INET) {
			const struct sockaddr_in *sa = (void *)i->ifa_addr;
			const struct sockaddr_in *m = (void *)i->ifa_netmask;

			if (sa->sin_addr.s_addr == a4.s_addr &&
			    m->sin_addr.s_addr == htonl(0xffffff00))
				s->v4 = true;
		} else if (i->ifa_addr->sa_family == AF_INET6) {
			const struct sockaddr_in6 *sa = (void *)i->ifa_addr;

			if (!memcmp(&sa->sin6_addr, &a6, sizeof(a6)))
				s->v6 = true;
		} else if (i->ifa_addr->sa_family == AF_PACKET) {
			const struct sockaddr_ll *ll = (void *)i->ifa_addr;

			if (ll->sll_halen == ETH_ALEN &&
			    !memcmp(ll->sll_addr, test_mac, ETH_ALEN))
				s->mac = true;
		}
	}

	freeifaddrs(ifa);
}

START_TEST(test_configure)
{
	unsigned int ifindex, tap_index;
	struct test_seen seen;
	struct in6_addr gw6, a6, want6;
	struct in_addr gw4, want4;
	struct ctx c;
	int fd, plen;

	fd = test_ns_setup(&c, "192.0.2.1");
	if (fd < 0)
		return;

	ck_assert_int_eq(nl_ns_configure(&c, TEST_TAP), 0);

	test_ifaddrs(&seen);
	ck_assert(seen.lo_up);
	ck_assert(seen.tap_up);
	ck_assert(seen.mac);
	ck_assert(seen.v4);
	ck_assert(seen.v6);

	tap_index = if_nametoindex(TEST_TAP);
	ck_assert_uint_ne(tap_index, 0);
	ck_assert_int_eq(nl_link_mtu(tap_index), TEST_MTU);

	ck_assert_int_eq(nl_default_route(AF_INET, &ifindex, &gw4), 0);
	ck_assert_uint_eq(ifindex, tap_index);
	inet_pton(AF_INET, "192.0.2.1", &want4);
	ck_assert_uint_eq(gw4.s_addr, want4.s_addr);

	ck_assert_int_eq(nl_default_route(AF_INET6, &ifindex, &gw6), 0);
	ck_assert_uint_eq(ifindex, tap_index);
	inet_pton(AF_INET6, "2001:db8::1", &want6);
	ck_assert(!memcmp(&gw6, &want6, sizeof(gw6)));

	ck_assert_int_eq(nl_first_addr(AF_INET6, tap_index, &a6, &plen), 0);
	inet_pton(AF_INET6, "2001:db8::2", &want6);
	ck_assert(!memcmp(&a6, &want6, sizeof(a6)));
	ck_assert_int_eq(plen, 64);

	ck_assert_int_eq(nl_first_addr(AF_INET, tap_index, &gw4, &plen), 0);
	ck_assert_int_eq(plen, 24);

	/* The kernel made a link-local address when the tap came up */
	ck_assert_int_eq(nl_link_ll_addr(tap_index, &a6), 0);
	ck_assert(IN6_IS_ADDR_LINKLOCAL(&a6));

	close(fd);
}
END_TEST

START_TEST(test_gateway_off_link)
{
	unsigned int ifindex;
	struct in_addr gw4, want;
	struct ctx c;
	int fd;

	fd = test_ns_setup(&c, "198.51.100.1");
	if (fd < 0)
		return;

	/* Outside 192.0.2.0/24: needs the on-link host route first */
	ck_assert_int_eq(nl_ns_configure(&c, TEST_TAP), 0);

	ck_assert_int_eq(nl_default_route(AF_INET, &ifindex, &gw4), 0);
	inet_pton(AF_INET, "198.51.100.1", &want);
	ck_assert_uint_eq(gw4.s_addr, want.s_addr);
	ck_assert_uint_eq(ifindex, if_nametoindex(TEST_TAP));

	close(fd);
}
END_TEST

START_TEST(test_configure_twice)
{
	struct ctx c;
	int fd;

	fd = test_ns_setup(&c, "192.0.2.1");
	if (fd < 0)
		return;

	ck_assert_int_eq(nl_ns_configure(&c, TEST_TAP), 0);
	ck_assert_int_eq(nl_ns_configure(&c, TEST_TAP), -EEXIST);

	close(fd);
}
END_TEST

START_TEST(test_no_config_net)
{
	unsigned int ifindex;
	struct test_seen seen;
	struct in_addr gw4;
	struct ctx c;
	int fd;

	fd = test_ns_setup(&c, "192.0.2.1");
	if (fd < 0)
		return;

	/* Without --config-net: link up, no addresses or routes */
	c.pasta_conf_ns = false;
	memset(c.ns_mac, 0, sizeof(c.ns_mac));
	ck_assert_int_eq(nl_ns_configure(&c, TEST_TAP), 0);

	test_ifaddrs(&seen);
	ck_assert(seen.lo_up);
	ck_assert(seen.tap_up);
	ck_assert(!seen.mac);
	ck_assert(!seen.v4);
	ck_assert(!seen.v6);
	ck_assert_int_eq(nl_default_route(AF_INET, &ifindex, &gw4), -ENOENT);

	close(fd);
}
END_TEST

START_TEST(test_errors)
{
	struct in6_addr a6;
	struct in_addr a4;
	struct ctx c;
	int fd;

	fd = test_ns_setup(&c, "192.0.2.1");
	if (fd < 0)
		return;

	ck_assert_int_eq(nl_ns_configure(&c, "nosuchdev0"), -ENODEV);

	/* Loopback has no global address, nor a link-local one */
	ck_assert_int_eq(nl_ns_configure(&c, TEST_TAP), 0);
	ck_assert_int_eq(nl_first_addr(AF_INET, if_nametoindex("lo"), &a4,
				       NULL), -ENOENT);
	ck_assert_int_eq(nl_link_ll_addr(if_nametoindex("lo"), &a6), -ENOENT);
	ck_assert_int_lt(nl_link_mtu(0x7fffffff), 0);

	/* An MTU above the tap's maximum is refused by the kernel */
	c.mtu = MTU_MAX + 100;
	c.pasta_conf_ns = false;
	ck_assert_int_eq(nl_ns_configure(&c, TEST_TAP), -EINVAL);

	close(fd);
}
END_TEST

START_TEST(test_metric)
{
	struct in_addr gw4, want;
	unsigned int ifindex;
	struct ctx c;
	int fd;

	fd = test_ns_setup(&c, "192.0.2.1");
	if (fd < 0)
		return;

	ck_assert_int_eq(nl_ns_configure(&c, TEST_TAP), 0);

	/* Three default routes, the best one neither first nor last:
	 * needs ip(8) from iproute2 */
	if (system("ip route del default via 192.0.2.1 "
		   "&& ip route add default via 192.0.2.1 metric 100 "
		   "&& ip route add default via 192.0.2.9 metric 50 "
		   "&& ip route add default via 192.0.2.8 metric 70")) {
		fprintf(stderr, "test_netlink: ip(8) failed, skipping metric "
			"test\n");
		close(fd);
		return;
	}

	ck_assert_int_eq(nl_default_route(AF_INET, &ifindex, &gw4), 0);
	inet_pton(AF_INET, "192.0.2.9", &want);
	ck_assert_uint_eq(gw4.s_addr, want.s_addr);

	close(fd);
}
END_TEST

/**
 * test_sh() - run a shell command: ip(8) and grep read what the code under
 *	       test did, independently of it
 * @cmd:	command
 *
 * Return: true if it exited with status 0
 */
static bool test_sh(const char *cmd)
{
	return system(cmd) == 0;
}

/**
 * test_shows() - check that a command prints a line matching a pattern
 * @cmd:	command, ip(8) here
 * @pattern:	basic regular expression for grep, without single quotes
 *
 * Return: true if it does
 */
static bool test_shows(const char *cmd, const char *pattern)
{
	char sh[BUFSIZ];
	int n;

	n = snprintf(sh, sizeof(sh), "%s | grep -q '%s'", cmd, pattern);
	ck_assert(n > 0 && (size_t)n < sizeof(sh));

	return test_sh(sh);
}

/**
 * test_copy_setup() - a namespace with the tap and a template interface,
 *		       and a context copying from the template
 * @c:		context to fill (test_ctx(), and the template's index)
 * @cmd:	ip(8) commands setting the template, TEST_HOST, up
 * @fd_host:	set to the template's descriptor
 *
 * Return: tap descriptor, or -1 if the environment doesn't allow it
 */
static int test_copy_setup(struct ctx *c, const char *cmd, int *fd_host)
{
	int fd;

	fd = test_ns_setup(c, "192.0.2.1");
	if (fd < 0)
		return -1;
	*fd_host = test_tap_open(TEST_HOST);
	ck_assert_int_ge(*fd_host, 0);
	if (!test_sh(cmd)) {
		fprintf(stderr, "test_netlink: ip(8) failed, skipping\n");
		close(*fd_host);
		close(fd);
		return -1;
	}

	c->ip4.ifindex = c->ip6.ifindex = if_nametoindex(TEST_HOST);
	ck_assert_uint_ne(c->ip4.ifindex, 0);

	return fd;
}

START_TEST(test_ll_nodad)
{
	struct ctx c;
	int fd;

	fd = test_ns_setup(&c, "192.0.2.1");
	if (fd < 0)
		return;
	if (!test_sh("ip -V >/dev/null 2>&1")) {
		fprintf(stderr, "test_netlink: no ip(8), skipping\n");
		close(fd);
		return;
	}

	/* One link-local address, made by us: never tentative, at once */
	ck_assert_int_eq(nl_ns_configure(&c, TEST_TAP), 0);
	ck_assert(test_sh("[ $(ip -6 -o addr show dev " TEST_TAP
			  " scope link | wc -l) -eq 1 ]"));
	ck_assert(test_shows("ip -6 addr show dev " TEST_TAP " scope link",
			     "fe80::5eff:fe10:2030/64 scope link nodad"));
	ck_assert(!test_shows("ip -6 addr show dev " TEST_TAP " tentative",
			      "inet6"));
	/* The kernel makes one again after down and up */
	ck_assert(test_shows("ip -d link show " TEST_TAP, "addrgenmode eui64"));

	close(fd);
}
END_TEST

START_TEST(test_copy)
{
	struct ctx c;
	int fd, fd_host;

	fd = test_copy_setup(&c, "ip link set " TEST_HOST " up && "
			     "ip addr add 192.0.2.2/24 dev " TEST_HOST " && "
			     "ip addr add 198.51.100.7/25 dev " TEST_HOST " && "
			     "ip addr add 2001:db8::2/64 dev " TEST_HOST
			     " nodad && ip addr add 2001:db8:6::6/64 dev "
			     TEST_HOST " nodad preferred_lft 0 && "
			     "ip route add default via 192.0.2.1 && "
			     "ip route add 203.0.113.0/24 via 192.0.2.77 && "
			     "ip -6 route add default via 2001:db8::1 dev "
			     TEST_HOST " && ip -6 route add 2001:db8:77::/48 "
			     "via 2001:db8::77", &fd_host);
	if (fd < 0)
		return;
	ck_assert_int_eq(nl_ns_configure(&c, TEST_TAP), 0);

	/* Every address but the deprecated one, every route */
	ck_assert(test_shows(TEST_ADDR4, "inet 198.51.100.7/25"));
	ck_assert(test_shows(TEST_ADDR4, "inet 192.0.2.2/24"));
	ck_assert(test_shows(TEST_ADDR6, "inet6 2001:db8::2/64 scope global "
			     "nodad"));
	ck_assert(!test_shows(TEST_ADDR6, "2001:db8:6::6"));
	ck_assert(test_shows(TEST_ROUTE4, "^203.0.113.0/24 via 192.0.2.77"));
	ck_assert(test_shows(TEST_ROUTE4, "^default via 192.0.2.1"));
	/* IPv6: siblings of the template's routes (one namespace here) */
	ck_assert(test_shows("ip -6 route show 2001:db8:77::/48",
			     "via 2001:db8::77 dev " TEST_TAP));
	ck_assert(test_shows("ip -6 route show default",
			     "via 2001:db8::1 dev " TEST_TAP));

	close(fd_host);
	close(fd);
}
END_TEST

START_TEST(test_copy_off)
{
	struct ctx c;
	int fd, fd_host;

	fd = test_copy_setup(&c, "ip link set " TEST_HOST " up && "
			     "ip addr add 198.51.100.7/25 dev " TEST_HOST " && "
			     "ip route add 203.0.113.0/24 via 198.51.100.77",
			     &fd_host);
	if (fd < 0)
		return;

	/* --no-copy-addrs, --no-copy-routes (or -a, -g): ours only */
	c.ip4.no_copy_addrs = c.ip4.no_copy_routes = true;
	c.ip6.no_copy_addrs = c.ip6.no_copy_routes = true;
	ck_assert_int_eq(nl_ns_configure(&c, TEST_TAP), 0);
	ck_assert(!test_shows(TEST_ADDR4, "198.51.100.7"));
	ck_assert(!test_shows(TEST_ROUTE4, "203.0.113.0"));

	close(fd_host);
	close(fd);
}
END_TEST

START_TEST(test_loopback_only)
{
	struct test_seen seen;
	struct ctx c;
	int fd;

	fd = test_ns_setup(&c, "192.0.2.1");
	if (fd < 0)
		return;

	/* --splice-only: no tap device to configure, loopback up */
	ck_assert_int_eq(nl_ns_configure(&c, NULL), 0);
	test_ifaddrs(&seen);
	ck_assert(seen.lo_up);
	ck_assert(!seen.tap_up);

	close(fd);
}
END_TEST

/**
 * netlink_suite() - all netlink tests
 *
 * Return: the suite
 */
static Suite *netlink_suite(void)
{
	Suite *s = suite_create("netlink");
	TCase *tc = tcase_create("namespace");

	tcase_add_test(tc, test_configure);
	tcase_add_test(tc, test_gateway_off_link);
	tcase_add_test(tc, test_configure_twice);
	tcase_add_test(tc, test_no_config_net);
	tcase_add_test(tc, test_errors);
	tcase_add_test(tc, test_metric);
	tcase_add_test(tc, test_ll_nodad);
	tcase_add_test(tc, test_copy);
	tcase_add_test(tc, test_copy_off);
	tcase_add_test(tc, test_loopback_only);
	suite_add_tcase(s, tc);

	return s;
}

/**
 * main() - run the netlink suite
 *
 * Return: 0 if all tests passed
 */
int main(void)
{
	SRunner *sr = srunner_create(netlink_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);

	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
