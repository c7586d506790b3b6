// SPDX-License-Identifier: GPL-2.0-or-later
/* fwd_ctl.c - the -c configuration socket: forwarding tables changed at
 * run time by a client (upstream's pesto, or ours)
 *
 * Theory of operation
 *
 * With -c PATH, the relay listens on a UNIX socket at PATH, created at
 * start-up (before going to the background, and before the sandbox hides
 * the file system) with mode 0600 whatever the umask: whoever may connect
 * may change what the host exposes. One client is served at a time; while
 * it is, the listening socket is out of the epoll set's interest, and
 * further clients wait in its backlog.
 *
 * Who may connect: a process of the user who started us, or root
 * (unix_sock_accept(): SO_PEERCRED); and, for pasta, not from the network
 * namespace it serves, or a process in the container (often root there,
 * and the same user as pasta in a rootless user namespace) could forward
 * host ports to itself. An accepted UNIX socket belongs to the network
 * namespace of the socket that connected (the kernel creates it there),
 * so SO_NETNS_COOKIE of the connection names the client's namespace; we
 * compare it with the cookie of a socket made in the target namespace at
 * start-up. No /proc (the sandbox has none) and no access to the client
 * process (a pidfd's namespace query needs ptrace rights over it, which a
 * relay running as nobody lacks for root's client) is needed. Kernels
 * before 5.14 have no SO_NETNS_COOKIE: then the check is off, and a
 * message at start-up says so. Refused clients are closed at once and
 * counted (fwd_ctl_stats_log(): SIGUSR1, --stats).
 *
 * A session (the protocol is in fwd/pesto_wire.c and doc/pesto.md): the
 * relay queues its greeting, its tables (fwd/fwd_rules.c) and, after
 * them, the derived configuration in force (fwd/fwd_view.c; announced in
 * the tables' capabilities, so that only a client that knows it reads it:
 * upstream's leaves it unread, and closes) as soon as it accepts; the
 * client may send an update, the new tables of the pifs it
 * changes, which the parser takes in whatever pieces arrive; the relay
 * applies it (fwd/fwd_listen.c: all directions at once, or nothing),
 * queues a reply with a status and a message, and closes once the reply is
 * out. A client that closes without sending anything only looked. A
 * malformed update gets an error reply, and the connection is closed.
 *
 * Nothing blocks the data path: the client's socket is non-blocking, its
 * input is parsed as it comes, and output that doesn't fit its socket
 * buffer waits for EPOLLOUT in a buffer sized for the largest tables and
 * reply. A client gets FWD_CTL_TIMEOUT_MS to finish, from when it is
 * accepted; then it is dropped.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "fwd_ctl.h"
#include "fwd_listen.h"
#include "fwd_rules.h"
#include "fwd_view.h"
#include "pesto_wire.h"
#include "../conf/fwd_spec.h"
#include "../conf/ctx.h"
#include "../util/epoll_ref.h"
#include "../util/log.h"
#include "../util/ns_worker.h"
#include "../util/timer.h"
#include "../util/unix_sock.h"
#include "../util/util.h"
#include "../util/syscalls.h"

/* System calls after start-up: configuration clients (pesto) */
SYSCALLS(SYSCALLS_RELAY,
	 SYSCALLS_CALL("accept4", "a client on the -c socket"),
	 SYSCALLS_CALL_IF("getsockopt", "its namespace (SO_NETNS_COOKIE)",
			  SYSCALLS_ARG_EQ(1, SOL_SOCKET)),
	 SYSCALLS_CALL("recvfrom", "its new tables (recv())"),
	 SYSCALLS_CALL("sendto", "our tables, our reply (send())"),
	 SYSCALLS_CALL("epoll_ctl", "watch the client, the socket"),
	 SYSCALLS_CALL("close", "the client, when done"));

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE		71	/* Linux 5.14 */
#endif

/* Refused clients logged at warning level, then at debug level */
#define FWD_CTL_REFUSED_LOG	8

