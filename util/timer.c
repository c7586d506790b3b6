// SPDX-License-Identifier: GPL-2.0-or-later
/* timer.c - one userspace timing wheel driven by one timerfd
 *
 * Theory of operation: time is cut into ticks of TIMER_TICK_MS. The wheel
 * remembers the last tick it processed (timer_tick) and holds three kinds
 * of armed timers, each kind in intrusive doubly linked lists:
 *
 * - the wheel proper: timers due in the revolution that starts at
 *   timer_tick (tick in [timer_tick, timer_tick + TIMER_SLOTS)) hang in
 *   slot (tick % TIMER_SLOTS). Each slot therefore holds timers of exactly
 *   one tick, and a bitmap of non-empty slots (scanned a 64-bit word at a
 *   time with __builtin_ctzll) gives the exact next deadline;
 * - the far list: timers due after that revolution. Its earliest deadline
 *   is tracked as a lower bound (cancelling or moving a far timer does not
 *   raise it: at worst, one early wake-up). When the handler finds the
 *   bound within half a revolution, it re-files the whole list (cascade),
 *   so each far timer is touched about once per half revolution at most;
 * - the due list: timers armed with a deadline before timer_tick (already
 *   late): they run at the next handler call.
 *
 * Arming, re-arming and cancelling are O(1) list operations. The timerfd
 * (CLOCK_MONOTONIC, absolute) is reprogrammed only when a newly armed
 * timer is due before the time it holds, so pushing a deadline later (a
 * retransmission timer on every ACK) costs no system call: the timerfd
 * then fires at the old time, the handler finds nothing to run and
 * programs the new earliest deadline (design.md invariant 4).
 *
 * timer_handler() runs the due list, then walks the slots from the last
 * processed tick to the current one (at most one revolution: a longer gap
 * expires every slot anyway), running every timer whose deadline has
 * passed. A timer is disarmed before its callback runs; callbacks may arm
 * or cancel any timer, including the next one of the walk (the walk keeps
 * a cursor that unlinking moves along). A timer armed by a callback with
 * a passed deadline goes to the due list, or to the head of the slot being
 * walked, and runs at the next handler call (the timerfd is then
 * programmed in the past); only slots still ahead of the walk run in the
 * same call. So a callback re-arming itself runs at most once per tick
 * walked and cannot loop forever.
 *
 * Without an epoll descriptor (unit tests), the wheel works the same with
 * no timerfd and no system calls; timer_reprogram_count() still counts
 * the times the timerfd would have been programmed.
 */

#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>

#include "timer.h"
#include "epoll_ref.h"
#include "idle_trim.h"
#include "log.h"
#include "util.h"
#include "syscalls.h"

/* System calls after start-up: reading and re-arming the timerfd */
SYSCALLS(SYSCALLS_RELAY,
	 SYSCALLS_CALL("read", "expirations of the timerfd"),
	 SYSCALLS_CALL("timerfd_settime", "the timerfd, at the next deadline"),
	 SYSCALLS_CALL("clock_gettime", "the time, if the vDSO can't"));

#define TIMER_WORDS		(TIMER_SLOTS / 64)

_Static_assert(TIMER_SLOTS % 64 == 0, "TIMER_SLOTS: multiple of 64");
_Static_assert((TIMER_SLOTS & (TIMER_SLOTS - 1)) == 0,
	       "TIMER_SLOTS: power of two");
_Static_assert(TIMER_TICK_MS >= 1, "TIMER_TICK_MS: at least 1");

static struct wheel_timer *timer_slot[TIMER_SLOTS];
static uint64_t timer_map[TIMER_WORDS];
static struct wheel_timer *timer_due;
static struct wheel_timer *timer_far;
static uint64_t timer_far_min = UINT64_MAX;
static uint64_t timer_tick;
static uint64_t timer_programmed = UINT64_MAX;
static unsigned int timer_nr;
static unsigned long timer_reprograms;
static int timer_tfd = -1;
static bool timer_in_handler;
static struct wheel_timer *timer_cursor;

/**
 * timer_tick_of() - tick of a time
 * @ms:		time, milliseconds
 *
 * Return: tick number
 */
