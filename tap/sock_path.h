/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sock_path.h - the UNIX socket passt listens on (private to tap/)
 *
 * Theory of operation: both passt backends (stream/, vhost_user/) listen
 * on the same kind of socket, chosen the same way: the -s path, or the
 * first free /tmp/passt_N.socket. sock_path.c implements the choice, the
 * stale socket check and the bind; guest_sock.c, the only user, the rest
 * of the socket's life.
 */
#ifndef TAP_SOCK_PATH_H
#define TAP_SOCK_PATH_H

#include <stddef.h>

struct ctx;

int tap_sock_listen(struct ctx *c, char *path, size_t size);
int tap_sock_adopt(int fd);

#endif /* TAP_SOCK_PATH_H */
