/* SPDX-License-Identifier: GPL-2.0-or-later */
/* daemon.h - going to the background, and the PID file
 *
 * Theory of operation: the PID file is opened (created, truncated) at
 * start-up, while we still may, and written once the relay is ready: by
 * the parent, with the daemon's PID, just before it exits, so that whoever
 * waits for our exit status finds the file complete; or, with -f, with our
 * own PID. /dev/null is opened early too, for the daemon's standard
 * streams, as it may not be reachable after isolation.
 */
#ifndef UTIL_DAEMON_H
#define UTIL_DAEMON_H

#include <sys/types.h>

int daemon_pidfile_open(const char *path);
void daemon_pidfile_write(int fd, pid_t pid);
void daemon_go_background(int pidfile_fd);

#endif /* UTIL_DAEMON_H */
