/* SPDX-License-Identifier: GPL-2.0-or-later */
/* timer.h - one userspace timing wheel driven by one timerfd
 *
 * Theory of operation: every per-flow timer (retransmission, delayed ACK,
 * window update, keepalive, idle timeout) is a struct wheel_timer embedded
 * in the flow's state. Timers hang in a hashed wheel of TIMER_SLOTS slots of
 * TIMER_TICK_MS each (slot = deadline tick modulo slots); a bitmap of
 * non-empty slots finds the next deadline quickly. Arming, re-arming and
 * cancelling are O(1) list operations with no system call: the timerfd is
 * reprogrammed only when a new deadline is earlier than the one it holds
 * (design.md invariant 4). Deadlines further away than one revolution stay
 * in their slot and are skipped until their round comes.
 */
#ifndef UTIL_TIMER_H
#define UTIL_TIMER_H

#include <stdbool.h>
#include <stdint.h>

struct ctx;
struct wheel_timer;

#define TIMER_TICK_MS		1
#define TIMER_SLOTS		4096

/**
 * typedef timer_fn - called when a timer expires (it is then disarmed)
 * @c:		execution context
 * @t:		the timer (use container_of-style arithmetic to find its owner)
 * @now_ms:	current time, milliseconds, CLOCK_MONOTONIC
 */
typedef void (*timer_fn)(const struct ctx *c, struct wheel_timer *t,
			 uint64_t now_ms);

/**
 * struct wheel_timer - a timer embedded in its owner's state
 * @next:	next timer in the slot, NULL if last
 * @prev:	previous timer in the slot, NULL if first
 * @expires_ms:	deadline, milliseconds, CLOCK_MONOTONIC
 * @fn:		expiry callback
 * @armed:	true while linked in the wheel
 */
struct wheel_timer {
	struct wheel_timer *next;
	struct wheel_timer *prev;
	uint64_t expires_ms;
	timer_fn fn;
	bool armed;
};

int timer_wheel_init(const struct ctx *c, int epollfd);
void timer_init(struct wheel_timer *t, timer_fn fn);
void timer_arm(struct wheel_timer *t, uint64_t expires_ms);
void timer_cancel(struct wheel_timer *t);
bool timer_armed(const struct wheel_timer *t);
void timer_handler(const struct ctx *c, uint64_t now_ms);
uint64_t timer_now_ms(void);
uint64_t timer_now_us(void);
uint64_t timer_next_deadline(void);
unsigned int timer_count(void);
int timer_fd(void);
unsigned long timer_reprogram_count(void);
uint64_t timer_programmed_ms(void);

#endif /* UTIL_TIMER_H */
