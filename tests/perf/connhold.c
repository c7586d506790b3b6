// SPDX-License-Identifier: GPL-2.0-or-later
/* connhold.c - open many TCP connections and keep them open
 *
 * Theory of operation
 *
 *   connhold server ADDR PORT
 *	Accept every connection and keep it open, until killed. After each
 *	burst of accepts (when no more are pending) prints
 *	  accepted N
 *	with the total so far.
 *
 *   connhold client ADDR PORT COUNT
 *	Open COUNT connections one after the other (a blocking connect,
 *	bounded by CONNHOLD_TIMEOUT_S), print
 *	  done N failures F seconds S
 *	and keep them open until killed. Failures are counted and skipped;
 *	after CONNHOLD_MAX_FAIL failures in a row the client stops opening
 *	and holds what it has. Prints "open N" every CONNHOLD_PROGRESS
 *	connections on the way.
 *
 * Both raise RLIMIT_NOFILE to what they need (as root, the hard limit
 * too). tests/perf/run reads a relay's resident memory while the
 * connections are held through it.
 */

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>

#define CONNHOLD_TIMEOUT_S	5
#define CONNHOLD_MAX_FAIL	20
#define CONNHOLD_PROGRESS	1000
#define CONNHOLD_BACKLOG	4096
#define CONNHOLD_SPARE_FDS	64

/**
 * connhold_addr() - resolve a numeric address and port
 * @addr:	numeric IPv4 or IPv6 address
 * @port:	port, as a string
 * @ss:		filled with the socket address
 * @len:	filled with its length
 *
 * Return: 0 on success, -1 (with a message) if the address is not valid
 */
static int connhold_addr(const char *addr, const char *port,
			 struct sockaddr_storage *ss, socklen_t *len)
{
	struct addrinfo hints = { 0 }, *res;
	int rc;

	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE;
	rc = getaddrinfo(addr, port, &hints, &res);
	if (rc) {
		fprintf(stderr, "connhold: address %s port %s: %s\n",
			addr, port, gai_strerror(rc));
		return -1;
	}
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	*len = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

/**
 * connhold_nofile() - raise the descriptor limit
 * @want:	descriptors needed, 0 for as many as the hard limit allows
 *
 * Raises the hard limit too if needed and allowed (CAP_SYS_RESOURCE),
 * else sets the soft limit to the hard one and warns if that's not enough.
 */
static void connhold_nofile(rlim_t want)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return;
	if (!want)
		want = rl.rlim_max;
	if (rl.rlim_cur >= want)
		return;
	if (rl.rlim_max < want) {
		struct rlimit more = { .rlim_cur = want, .rlim_max = want };

		if (!setrlimit(RLIMIT_NOFILE, &more))
			return;
	}
	rl.rlim_cur = rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
	if (rl.rlim_cur < want)
		fprintf(stderr, "connhold: descriptor limit %llu, below the "
			"%llu needed\n", (unsigned long long)rl.rlim_cur,
			(unsigned long long)want);
}

/**
 * connhold_server() - accept and hold connections, report the count
 * @ss:		address to listen on
 * @len:	its length
 *
 * Return: 1 if the socket can't be set up (does not return otherwise)
 */
static int connhold_server(const struct sockaddr_storage *ss, socklen_t len)
{
	unsigned long total = 0, shown = 0;
	struct pollfd pfd;
	int one = 1, s;

	connhold_nofile(0);
	s = socket(ss->ss_family, SOCK_STREAM | SOCK_NONBLOCK, 0);
	if (s < 0) {
		perror("connhold: socket");
		return 1;
	}
	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(s, (const struct sockaddr *)ss, len) ||
	    listen(s, CONNHOLD_BACKLOG)) {
		perror("connhold: bind/listen");
		return 1;
	}

	pfd.fd = s;
	pfd.events = POLLIN;
	for (;;) {
		if (poll(&pfd, 1, -1) < 0 && errno != EINTR) {
			perror("connhold: poll");
			return 1;
		}
		while (accept(s, NULL, NULL) >= 0)
			total++;	/* held: never closed */
		if (errno == EMFILE || errno == ENFILE) {
			perror("connhold: accept");
			sleep(1);
		}
		if (total != shown) {
			printf("accepted %lu\n", total);
			shown = total;
		}
	}
}

/**
 * connhold_now() - monotonic time in seconds
 *
 * Return: seconds since an arbitrary point
 */
static double connhold_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/**
 * connhold_one() - open one connection, leave it open
 * @ss:		server address
 * @len:	its length
 *
 * Return: 0 on success, -1 otherwise (errno kept)
 */
static int connhold_one(const struct sockaddr_storage *ss, socklen_t len)
{
	struct timeval tv = { .tv_sec = CONNHOLD_TIMEOUT_S };
	int fd, err;

	fd = socket(ss->ss_family, SOCK_STREAM, 0);
	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (const struct sockaddr *)ss, len)) {
		err = errno;
		close(fd);
		errno = err;
		return -1;
	}
	return 0;
}

/**
 * connhold_client() - open @count connections, report, hold them
 * @ss:		server address
 * @len:	its length
 * @count:	connections to open
 *
 * Return: 1 if none could be opened (does not return otherwise)
 */
static int connhold_client(const struct sockaddr_storage *ss, socklen_t len,
			   unsigned long count)
{
	unsigned long done = 0, failed = 0, in_row = 0;
	double start = connhold_now();

	connhold_nofile(count + CONNHOLD_SPARE_FDS);
	while (done < count) {
		if (connhold_one(ss, len)) {
			failed++;
			if (failed <= 3)
				fprintf(stderr, "connhold: connection %lu: %s\n",
					done + 1, strerror(errno));
			if (++in_row >= CONNHOLD_MAX_FAIL) {
				fprintf(stderr, "connhold: %d failures in a "
					"row, holding %lu connections\n",
					CONNHOLD_MAX_FAIL, done);
				break;
			}
			continue;
		}
		in_row = 0;
		if (++done % CONNHOLD_PROGRESS == 0)
			printf("open %lu\n", done);
	}
	printf("done %lu failures %lu seconds %.3f\n", done, failed,
	       connhold_now() - start);
	if (!done)
		return 1;
	for (;;)
		pause();
}

/**
 * main() - parse the mode and its arguments
 * @argc:	argument count
 * @argv:	server ADDR PORT, or client ADDR PORT COUNT
 *
 * Return: exit status
 */
int main(int argc, char **argv)
{
	struct sockaddr_storage ss;
	unsigned long count;
	socklen_t len;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 4 && !strcmp(argv[1], "server")) {
		if (connhold_addr(argv[2], argv[3], &ss, &len))
			return 1;
		return connhold_server(&ss, len);
	}
	if (argc == 5 && !strcmp(argv[1], "client")) {
		count = strtoul(argv[4], NULL, 0);
		if (!count || connhold_addr(argv[2], argv[3], &ss, &len))
			return 1;
		return connhold_client(&ss, len, count);
	}
	fprintf(stderr, "usage: connhold server ADDR PORT\n"
			"       connhold client ADDR PORT COUNT\n");
	return 1;
}
