// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_repair_passt.c - libFuzzer target: passt's side of the
 *			 passt-repair protocol, what passt reads back
 *
 * Theory of operation
 *
 * migrate/repair.c listens on a socket path in a temporary directory, in
 * an epoll set of the harness's own (no relay is started: the module
 * needs nothing else). The harness plays the helper: it connects, answers
 * whatever bytes the input says, when it says, shuts or closes its end,
 * while the input also makes passt's calls: repair_set() on sockets of a
 * pool (TCP sockets of the harness, never touched by passt), repair_flush(),
 * the epoll events of the connection (repair_handler()), repair_close().
 * Everything is one thread: an answer must be written before the call
 * that reads it, and one that is not there makes passt wait for it. That
 * wait is REPAIR_REPLY_MS (5 s) on the socket passt accepted; the harness
 * finds that socket (its local address is the path, it doesn't listen)
 * and cuts both timeouts to FZR_TIMEOUT_US, so that a missing answer is
 * the timeout path, not a stall.
 *
 * Input: operations, to the end of the input; a byte each, bits 0-3 the
 * operation (modulo FZR_OPS), bits 4-7 its parameter P:
 *
 *   0 connect	a helper connects and passt accepts it (repair_wait());
 *		with one connected already, a second one, which passt must
 *		close at once
 *   1 set	repair_set() on K sockets (next byte + 1) of the pool, with
 *		command P % 3 (TCP_REPAIR_ON, _OFF, _OFF_NO_WP)
 *   2 flush	repair_flush()
 *   3 answer	the helper writes P % 4 + 1 bytes, the next ones of the input
 *   4 good	the helper writes P % 4 + 1 copies of the last command set
 *   5 eof	the helper shuts its sending side
 *   6 no-read	the helper shuts its receiving side (passt's sends fail)
 *   7 close	the helper closes its end (unread data: a reset)
 *   8 events	passt handles its epoll events (repair_handler())
 *   9 done	passt closes the connection (repair_close())
 *
 * What must hold, besides no crash, no sanitizer report and no stall:
 * every call's result is what the harness's model of the protocol says
 * (a batch succeeds if and only if its answer is the next byte the helper
 * wrote and equals its command; no helper: -ENOTCONN; after a failure,
 * passt has closed the connection), each message passt sends carries its
 * batch's command and exactly its sockets, passt never sends more than
 * REPAIR_FDS_MAX at once, and after each input passt holds no socket
 * it did not hold before.
 */

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "../../conf/ctx.h"
#include "../../migrate/repair.h"
#include "../../util/log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZR_POOL	300		/* TCP sockets passt is given */
#define FZR_TIMEOUT_US	1000		/* passt's wait for an answer */
#define FZR_ANSWERS	4096		/* answers written, not yet read */
#define FZR_EVENTS	8

/* Operations, enum by their byte's low bits */
enum fzr_op {
	FZR_CONNECT,
	FZR_SET,
	FZR_FLUSH,
	FZR_ANSWER,
	FZR_GOOD,
	FZR_EOF,
	FZR_NOREAD,
	FZR_CLOSE,
	FZR_EVENTS_OP,
	FZR_DONE,
	FZR_OPS
};

/**
 * struct fzr_model - what passt and the helper's socket must be doing
 * @connected:	passt has a helper connection
 * @h:		our end of it, -1 if none
 * @eof:	we shut our sending side (or closed)
 * @noread:	we shut our receiving side (or closed)
 * @closed:	we closed our end (@h is -1 then, but passt doesn't know)
 * @n:		sockets in passt's batch
 * @cmd:	its command
 * @last:	last command of a set operation
 * @ans:	bytes we wrote that passt did not read yet
 * @nans:	their count
 * @sent_n:	sizes of the messages passt sent that we did not read
 * @sent_cmd:	their commands
 * @nsent:	their count
 */
struct fzr_model {
	bool connected;
	int h;
	bool eof, noread, closed;
	unsigned int n;
	int8_t cmd, last;
	uint8_t ans[FZR_ANSWERS];
	unsigned int nans;
	unsigned int sent_n[FZR_ANSWERS];
	int8_t sent_cmd[FZR_ANSWERS];
	unsigned int nsent;
};

static struct ctx fzr_c;
static char fzr_dir[] = "/tmp/fuzz-repair-XXXXXX";
static char fzr_path[sizeof(fzr_dir) + 16];
static int fzr_pool[FZR_POOL];
static unsigned int fzr_fds0;		/* descriptors open between inputs */
static struct fzr_model fzr_m;

/**
 * fzr_fail() - an expectation failed: say what, abort
 * @what:	what
 */
static void __attribute__((noreturn)) fzr_fail(const char *what)
{
	fprintf(stderr, "fuzz_repair_passt: %s\n", what);
	abort();
}

/**
 * fzr_fds_count() - number of open sockets (libFuzzer opens files, never
 *		     sockets)
 *
 * Return: count
 */
static unsigned int fzr_fds_count(void)
{
	DIR *d = opendir("/proc/self/fd");
	const struct dirent *e;
	unsigned int n = 0;

	if (!d)
		fzr_fail("can't read /proc/self/fd");
	while ((e = readdir(d))) {
		struct stat st;

		if (e->d_name[0] != '.' &&
		    !fstatat(dirfd(d), e->d_name, &st, 0) &&
		    S_ISSOCK(st.st_mode))
			n++;
	}
	closedir(d);
	return n;
}

/**
 * fzr_cleanup() - remove the socket and its directory
 */
static void fzr_cleanup(void)
{
	unlink(fzr_path);
	rmdir(fzr_dir);
}

/**
 * fzr_init() - once: log, epoll set, passt's repair socket, the pool
 */
static void fzr_init(void)
{
	static bool done;
	struct rlimit lim;
	unsigned int i;

	if (done)
		return;
	done = true;

	if (!getrlimit(RLIMIT_NOFILE, &lim)) {
		lim.rlim_cur = lim.rlim_max;
		setrlimit(RLIMIT_NOFILE, &lim);
	}
	log_init("passt");
	log_to_stderr(getenv("FUZZ_LOG") != NULL);
	log_set_level(LOG_DEBUG);

	fzr_c.epollfd = epoll_create1(EPOLL_CLOEXEC);
	if (fzr_c.epollfd < 0 || !mkdtemp(fzr_dir))
		fzr_fail("can't create an epoll set or a directory");
	snprintf(fzr_path, sizeof(fzr_path), "%s/passt.repair", fzr_dir);
	atexit(fzr_cleanup);
	if (repair_init(&fzr_c, fzr_path))
		fzr_fail("repair_init() failed");

	for (i = 0; i < FZR_POOL; i++) {
		fzr_pool[i] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fzr_pool[i] < 0)
			fzr_fail("can't create the pool's sockets");
	}
	fzr_m.h = -1;
	fzr_fds0 = fzr_fds_count();
}

/**
 * fzr_passt_fd() - the socket passt accepted from us
 *
 * Return: descriptor, -1 if none
 */
static int fzr_passt_fd(void)
{
	DIR *d = opendir("/proc/self/fd");
	const struct dirent *e;
	int found = -1;

	if (!d)
		fzr_fail("can't read /proc/self/fd");
	while ((e = readdir(d))) {
		struct sockaddr_un a = { 0 };
		socklen_t sl = sizeof(a);
		int fd = atoi(e->d_name), v = 1;
		socklen_t vl = sizeof(v);

		if (e->d_name[0] == '.' || fd == dirfd(d) ||
		    getsockname(fd, (struct sockaddr *)&a, &sl) ||
		    a.sun_family != AF_UNIX ||
		    getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &v, &vl) || v)
			continue;
		if (sl > offsetof(struct sockaddr_un, sun_path) &&
		    !strcmp(a.sun_path, fzr_path))
			found = fd;
	}
	closedir(d);
	return found;
}

