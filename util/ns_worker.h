/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ns_worker.h - run functions inside pasta's target network namespace */
#ifndef UTIL_NS_WORKER_H
#define UTIL_NS_WORKER_H

void ns_target_set(int fd);
int ns_target_fd(void);
int ns_enter_check(void);
int ns_worker_start(void);
void ns_worker_stop(void);
int ns_run(int (*fn)(void *arg), void *arg);

#endif /* UTIL_NS_WORKER_H */
