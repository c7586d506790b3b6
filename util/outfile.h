/* SPDX-License-Identifier: GPL-2.0-or-later */
/* outfile.h - create the files the relay writes: PID file, log, capture
 *
 * Theory of operation: outfile_open() creates or empties a regular file at
 * a path the user gave, without following a symbolic link there and
 * without blocking on a FIFO; outfile_strerror() explains its errors.
 */
#ifndef UTIL_OUTFILE_H
#define UTIL_OUTFILE_H

#include <sys/types.h>

int outfile_open(const char *path, int flags, mode_t mode);
const char *outfile_strerror(int err);

#endif /* UTIL_OUTFILE_H */
