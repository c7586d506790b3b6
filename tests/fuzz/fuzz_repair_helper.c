// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_repair_helper.c - libFuzzer target: passt-repair's side of its
 *			  protocol, what the helper reads from passt
 *
 * Theory of operation
 *
 * helper/passt_repair.c is compiled into this file (#include), with its
 * main() renamed, its _exit() turned into a jump back here and its stderr
 * sent nowhere (FUZZ_LOG=1 shows it): the code that handles a message,
 * repair_one(), is the helper's own, unchanged. Its connection to passt is
 * one end of a stream socket pair; the harness plays passt on the other
 * end, sends one message at a time and lets repair_one() take it. The
 * seccomp filter and the capability changes of the real helper are not
 * applied (repair_sandbox() is never called). Setting TCP_REPAIR needs
 * CAP_NET_ADMIN, which the fuzzer has in its own user and network
 * namespace (tests/fuzz/run.sh).
 *
 * Input: records, one message each, to the end of the input:
 *
 *   byte 0	the command byte as sent (signed: 1, 0 and -1 are commands,
 *		anything else is not)
 *   byte 1	bits 0-1: data bytes after the command in the same send()
 *		(0 to 3, taken from the input after the kinds); bit 2: the
 *		descriptors in two SCM_RIGHTS headers instead of one
 *   byte 2	number of descriptors (0 to 255: above SCM_MAX_FD, 253, the
 *		kernel refuses to send them, and the record is skipped)
 *   then	one byte per descriptor, its kind (enum fzh_kind, modulo
 *		FZH_KINDS; missing bytes at the end of the input: TCP over
 *		IPv4), then the extra data bytes
 *
 * What must hold, besides no crash and no sanitizer report (the helper's
 * own model of its protocol, top of helper/passt_repair.c):
 * - a message with a command, 1 to 253 descriptors all IPv4 or IPv6 TCP
 *   sockets that don't listen, is answered with the command byte, every
 *   socket in it is then in repair mode if the command was
 *   TCP_REPAIR_ON, out of it otherwise, and the helper has closed every
 *   copy it received;
 * - anything else makes it exit (status 1), and a refused message
 *   changes nothing: the repair mode of each TCP socket in it is what it
 *   was. Data bytes after the command form a message of their own,
 *   without descriptors: the helper exits on it, after answering the
 *   first one;
 * - the end of the stream ends it without exit.
 * The copies a helper that exited still held are closed by the harness
 * (the kernel would have, at its exit).
 */

#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <poll.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>

/* The helper, as it is, but for these three names */
static FILE *fzh_err;
static void __attribute__((noreturn)) fzh_exit(int status);
#define main repair_helper_main
#undef stderr
#define stderr fzh_err
#define _exit(status) fzh_exit(status)
#include "../../helper/passt_repair.c"
#undef _exit
#undef stderr
#define stderr stderr
#undef main

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZH_FDS_MAX	253		/* SCM_MAX_FD */
#define FZH_FD_BITS	65536		/* descriptors the harness tracks */
#define FZH_NOFILE	16384		/* descriptor limit it asks for */

/**
 * enum fzh_kind - what a descriptor in a message is
 * @FZH_TCP4:		TCP socket, IPv4, not connected
 * @FZH_TCP6:		TCP socket, IPv6, not connected
 * @FZH_TCP_REPAIR:	TCP socket, IPv4, already in repair mode
 * @FZH_TCP_CONN:	the client end of an established loopback connection
 * @FZH_LISTEN:		listening TCP socket
 * @FZH_UDP:		UDP socket
 * @FZH_PIPE:		read end of a pipe
 * @FZH_UNIX:		UNIX stream socket
 * @FZH_SAME:		the previous descriptor of the message again
 * @FZH_RAW:		raw IPv4 socket of protocol TCP
 * @FZH_EVENTFD:	an eventfd
 * @FZH_MPTCP:		MPTCP socket (TCP over IPv4 where MPTCP is missing)
 * @FZH_KINDS:		number of kinds
 */
enum fzh_kind {
	FZH_TCP4,
	FZH_TCP6,
	FZH_TCP_REPAIR,
	FZH_TCP_CONN,
	FZH_LISTEN,
	FZH_UDP,
	FZH_PIPE,
	FZH_UNIX,
	FZH_SAME,
	FZH_RAW,
	FZH_EVENTFD,
	FZH_MPTCP,
	FZH_KINDS
};

/**
 * struct fzh_msg - one message and what the harness knows of it
 * @fds:	descriptors sent (the harness's own)
 * @tcp:	each is a TCP socket the helper must take
 * @repair:	repair mode of each TCP one before the message
 * @close:	the harness closes it after the message
 * @n:		number of descriptors
 * @extra:	other descriptors to close (the far ends of pipes, sockets)
 * @nextra:	number of those
 */
struct fzh_msg {
	int fds[256];
	bool tcp[256];
	int repair[256];
	bool close[256];
	unsigned int n;
	int extra[256];
	unsigned int nextra;
};

static jmp_buf fzh_jmp;
static bool fzh_armed;
static int fzh_conn = -1;		/* established connection, client */
static int fzh_conn_peer = -1;		/* and its server end */
static uint8_t fzh_before[FZH_FD_BITS / 8];
static struct fzh_msg fzh_msg;

/**
 * fzh_exit() - the helper exits: jump back to the harness
 * @status:	exit status
 */
static void fzh_exit(int status)
{
	if (!fzh_armed || status != 1) {
		fprintf(stderr, "fuzz_repair_helper: helper exited with %i "
			"outside a message\n", status);
		abort();
	}
	fzh_armed = false;
	longjmp(fzh_jmp, 1);
}

/**
 * fzh_fail() - an expectation failed: say what, abort
 * @what:	what
 */
static void __attribute__((noreturn)) fzh_fail(const char *what)
{
	fprintf(stderr, "fuzz_repair_helper: %s\n", what);
	abort();
}

/**
 * fzh_fds_mark() - note which descriptors are open
 * @map:	bitmap, filled
 */
static void fzh_fds_mark(uint8_t *map)
{
	DIR *d = opendir("/proc/self/fd");
	const struct dirent *e;

	if (!d)
		fzh_fail("can't read /proc/self/fd");
	memset(map, 0, FZH_FD_BITS / 8);
	while ((e = readdir(d))) {
		long fd = strtol(e->d_name, NULL, 10);

		if (e->d_name[0] == '.' || fd == dirfd(d))
			continue;
		if (fd < 0 || fd >= FZH_FD_BITS)
			fzh_fail("descriptor beyond what the harness tracks");
		map[fd / 8] |= (uint8_t)(1U << (fd % 8));
	}
	closedir(d);
}

/**
 * fzh_fds_new() - close descriptors opened since fzh_fds_mark()
 * @close_them:	close them, else abort if there is one
 */
static void fzh_fds_new(bool close_them)
{
	static uint8_t now[FZH_FD_BITS / 8];
	unsigned int fd;

	fzh_fds_mark(now);
	for (fd = 0; fd < FZH_FD_BITS; fd++) {
		uint8_t bit = (uint8_t)(1U << (fd % 8));

		if (!(now[fd / 8] & bit) || (fzh_before[fd / 8] & bit))
			continue;
		if (!close_them)
			fzh_fail("the helper kept a copy of a descriptor");
		close((int)fd);
	}
}

/**
 * fzh_repair_get() - repair mode of a TCP socket
 * @fd:		socket
 *
 * Return: 1 in repair mode, 0 not
 */
static int fzh_repair_get(int fd)
{
	socklen_t sl = sizeof(int);
	int v = -1;

	if (getsockopt(fd, IPPROTO_TCP, TCP_REPAIR, &v, &sl))
		fzh_fail("can't read TCP_REPAIR of a TCP socket");
	return v;
}

/**
 * fzh_conn_init() - an established loopback connection, once
 */
static void fzh_conn_init(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = sizeof(a);
	int l;

	l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) ||
	    listen(l, 1) || getsockname(l, (struct sockaddr *)&a, &sl))
		fzh_fail("can't listen on the loopback (run through "
			 "tests/fuzz/run.sh: own namespace, lo up)");
	fzh_conn = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fzh_conn < 0 || connect(fzh_conn, (struct sockaddr *)&a, sl))
		fzh_fail("can't connect on the loopback");
	fzh_conn_peer = accept4(l, NULL, NULL, SOCK_CLOEXEC);
	if (fzh_conn_peer < 0)
		fzh_fail("can't accept on the loopback");
	close(l);
}

