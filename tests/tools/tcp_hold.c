// SPDX-License-Identifier: GPL-2.0-or-later
/* tcp_hold.c - open and hold many idle TCP connections, count refusals
 *
 * Theory of operation: resource exhaustion tests need many connections
 * that stay open, doing nothing, while something else is tried, and they
 * need to know how each new connection ended: established, refused (and
 * how fast), or left hanging.
 *
 *   tcp_hold listen [-b BACKLOG] [-N] ADDR PORT
 *	Listen on ADDR PORT. Accept every connection and keep it open,
 *	discarding what arrives, until killed; with -N never accept (the
 *	kernel's backlog fills and further handshakes go unanswered).
 *
 *   tcp_hold connect [-n COUNT] [-w MS] [-x] ADDR PORT
 *	Open COUNT connections (default 1), one after the other, each given
 *	MS milliseconds (default 3000) to be established. Then print one
 *	line: "tcp_hold: established=N refused=N timeout=N other=N
 *	max_refuse_ms=N first_error=TEXT", and keep the established
 *	connections open until standard input ends or the process is
 *	killed (with -x: exit at once).
 *
 * Exit status: 0, or 1 on a usage or set-up error.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define HOLD_MAX		4096	/* connections held at most */
#define HOLD_BACKLOG_DEFAULT	128
#define HOLD_WAIT_MS_DEFAULT	3000

/**
 * struct hold_addr - parsed address and port
 * @sa:		socket address
 * @sl:		its length
 */
struct hold_addr {
	union {
		struct sockaddr sa;
		struct sockaddr_in sa4;
		struct sockaddr_in6 sa6;
	} u;
	socklen_t sl;
};

/**
 * hold_parse() - parse an IPv4 or IPv6 address and a port, exit on error
 * @addr:	address text
 * @port:	port text
 * @a:		result
 */
static void hold_parse(const char *addr, const char *port,
		       struct hold_addr *a)
{
	unsigned long p = strtoul(port, NULL, 10);

	memset(a, 0, sizeof(*a));
	if (!p || p > 65535) {
		fprintf(stderr, "tcp_hold: bad port %s\n", port);
		exit(1);
	}
	if (inet_pton(AF_INET, addr, &a->u.sa4.sin_addr) == 1) {
		a->u.sa4.sin_family = AF_INET;
		a->u.sa4.sin_port = htons((uint16_t)p);
		a->sl = sizeof(a->u.sa4);
	} else if (inet_pton(AF_INET6, addr, &a->u.sa6.sin6_addr) == 1) {
		a->u.sa6.sin6_family = AF_INET6;
		a->u.sa6.sin6_port = htons((uint16_t)p);
		a->sl = sizeof(a->u.sa6);
	} else {
		fprintf(stderr, "tcp_hold: bad address %s\n", addr);
		exit(1);
	}
}

/**
 * now_ms() - monotonic time
 *
 * Return: milliseconds
 */
static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/**
 * hold_listen() - listen, accept and hold (or never accept)
 * @a:		address to listen on
 * @backlog:	listen backlog
 * @no_accept:	never accept
 *
 * Return: 1 on set-up errors; otherwise runs until killed
 */
static int hold_listen(const struct hold_addr *a, int backlog, bool no_accept)
{
	static struct pollfd pfd[HOLD_MAX + 1];
	char buf[4096];
	int one = 1, n = 1, i;

	pfd[0].fd = socket(a->u.sa.sa_family, SOCK_STREAM, 0);
	if (pfd[0].fd < 0 ||
	    setsockopt(pfd[0].fd, SOL_SOCKET, SO_REUSEADDR, &one,
		       sizeof(one)) ||
	    bind(pfd[0].fd, &a->u.sa, a->sl) || listen(pfd[0].fd, backlog)) {
		perror("tcp_hold: listen");
		return 1;
	}
	if (no_accept) {
		for (;;)
			pause();
	}

	pfd[0].events = POLLIN;
	for (;;) {
		if (poll(pfd, (nfds_t)n, -1) < 0) {
			if (errno == EINTR)
				continue;
			perror("tcp_hold: poll");
			return 1;
		}
		if ((pfd[0].revents & POLLIN) && n <= HOLD_MAX) {
			int s = accept(pfd[0].fd, NULL, NULL);

			if (s >= 0) {
				pfd[n].fd = s;
				pfd[n].events = POLLIN;
				n++;
			}
		}
		for (i = 1; i < n; i++) {
			if (!pfd[i].revents)
				continue;
			if (read(pfd[i].fd, buf, sizeof(buf)) > 0)
				continue;
			close(pfd[i].fd);
			pfd[i--] = pfd[--n];
		}
	}
}