static inline uint64_t timer_tick_of(uint64_t ms)
{
	return ms / TIMER_TICK_MS;
}

/**
 * timer_tick_end() - last millisecond of a tick
 * @tick:	tick number
 *
 * Return: time, milliseconds (saturated at UINT64_MAX)
 */
static inline uint64_t timer_tick_end(uint64_t tick)
{
	if (tick > (UINT64_MAX - (TIMER_TICK_MS - 1)) / TIMER_TICK_MS)
		return UINT64_MAX;
	return tick * TIMER_TICK_MS + (TIMER_TICK_MS - 1);
}

/**
 * timer_slot_of() - wheel slot of a timer's deadline
 * @t:		timer
 *
 * Return: slot index
 */
static inline unsigned int timer_slot_of(const struct wheel_timer *t)
{
	return (unsigned int)(timer_tick_of(t->expires_ms) % TIMER_SLOTS);
}

/**
 * timer_push() - insert a timer at the head of a list
 * @head:	list head
 * @t:		timer
 */
static void timer_push(struct wheel_timer **head, struct wheel_timer *t)
{
	t->prev = NULL;
	t->next = *head;
	if (*head)
		(*head)->prev = t;
	*head = t;
}

/**
 * timer_place() - file a timer (not linked anywhere) by its deadline
 * @t:		timer, with @expires_ms set
 *
 * Return: the time at which the handler must run for @t, milliseconds
 */
static uint64_t timer_place(struct wheel_timer *t)
{
	uint64_t tick = timer_tick_of(t->expires_ms);
	unsigned int slot;

	if (tick < timer_tick) {
		timer_push(&timer_due, t);
		return t->expires_ms;
	}

	if (tick - timer_tick >= TIMER_SLOTS) {
		timer_push(&timer_far, t);
		timer_far_min = MIN(timer_far_min, t->expires_ms);
		return t->expires_ms;
	}

	slot = (unsigned int)(tick % TIMER_SLOTS);
	timer_push(&timer_slot[slot], t);
	timer_map[slot / 64] |= 1ULL << (slot % 64);
	return timer_tick_end(tick);
}

/**
 * timer_unlink() - take an armed timer out of its list and disarm it
 * @t:		timer
 */
static void timer_unlink(struct wheel_timer *t)
{
	if (timer_cursor == t)
		timer_cursor = t->next;

	if (t->prev) {
		t->prev->next = t->next;
	} else if (timer_due == t) {
		timer_due = t->next;
	} else if (timer_far == t) {
		timer_far = t->next;
	} else {
		unsigned int slot = timer_slot_of(t);

		timer_slot[slot] = t->next;
		if (!t->next)
			timer_map[slot / 64] &= ~(1ULL << (slot % 64));
	}
	if (t->next)
		t->next->prev = t->prev;

	t->next = t->prev = NULL;
	t->armed = false;
	timer_nr--;
}

/**
 * timer_program() - program the timerfd if @ms is before what it holds
 * @ms:		time the handler must run, milliseconds, UINT64_MAX: none
 */
static void timer_program(uint64_t ms)
{
	struct itimerspec its = { 0 };

	if (ms >= timer_programmed)
		return;

	timer_programmed = ms;
	timer_reprograms++;
	if (timer_tfd < 0)
		return;

	its.it_value.tv_sec = (time_t)(ms / 1000);
	its.it_value.tv_nsec = (long)(ms % 1000) * 1000000L;
	if (!its.it_value.tv_sec && !its.it_value.tv_nsec)
		its.it_value.tv_nsec = 1;	/* zero would disarm it */

	if (timerfd_settime(timer_tfd, TFD_TIMER_ABSTIME, &its, NULL)) {
		err_perror("timer: can't program timerfd for %llu ms",
			   (unsigned long long)ms);
		timer_programmed = UINT64_MAX;
	}
}

/**
 * timer_wheel_init() - empty the wheel, create and register the timerfd
 * @c:		execution context (unused)
 * @epollfd:	epoll descriptor to add the timerfd to, negative for none
 *		(no timerfd and no system calls: unit tests)
 *
 * Timers armed before a new call are forgotten. Nothing is logged: on
 * failure, errno is set for the caller's message.
 *
 * Return: 0 on success, negative error code on failure
 */