/**
 * fzr_events() - passt handles the events of its epoll set
 */
static void fzr_events(void)
{
	struct epoll_event ev[FZR_EVENTS];
	int n, i;

	n = epoll_wait(fzr_c.epollfd, ev, FZR_EVENTS, 0);
	for (i = 0; i < n; i++) {
		union epoll_ref ref = { .u64 = ev[i].data.u64 };

		repair_handler(&fzr_c, ref, ev[i].events);
	}
}

/**
 * fzr_drain() - read what passt sent, check it against the batches
 */
static void fzr_drain(void)
{
	struct fzr_model *m = &fzr_m;
	union {
		char buf[CMSG_SPACE(256 * sizeof(int))];
		struct cmsghdr align;
	} ctl;
	unsigned int i = 0;

	while (m->h >= 0 && !m->noread) {
		struct msghdr mh = { .msg_control = ctl.buf,
				     .msg_controllen = sizeof(ctl.buf) };
		struct iovec iov;
		struct cmsghdr *cm;
		unsigned int k = 0, j;
		int8_t cmd;
		ssize_t r;

		iov.iov_base = &cmd;
		iov.iov_len = 1;
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		r = recvmsg(m->h, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		if (r <= 0)
			break;
		for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
			const int *fds = (const int *)CMSG_DATA(cm);
			unsigned int nf = (unsigned int)((cm->cmsg_len -
						CMSG_LEN(0)) / sizeof(int));

			if (cm->cmsg_type != SCM_RIGHTS)
				fzr_fail("passt sent other control data");
			for (j = 0; j < nf; j++)
				close(fds[j]);
			k += nf;
		}
		if (i >= m->nsent)
			fzr_fail("passt sent a message no batch explains");
		if (cmd != m->sent_cmd[i] || k != m->sent_n[i] ||
		    (mh.msg_flags & MSG_CTRUNC))
			fzr_fail("a message is not its batch (command or "
				 "number of sockets)");
		i++;
	}
	memmove(m->sent_n, m->sent_n + i, (m->nsent - i) * sizeof(*m->sent_n));
	memmove(m->sent_cmd, m->sent_cmd + i, m->nsent - i);
	m->nsent -= i;
}