/* Clients that may wait while one is served */
#define FWD_CTL_BACKLOG		4
/* Time a client has to finish, from its connection */
#define FWD_CTL_TIMEOUT_MS	10000
/* Bytes read from a client at a time */
#define FWD_CTL_READ_SIZE	4096
/* One pif's table on the wire, at most */
#define FWD_CTL_PIF_MAX		(1 + PESTO_PIF_INFO_LEN + \
				 PESTO_PIF_RULES_MAX * PESTO_RULE_LEN)
/* Output: greeting, two pifs, the end mark, the derived configuration,
 * the reply
 */
#define FWD_CTL_OUT_MAX		(PESTO_HELLO_LEN + 2 * FWD_CTL_PIF_MAX + 1 + \
				 PESTO_VIEW_HDR_LEN + PESTO_VIEW_MAX + \
				 PESTO_REPLY_HDR_LEN + PESTO_REPLY_MSG_MAX)

static int fwd_ctl_listen_fd = -1;
static int fwd_ctl_fd = -1;		/* the client being served */
static bool fwd_ctl_done;		/* reply queued: close once sent */
static bool fwd_ctl_out_armed;		/* EPOLLOUT in the interest set */
static uint8_t fwd_ctl_out[FWD_CTL_OUT_MAX];
static size_t fwd_ctl_out_len, fwd_ctl_out_sent;
static struct pesto_update fwd_ctl_update;
static struct pesto_rule fwd_ctl_rules[PESTO_PIF_RULES_MAX];
static struct fwd_spec fwd_ctl_next[FWD_DIRS];
static struct wheel_timer fwd_ctl_timer;
static char fwd_ctl_what[sizeof(((struct sockaddr_un *)0)->sun_path) + 32];
static uint64_t fwd_ctl_ns_cookie;	/* pasta: the target's, 0: unknown */

/**
 * struct fwd_ctl_stats - counters of the configuration socket
 * @clients:		clients served
 * @refused_uid:	clients refused: another user than ours, or root
 * @refused_netns:	clients refused: in the namespace pasta serves
 * @timeouts:		clients dropped after FWD_CTL_TIMEOUT_MS
 */
static struct fwd_ctl_stats {
	uint64_t clients;
	uint64_t refused_uid;
	uint64_t refused_netns;
	uint64_t timeouts;
} fwd_ctl_stats;

/**
 * fwd_ctl_env() - pif and families of the running relay
 * @c:		execution context
 * @pif:	PESTO_PIF_HOST or PESTO_PIF_SPLICE
 *
 * Return: the environment for fwd/fwd_rules.c
 */
static struct fwd_rules_env fwd_ctl_env(const struct ctx *c, uint8_t pif)
{
	return (struct fwd_rules_env){ .pif = pif, .ipv4 = c->ip4.enabled,
				       .ipv6 = c->ip6.enabled };
}

/**
 * fwd_ctl_caps() - capabilities of a pif, as the greeting announces them
 * @c:		execution context
 *
 * Return: PESTO_CAP_* bits
 */
static uint32_t fwd_ctl_caps(const struct ctx *c)
{
	uint32_t caps = PESTO_CAP_IFNAME | PESTO_CAP_VIEW;

	if (c->ip4.enabled)
		caps |= PESTO_CAP_IPV4;
	if (c->ip6.enabled)
		caps |= PESTO_CAP_IPV6;
	if (!c->no_tcp)
		caps |= PESTO_CAP_TCP;
	if (!c->no_udp)
		caps |= PESTO_CAP_UDP;
	if (c->mode == MODE_PASTA)
		caps |= PESTO_CAP_SCAN;
	return caps;
}

/**
 * fwd_ctl_pifs() - the pifs of this relay
 * @c:		execution context
 *
 * Return: bitmap (1 << pif)
 */
static unsigned int fwd_ctl_pifs(const struct ctx *c)
{
	unsigned int pifs = 1U << PESTO_PIF_HOST;

	if (c->mode == MODE_PASTA)
		pifs |= 1U << PESTO_PIF_SPLICE;
	return pifs;
}

/**
 * fwd_ctl_put_pif() - queue one pif's information and rules
 * @c:		execution context
 * @pif:	PESTO_PIF_HOST or PESTO_PIF_SPLICE
 * @tcp:	direction of its TCP rules
 * @udp:	direction of its UDP rules
 *
 * Return: 0 on success, -1 if its rules don't fit the protocol
 */