/**
 * fzh_sock() - a new socket, or abort
 * @af:		family
 * @type:	type
 * @proto:	protocol
 *
 * Return: socket
 */
static int fzh_sock(int af, int type, int proto)
{
	int s = socket(af, type | SOCK_CLOEXEC, proto);

	if (s < 0)
		fzh_fail("can't create a socket");
	return s;
}

/**
 * fzh_add() - add a descriptor of a kind to the message
 * @m:		message
 * @kind:	enum fzh_kind
 */
static void fzh_add(struct fzh_msg *m, unsigned int kind)
{
	unsigned int i = m->n++;
	int on = TCP_REPAIR_ON, p[2], fd;
	bool tcp = false;

	switch (kind) {
	case FZH_TCP6:
		fd = fzh_sock(AF_INET6, SOCK_STREAM, 0);
		tcp = true;
		break;
	case FZH_TCP_REPAIR:
		fd = fzh_sock(AF_INET, SOCK_STREAM, 0);
		if (setsockopt(fd, IPPROTO_TCP, TCP_REPAIR, &on, sizeof(on)))
			fzh_fail("can't set TCP_REPAIR (no CAP_NET_ADMIN?)");
		tcp = true;
		break;
	case FZH_TCP_CONN:
		fd = fzh_conn;
		tcp = true;
		break;
	case FZH_LISTEN:
		fd = fzh_sock(AF_INET, SOCK_STREAM, 0);
		if (listen(fd, 1))
			fzh_fail("can't listen");
		break;
	case FZH_UDP:
		fd = fzh_sock(AF_INET, SOCK_DGRAM, 0);
		break;
	case FZH_PIPE:
	case FZH_UNIX:
		if (kind == FZH_PIPE ? pipe2(p, O_CLOEXEC) :
		    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, p))
			fzh_fail("can't create a pipe or a socket pair");
		fd = p[0];
		m->extra[m->nextra++] = p[1];
		break;
	case FZH_SAME:
		if (i) {
			m->fds[i] = m->fds[i - 1];
			m->tcp[i] = m->tcp[i - 1];
			m->repair[i] = m->repair[i - 1];
			m->close[i] = false;
			return;
		}
		fd = fzh_sock(AF_INET, SOCK_STREAM, 0);
		tcp = true;
		break;
	case FZH_RAW:
		fd = fzh_sock(AF_INET, SOCK_RAW, IPPROTO_TCP);
		break;
	case FZH_EVENTFD:
		fd = eventfd(0, EFD_CLOEXEC);
		if (fd < 0)
			fzh_fail("can't create an eventfd");
		break;
	case FZH_MPTCP:
		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_MPTCP);
		if (fd >= 0)
			break;
		/* fall through */
	default:
		fd = fzh_sock(AF_INET, SOCK_STREAM, 0);
		tcp = true;
		break;
	}
	m->fds[i] = fd;
	m->tcp[i] = tcp;
	m->close[i] = fd != fzh_conn;
	m->repair[i] = tcp ? fzh_repair_get(fd) : -1;
}

