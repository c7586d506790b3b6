// SPDX-License-Identifier: GPL-2.0-or-later
/* udp_echo.c - UDP echo server and paced, checking echo client for tests
 *
 * Theory of operation
 *
 *   udp_echo server [-6] [-b ADDR] -p PORT
 *	Echo every datagram back to its sender, until killed.
 *
 *   udp_echo client -a ADDR -p PORT [-n COUNT] [-r MBIT] [-s MIN] [-S MAX]
 *		     [-w SECONDS] [-x SEED]
 *	Send COUNT datagrams of mixed sizes between MIN and MAX bytes,
 *	paced at MBIT Mbit/s, from a connected socket, and check every echo:
 *	each datagram starts with a header (magic, sequence number, length,
 *	run salt) and its bytes follow a pattern derived from the sequence
 *	number, so a lost, truncated, corrupted or duplicated datagram is
 *	told apart. After the last send, echoes are awaited until SECONDS
 *	pass without one. Prints a summary; exits 1 on any loss or mismatch.
 *	Before the measured run, one small datagram ("WARM") must come back
 *	(tried UDP_ECHO_WARM_TRIES times): neighbour discovery along the path
 *	and flow set-up are done before the clock starts, so that the
 *	kernel's queue of packets awaiting a neighbour doesn't count as loss.
 *
 *   udp_echo refused -a ADDR -p PORT [-w SECONDS]
 *	Send one datagram from a connected socket to a port expected to be
 *	closed: exits 0 if the socket reports ECONNREFUSED within SECONDS.
 *
 * Pacing: each datagram is due when the bits sent so far, at MBIT Mbit/s,
 * have had their time. A client that was descheduled (a loaded machine)
 * would otherwise send its whole backlog back to back, at memory speed:
 * "paced at MBIT" would then mean bursts of thousands of datagrams, which
 * any queue on the path may drop. So the schedule lags the clock by at most
 * UDP_ECHO_CATCHUP_S: debt beyond that is forgiven, the run takes longer,
 * and the summary counts the forgiven time ("behind").
 *
 * Sizes: the first two datagrams are MAX and MIN bytes, then the sizes
 * come from a seeded generator: half below 1500 bytes, four in ten up to a
 * quarter of MAX, one in ten in the upper half. Socket buffers are raised
 * to UDP_ECHO_SOCKBUF (forced, when running as root) so that the tool's
 * own sockets don't drop datagrams.
 */

#include <errno.h>
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

#define UDP_ECHO_MAGIC		0x55445045U	/* "UDPE" */
#define UDP_ECHO_HDR		16
#define UDP_ECHO_MAX		65507
#define UDP_ECHO_SOCKBUF	(8 * 1024 * 1024)
/* Percent of datagrams in the upper half of sizes, and up to a quarter */
#define UDP_ECHO_BIG_SHARE	10
#define UDP_ECHO_MID_SHARE	40
#define UDP_ECHO_WARM		"WARM"
#define UDP_ECHO_WARM_TRIES	10
#define UDP_ECHO_WARM_MS	500
/* Most the send schedule may lag the clock: bounds a catch-up burst */
#define UDP_ECHO_CATCHUP_S	0.002

/**
 * struct echo_opts - command line
 * @mode:	"server", "client" or "refused"
 * @addr:	address to bind (server) or to send to (client)
 * @port:	port
 * @v6:		server: IPv6 wildcard by default
 * @count:	client: datagrams to send
 * @mbit:	client: rate, Mbit/s
 * @min:	client: smallest datagram
 * @max:	client: largest datagram
 * @wait_s:	client: idle time after the last send before giving up
 * @seed:	client: seed of the size generator
 */
struct echo_opts {
	const char *mode;
	const char *addr;
	unsigned int port;
	bool v6;
	unsigned long count;
	double mbit;
	size_t min;
	size_t max;
	double wait_s;
	uint32_t seed;
};

static uint8_t echo_buf[UDP_ECHO_MAX + 1];

/**
 * echo_usage() - print usage and exit
 * @name:	program name
 */
static void echo_usage(const char *name)
{
	fprintf(stderr,
		"Usage: %s server [-6] [-b ADDR] -p PORT\n"
		"       %s client -a ADDR -p PORT [-n COUNT] [-r MBIT] [-s MIN] [-S MAX]\n"
		"                 [-w SECONDS] [-x SEED]\n"
		"       %s refused -a ADDR -p PORT [-w SECONDS]\n",
		name, name, name);
	exit(2);
}

