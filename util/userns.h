/* SPDX-License-Identifier: GPL-2.0-or-later */
/* userns.h - which user namespace we are in, and ID maps for a child's
 *
 * Theory of operation: outside the initial user namespace only the IDs in
 * our maps exist, so the --runas default and the maps pasta writes for a
 * namespace it creates must come from them (userns.c).
 */
#ifndef UTIL_USERNS_H
#define UTIL_USERNS_H

#include <stdbool.h>
#include <sys/types.h>

bool userns_initial(void);
unsigned int userns_own_gid_span(void);
int userns_write(pid_t pid, const char *name, const char *s);
unsigned int userns_map_child(pid_t pid, const char *what);

#endif /* UTIL_USERNS_H */
