// SPDX-License-Identifier: GPL-2.0-or-later
/* dns_stub.c - tiny DNS responder and query tool for tests
 *
 * Theory of operation
 *
 *   dns_stub server [-b ADDR] -p PORT -A IPV4 [-c COUNTFILE]
 *	Answer every query for an A record, whatever the name, with one
 *	record holding IPV4 (TTL 60), over UDP and over TCP (two-byte length
 *	prefix, RFC 1035 4.2.2) on the same address and port, until killed.
 *	Queries of other types get an answer with no records. With -c, the
 *	number of queries answered so far (UDP and TCP) is rewritten to
 *	COUNTFILE after each one, so that a test can tell that the query
 *	reached this server and not another one.
 *
 *   dns_stub query -s ADDR -p PORT -n NAME [-t] [-w SECONDS]
 *	Send one A query for NAME over UDP (or TCP with -t), print the first
 *	A record of the answer, exit 0; exit 1 if no valid answer with the
 *	query's ID arrived within SECONDS (default 3).
 *
 * The server is one poll() loop: up to DNS_TCP_CONNS TCP clients are served
 * at once, each query answered as soon as it is complete, so that a client
 * that keeps its connection open doesn't hold up the others (or UDP).
 *
 * Only what the tests need: one question per message, names without
 * compression in questions, answers built with a pointer to the question.
 */

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#define DNS_MSG_MAX		512	/* plain DNS over UDP */
#define DNS_HDR_LEN		12
#define DNS_TYPE_A		1
#define DNS_CLASS_IN		1
#define DNS_TTL			60
#define DNS_FLAG_QR		0x8000
#define DNS_FLAG_AA		0x0400
#define DNS_FLAG_RD		0x0100
#define DNS_FLAG_RA		0x0080
#define DNS_NAME_PTR		0xc00c	/* pointer to the question's name */
#define DNS_TCP_BACKLOG		16
#define DNS_TCP_CONNS		16	/* TCP clients served at once */
#define DNS_WAIT_DEFAULT	3.0

static unsigned long dns_answered;	/* queries answered so far */
static const char *dns_countfile;	/* -c: where to write the count */

/**
 * dns_usage() - print usage and exit
 * @name:	program name
 */
static void dns_usage(const char *name)
{
	fprintf(stderr,
		"Usage: %s server [-b ADDR] -p PORT -A IPV4 [-c COUNTFILE]\n"
		"       %s query -s ADDR -p PORT -n NAME [-t] [-w SECONDS]\n",
		name, name);
	exit(2);
}

/**
 * dns_sockaddr() - build a socket address from text
 * @text:	IPv4 or IPv6 address, NULL for the IPv6 wildcard
 * @port:	port
 * @sa:		output
 *
 * Return: length of the address, 0 if @text is not an address
 */
static socklen_t dns_sockaddr(const char *text, unsigned int port,
			      struct sockaddr_storage *sa)
{
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)sa;
	struct sockaddr_in *a4 = (struct sockaddr_in *)sa;

	memset(sa, 0, sizeof(*sa));
	if (text && inet_pton(AF_INET, text, &a4->sin_addr) == 1) {
		a4->sin_family = AF_INET;
		a4->sin_port = htons((uint16_t)port);
		return sizeof(*a4);
	}
	if (!text || inet_pton(AF_INET6, text, &a6->sin6_addr) == 1) {
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons((uint16_t)port);
		return sizeof(*a6);
	}
	return 0;
}

/**
 * dns_question_end() - find the end of the question of a message
 * @msg:	message
 * @len:	its length
 *
 * Return: offset past QTYPE and QCLASS, 0 if malformed
 */
static size_t dns_question_end(const uint8_t *msg, size_t len)
{
	size_t off = DNS_HDR_LEN;

	if (len < DNS_HDR_LEN || ((msg[4] << 8) | msg[5]) != 1)
		return 0;

	while (off < len && msg[off]) {
		if (msg[off] & 0xc0)
			return 0;
		off += (size_t)msg[off] + 1;
	}
	off += 1 + 4;

	return off <= len ? off : 0;
}

