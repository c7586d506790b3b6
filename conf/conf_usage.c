// SPDX-License-Identifier: GPL-2.0-or-later
/* conf_usage.c - --help, --version and --print-capabilities output
 *
 * Theory of operation: the help text is kept as tables of lines, one
 * group per topic as in the man page, with separate tables for what only
 * passt or only pasta accept; conf_usage() prints the groups that apply
 * to the program's name. Everything here prints and exits.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "conf_internal.h"

static const char *const usage_common_top[] = {
	"Process and logging:",
	"  -d, --debug              verbose messages, including debug ones",
	"      --trace              also per-packet messages (implies --debug)",
	"      --stats DELAY        print event counters every DELAY seconds",
	"  -q, --quiet              only warnings and errors",
	"  -f, --foreground         stay in the foreground",
	"  -e, --stderr             deprecated, no effect",
	"  -l, --log-file PATH      log to PATH instead of stderr or syslog",
	"      --log-size BYTES     truncate the log file at BYTES (default 1M)",
	"  -P, --pid FILE           write the process ID to FILE once ready",
	"  -p, --pcap FILE          capture guest-side frames to FILE",
	"      --runas UID[:GID]|USER[:GROUP]",
	"                           user and group to run as (default as root:",
	"                           nobody)",
	"      --chroot-fallback    chroot() into the empty root if pivot_root()",
	"                           fails (the sandbox)",
	"  -c, --conf-path PATH     configuration socket for pesto (forwarding",
	"                           changed at run time)",
	"  -h, --help               show this text and exit",
	"      --version            show the version and exit",
	"",
	NULL,
};

static const char *const usage_passt_link[] = {
	"Guest link (passt):",
	"  -s, --socket PATH        UNIX socket to listen on (also --socket-path;",
	"                           default: first free /tmp/passt_N.socket)",
	"      --vhost-user         speak vhost-user on the socket",
	"      --print-capabilities print vhost-user capabilities and exit",
	"  -F, --fd FD              use the connected socket FD (implies -1)",
	"  -1, --one-off            exit once the first guest disconnects",
	"      --repair-path PATH|none",
	"                           socket for the passt-repair helper, which",
	"                           moves TCP connections in a migration",
	"                           (vhost-user; default: the socket path",
	"                           with '.repair' appended)",
	"      --migrate-exit       DEPRECATED: exit once migrated away",
	"      --migrate-no-linger  DEPRECATED: close migrated sockets at",
	"                           once, instead of keeping them idle",
	"",
	NULL,
};

static const char *const usage_pasta_link[] = {
	"Namespace (pasta):",
	"  [--] COMMAND [ARG]...    run COMMAND in new user and network",
	"                           namespaces (default: a shell)",
	"  PID                      join the namespaces of process PID",
	"      --netns PATH|NAME    join this network namespace (a NAME is",
	"                           under /run/netns)",
	"      --userns PATH        join this user namespace",
	"      --netns-only         join the network namespace only",
	"      --no-netns-quit      keep running when the namespace goes away",
	"  -I, --ns-ifname NAME     tap device name in the namespace",
	"                           (default: the template interface's name)",
	"  -F, --fd FD              use the tap device FD opened in the namespace",
	"      --config-net         set addresses, routes and MTU in the namespace",
	"      --ns-mac-addr MAC    MAC address of the tap device",
	"      --no-copy-routes     deprecated, accepted for compatibility",
	"      --no-copy-addrs      deprecated, accepted for compatibility",
	"      --no-splice          no loopback shortcut between namespaces",
	"      --splice-only        only the loopback shortcut, no tap traffic",
	"      --host-lo-to-ns-lo   host loopback reaches namespace loopback",
	"",
	NULL,
};

static const char *const usage_addr[] = {
	"Addresses:",
	"  -m, --mtu MTU            MTU given to the guest, 0 to 65520",
	"                           (default 65520; 0: don't advertise)",
	"  -a, --address ADDR[/LEN] guest address, once per family",
	"                           (default: the host's)",
	"  -n, --netmask MASK|LEN   IPv4 netmask of the guest address",
	"  -M, --mac-addr MAC       our MAC address (default 9a:55:9a:55:9a:55)",
	"  -g, --gateway ADDR       guest default gateway, once per family",
	"  -i, --interface NAME     host template interface for defaults",
	"  -o, --outbound ADDR      source address of host sockets, per family",
	"      --outbound-if4 NAME  bind IPv4 host sockets to interface NAME",
	"      --outbound-if6 NAME  bind IPv6 host sockets to interface NAME",
	"  -4, --ipv4-only          disable IPv6",
	"  -6, --ipv6-only          disable IPv4",
	"  -H, --hostname NAME      host name for DHCP",
	"      --fqdn NAME          fully qualified name for DHCP and DHCPv6",
	"",
	"DNS:",
	"  -D, --dns ADDR|none      DNS server for the guest, repeatable",
	"                           (default: from /etc/resolv.conf)",
	"  -S, --search LIST|none   space-separated search domains",
	"      --dns-forward ADDR   guest address whose DNS queries go to the",
	"                           host's resolver, once per family",
	"      --dns-host ADDR      where forwarded queries go",
	NULL,
};

static const char *const usage_passt_dns[] = {
	"      --no-dhcp-dns        don't send DNS servers via DHCP/NDP/DHCPv6",
	"      --no-dhcp-search     don't send search domains",
	"",
	NULL,
};

static const char *const usage_pasta_dns[] = {
	"      --dhcp-dns           send DNS servers via DHCP/NDP/DHCPv6",
	"      --dhcp-search        send search domains",
	"",
	NULL,
};

static const char *const usage_map[] = {
	"Mapping:",
	"      --map-host-loopback ADDR|none",
	"                           guest destination that reaches the host's",
	"                           loopback (default: the gateway)",
	"      --map-guest-addr ADDR|none",
	"                           guest destination that reaches the host's",
	"                           own address",
	"      --no-map-gw          don't map the gateway to the host",
	"      --no-follow-host     keep the addresses and routes read from the",
	"                           host at start-up, even when the host's change",
	"      --follow-host        pasta --config-net run in the initial user",
	"                           namespace: follow the host anyway (its",
	"                           namespace thread keeps CAP_NET_ADMIN)",
	"      --dhcp-lease SECONDS|infinite",
	"                           DHCP lease time (default: 600, infinite with",
	"                           --no-follow-host)",
	"      --freebind           allow binding to non-local addresses",
	"",
	"Protocols:",
	"      --no-tcp             no TCP (no connections, no forwarded ports)",
	"      --no-udp             no UDP",
	"      --no-icmp            no ICMP/ICMPv6 echo",
	"      --no-dhcp            no DHCP server",
	"      --no-ndp             no NDP answers",
	"      --no-dhcpv6          no DHCPv6 server",
	"      --no-ra              no router advertisements",
	"",
	"Forwarding (SPEC: none, or [ADDR[%IFACE]/] then a list of",
	"  FIRST[-LAST][:[TOADDR/]TOFIRST[-TOLAST]], FIRST[-LAST]:TOADDR,",
	"  all[:TOADDR], ~FIRST[-LAST], and auto (pasta: only while bound on",
	"  the other side; alone, every non-ephemeral port)):",
	NULL,
};

static const char *const usage_passt_fwd[] = {
	"  -t, --tcp-ports SPEC     host TCP ports forwarded to the guest",
	"                           (default none)",
	"  -u, --udp-ports SPEC     host UDP ports forwarded to the guest",
	"      --mcast-ports PORTS  UDP ports of multicast groups the guest joins,",
	"                           forwarded with the host's link (default none)",
	"",
	NULL,
};

static const char *const usage_pasta_fwd[] = {
	"  -t, --tcp-ports SPEC     host TCP ports forwarded to the namespace",
	"  -u, --udp-ports SPEC     host UDP ports forwarded to the namespace",
	"  -T, --tcp-ns SPEC        namespace TCP ports forwarded to the host",
	"  -U, --udp-ns SPEC        namespace UDP ports forwarded to the host",
	"                           (default auto for all four)",
	"      --mcast-ports PORTS  UDP ports of multicast groups the namespace",
	"                           joins, forwarded with the host's link",
	"                           (default none)",
	"",
	NULL,
};

static const char *const usage_tuning[] = {
	"Tuning (this implementation):",
	"      --max-flows N        flow table size, 16 to 1048576 (default 8192)",
	"      --tcp-rmem BYTES     receive buffer of host TCP sockets (0: auto)",
	"      --tcp-wmem BYTES     send buffer of host TCP sockets (0: auto)",
	"      --busy-poll USEC     after traffic, poll for events that long",
	"                           before sleeping, 0 to 10000 (default 0: off)",
	NULL,
};

static const char *const usage_passt_tuning[] = {
	"      --tap-rmem BYTES     receive buffer of the guest socket (0: 1 MiB)",
	"      --tap-wmem BYTES     send buffer of the guest socket (0: 1 MiB)",
	NULL,
};

/**
 * usage_put() - print a table of lines
 * @f:		stream
 * @lines:	NULL-terminated table
 */
