/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vhost_user.h - passt's vhost-user backend (passt --vhost-user)
 *
 * Theory of operation: see vhost_user.c. main() registers the backend with
 * tap/ at start-up; everything else goes through tap/'s interface.
 */
#ifndef VHOST_USER_VHOST_USER_H
#define VHOST_USER_VHOST_USER_H

void vu_register(void);

#endif /* VHOST_USER_VHOST_USER_H */
