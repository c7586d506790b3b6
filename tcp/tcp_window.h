/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tcp_window.h - constants of the window offered to the guest
 *
 * Shared with the kernel probes in tests/probes/, which check that the
 * kernel behaves as these numbers assume.
 */

#ifndef TCP_WINDOW_H
#define TCP_WINDOW_H

/* Below this fraction of the send buffer free, wait for EPOLLOUT to update
 * the guest's window
 */
#define TCP_WND_LOW_FRACTION	4

/* Share of free send buffer memory not offered to the guest (1/8): the
 * kernel charges buffer overhead (struct sk_buff, page rounding) to the
 * same budget as the payload
 */
#define TCP_WND_OVERHEAD_DIV	8

#endif /* TCP_WINDOW_H */
