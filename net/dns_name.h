/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dns_name.h - domain names in DNS wire format, for DHCP, DHCPv6 and NDP */

#ifndef NET_DNS_NAME_H
#define NET_DNS_NAME_H

#include <stddef.h>
#include <stdint.h>

#include "../conf/ctx.h"

/* Encoded search list: every name at its longest, with length bytes */
#define DNS_SEARCH_BUF		(SEARCH_MAX * (SEARCH_LEN_MAX + 2))

size_t dns_name_encode(uint8_t *out, size_t size, const char *name);
size_t dns_search_encode(const struct ctx *c, uint8_t *out, size_t size,
			 size_t ends[SEARCH_MAX]);

#endif /* NET_DNS_NAME_H */