int timer_wheel_init(const struct ctx *c, int epollfd)
{
	union epoll_ref ref = { .type = EPOLL_TYPE_TIMER };
	struct epoll_event ev = { .events = EPOLLIN };
	int fd, ret;

	(void)c;

	/* Pages of an empty wheel stay untouched until timers hang there */
	idle_trim_zero(timer_slot, sizeof(timer_slot));
	idle_trim_zero(timer_map, sizeof(timer_map));
	timer_due = timer_far = timer_cursor = NULL;
	timer_far_min = timer_programmed = UINT64_MAX;
	timer_nr = 0;
	timer_reprograms = 0;
	timer_in_handler = false;
	timer_tick = 0;

	if (timer_tfd >= 0) {
		close(timer_tfd);
		timer_tfd = -1;
	}

	if (epollfd < 0)
		return 0;

	fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (fd < 0)
		return -errno;

	ref.fd = (uint32_t)fd;
	ev.data.u64 = ref.u64;
	if (epoll_ctl(epollfd, EPOLL_CTL_ADD, fd, &ev)) {
		ret = -errno;
		close(fd);
		errno = -ret;
		return ret;
	}

	timer_tfd = fd;
	timer_tick = timer_tick_of(timer_now_ms());
	return 0;
}

/**
 * timer_init() - set up an unarmed timer
 * @t:		timer
 * @fn:		callback run when it expires
 */
void timer_init(struct wheel_timer *t, timer_fn fn)
{
	t->next = t->prev = NULL;
	t->expires_ms = 0;
	t->fn = fn;
	t->armed = false;
}

/**
 * timer_arm() - arm a timer, or move it if armed, with no system call
 *		 unless it becomes the earliest deadline
 * @t:		timer, set up with timer_init()
 * @expires_ms:	deadline, milliseconds, CLOCK_MONOTONIC
 */
void timer_arm(struct wheel_timer *t, uint64_t expires_ms)
{
	uint64_t when;

	if (t->armed)
		timer_unlink(t);

	t->expires_ms = expires_ms;
	when = timer_place(t);
	t->armed = true;
	timer_nr++;

	if (!timer_in_handler)
		timer_program(when);
}

/**
 * timer_cancel() - disarm a timer, no-op if not armed
 * @t:		timer
 */
void timer_cancel(struct wheel_timer *t)
{
	if (t->armed)
		timer_unlink(t);
}

/**
 * timer_armed() - tell if a timer is armed
 * @t:		timer
 *
 * Return: true if armed
 */
bool timer_armed(const struct wheel_timer *t)
{
	return t->armed;
}

/**
 * timer_cascade() - re-file every far timer against the current tick
 */
static void timer_cascade(void)
{
	struct wheel_timer *t = timer_far, *next;

	timer_far = NULL;
	timer_far_min = UINT64_MAX;
	for (; t; t = next) {
		next = t->next;
		timer_place(t);
	}
}

/**
 * timer_run_list() - run the expired timers of one list
 * @c:		execution context
 * @head:	list head
 * @now_ms:	current time, milliseconds
 */
static void timer_run_list(const struct ctx *c, struct wheel_timer *const *head,
			   uint64_t now_ms)
{
	struct wheel_timer *t = *head;

	while (t) {
		timer_cursor = t->next;
		if (t->expires_ms <= now_ms) {
			timer_unlink(t);
			if (t->fn)
				t->fn(c, t, now_ms);
		}
		t = timer_cursor;
	}
	timer_cursor = NULL;
}

/**
 * timer_bit() - tell if a slot is non-empty
 * @slot:	slot index
 *
 * Return: true if the slot has timers
 */
static inline bool timer_bit(unsigned int slot)
{
	return timer_map[slot / 64] & (1ULL << (slot % 64));
}

/**
 * timer_handler() - run expired timers, program the next wake-up
 * @c:		execution context
 * @now_ms:	current time, milliseconds, CLOCK_MONOTONIC
 */