/**
 * dns_answer() - build the answer to a query
 * @q:		query
 * @qlen:	its length
 * @a4:		address to answer A queries with
 * @out:	answer buffer, DNS_MSG_MAX bytes
 *
 * Return: length of the answer, 0 if the query is not valid
 */
static size_t dns_answer(const uint8_t *q, size_t qlen, struct in_addr a4,
			 uint8_t *out)
{
	size_t end = dns_question_end(q, qlen), n;
	uint16_t flags, qtype;

	if (!end || end + 16 > DNS_MSG_MAX || (q[2] & 0x80))
		return 0;

	memcpy(out, q, end);
	qtype = (uint16_t)((q[end - 4] << 8) | q[end - 3]);
	flags = DNS_FLAG_QR | DNS_FLAG_AA | DNS_FLAG_RA |
		(((q[2] << 8) | q[3]) & DNS_FLAG_RD);
	out[2] = (uint8_t)(flags >> 8);
	out[3] = (uint8_t)flags;
	memset(out + 6, 0, 6);	/* ANCOUNT, NSCOUNT, ARCOUNT */
	n = end;

	if (qtype == DNS_TYPE_A) {
		const uint8_t rr[] = {
			DNS_NAME_PTR >> 8, DNS_NAME_PTR & 0xff,
			0, DNS_TYPE_A, 0, DNS_CLASS_IN,
			0, 0, 0, DNS_TTL, 0, 4,
		};

		memcpy(out + n, rr, sizeof(rr));
		n += sizeof(rr);
		memcpy(out + n, &a4, 4);
		n += 4;
		out[7] = 1;
	}

	return n;
}

/**
 * dns_count() - note a query about to be answered, write the count if asked
 *
 * Called before the answer goes out, and written to a new file renamed
 * over the old one: whoever got the answer and reads the file sees the
 * count with it, never a file half written.
 */
static void dns_count(void)
{
	char tmp[PATH_MAX];
	FILE *f;

	dns_answered++;
	if (!dns_countfile)
		return;
	if (snprintf(tmp, sizeof(tmp), "%s.new", dns_countfile) >=
	    (int)sizeof(tmp))
		return;
	f = fopen(tmp, "w");
	if (!f)
		return;
	fprintf(f, "%lu\n", dns_answered);
	if (fclose(f) || rename(tmp, dns_countfile))
		unlink(tmp);
}

/**
 * dns_read_full() - read exactly @len bytes from a stream socket
 * @s:		socket
 * @buf:	buffer
 * @len:	bytes to read
 *
 * Return: 0 on success, -1 on error or end of file
 */
static int dns_read_full(int s, uint8_t *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(s, buf + got, len - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		got += (size_t)n;
	}
	return 0;
}

/**
 * struct dns_conn - a TCP client of the server
 * @buf:	bytes received and not answered yet
 * @len:	number of bytes in @buf
 */
struct dns_conn {
	uint8_t buf[DNS_MSG_MAX + 2];
	size_t len;
};

static struct dns_conn dns_conns[DNS_TCP_CONNS];

/**
 * dns_serve_tcp() - read from a TCP client, answer complete queries
 * @pfd:	its poll entry; fd set to -1 once it is closed
 * @conn:	its state
 * @a4:		address for A answers
 */
static void dns_serve_tcp(struct pollfd *pfd, struct dns_conn *conn,
			  struct in_addr a4)
{
	uint8_t out[DNS_MSG_MAX + 2];
	size_t qlen, alen;
	ssize_t n;

	n = read(pfd->fd, conn->buf + conn->len, sizeof(conn->buf) - conn->len);
	if (n <= 0)
		goto close;
	conn->len += (size_t)n;

