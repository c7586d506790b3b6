// SPDX-License-Identifier: GPL-2.0-or-later
/* tcp_multi.c - many concurrent TCP clients sending files to an echo server
 *
 * Theory of operation: the test rig wants COUNT connections that are truly
 * open at the same time, each carrying its own data, with every byte that
 * comes back kept for a checksum. Phase one opens every connection with a
 * non-blocking connect() and waits until all of them are established, so no
 * connection can finish before the last one starts. Phase two is a single
 * poll() loop: it writes DIR/in.N to connection N, shuts down the write side
 * once the file is sent (the server sees end of file), and stores whatever
 * the server sends back in DIR/out.N until the server closes. The shell
 * script then compares checksums of in.N and out.N.
 *
 * Usage: tcp_multi [-t SECONDS] ADDR PORT DIR COUNT
 * Exit status: 0 if every connection was established (within 10 s), sent
 * its whole file and saw the server close before the deadline (-t, default
 * 60 s); 1 otherwise, with a message naming the connection and the failing
 * call.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MULTI_MAX_CONN		1024
#define MULTI_CHUNK		(64 * 1024)
#define MULTI_TIMEOUT_DEFAULT	60
#define MULTI_CONNECT_TIMEOUT	10	/* seconds, for all connections */

/**
 * struct multi_conn - one client connection
 * @fd:		connected socket
 * @out:	file receiving what the server sends back
 * @data:	whole content of the input file
 * @len:	size of @data
 * @sent:	bytes of @data written to the socket so far
 * @rcvd:	bytes received from the server so far
 * @eof:	the server closed its side
 */
struct multi_conn {
	int fd;
	int out;
	char *data;
	size_t len;
	size_t sent;
	size_t rcvd;
	bool eof;
};

static struct multi_conn multi_conns[MULTI_MAX_CONN];
static struct pollfd multi_pfd[MULTI_MAX_CONN];

/**
 * multi_fail() - print a message with the current errno and exit
 * @what:	what failed
 * @idx:	connection index, or -1 if none
 */
static void __attribute__((noreturn)) multi_fail(const char *what, int idx)
{
	int e = errno;

	if (idx >= 0)
		fprintf(stderr, "tcp_multi: connection %d: %s: %s\n",
			idx, what, strerror(e));
	else
		fprintf(stderr, "tcp_multi: %s: %s\n", what, strerror(e));
	exit(1);
}

/**
 * multi_now_ms() - monotonic time in milliseconds
 *
 * Return: milliseconds since an arbitrary point
 */
static long long multi_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/**
 * multi_left_ms() - time left before the deadline, for poll()
 * @deadline:	deadline from multi_now_ms()
 *
 * Return: milliseconds left, at least 0, at most INT_MAX
 */
static int multi_left_ms(long long deadline)
{
	long long left = deadline - multi_now_ms();

	if (left < 0)
		return 0;
	if (left > INT_MAX)
		return INT_MAX;
	return (int)left;
}

/**
 * multi_load() - read the input file of one connection, open its output
 * @c:		connection
 * @dir:	directory holding in.N, where out.N is created
 * @idx:	connection index N
 */
static void multi_load(struct multi_conn *c, const char *dir, int idx)
{
	char path[PATH_MAX];
	struct stat st;
	size_t done = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/in.%d", dir, idx);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st))
		multi_fail("open input file", idx);

	c->len = (size_t)st.st_size;
	c->data = malloc(c->len ? c->len : 1);
	if (!c->data)
		multi_fail("allocate input buffer", idx);

	while (done < c->len) {
		ssize_t n = read(fd, c->data + done, c->len - done);

		if (n <= 0)
			multi_fail("read input file", idx);
		done += (size_t)n;
	}
	close(fd);

	snprintf(path, sizeof(path), "%s/out.%d", dir, idx);
	c->out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (c->out < 0)
		multi_fail("create output file", idx);
}

