// SPDX-License-Identifier: GPL-2.0-or-later
/* follow_watch.c - watch the host's addresses, routes and links
 *
 * Theory of operation: one NETLINK_ROUTE socket in the host's network
 * namespace, opened at start-up (before the sandbox), subscribed to the
 * link, IPv4 and IPv6 address and IPv4 and IPv6 route groups. What the
 * notifications say is not parsed: any of them only means "look again".
 * A change is a burst (a DHCP renewal, a link going down takes its
 * addresses and routes with it), so the first notification arms a timer
 * FOLLOW_SETTLE_MS ahead, each further one pushes it back, up to
 * FOLLOW_SETTLE_MAX_MS after the first; when it fires, conf/ derives the
 * settings again with the functions start-up used (conf_host_rederive(),
 * over the host netlink socket start-up opened) and follow.c puts the
 * outcome in force. A lost notification (ENOBUFS) is one more reason to
 * look: nothing is missed, since everything is read again. A change of
 * the resolver file (follow_resolv.c) arms the same timer
 * (follow_watch_kick()), and the file is read again when it fires.
 *
 * Off with --no-follow-host, and for pasta --splice-only (nothing derived).
 */

#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "follow.h"
#include "../conf/conf.h"
#include "../util/epoll_ref.h"
#include "../util/log.h"
#include "../util/syscalls.h"
#include "../util/timer.h"

/* System calls after start-up: notifications; asking the host again */
SYSCALLS(SYSCALLS_RELAY,
	 SYSCALLS_CALL("recvfrom", "netlink notifications (recv())"),
	 SYSCALLS_CALL("sendto", "netlink requests: routes, addresses, links"),
	 SYSCALLS_CALL("recvmsg", "netlink replies to them"));

/* Quiet time after the last notification before looking again */
#define FOLLOW_SETTLE_MS	150
/* Longest wait after the first notification of a burst */
#define FOLLOW_SETTLE_MAX_MS	1000
/* Notifications are only counted: a small buffer drains them */
#define FOLLOW_NL_BUF		8192

static int follow_sock = -1;
static struct wheel_timer follow_timer;
static uint64_t follow_first_ms;	/* first notification of a burst */
static char follow_buf[FOLLOW_NL_BUF] __attribute__((aligned(8)));

/**
 * follow_timer_fn() - the host settled: derive again, apply
 * @c:		execution context
 * @t:		the timer
 * @now_ms:	current time
 */
static void follow_timer_fn(const struct ctx *c, struct wheel_timer *t,
			    uint64_t now_ms)
{
	struct ip4_ctx ip4;
	struct ip6_ctx ip6;

	(void)t;
	(void)now_ms;
	follow_first_ms = 0;

	conf_host_rederive(c, follow_ip4(c), follow_ip6(c), &ip4, &ip6);
	if (follow_resolv_pending())
		follow_resolv_update(c, &ip4, &ip6);
	if (!follow_apply(c, &ip4, &ip6))
		debug("Host network: notified, nothing derived changed");
}

/**
 * follow_watch_kick() - something changed: look again once it settles
 */
void follow_watch_kick(void)
{
	uint64_t now = timer_now_ms(), at;

	if (!follow_first_ms)
		follow_first_ms = now;
	at = now + FOLLOW_SETTLE_MS;
	if (at > follow_first_ms + FOLLOW_SETTLE_MAX_MS)
		at = follow_first_ms + FOLLOW_SETTLE_MAX_MS;
	timer_arm(&follow_timer, at);
}

/**
 * follow_watch_handler() - notifications from the host: drain, settle
 * @c:		execution context
 */
void follow_watch_handler(const struct ctx *c)
{
	bool any = false;

	(void)c;
	for (;;) {
		ssize_t n = recv(follow_sock, follow_buf, sizeof(follow_buf),
				 MSG_DONTWAIT);

		if (n >= 0) {
			any = true;
			continue;
		}
		if (errno == EINTR)
			continue;
		if (errno == ENOBUFS) {
			debug("Host network: notifications lost, looking again");
			any = true;
			continue;
		}
		break;
	}
	if (any)
		follow_watch_kick();
}

/**
 * follow_watch_init() - subscribe to the host's changes (before the
 *			 sandbox)
 * @c:		execution context, follow_init() done
 *
 * Failure leaves the start-up picture in force, with a warning.
 *
 * Return: 0 on success or when off, negative errno on failure
 */
int follow_watch_init(const struct ctx *c)
{
	struct sockaddr_nl addr = {
		.nl_family = AF_NETLINK,
		.nl_groups = RTMGRP_LINK | RTMGRP_IPV4_IFADDR |
			     RTMGRP_IPV6_IFADDR | RTMGRP_IPV4_ROUTE |
			     RTMGRP_IPV6_ROUTE,
	};
	union epoll_ref ref = { .type = EPOLL_TYPE_FOLLOW };
	struct epoll_event ev = { .events = EPOLLIN };
	int ret;

	if (c->no_follow_host || c->splice_only)
		return 0;

	timer_init(&follow_timer, follow_timer_fn);
	follow_sock = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC |
			     SOCK_NONBLOCK, NETLINK_ROUTE);
	if (follow_sock < 0) {
		ret = -errno;
		goto fail;
	}
	if (bind(follow_sock, (struct sockaddr *)&addr, sizeof(addr))) {
		ret = -errno;
		goto fail;
	}

	ref.fd = (uint32_t)follow_sock;
	ev.data.u64 = ref.u64;
	if (epoll_ctl(c->epollfd, EPOLL_CTL_ADD, follow_sock, &ev)) {
		ret = -errno;
		goto fail;
	}
	return 0;

fail:
	warn("Can't watch the host's network (%s): the guest keeps the addresses and routes of start-up",
	     strerror(-ret));
	if (follow_sock >= 0)
		close(follow_sock);
	follow_sock = -1;
	return ret;
}

/**
 * follow_watch_on() - is the relay following the host?
 *
 * Return: true if the host's network is watched, false if following is off
 *	   (--no-follow-host, --splice-only) or the watch couldn't be opened
 */
bool follow_watch_on(void)
{
	return follow_sock >= 0;
}
