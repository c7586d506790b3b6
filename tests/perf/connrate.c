// SPDX-License-Identifier: GPL-2.0-or-later
/* connrate.c - TCP connection rate: sequential connect, send, close
 *
 * Theory of operation
 *
 *   connrate server ADDR PORT
 *	Accept connections one at a time, until killed: read the client's
 *	CONNRATE_MSG_LEN bytes, then close. The server closes first, so the
 *	TIME_WAIT state stays on the server's side and the client (and any
 *	relay in between) doesn't run out of ephemeral ports.
 *
 *   connrate client ADDR PORT SECONDS
 *	For SECONDS, one connection after the other: connect, send
 *	CONNRATE_MSG_LEN bytes, wait for the server's close (end of file),
 *	close. Prints one line:
 *	  connections N failures F seconds S rate R
 *	where R is completed connections per second. A connection that fails
 *	(refused, reset, or no progress for CONNRATE_TIMEOUT_S) counts as a
 *	failure and the loop goes on; after CONNRATE_MAX_FAIL failures in a
 *	row the client gives up. Exits 0 if at least one connection
 *	completed.
 *
 * ADDR is a numeric IPv4 or IPv6 address. No timing assertion is made:
 * this is a measuring tool, tests/perf/run reports what it prints.
 */

#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/time.h>

#define CONNRATE_MSG_LEN	16
#define CONNRATE_TIMEOUT_S	2
#define CONNRATE_MAX_FAIL	100
#define CONNRATE_BACKLOG	4096

/**
 * connrate_addr() - resolve a numeric address and port
 * @addr:	numeric IPv4 or IPv6 address
 * @port:	port, as a string
 * @ss:		filled with the socket address
 * @len:	filled with its length
 *
 * Return: 0 on success, -1 (with a message) if the address is not valid
 */
static int connrate_addr(const char *addr, const char *port,
			 struct sockaddr_storage *ss, socklen_t *len)
{
	struct addrinfo hints = { 0 }, *res;
	int rc;

	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE;
	rc = getaddrinfo(addr, port, &hints, &res);
	if (rc) {
		fprintf(stderr, "connrate: address %s port %s: %s\n",
			addr, port, gai_strerror(rc));
		return -1;
	}
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	*len = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

/**
 * connrate_timeouts() - bound blocking connect, send and receive calls
 * @fd:		socket
 */
static void connrate_timeouts(int fd)
{
	struct timeval tv = { .tv_sec = CONNRATE_TIMEOUT_S };

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

/**
 * connrate_server() - accept, read the message, close; forever
 * @ss:		address to listen on
 * @len:	its length
 *
 * Return: 1 if the socket can't be set up (does not return otherwise)
 */
static int connrate_server(const struct sockaddr_storage *ss, socklen_t len)
{
	char buf[CONNRATE_MSG_LEN];
	int one = 1, s, fd;

	s = socket(ss->ss_family, SOCK_STREAM, 0);
	if (s < 0) {
		perror("connrate: socket");
		return 1;
	}
	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(s, (const struct sockaddr *)ss, len) ||
	    listen(s, CONNRATE_BACKLOG)) {
		perror("connrate: bind/listen");
		return 1;
	}

	for (;;) {
		size_t got = 0;
		ssize_t n;

		fd = accept(s, NULL, NULL);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			perror("connrate: accept");
			return 1;
		}
		connrate_timeouts(fd);
		while (got < sizeof(buf)) {
			n = read(fd, buf + got, sizeof(buf) - got);
			if (n <= 0)
				break;
			got += (size_t)n;
		}
		close(fd);
	}
}

/**
 * connrate_now() - monotonic time in seconds
 *
 * Return: seconds since an arbitrary point
 */
static double connrate_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/**
 * connrate_one() - one connection: connect, send, wait for end of file
 * @ss:		server address
 * @len:	its length
 *
 * Return: 0 if the whole exchange worked, -1 otherwise (errno kept)
 */
static int connrate_one(const struct sockaddr_storage *ss, socklen_t len)
{
	char msg[CONNRATE_MSG_LEN] = "connrate-hello!";
	char buf[64];
	int fd, rc = -1, err;
	ssize_t n;

	fd = socket(ss->ss_family, SOCK_STREAM, 0);
	if (fd < 0)
		return -1;
	connrate_timeouts(fd);
	if (connect(fd, (const struct sockaddr *)ss, len))
		goto out;
	if (write(fd, msg, sizeof(msg)) != (ssize_t)sizeof(msg))
		goto out;
	do {
		n = read(fd, buf, sizeof(buf));
	} while (n > 0);
	if (n == 0)
		rc = 0;
out:
	err = errno;
	close(fd);
	errno = err;
	return rc;
}

/**
 * connrate_client() - run connections back to back and print the rate
 * @ss:		server address
 * @len:	its length
 * @secs:	how long to run
 *
 * Return: 0 if at least one connection completed, 1 otherwise
 */
static int connrate_client(const struct sockaddr_storage *ss, socklen_t len,
			   double secs)
{
	unsigned long done = 0, failed = 0, in_row = 0;
	double start = connrate_now(), now = start;

	while (now - start < secs) {
		if (connrate_one(ss, len)) {
			failed++;
			if (failed <= 3)
				fprintf(stderr, "connrate: connection %lu: %s\n",
					done + failed, strerror(errno));
			if (++in_row >= CONNRATE_MAX_FAIL) {
				fprintf(stderr, "connrate: %d failures in a "
					"row, giving up\n", CONNRATE_MAX_FAIL);
				now = connrate_now();
				break;
			}
		} else {
			done++;
			in_row = 0;
		}
		now = connrate_now();
	}

	printf("connections %lu failures %lu seconds %.3f rate %.1f\n",
	       done, failed, now - start,
	       now > start ? (double)done / (now - start) : 0.0);
	return done ? 0 : 1;
}

/**
 * main() - parse the mode and its arguments
 * @argc:	argument count
 * @argv:	server ADDR PORT, or client ADDR PORT SECONDS
 *
 * Return: exit status
 */
int main(int argc, char **argv)
{
	struct sockaddr_storage ss;
	socklen_t len;
	double secs;

	if (argc == 4 && !strcmp(argv[1], "server")) {
		if (connrate_addr(argv[2], argv[3], &ss, &len))
			return 1;
		return connrate_server(&ss, len);
	}
	if (argc == 5 && !strcmp(argv[1], "client")) {
		secs = atof(argv[4]);
		if (secs <= 0 || connrate_addr(argv[2], argv[3], &ss, &len))
			return 1;
		return connrate_client(&ss, len, secs);
	}
	fprintf(stderr, "usage: connrate server ADDR PORT\n"
			"       connrate client ADDR PORT SECONDS\n");
	return 1;
}
