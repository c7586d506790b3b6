// SPDX-License-Identifier: GPL-2.0-or-later
/* test_conf.c - unit tests for the command line (conf/conf*.c)
 *
 * Theory of operation: command lines that integrations really use
 * (podman, rootlesskit, libvirt, QEMU) go through conf_parse(), which
 * asks the host nothing, and the resulting fields are checked one by one.
 * Lines that must end the process (errors, --help, --version) run in a
 * forked child with standard output and error sent to temporary files, so
 * that the exit status and the exact messages can be checked. Value
 * parsers and the resolv.conf reader are tested directly.
 */

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/wait.h>

#include "../../conf/conf.h"
#include "../../conf/conf_internal.h"
#include "../../util/log.h"

static struct ctx c;
static struct conf_given g;

#define ARGV(...)	((char *[]){ __VA_ARGS__, NULL })

/**
 * argv_count() - count arguments
 * @argv:	NULL-terminated arguments
 *
 * Return: count
 */
static int argv_count(char **argv)
{
	int n = 0;

	while (argv[n])
		n++;
	return n;
}

/**
 * parse() - run conf_parse() on a fresh configuration
 * @mode:	passt or pasta
 * @argv:	NULL-terminated arguments, argv[0] included
 */
static void parse(enum passt_mode mode, char **argv)
{
	conf_defaults(&c, mode);
	conf_parse(&c, argv_count(argv), argv, &g);
}

/**
 * struct result - what a child process did
 * @status:	exit status, -1 if it did not exit normally
 * @out:	standard output
 * @err:	standard error
 */
struct result {
	int status;
	char out[16384];
	char err[16384];
};

static struct result res;

/**
 * slurp() - read a temporary file from its start
 * @f:		file
 * @buf:	output
 * @size:	size of @buf
 */
static void slurp(FILE *f, char *buf, size_t size)
{
	size_t n;

	rewind(f);
	n = fread(buf, 1, size - 1, f);
	buf[n] = '\0';
}

/**
 * run() - run conf_parse() (or conf()) in a child, capture what it does
 * @mode:	passt or pasta
 * @full:	call conf() instead of conf_parse()
 * @argv:	NULL-terminated arguments
 *
 * A child that returns from parsing exits with status 42.
 */
static void run(enum passt_mode mode, bool full, char **argv)
{
	FILE *out = tmpfile(), *err = tmpfile();
	int st;
	pid_t pid;

	ck_assert(out && err);
	fflush(NULL);

	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		dup2(fileno(out), STDOUT_FILENO);
		dup2(fileno(err), STDERR_FILENO);
		conf_defaults(&c, mode);
		if (full)
			conf(&c, argv_count(argv), argv);
		else
			conf_parse(&c, argv_count(argv), argv, &g);
		fflush(NULL);
		_exit(42);
	}

	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	res.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	slurp(out, res.out, sizeof(res.out));
	slurp(err, res.err, sizeof(res.err));
	fclose(out);
	fclose(err);
}

/**
 * fails() - check a command line fails with status 1 and a message
 * @mode:	passt or pasta
 * @needle:	text standard error must contain
 * @argv:	NULL-terminated arguments
 */
static void fails(enum passt_mode mode, const char *needle, char **argv)
{
	run(mode, false, argv);
	ck_assert_msg(res.status == 1, "'%s ...%s' exited with %d", argv[0],
		      argv[1] ? argv[1] : "", res.status);
	ck_assert_msg(strstr(res.err, needle), "stderr lacks '%s': %s",
		      needle, res.err);
}

/**
 * ip4() - format an IPv4 address
 * @a:		address
 *
 * Return: static buffer
 */
static const char *ip4(struct in_addr a)
{
	static char buf[INET_ADDRSTRLEN];

	return inet_ntop(AF_INET, &a, buf, sizeof(buf));
}

/**
 * ip6() - format an IPv6 address
 * @a:		address
 *
 * Return: static buffer
 */
static const char *ip6(const struct in6_addr *a)
{
	static char buf[INET6_ADDRSTRLEN];

	return inet_ntop(AF_INET6, a, buf, sizeof(buf));
}

START_TEST(test_defaults)
{
	static const unsigned char mac[] = { 0x9a, 0x55, 0x9a, 0x55,
					     0x9a, 0x55 };

	parse(MODE_PASST, ARGV("passt"));
	ck_assert_uint_eq(c.mtu, 65520);
	ck_assert(!memcmp(c.our_mac, mac, sizeof(mac)));
	ck_assert_uint_eq(c.flow_max, FLOW_MAX_DEFAULT);
	ck_assert_uint_eq(c.log_size, LOG_SIZE_DEFAULT);
	ck_assert_int_eq(c.fd_tap_preopened, -1);
	ck_assert_int_eq(c.uid, geteuid());
	ck_assert_int_eq(c.gid, getegid());
	ck_assert(c.ip4.enabled && c.ip6.enabled);
	ck_assert(!c.no_dhcp_dns && !c.no_dhcp_search);
	ck_assert_int_eq(c.tcp_rmem, 0);
	ck_assert_int_eq(c.tap_wmem, 0);
	ck_assert_ptr_null(conf_unimplemented(&c));
	conf_ports_default(&c);
	ck_assert_int_eq(c.tcp_to_guest.mode, FWD_NONE);
	ck_assert_int_eq(c.udp_to_guest.mode, FWD_NONE);

	parse(MODE_PASTA, ARGV("pasta"));
	ck_assert(c.no_dhcp_dns && c.no_dhcp_search);
	ck_assert_ptr_null(c.pasta_cmd);
	ck_assert_int_eq(c.pasta_target_pid, 0);
	ck_assert_ptr_null(conf_unimplemented(&c));
	conf_ports_default(&c);
	ck_assert(fwd_spec_scans(&c.tcp_to_guest));
	ck_assert(fwd_spec_scans(&c.tcp_to_host));
	ck_assert(fwd_spec_scans(&c.udp_to_guest));
	ck_assert(fwd_spec_scans(&c.udp_to_host));
	conf_ports_finalise(&c);
	ck_assert_int_eq(c.tcp_to_guest.mode, FWD_AUTO);
	ck_assert_int_eq(c.tcp_to_host.mode, FWD_AUTO);
	ck_assert_int_eq(c.udp_to_guest.mode, FWD_AUTO);
	ck_assert_int_eq(c.udp_to_host.mode, FWD_AUTO);
}
END_TEST

