/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fwd_view.h - the derived configuration, as text for a -c client
 *
 * See fwd/fwd_view.c for the theory of operation.
 */
#ifndef FWD_FWD_VIEW_H
#define FWD_FWD_VIEW_H

#include <stddef.h>

struct ctx;

size_t fwd_view_text(const struct ctx *c, char *buf, size_t size);

#endif /* FWD_FWD_VIEW_H */