/**
 * echo_now() - monotonic time
 *
 * Return: seconds
 */
static double echo_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/**
 * echo_rand() - xorshift32 step
 * @s:		state, updated
 *
 * Return: next value
 */
static uint32_t echo_rand(uint32_t *s)
{
	uint32_t x = *s;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*s = x;
	return x;
}

/**
 * echo_sockaddr() - parse an address and port
 * @addr:	IPv4 or IPv6 address
 * @port:	port
 * @ss:		output
 *
 * Return: length of the socket address, 0 if @addr is not valid
 */
static socklen_t echo_sockaddr(const char *addr, unsigned int port,
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
	return 0;
}

/**
 * echo_bufs() - raise the socket buffers, forced if we may
 * @s:		socket
 */
static void echo_bufs(int s)
{
	int v = UDP_ECHO_SOCKBUF;

	if (setsockopt(s, SOL_SOCKET, SO_RCVBUFFORCE, &v, sizeof(v)))
		setsockopt(s, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v));
	if (setsockopt(s, SOL_SOCKET, SO_SNDBUFFORCE, &v, sizeof(v)))
		setsockopt(s, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v));
}

/**
 * echo_server() - echo datagrams back until killed
 * @o:		options
 *
 * Return: 1 on set-up failure (does not return otherwise)
 */
static int echo_server(const struct echo_opts *o)
{
	const char *addr = o->addr ? o->addr : (o->v6 ? "::" : "0.0.0.0");
	struct sockaddr_storage ss;
	socklen_t sl = echo_sockaddr(addr, o->port, &ss);
	int s;

	if (!sl) {
		fprintf(stderr, "udp_echo: bad address %s\n", addr);
		return 1;
	}

	s = socket(ss.ss_family, SOCK_DGRAM, 0);
	if (s < 0 || bind(s, (struct sockaddr *)&ss, sl)) {
		perror("udp_echo: server socket");
		return 1;
	}
	echo_bufs(s);

	for (;;) {
		struct sockaddr_storage peer;
		socklen_t pl = sizeof(peer);
		ssize_t n;

		n = recvfrom(s, echo_buf, sizeof(echo_buf), 0,
			     (struct sockaddr *)&peer, &pl);
		if (n < 0) {
			if (errno == EINTR || errno == ECONNREFUSED)
				continue;
			perror("udp_echo: recvfrom");
			return 1;
		}
		while (sendto(s, echo_buf, (size_t)n, 0,
			      (struct sockaddr *)&peer, pl) < 0) {
			if (errno != ENOBUFS && errno != EAGAIN &&
			    errno != EINTR)
				break;
			usleep(100);
		}
	}
}

/**
 * echo_connect() - a connected UDP socket toward the options' address
 * @o:		options
 *
 * Return: socket, -1 on failure (reported)
 */
static int echo_connect(const struct echo_opts *o)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	int s;

	if (!o->addr || !(sl = echo_sockaddr(o->addr, o->port, &ss))) {
		fprintf(stderr, "udp_echo: missing or bad address\n");
		return -1;
	}

	s = socket(ss.ss_family, SOCK_DGRAM, 0);
	if (s < 0 || connect(s, (struct sockaddr *)&ss, sl)) {
		perror("udp_echo: connect");
		if (s >= 0)
			close(s);
		return -1;
	}
	echo_bufs(s);
	return s;
}

/**
 * echo_fill() - write the header and pattern of a datagram
 * @buf:	output
 * @seq:	sequence number
 * @len:	length, at least UDP_ECHO_HDR
 * @salt:	per-run value
 */
static void echo_fill(uint8_t *buf, uint32_t seq, size_t len, uint32_t salt)
{
	uint32_t h[4] = { htonl(UDP_ECHO_MAGIC), htonl(seq),
			  htonl((uint32_t)len), htonl(salt) };
	size_t i;

	memcpy(buf, h, sizeof(h));
	for (i = UDP_ECHO_HDR; i < len; i++)
		buf[i] = (uint8_t)(seq * 131U + i * 7U + salt);
}