START_TEST(test_podman)
{
	parse(MODE_PASTA,
	      ARGV("pasta", "--config-net", "-t", "127.0.0.1/8080-8081:80-81",
		   "-t", "::1/9090", "--dns-forward", "169.254.1.1",
		   "-u", "none", "-T", "none", "-U", "none", "--no-map-gw",
		   "--quiet", "--netns", "/run/user/1000/netns/netns-1234abcd",
		   "--map-guest-addr", "169.254.1.2"));

	ck_assert(c.pasta_conf_ns);
	ck_assert_int_eq(c.tcp_to_guest.mode, FWD_SPEC);
	ck_assert_uint_eq(c.tcp_to_guest.n_rules, 2);
	ck_assert_int_eq(c.udp_to_guest.mode, FWD_NONE);
	ck_assert_int_eq(c.tcp_to_host.mode, FWD_NONE);
	ck_assert_int_eq(c.udp_to_host.mode, FWD_NONE);
	ck_assert_str_eq(ip4(c.ip4.dns_match), "169.254.1.1");
	ck_assert(c.no_map_gw);
	ck_assert(c.quiet);
	ck_assert_str_eq(c.pasta_netns, "/run/user/1000/netns/netns-1234abcd");
	ck_assert_str_eq(ip4(c.ip4.map_guest_addr), "169.254.1.2");
	ck_assert_ptr_null(c.pasta_cmd);
	ck_assert_ptr_null(conf_unimplemented(&c));

	fwd_finalise(&c.tcp_to_guest, true, true, NULL, 0);
	ck_assert_uint_eq(fwd_port_target(&c.tcp_to_guest, 8081), 81);
	ck_assert(fwd_port_is_forwarded(&c.tcp_to_guest, 9090));

	/* Without user ports, and a rootless bridge network's --pid */
	parse(MODE_PASTA,
	      ARGV("pasta", "--config-net", "--dns-forward", "169.254.1.1",
		   "-t", "none", "-u", "none", "-T", "none", "-U", "none",
		   "--no-map-gw", "--quiet", "--netns",
		   "/run/user/1000/netns/rootless-netns", "--map-guest-addr",
		   "169.254.1.2", "--pid", "/run/user/1000/pasta.pid"));
	ck_assert_int_eq(c.tcp_to_guest.mode, FWD_NONE);
	ck_assert_str_eq(c.pidfile, "/run/user/1000/pasta.pid");

	/* User ports for UDP */
	parse(MODE_PASTA,
	      ARGV("pasta", "--config-net", "-u", "5353", "--netns", "x"));
	ck_assert_int_eq(c.udp_to_guest.mode, FWD_SPEC);
	ck_assert_ptr_null(conf_unimplemented(&c));
}
END_TEST

START_TEST(test_rootlesskit_pid)
{
	parse(MODE_PASTA,
	      ARGV("pasta", "--stderr", "--ns-ifname=tap0", "--mtu=65520",
		   "--config-net", "--address=10.0.2.100", "--netmask=24",
		   "--gateway=10.0.2.2", "--dns-forward=10.0.2.3",
		   "--no-map-gw", "--ipv4-only", "--tcp-ports=auto",
		   "--udp-ports=auto", "--host-lo-to-ns-lo", "4321"));

	ck_assert_str_eq(c.pasta_ifname, "tap0");
	ck_assert(g.pasta_ifname);
	ck_assert_uint_eq(c.mtu, 65520);
	ck_assert(c.pasta_conf_ns);
	ck_assert_str_eq(ip4(c.ip4.addr), "10.0.2.100");
	ck_assert_int_eq(c.ip4.prefix_len, 24);
	ck_assert(g.addr4 && g.prefix4 && g.gw4);
	ck_assert_str_eq(ip4(c.ip4.gw), "10.0.2.2");
	ck_assert_str_eq(ip4(c.ip4.dns_match), "10.0.2.3");
	ck_assert(c.no_map_gw);
	ck_assert(c.ip4.enabled && !c.ip6.enabled);
	ck_assert(fwd_spec_scans(&c.tcp_to_guest));
	ck_assert(fwd_spec_scans(&c.udp_to_guest));
	ck_assert(c.host_lo_to_ns_lo);
	ck_assert_int_eq(c.pasta_target_pid, 4321);
	ck_assert_ptr_null(c.pasta_cmd);
	ck_assert_ptr_null(conf_unimplemented(&c));
}
END_TEST

START_TEST(test_rootlesskit_netns)
{
	parse(MODE_PASTA,
	      ARGV("pasta", "--stderr", "--ns-ifname=tap0", "--mtu=65520",
		   "--config-net", "--address=10.0.2.100", "--netmask=24",
		   "--gateway=10.0.2.2", "--dns-forward=10.0.2.3",
		   "--tcp-ports=auto", "--udp-ports=auto",
		   "--userns=/proc/4321/ns/user",
		   "--netns=/proc/4321/ns/net"));

	ck_assert_str_eq(c.pasta_userns, "/proc/4321/ns/user");
	ck_assert_str_eq(c.pasta_netns, "/proc/4321/ns/net");
	ck_assert_int_eq(c.pasta_target_pid, 0);
	ck_assert(!c.no_map_gw);
	ck_assert(c.ip4.enabled && c.ip6.enabled);
}
END_TEST

START_TEST(test_libvirt)
{
	static const unsigned char mac[] = { 0x52, 0x54, 0x00, 0x12, 0x34,
					     0x56 };

	parse(MODE_PASST,
	      ARGV("passt", "--one-off", "--socket",
		   "/run/libvirt/qemu/passt/1-dom-net0.socket", "--pid",
		   "/run/libvirt/qemu/passt/1-dom-net0-passt.pid",
		   "--mtu", "1500", "--interface", "eth0", "--log-file",
		   "/var/log/passt.log", "--hostname", "dom", "--fqdn",
		   "dom.example.org", "--mac-addr", "52:54:00:12:34:56",
		   "--address", "192.168.122.10", "--netmask", "24",
		   "--address", "2001:db8::10", "--tcp-ports", "2222:22",
		   "--tcp-ports", "8080", "--udp-ports", "none"));

	ck_assert(c.one_off);
	ck_assert_str_eq(c.sock_path,
			 "/run/libvirt/qemu/passt/1-dom-net0.socket");
	ck_assert_str_eq(c.pidfile,
			 "/run/libvirt/qemu/passt/1-dom-net0-passt.pid");
	ck_assert_uint_eq(c.mtu, 1500);
	ck_assert_str_eq(g.ifname, "eth0");
	ck_assert_str_eq(c.log_file, "/var/log/passt.log");
	ck_assert_str_eq(c.hostname, "dom");
	ck_assert_str_eq(c.fqdn, "dom.example.org");
	ck_assert(!memcmp(c.our_mac, mac, sizeof(mac)));
	ck_assert_str_eq(ip4(c.ip4.addr), "192.168.122.10");
	ck_assert_int_eq(c.ip4.prefix_len, 24);
	ck_assert_str_eq(ip6(&c.ip6.addr), "2001:db8::10");
	ck_assert(g.addr4 && g.addr6 && !g.prefix6);
	ck_assert_int_eq(c.tcp_to_guest.mode, FWD_SPEC);
	ck_assert_uint_eq(c.tcp_to_guest.n_rules, 2);
	ck_assert_int_eq(c.udp_to_guest.mode, FWD_NONE);
	ck_assert_ptr_null(conf_unimplemented(&c));

	/* With vhost-user: accepted, and available */
	parse(MODE_PASST,
	      ARGV("passt", "--vhost-user", "--one-off", "--socket",
		   "/tmp/x.socket", "--pid", "/tmp/x.pid"));
	ck_assert(c.vhost_user);
	ck_assert_ptr_null(conf_unimplemented(&c));
}
END_TEST