static int fwd_ctl_put_pif(const struct ctx *c, uint8_t pif, enum fwd_dir tcp,
			   enum fwd_dir udp)
{
	struct fwd_rules_env env = fwd_ctl_env(c, pif);
	uint8_t *p = fwd_ctl_out + fwd_ctl_out_len;
	unsigned int n = 0, i;
	int ret;

	ret = fwd_rules_to_wire(&env, fwd_dir_spec(tcp), IPPROTO_TCP,
				fwd_ctl_rules, PESTO_PIF_RULES_MAX);
	if (ret < 0)
		return -1;
	n = (unsigned int)ret;
	ret = fwd_rules_to_wire(&env, fwd_dir_spec(udp), IPPROTO_UDP,
				fwd_ctl_rules + n, PESTO_PIF_RULES_MAX - n);
	if (ret < 0)
		return -1;
	n += (unsigned int)ret;

	*p++ = pif;
	pesto_pif_info_encode(p, pesto_pif_name(pif), fwd_ctl_caps(c), n);
	p += PESTO_PIF_INFO_LEN;
	for (i = 0; i < n; i++, p += PESTO_RULE_LEN)
		pesto_rule_encode(p, &fwd_ctl_rules[i]);

	fwd_ctl_out_len = (size_t)(p - fwd_ctl_out);
	return 0;
}

/**
 * fwd_ctl_put_tables() - queue the greeting, the tables in force and the
 *			  derived configuration in force
 * @c:		execution context
 *
 * Return: 0 on success, -1 if the tables don't fit the protocol (logged)
 */
static int fwd_ctl_put_tables(const struct ctx *c)
{
	char view[PESTO_VIEW_MAX + 1];

	pesto_hello_encode(fwd_ctl_out);
	fwd_ctl_out_len = PESTO_HELLO_LEN;
	fwd_ctl_out_sent = 0;

	if (fwd_ctl_put_pif(c, PESTO_PIF_HOST, FWD_DIR_TCP_IN,
			    FWD_DIR_UDP_IN) ||
	    (c->mode == MODE_PASTA &&
	     fwd_ctl_put_pif(c, PESTO_PIF_SPLICE, FWD_DIR_TCP_OUT,
			     FWD_DIR_UDP_OUT))) {
		warn("Configuration client: the forwarding tables have more than %d rules per pif, or 'auto' with too many exclusions, which the protocol can't carry",
		     PESTO_PIF_RULES_MAX);
		return -1;
	}

	fwd_ctl_out[fwd_ctl_out_len++] = PESTO_PIF_NONE;

	fwd_view_text(c, view, sizeof(view));
	fwd_ctl_out_len += pesto_view_encode(fwd_ctl_out + fwd_ctl_out_len,
					     sizeof(fwd_ctl_out) -
					     fwd_ctl_out_len, view);
	return 0;
}

/**
 * fwd_ctl_arm() - set the epoll interest for the client
 * @c:		execution context
 * @out:	wait for room to write too
 */
static void fwd_ctl_arm(const struct ctx *c, bool out)
{
	union epoll_ref ref = { .type = EPOLL_TYPE_CONF };
	struct epoll_event ev;

	ref.fd = (uint32_t)fwd_ctl_fd;
	ev.data.u64 = ref.u64;
	ev.events = (fwd_ctl_done ? 0 : EPOLLIN | EPOLLRDHUP) |
		    (out ? EPOLLOUT : 0);
	if (epoll_ctl(c->epollfd, EPOLL_CTL_MOD, fwd_ctl_fd, &ev))
		debug_perror("Configuration client: epoll_ctl");
	fwd_ctl_out_armed = out;
}

/**
 * fwd_ctl_listen_arm() - take new clients, or leave them waiting
 * @c:		execution context
 * @on:		take them
 */
