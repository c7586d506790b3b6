// SPDX-License-Identifier: GPL-2.0-or-later
/* outfile.c - create the files the relay writes: PID file, log, capture
 *
 * Theory of operation
 *
 * The PID file (-P), the log file (-l) and the packet capture (-p) are
 * written at paths the user gives, often in a directory others can write
 * to as well. Whoever got there first may have left a symbolic link to a
 * file of ours, which opening with O_CREAT | O_TRUNC would empty and then
 * overwrite (fs.protected_symlinks only covers sticky directories), or a
 * FIFO, on which the open would block until someone reads it. So:
 *
 * - the last component of the path is never followed (O_NOFOLLOW: a link
 *   there fails with ELOOP); directories on the way are the user's choice;
 * - the open doesn't block (O_NONBLOCK, cleared again afterwards), and
 *   what it opened must be a regular file (else EINVAL), which only then
 *   is emptied (ftruncate(), not O_TRUNC, so that nothing else is);
 * - the descriptor is close-on-exec.
 *
 * All of it runs at start-up, before the sandbox.
 */

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "outfile.h"

/**
 * outfile_open() - create or empty a regular file, not through a link
 * @path:	where
 * @flags:	access mode and flags besides the ones added here (O_WRONLY,
 *		O_RDWR | O_APPEND)
 * @mode:	permissions of a new file (before the umask)
 *
 * Return: descriptor, or negative errno: -ELOOP if @path is a symbolic
 *	   link, -EINVAL if it is something else than a regular file
 */
int outfile_open(const char *path, int flags, mode_t mode)
{
	struct stat st;
	int fd, ret;

	fd = open(path, flags | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
		  mode);
	if (fd < 0)
		return -errno;

	if (fstat(fd, &st)) {
		ret = -errno;
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = -EINVAL;
		goto fail;
	}
	if (ftruncate(fd, 0) || fcntl(fd, F_SETFL, flags & ~O_ACCMODE)) {
		ret = -errno;
		goto fail;
	}
	return fd;

fail:
	close(fd);
	return ret;
}

/**
 * outfile_strerror() - what an error of outfile_open() means
 * @err:	negative errno it returned
 *
 * Return: message, with what to do for the errors it adds
 */
const char *outfile_strerror(int err)
{
	if (err == -ELOOP) {
		return "it is a symbolic link, which is not followed: remove "
		       "it, or give the path it points to";
	}
	if (err == -EINVAL)
		return "it exists and is not a regular file";
	return strerror(-err);
}