START_TEST(test_qemu_10_1)
{
	parse(MODE_PASST,
	      ARGV("passt", "--quiet", "--mtu", "9000", "--address",
		   "10.0.0.2", "--netmask", "255.255.255.0", "--mac-addr",
		   "9a:55:9a:55:9a:01", "--gateway", "10.0.0.1",
		   "--interface", "eth0", "--outbound", "10.0.0.5",
		   "--outbound-if4", "eth0", "--outbound-if6", "eth1",
		   "--dns", "10.0.0.3", "--dns", "2001:db8::53", "--fqdn",
		   "vm.example.org", "--no-dhcp-dns", "--no-dhcp-search",
		   "--map-host-loopback", "10.0.0.1", "--map-guest-addr",
		   "10.0.0.4", "--no-icmp", "--no-ndp", "--no-dhcpv6",
		   "--no-ra", "--freebind", "--search", "a.example b.example",
		   "--tcp-ports", "80,443", "--udp-ports", "none", "--pid",
		   "/tmp/qemu-passt.pid", "--fd", "3"));

	ck_assert(c.quiet);
	ck_assert_uint_eq(c.mtu, 9000);
	ck_assert_int_eq(c.ip4.prefix_len, 24);
	ck_assert_str_eq(ip4(c.ip4.gw), "10.0.0.1");
	ck_assert_str_eq(ip4(c.ip4.outbound), "10.0.0.5");
	ck_assert_str_eq(c.ip4.outbound_if, "eth0");
	ck_assert_str_eq(c.ip6.outbound_if, "eth1");
	ck_assert_int_eq(c.ip4.dns_count, 1);
	ck_assert_int_eq(c.ip6.dns_count, 1);
	ck_assert_str_eq(ip6(&c.ip6.dns[0]), "2001:db8::53");
	ck_assert(c.no_dhcp_dns && c.no_dhcp_search);
	ck_assert_str_eq(ip4(c.ip4.map_host_lo), "10.0.0.1");
	ck_assert(g.map_host_lo4 && !g.map_host_lo6);
	ck_assert_str_eq(ip4(c.ip4.map_guest_addr), "10.0.0.4");
	ck_assert(c.no_icmp && c.no_ndp && c.no_dhcpv6 && c.no_ra);
	ck_assert(!c.no_tcp && !c.no_udp && !c.no_dhcp);
	ck_assert(c.freebind);
	ck_assert_int_eq(c.search_count, 2);
	ck_assert_str_eq(c.search[0], "a.example");
	ck_assert_str_eq(c.search[1], "b.example");
	ck_assert_int_eq(c.fd_tap_preopened, 3);
	ck_assert(c.one_off);
	ck_assert_str_eq(c.pidfile, "/tmp/qemu-passt.pid");
	ck_assert_ptr_null(conf_unimplemented(&c));

	/* --vhost-user with --fd, IPv4 only, all protocols off */
	parse(MODE_PASST,
	      ARGV("passt", "--vhost-user", "--quiet", "--ipv4-only",
		   "--no-tcp", "--no-udp", "--no-dhcp", "--dns-host",
		   "127.0.0.53", "--outbound-if4", "eth1", "--pid", "/tmp/p",
		   "--fd", "3"));
	ck_assert(c.vhost_user && c.fd_tap_preopened == 3);
	ck_assert_str_eq(c.ip4.outbound_if, "eth1");
	ck_assert(c.no_tcp && c.no_udp && c.no_dhcp);
	ck_assert(!c.ip6.enabled);
	ck_assert_str_eq(ip4(c.ip4.dns_host), "127.0.0.53");

	/* pasta --fd: a tap device of the caller, as upstream's pasta */
	parse(MODE_PASTA, ARGV("pasta", "--fd", "5", "--netns", "ns1"));
	ck_assert_int_eq(c.fd_tap_preopened, 5);
}
END_TEST

START_TEST(test_equals_forms)
{
	static char *const forms[][4] = {
		{ "--mtu=1400", NULL },
		{ "--mtu", "1400", NULL },
		{ "-m1400", NULL },
		{ "-m", "1400", NULL },
	};
	size_t i;

	for (i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		char *argv[6] = { "passt" };
		int n = 1;

		while (forms[i][n - 1]) {
			argv[n] = forms[i][n - 1];
			n++;
		}
		argv[n] = NULL;
		parse(MODE_PASST, argv);
		ck_assert_uint_eq(c.mtu, 1400);
	}

	parse(MODE_PASST, ARGV("passt", "--address=192.0.2.5/25",
			       "--tcp-ports=22", "--gateway=192.0.2.1",
			       "--runas=0:0", "--log-size=2M",
			       "--max-flows=100000", "--tcp-rmem=4M",
			       "--tcp-wmem=0", "--tap-rmem=1k",
			       "--tap-wmem=65536", "--socket-path=/tmp/s"));
	ck_assert_str_eq(ip4(c.ip4.addr), "192.0.2.5");
	ck_assert_int_eq(c.ip4.prefix_len, 25);
	ck_assert(fwd_parse(&c.tcp_to_guest, "22", NULL, 0) == -1);
	ck_assert_int_eq(c.uid, 0);
	ck_assert_int_eq(c.gid, 0);
	ck_assert_uint_eq(c.log_size, 2 * 1024 * 1024);
	ck_assert_uint_eq(c.flow_max, 100000);
	ck_assert_int_eq(c.tcp_rmem, 4 * 1024 * 1024);
	ck_assert_int_eq(c.tcp_wmem, 0);
	ck_assert_int_eq(c.tap_rmem, 1024);
	ck_assert_int_eq(c.tap_wmem, 65536);
	ck_assert_str_eq(c.sock_path, "/tmp/s");

	parse(MODE_PASST, ARGV("passt", "--address", "192.0.2.5/25",
			       "--max-flows", "16", "--max-flows", "1048576"));
	ck_assert_int_eq(c.ip4.prefix_len, 25);
	ck_assert_uint_eq(c.flow_max, 1048576);
}
END_TEST

START_TEST(test_pasta_positional)
{
	parse(MODE_PASTA, ARGV("pasta", "--config-net", "--", "ip", "addr"));
	ck_assert(c.pasta_conf_ns);
	ck_assert_ptr_nonnull(c.pasta_cmd);
	ck_assert_str_eq(c.pasta_cmd[0], "ip");
	ck_assert_str_eq(c.pasta_cmd[1], "addr");
	ck_assert_ptr_null(c.pasta_cmd[2]);

	parse(MODE_PASTA, ARGV("pasta", "--config-net", "ip", "-br", "addr"));
	ck_assert_str_eq(c.pasta_cmd[0], "ip");
	ck_assert_str_eq(c.pasta_cmd[1], "-br");
	ck_assert_str_eq(c.pasta_cmd[2], "addr");

	parse(MODE_PASTA, ARGV("pasta", "-f", "sh", "-c", "--version"));
	ck_assert(c.foreground);
	ck_assert_str_eq(c.pasta_cmd[2], "--version");

	parse(MODE_PASTA, ARGV("pasta", "1234"));
	ck_assert_int_eq(c.pasta_target_pid, 1234);
	ck_assert_ptr_null(c.pasta_cmd);

	parse(MODE_PASTA, ARGV("pasta", "--", "1234"));
	ck_assert_int_eq(c.pasta_target_pid, 0);
	ck_assert_str_eq(c.pasta_cmd[0], "1234");

	parse(MODE_PASTA, ARGV("pasta", "1234", "5678"));
	ck_assert_int_eq(c.pasta_target_pid, 0);
	ck_assert_str_eq(c.pasta_cmd[0], "1234");

	/* "--" as an option argument doesn't end the options */
	parse(MODE_PASTA, ARGV("pasta", "-I", "--", "1234"));
	ck_assert_str_eq(c.pasta_ifname, "--");
	ck_assert_int_eq(c.pasta_target_pid, 1234);

	parse(MODE_PASTA, ARGV("pasta", "--netns", "ns1"));
	ck_assert_str_eq(c.pasta_netns, "/run/netns/ns1");
	parse(MODE_PASTA, ARGV("pasta", "--netns=/var/run/netns/ns1",
			       "--netns-only", "--no-netns-quit"));
	ck_assert_str_eq(c.pasta_netns, "/var/run/netns/ns1");
	ck_assert(c.netns_only && c.no_netns_quit);
}
END_TEST