/**
 * fzr_lost() - passt has closed its connection: so will the helper
 */
static void fzr_lost(void)
{
	fzr_m.connected = false;
	fzr_m.n = 0;
	fzr_m.nans = 0;
}

/**
 * fzr_send_model() - passt sends its batch: does it succeed?
 *
 * Return: true if passt must report success
 */
static bool fzr_send_model(void)
{
	struct fzr_model *m = &fzr_m;
	unsigned int n = m->n;
	bool ok;

	m->n = 0;
	if (m->noread) {
		fzr_lost();
		return false;
	}
	if (m->nsent < FZR_ANSWERS) {
		m->sent_n[m->nsent] = n;
		m->sent_cmd[m->nsent++] = m->cmd;
	}
	if (!m->nans) {		/* end of stream, reset or timeout */
		fzr_lost();
		return false;
	}
	ok = (int8_t)m->ans[0] == m->cmd;
	memmove(m->ans, m->ans + 1, --m->nans);
	if (!ok)
		fzr_lost();
	return ok;
}

/**
 * fzr_set() - repair_set() on sockets of the pool, checked
 * @cmd:	command
 * @k:		how many
 */
static void fzr_set(int8_t cmd, unsigned int k)
{
	struct fzr_model *m = &fzr_m;
	unsigned int i;

	m->last = cmd;
	for (i = 0; i < k; i++) {
		bool want = true;
		int rc;

		if (!m->connected) {
			want = false;
		} else {
			if (m->n && m->cmd != cmd)
				want = fzr_send_model();
			if (want) {
				m->cmd = cmd;
				if (++m->n == REPAIR_FDS_MAX)
					want = fzr_send_model();
			}
		}
		rc = repair_set(fzr_pool[i % FZR_POOL], cmd);
		if (!m->connected && !want && rc == 0)
			fzr_fail("repair_set() succeeded without a helper");
		if ((rc == 0) != want)
			fzr_fail(want ? "repair_set() failed, the answer was "
				 "right" : "repair_set() succeeded, the answer "
				 "was wrong or missing");
		if (!m->connected && want)
			fzr_fail("model: connected");
		fzr_drain();
	}
}

/**
 * fzr_flush() - repair_flush(), checked
 */
static void fzr_flush(void)
{
	struct fzr_model *m = &fzr_m;
	bool want = true;

	if (m->n)
		want = m->connected && fzr_send_model();
	if ((repair_flush() == 0) != want)
		fzr_fail(want ? "repair_flush() failed, the answer was right" :
			 "repair_flush() succeeded, the answer was wrong or "
			 "missing");
	fzr_drain();
}

/**
 * fzr_write() - the helper writes bytes to passt
 * @buf:	bytes
 * @len:	their number
 */
static void fzr_write(const uint8_t *buf, size_t len)
{
	struct fzr_model *m = &fzr_m;

	if (m->h < 0 || m->eof)
		return;
	if (send(m->h, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL) !=
	    (ssize_t)len)
		return;		/* passt closed its end */
	if (!m->connected)
		return;
	if (m->nans + len > FZR_ANSWERS)
		fzr_fail("harness: too many answers queued");
	memcpy(m->ans + m->nans, buf, len);
	m->nans += (unsigned int)len;
}

