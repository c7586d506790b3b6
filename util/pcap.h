/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pcap.h - capture of guest-side frames to a pcap file (-p/--pcap)
 *
 * See util/pcap.c for the theory of operation.
 */
#ifndef UTIL_PCAP_H
#define UTIL_PCAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

/* Longest frame recorded in full: Ethernet, VLAN tag, largest IP packet */
#define PCAP_SNAPLEN		(14 + 4 + 65535)

int pcap_init(const char *path);
bool pcap_active(void);
void pcap_frame(const uint8_t *frame, size_t len);
void pcap_frames(const struct iovec *iov, size_t bufs_per_frame,
		 size_t nframes);

#endif /* UTIL_PCAP_H */