	while (conn->len >= 2) {
		qlen = (size_t)((conn->buf[0] << 8) | conn->buf[1]);
		if (qlen > DNS_MSG_MAX)
			goto close;
		if (conn->len < qlen + 2)
			return;

		alen = dns_answer(conn->buf + 2, qlen, a4, out + 2);
		if (!alen)
			goto close;
		out[0] = (uint8_t)(alen >> 8);
		out[1] = (uint8_t)alen;
		dns_count();
		if (write(pfd->fd, out, alen + 2) != (ssize_t)(alen + 2))
			goto close;

		conn->len -= qlen + 2;
		memmove(conn->buf, conn->buf + qlen + 2, conn->len);
	}
	return;

close:
	close(pfd->fd);
	pfd->fd = -1;
}

/**
 * dns_open() - bind the UDP socket and the listening TCP socket
 * @bind_addr:	address to bind, NULL for the IPv6 wildcard (both families)
 * @port:	port
 * @pfd:	poll entries: UDP socket set in the first, TCP in the second
 *
 * Return: 0 on success, 1 on failure (reported)
 */
static int dns_open(const char *bind_addr, unsigned int port,
		    struct pollfd *pfd)
{
	struct sockaddr_storage sa;
	int one = 1, zero = 0;
	socklen_t sl;

	sl = dns_sockaddr(bind_addr, port, &sa);
	if (!sl) {
		fprintf(stderr, "dns_stub: bad address %s\n", bind_addr);
		return 1;
	}

	pfd[0].fd = socket(sa.ss_family, SOCK_DGRAM, 0);
	pfd[1].fd = socket(sa.ss_family, SOCK_STREAM, 0);
	if (pfd[0].fd < 0 || pfd[1].fd < 0) {
		perror("dns_stub: socket");
		return 1;
	}
	setsockopt(pfd[1].fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (sa.ss_family == AF_INET6 && !bind_addr) {
		setsockopt(pfd[0].fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero,
			   sizeof(zero));
		setsockopt(pfd[1].fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero,
			   sizeof(zero));
	}
	if (bind(pfd[0].fd, (struct sockaddr *)&sa, sl) ||
	    bind(pfd[1].fd, (struct sockaddr *)&sa, sl) ||
	    listen(pfd[1].fd, DNS_TCP_BACKLOG)) {
		perror("dns_stub: bind");
		return 1;
	}
	return 0;
}

/**
 * dns_serve_udp() - answer one query waiting on the UDP socket
 * @fd:		UDP socket
 * @a4:		address for A answers
 */
static void dns_serve_udp(int fd, struct in_addr a4)
{
	uint8_t q[DNS_MSG_MAX], out[DNS_MSG_MAX];
	struct sockaddr_storage peer;
	socklen_t pl = sizeof(peer);
	ssize_t n;
	size_t alen;

	n = recvfrom(fd, q, sizeof(q), 0, (struct sockaddr *)&peer, &pl);
	alen = n > 0 ? dns_answer(q, (size_t)n, a4, out) : 0;
	if (!alen)
		return;
	dns_count();
	sendto(fd, out, alen, 0, (struct sockaddr *)&peer, pl);
}

/**
 * dns_accept() - accept a TCP client into a free slot, or close it
 * @pfd:	poll entries: the listening socket second, then the clients
 */
static void dns_accept(struct pollfd *pfd)
{
	int s = accept(pfd[1].fd, NULL, NULL);
	unsigned int i;

	for (i = 2; s >= 0 && i < 2 + DNS_TCP_CONNS; i++) {
		if (pfd[i].fd < 0) {
			pfd[i].fd = s;
			dns_conns[i - 2].len = 0;
			s = -1;
		}
	}
	if (s >= 0)
		close(s);	/* too many clients */
}

/**
 * dns_server() - answer queries over UDP and TCP until killed
 * @bind_addr:	address to bind, NULL for the IPv6 wildcard (both families)
 * @port:	port
 * @a4:		address for A answers
 *
 * Return: 1 on set-up failure (does not return otherwise)
 */
static int dns_server(const char *bind_addr, unsigned int port,
		      struct in_addr a4)
{
	struct pollfd pfd[2 + DNS_TCP_CONNS];
	unsigned int i;

