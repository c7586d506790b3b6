/* SPDX-License-Identifier: GPL-2.0-or-later */
/* follow.h - what was derived from the host, as it follows the host */
#ifndef GUEST_FOLLOW_H
#define GUEST_FOLLOW_H

#include <stdbool.h>

#include "../conf/ctx.h"

/* Most observers of changes: the namespace's set-up, the guest's side */
#define FOLLOW_OBSERVERS_MAX	4

/**
 * typedef follow_fn - told of a change of the derived settings
 * @c:		execution context
 * @old4:	IPv4 settings before the change (follow_ip4(): after it)
 * @old6:	IPv6 settings before the change
 */
typedef void (*follow_fn)(const struct ctx *c, const struct ip4_ctx *old4,
			  const struct ip6_ctx *old6);

void follow_init(const struct ctx *c);
bool follow_watch_on(void);	/* follow_watch.c */
const struct ip4_ctx *follow_ip4(const struct ctx *c);
const struct ip6_ctx *follow_ip6(const struct ctx *c);
int follow_register(follow_fn fn);
bool follow_retired4(struct in_addr a);
bool follow_retired6(const struct in6_addr *a);
bool follow_apply(const struct ctx *c, const struct ip4_ctx *ip4,
		  const struct ip6_ctx *ip6);

/* follow_watch.c */
int follow_watch_init(const struct ctx *c);
void follow_watch_handler(const struct ctx *c);

#endif /* GUEST_FOLLOW_H */
