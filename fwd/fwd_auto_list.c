// SPDX-License-Identifier: GPL-2.0-or-later
/* fwd_auto_list.c - pasta "auto" forwarding: the ports bound on one side
 *
 * Theory of operation
 *
 * fwd/fwd_auto.c follows the ports that are bound on the other side;
 * this file lists them, for one side, protocol and family at a time.
 *
 * Each side gets a NETLINK_SOCK_DIAG socket, opened once at start-up in
 * its namespace (for the namespace, by a thread inside it, ns_run(): a
 * netlink socket keeps the namespace it was opened in; the sandbox leaves
 * no paths later). A listing asks it for a dump of the TCP sockets in
 * state LISTEN, or of the UDP sockets in state CLOSE (bound, not
 * connected), of one family: the kernel answers a TCP dump of listeners
 * from its table of listeners alone, in about 50 us.
 *
 * The procfs tables (/proc/net/tcp, tcp6, udp and udp6, of the namespace
 * of the thread that opens them) show the same sockets. They are the
 * fallback for a kernel without socket diagnostics (no CONFIG_INET_DIAG,
 * or its modules missing: a probe dump at start-up tells), opened the same
 * way and re-read after a seek. Reading a TCP table to its end walks the
 * host's whole established hash, which every namespace shares, empty
 * buckets included: about 5 ms per table on a 2-CPU machine, even with no
 * socket in the namespace. For TCP, the kernel lists the listening
 * sockets before any other, so reading stops at the first socket that is
 * not listening.
 *
 * Both give the same answer: sockets with a local port, in the state
 * asked for, of the family asked for (IPv6 sockets accepting IPv4 are
 * IPv6 sockets in both).
 */

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "fwd_auto_list.h"
#include "../util/log.h"
#include "../util/syscalls.h"

/* System calls after start-up: a dump of listening sockets, or re-reading
 * a procfs table through the descriptor opened at start
 */
SYSCALLS(SYSCALLS_PASTA,
	 SYSCALLS_CALL("sendto", "ask for a dump of listening sockets"),
	 SYSCALLS_CALL("recvfrom", "a dump of listening sockets (recv())"),
	 SYSCALLS_CALL("lseek", "back to the start of a procfs table"),
	 SYSCALLS_CALL("read", "a procfs table of listening sockets"));

/* Buffer for a procfs table (lines are ~150 bytes) or a dump's chunk */
#define FWD_AUTO_BUF_SIZE	65536
/* Socket state, procfs "st" column: listening TCP, unconnected UDP */
#define FWD_AUTO_TCP_LISTEN	0x0a
#define FWD_AUTO_UDP_UNCONN	0x07
/* Longest wait for a chunk of a socket diagnostics dump, milliseconds */
#define FWD_AUTO_DIAG_WAIT_MS	1000

static char fwd_auto_list_buf[FWD_AUTO_BUF_SIZE];
static uint32_t fwd_auto_list_seq;		/* last dump asked for */
static uint64_t fwd_auto_list_probe[65536 / 64];	/* ports, probe dumps */

/* Socket diagnostics of each side ([0] the host, [1] the namespace), -1
 * if not available: then the procfs tables of that side, per protocol
 * ([0] TCP, [1] UDP) and family ([0] IPv4, [1] IPv6), -1 if not open
 */
static int fwd_auto_list_diag[2] = { -1, -1 };
static int fwd_auto_list_proc[2][2][2] = {
	{ { -1, -1 }, { -1, -1 } }, { { -1, -1 }, { -1, -1 } },
};

/**
 * fwd_auto_list_set() - set a port in a bitmap of every port
 * @map:	bitmap
 * @port:	port
 */
static void fwd_auto_list_set(uint64_t *map, unsigned int port)
{
	map[port / 64] |= 1ULL << (port % 64);
}

/**
 * fwd_auto_hex() - parse hexadecimal digits
 * @p:		text, advanced past the digits
 * @max:	most digits to read
 * @val:	value, set on success (digits past 16 are skipped)
 *
 * Return: number of digits read
 */
static unsigned int fwd_auto_hex(const char **p, unsigned int max,
				 uint64_t *val)
{
	unsigned int n = 0;
	uint64_t v = 0;

	for (; n < max; n++, (*p)++) {
		char ch = **p;
		unsigned int d;

		if (ch >= '0' && ch <= '9')
			d = (unsigned int)(ch - '0');
		else if (ch >= 'A' && ch <= 'F')
			d = (unsigned int)(ch - 'A' + 10);
		else if (ch >= 'a' && ch <= 'f')
			d = (unsigned int)(ch - 'a' + 10);
		else
			break;
		v = (v << 4) | d;
	}

	*val = v;
	return n;
}

/**
 * fwd_auto_skip_blank() - skip spaces
 * @p:		text
 *
 * Return: first non-space character
 */