static void usage_put(FILE *f, const char *const *lines)
{
	for (; *lines; lines++) {
		fputs(*lines, f);
		fputc('\n', f);
	}
}

/**
 * conf_usage() - print the help text and exit
 * @name:	program name (argv[0]); a name ending in "pasta" selects
 *		pasta's text
 * @status:	exit status: 0 prints to standard output, anything else to
 *		standard error
 */
void conf_usage(const char *name, int status)
{
	const char *base = strrchr(name, '/');
	FILE *f = status ? stderr : stdout;
	bool pasta;
	size_t len;

	base = base ? base + 1 : name;
	len = strlen(base);
	pasta = len >= 5 && !strcmp(base + len - 5, "pasta");

	if (pasta) {
		fprintf(f, "Usage: %s [OPTION]... [[--] COMMAND [ARG]...]\n",
			base);
		fprintf(f, "       %s [OPTION]... PID\n", base);
		fprintf(f, "       %s [OPTION]... --netns PATH|NAME\n\n", base);
		fputs("Connect a network namespace to the host's network through "
		      "a tap device,\nwithout privileges.\n\n", f);
	} else {
		fprintf(f, "Usage: %s [OPTION]...\n\n", base);
		fputs("Connect a virtual machine to the host's network through a "
		      "UNIX socket\n(QEMU -netdev stream), without privileges."
		      "\n\n", f);
	}

	usage_put(f, usage_common_top);
	usage_put(f, pasta ? usage_pasta_link : usage_passt_link);
	usage_put(f, usage_addr);
	usage_put(f, pasta ? usage_pasta_dns : usage_passt_dns);
	usage_put(f, usage_map);
	usage_put(f, pasta ? usage_pasta_fwd : usage_passt_fwd);
	usage_put(f, usage_tuning);
	if (!pasta)
		usage_put(f, usage_passt_tuning);

	fflush(f);
	exit(status);
}

/**
 * conf_version() - print the version and exit successfully
 * @mode:	which program we are
 */
void conf_version(enum passt_mode mode)
{
	printf("%s %s\n", mode == MODE_PASTA ? "pasta" : "passt", VERSION);
	printf("A user-mode network relay compatible with passt's command "
	       "line.\nLicence GPL-2.0-or-later: no warranty.\n");
	fflush(stdout);
	exit(EXIT_SUCCESS);
}

/**
 * conf_print_capabilities() - print vhost-user backend capabilities, exit
 *
 * The vhost-user convention: a JSON object naming the device type.
 */
void conf_print_capabilities(void)
{
	printf("{\n  \"type\": \"net\"\n}\n");
	fflush(stdout);
	exit(EXIT_SUCCESS);
}
