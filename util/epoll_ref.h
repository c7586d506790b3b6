/* SPDX-License-Identifier: GPL-2.0-or-later */
/* epoll_ref.h - typed references stored in epoll events
 *
 * Theory of operation: every file descriptor in the main epoll set carries
 * a 64-bit reference saying what it is (type), its number, and a
 * type-specific word (a flow index, a forwarding rule...). The main loop
 * dispatches on the type without any lookup.
 */
#ifndef UTIL_EPOLL_REF_H
#define UTIL_EPOLL_REF_H

#include <stdint.h>
#include <sys/epoll.h>

/**
 * enum epoll_type - what a descriptor in the epoll set is
 */
enum epoll_type {
	EPOLL_TYPE_NONE = 0,
	EPOLL_TYPE_TAP_PASTA,		/* tuntap device of pasta */
	EPOLL_TYPE_TAP_STREAM,		/* connected guest stream socket */
	EPOLL_TYPE_TAP_LISTEN,		/* listening guest UNIX socket */
	EPOLL_TYPE_VHOST_CMD,		/* vhost-user front-end socket */
	EPOLL_TYPE_VHOST_KICK,		/* vhost-user kick eventfd (queue) */
	EPOLL_TYPE_VHOST_LISTEN,	/* listening vhost-user socket */
	EPOLL_TYPE_TCP,			/* host socket of a TCP flow */
	EPOLL_TYPE_TCP_LISTEN,		/* listening socket, forwarded port */
	EPOLL_TYPE_TCP_SPLICE,		/* one side of a spliced connection */
	EPOLL_TYPE_TCP_SPLICE_LISTEN,	/* -T: listening socket in netns */
	EPOLL_TYPE_UDP,			/* UDP socket */
	EPOLL_TYPE_PING,		/* ICMP echo socket */
	EPOLL_TYPE_TIMER,		/* the timerfd driving the timer wheel */
	EPOLL_TYPE_NSQUIT_INOTIFY,	/* watch for the netns file going away */
	EPOLL_TYPE_NSQUIT_PIDFD,	/* watch for a PID going away */
	EPOLL_TYPE_SIGNAL,		/* signalfd */
	EPOLL_TYPE_CONF_LISTEN,		/* -c: listening configuration socket */
	EPOLL_TYPE_CONF,		/* -c: a configuration client */
	EPOLL_TYPE_MCAST,		/* host socket of a multicast group */
	EPOLL_TYPE_REPAIR_LISTEN,	/* listening socket for passt-repair */
	EPOLL_TYPE_REPAIR,		/* passt-repair's connection */
	EPOLL_TYPE_NEIGH,		/* host neighbour notifications */
	EPOLL_TYPE_FOLLOW,		/* host address, route, link changes */
	EPOLL_TYPE_FOLLOW_RESOLV,	/* host resolver file changes */
	EPOLL_TYPE_MAX,
};

/**
 * union epoll_ref - reference carried in epoll_event.data.u64
 * @type:	enum epoll_type
 * @fd:		file descriptor number
 * @data:	type-specific word (flow index, rule index...)
 * @u64:	the whole reference
 */
union epoll_ref {
	struct {
		uint32_t type:8;
		uint32_t fd:24;
		uint32_t data;
	};
	uint64_t u64;
};

#endif /* UTIL_EPOLL_REF_H */