/**
 * echo_check() - check an echoed datagram
 * @buf:	datagram
 * @n:		its length
 * @sizes:	length of each datagram sent
 * @count:	number of datagrams
 * @salt:	per-run value
 * @seq:	output: sequence number, if the header is valid
 *
 * Return: true if the datagram is one we sent, intact
 */
static bool echo_check(const uint8_t *buf, size_t n, const uint32_t *sizes,
		       unsigned long count, uint32_t salt, uint32_t *seq)
{
	uint32_t h[4];
	size_t i;

	if (n < UDP_ECHO_HDR)
		return false;
	memcpy(h, buf, sizeof(h));
	if (ntohl(h[0]) != UDP_ECHO_MAGIC || ntohl(h[3]) != salt)
		return false;
	*seq = ntohl(h[1]);
	if (*seq >= count || ntohl(h[2]) != n || sizes[*seq] != n)
		return false;
	for (i = UDP_ECHO_HDR; i < n; i++) {
		if (buf[i] != (uint8_t)(*seq * 131U + i * 7U + salt))
			return false;
	}
	return true;
}

/**
 * echo_is_warm() - tell if a datagram is an echo of the warm-up one
 * @buf:	datagram
 * @n:		its length
 *
 * Return: true if it is
 */
static bool echo_is_warm(const uint8_t *buf, size_t n)
{
	return n == strlen(UDP_ECHO_WARM) && !memcmp(buf, UDP_ECHO_WARM, n);
}

/**
 * echo_warm_up() - exchange one small datagram before measuring
 * @s:		connected socket
 *
 * Return: 0 once an echo came back, -1 if none did
 */
static int echo_warm_up(int s)
{
	int i;

	for (i = 0; i < UDP_ECHO_WARM_TRIES; i++) {
		struct pollfd pfd = { .fd = s, .events = POLLIN };

		if (send(s, UDP_ECHO_WARM, strlen(UDP_ECHO_WARM), 0) < 0 &&
		    errno != ECONNREFUSED)
			return -1;
		if (poll(&pfd, 1, UDP_ECHO_WARM_MS) <= 0)
			continue;
		for (;;) {
			ssize_t n = recv(s, echo_buf, sizeof(echo_buf),
					 MSG_DONTWAIT);

			if (n < 0)
				break;
			if (echo_is_warm(echo_buf, (size_t)n))
				return 0;
		}
	}
	return -1;
}

/**
 * echo_sizes() - draw the size of every datagram
 * @o:		options
 *
 * Return: array of o->count sizes, NULL on allocation failure
 */
static uint32_t *echo_sizes(const struct echo_opts *o)
{
	uint32_t *sizes = calloc(o->count, sizeof(*sizes));
	uint32_t st = o->seed ? o->seed : 0x9e3779b9U;
	size_t span = o->max - o->min + 1;
	unsigned long i;

	if (!sizes)
		return NULL;

	for (i = 0; i < o->count; i++) {
		uint32_t r = echo_rand(&st), pct = r % 100;
		size_t lo = o->min, hi;

		if (i == 0) {
			sizes[i] = (uint32_t)o->max;
			continue;
		}
		if (i == 1) {
			sizes[i] = (uint32_t)o->min;
			continue;
		}

		if (pct < UDP_ECHO_BIG_SHARE) {
			lo = o->min + span / 2;
			hi = o->max;
		} else if (pct < UDP_ECHO_BIG_SHARE + UDP_ECHO_MID_SHARE) {
			hi = o->min + span / 4;
		} else {
			hi = o->max < 1500 ? o->max : 1500;
		}
		if (hi < lo)
			hi = lo;
		sizes[i] = (uint32_t)(lo + echo_rand(&st) % (hi - lo + 1));
	}
	return sizes;
}

/**
 * struct echo_run - state of a client run
 * @o:		options
 * @s:		connected socket
 * @sizes:	size of each datagram
 * @seen:	one byte per datagram, set once its echo came back
 * @salt:	run salt, in every header
 * @sent:	datagrams sent
 * @got:	echoes received intact, once each
 * @bad:	echoes that failed the check
 * @dup:	duplicate echoes
 * @bytes:	bytes of intact echoes
 * @start:	time of the first send
 * @next:	time the next datagram is due, for the rate
 * @last_rx:	time of the last echo, or of the last send
 * @behind:	schedule time forgiven after stalls of the client, seconds
 */