static const char *fwd_auto_skip_blank(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/**
 * fwd_auto_parse_line() - read one line of /proc/net/{tcp,udp}[6]
 * @line:	the line, NUL-terminated, without newline
 * @udp:	table of UDP sockets (else TCP)
 * @port:	local port, set if the socket is listening
 *
 * Lines look like "  12: 0100007F:1F90 00000000:0000 0A ..." (IPv6 tables
 * have 32 hex digits per address): entry number, local address and port,
 * remote address and port, state, then fields we don't need.
 *
 * Return: 1 for a listening TCP socket (or a bound, unconnected UDP one)
 *	   with a local port, 0 for another socket, -1 if the line is not a
 *	   socket (the header)
 */
int fwd_auto_parse_line(const char *line, bool udp, uint16_t *port)
{
	const char *p = fwd_auto_skip_blank(line);
	uint64_t v, lport, state;

	if (!fwd_auto_hex(&p, 8, &v) || *p++ != ':')	/* entry number */
		return -1;

	p = fwd_auto_skip_blank(p);
	if (!fwd_auto_hex(&p, 32, &v) || *p++ != ':')	/* local address */
		return -1;
	if (fwd_auto_hex(&p, 4, &lport) != 4 || *p != ' ')
		return -1;

	p = fwd_auto_skip_blank(p);
	if (!fwd_auto_hex(&p, 32, &v) || *p++ != ':')	/* remote address */
		return -1;
	if (fwd_auto_hex(&p, 4, &v) != 4 || *p != ' ')
		return -1;

	p = fwd_auto_skip_blank(p);
	if (fwd_auto_hex(&p, 2, &state) != 2)
		return -1;

	if (state != (udp ? FWD_AUTO_UDP_UNCONN : FWD_AUTO_TCP_LISTEN) ||
	    !lport)
		return 0;

	*port = (uint16_t)lport;
	return 1;
}

/**
 * fwd_auto_list_read() - add the listening ports of one procfs table to a set
 * @fd:		table, opened once
 * @udp:	UDP table (else TCP: stop at the first non-listening socket)
 * @map:	bitmap to set ports in
 *
 * Return: 0 on success, negative errno on failure
 */
static int fwd_auto_list_read(int fd, bool udp, uint64_t *map)
{
	size_t len = 0;

	if (lseek(fd, 0, SEEK_SET) < 0)
		return -errno;

	for (;;) {
		char *line = fwd_auto_list_buf, *nl;
		ssize_t n;

		n = read(fd, fwd_auto_list_buf + len, sizeof(fwd_auto_list_buf) - 1 - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (!n)
			return 0;

		len += (size_t)n;
		fwd_auto_list_buf[len] = '\0';

		while ((nl = strchr(line, '\n'))) {
			uint16_t port;
			int r;

			*nl = '\0';
			r = fwd_auto_parse_line(line, udp, &port);
			if (r > 0)
				fwd_auto_list_set(map, port);
			else if (!r && !udp)
				return 0;	/* listeners come first */
			line = nl + 1;
		}

		/* Keep a partial line for the next read; drop an endless one */
		len = (size_t)(fwd_auto_list_buf + len - line);
		if (len >= sizeof(fwd_auto_list_buf) - 1)
			len = 0;
		memmove(fwd_auto_list_buf, line, len);
	}
}

/**
 * fwd_auto_diag_parse() - add the ports of one chunk of a socket
 *			   diagnostics dump to a set
 * @buf:	chunk, as received (netlink messages)
 * @len:	length of @buf
 * @seq:	sequence number of the dump asked for; others are left out
 * @udp:	UDP dump (else TCP)
 * @map:	bitmap to set ports in
 *
 * Sockets in another state than the one asked for, or without a local
 * port, are left out, as fwd_auto_parse_line() does for procfs lines.
 *
 * Return: 1 at the end of the dump, 0 if more follows, negative errno if
 *	   the kernel refused the dump
 */
int fwd_auto_diag_parse(const void *buf, size_t len, uint32_t seq, bool udp,
			uint64_t *map)
{
	unsigned int state = udp ? FWD_AUTO_UDP_UNCONN : FWD_AUTO_TCP_LISTEN;
	const struct nlmsghdr *nh = buf;
	int left = (int)len;

	for (; NLMSG_OK(nh, left); nh = NLMSG_NEXT(nh, left)) {
		const struct inet_diag_msg *m = NLMSG_DATA(nh);
		const int *error = NLMSG_DATA(nh);
		uint16_t port;

		if (nh->nlmsg_seq != seq)
			continue;
		if (nh->nlmsg_type == NLMSG_DONE ||
		    nh->nlmsg_type == NLMSG_ERROR) {
			if (nh->nlmsg_len >= NLMSG_LENGTH(sizeof(*error)) &&
			    *error < 0)
				return *error;
			return 1;
		}
		if (nh->nlmsg_type != SOCK_DIAG_BY_FAMILY ||
		    nh->nlmsg_len < NLMSG_LENGTH(sizeof(*m)) ||
		    m->idiag_state != state)
			continue;

		port = ntohs(m->id.idiag_sport);
		if (port)
			fwd_auto_list_set(map, port);
	}
	return 0;
}

/**
 * fwd_auto_diag_dump() - add the listening ports of one family and
 *			  protocol to a set, from a socket diagnostics dump
 * @s:		NETLINK_SOCK_DIAG socket of the side to scan
 * @af:		AF_INET or AF_INET6
 * @udp:	UDP sockets bound and not connected (else TCP listeners)
 * @map:	bitmap to set ports in
 *
 * Return: 0 on success, negative errno on failure
 */
static int fwd_auto_diag_dump(int s, sa_family_t af, bool udp, uint64_t *map)
{
	unsigned int state = udp ? FWD_AUTO_UDP_UNCONN : FWD_AUTO_TCP_LISTEN;
	struct {
		struct nlmsghdr nh;
		struct inet_diag_req_v2 r;
	} req = {
		.nh = {
			.nlmsg_len	= sizeof(req),
			.nlmsg_type	= SOCK_DIAG_BY_FAMILY,
			.nlmsg_flags	= NLM_F_REQUEST | NLM_F_DUMP,
			.nlmsg_seq	= ++fwd_auto_list_seq,
		},
		.r = {
			.sdiag_family	= (uint8_t)af,
			.sdiag_protocol	= udp ? IPPROTO_UDP : IPPROTO_TCP,
			.idiag_states	= 1U << state,
		},
	};

	if (send(s, &req, sizeof(req), 0) < 0)
		return -errno;

	for (;;) {
		ssize_t n = recv(s, fwd_auto_list_buf, sizeof(fwd_auto_list_buf), 0);
		int ret;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			return -EIO;

		ret = fwd_auto_diag_parse(fwd_auto_list_buf, (size_t)n,
					  req.nh.nlmsg_seq, udp, map);
		if (ret)
			return ret < 0 ? ret : 0;
	}
}

/**
 * fwd_auto_diag_open() - open the socket diagnostics of our namespace
 *
 * A first dump of each protocol tells if the kernel has them (modules
 * inet_diag, tcp_diag, udp_diag); if not, the procfs tables are read.
 *
 * Return: NETLINK_SOCK_DIAG socket, -1 if not available
 */
static int fwd_auto_diag_open(void)
{
	struct timeval tv = { .tv_sec = FWD_AUTO_DIAG_WAIT_MS / 1000,
			      .tv_usec = FWD_AUTO_DIAG_WAIT_MS % 1000 * 1000 };
	int s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);

	if (s < 0)
		return -1;

	if (setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    fwd_auto_diag_dump(s, AF_INET, false, fwd_auto_list_probe) ||
	    fwd_auto_diag_dump(s, AF_INET, true, fwd_auto_list_probe)) {
		debug("auto: no socket diagnostics, reading procfs tables");
		close(s);
		return -1;
	}
	return s;
}

/**
 * fwd_auto_list_open_proc() - open a procfs socket table of our namespace
 * @path:	table
 * @in_ns:	we run in the namespace, for messages
 *
 * Return: descriptor, -1 if the table can't be opened
 */
static int fwd_auto_list_open_proc(const char *path, bool in_ns)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 && errno != ENOENT)
		warn("auto: can't open %s%s: %s", path,
		     in_ns ? " in the namespace" : "", strerror(errno));
	return fd;
}