/**
 * hold_one() - open one connection, wait for the outcome
 * @a:		address to connect to
 * @wait_ms:	time to wait
 * @err:	set to the error on failure (ETIMEDOUT if no answer)
 *
 * Return: connected socket, -1 on failure
 */
static int hold_one(const struct hold_addr *a, int wait_ms, int *err)
{
	struct pollfd pfd;
	socklen_t sl = sizeof(*err);
	int s, rc;

	s = socket(a->u.sa.sa_family, SOCK_STREAM | SOCK_NONBLOCK, 0);
	if (s < 0) {
		*err = errno;
		return -1;
	}
	if (!connect(s, &a->u.sa, a->sl))
		return s;
	if (errno != EINPROGRESS) {
		*err = errno;
		close(s);
		return -1;
	}

	pfd.fd = s;
	pfd.events = POLLOUT;
	do
		rc = poll(&pfd, 1, wait_ms);
	while (rc < 0 && errno == EINTR);
	if (rc <= 0) {
		*err = ETIMEDOUT;
		close(s);
		return -1;
	}
	if (getsockopt(s, SOL_SOCKET, SO_ERROR, err, &sl) || *err) {
		close(s);
		return -1;
	}
	return s;
}

/**
 * hold_connect() - open connections one by one, report, hold them
 * @a:		address to connect to
 * @count:	connections to open
 * @wait_ms:	time to wait for each
 * @exit_now:	exit after the report instead of holding
 *
 * Return: 0
 */
static int hold_connect(const struct hold_addr *a, int count, int wait_ms,
			bool exit_now)
{
	int established = 0, refused = 0, timeout = 0, other = 0, i;
	long long max_refuse = 0;
	int first_err = 0;
	char buf[64];

	for (i = 0; i < count; i++) {
		long long t0 = now_ms();
		int err = 0, s;

		s = hold_one(a, wait_ms, &err);
		if (s >= 0) {
			established++;
			continue;
		}
		if (!first_err)
			first_err = err;
		if (err == ECONNREFUSED || err == ECONNRESET) {
			refused++;
			if (now_ms() - t0 > max_refuse)
				max_refuse = now_ms() - t0;
		} else if (err == ETIMEDOUT) {
			timeout++;
		} else {
			other++;
		}
	}

	printf("tcp_hold: established=%d refused=%d timeout=%d other=%d "
	       "max_refuse_ms=%lld first_error=%s\n", established, refused,
	       timeout, other, max_refuse,
	       first_err ? strerror(first_err) : "none");
	fflush(stdout);
	if (exit_now)
		return 0;

	/* Hold until standard input ends (or we are killed) */
	while (read(0, buf, sizeof(buf)) > 0)
		;
	return 0;
}

/**
 * main() - dispatch to listen or connect mode
 * @argc:	argument count
 * @argv:	arguments
 *
 * Return: exit status
 */
int main(int argc, char **argv)
{
	int count = 1, wait_ms = HOLD_WAIT_MS_DEFAULT;
	int backlog = HOLD_BACKLOG_DEFAULT, opt;
	bool no_accept = false, exit_now = false, listen_mode;
	struct hold_addr a;

	if (argc < 2)
		goto usage;
	listen_mode = !strcmp(argv[1], "listen");
	if (!listen_mode && strcmp(argv[1], "connect") != 0)
		goto usage;

	optind = 2;
	while ((opt = getopt(argc, argv, "b:Nn:w:x")) != -1) {
		switch (opt) {
		case 'b': backlog = atoi(optarg); break;
		case 'N': no_accept = true; break;
		case 'n': count = atoi(optarg); break;
		case 'w': wait_ms = atoi(optarg); break;
		case 'x': exit_now = true; break;
		default: goto usage;
		}
	}
	if (optind != argc - 2 || count < 1 || count > HOLD_MAX)
		goto usage;
	hold_parse(argv[optind], argv[optind + 1], &a);

	if (listen_mode)
		return hold_listen(&a, backlog, no_accept);
	return hold_connect(&a, count, wait_ms, exit_now);

usage:
	fprintf(stderr,
		"Usage: %s listen [-b BACKLOG] [-N] ADDR PORT\n"
		"       %s connect [-n COUNT] [-w MS] [-x] ADDR PORT\n",
		argv[0], argv[0]);
	return 1;
}