/**
 * fzr_connect() - a helper connects, passt accepts it
 */
static void fzr_connect(void)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_usec = FZR_TIMEOUT_US };
	struct fzr_model *m = &fzr_m;
	int s, p;

	/* A helper that went away: passt sees it first, as it would */
	if (m->connected && m->eof) {
		fzr_events();
		fzr_lost();
	}

	memcpy(a.sun_path, fzr_path, strlen(fzr_path) + 1);
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0 || connect(s, (struct sockaddr *)&a, sizeof(a)))
		fzr_fail("can't connect to passt's repair socket");

	if (m->connected) {
		char b;

		/* A second one: closed at once */
		fzr_events();
		if (recv(s, &b, 1, MSG_DONTWAIT) != 0)
			fzr_fail("passt kept a second helper");
		close(s);
		return;
	}

	if (m->h >= 0)
		close(m->h);
	memset(m, 0, sizeof(*m));
	m->h = s;
	if (!repair_wait(&fzr_c, 0))
		fzr_fail("passt didn't accept a helper");
	m->connected = true;

	p = fzr_passt_fd();
	if (p < 0 ||
	    setsockopt(p, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    setsockopt(p, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)))
		fzr_fail("can't find passt's end to shorten its timeouts");
}

/**
 * fzr_shut() - the helper shuts or closes its end
 * @op:		FZR_EOF, FZR_NOREAD or FZR_CLOSE
 */
static void fzr_shut(enum fzr_op op)
{
	struct fzr_model *m = &fzr_m;

	if (m->h < 0)
		return;
	if (op == FZR_EOF) {
		shutdown(m->h, SHUT_WR);
		m->eof = true;
		return;
	}
	if (op == FZR_NOREAD) {
		shutdown(m->h, SHUT_RD);
		m->noread = true;
		return;
	}
	close(m->h);
	m->h = -1;
	m->eof = m->noread = m->closed = true;
	m->nans = 0;	/* what we wrote goes with the reset */
	m->nsent = 0;
}

/**
 * fzr_op() - run one operation
 * @data:	input
 * @size:	its length
 * @off:	offset of the operation, moved past it
 */
static void fzr_op(const uint8_t *data, size_t size, size_t *off)
{
	static const int8_t cmds[3] = { TCP_REPAIR_ON, TCP_REPAIR_OFF,
					TCP_REPAIR_OFF_NO_WP };
	struct fzr_model *m = &fzr_m;
	unsigned int op = data[*off] & 0xf, p = data[*off] >> 4, k;
	uint8_t buf[4];

	(*off)++;
	switch (op % FZR_OPS) {
	case FZR_CONNECT:
		fzr_connect();
		break;
	case FZR_SET:
		k = (*off < size ? data[(*off)++] : 0) + 1U;
		fzr_set(cmds[p % 3], k);
		break;
	case FZR_FLUSH:
		fzr_flush();
		break;
	case FZR_ANSWER:
		k = p % 4 + 1;
		if (size - *off < k)
			k = (unsigned int)(size - *off);
		fzr_write(data + *off, k);
		*off += k;
		break;
	case FZR_GOOD:
		memset(buf, (uint8_t)m->last, sizeof(buf));
		fzr_write(buf, p % 4 + 1);
		break;
	case FZR_EOF:
	case FZR_NOREAD:
	case FZR_CLOSE:
		fzr_shut((enum fzr_op)(op % FZR_OPS));
		break;
	case FZR_EVENTS_OP:
		fzr_events();
		if (m->connected && m->eof)
			fzr_lost();
		break;
	default:
		repair_close(&fzr_c);
		fzr_lost();
		break;
	}
}

/**
 * LLVMFuzzerTestOneInput() - one sequence of calls and answers
 * @data:	input
 * @size:	its length
 *
 * Return: 0
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t off = 0;

	fzr_init();
	while (off < size)
		fzr_op(data, size, &off);

	/* migrate/ closes the connection when the migration is over */
	repair_close(&fzr_c);
	if (fzr_m.h >= 0)
		close(fzr_m.h);
	memset(&fzr_m, 0, sizeof(fzr_m));
	fzr_m.h = -1;
	fzr_events();
	if (fzr_fds_count() != fzr_fds0)
		fzr_fail("descriptors left open after the input");
	return 0;
}