void timer_handler(const struct ctx *c, uint64_t now_ms)
{
	uint64_t old, end, last, k;
	bool fired = false;

	if (timer_tfd >= 0) {
		uint64_t expirations;
		ssize_t n;

		do
			n = read(timer_tfd, &expirations, sizeof(expirations));
		while (n < 0 && errno == EINTR);

		if (n == (ssize_t)sizeof(expirations))
			fired = true;
		else if (n < 0 && errno != EAGAIN)
			debug_perror("timer: reading timerfd");
	}
	if (fired || timer_programmed <= now_ms)
		timer_programmed = UINT64_MAX;

	timer_in_handler = true;

	old = timer_tick;
	end = MAX(old, timer_tick_of(now_ms));
	timer_tick = end;

	if (timer_far && timer_tick_of(timer_far_min) < end + TIMER_SLOTS / 2)
		timer_cascade();

	timer_run_list(c, &timer_due, now_ms);

	last = end - old >= TIMER_SLOTS ? old + TIMER_SLOTS - 1 : end;
	for (k = old; k <= last; k++) {
		unsigned int slot = (unsigned int)(k % TIMER_SLOTS);

		if (!timer_map[slot / 64]) {
			k |= 63;	/* skip the rest of an empty word */
			continue;
		}
		if (timer_bit(slot))
			timer_run_list(c, &timer_slot[slot], now_ms);
	}

	timer_in_handler = false;
	timer_program(timer_next_deadline());
}

/**
 * timer_map_next() - distance to the next non-empty slot, circularly
 * @from:	slot to start from (included)
 *
 * Return: distance in slots, or -1 if the wheel is empty
 */
static int timer_map_next(unsigned int from)
{
	unsigned int w = from / 64, b = from % 64, i;
	uint64_t word = timer_map[w] & (~0ULL << b);

	if (word)
		return (int)(w * 64 + (unsigned int)__builtin_ctzll(word) - from);

	for (i = 1; i <= TIMER_WORDS; i++) {
		unsigned int wi = (w + i) % TIMER_WORDS, slot;

		word = timer_map[wi];
		if (i == TIMER_WORDS)
			word &= ~(~0ULL << b);
		if (!word)
			continue;

		slot = wi * 64 + (unsigned int)__builtin_ctzll(word);
		return (int)((slot + TIMER_SLOTS - from) % TIMER_SLOTS);
	}

	return -1;
}

/**
 * timer_next_deadline() - when the handler needs to run next
 *
 * Return: a time, milliseconds, not later than the earliest deadline (the
 *	   exact one unless far timers were moved or cancelled), or
 *	   UINT64_MAX if no timer is armed
 */
uint64_t timer_next_deadline(void)
{
	uint64_t next = timer_far ? timer_far_min : UINT64_MAX;
	const struct wheel_timer *t;
	int d;

	for (t = timer_due; t; t = t->next)
		next = MIN(next, t->expires_ms);

	d = timer_map_next((unsigned int)(timer_tick % TIMER_SLOTS));
	if (d >= 0)
		next = MIN(next, timer_tick_end(timer_tick + (uint64_t)d));

	return next;
}

/**
 * timer_now_ms() - current time
 *
 * Return: CLOCK_MONOTONIC time, milliseconds
 */
uint64_t timer_now_ms(void)
{
	struct timespec ts = { 0 };

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/**
 * timer_now_us() - current time, finer
 *
 * Return: CLOCK_MONOTONIC time, microseconds
 */
uint64_t timer_now_us(void)
{
	struct timespec ts = { 0 };

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/**
 * timer_count() - number of armed timers
 *
 * Return: count
 */
unsigned int timer_count(void)
{
	return timer_nr;
}

/**
 * timer_fd() - the timerfd driving the wheel
 *
 * Return: descriptor, -1 if none
 */
int timer_fd(void)
{
	return timer_tfd;
}

/**
 * timer_reprogram_count() - how many times the timerfd was programmed
 *			     since timer_wheel_init() (counted without a
 *			     timerfd too)
 *
 * Return: count
 */
unsigned long timer_reprogram_count(void)
{
	return timer_reprograms;
}

/**
 * timer_programmed_ms() - time the timerfd is programmed for (for tests:
 *			   it never exceeds the earliest armed deadline)
 *
 * Return: milliseconds, CLOCK_MONOTONIC, UINT64_MAX if not programmed
 */
uint64_t timer_programmed_ms(void)
{
	return timer_programmed;
}