/**
 * multi_addr() - build a socket address from a numeric address and port
 * @addr:	IPv4 or IPv6 address, numeric
 * @port:	port number
 * @ss:	filled with the address
 *
 * Return: length of the address in @ss
 */
static socklen_t multi_addr(const char *addr, int port,
			    struct sockaddr_storage *ss)
{
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *a4 = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, addr, &a4->sin_addr) == 1) {
		a4->sin_family = AF_INET;
		a4->sin_port = htons((uint16_t)port);
		return sizeof(*a4);
	}
	if (inet_pton(AF_INET6, addr, &a6->sin6_addr) == 1) {
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons((uint16_t)port);
		return sizeof(*a6);
	}
	fprintf(stderr, "tcp_multi: not a numeric address: %s\n", addr);
	exit(1);
}

/**
 * multi_connect_all() - open all connections, wait until all are established
 * @ss:		server address
 * @sl:		length of @ss
 * @count:	number of connections
 * @deadline:	give up at this time (multi_now_ms())
 */
static void multi_connect_all(const struct sockaddr_storage *ss, socklen_t sl,
			      int count, long long deadline)
{
	int i, pending = count;

	for (i = 0; i < count; i++) {
		int fd = socket(ss->ss_family,
				SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

		if (fd < 0)
			multi_fail("socket", i);
		if (connect(fd, (const struct sockaddr *)ss, sl) &&
		    errno != EINPROGRESS)
			multi_fail("connect", i);
		multi_conns[i].fd = fd;
		multi_pfd[i].fd = fd;
		multi_pfd[i].events = POLLOUT;
	}

	while (pending) {
		int n = poll(multi_pfd, (nfds_t)count, multi_left_ms(deadline));

		if (n < 0 && errno != EINTR)
			multi_fail("poll", -1);
		if (n == 0) {
			fprintf(stderr, "tcp_multi: %d of %d connections not "
				"established in time\n", pending, count);
			exit(1);
		}

		for (i = 0; n > 0 && i < count; i++) {
			socklen_t el = sizeof(int);
			int e = 0;

			if (multi_pfd[i].fd < 0 || !multi_pfd[i].revents)
				continue;
			if (getsockopt(multi_pfd[i].fd, SOL_SOCKET, SO_ERROR,
				       &e, &el))
				multi_fail("getsockopt SO_ERROR", i);
			if (e) {
				errno = e;
				multi_fail("connect", i);
			}
			multi_pfd[i].fd = -1;	/* established: stop polling */
			pending--;
		}
	}
	printf("tcp_multi: %d connections established at once\n", count);
}

/**
 * multi_send() - write the next chunk of input, shut down writing at the end
 * @c:		connection
 * @idx:	connection index
 */
static void multi_send(struct multi_conn *c, int idx)
{
	size_t len = c->len - c->sent;
	ssize_t n;

	if (len > MULTI_CHUNK)
		len = MULTI_CHUNK;
	if (len) {
		n = send(c->fd, c->data + c->sent, len, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return;
			multi_fail("send", idx);
		}
		c->sent += (size_t)n;
	}
	if (c->sent == c->len && shutdown(c->fd, SHUT_WR))
		multi_fail("shutdown(SHUT_WR)", idx);
}

/**
 * multi_recv() - read what the server sent back and store it
 * @c:		connection
 * @idx:	connection index
 * @buf:	scratch buffer of MULTI_CHUNK bytes
 */
static void multi_recv(struct multi_conn *c, int idx, char *buf)
{
	ssize_t n = recv(c->fd, buf, MULTI_CHUNK, 0);
	ssize_t done = 0;

	if (n < 0) {
		if (errno == EAGAIN || errno == EINTR)
			return;
		multi_fail("recv", idx);
	}
	if (n == 0) {
		c->eof = true;
		return;
	}
	while (done < n) {
		ssize_t w = write(c->out, buf + done, (size_t)(n - done));

		if (w < 0)
			multi_fail("write output file", idx);
		done += w;
	}
	c->rcvd += (size_t)n;
}

/**
 * multi_transfer() - send every file and collect the replies
 * @count:	number of connections
 * @deadline:	give up at this time (multi_now_ms())
 */
static void multi_transfer(int count, long long deadline)
{
	static char buf[MULTI_CHUNK];
	int i, active = count;

	for (i = 0; i < count; i++) {
		if (!multi_conns[i].len)
			multi_send(&multi_conns[i], i);	/* only shuts down */
	}

	while (active) {
		int n;

		for (i = 0; i < count; i++) {
			struct multi_conn *c = &multi_conns[i];

			multi_pfd[i].fd = c->eof ? -1 : c->fd;
			multi_pfd[i].events = POLLIN;
			if (c->sent < c->len)
				multi_pfd[i].events |= POLLOUT;
			multi_pfd[i].revents = 0;
		}

		n = poll(multi_pfd, (nfds_t)count, multi_left_ms(deadline));
		if (n < 0 && errno != EINTR)
			multi_fail("poll", -1);
		if (n == 0) {
			for (i = 0; i < count; i++) {
				const struct multi_conn *c = &multi_conns[i];

				if (!c->eof)
					fprintf(stderr, "tcp_multi: connection "
						"%d timed out: sent %zu of %zu, "
						"received %zu\n", i, c->sent,
						c->len, c->rcvd);
			}
			exit(1);
		}

		for (i = 0; n > 0 && i < count; i++) {
			struct multi_conn *c = &multi_conns[i];
			short ev = multi_pfd[i].revents;

			if (!ev)
				continue;
			if (ev & POLLOUT)
				multi_send(c, i);
			if (ev & (POLLIN | POLLHUP | POLLERR))
				multi_recv(c, i, buf);
			if (c->eof) {
				if (c->sent < c->len) {
					fprintf(stderr, "tcp_multi: connection "
						"%d closed by server after %zu "
						"of %zu bytes sent\n", i,
						c->sent, c->len);
					exit(1);
				}
				active--;
			}
		}
	}
}

/**
 * main() - parse arguments, connect, transfer, report
 * @argc:	argument count
 * @argv:	[-t SECONDS] ADDR PORT DIR COUNT
 *
 * Return: 0 on success, 1 on failure (see the top of this file)
 */
int main(int argc, char **argv)
{
	int timeout = MULTI_TIMEOUT_DEFAULT, count, port, i, opt;
	struct sockaddr_storage ss;
	long long deadline;
	socklen_t sl;

	while ((opt = getopt(argc, argv, "t:")) != -1) {
		if (opt != 't')
			goto usage;
		timeout = atoi(optarg);
	}
	if (argc - optind != 4)
		goto usage;

	port = atoi(argv[optind + 1]);
	count = atoi(argv[optind + 3]);
	if (port <= 0 || port > 65535 || count <= 0 ||
	    count > MULTI_MAX_CONN || timeout <= 0)
		goto usage;

	sl = multi_addr(argv[optind], port, &ss);
	for (i = 0; i < count; i++)
		multi_load(&multi_conns[i], argv[optind + 2], i);

	deadline = multi_now_ms() + (long long)timeout * 1000;
	multi_connect_all(&ss, sl, count,
			  multi_now_ms() + MULTI_CONNECT_TIMEOUT * 1000);
	multi_transfer(count, deadline);

	for (i = 0; i < count; i++) {
		if (close(multi_conns[i].out))
			multi_fail("close output file", i);
		close(multi_conns[i].fd);
		free(multi_conns[i].data);
	}
	printf("tcp_multi: %d connections done\n", count);
	return 0;

usage:
	fprintf(stderr, "Usage: %s [-t SECONDS] ADDR PORT DIR COUNT\n"
		"  connects COUNT times to ADDR:PORT, sends DIR/in.N on\n"
		"  connection N, stores the reply in DIR/out.N\n", argv[0]);
	return 1;
}
