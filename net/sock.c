// SPDX-License-Identifier: GPL-2.0-or-later
/* sock.c - host sockets: creation with the relay's usual options, binding
 *
 * Theory of operation: listening and forwarding sockets (TCP and UDP, on
 * the host and in pasta's namespace) and the sockets of UDP and ping
 * flows are all made the same way: non-blocking and close-on-exec,
 * SO_REUSEADDR (a forwarded port and the flows of the guest's own port
 * share numbers), IPv6 sockets v6-only (IPv4 has its own socket), and,
 * as options ask, IP_FREEBIND (--freebind) and SO_BINDTODEVICE (an
 * address given with %interface, or --outbound-if*). Flow sockets take
 * the guest's source port if they can, any port otherwise. A port is
 * opened for both IP versions where enabled, and one version failing
 * is fine as long as the other works: sock_pair_result() says so.
 * pasta's sockets for every loopback address of the namespace (-T and -U
 * ports without an address) are wildcard ones on the loopback interface
 * (sock_open_lo()).
 */

#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "sock.h"
#include "../util/syscalls.h"

/* System calls after start-up: TCP and UDP sockets of flows and of ports
 * forwarded at run time (tcp/, udp/), bound, connected
 */
SYSCALLS(SYSCALLS_RELAY,
	 SYSCALLS_SOCKET("TCP, IPv4", AF_INET, SOCK_STREAM, IPPROTO_TCP),
	 SYSCALLS_SOCKET("TCP, IPv6", AF_INET6, SOCK_STREAM, IPPROTO_TCP),
	 SYSCALLS_SOCKET("UDP, IPv4", AF_INET, SOCK_DGRAM, IPPROTO_UDP),
	 SYSCALLS_SOCKET("UDP, IPv6", AF_INET6, SOCK_DGRAM, IPPROTO_UDP),
	 SYSCALLS_SETSOCKOPT("SO_REUSEADDR, SO_BINDTODEVICE", SOL_SOCKET),
	 SYSCALLS_SETSOCKOPT("IP_FREEBIND", IPPROTO_IP),
	 SYSCALLS_SETSOCKOPT("IPV6_V6ONLY, IPV6_FREEBIND", IPPROTO_IPV6),
	 SYSCALLS_CALL("bind", "a socket's local address"),
	 SYSCALLS_CALL("connect", "a flow socket, to its peer"),
	 SYSCALLS_CALL("close", "a socket that failed to set up"));

/**
 * sock_open() - a new socket with the usual options
 * @type:	SOCK_STREAM or SOCK_DGRAM
 * @proto:	protocol (IPPROTO_TCP, IPPROTO_UDP, IPPROTO_ICMP...)
 * @v4:		IPv4 (else IPv6, v6-only)
 * @ifname:	interface to bind to, NULL or empty for none
 * @freebind:	allow binding addresses not (yet) configured
 *
 * Return: the socket, or -errno
 */
int sock_open(int type, int proto, bool v4, const char *ifname,
	      bool freebind)
{
	int s, one = 1, ret;

	s = socket(v4 ? AF_INET : AF_INET6,
		   type | SOCK_NONBLOCK | SOCK_CLOEXEC, proto);
	if (s < 0)
		return -errno;

	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (!v4 && setsockopt(s, IPPROTO_IPV6, IPV6_V6ONLY, &one,
			      sizeof(one))) {
		ret = -errno;
		goto fail;
	}
	if (freebind) {
		setsockopt(s, v4 ? IPPROTO_IP : IPPROTO_IPV6,
			   v4 ? IP_FREEBIND : IPV6_FREEBIND, &one,
			   sizeof(one));
	}
	if (ifname && *ifname &&
	    setsockopt(s, SOL_SOCKET, SO_BINDTODEVICE, ifname,
		       (socklen_t)strlen(ifname))) {
		ret = -errno;
		goto fail;
	}
	return s;

fail:
	close(s);
	return ret;
}

/**
 * sock_open_lo() - a socket for every loopback address of a family
 * @type:	SOCK_STREAM or SOCK_DGRAM
 * @proto:	IPPROTO_TCP or IPPROTO_UDP
 * @v4:		IPv4 (else IPv6, v6-only)
 * @addr:	set to the address to bind it to
 *
 * The wildcard address on the loopback interface covers all of
 * 127.0.0.0/8 (systemd-resolved's 127.0.0.53, say), not just 127.0.0.1.
 * Where the kernel refuses SO_BINDTODEVICE (before Linux 5.7, without
 * CAP_NET_RAW), 127.0.0.1 or ::1 alone.
 *
 * Return: the socket, or -errno
 */
