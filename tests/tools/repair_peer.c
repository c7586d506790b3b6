// SPDX-License-Identifier: GPL-2.0-or-later
/* repair_peer.c - a listener passt-repair may connect to, as passt would be
 *
 * Theory of operation: tests of passt-repair (access_control.sh) need the
 * other end of its protocol under their control: a listener that is not
 * passt (another user's, a planted one, one behind a symbolic link), and
 * messages carrying descriptors passt would never send. This program
 * plays passt's side:
 *
 *   repair_peer [-t MS] [-b PORT] PATH KIND...
 *	Listen at PATH (a UNIX stream socket, mode as the umask gives) and
 *	print "listening". Wait MS milliseconds (default 5000) for one
 *	connection: print "connected" and the helper's PID and uid, or "no
 *	connection" and exit with status 3. Then send one TCP_REPAIR_ON
 *	request carrying one new descriptor per KIND:
 *	  tcp	   an IPv4 TCP socket, neither bound nor connected
 *	  tcp6	   the same, IPv6
 *	  listen   an IPv4 TCP socket listening on 127.0.0.1
 *	  udp	   an IPv4 UDP socket
 *	  unix	   a UNIX stream socket
 *	  file	   /dev/null
 *	and wait MS milliseconds for the answer: "answer N" (the byte), or
 *	"answer none". Then, for each TCP socket, "repair I: V", the value
 *	of TCP_REPAIR on descriptor I (from 1) as the kernel reports it.
 *
 *	With -b PORT, if the first "tcp" socket is in repair mode, take
 *	over a port this way: bind it to 127.0.0.1:PORT (another socket's
 *	port: repair mode forces the reuse) and connect it to 127.0.0.1:9
 *	(no handshake in repair mode), then print "takeover: STATE" with
 *	the TCP state it reached (ESTABLISHED), or "takeover: failed: WHY".
 *
 * Exit status: 0 once a request went out, 2 on a usage or set-up error,
 * 3 if nobody connected.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define PEER_KINDS_MAX		16	/* descriptors in the request */
#define PEER_WAIT_MS_DEFAULT	5000
#define PEER_DISCARD_PORT	9	/* where a taken-over socket "connects" */

/**
 * peer_die() - print an error and exit with status 2
 * @what:	what failed
 */
static void __attribute__((noreturn)) peer_die(const char *what)
{
	fprintf(stderr, "repair_peer: %s: %s\n", what, strerror(errno));
	exit(2);
}

/**
 * peer_open() - a new descriptor of a kind
 * @kind:	kind, see the top of the file
 * @tcp:	set if it is a TCP socket
 *
 * Return: descriptor (exits on errors)
 */
static int peer_open(const char *kind, int *tcp)
{
	struct sockaddr_in lo = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd;

	*tcp = 1;
	if (!strcmp(kind, "tcp")) {
		fd = socket(AF_INET, SOCK_STREAM, IPPROTO_TCP);
	} else if (!strcmp(kind, "tcp6")) {
		fd = socket(AF_INET6, SOCK_STREAM, IPPROTO_TCP);
	} else if (!strcmp(kind, "listen")) {
		fd = socket(AF_INET, SOCK_STREAM, IPPROTO_TCP);
		if (fd >= 0 && (bind(fd, (struct sockaddr *)&lo, sizeof(lo)) ||
				listen(fd, 1)))
			peer_die("listening TCP socket");
	} else {
		*tcp = 0;
		if (!strcmp(kind, "udp"))
			fd = socket(AF_INET, SOCK_DGRAM, 0);
		else if (!strcmp(kind, "unix"))
			fd = socket(AF_UNIX, SOCK_STREAM, 0);
		else if (!strcmp(kind, "file"))
			fd = open("/dev/null", O_RDONLY);
		else {
			fprintf(stderr, "repair_peer: unknown kind %s\n",
				kind);
			exit(2);
		}
	}
	if (fd < 0)
		peer_die(kind);
	return fd;
}

/**
 * peer_accept() - listen at a path, accept one connection
 * @path:	socket path
 * @ms:		how long to wait
 *
 * Return: connected socket (exits with status 3 if none came)
 */
