// SPDX-License-Identifier: GPL-2.0-or-later
/* daemon.c - going to the background, and the PID file
 *
 * Theory of operation
 *
 * daemon_pidfile_open() runs early, before privileges are dropped and the
 * filesystem view is taken away: it creates (or truncates) the PID file if
 * one was asked for, and also opens /dev/null for later.
 *
 * daemon_go_background() runs once the relay is ready to work, so that the
 * exit status of the process that started us means "configured". It forks;
 * the parent writes the child's PID to the PID file, then exits with
 * status 0 without running exit handlers (they belong to the child now).
 * Writing the PID in the parent closes a race: callers such as libvirt and
 * Podman read the file as soon as we exit. The child starts a new session,
 * detaching from the terminal, and points its standard streams to
 * /dev/null.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon.h"
#include "log.h"

/* Mode of a new PID file */
#define DAEMON_PIDFILE_MODE	0644
/* Longest PID as text, with newline */
#define DAEMON_PID_STRLEN	24

static int daemon_devnull = -1;		/* /dev/null, opened early */

/**
 * daemon_devnull_open() - open /dev/null, once
 */
static void daemon_devnull_open(void)
{
	if (daemon_devnull >= 0)
		return;

	daemon_devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (daemon_devnull < 0)
		debug_perror("can't open /dev/null");
}

/**
 * daemon_pidfile_open() - create or truncate the PID file
 * @path:	PID file, NULL or empty if none was asked for
 *
 * Call it before dropping privileges: it also opens /dev/null for
 * daemon_go_background(). Exits if the file can't be opened.
 *
 * Return: descriptor of the PID file, -1 if there is none
 */
int daemon_pidfile_open(const char *path)
{
	int fd;

	daemon_devnull_open();

	if (!path || !*path)
		return -1;

	fd = open(path, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC,
		  DAEMON_PIDFILE_MODE);
	if (fd < 0)
		die_perror("can't open PID file %s", path);

	return fd;
}

/**
 * daemon_pidfile_write() - write a PID to the PID file, then close it
 * @fd:		PID file descriptor, -1 for none (then nothing happens)
 * @pid:	PID to write
 */
void daemon_pidfile_write(int fd, pid_t pid)
{
	char buf[DAEMON_PID_STRLEN];
	size_t len, off = 0;
	int n;

	if (fd < 0)
		return;

	n = snprintf(buf, sizeof(buf), "%i\n", (int)pid);
	if (n < 0)
		n = 0;
	len = (size_t)n;

	while (off < len) {
		ssize_t w = write(fd, buf + off, len - off);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			warn_perror("can't write PID file");
			break;
		}
		off += (size_t)w;
	}

	close(fd);
}

/**
 * daemon_go_background() - fork; the parent writes the PID file and exits
 * @pidfile_fd:	PID file from daemon_pidfile_open(), -1 for none
 *
 * Returns in the child only, which leads a new session with its standard
 * streams on /dev/null. Exits if fork() fails.
 */
void daemon_go_background(int pidfile_fd)
{
	pid_t pid;

	daemon_devnull_open();

	/* Buffered output would be written twice, by parent and child */
	fflush(NULL);

	pid = fork();
	if (pid < 0)
		die_perror("can't fork to go to the background");

	if (pid) {
		daemon_pidfile_write(pidfile_fd, pid);
		_exit(EXIT_SUCCESS);
	}

	if (pidfile_fd >= 0)
		close(pidfile_fd);

	if (setsid() < 0)
		debug_perror("can't start a new session");

	if (daemon_devnull < 0) {
		debug("no /dev/null: standard streams stay as they are");
		return;
	}

	if (dup2(daemon_devnull, STDIN_FILENO) < 0 ||
	    dup2(daemon_devnull, STDOUT_FILENO) < 0 ||
	    dup2(daemon_devnull, STDERR_FILENO) < 0)
		debug_perror("can't redirect standard streams to /dev/null");

	close(daemon_devnull);
	daemon_devnull = -1;
}