START_TEST(test_pasta_flags)
{
	static const unsigned char mac[] = { 0x02, 0x00, 0x00, 0x00, 0x00,
					     0x01 };

	parse(MODE_PASTA,
	      ARGV("pasta", "-e", "--no-copy-routes", "--no-copy-addrs",
		   "--no-splice", "--ns-mac-addr", "02:00:00:00:00:01",
		   "--dhcp-dns", "--dhcp-search", "-T", "8080", "-U", "none",
		   "-d", "--trace", "-f"));
	ck_assert(c.no_copy_routes && c.no_copy_addrs && c.no_splice);
	ck_assert(!memcmp(c.ns_mac, mac, sizeof(mac)));
	ck_assert(!c.no_dhcp_dns && !c.no_dhcp_search);
	ck_assert_int_eq(c.tcp_to_host.mode, FWD_SPEC);
	ck_assert_int_eq(c.udp_to_host.mode, FWD_NONE);
	ck_assert(c.debug && c.trace && c.foreground);
	ck_assert_ptr_null(conf_unimplemented(&c));

	parse(MODE_PASTA, ARGV("pasta", "--splice-only"));
	ck_assert(c.splice_only);
	ck_assert_ptr_null(conf_unimplemented(&c));
}
END_TEST

START_TEST(test_misc_options)
{
	parse(MODE_PASST,
	      ARGV("passt", "-D", "192.0.2.53", "-D", "198.51.100.53",
		   "-D", "2001:db8::1", "-S", "none", "--runas", "0",
		   "--chroot-fallback", "-1", "-H", "host",
		   "-M", "02:aa:bb:cc:dd:ee", "-6", "-g", "2001:db8::ff",
		   "-a", "2001:db8::2/56", "--map-host-loopback", "none",
		   "--repair-path", "none"));
	ck_assert_int_eq(c.ip4.dns_count, 0);	/* dropped by -6 */
	ck_assert_int_eq(c.ip6.dns_count, 1);
	ck_assert(c.no_search);
	ck_assert(c.chroot_fallback && c.one_off);
	ck_assert(!c.ip4.enabled && c.ip6.enabled);
	ck_assert_int_eq(c.ip6.prefix_len, 56);
	ck_assert(g.gw6 && g.map_host_lo4 && g.map_host_lo6);
	ck_assert_str_eq(c.repair_path, "");
	ck_assert_ptr_null(conf_unimplemented(&c));

	parse(MODE_PASST, ARGV("passt", "-D", "none", "-S", "a b c d e f",
			       "-p", "/tmp/cap", "--stats", "10"));
	ck_assert(c.no_dns);
	ck_assert_int_eq(c.search_count, 6);
	ck_assert_str_eq(c.pcap, "/tmp/cap");
	ck_assert_int_eq(c.stats_delay, 10);
	ck_assert_ptr_null(conf_unimplemented(&c));

	parse(MODE_PASST, ARGV("passt", "--stats", "10", "-c", "/tmp/c"));
	ck_assert_int_eq(c.stats_delay, 10);
	ck_assert_str_eq(c.conf_path, "/tmp/c");
	ck_assert_ptr_null(conf_unimplemented(&c));

	parse(MODE_PASST, ARGV("passt", "--vhost-user", "--repair-path",
			       "/tmp/r", "--migrate-exit",
			       "--migrate-no-linger"));
	ck_assert_str_eq(c.repair_path, "/tmp/r");
	ck_assert(!c.no_repair && c.migrate_exit && c.migrate_no_linger);
	ck_assert_ptr_null(conf_unimplemented(&c));

	/* After --vhost-user or before it, "none" or "./none" */
	parse(MODE_PASST, ARGV("passt", "--repair-path", "none",
			       "--vhost-user"));
	ck_assert(c.no_repair);
	ck_assert_str_eq(c.repair_path, "");
	parse(MODE_PASST, ARGV("passt", "--repair-path", "./none",
			       "--vhost-user"));
	ck_assert(!c.no_repair);
	ck_assert_str_eq(c.repair_path, "./none");
}
END_TEST

START_TEST(test_unknown_option)
{
	fails(MODE_PASTA, "unrecognized option '--map-guest-address'",
	      ARGV("pasta", "--config-net", "--map-guest-address",
		   "169.254.1.2"));
	ck_assert(strstr(res.err, "--help"));
	ck_assert_str_eq(res.out, "");

	fails(MODE_PASST, "unrecognized option '--bogus'",
	      ARGV("passt", "--bogus"));
	fails(MODE_PASST, "invalid option", ARGV("passt", "-Z"));
	fails(MODE_PASST, "requires an argument", ARGV("passt", "--mtu"));

	/* An unknown option before --version still fails */
	fails(MODE_PASTA, "unrecognized option '--host-lo-to-ns-lo-x'",
	      ARGV("pasta", "--host-lo-to-ns-lo-x", "--version"));
}
END_TEST

START_TEST(test_version_help)
{
	run(MODE_PASTA, false, ARGV("pasta", "--version"));
	ck_assert_int_eq(res.status, 0);
	ck_assert(!strncmp(res.out, "pasta " VERSION "\n",
			   strlen("pasta " VERSION "\n")));

	run(MODE_PASST, false, ARGV("passt", "--version"));
	ck_assert_int_eq(res.status, 0);
	ck_assert(!strncmp(res.out, "passt " VERSION "\n",
			   strlen("passt " VERSION "\n")));

	/* RootlessKit's probe */
	run(MODE_PASTA, false, ARGV("pasta", "--host-lo-to-ns-lo",
				    "--version"));
	ck_assert_int_eq(res.status, 0);
	ck_assert(!strncmp(res.out, "pasta ", 6));

	run(MODE_PASTA, true, ARGV("pasta", "--config-net", "-t", "22",
				   "--version", "--bogus"));
	ck_assert_int_eq(res.status, 0);

	run(MODE_PASST, false, ARGV("passt", "--help"));
	ck_assert_int_eq(res.status, 0);
	ck_assert(strstr(res.out, "Usage: passt"));
	ck_assert(strstr(res.out, "--max-flows"));
	ck_assert(strstr(res.out, "--tap-rmem"));
	ck_assert(strstr(res.out, "--socket"));
	ck_assert(!strstr(res.out, "--netns"));
	ck_assert_str_eq(res.err, "");

	run(MODE_PASTA, false, ARGV("pasta", "-h"));
	ck_assert_int_eq(res.status, 0);
	ck_assert(strstr(res.out, "Usage: pasta"));
	ck_assert(strstr(res.out, "--netns"));
	ck_assert(strstr(res.out, "--tcp-ns"));
	ck_assert(strstr(res.out, "--tcp-wmem"));
	ck_assert(!strstr(res.out, "--vhost-user"));

	run(MODE_PASST, false, ARGV("passt", "--print-capabilities"));
	ck_assert_int_eq(res.status, 0);
	ck_assert_str_eq(res.out, "{\n  \"type\": \"net\"\n}\n");

	fails(MODE_PASTA, "passt option", ARGV("pasta",
					       "--print-capabilities"));
}
END_TEST