/**
 * fwd_auto_list_open() - get ready to list the ports bound on our side
 * @in_ns:	we run in the namespace (else on the host)
 * @udp:	UDP sockets will be listed too (TCP always are)
 *
 * Call in the namespace of the side: from a thread inside it for the
 * namespace (ns_run()).
 */
void fwd_auto_list_open(bool in_ns, bool udp)
{
	static const char *const path[2][2] = {
		{ "/proc/thread-self/net/tcp", "/proc/thread-self/net/tcp6" },
		{ "/proc/thread-self/net/udp", "/proc/thread-self/net/udp6" },
	};
	unsigned int p, f;

	fwd_auto_list_diag[in_ns] = fwd_auto_diag_open();
	if (fwd_auto_list_diag[in_ns] >= 0)
		return;

	for (p = 0; p <= (unsigned int)udp; p++) {
		for (f = 0; f < 2; f++) {
			fwd_auto_list_proc[in_ns][p][f] =
				fwd_auto_list_open_proc(path[p][f], in_ns);
		}
	}
}

/**
 * fwd_auto_list() - add the ports bound on one side to a set
 * @in_ns:	the namespace's side (else the host's)
 * @udp:	UDP sockets bound and not connected (else TCP listeners)
 * @v6:		IPv6 sockets (else IPv4)
 * @map:	bitmap of every port, set
 *
 * Return: 0 on success (also if the table could not be opened), negative
 *	   errno on failure
 */
int fwd_auto_list(bool in_ns, bool udp, bool v6, uint64_t *map)
{
	int fd;

	if (fwd_auto_list_diag[in_ns] >= 0) {
		return fwd_auto_diag_dump(fwd_auto_list_diag[in_ns],
					  v6 ? AF_INET6 : AF_INET, udp, map);
	}

	fd = fwd_auto_list_proc[in_ns][udp][v6];
	return fd < 0 ? 0 : fwd_auto_list_read(fd, udp, map);
}
