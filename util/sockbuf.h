/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sockbuf.h - socket buffer sizes asked for by options */

#ifndef SOCKBUF_H
#define SOCKBUF_H

#include <stdbool.h>

void sockbuf_set(int fd, int opt, int want, const char *option,
		 bool *reported);
void sockbuf_set_quiet(int fd, int opt, int want);

#endif /* SOCKBUF_H */