START_TEST(test_bad_numbers)
{
	fails(MODE_PASST, "-m/--mtu", ARGV("passt", "--mtu", "70000"));
	fails(MODE_PASST, "-m/--mtu", ARGV("passt", "--mtu", "65521"));
	fails(MODE_PASST, "-m/--mtu", ARGV("passt", "--mtu", "abc"));
	fails(MODE_PASST, "-m/--mtu", ARGV("passt", "--mtu", "-1"));
	fails(MODE_PASST, "-m/--mtu", ARGV("passt", "--mtu", ""));
	fails(MODE_PASST, "-m/--mtu", ARGV("passt", "--mtu", "1500x"));
	fails(MODE_PASST, "-m/--mtu", ARGV("passt", "--mtu", " 1500"));
	fails(MODE_PASST, "--max-flows", ARGV("passt", "--max-flows", "15"));
	fails(MODE_PASST, "--max-flows",
	      ARGV("passt", "--max-flows", "1048577"));
	fails(MODE_PASST, "--tcp-rmem", ARGV("passt", "--tcp-rmem", "2G"));
	fails(MODE_PASST, "--tcp-wmem", ARGV("passt", "--tcp-wmem", "1X"));
	fails(MODE_PASST, "--tap-wmem", ARGV("passt", "--tap-wmem", "-5"));
	fails(MODE_PASST, "--log-size", ARGV("passt", "--log-size", "100"));
	fails(MODE_PASST, "-F/--fd", ARGV("passt", "--fd", "-1"));
	fails(MODE_PASST, "--stats", ARGV("passt", "--stats", "0"));
	fails(MODE_PASST, "-t/--tcp-ports", ARGV("passt", "-t", "70000"));
	ck_assert(strstr(res.err, "invalid port range '70000'"));
	fails(MODE_PASTA, "-T/--tcp-ns", ARGV("pasta", "-T", "80,80"));
	fails(MODE_PASST, "'auto' is only valid for pasta",
	      ARGV("passt", "-t", "auto"));
	fails(MODE_PASTA, "-t/--tcp-ports", ARGV("pasta", "-t", "all,22"));
}
END_TEST

START_TEST(test_bad_addresses)
{
	fails(MODE_PASST, "-a/--address", ARGV("passt", "-a", "300.1.1.1"));
	fails(MODE_PASST, "-a/--address", ARGV("passt", "-a", "127.0.0.1"));
	fails(MODE_PASST, "-a/--address", ARGV("passt", "-a", "224.0.0.1"));
	fails(MODE_PASST, "-a/--address", ARGV("passt", "-a", "0.0.0.0"));
	fails(MODE_PASST, "-a/--address", ARGV("passt", "-a", "::1"));
	fails(MODE_PASST, "-a/--address", ARGV("passt", "-a", "10.0.0.1/33"));
	fails(MODE_PASST, "-a/--address",
	      ARGV("passt", "-a", "2001:db8::1/129"));
	fails(MODE_PASST, "only one IPv4",
	      ARGV("passt", "-a", "10.0.0.1", "-a", "10.0.0.2"));
	fails(MODE_PASST, "only one IPv6",
	      ARGV("passt", "-g", "2001:db8::1", "-g", "2001:db8::2"));
	fails(MODE_PASST, "-g/--gateway", ARGV("passt", "-g", "gateway"));
	fails(MODE_PASST, "-n/--netmask",
	      ARGV("passt", "-n", "255.0.255.0"));
	fails(MODE_PASST, "-n/--netmask", ARGV("passt", "-n", "33"));
	fails(MODE_PASST, "conflicts",
	      ARGV("passt", "-a", "10.0.0.1/8", "-n", "24"));
	fails(MODE_PASST, "-M/--mac-addr",
	      ARGV("passt", "-M", "01:00:5e:00:00:01"));
	fails(MODE_PASST, "-M/--mac-addr", ARGV("passt", "-M", "9a:55:9a"));
	fails(MODE_PASST, "-M/--mac-addr",
	      ARGV("passt", "-M", "9a:55:9a:55:9a:55:00"));
	fails(MODE_PASST, "-D/--dns", ARGV("passt", "-D", "dns.example"));
	fails(MODE_PASST, "at most 3 IPv4",
	      ARGV("passt", "-D", "192.0.2.1", "-D", "192.0.2.2",
		   "-D", "192.0.2.3", "-D", "192.0.2.4"));
	fails(MODE_PASST, "conflicts",
	      ARGV("passt", "-D", "none", "-D", "192.0.2.1"));
	fails(MODE_PASST, "conflicts",
	      ARGV("passt", "-S", "a.example", "-S", "none"));
	fails(MODE_PASST, "at most 6",
	      ARGV("passt", "-S", "a b c d e f g"));
	fails(MODE_PASST, "--map-guest-addr",
	      ARGV("passt", "--map-guest-addr", "1.2.3"));
	fails(MODE_PASST, "-i/--interface",
	      ARGV("passt", "-i", "averyveryverylongname"));
	fails(MODE_PASST, "--runas",
	      ARGV("passt", "--runas", "no-such-user-here"));
	fails(MODE_PASST, "--runas",
	      ARGV("passt", "--runas", "0:no-such-group-here"));
}
END_TEST

START_TEST(test_conflicts)
{
	fails(MODE_PASST, "mutually exclusive",
	      ARGV("passt", "-4", "-6"));
	fails(MODE_PASST, "mutually exclusive",
	      ARGV("passt", "-s", "/tmp/s", "-F", "3"));
	fails(MODE_PASTA, "mutually exclusive",
	      ARGV("pasta", "--no-splice", "--splice-only"));
	fails(MODE_PASTA, "--netns can't be combined",
	      ARGV("pasta", "--netns", "ns1", "1234"));
	fails(MODE_PASTA, "--netns can't be combined",
	      ARGV("pasta", "--netns", "ns1", "--", "sh"));
	fails(MODE_PASTA, "--userns needs",
	      ARGV("pasta", "--userns", "/proc/1/ns/user"));
	fails(MODE_PASST, "no arguments", ARGV("passt", "extra"));
	fails(MODE_PASST, "pasta option", ARGV("passt", "--netns", "x"));
	fails(MODE_PASST, "pasta option", ARGV("passt", "-T", "22"));
	fails(MODE_PASST, "pasta option", ARGV("passt", "--dhcp-dns"));
	fails(MODE_PASST, "pasta option", ARGV("passt", "--splice-only"));

	/* passt takes --no-splice, and ignores it (as upstream's passt) */
	run(MODE_PASST, false, ARGV("passt", "--no-splice"));
	ck_assert_msg(res.status == 42, "passt --no-splice: %d: %s",
		      res.status, res.err);
	parse(MODE_PASST, ARGV("passt", "--no-splice"));
	ck_assert(!c.no_splice);
	fails(MODE_PASTA, "passt option", ARGV("pasta", "-s", "/tmp/s"));
	fails(MODE_PASTA, "passt option", ARGV("pasta", "-1"));
	fails(MODE_PASTA, "passt option", ARGV("pasta", "--no-dhcp-dns"));
	fails(MODE_PASTA, "-t/--tcp-ports: 'none' cannot be combined",
	      ARGV("pasta", "-t", "22", "-t", "none"));
	fails(MODE_PASTA, "-t/--tcp-ports: conflicting rules",
	      ARGV("pasta", "-t", "8080", "-t", "127.0.0.1/8080"));

	/* As upstream: "none" first, then ports (podman passes -t none from
	 * --net=pasta:-t,none, then -t for each -p)
	 */
	parse(MODE_PASTA, ARGV("pasta", "-t", "none", "-t", "22",
			       "-u", "none", "-u", "127.0.0.1/53",
			       "-u", "::1/53"));
	ck_assert_int_eq(c.tcp_to_guest.mode, FWD_SPEC);
	ck_assert(fwd_port_is_forwarded(&c.tcp_to_guest, 22));
	ck_assert_uint_eq(c.udp_to_guest.n_rules, 2);
	ck_assert_uint_eq(c.udp_to_guest.rules[1].first, 53);
	fails(MODE_PASST, "'auto' is only valid for pasta",
	      ARGV("passt", "-t", "auto"));
	fails(MODE_PASST, "'auto' is only valid for pasta",
	      ARGV("passt", "-u", "::1/80-82,auto"));
}
END_TEST