static void fwd_ctl_listen_arm(const struct ctx *c, bool on)
{
	union epoll_ref ref = { .type = EPOLL_TYPE_CONF_LISTEN };
	struct epoll_event ev;

	ref.fd = (uint32_t)fwd_ctl_listen_fd;
	ev.data.u64 = ref.u64;
	ev.events = on ? EPOLLIN : 0;
	if (epoll_ctl(c->epollfd, EPOLL_CTL_MOD, fwd_ctl_listen_fd, &ev))
		debug_perror("Configuration socket: epoll_ctl");
}

/**
 * fwd_ctl_close() - end the session with the client
 * @c:		execution context
 */
static void fwd_ctl_close(const struct ctx *c)
{
	if (fwd_ctl_fd < 0)
		return;

	epoll_ctl(c->epollfd, EPOLL_CTL_DEL, fwd_ctl_fd, NULL);
	close(fwd_ctl_fd);
	fwd_ctl_fd = -1;
	timer_cancel(&fwd_ctl_timer);
	fwd_ctl_listen_arm(c, true);
	debug("Configuration client: closed");
}

/**
 * fwd_ctl_flush() - write queued output to the client
 * @c:		execution context
 */
static void fwd_ctl_flush(const struct ctx *c)
{
	while (fwd_ctl_out_sent < fwd_ctl_out_len) {
		ssize_t n = send(fwd_ctl_fd, fwd_ctl_out + fwd_ctl_out_sent,
				 fwd_ctl_out_len - fwd_ctl_out_sent,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			if (!fwd_ctl_out_armed)
				fwd_ctl_arm(c, true);
			return;
		}
		if (n <= 0) {
			/* Upstream's pesto closes without reading a reply */
			debug("Configuration client: gone before our reply");
			fwd_ctl_close(c);
			return;
		}
		fwd_ctl_out_sent += (size_t)n;
	}

	if (fwd_ctl_out_armed)
		fwd_ctl_arm(c, false);
	if (fwd_ctl_done)
		fwd_ctl_close(c);
}

/**
 * fwd_ctl_reply() - queue the reply to an update, close once it is out
 * @c:		execution context
 * @status:	0 if applied, else a positive errno value
 * @msg:	message for the user
 */
static void fwd_ctl_reply(const struct ctx *c, int status, const char *msg)
{
	fwd_ctl_out_len += pesto_reply_encode(fwd_ctl_out + fwd_ctl_out_len,
					      sizeof(fwd_ctl_out) -
					      fwd_ctl_out_len,
					      (uint32_t)status, msg);
	fwd_ctl_done = true;
	fwd_ctl_flush(c);

	/* Waiting to write the rest: no more input wanted */
	if (fwd_ctl_fd >= 0)
		fwd_ctl_arm(c, true);
}

/**
 * fwd_ctl_log_rules() - log the tables now in force
 * @c:		execution context
 */
static void fwd_ctl_log_rules(const struct ctx *c)
{
	unsigned int d, i;

	for (d = 0; d < FWD_DIRS; d++) {
		struct fwd_rules_env env = fwd_ctl_env(c, fwd_dir_out(d) ?
						       PESTO_PIF_SPLICE :
						       PESTO_PIF_HOST);
		int n;

		if (!fwd_dir_on(c, d))
			continue;
		n = fwd_rules_to_wire(&env, fwd_dir_spec(d),
				      fwd_dir_udp(d) ? IPPROTO_UDP
						     : IPPROTO_TCP,
				      fwd_ctl_rules, PESTO_PIF_RULES_MAX);
		info("    %s: %d rules", fwd_dir_opt(d), n);
		for (i = 0; n > 0 && i < (unsigned int)n; i++) {
			char buf[160];

			info("        %s", pesto_rule_fmt(&fwd_ctl_rules[i], buf,
						       sizeof(buf)));
		}
	}
}

/**
 * fwd_ctl_apply() - apply a complete update
 * @c:		execution context
 * @u:		parsed update
 * @msg:	message for the client
 * @len:	size of @msg
 *
 * Return: 0 if applied, positive errno otherwise (nothing changed)
 */
