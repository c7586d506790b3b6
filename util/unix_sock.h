/* SPDX-License-Identifier: GPL-2.0-or-later */
/* unix_sock.h - listening UNIX domain sockets at a path
 *
 * See util/unix_sock.c for the theory of operation.
 */
#ifndef UTIL_UNIX_SOCK_H
#define UTIL_UNIX_SOCK_H

#include <sys/types.h>

int unix_sock_probe(const char *path);
int unix_sock_listen(const char *path, int backlog, mode_t mode);
void unix_sock_unlink_ours(void);

#endif /* UTIL_UNIX_SOCK_H */