START_TEST(test_disabled_family)
{
	/* Podman's --net=pasta:-6: its IPv4 settings, accepted and ignored,
	 * without a word (as upstream)
	 */
	run(MODE_PASTA, false,
	    ARGV("pasta", "--config-net", "--dns-forward", "169.254.1.1",
		 "--map-guest-addr", "169.254.1.2", "-6", "--netns", "x"));
	ck_assert_msg(res.status == 42, "status %d: %s", res.status,
		      res.err);
	ck_assert_msg(!res.err[0], "stderr: %s", res.err);

	parse(MODE_PASTA,
	      ARGV("pasta", "--dns-forward", "169.254.1.1", "-a", "192.0.2.9",
		   "-n", "24", "-g", "192.0.2.1", "-D", "192.0.2.53",
		   "--dns-host", "192.0.2.54", "--map-host-loopback",
		   "169.254.1.3", "--map-guest-addr", "169.254.1.2", "-o",
		   "192.0.2.9", "-6",
		   "--dns-forward", "2001:db8::53", "-g", "2001:db8::1"));
	ck_assert(!c.ip4.enabled && c.ip6.enabled);
	ck_assert_str_eq(ip4(c.ip4.dns_match), "0.0.0.0");
	ck_assert_str_eq(ip4(c.ip4.map_guest_addr), "0.0.0.0");
	ck_assert_str_eq(ip4(c.ip4.map_host_lo), "0.0.0.0");
	ck_assert_str_eq(ip4(c.ip4.gw), "0.0.0.0");
	ck_assert_str_eq(ip4(c.ip4.addr), "0.0.0.0");
	ck_assert_str_eq(ip4(c.ip4.outbound), "0.0.0.0");
	ck_assert_int_eq(c.ip4.dns_count, 0);
	ck_assert_str_eq(ip6(&c.ip6.dns_match), "2001:db8::53");
	ck_assert_str_eq(ip6(&c.ip6.gw), "2001:db8::1");

	parse(MODE_PASST,
	      ARGV("passt", "-4", "--dns-forward", "2001:db8::53", "-a",
		   "2001:db8::9/64", "-D", "2001:db8::54", "--map-guest-addr",
		   "2001:db8::2", "--dns-host", "::1", "-a", "192.0.2.9",
		   "--map-host-loopback", "2001:db8::1", "-t", "8080"));
	ck_assert(c.ip4.enabled && !c.ip6.enabled);
	ck_assert(IN6_IS_ADDR_UNSPECIFIED(&c.ip6.dns_match));
	ck_assert(IN6_IS_ADDR_UNSPECIFIED(&c.ip6.addr));
	ck_assert(IN6_IS_ADDR_UNSPECIFIED(&c.ip6.map_guest_addr));
	ck_assert(IN6_IS_ADDR_UNSPECIFIED(&c.ip6.dns_host));
	ck_assert_int_eq(c.ip6.dns_count, 0);
	ck_assert_str_eq(ip4(c.ip4.addr), "192.0.2.9");
}
END_TEST

START_TEST(test_disabled_family_fwd)
{
	/* Rules that only the disabled family could serve: refused */
	fails(MODE_PASTA, "-t: ports 8080-8080 listen on 192.0.2.2, but -6",
	      ARGV("pasta", "-t", "192.0.2.2/8080", "-6"));
	fails(MODE_PASTA, "listen on 0.0.0.0, but -6/--ipv6-only",
	      ARGV("pasta", "-6", "-t", "0.0.0.0/8080"));
	fails(MODE_PASTA, "-u: ports 1-",
	      ARGV("pasta", "-4", "-u", "::1/all"));
	fails(MODE_PASTA, "listen on ::1, but -4/--ipv4-only",
	      ARGV("pasta", "-4", "-u", "::1/all"));
	fails(MODE_PASTA, "-t: ports 80-80 go to 192.0.2.9, but -6",
	      ARGV("pasta", "-6", "-t", "80:192.0.2.9"));
	fails(MODE_PASST, "go to 2001:db8::9, but -4/--ipv4-only disables",
	      ARGV("passt", "-4", "-t", "80:[2001:db8::9]/90"));
	fails(MODE_PASST, "-t: ports 1-",
	      ARGV("passt", "-6", "-t", "all:192.0.2.9"));

	/* An outbound interface of the disabled family (as upstream) */
	fails(MODE_PASTA, "--outbound-if4 eth0: -6/--ipv6-only disables",
	      ARGV("pasta", "--outbound-if4", "eth0", "-6"));
	fails(MODE_PASST, "--outbound-if6 eth0: -4/--ipv4-only disables",
	      ARGV("passt", "-4", "--outbound-if6", "eth0"));

	/* Rules of the family left, or of both: fine */
	parse(MODE_PASTA, ARGV("pasta", "-6", "-t", "::1/80,81", "-u",
			       "[2001:db8::1]%eth0/all", "-T", "8080"));
	ck_assert_uint_eq(c.tcp_to_guest.n_rules, 2);
}
END_TEST

START_TEST(test_unimplemented_exit)
{
	run(MODE_PASST, true, ARGV("passt", "--repair-path", "/tmp/r"));
	ck_assert_int_eq(res.status, 1);
	ck_assert(strstr(res.err, "--repair-path is for vhost-user mode"));

	run(MODE_PASST, true, ARGV("passt", "--migrate-exit"));
	ck_assert_int_eq(res.status, 1);
	ck_assert(strstr(res.err, "for vhost-user mode only"));

	run(MODE_PASST, true, ARGV("passt", "-F", "999"));
	ck_assert_int_eq(res.status, 1);
	ck_assert(strstr(res.err, "-F/--fd: 999 is not an open"));
}
END_TEST

/**
 * print_to() - run conf_print() on the configuration, capture stderr
 * @buf:	output
 * @size:	size of @buf
 */
static void print_to(char *buf, size_t size)
{
	FILE *f = tmpfile();
	int saved;

	ck_assert_ptr_nonnull(f);
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	dup2(fileno(f), STDERR_FILENO);
	conf_print(&c);
	dup2(saved, STDERR_FILENO);
	close(saved);
	slurp(f, buf, size);
	fclose(f);
}

/**
 * prints() - parse a command line, check what conf_print() prints
 * @mode:	passt or pasta
 * @argv:	NULL-terminated arguments
 * @needle:	text it must print, NULL if it must print nothing
 */
static void prints(enum passt_mode mode, char **argv, const char *needle)
{
	char buf[4096];

	parse(mode, argv);
	print_to(buf, sizeof(buf));
	if (needle)
		ck_assert_msg(strstr(buf, needle), "no '%s' in: %s", needle,
			      buf);
	else
		ck_assert_msg(!buf[0], "printed: %s", buf);
}

