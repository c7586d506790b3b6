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
 *
 * Messages that something outside the relay's control can cause at will,
 * once per frame, datagram, connection or request (a guest, a host peer, a
 * vhost-user front-end), are rate-limited per call site: err_rl(),
 * warn_rl(), info_rl() and their _perror_rl() forms keep a small static
 * state where they are written, let LOG_RL_BURST messages through at
 * once, then one every LOG_RL_INTERVAL_MS, and the next message logged
 * after some were held back ends with "(N similar messages suppressed)".
 * Debug and trace messages are never limited: -d and --trace ask for
 * every event.
 */
#ifndef UTIL_LOG_H
#define UTIL_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <syslog.h>
#include <sys/types.h>

#define LOG_SIZE_DEFAULT	(1024 * 1024)
#define LOG_TRACE		(LOG_DEBUG + 1)

#define LOG_RL_BURST		5	/* at once, per call site */
#define LOG_RL_INTERVAL_MS	10000	/* then one per this many ms */

/**
 * struct log_rl - rate limit of one call site (a token bucket, kept as
 *		   the time at which it will be full again)
 * @full_ms:	when the bucket is full again, CLOCK_MONOTONIC ms; each
 *		message logged moves it LOG_RL_INTERVAL_MS later, and no
 *		message is logged while that would put it more than
 *		LOG_RL_BURST intervals ahead of now
 * @suppressed:	messages held back since the last one logged
 */
struct log_rl {
	uint64_t full_ms;
	unsigned long suppressed;
};

/**
 * enum log_rl_verdict - what the rate limit says about one message
 * @LOG_RL_HOLD:	hold it back (counted)
 * @LOG_RL_PASS:	log it
 * @LOG_RL_PASS_LAST:	log it; the next one now would be held back
 */
enum log_rl_verdict {
	LOG_RL_HOLD,
	LOG_RL_PASS,
	LOG_RL_PASS_LAST,
};

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
enum log_rl_verdict log_rl_take(struct log_rl *rl, uint64_t now_ms);
void log_rl_msg(struct log_rl *rl, int prio, bool perr, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
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

/* Rate-limited per call site: each use has its own static state */
#define log_ratelimited(prio, perr, ...)				\
	do {								\
		static struct log_rl log_rl_site_;			\
									\
		log_rl_msg(&log_rl_site_, (prio), (perr), __VA_ARGS__);	\
	} while (0)
#define err_rl(...)	log_ratelimited(LOG_ERR, false, __VA_ARGS__)
#define warn_rl(...)	log_ratelimited(LOG_WARNING, false, __VA_ARGS__)
#define info_rl(...)	log_ratelimited(LOG_INFO, false, __VA_ARGS__)
#define err_perror_rl(...)						\
	log_ratelimited(LOG_ERR, true, __VA_ARGS__)
#define warn_perror_rl(...)						\
	log_ratelimited(LOG_WARNING, true, __VA_ARGS__)

#endif /* UTIL_LOG_H */