static int peer_accept(const char *path, int ms)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct ucred cr;
	socklen_t sl = sizeof(cr);
	struct pollfd p;
	int l, s;

	if (strlen(path) >= sizeof(a.sun_path)) {
		fprintf(stderr, "repair_peer: %s: path too long\n", path);
		exit(2);
	}
	memcpy(a.sun_path, path, strlen(path) + 1);
	l = socket(AF_UNIX, SOCK_STREAM, 0);
	if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) ||
	    listen(l, 1))
		peer_die(path);
	printf("listening\n");
	fflush(stdout);

	p = (struct pollfd){ .fd = l, .events = POLLIN };
	if (poll(&p, 1, ms) <= 0) {
		printf("no connection\n");
		exit(3);
	}
	s = accept(l, NULL, NULL);
	if (s < 0)
		peer_die("accept");
	close(l);
	if (getsockopt(s, SOL_SOCKET, SO_PEERCRED, &cr, &sl))
		peer_die("SO_PEERCRED");
	printf("connected: pid %i uid %u\n", (int)cr.pid,
	       (unsigned int)cr.uid);
	return s;
}

/**
 * peer_request() - send TCP_REPAIR_ON with descriptors, read the answer
 * @s:		connected socket
 * @fds:	descriptors
 * @n:		how many
 * @ms:		how long to wait for the answer
 */
static void peer_request(int s, const int *fds, int n, int ms)
{
	union {
		char buf[CMSG_SPACE(PEER_KINDS_MAX * sizeof(int))];
		struct cmsghdr align;
	} ctl;
	int8_t cmd = TCP_REPAIR_ON, answer;
	struct iovec iov = { .iov_base = &cmd, .iov_len = 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = ctl.buf,
			     .msg_controllen = CMSG_SPACE(n * sizeof(int)) };
	struct cmsghdr *cm;
	struct pollfd p = { .fd = s, .events = POLLIN };

	memset(&ctl, 0, sizeof(ctl));
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(n * sizeof(int));
	memcpy(CMSG_DATA(cm), fds, n * sizeof(int));

	if (sendmsg(s, &mh, MSG_NOSIGNAL) != 1) {
		printf("answer none (send: %s)\n", strerror(errno));
		return;
	}
	if (poll(&p, 1, ms) <= 0 || recv(s, &answer, 1, 0) != 1)
		printf("answer none\n");
	else
		printf("answer %i\n", answer);
}

/**
 * peer_takeover() - bind a socket in repair mode to a taken port, connect
 * @fd:		TCP socket in repair mode
 * @port:	port another socket holds on 127.0.0.1
 */
static void peer_takeover(int fd, int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
				 .sin_port = htons((uint16_t)port) };
	struct tcp_info ti;
	socklen_t sl = sizeof(ti);

	if (bind(fd, (struct sockaddr *)&a, sizeof(a))) {
		printf("takeover: failed: bind: %s\n", strerror(errno));
		return;
	}
	a.sin_port = htons(PEER_DISCARD_PORT);
	if (connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		printf("takeover: failed: connect: %s\n", strerror(errno));
		return;
	}
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &sl)) {
		printf("takeover: failed: TCP_INFO: %s\n", strerror(errno));
		return;
	}
	printf("takeover: %s\n", ti.tcpi_state == 1 ? "ESTABLISHED" :
	       "not established");
}

/**
 * main() - listen, accept one helper, send one request, report
 * @argc:	argument count
 * @argv:	options, PATH, KIND...
 *
 * Return: 0 once a request went out, 2 on errors, 3 if nobody connected
 */
int main(int argc, char **argv)
{
	int fds[PEER_KINDS_MAX], tcp[PEER_KINDS_MAX];
	int ms = PEER_WAIT_MS_DEFAULT, port = 0, opt, n, i, s, v;
	socklen_t sl;

	while ((opt = getopt(argc, argv, "t:b:")) != -1) {
		if (opt == 't')
			ms = atoi(optarg);
		else if (opt == 'b')
			port = atoi(optarg);
		else
			exit(2);
	}
	n = argc - optind - 1;
	if (n < 1 || n > PEER_KINDS_MAX) {
		fprintf(stderr, "usage: %s [-t MS] [-b PORT] PATH KIND...\n",
			argv[0]);
		exit(2);
	}
	for (i = 0; i < n; i++)
		fds[i] = peer_open(argv[optind + 1 + i], &tcp[i]);

	s = peer_accept(argv[optind], ms);
	peer_request(s, fds, n, ms);

	for (i = 0; i < n; i++) {
		if (!tcp[i])
			continue;
		sl = sizeof(v);
		if (getsockopt(fds[i], IPPROTO_TCP, TCP_REPAIR, &v, &sl))
			printf("repair %i: %s\n", i + 1, strerror(errno));
		else
			printf("repair %i: %i\n", i + 1, v);
	}
	if (port && !strcmp(argv[optind + 1], "tcp")) {
		sl = sizeof(v);
		if (!getsockopt(fds[0], IPPROTO_TCP, TCP_REPAIR, &v, &sl) && v)
			peer_takeover(fds[0], port);
		else
			printf("takeover: failed: not in repair mode\n");
	}
	return 0;
}
