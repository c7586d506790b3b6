/* SPDX-License-Identifier: GPL-2.0-or-later */
/* guest.h - what the relay learnt about the guest while it runs */
#ifndef GUEST_GUEST_H
#define GUEST_GUEST_H

#include <stdbool.h>
#include <netinet/in.h>

struct ctx;

void guest_init(const struct ctx *c);
const unsigned char *guest_mac(void);
void guest_mac_set(const unsigned char *mac);
struct in_addr guest_addr4(void);
void guest_addr4_set(struct in_addr a);
const struct in6_addr *guest_addr6(void);
void guest_addr6_set(const struct in6_addr *a);
const struct in6_addr *guest_addr6_ll(void);
void guest_addr6_ll_set(const struct in6_addr *a);

#endif /* GUEST_GUEST_H */
