// SPDX-License-Identifier: GPL-2.0-or-later
/* daemon.c - going to the background, and the PID file
 *
 * Theory of operation
 *
 * daemon_pidfile_open() runs early, before privileges are dropped and the
 * filesystem view is taken away: it creates (or empties) the PID file if
 * one was asked for, never through a symbolic link (outfile.c), and also
 * opens /dev/null for later.
 *
 * The exit status of the process that started us must mean "configured":
 * callers such as libvirt and Podman check only that, then read the PID
 * file. But the last steps of set-up (the --runas user, capabilities, the
 * seccomp filter, pasta's thread in the target namespace) can only happen
 * in the process that stays, after the fork: threads don't survive one.
 * So daemon_fork() forks early and the parent waits on a socket pair. The
 * sandbox's namespaces came just before the fork: its PID namespace holds
 * our children only, so the child is the first process in it, and
 * getpid() says 1 there. The parent knows the child's PID as the host sees
 * it and sends it first; the child names it in the log (log_set_pid()) and
 * the PID file. The child starts a new session, finishes set-up, and
 * calls daemon_ready(): it writes that PID to the PID file, points its
 * standard streams to /dev/null and sends one byte, upon which the parent
 * exits with status 0. If the child exits first, its messages have gone
 * to the standard error we share, and the parent exits with its status
 * (1 if it was 0, or if a signal killed it), so that the caller sees the
 * failure. If the parent is gone when the child is ready (whoever started
 * us gave up), nobody will use the relay: it exits.
 */

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "daemon.h"
#include "log.h"
#include "outfile.h"
#include "syscalls.h"

/* System calls after start-up: daemon_ready() runs after the seccomp
 * filter is loaded, as the last step of set-up
 */
SYSCALLS(SYSCALLS_RELAY,
	 SYSCALLS_CALL("dup2|dup3", "standard streams to /dev/null, once"),
	 SYSCALLS_CALL("write", "the PID file; the byte telling the parent"),
	 SYSCALLS_CALL("close", "the PID file, the pipe, /dev/null"));

/* Mode of a new PID file */
#define DAEMON_PIDFILE_MODE	0644
/* Longest PID as text, with newline */
#define DAEMON_PID_STRLEN	24

static int daemon_devnull = -1;		/* /dev/null, opened early */
static int daemon_ready_fd = -1;	/* socket to the waiting parent */
static pid_t daemon_pid;		/* our PID as the host sees it */

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
 * daemon_pidfile_open() - create or empty the PID file
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

	fd = outfile_open(path, O_WRONLY, DAEMON_PIDFILE_MODE);
	if (fd < 0)
		die("can't open PID file %s: %s", path, outfile_strerror(fd));

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
 * daemon_parent_wait() - the parent: wait for the child to be ready, exit
 * @pid:	the child
 * @fd:		our end of the socket pair
 */
static void __attribute__((noreturn)) daemon_parent_wait(pid_t pid, int fd)
{
	sigset_t none;
	ssize_t n;
	int status;
	char b;

	/* Let whoever started us stop us while we wait (SIGTERM, SIGINT) */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);

	/* If this fails, the child is gone: its status says why */
	do
		n = send(fd, &pid, sizeof(pid), MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);

	do
		n = read(fd, &b, 1);
	while (n < 0 && errno == EINTR);
	if (n == 1)
		_exit(EXIT_SUCCESS);

	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			err_perror("set-up failed in the background process "
				   "(PID %i), and its status is unknown",
				   (int)pid);
			_exit(EXIT_FAILURE);
		}
	}

	if (WIFEXITED(status) && WEXITSTATUS(status))
		_exit(WEXITSTATUS(status));
	if (WIFSIGNALED(status)) {
		err("set-up failed: the background process (PID %i) was "
		    "killed by signal %i (%s)", (int)pid, WTERMSIG(status),
		    strsignal(WTERMSIG(status)));
	} else {
		err("set-up did not complete: the background process (PID "
		    "%i) exited with status 0 before it was ready", (int)pid);
	}
	_exit(EXIT_FAILURE);
}

/**
 * daemon_child_pid() - the child: read our PID as the parent sees it
 * @fd:		our end of the socket pair
 *
 * Exits if the parent is gone before it told us.
 */
static void daemon_child_pid(int fd)
{
	ssize_t n;
	pid_t pid;

	do
		n = read(fd, &pid, sizeof(pid));
	while (n < 0 && errno == EINTR);

	if (n != (ssize_t)sizeof(pid) || pid <= 0) {
		err("the process that started us is gone, exiting");
		exit(EXIT_FAILURE);
	}
	daemon_pid = pid;
}

/**
 * daemon_fork() - fork; the parent waits until the child is ready, or ends
 *
 * Returns in the child only, which leads a new session and must call
 * daemon_ready() once set-up is over. Exits if fork() fails.
 */
void daemon_fork(void)
{
	int fds[2];
	pid_t pid;

	daemon_devnull_open();

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds))
		die_perror("can't create a socket pair to go to the "
			   "background");

	/* Buffered output would be written twice, by parent and child */
	fflush(NULL);

	pid = fork();
	if (pid < 0)
		die_perror("can't fork to go to the background");

	if (pid) {
		close(fds[1]);
		daemon_parent_wait(pid, fds[0]);
	}

	close(fds[0]);
	daemon_ready_fd = fds[1];
	daemon_child_pid(daemon_ready_fd);
	log_set_pid(daemon_pid);

	if (setsid() < 0)
		debug_perror("can't start a new session");
}

/**
 * daemon_ready() - set-up is over: PID file, standard streams, tell parent
 * @pidfile_fd:	PID file from daemon_pidfile_open(), -1 for none
 * @pid:	our PID, for the file (getpid() is not allowed any more)
 *
 * Exits if the parent is gone: nobody waits for the relay any longer.
 */
void daemon_ready(int pidfile_fd, pid_t pid)
{
	const char b = 1;

	daemon_pidfile_write(pidfile_fd, daemon_pid ? daemon_pid : pid);

	if (daemon_devnull >= 0) {
		if (dup2(daemon_devnull, STDIN_FILENO) < 0 ||
		    dup2(daemon_devnull, STDOUT_FILENO) < 0 ||
		    dup2(daemon_devnull, STDERR_FILENO) < 0)
			debug_perror("can't redirect standard streams to "
				     "/dev/null");
		close(daemon_devnull);
		daemon_devnull = -1;
	}

	if (daemon_ready_fd < 0)
		return;

	if (write(daemon_ready_fd, &b, 1) != 1) {
		err_perror("the process that started us is gone, exiting");
		exit(EXIT_FAILURE);
	}
	close(daemon_ready_fd);
	daemon_ready_fd = -1;
}
