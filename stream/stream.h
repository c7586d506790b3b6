/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stream.h - passt's backend over a UNIX stream socket (QEMU -netdev stream)
 *
 * Theory of operation: see stream.c. main() registers the backend with
 * tap/ at start-up; everything else goes through tap/'s interface.
 */
#ifndef STREAM_STREAM_H
#define STREAM_STREAM_H

void stream_register(void);

#endif /* STREAM_STREAM_H */
