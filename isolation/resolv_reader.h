/* SPDX-License-Identifier: GPL-2.0-or-later */
/* resolv_reader.h - a process of its own reads the host's resolver file */
#ifndef ISOLATION_RESOLV_READER_H
#define ISOLATION_RESOLV_READER_H

#include "../guest/follow.h"

int resolv_reader_spawn(const struct follow_resolv_src *src);

#endif /* ISOLATION_RESOLV_READER_H */
