/* SPDX-License-Identifier: GPL-2.0-or-later */
/* daemon.h - going to the background, and the PID file
 *
 * Theory of operation: the PID file is opened (created, truncated) at
 * start-up, while we still may, and written once the relay is ready. In
 * the background, the parent waits on a pipe until the child finished
 * set-up and wrote the file (daemon_ready()), or exited: the parent's exit
 * status is then the caller's answer, "configured" or the failure. With
 * -f, the file gets our own PID. /dev/null is opened early too, for the
 * daemon's standard streams, as it may not be reachable after isolation.
 */
#ifndef UTIL_DAEMON_H
#define UTIL_DAEMON_H

#include <sys/types.h>

int daemon_pidfile_open(const char *path);
void daemon_pidfile_write(int fd, pid_t pid);
void daemon_fork(void);
void daemon_ready(int pidfile_fd, pid_t pid);

#endif /* UTIL_DAEMON_H */