struct echo_run {
	const struct echo_opts *o;
	int s;
	uint32_t *sizes;
	uint8_t *seen;
	uint32_t salt;
	unsigned long sent, got, bad, dup;
	uint64_t bytes;
	double start, next, last_rx, behind;
};

/**
 * echo_send_next() - send the next datagram of a run, if the socket takes it
 * @r:		run state
 *
 * Return: 0 if sent or worth retrying, -1 on a send error (reported)
 */
static int echo_send_next(struct echo_run *r)
{
	size_t len = r->sizes[r->sent];

	echo_fill(echo_buf, (uint32_t)r->sent, len, r->salt);
	if (send(r->s, echo_buf, len, 0) < 0) {
		if (errno == ENOBUFS || errno == EAGAIN || errno == EINTR) {
			usleep(100);
			return 0;
		}
		perror("udp_echo: send");
		return -1;
	}
	r->sent++;
	r->next += (double)len * 8 / (r->o->mbit * 1e6);
	if (r->sent == r->o->count)
		r->last_rx = echo_now();
	return 0;
}

/**
 * echo_receive() - take and check every echo waiting on the socket
 * @r:		run state
 */
static void echo_receive(struct echo_run *r)
{
	for (;;) {
		ssize_t n = recv(r->s, echo_buf, sizeof(echo_buf),
				 MSG_DONTWAIT);
		uint32_t seq;

		if (n < 0)
			break;
		r->last_rx = echo_now();
		if (echo_is_warm(echo_buf, (size_t)n))
			continue;	/* late echo of a retry */
		if (!echo_check(echo_buf, (size_t)n, r->sizes, r->o->count,
				r->salt, &seq)) {
			r->bad++;
			continue;
		}
		if (r->seen[seq]) {
			r->dup++;
			continue;
		}
		r->seen[seq] = 1;
		r->got++;
		r->bytes += (uint64_t)n;
	}
}

/**
 * echo_loop() - send at the paced rate and take echoes, until every echo
 *		 came back or none came for the idle time after the last send
 * @r:		run state, with the clock started
 */
static void echo_loop(struct echo_run *r)
{
	unsigned long count = r->o->count;

	for (;;) {
		struct pollfd pfd = { .fd = r->s, .events = POLLIN };
		double now = echo_now(), deadline;
		int timeout;

		if (r->sent < count && now >= r->next) {
			if (now - r->next > UDP_ECHO_CATCHUP_S) {
				r->behind += now - r->next - UDP_ECHO_CATCHUP_S;
				r->next = now - UDP_ECHO_CATCHUP_S;
			}
			if (echo_send_next(r))
				break;
			continue;
		}

		if (r->sent == count && r->got == count)
			break;

		deadline = r->sent < count ? r->next :
			   r->last_rx + r->o->wait_s;
		if (now >= deadline)
			break;
		timeout = (int)((deadline - now) * 1000) + 1;

		if (poll(&pfd, 1, timeout) <= 0)
			continue;

		echo_receive(r);
	}
}

/**
 * echo_report() - print the summary of a run, and the first losses
 * @r:		run state, finished
 */
static void echo_report(const struct echo_run *r)
{
	double secs = echo_now() - r->start;
	unsigned long i, shown = 0;

	printf("udp_echo: sent %lu, received %lu, lost %lu, corrupt %lu, duplicate %lu; %llu bytes echoed in %.2f s, %.1f Mbit/s, %.0f ms behind\n",
	       r->sent, r->got, r->o->count - r->got, r->bad, r->dup,
	       (unsigned long long)r->bytes, secs,
	       secs > 0 ? (double)r->bytes * 8 / secs / 1e6 : 0.0,
	       r->behind * 1000);

	if (r->got >= r->o->count)
		return;

	printf("udp_echo: first lost:");
	for (i = 0; i < r->o->count && shown < 10; i++) {
		if (!r->seen[i]) {
			printf(" #%lu (%u bytes)", i, r->sizes[i]);
			shown++;
		}
	}
	printf("\n");
}

/**
 * echo_client() - send paced datagrams, check their echoes
 * @o:		options
 *
 * Return: 0 if every datagram came back intact, 1 otherwise
 */
