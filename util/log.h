/* SPDX-License-Identifier: GPL-2.0-or-later */
/* log.h - logging to stderr, syslog or a size-limited file
 *
 * Theory of operation: one process-wide logger. Before the relay goes to
 * the background, messages go to stderr; afterwards to syslog, unless a log
 * file (-l) is set, which is then used in both phases (and, with it,
 * nothing goes to stderr once set-up is over): it starts with a header
 * line naming program, version, binary and PID, and is truncated from the
 * start when it would grow past --log-size. -q drops info messages,
 * -d and --trace enable debug and trace ones.
 */
#ifndef UTIL_LOG_H
#define UTIL_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <syslog.h>
#include <sys/types.h>

#define LOG_SIZE_DEFAULT	(1024 * 1024)
#define LOG_TRACE		(LOG_DEBUG + 1)

void log_init(const char *ident);
void log_set_level(int level);
int log_get_level(void);
int log_open_file(const char *path, size_t max_size, const char *version);
void log_set_pid(pid_t pid);
void log_to_syslog(void);
void log_to_stderr(bool on);

void log_msg(int prio, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void log_perror(int prio, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void die(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));
void die_perror(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));

#define err(...)	log_msg(LOG_ERR, __VA_ARGS__)
#define warn(...)	log_msg(LOG_WARNING, __VA_ARGS__)
#define info(...)	log_msg(LOG_INFO, __VA_ARGS__)
#define debug(...)							\
	do {								\
		if (log_get_level() >= LOG_DEBUG)			\
			log_msg(LOG_DEBUG, __VA_ARGS__);		\
	} while (0)
#define trace(...)							\
	do {								\
		if (log_get_level() >= LOG_TRACE)			\
			log_msg(LOG_TRACE, __VA_ARGS__);		\
	} while (0)
#define err_perror(...)		log_perror(LOG_ERR, __VA_ARGS__)
#define warn_perror(...)	log_perror(LOG_WARNING, __VA_ARGS__)
#define debug_perror(...)	log_perror(LOG_DEBUG, __VA_ARGS__)

#endif /* UTIL_LOG_H */
