/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sock.h - host sockets: creation with the relay's usual options, binding */

#ifndef NET_SOCK_H
#define NET_SOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "../util/inany.h"

/* Interface of the namespace's loopback addresses (sock_open_lo()) */
#define SOCK_LO_IFNAME		"lo"

int sock_open(int type, int proto, bool v4, const char *ifname,
	      bool freebind);
int sock_open_lo(int type, int proto, bool v4, union inany_addr *addr);
int sock_bind(int s, const union inany_addr *addr, uint16_t port);
int sock_bind_connect(int s, const union inany_addr *src, uint16_t sport,
		      const union inany_addr *dst, uint16_t dport,
		      uint32_t scope);
int sock_pair_result(int fds[2]);
int sock_pair_missing(int fds[2]);
int sock_pair_missing_close(int fds[2]);

#endif /* NET_SOCK_H */
