/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ctx.h - the relay's run-time configuration, owned by conf/
 *
 * Theory of operation: struct ctx holds what the command line and the host
 * configuration decided at start-up. conf/ fills it; the rest of start-up
 * adds what it opens or names (main(): the epoll set; pasta_open_ns(): the
 * namespace's path; tap_init(): the interface name and socket path). From
 * then on it is read-only: everything that runs after start-up gets a
 * const struct ctx *. Modules keep their own run-time state private; only
 * settings and a few shared descriptors live here. What changes while the
 * relay runs lives with its owner: what the guest shows of itself (its MAC
 * address, the addresses it sends from) in guest/, the forwarding tables
 * in force (a -c client may replace them) in fwd/fwd_listen.c, and the
 * part of @ip4 and @ip6 derived from the host, as it follows the host, in
 * guest/follow.c (read it with follow_ip4() and follow_ip6()).
 */
#ifndef CONF_CTX_H
#define CONF_CTX_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <linux/if_ether.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/types.h>

#include "fwd_spec.h"
#include "../util/inany.h"

#define VERSION			"0.1"
#define DNS_MAX			3
#define SEARCH_MAX		6
#define SEARCH_LEN_MAX		254
#define HOSTNAME_MAX		64
#define FQDN_MAX		254
#define MTU_DEFAULT		65520
#define MTU_MAX			65520
#define MTU_MIN_IPV6		1280
#define FLOW_MAX_DEFAULT	8192
#define MCAST_PORTS_MAX		16	/* --mcast-ports */

/**
 * enum passt_mode - which program we are
 * @MODE_PASST:	a VM over a stream socket or vhost-user
 * @MODE_PASTA:	a network namespace over a tap device
 */
enum passt_mode {
	MODE_PASST,
	MODE_PASTA,
};

/**
 * struct ip4_ctx - IPv4 configuration
 * @enabled:		IPv4 is in use
 * @addr:		address given to the guest (default: host's)
 * @prefix_len:		its prefix length
 * @gw:			default gateway given to the guest
 * @map_host_lo:	guest's destination that maps to host loopback,
 *			INADDR_ANY if none (default: @gw unless --no-map-gw)
 * @map_guest_addr:	guest's destination that maps to the host's address
 *			of the guest (@addr), INADDR_ANY if none
 * @dns:		DNS servers offered to the guest
 * @dns_count:		number of entries in @dns
 * @dns_match:		--dns-forward: queries to this go to @dns_host
 * @dns_host:		--dns-host: where forwarded queries go
 * @outbound:		-o: source address for host sockets, any if unset
 * @outbound_if:	--outbound-if4: interface for host sockets
 * @ifname:		host template interface
 * @ifindex:		its index, 0 if none
 * @no_copy_addrs:	pasta --config-net: set @addr only, not every address
 *			of the template (--no-copy-addrs, or -a)
 * @no_copy_routes:	pasta --config-net: set a default route via @gw only,
 *			not every route of the template (--no-copy-routes,
 *			or -g)
 */
struct ip4_ctx {
	bool enabled;
	struct in_addr addr;
	int prefix_len;
	struct in_addr gw;
	struct in_addr map_host_lo;
	struct in_addr map_guest_addr;
	struct in_addr dns[DNS_MAX];
	int dns_count;
	struct in_addr dns_match;
	struct in_addr dns_host;
	struct in_addr outbound;
	char outbound_if[IFNAMSIZ];
	char ifname[IFNAMSIZ];
	unsigned int ifindex;
	bool no_copy_addrs;
	bool no_copy_routes;
};

/**
 * struct ip6_ctx - IPv6 configuration
 * @enabled:		IPv6 is in use
 * @addr:		address given to the guest (default: host's global)
 * @prefix_len:		its prefix length
 * @gw:			default gateway given to the guest
 * @our_tap_ll:		link-local address the relay uses toward the guest
 * @map_host_lo:	see struct ip4_ctx, :: if none
 * @map_guest_addr:	see struct ip4_ctx, :: if none
 * @dns:		DNS servers offered to the guest
 * @dns_count:		number of entries in @dns
 * @dns_match:		--dns-forward
 * @dns_host:		--dns-host
 * @outbound:		-o: source address for host sockets
 * @outbound_if:	--outbound-if6
 * @ifname:		host template interface
 * @ifindex:		its index, the scope of link-local host destinations
 * @no_copy_addrs:	see struct ip4_ctx
 * @no_copy_routes:	see struct ip4_ctx
 */
struct ip6_ctx {
	bool enabled;
	struct in6_addr addr;
	int prefix_len;
	struct in6_addr gw;
	struct in6_addr our_tap_ll;
	struct in6_addr map_host_lo;
	struct in6_addr map_guest_addr;
	struct in6_addr dns[DNS_MAX];
	int dns_count;
	struct in6_addr dns_match;
	struct in6_addr dns_host;
	struct in6_addr outbound;
	char outbound_if[IFNAMSIZ];
	char ifname[IFNAMSIZ];
	unsigned int ifindex;
	bool no_copy_addrs;
	bool no_copy_routes;
};

/**
 * struct ctx - everything start-up decided
 * @mode:		passt or pasta
 * @epollfd:		the main epoll descriptor
 * @foreground:		-f: stay in the foreground
 * @quiet:		-q
 * @debug:		-d
 * @trace:		--trace
 * @stats_delay:	--stats DELAY in seconds, 0 if off
 * @log_file:		-l path, empty if none
 * @log_size:		--log-size
 * @pidfile:		-P path, empty if none
 * @pcap:		-p path, empty if none
 * @uid:		--runas user
 * @gid:		--runas group
 * @chroot_fallback:	--chroot-fallback
 * @conf_path:		-c run-time control socket path, empty if none
 * @sock_path:		passt: -s UNIX socket path
 * @fd_tap_preopened:	-F descriptor, -1 if none: passt's connected socket,
 *			or pasta's tap device
 * @vhost_user:		passt: --vhost-user
 * @one_off:		-1: exit after the first guest disconnects
 * @repair_path:	--repair-path, empty for the default (the vhost-user
 *			socket path with ".repair" appended)
 * @no_repair:		--repair-path none: no socket for passt-repair
 * @migrate_exit:	--migrate-exit: exit once the state was saved
 * @migrate_no_linger:	--migrate-no-linger: close migrated sockets
 * @pasta_cmd:		pasta: command to spawn (NULL-terminated), or NULL
 * @pasta_target_pid:	pasta: PID whose namespaces to join, 0 if none
 * @pasta_netns:	pasta: --netns path, empty if none
 * @pasta_userns:	pasta: --userns path, empty if none
 * @netns_only:		pasta: --netns-only
 * @no_netns_quit:	pasta: --no-netns-quit
 * @pasta_ifname:	pasta: tap name in the namespace (-I, default:
 *			template interface name)
 * @pasta_conf_ns:	pasta: --config-net
 * @ns_mac:		pasta: --ns-mac-addr, all zero if unset
 * @no_copy_routes:	pasta: --no-copy-routes
 * @no_copy_addrs:	pasta: --no-copy-addrs
 * @no_splice:		pasta: --no-splice
 * @splice_only:	pasta: --splice-only
 * @host_lo_to_ns_lo:	pasta: --host-lo-to-ns-lo
 * @mtu:		-m, 0 means don't advertise
 * @our_mac:		-M: our MAC address toward the guest
 * @ip4:		IPv4 settings
 * @ip6:		IPv6 settings
 * @hostname:		-H
 * @fqdn:		--fqdn
 * @search:		-S search domains
 * @search_count:	number of @search entries
 * @no_dns:		-D none
 * @no_search:		-S none
 * @no_dhcp_dns:	do not send DNS servers over DHCP/NDP
 * @no_dhcp_search:	do not send search domains
 * @no_tcp:		--no-tcp
 * @no_udp:		--no-udp
 * @no_icmp:		--no-icmp
 * @no_dhcp:		--no-dhcp
 * @no_ndp:		--no-ndp
 * @no_dhcpv6:		--no-dhcpv6
 * @no_ra:		--no-ra
 * @no_map_gw:		--no-map-gw
 * @no_follow_host:	--no-follow-host: keep the start-up picture of the host
 * @dhcp_lease:		--dhcp-lease: DHCP lease time, seconds, 0 for infinite
 * @freebind:		--freebind
 * @tcp_to_guest:	-t, as configured (in force: fwd_dir_spec())
 * @tcp_to_host:	-T, as configured
 * @udp_to_guest:	-u, as configured
 * @udp_to_host:	-U, as configured
 * @mcast_ports:	--mcast-ports: UDP ports of the multicast proxy
 * @mcast_nports:	number of @mcast_ports, 0: no multicast
 * @flow_max:		--max-flows: capacity of the flow table
 * @tcp_rmem:		--tcp-rmem: SO_RCVBUF for host TCP sockets, 0 = auto
 * @tcp_wmem:		--tcp-wmem: SO_SNDBUF for host TCP sockets, 0 = auto
 * @tap_rmem:		--tap-rmem: SO_RCVBUF for the guest stream socket
 * @tap_wmem:		--tap-wmem: SO_SNDBUF for the guest stream socket
 * @busy_poll_us:	--busy-poll: microseconds the main loop polls for more
 *			events after traffic before it sleeps, 0 = off
 */
struct ctx {
	enum passt_mode mode;
	int epollfd;

	bool foreground;
	bool quiet;
	bool debug;
	bool trace;
	int stats_delay;
	char log_file[PATH_MAX];
	size_t log_size;
	char pidfile[PATH_MAX];
	char pcap[PATH_MAX];
	uid_t uid;
	gid_t gid;
	bool chroot_fallback;
	char conf_path[PATH_MAX];

	char sock_path[PATH_MAX];
	int fd_tap_preopened;
	bool vhost_user;
	bool one_off;
	char repair_path[PATH_MAX];
	bool no_repair;
	bool migrate_exit;
	bool migrate_no_linger;

	char **pasta_cmd;
	pid_t pasta_target_pid;
	char pasta_netns[PATH_MAX];
	char pasta_userns[PATH_MAX];
	bool netns_only;
	bool no_netns_quit;
	char pasta_ifname[IFNAMSIZ];
	bool pasta_conf_ns;
	unsigned char ns_mac[ETH_ALEN];
	bool no_copy_routes;
	bool no_copy_addrs;
	bool no_splice;
	bool splice_only;
	bool host_lo_to_ns_lo;

	unsigned int mtu;
	unsigned char our_mac[ETH_ALEN];
	struct ip4_ctx ip4;
	struct ip6_ctx ip6;

	char hostname[HOSTNAME_MAX];
	char fqdn[FQDN_MAX];
	char search[SEARCH_MAX][SEARCH_LEN_MAX + 1];
	int search_count;
	bool no_dns;
	bool no_search;
	bool no_dhcp_dns;
	bool no_dhcp_search;

	bool no_tcp;
	bool no_udp;
	bool no_icmp;
	bool no_dhcp;
	bool no_ndp;
	bool no_dhcpv6;
	bool no_ra;
	bool no_map_gw;
	bool no_follow_host;
	unsigned int dhcp_lease;
	bool freebind;

	struct fwd_spec tcp_to_guest;
	struct fwd_spec tcp_to_host;
	struct fwd_spec udp_to_guest;
	struct fwd_spec udp_to_host;
	uint16_t mcast_ports[MCAST_PORTS_MAX];
	unsigned int mcast_nports;

	unsigned int flow_max;
	int tcp_rmem;
	int tcp_wmem;
	int tap_rmem;
	int tap_wmem;
	unsigned int busy_poll_us;
};

#endif /* CONF_CTX_H */