static int fwd_ctl_apply(const struct ctx *c, const struct pesto_update *u,
			 char *msg, size_t len)
{
	struct fwd_spec *next[FWD_DIRS] = { NULL };
	unsigned int i, k;
	int ret;

	for (i = 0; i < u->n; i++) {
		const struct pesto_pif *t = &u->tables[i];
		struct fwd_rules_env env = fwd_ctl_env(c, t->pif);
		bool splice = t->pif == PESTO_PIF_SPLICE;
		enum fwd_dir dirs[2] = {
			splice ? FWD_DIR_TCP_OUT : FWD_DIR_TCP_IN,
			splice ? FWD_DIR_UDP_OUT : FWD_DIR_UDP_IN,
		};

		for (k = 0; k < 2; k++) {
			uint8_t proto = k ? IPPROTO_UDP : IPPROTO_TCP;
			enum fwd_dir d = dirs[k];
			unsigned int j;

			if (!fwd_dir_on(c, d)) {
				for (j = 0; j < t->count; j++) {
					if (t->rules[j].proto != proto)
						continue;
					snprintf(msg, len, "%s: forwarding of %s is disabled in this relay",
						 fwd_dir_opt(d),
						 k ? "UDP" : "TCP");
					return EINVAL;
				}
				continue;
			}

			if (fwd_rules_from_wire(&env, t, proto,
						&fwd_ctl_next[d], msg, len))
				return EINVAL;
			next[d] = &fwd_ctl_next[d];
		}
	}

	ret = fwd_listen_switch(c, next, msg, len);
	if (ret)
		return -ret;

	snprintf(msg, len, "forwarding tables updated");
	info("Configuration client: forwarding tables updated:");
	fwd_ctl_log_rules(c);
	return 0;
}

/**
 * fwd_ctl_input() - read what the client sent, act once it is complete
 * @c:		execution context
 */
static void fwd_ctl_input(const struct ctx *c)
{
	uint8_t buf[FWD_CTL_READ_SIZE];
	char msg[PESTO_REPLY_MSG_MAX / 2];
	int ret = 0;

	while (!ret) {
		ssize_t n = recv(fwd_ctl_fd, buf, sizeof(buf), MSG_DONTWAIT);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		/* A client that closes with our output unread (upstream's
		 * pesto, which doesn't read the derived configuration) resets
		 * the connection once its bytes are read: as an end of file
		 */
		if (n < 0 && errno == ECONNRESET)
			n = 0;
		if (n < 0) {
			debug_perror("Configuration client: recv");
			fwd_ctl_close(c);
			return;
		}
		if (!n) {
			if (fwd_ctl_update.bytes) {
				fwd_ctl_reply(c, EPROTO, "update cut short");
				warn("Configuration client: update cut short");
			} else {
				fwd_ctl_close(c);	/* it only looked */
			}
			return;
		}
		ret = pesto_update_feed(&fwd_ctl_update, buf, (size_t)n);
	}

	if (ret < 0) {
		snprintf(msg, sizeof(msg), "malformed update: %s",
			 fwd_ctl_update.err);
		warn("Configuration client: %s", msg);
		fwd_ctl_reply(c, EPROTO, msg);
		return;
	}

	ret = fwd_ctl_apply(c, &fwd_ctl_update, msg, sizeof(msg));
	if (ret)
		warn("Configuration client: update refused, nothing changed: %s",
		     msg);
	fwd_ctl_reply(c, ret, msg);
}

/**
 * fwd_ctl_timeout() - a client took too long: drop it
 * @c:		execution context
 * @t:		our timer
 * @now_ms:	current time
 */
static void fwd_ctl_timeout(const struct ctx *c, struct wheel_timer *t,
			    uint64_t now_ms)
{
	(void)t;
	(void)now_ms;

	if (fwd_ctl_fd < 0)
		return;
	fwd_ctl_stats.timeouts++;
	warn("Configuration client: not done after %d ms, dropped",
	     FWD_CTL_TIMEOUT_MS);
	fwd_ctl_close(c);
}

/**
 * fwd_ctl_netns_cookie() - cookie of a socket's network namespace
 * @fd:		socket
 *
 * Return: cookie, 0 if the kernel can't tell (before Linux 5.14)
 */
static uint64_t fwd_ctl_netns_cookie(int fd)
{
	uint64_t cookie = 0;
	socklen_t sl = sizeof(cookie);

	if (getsockopt(fd, SOL_SOCKET, SO_NETNS_COOKIE, &cookie, &sl))
		return 0;
	return cookie;
}