static int echo_client(const struct echo_opts *o)
{
	struct echo_run r = { .o = o };
	int ret = 1;

	if (o->min < UDP_ECHO_HDR || o->max > UDP_ECHO_MAX ||
	    o->min > o->max || !o->count) {
		fprintf(stderr, "udp_echo: sizes must be %d to %d, MIN <= MAX\n",
			UDP_ECHO_HDR, UDP_ECHO_MAX);
		return 1;
	}

	r.s = echo_connect(o);
	r.sizes = echo_sizes(o);
	r.seen = calloc(o->count, 1);
	if (r.s < 0 || !r.sizes || !r.seen)
		goto out;

	if (echo_warm_up(r.s)) {
		printf("udp_echo: no echo of the warm-up datagram after %d tries\n",
		       UDP_ECHO_WARM_TRIES);
		goto out;
	}

	r.salt = (uint32_t)getpid() ^ (uint32_t)time(NULL);
	r.start = r.next = r.last_rx = echo_now();
	echo_loop(&r);
	echo_report(&r);
	if (r.got == o->count && !r.bad && r.sent == o->count)
		ret = 0;

out:
	free(r.sizes);
	free(r.seen);
	if (r.s >= 0)
		close(r.s);
	return ret;
}

/**
 * echo_refused() - expect ECONNREFUSED on a connected socket
 * @o:		options
 *
 * Return: 0 if reported in time, 1 otherwise
 */
static int echo_refused(const struct echo_opts *o)
{
	struct pollfd pfd;
	double start;
	int s = echo_connect(o);
	int ret;

	if (s < 0)
		return 1;

	memset(echo_buf, 0x5a, 64);
	if (send(s, echo_buf, 64, 0) < 0) {
		perror("udp_echo: send");
		return 1;
	}

	start = echo_now();
	pfd.fd = s;
	pfd.events = POLLIN;
	ret = poll(&pfd, 1, (int)(o->wait_s * 1000));
	if (ret <= 0) {
		printf("udp_echo: no error after %.1f s\n", o->wait_s);
		return 1;
	}

	if (recv(s, echo_buf, sizeof(echo_buf), MSG_DONTWAIT) >= 0) {
		printf("udp_echo: got a reply instead of an error\n");
		return 1;
	}
	if (errno != ECONNREFUSED) {
		printf("udp_echo: got %s instead of ECONNREFUSED\n",
		       strerror(errno));
		return 1;
	}

	printf("udp_echo: ECONNREFUSED after %.0f ms\n",
	       (echo_now() - start) * 1000);
	close(s);
	return 0;
}

/**
 * main() - parse the command line, run the mode
 * @argc:	argument count
 * @argv:	arguments
 *
 * Return: 0 on success, 1 on failure, 2 on usage error
 */
int main(int argc, char **argv)
{
	struct echo_opts o = {
		.count = 10000, .mbit = 100, .min = UDP_ECHO_HDR,
		.max = 9000, .wait_s = 2,
	};
	int opt;

	if (argc < 2)
		echo_usage(argv[0]);
	o.mode = argv[1];

	optind = 2;
	while ((opt = getopt(argc, argv, "6a:b:p:n:r:s:S:w:x:")) != -1) {
		switch (opt) {
		case '6':
			o.v6 = true;
			break;
		case 'a':
		case 'b':
			o.addr = optarg;
			break;
		case 'p':
			o.port = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 'n':
			o.count = strtoul(optarg, NULL, 0);
			break;
		case 'r':
			o.mbit = strtod(optarg, NULL);
			break;
		case 's':
			o.min = strtoul(optarg, NULL, 0);
			break;
		case 'S':
			o.max = strtoul(optarg, NULL, 0);
			break;
		case 'w':
			o.wait_s = strtod(optarg, NULL);
			break;
		case 'x':
			o.seed = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		default:
			echo_usage(argv[0]);
		}
	}

	if (!o.port || o.port > 65535 || o.mbit <= 0)
		echo_usage(argv[0]);

	/* Output is read by test scripts, possibly through a pipe */
	setvbuf(stdout, NULL, _IOLBF, 0);

	if (!strcmp(o.mode, "server"))
		return echo_server(&o);
	if (!strcmp(o.mode, "client"))
		return echo_client(&o);
	if (!strcmp(o.mode, "refused"))
		return echo_refused(&o);
	echo_usage(argv[0]);
	return 2;
}
