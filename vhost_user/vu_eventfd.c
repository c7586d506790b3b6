// SPDX-License-Identifier: GPL-2.0-or-later
/* vu_eventfd.c - the front-end's eventfds, signalled without waiting
 *
 * Theory of operation
 *
 * The front-end hands us eventfds with its messages: kick eventfds the
 * guest's notifications come on (we read them, and write them to wake
 * ourselves), call eventfds we interrupt the guest with, and the log
 * eventfd of a migration. A write to an eventfd blocks while its counter
 * is at its maximum (0xfffffffffffffffe) and nobody reads it; a front-end
 * that sets one up that way would hold our main loop for as long as it
 * likes. So:
 *
 * - every such descriptor must be an eventfd (an anonymous inode: on the
 *   device of one we make at start-up) or a pipe, whose writes honour
 *   O_NONBLOCK; anything else is refused (a file on a FUSE file system
 *   the front-end serves blocks whatever the flag says);
 * - it is made non-blocking (the flag belongs to the open file, which the
 *   front-end shares: QEMU's are non-blocking already);
 * - a write that finds the counter full fails at once: for a signal to
 *   the front-end or the guest, it is counted as lost (dev->signals_lost,
 *   logged once per connection, and with the other counters when the
 *   front-end goes). Nothing is lost in fact: a full counter is a pending
 *   signal, which its reader will see.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/stat.h>

#include "vu_dev.h"
#include "../util/log.h"
#include "../util/syscalls.h"

/* System calls after start-up: checking, reading and writing eventfds */
SYSCALLS(SYSCALLS_VU,
	 SYSCALLS_CALL_IF("newfstatat", "is it an eventfd or a pipe?",
			  SYSCALLS_ARG_EQ(3, AT_EMPTY_PATH)),
	 SYSCALLS_CALL_IF("fcntl", "is it non-blocking?",
			  SYSCALLS_ARG_EQ(1, F_GETFL)),
	 SYSCALLS_CALL_IF("fcntl", "make it non-blocking",
			  SYSCALLS_ARG_EQ(1, F_SETFL)),
	 SYSCALLS_CALL("read", "reset a kick eventfd"),
	 SYSCALLS_CALL("write", "signal a call or kick eventfd"));

/* Device of anonymous inodes (eventfds), 0 if unknown */
static dev_t vu_eventfd_dev;

/**
 * vu_eventfd_init() - learn what an eventfd looks like (at start-up)
 */
void vu_eventfd_init(void)
{
	struct stat st;
	int fd;

	fd = eventfd(0, EFD_CLOEXEC);
	if (fd < 0)
		return;
	if (!fstat(fd, &st))
		vu_eventfd_dev = st.st_dev;
	close(fd);
}

/**
 * vu_eventfd_check() - is a descriptor an eventfd we can use? Make it
 *			non-blocking
 * @fd:		descriptor from the front-end
 *
 * Return: 0 if usable, -ENODEV if it is no eventfd or pipe, other
 *	   negative errno if it can't be made non-blocking
 */
int vu_eventfd_check(int fd)
{
	struct stat st;
	int flags;

	/* fstatat(), not fstat(): glibc 2.39 and later make fstat() the
	 * fstat system call, which the filter doesn't list
	 */
	if (fstatat(fd, "", &st, AT_EMPTY_PATH))
		return -errno;
	if (!S_ISFIFO(st.st_mode) &&
	    !(vu_eventfd_dev ? st.st_dev == vu_eventfd_dev :
			       !(st.st_mode & S_IFMT)))
		return -ENODEV;

	flags = fcntl(fd, F_GETFL);
	if (flags < 0)
		return -errno;
	if (!(flags & O_NONBLOCK) && fcntl(fd, F_SETFL, flags | O_NONBLOCK))
		return -errno;
	return 0;
}

/**
 * vu_eventfd_read() - reset an eventfd's counter
 * @fd:		eventfd (non-blocking)
 */
void vu_eventfd_read(int fd)
{
	uint64_t v;

	if (read(fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		debug_perror("vhost-user: can't read eventfd %i", fd);
}

/**
 * vu_eventfd_write() - signal an eventfd, never waiting
 * @fd:		eventfd (non-blocking)
 *
 * Return: true if signalled, false if its counter is full (EAGAIN: it
 *	   is signalled already, the reader has yet to look) or on error
 */
bool vu_eventfd_write(int fd)
{
	uint64_t one = 1;

	if (write(fd, &one, sizeof(one)) >= 0)
		return true;
	if (errno != EAGAIN)
		debug_perror("vhost-user: can't write eventfd %i", fd);
	return false;
}

/**
 * vu_eventfd_signal() - signal the front-end or the guest, count a signal
 *			 that could not be given
 * @dev:	device
 * @fd:		call or log eventfd
 * @what:	which, for the log
 */
void vu_eventfd_signal(struct vu_dev *dev, int fd, const char *what)
{
	if (vu_eventfd_write(fd))
		return;

	if (!dev->signals_lost++) {
		warn("vhost-user: the front-end's %s can't take a signal (its "
		     "counter is full, or it failed): the signal is lost, "
		     "counted as signals lost", what);
	}
}