/**
 * fwd_ctl_from_ns() - is a client in the namespace pasta serves?
 * @fd:		accepted client socket
 * @cred:	its credentials, for the log
 *
 * Return: true if it is, or if we can't tell (logged, counted)
 */
static bool fwd_ctl_from_ns(int fd, const struct ucred *cred)
{
	uint64_t cookie;

	if (!fwd_ctl_ns_cookie)
		return false;

	cookie = fwd_ctl_netns_cookie(fd);
	if (cookie && cookie != fwd_ctl_ns_cookie)
		return false;

	if (fwd_ctl_stats.refused_netns++ < FWD_CTL_REFUSED_LOG) {
		warn("%s: refused a connection from PID %i, UID %u: %s%s",
		     fwd_ctl_what, (int)cred->pid, (unsigned int)cred->uid,
		     cookie ? "it comes from the namespace we serve" :
		     "can't tell its network namespace",
		     fwd_ctl_stats.refused_netns == FWD_CTL_REFUSED_LOG ?
		     " (not reporting further refusals)" : "");
	}
	return true;
}

/**
 * fwd_ctl_accept() - take a new client
 * @c:		execution context
 * @now_ms:	current time
 */
static void fwd_ctl_accept(const struct ctx *c, uint64_t now_ms)
{
	union epoll_ref ref = { .type = EPOLL_TYPE_CONF };
	struct epoll_event ev;
	struct ucred cred;
	int fd;

	if (fwd_ctl_fd >= 0) {
		fwd_ctl_listen_arm(c, false);	/* it waits its turn */
		return;
	}

	fd = unix_sock_accept(fwd_ctl_listen_fd, SOCK_NONBLOCK, fwd_ctl_what,
			      &cred, &fwd_ctl_stats.refused_uid);
	if (fd < 0) {
		if (fd != -EAGAIN && fd != -EPERM && fd != -ECONNABORTED)
			warn("Configuration socket: accept: %s",
			     strerror(-fd));
		return;
	}
	if (fwd_ctl_from_ns(fd, &cred)) {
		close(fd);
		return;
	}

	fwd_ctl_stats.clients++;
	info("Configuration client connected: PID %d, UID %u",
	     (int)cred.pid, (unsigned int)cred.uid);

	fwd_ctl_fd = fd;
	fwd_ctl_done = false;
	fwd_ctl_out_armed = false;
	pesto_update_init(&fwd_ctl_update, fwd_ctl_pifs(c));

	ref.fd = (uint32_t)fd;
	ev.data.u64 = ref.u64;
	ev.events = EPOLLIN | EPOLLRDHUP;
	if (epoll_ctl(c->epollfd, EPOLL_CTL_ADD, fd, &ev)) {
		warn_perror("Configuration client: epoll_ctl");
		close(fd);
		fwd_ctl_fd = -1;
		return;
	}
	fwd_ctl_listen_arm(c, false);
	timer_arm(&fwd_ctl_timer, now_ms + FWD_CTL_TIMEOUT_MS);

	if (fwd_ctl_put_tables(c)) {
		fwd_ctl_close(c);
		return;
	}
	fwd_ctl_flush(c);
}

/**
 * fwd_ctl_handler() - events on the configuration sockets
 * @c:		execution context
 * @ref:	epoll reference
 * @events:	epoll events
 * @now_ms:	current time
 */
void fwd_ctl_handler(const struct ctx *c, union epoll_ref ref, uint32_t events,
		     uint64_t now_ms)
{
	if (ref.type == EPOLL_TYPE_CONF_LISTEN) {
		fwd_ctl_accept(c, now_ms);
		return;
	}

	/* An event queued for a client closed earlier in this batch */
	if (fwd_ctl_fd < 0 || (int)ref.fd != fwd_ctl_fd)
		return;

	/* What the client sent first: one that closed with our output
	 * unread (upstream's pesto) may have sent a whole update
	 */
	if (!fwd_ctl_done && (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP)))
		fwd_ctl_input(c);
	if (fwd_ctl_fd >= 0 && (events & EPOLLOUT))
		fwd_ctl_flush(c);
	if (fwd_ctl_fd >= 0 && (events & EPOLLERR)) {
		debug("Configuration client: socket error");
		fwd_ctl_close(c);
	}
}