START_TEST(test_print)
{
	char buf[4096];

	parse(MODE_PASTA,
	      ARGV("pasta", "-a", "192.0.2.2/24", "-g", "192.0.2.1",
		   "-t", "22,[::1]/8080:80,2000-2010,~2005", "-T", "none",
		   "-D", "192.0.2.53", "-S", "example.org", "--dhcp-dns",
		   "--netns", "ns1", "-I", "tap9"));
	conf_ports_default(&c);
	conf_ports_finalise(&c);
	c.ip6.enabled = false;
	print_to(buf, sizeof(buf));

	ck_assert_msg(strstr(buf, "Namespace: /run/netns/ns1"), "%s", buf);
	ck_assert(strstr(buf, "tap9"));
	ck_assert(strstr(buf, "192.0.2.2/24"));
	ck_assert(strstr(buf, "gateway: 192.0.2.1"));
	ck_assert(strstr(buf, "DNS: 192.0.2.53"));
	ck_assert(strstr(buf, "example.org"));
	ck_assert(strstr(buf, "IPv6: disabled"));
	ck_assert_msg(strstr(buf, "host: 22, [::1]/8080 -> 80, 2000-2004, "
			     "2006-2010\n"), "%s", buf);
	ck_assert(strstr(buf, "namespace: none"));
	ck_assert_msg(strstr(buf, "UDP ports forwarded from the host: "
			     "1-"), "%s", buf);
	ck_assert(strstr(buf, "(best effort, auto)"));

	/* pasta running a command: nothing without -d, as upstream */
	prints(MODE_PASTA, ARGV("pasta", "-t", "none", "--", "sh"), NULL);
	prints(MODE_PASTA, ARGV("pasta", "-d", "-t", "none"),
	       "Namespace: new, running a shell");
	prints(MODE_PASTA, ARGV("pasta", "-t", "none", "1234"),
	       "Namespace: of PID 1234");
	prints(MODE_PASST, ARGV("passt", "-t", "none"), "MTU: 65520");
}
END_TEST

START_TEST(test_values)
{
	unsigned long long b;
	unsigned char mac[6];
	struct in6_addr a;
	unsigned long v;
	int af, len;
	uid_t uid;
	gid_t gid;

	ck_assert_int_eq(conf_ulong("0", 0, 5, &v), 0);
	ck_assert_int_eq(conf_ulong("5", 0, 5, &v), 0);
	ck_assert_uint_eq(v, 5);
	ck_assert_int_eq(conf_ulong("6", 0, 5, &v), -1);
	ck_assert_int_eq(conf_ulong("0x5", 0, 5, &v), -1);
	ck_assert_int_eq(conf_ulong("99999999999999999999999", 0, ~0UL, &v),
			 -1);

	ck_assert_int_eq(conf_bytes("1G", 0, 1ULL << 30, &b), 0);
	ck_assert_uint_eq(b, 1ULL << 30);
	ck_assert_int_eq(conf_bytes("3m", 0, 1ULL << 30, &b), 0);
	ck_assert_uint_eq(b, 3ULL << 20);
	ck_assert_int_eq(conf_bytes("1KB", 0, 1ULL << 30, &b), -1);
	ck_assert_int_eq(conf_bytes("18446744073709551615K", 0, ~0ULL, &b),
			 -1);

	ck_assert_int_eq(conf_inet_prefix("10.1.2.3/8", &af, &a, &len), 0);
	ck_assert_int_eq(af, AF_INET);
	ck_assert_int_eq(len, 8);
	ck_assert_int_eq(conf_inet_prefix("2001:db8::/48", &af, &a, &len), 0);
	ck_assert_int_eq(af, AF_INET6);
	ck_assert_int_eq(len, 48);
	ck_assert_int_eq(conf_inet_prefix("10.1.2.3", &af, &a, &len), 0);
	ck_assert_int_eq(len, -1);
	ck_assert_int_eq(conf_inet_prefix("10.1.2.3/", &af, &a, &len), -1);

	ck_assert_int_eq(conf_netmask("255.255.240.0", &len), 0);
	ck_assert_int_eq(len, 20);
	ck_assert_int_eq(conf_netmask("0.0.0.0", &len), 0);
	ck_assert_int_eq(len, 0);
	ck_assert_int_eq(conf_netmask("255.255.255.255", &len), 0);
	ck_assert_int_eq(len, 32);
	ck_assert_int_eq(conf_netmask("0.255.255.255", &len), -1);

	ck_assert_int_eq(conf_mac("9a:55:9A:55:9a:5", mac), 0);
	ck_assert_uint_eq(mac[2], 0x9a);
	ck_assert_uint_eq(mac[5], 0x05);
	ck_assert_int_eq(conf_mac("9a:55:9a:55:9a:", mac), -1);
	ck_assert_int_eq(conf_mac("9a-55-9a-55-9a-55", mac), -1);
	ck_assert_int_eq(conf_mac("9a:55:9a:55:9a:555", mac), -1);

	ck_assert_int_eq(conf_runas("root", &uid, &gid), 0);
	ck_assert_int_eq(uid, 0);
	ck_assert_int_eq(conf_runas("12345", &uid, &gid), 0);
	ck_assert_int_eq(uid, 12345);
	ck_assert_int_eq(conf_runas("12345:54321", &uid, &gid), 0);
	ck_assert_int_eq(gid, 54321);
	ck_assert_int_eq(conf_runas("root:root", &uid, &gid), 0);
	ck_assert_int_eq(conf_runas("4294967295", &uid, &gid), -1);
	ck_assert_int_eq(conf_runas("0:", &uid, &gid), -1);
	ck_assert_int_eq(conf_runas(":0", &uid, &gid), -1);

	ck_assert_int_eq(conf_prefix_classful((struct in_addr){
				htonl(0x0a000001) }), 8);
	ck_assert_int_eq(conf_prefix_classful((struct in_addr){
				htonl(0xac100001) }), 16);
	ck_assert_int_eq(conf_prefix_classful((struct in_addr){
				htonl(0xc0a80001) }), 24);
}
END_TEST

/**
 * resolv_write() - write a temporary resolv.conf
 * @path:	template, replaced by the file's path
 * @text:	contents
 */