	if (dns_open(bind_addr, port, pfd))
		return 1;
	for (i = 0; i < 2 + DNS_TCP_CONNS; i++) {
		if (i >= 2)
			pfd[i].fd = -1;
		pfd[i].events = POLLIN;
	}

	for (;;) {
		if (poll(pfd, 2 + DNS_TCP_CONNS, -1) < 0) {
			if (errno == EINTR)
				continue;
			perror("dns_stub: poll");
			return 1;
		}

		if (pfd[0].revents & POLLIN)
			dns_serve_udp(pfd[0].fd, a4);

		for (i = 2; i < 2 + DNS_TCP_CONNS; i++) {
			if (pfd[i].fd >= 0 && pfd[i].revents)
				dns_serve_tcp(&pfd[i], &dns_conns[i - 2], a4);
		}

		if (pfd[1].revents & POLLIN)
			dns_accept(pfd);
	}
}

/**
 * dns_build_query() - build an A query
 * @name:	name, dot-separated
 * @id:		query ID
 * @q:		output, DNS_MSG_MAX bytes
 *
 * Return: length, 0 if the name doesn't fit
 */
static size_t dns_build_query(const char *name, uint16_t id, uint8_t *q)
{
	size_t off = DNS_HDR_LEN;
	const char *p = name;

	memset(q, 0, DNS_HDR_LEN);
	q[0] = (uint8_t)(id >> 8);
	q[1] = (uint8_t)id;
	q[2] = DNS_FLAG_RD >> 8;
	q[5] = 1;	/* QDCOUNT */

	while (*p) {
		size_t len = strcspn(p, ".");

		if (!len || len > 63 || off + len + 1 + 5 > DNS_MSG_MAX)
			return 0;
		q[off++] = (uint8_t)len;
		memcpy(q + off, p, len);
		off += len;
		p += len;
		if (*p == '.')
			p++;
	}
	q[off++] = 0;
	q[off++] = 0;
	q[off++] = DNS_TYPE_A;
	q[off++] = 0;
	q[off++] = DNS_CLASS_IN;

	return off;
}

/**
 * dns_print_answer() - print the first A record of an answer
 * @a:		answer
 * @len:	its length
 * @id:		ID of our query
 *
 * Return: 0 if an A record was printed, -1 otherwise
 */
static int dns_print_answer(const uint8_t *a, size_t len, uint16_t id)
{
	size_t off = dns_question_end(a, len);
	unsigned int an, i;
	char buf[INET_ADDRSTRLEN];

	if (!off || ((a[0] << 8) | a[1]) != id || !(a[2] & 0x80))
		return -1;
	an = (unsigned int)((a[6] << 8) | a[7]);

	for (i = 0; i < an; i++) {
		unsigned int type, rdlen;

		/* Owner name: a pointer, or labels */
		if (off < len && (a[off] & 0xc0) == 0xc0) {
			off += 2;
		} else {
			while (off < len && a[off])
				off += (size_t)a[off] + 1;
			off++;
		}
		if (off + 10 > len)
			return -1;
		type = (unsigned int)((a[off] << 8) | a[off + 1]);
		rdlen = (unsigned int)((a[off + 8] << 8) | a[off + 9]);
		off += 10;
		if (off + rdlen > len)
			return -1;
		if (type == DNS_TYPE_A && rdlen == 4) {
			printf("%s\n", inet_ntop(AF_INET, a + off, buf,
						 sizeof(buf)));
			return 0;
		}
		off += rdlen;
	}
	return -1;
}

/**
 * dns_query() - send one A query, print the answer
 * @server:	server address
 * @port:	port
 * @name:	name to ask for
 * @tcp:	over TCP, else UDP
 * @wait_s:	how long to wait for the answer
 *
 * Return: 0 on success, 1 on failure
 */
static int dns_query(const char *server, unsigned int port, const char *name,
		     bool tcp, double wait_s)
{
	uint8_t q[DNS_MSG_MAX + 2], a[DNS_MSG_MAX + 2];
	struct sockaddr_storage sa;
	struct pollfd pfd;
	size_t qlen;
	uint16_t id;
	socklen_t sl;
	ssize_t n;
	int s;

	srand((unsigned int)time(NULL) ^ (unsigned int)getpid());
	id = (uint16_t)rand();

	sl = dns_sockaddr(server, port, &sa);
	qlen = dns_build_query(name, id, q + 2);
	if (!sl || !qlen) {
		fprintf(stderr, "dns_stub: bad server address or name\n");
		return 1;
	}

	s = socket(sa.ss_family, tcp ? SOCK_STREAM : SOCK_DGRAM, 0);
	if (s < 0 || connect(s, (struct sockaddr *)&sa, sl)) {
		perror("dns_stub: connect");
		return 1;
	}

	if (tcp) {
		q[0] = (uint8_t)(qlen >> 8);
		q[1] = (uint8_t)qlen;
		n = write(s, q, qlen + 2);
	} else {
		n = send(s, q + 2, qlen, 0);
	}
	if (n < 0) {
		perror("dns_stub: send");
		return 1;
	}

	pfd.fd = s;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, (int)(wait_s * 1000)) <= 0) {
		fprintf(stderr, "dns_stub: no answer within %.1f s\n", wait_s);
		return 1;
	}

	if (tcp) {
		uint8_t lenb[2];
		size_t alen;

		if (dns_read_full(s, lenb, 2))
			goto bad;
		alen = (size_t)((lenb[0] << 8) | lenb[1]);
		if (alen > DNS_MSG_MAX || dns_read_full(s, a, alen))
			goto bad;
		n = (ssize_t)alen;
	} else {
		n = recv(s, a, sizeof(a), 0);
		if (n <= 0)
			goto bad;
	}

	if (!dns_print_answer(a, (size_t)n, id))
		return 0;
