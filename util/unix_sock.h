/* SPDX-License-Identifier: GPL-2.0-or-later */
/* unix_sock.h - listening UNIX domain sockets at a path
 *
 * See util/unix_sock.c for the theory of operation.
 */
#ifndef UTIL_UNIX_SOCK_H
#define UTIL_UNIX_SOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

/* Permissions of every socket file the relay creates */
#define UNIX_SOCK_MODE		0600

int unix_sock_probe(const char *path);
int unix_sock_listen(const char *path, int backlog, mode_t mode);
bool unix_sock_peer_ok(int lfd, const struct ucred *peer, uid_t *owner);
int unix_sock_accept(int lfd, int flags, const char *what, struct ucred *cred,
		     uint64_t *refused);
void unix_sock_unlink_ours(void);

#endif /* UTIL_UNIX_SOCK_H */
