/* SPDX-License-Identifier: GPL-2.0-or-later */
/* guest_sock.h - one guest at a time on a UNIX socket: the lifecycle the
 *		  stream and vhost-user backends share (public to them)
 *
 * Theory of operation: see guest_sock.c.
 */
#ifndef TAP_GUEST_SOCK_H
#define TAP_GUEST_SOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/un.h>

#include "../util/epoll_ref.h"

struct ctx;

/**
 * struct guest_sock_ops - what differs between the backends
 * @peer:	who connects, for messages ("guest")
 * @suffix:	after "Accepted guest connection from PID N" and "UNIX
 *		domain socket bound at PATH" ("" or " (vhost-user)")
 * @hint:	QEMU's options to connect, around the socket path: before
 *		and after it
 * @listen_type: epoll type of the listening socket
 * @conn_refused: the backend's counter of refused connections
 * @fd:		the backend's guest socket, -1 while none is attached (then
 *		connections wait in the backlog); set here on attach, and
 *		back to -1 if that fails
 * @attach:	@fd is a connected, non-blocking socket now: reset the
 *		backend's state for the guest; return its epoll reference
 */
struct guest_sock_ops {
	const char *peer;
	const char *suffix;
	const char *hint[2];
	enum epoll_type listen_type;
	uint64_t *conn_refused;
	int *fd;
	union epoll_ref (*attach)(const struct ctx *c);
};

/**
 * struct guest_sock - a backend's socket toward its guest
 * @ops:	the backend's part
 * @listen_fd:	listening socket, -1 with -F/--fd
 * @listening:	the listening socket is in the epoll set
 * @path:	where it listens
 */
struct guest_sock {
	const struct guest_sock_ops *ops;
	int listen_fd;
	bool listening;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
};

#define GUEST_SOCK_INIT(o)	{ .ops = (o), .listen_fd = -1 }

int guest_sock_init(struct ctx *c, struct guest_sock *gs);
void guest_sock_accept(const struct ctx *c, struct guest_sock *gs);
void guest_sock_gone(const struct ctx *c, struct guest_sock *gs,
		     const char *why, bool away);

#endif /* TAP_GUEST_SOCK_H */