bad:
	fprintf(stderr, "dns_stub: no valid answer\n");
	return 1;
}

/**
 * main() - parse the command line, run the server or the query
 * @argc:	argument count
 * @argv:	arguments
 *
 * Return: 0 on success, 1 on failure, 2 on usage error
 */
int main(int argc, char **argv)
{
	const char *bind_addr = NULL, *server = NULL, *name = NULL;
	const char *answer = NULL;
	double wait_s = DNS_WAIT_DEFAULT;
	unsigned int port = 0;
	struct in_addr a4;
	bool tcp = false;
	int opt;

	if (argc < 2)
		dns_usage(argv[0]);
	optind = 2;
	while ((opt = getopt(argc, argv, "b:p:A:c:s:n:tw:")) != -1) {
		switch (opt) {
		case 'b': bind_addr = optarg; break;
		case 'p': port = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 'A': answer = optarg; break;
		case 'c': dns_countfile = optarg; break;
		case 's': server = optarg; break;
		case 'n': name = optarg; break;
		case 't': tcp = true; break;
		case 'w': wait_s = strtod(optarg, NULL); break;
		default: dns_usage(argv[0]);
		}
	}
	if (!port || port > 65535)
		dns_usage(argv[0]);

	if (!strcmp(argv[1], "server")) {
		if (!answer || inet_pton(AF_INET, answer, &a4) != 1)
			dns_usage(argv[0]);
		return dns_server(bind_addr, port, a4);
	}
	if (!strcmp(argv[1], "query")) {
		if (!server || !name)
			dns_usage(argv[0]);
		return dns_query(server, port, name, tcp, wait_s);
	}
	dns_usage(argv[0]);
	return 2;
}