/**
 * fzh_send() - send a message to the helper
 * @s:		our end
 * @m:		its descriptors
 * @buf:	command byte and extra data
 * @len:	their length
 * @split:	descriptors in two SCM_RIGHTS headers
 *
 * Return: true if the kernel took it
 */
static bool fzh_send(int s, const struct fzh_msg *m, const uint8_t *buf,
		     size_t len, bool split)
{
	union {
		char buf[2 * CMSG_SPACE(256 * sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	unsigned int first = split ? m->n / 2 : m->n;
	struct cmsghdr *cm;

	memset(&ctl, 0, sizeof(ctl));
	if (m->n) {
		mh.msg_control = ctl.buf;
		mh.msg_controllen = CMSG_SPACE(first * sizeof(int));
		if (split && first < m->n)
			mh.msg_controllen += CMSG_SPACE((m->n - first) *
							sizeof(int));
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(first * sizeof(int));
		memcpy(CMSG_DATA(cm), m->fds, first * sizeof(int));
		if (split && first < m->n) {
			cm = CMSG_NXTHDR(&mh, cm);
			cm->cmsg_level = SOL_SOCKET;
			cm->cmsg_type = SCM_RIGHTS;
			cm->cmsg_len = CMSG_LEN((m->n - first) * sizeof(int));
			memcpy(CMSG_DATA(cm), m->fds + first,
			       (m->n - first) * sizeof(int));
		}
	}
	return sendmsg(s, &mh, MSG_DONTWAIT | MSG_NOSIGNAL) == (ssize_t)len;
}

/**
 * fzh_valid() - would the helper take this message?
 * @m:		descriptors
 * @cmd:	command byte
 *
 * Return: true if it must
 */
static bool fzh_valid(const struct fzh_msg *m, int8_t cmd)
{
	unsigned int i;

	if (cmd != TCP_REPAIR_ON && cmd != TCP_REPAIR_OFF &&
	    cmd != TCP_REPAIR_OFF_NO_WP)
		return false;
	if (!m->n || m->n > FZH_FDS_MAX)
		return false;
	for (i = 0; i < m->n; i++) {
		if (!m->tcp[i])
			return false;
	}
	return true;
}

/**
 * fzh_check() - after a message: what the helper did is what it must do
 * @s:		our end
 * @m:		the message's descriptors
 * @cmd:	its command
 * @taken:	the helper answered (else it exited)
 */
static void fzh_check(int s, const struct fzh_msg *m, int8_t cmd, bool taken)
{
	unsigned int i;
	int8_t answer;

	if (taken != fzh_valid(m, cmd))
		fzh_fail(taken ? "the helper took a message it must refuse" :
			 "the helper refused a good message");

	if (taken) {
		if (recv(s, &answer, 1, MSG_DONTWAIT) != 1 || answer != cmd)
			fzh_fail("no answer, or a wrong one");
		fzh_fds_new(false);
	} else {
		fzh_fds_new(true);
	}

	for (i = 0; i < m->n; i++) {
		int want = m->repair[i];

		if (!m->tcp[i])
			continue;
		if (taken)
			want = cmd == TCP_REPAIR_ON;
		if (fzh_repair_get(m->fds[i]) != want)
			fzh_fail(taken ? "a socket is not as the command said" :
				 "a refused message changed a socket");
	}
}

/**
 * fzh_msg_close() - close what the harness opened for a message
 * @m:		message
 */
static void fzh_msg_close(struct fzh_msg *m)
{
	unsigned int i;

	for (i = 0; i < m->n; i++) {
		if (m->close[i])
			close(m->fds[i]);
	}
	for (i = 0; i < m->nextra; i++)
		close(m->extra[i]);
	m->n = m->nextra = 0;
}

/**
 * fzh_ready() - has the helper something to read?
 * @s:		its end
 *
 * Return: true if recvmsg() won't block
 */
static bool fzh_ready(int s)
{
	struct pollfd p = { .fd = s, .events = POLLIN };

	return poll(&p, 1, 0) > 0;
}

/**
 * fzh_init() - once: descriptor limit, the helper's log, a connection
 */
static void fzh_init(void)
{
	static bool done;
	struct rlimit lim;

	if (done)
		return;
	done = true;
	if (!getrlimit(RLIMIT_NOFILE, &lim) && lim.rlim_max > FZH_NOFILE) {
		lim.rlim_cur = FZH_NOFILE;
		setrlimit(RLIMIT_NOFILE, &lim);
	}
	fzh_err = getenv("FUZZ_LOG") ? stderr : fopen("/dev/null", "w");
	if (!fzh_err)
		fzh_fail("can't open /dev/null");
	repair_uid = getuid();
	fzh_conn_init();
}

/**
 * fzh_run() - send the input's messages one by one, the helper reading
 * @data:	input
 * @size:	its length
 * @s:		our end
 * @h:		the helper's end
 *
 * Return: true if the helper is still there (it didn't exit)
 */
static bool fzh_run(const uint8_t *data, size_t size, int s, int h)
{
	struct fzh_msg *m = &fzh_msg;
	size_t off = 0;

	while (off + 3 <= size) {
		unsigned int n = data[off + 2], extra = data[off + 1] & 3, i;
		bool split = data[off + 1] & 4, taken = true;
		uint8_t buf[4] = { data[off] };
		int8_t cmd = (int8_t)data[off];

		off += 3;
		for (i = 0; i < n; i++) {
			fzh_add(m, off < size ? data[off] % FZH_KINDS :
				   FZH_TCP4);
			off++;
		}
		for (i = 0; i < extra; i++, off++)
			buf[1 + i] = off < size ? data[off] : 0;

		fzh_fds_mark(fzh_before);
		if (!fzh_send(s, m, buf, 1 + extra, split)) {
			fzh_msg_close(m);	/* too many: not sent */
			continue;
		}

		/* The first message, with the descriptors */
		fzh_armed = true;
		if (setjmp(fzh_jmp))
			taken = false;
		else
			repair_one(h);
		fzh_armed = false;
		fzh_check(s, m, cmd, taken);

		/* The extra bytes: messages without descriptors */
		if (taken && extra) {
			fzh_armed = true;
			if (!setjmp(fzh_jmp) && fzh_ready(h))
				repair_one(h);
			if (fzh_armed)
				fzh_fail("a message without sockets taken");
			fzh_fds_new(true);
			taken = false;
		}
		fzh_msg_close(m);
		if (!taken)
			return false;
	}
	return true;
}

/**
 * LLVMFuzzerTestOneInput() - one connection from passt, its messages
 * @data:	input
 * @size:	its length
 *
 * Return: 0
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int sv[2];

	fzh_init();
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		fzh_fail("can't create a socket pair");

	if (fzh_run(data, size, sv[0], sv[1])) {
		/* passt closes: the helper ends, without exiting */
		shutdown(sv[0], SHUT_WR);
		fzh_armed = true;
		if (setjmp(fzh_jmp) || repair_one(sv[1]))
			fzh_fail("the helper went on after the end");
		fzh_armed = false;
	}
	close(sv[0]);
	close(sv[1]);
	return 0;
}