/**
 * fwd_ctl_ns_cookie_fn() - in the target namespace: its cookie
 * @arg:	uint64_t, set to the cookie (0 if the kernel can't tell)
 *
 * Return: 0, or negative errno if no socket could be made
 */
static int fwd_ctl_ns_cookie_fn(void *arg)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	*(uint64_t *)arg = fwd_ctl_netns_cookie(fd);
	close(fd);
	return 0;
}

/**
 * fwd_ctl_ns_watch() - pasta: learn the target namespace's cookie, to
 *			refuse clients from there
 */
static void fwd_ctl_ns_watch(void)
{
	uint64_t cookie = 0;

	if (ns_target_fd() < 0 || ns_run(fwd_ctl_ns_cookie_fn, &cookie) ||
	    !cookie) {
		warn("-c: this kernel can't tell the network namespace of a "
		     "client (SO_NETNS_COOKIE, Linux 5.14): processes in the "
		     "namespace we serve may use %s too, if they run as our "
		     "user or root", fwd_ctl_what);
		return;
	}
	fwd_ctl_ns_cookie = cookie;
}

/**
 * fwd_ctl_stats_log() - log the counters of the -c socket, if there is one
 */
void fwd_ctl_stats_log(void)
{
	if (fwd_ctl_listen_fd < 0)
		return;

	info("conf: clients=%llu refused_uid=%llu refused_netns=%llu "
	     "timeouts=%llu",
	     (unsigned long long)fwd_ctl_stats.clients,
	     (unsigned long long)fwd_ctl_stats.refused_uid,
	     (unsigned long long)fwd_ctl_stats.refused_netns,
	     (unsigned long long)fwd_ctl_stats.timeouts);
}

/**
 * fwd_ctl_init() - listen on the -c socket, if given
 * @c:		execution context
 *
 * Return: 0 on success (also without -c), -1 on failure (logged)
 */
int fwd_ctl_init(const struct ctx *c)
{
	union epoll_ref ref = { .type = EPOLL_TYPE_CONF_LISTEN };
	struct epoll_event ev = { .events = EPOLLIN };
	int ret;

	if (!*c->conf_path)
		return 0;

	if (strlen(c->conf_path) >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
		err("-c: %s is too long for a UNIX socket (at most %zu bytes): choose a shorter path",
		    c->conf_path, sizeof(((struct sockaddr_un *)0)->sun_path) - 1);
		return -1;
	}

	ret = unix_sock_probe(c->conf_path);
	if (ret == -EADDRINUSE) {
		err("-c: another process listens on %s: stop it, or choose another path",
		    c->conf_path);
		return -1;
	}
	if (ret == -ENOTSOCK) {
		err("-c: %s exists and is not a socket: choose another path",
		    c->conf_path);
		return -1;
	}
	if (!ret)
		ret = unix_sock_listen(c->conf_path, FWD_CTL_BACKLOG,
				       UNIX_SOCK_MODE);
	if (ret < 0) {
		err("-c: can't listen on %s: %s (check the directory and its permissions)",
		    c->conf_path, strerror(-ret));
		return -1;
	}

	fwd_ctl_listen_fd = ret;
	snprintf(fwd_ctl_what, sizeof(fwd_ctl_what), "Configuration socket %.*s",
		 (int)sizeof(((struct sockaddr_un *)0)->sun_path), c->conf_path);
	if (c->mode == MODE_PASTA)
		fwd_ctl_ns_watch();

	ref.fd = (uint32_t)ret;
	ev.data.u64 = ref.u64;
	if (epoll_ctl(c->epollfd, EPOLL_CTL_ADD, ret, &ev)) {
		err_perror("-c: epoll_ctl");
		return -1;
	}
	timer_init(&fwd_ctl_timer, fwd_ctl_timeout);
	info("Configuration socket: %s", c->conf_path);
	return 0;
}