int sock_open_lo(int type, int proto, bool v4, union inany_addr *addr)
{
	int s = sock_open(type, proto, v4, SOCK_LO_IFNAME, false);

	if (s >= 0 || (s != -EPERM && s != -ENODEV && s != -ENOPROTOOPT)) {
		inany_lo_or_any(addr, v4, false);
		return s;
	}

	inany_lo_or_any(addr, v4, true);
	return sock_open(type, proto, v4, NULL, false);
}

/**
 * sock_bind() - bind a socket to an address and port
 * @s:		socket
 * @addr:	address
 * @port:	port
 *
 * Return: 0 on success, -errno on failure
 */
int sock_bind(int s, const union inany_addr *addr, uint16_t port)
{
	union sockaddr_inany sa;
	socklen_t sl = sockaddr_from_inany(&sa, addr, port, 0);

	return bind(s, &sa.sa, sl) ? -errno : 0;
}

/**
 * sock_bind_connect() - bind a flow socket, connect it to its peer
 * @s:		socket, closed on failure
 * @src:	local address
 * @sport:	local port wanted; if taken, any port
 * @dst:	peer address
 * @dport:	peer port
 * @scope:	IPv6 scope (interface index) of @dst, 0 if none
 *
 * Return: @s on success, -errno on failure
 */
int sock_bind_connect(int s, const union inany_addr *src, uint16_t sport,
		      const union inany_addr *dst, uint16_t dport,
		      uint32_t scope)
{
	union sockaddr_inany sa;
	socklen_t sl;
	int ret;

	if (sock_bind(s, src, sport) && (ret = sock_bind(s, src, 0)))
		goto fail;

	sl = sockaddr_from_inany(&sa, dst, dport, scope);
	if (connect(s, &sa.sa, sl)) {
		ret = -errno;
		goto fail;
	}
	return s;

fail:
	close(s);
	return ret;
}

/**
 * sock_pair_result() - outcome of opening a port for both IP versions
 * @fds:	IPv4 and IPv6 results: socket or slot, -errno on failure,
 *		-1 if that version is disabled; failures become -1
 *
 * Return: 0 if at least one version is open, else the first error
 */
int sock_pair_result(int fds[2])
{
	int ret = fds[0] != -1 ? fds[0] : fds[1];

	if (fds[0] < 0 && fds[1] < 0)
		return ret == -1 ? -EAFNOSUPPORT : ret;
	if (fds[0] < 0)
		fds[0] = -1;
	if (fds[1] < 0)
		fds[1] = -1;
	return 0;
}

/**
 * sock_pair_missing() - outcome of opening a port where a family may be
 *			 missing altogether (no ::1 in a namespace, say)
 * @fds:	IPv4 and IPv6 results: socket or slot, -errno on failure,
 *		-1 if not tried
 *
 * Return: 0 if every family tried is open, or one is and the other can't
 *	   exist here (EADDRNOTAVAIL, EAFNOSUPPORT): failures become -1.
 *	   Otherwise the first error, with @fds left for the caller to close
 */
int sock_pair_missing(int fds[2])
{
	unsigned int i;

	for (i = 0; i < 2; i++) {
		int other = fds[!i];

		if (fds[i] >= 0 || fds[i] == -1)
			continue;
		if (other >= 0 && (fds[i] == -EADDRNOTAVAIL ||
				   fds[i] == -EAFNOSUPPORT)) {
			fds[i] = -1;
			continue;
		}
		return fds[i];
	}

	return fds[0] == -1 && fds[1] == -1 ? -EAFNOSUPPORT : 0;
}

/**
 * sock_pair_missing_close() - sock_pair_missing() for two sockets, closed
 *			       on failure
 * @fds:	IPv4 and IPv6 results: socket, -errno, or -1 if not tried
 *
 * Return: as sock_pair_missing(); on failure, @fds are closed and -1
 */
int sock_pair_missing_close(int fds[2])
{
	int ret = sock_pair_missing(fds);
	unsigned int i;

	if (!ret)
		return 0;

	for (i = 0; i < 2; i++) {
		if (fds[i] >= 0)
			close(fds[i]);
		fds[i] = -1;
	}
	return ret;
}
