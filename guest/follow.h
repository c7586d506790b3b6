/* SPDX-License-Identifier: GPL-2.0-or-later */
/* follow.h - what was derived from the host, as it follows the host */
#ifndef GUEST_FOLLOW_H
#define GUEST_FOLLOW_H

#include <fcntl.h>
#include <limits.h>
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
int follow_search_count(const struct ctx *c);
const char *follow_search_name(const struct ctx *c, int i);
bool follow_search_changed(void);
void follow_search_set(const struct ctx *c,
		       const char (*search)[SEARCH_LEN_MAX + 1], int count);
bool follow_apply(const struct ctx *c, const struct ip4_ctx *ip4,
		  const struct ip6_ctx *ip6);

/* follow_watch.c */
int follow_watch_init(const struct ctx *c);
void follow_watch_handler(const struct ctx *c);
void follow_watch_kick(void);

/* follow_resolv.c: the resolver file, read by a process of its own
 * (isolation/resolv_reader.c) that sends what it reads
 */

/* Flags of the reader's openat(), exactly: its seccomp rule pins them */
#define FOLLOW_RESOLV_FLAGS	(O_RDONLY | O_CLOEXEC | O_NOFOLLOW |	\
				 O_NONBLOCK | O_NOCTTY)

/**
 * struct follow_resolv_src - the resolver file, for its reader
 * @dirfd:	directory the file is in (O_PATH)
 * @ino:	inotify descriptor, watching that directory
 * @wd:		watch of that directory
 * @wd_link:	watch of CONF_RESOLV_PATH's own directory if it is a link,
 *		-1 if it isn't
 * @name:	file name in @dirfd
 * @link_name:	CONF_RESOLV_PATH's own file name
 * @open_name:	name the reader opens: @name, but in test builds
 */
struct follow_resolv_src {
	int dirfd;
	int ino;
	int wd;
	int wd_link;
	char name[NAME_MAX + 1];
	char link_name[NAME_MAX + 1];
	const char *open_name;
};

/* Messages from the reader: one per datagram, a byte of kind first */
enum follow_resolv_msg {
	FOLLOW_RESOLV_TEXT = 'T',	/* the file's text, CONF_RESOLV_MAX
					 * bytes at most */
	FOLLOW_RESOLV_ERROR = 'E',	/* can't read it: an int, errno */
	FOLLOW_RESOLV_LINK = 'L',	/* CONF_RESOLV_PATH was replaced */
	FOLLOW_RESOLV_OPEN = 'O',	/* no Landlock domain: an int, errno */
};

int follow_resolv_init(const struct ctx *c);
const struct follow_resolv_src *follow_resolv_src(void);
void follow_resolv_attach(const struct ctx *c, int fd);
bool follow_resolv_pending(void);
void follow_resolv_update(const struct ctx *c, struct ip4_ctx *ip4,
			  struct ip6_ctx *ip6);
void follow_resolv_handler(const struct ctx *c);

#endif /* GUEST_FOLLOW_H */
