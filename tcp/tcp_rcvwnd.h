/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tcp_rcvwnd.h - release a window update the kernel holds back
 *
 * Self-contained (system headers only): tests/probes/trunc_hold.c builds
 * with tcp_rcvwnd.c to check it against the running kernel.
 */

#ifndef TCP_RCVWND_H
#define TCP_RCVWND_H

#include <stdbool.h>
#include <stdint.h>

/* A release grows the receive buffer by at most this many of the peer's
 * segments, as buffer memory (the window it offers is twice the peer's
 * leftover window, which is below one segment, and the buffer had room
 * for a segment already), in at most TCP_RCVWND_ROUNDS tries, each asking
 * for twice as much as the one before
 */
#define TCP_RCVWND_RAISE_SEGS	2
#define TCP_RCVWND_ROUNDS	3

/* Results of tcp_rcvwnd_release() */
#define TCP_RCVWND_OPEN		0	/* nothing held back */
#define TCP_RCVWND_RELEASED	1	/* held back, now sent */
#define TCP_RCVWND_HELD		2	/* held back, and still is */
#define TCP_RCVWND_LIMITED	3	/* held by the kernel's own limits */
#define TCP_RCVWND_CAPPED	4	/* held: buffer at net.core.rmem_max */

int tcp_rcvwnd_init(void);
bool tcp_rcvwnd_precise(void);
int tcp_rcvwnd_free(int s, uint32_t consumed, uint32_t *wnd);
int tcp_rcvwnd_release(int s, uint32_t consumed, int peek_off,
		       int user_rcvbuf, uint32_t free_before, bool *raised);
int tcp_rcvwnd_restore(int s, uint32_t consumed, int user_rcvbuf,
		       bool *raised);

#endif /* TCP_RCVWND_H */