static void resolv_write(char *path, const char *text)
{
	int fd = mkstemp(path);
	FILE *f;

	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

START_TEST(test_resolv)
{
	char path[] = "/tmp/test_conf_resolvXXXXXX";

	resolv_write(path, "# comment\n"
			   "nameserver 127.0.0.53\n"
			   "nameserver 192.0.2.53 # trailing comment\n"
			   "nameserver ::1\n"
			   "nameserver 2001:db8::53\n"
			   "nameserver 198.51.100.53\n"
			   "nameserver 198.51.100.54\n"
			   "nameserver 198.51.100.55\n"
			   "nameserver not-an-address\n"
			   "domain old.example\n"
			   "search a.example\tb.example\n"
			   "options edns0\n");

	parse(MODE_PASST, ARGV("passt"));
	ck_assert_int_eq(conf_resolv_read(&c, path, &g), 0);
	ck_assert_int_eq(c.ip4.dns_count, 3);
	ck_assert_str_eq(ip4(c.ip4.dns[0]), "192.0.2.53");
	ck_assert_str_eq(ip4(c.ip4.dns[2]), "198.51.100.54");
	ck_assert_int_eq(c.ip6.dns_count, 1);
	ck_assert_str_eq(ip6(&c.ip6.dns[0]), "2001:db8::53");
	ck_assert_str_eq(ip4(c.ip4.dns_host), "127.0.0.53");
	ck_assert_str_eq(ip6(&c.ip6.dns_host), "::1");
	ck_assert_int_eq(c.search_count, 2);
	ck_assert_str_eq(c.search[0], "a.example");
	ck_assert_str_eq(c.search[1], "b.example");

	/* -D and -S win, --dns-host too */
	parse(MODE_PASST, ARGV("passt", "-D", "203.0.113.1", "-S", "x.example",
			       "--dns-host", "203.0.113.2"));
	ck_assert_int_eq(conf_resolv_read(&c, path, &g), 0);
	ck_assert_int_eq(c.ip4.dns_count, 1);
	ck_assert_str_eq(ip4(c.ip4.dns[0]), "203.0.113.1");
	/* -D of one family leaves the other to resolv.conf, as upstream */
	ck_assert_int_eq(c.ip6.dns_count, 1);
	ck_assert_str_eq(ip6(&c.ip6.dns[0]), "2001:db8::53");
	ck_assert_str_eq(ip4(c.ip4.dns_host), "203.0.113.2");
	ck_assert_str_eq(ip6(&c.ip6.dns_host), "::1");
	ck_assert_int_eq(c.search_count, 1);
	ck_assert_str_eq(c.search[0], "x.example");

	/* none, and disabled families */
	parse(MODE_PASST, ARGV("passt", "-D", "none", "-S", "none", "-4"));
	ck_assert_int_eq(conf_resolv_read(&c, path, &g), 0);
	ck_assert_int_eq(c.ip4.dns_count, 0);
	ck_assert_int_eq(c.search_count, 0);
	ck_assert(IN6_IS_ADDR_UNSPECIFIED(&c.ip6.dns_host));

	unlink(path);
	ck_assert_int_eq(conf_resolv_read(&c, path, &g), -1);
}
END_TEST

/**
 * resolv_mapped() - parse, set the mapping addresses as conf_host() does,
 *		     read a resolv.conf
 * @text:	contents of the resolv.conf
 * @argv:	command line
 */
static void resolv_mapped(const char *text, char **argv)
{
	char path[] = "/tmp/test_conf_resolvXXXXXX";

	resolv_write(path, text);
	parse(MODE_PASST, argv);
	if (!g.map_host_lo4 && !c.no_map_gw)
		inet_pton(AF_INET, "192.0.2.1", &c.ip4.map_host_lo);
	if (!g.map_host_lo6 && !c.no_map_gw)
		inet_pton(AF_INET6, "2001:db8::1", &c.ip6.map_host_lo);
	ck_assert_int_eq(conf_resolv_read(&c, path, &g), 0);
	unlink(path);
}

START_TEST(test_resolv_loopback)
{
	const char *resolved = "nameserver 127.0.0.53\nnameserver ::1\n";

	/* systemd-resolved: the gateway is offered and forwards DNS */
	resolv_mapped(resolved, ARGV("passt"));
	ck_assert_int_eq(c.ip4.dns_count, 1);
	ck_assert_str_eq(ip4(c.ip4.dns[0]), "192.0.2.1");
	ck_assert_str_eq(ip4(c.ip4.dns_match), "192.0.2.1");
	ck_assert_str_eq(ip4(c.ip4.dns_host), "127.0.0.53");
	ck_assert_int_eq(c.ip6.dns_count, 1);
	ck_assert_str_eq(ip6(&c.ip6.dns[0]), "2001:db8::1");
	ck_assert_str_eq(ip6(&c.ip6.dns_match), "2001:db8::1");
	ck_assert_str_eq(ip6(&c.ip6.dns_host), "::1");

	/* --dns-forward given: that address stands for the resolver */
	resolv_mapped(resolved, ARGV("passt", "--dns-forward", "169.254.1.1"));
	ck_assert_int_eq(c.ip4.dns_count, 1);
	ck_assert_str_eq(ip4(c.ip4.dns[0]), "169.254.1.1");
	ck_assert_str_eq(ip4(c.ip4.dns_match), "169.254.1.1");

	/* No mapping at all: unreachable, left out */
	resolv_mapped(resolved, ARGV("passt", "--no-map-gw"));
	ck_assert_int_eq(c.ip4.dns_count, 0);
	ck_assert_int_eq(c.ip6.dns_count, 0);
	ck_assert_str_eq(ip4(c.ip4.dns_host), "127.0.0.53");

	/* A mix: file order, each server once, three at most */
	resolv_mapped("nameserver 127.0.0.53\n"
		      "nameserver 192.0.2.53\n"
		      "nameserver 127.0.0.1\n"
		      "nameserver 2001:db8::53\n"
		      "nameserver ::1\n"
		      "nameserver 192.0.2.54\n"
		      "nameserver 192.0.2.55\n", ARGV("passt"));
	ck_assert_int_eq(c.ip4.dns_count, 3);
	ck_assert_str_eq(ip4(c.ip4.dns[0]), "192.0.2.1");
	ck_assert_str_eq(ip4(c.ip4.dns[1]), "192.0.2.53");
	ck_assert_str_eq(ip4(c.ip4.dns[2]), "192.0.2.54");
	ck_assert_str_eq(ip4(c.ip4.dns_host), "127.0.0.53");
	ck_assert_int_eq(c.ip6.dns_count, 2);
	ck_assert_str_eq(ip6(&c.ip6.dns[0]), "2001:db8::53");
	ck_assert_str_eq(ip6(&c.ip6.dns[1]), "2001:db8::1");
	ck_assert_str_eq(ip6(&c.ip6.dns_host), "2001:db8::53");

	/* The gateway is the resolver: DNS to it still goes to it */
	resolv_mapped("nameserver 192.0.2.1\n", ARGV("passt"));
	ck_assert_int_eq(c.ip4.dns_count, 1);
	ck_assert_str_eq(ip4(c.ip4.dns[0]), "192.0.2.1");
	ck_assert_str_eq(ip4(c.ip4.dns_match), "192.0.2.1");
	ck_assert_str_eq(ip4(c.ip4.dns_host), "192.0.2.1");
}
END_TEST

/**
 * conf_suite() - build the suite
 *
 * Return: suite
 */
static Suite *conf_suite(void)
{
	Suite *s = suite_create("conf");
	TCase *tc = tcase_create("parse");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_podman);
	tcase_add_test(tc, test_rootlesskit_pid);
	tcase_add_test(tc, test_rootlesskit_netns);
	tcase_add_test(tc, test_libvirt);
	tcase_add_test(tc, test_qemu_10_1);
	tcase_add_test(tc, test_equals_forms);
	tcase_add_test(tc, test_pasta_positional);
	tcase_add_test(tc, test_pasta_flags);
	tcase_add_test(tc, test_misc_options);
	tcase_add_test(tc, test_unknown_option);
	tcase_add_test(tc, test_version_help);
	tcase_add_test(tc, test_bad_numbers);
	tcase_add_test(tc, test_bad_addresses);
	tcase_add_test(tc, test_conflicts);
	tcase_add_test(tc, test_disabled_family);
	tcase_add_test(tc, test_disabled_family_fwd);
	tcase_add_test(tc, test_unimplemented_exit);
	tcase_add_test(tc, test_print);
	tcase_add_test(tc, test_values);
	tcase_add_test(tc, test_resolv);
	tcase_add_test(tc, test_resolv_loopback);
	suite_add_tcase(s, tc);

	return s;
}

/**
 * main() - run the conf suite
 *
 * Return: 0 if every test passed
 */
int main(void)
{
	SRunner *sr = srunner_create(conf_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
