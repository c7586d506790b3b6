/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bridge.h - what the "guest without a VM" tools share (tests/tools/lib/)
 *
 * Theory of operation: tap_bridge (QEMU's -netdev stream framing) and
 * vu_bridge (a vhost-user front-end) both make a namespace's kernel the
 * guest of the relay: they create a tap device in the namespace they run
 * in, connect to the relay's UNIX socket, and move frames between the
 * two. This is the part that does not depend on the protocol: messages,
 * time, option values, the tap device, connecting, and the injection
 * socket through which a test sends frames no tap device can carry
 * (shorter than an Ethernet header, longer than the largest frame)
 * straight to the relay.
 */
#ifndef TESTS_TOOLS_LIB_BRIDGE_H
#define TESTS_TOOLS_LIB_BRIDGE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Largest frame a test may inject: a datagram on the injection socket */
#define BRIDGE_INJECT_MAX	(256 * 1024)

extern const char *bridge_name;

void __attribute__((noreturn)) bridge_fail(const char *what,
					   const char *arg);
long long bridge_now_ms(void);
long long bridge_parse_num(const char *opt, const char *arg);
int bridge_tap_open(const char *name, size_t vnet_hdr_len,
		    unsigned int offloads);
int bridge_connect(const char *path, int wait_s);
int bridge_inject_open(const char *path);
ssize_t bridge_inject_recv(int fd, void *buf);

#endif /* TESTS_TOOLS_LIB_BRIDGE_H */
