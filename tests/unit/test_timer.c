// SPDX-License-Identifier: GPL-2.0-or-later
/* test_timer.c - unit tests for the timing wheel (util/timer.c)
 *
 * Theory of operation: the wheel runs without a timerfd (epollfd -1) on a
 * simulated clock. Random arm/re-arm/cancel sequences are checked against
 * a reference model: timers fire never early, never more than one tick
 * late when the handler runs every tick, in deadline order, exactly once;
 * counts match; and the time the timerfd would be programmed for never
 * passes the earliest armed deadline (no lost wake-up). One test uses a
 * real timerfd in an epoll set.
 */

#include <check.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>

#include "../../util/timer.h"
#include "../../util/epoll_ref.h"

#define NT		256

/* ck_assert() writes to a file on every call: too slow for hot loops */
#define CHECK(cond, ...)						\
	do {								\
		if (!(cond))						\
			ck_abort_msg(__VA_ARGS__);			\
	} while (0)
#define CB_OPS_MAX	3

/**
 * struct tt - a test timer with its reference model state
 * @t:		the timer
 * @m_exp:	model: deadline
 * @fired_at:	time of the last firing
 * @period:	for self-re-arming timers, 0 otherwise
 * @peer:	timers cancelled by cancel_cb()
 * @fired:	number of times fired
 * @m_armed:	model: armed
 * @past:	armed with a deadline already passed (may fire late)
 * @cb_armed:	armed by a callback during the current handler call
 * @cancelled:	cancelled by a callback
 */
struct tt {
	struct wheel_timer t;
	uint64_t m_exp;
	uint64_t fired_at;
	uint64_t period;
	struct tt *peer[2];
	unsigned int fired;
	bool m_armed;
	bool past;
	bool cb_armed;
	bool cancelled;
};

static struct tt tts[NT];
static uint64_t rng_state;
static uint64_t sim_now;
static uint64_t last_fired_exp;
static bool cb_random_ops;
static unsigned int fires_this_call;

/**
 * rnd() - xorshift64* pseudo-random numbers
 *
 * Return: next number
 */
static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

/**
 * tt_of() - the test timer containing a wheel timer
 * @t:		wheel timer
 *
 * Return: containing struct tt
 */
static struct tt *tt_of(struct wheel_timer *t)
{
	return (struct tt *)(void *)((char *)t - offsetof(struct tt, t));
}

/**
 * model_arm() - arm a test timer and record it in the model
 * @x:		test timer
 * @exp:	deadline
 * @in_cb:	called from a callback
 */
static void model_arm(struct tt *x, uint64_t exp, bool in_cb)
{
	x->m_armed = true;
	x->m_exp = exp;
	x->past = exp < sim_now;
	x->cb_armed = in_cb;
	timer_arm(&x->t, exp);
	CHECK(timer_armed(&x->t), "armed timer reported unarmed");
}

/**
 * model_cancel() - cancel a test timer in the wheel and the model
 * @x:		test timer
 */
static void model_cancel(struct tt *x)
{
	x->m_armed = false;
	timer_cancel(&x->t);
	CHECK(!timer_armed(&x->t), "cancelled timer reported armed");
}

/**
 * random_deadline() - a deadline around now: past, near, far
 * @now:	current time
 *
 * Return: deadline
 */
static uint64_t random_deadline(uint64_t now)
{
	switch (rnd() % 8) {
	case 0:
		return now - rnd() % 5;			/* past or now */
	case 1:
		return now + rnd() % (3 * TIMER_SLOTS);	/* beyond a turn */
	case 2:
		return now + TIMER_SLOTS - 2 + rnd() % 4; /* edge of a turn */
	default:
		return now + rnd() % 300;
	}
}

/**
 * random_op() - arm, re-arm or cancel a random timer
 * @in_cb:	called from a callback
 */
static void random_op(bool in_cb)
{
	struct tt *x = &tts[rnd() % NT];

	if (rnd() % 4 == 0)
		model_cancel(x);
	else
		model_arm(x, random_deadline(sim_now), in_cb);
}

/**
 * model_cb() - callback of test timers: checks, then maybe random ops
 * @c:		context (unused)
 * @t:		timer
 * @now:	current time
 */
static void model_cb(const struct ctx *c, struct wheel_timer *t, uint64_t now)
{
	struct tt *x = tt_of(t);
	int i, n;

	(void)c;
	CHECK(now == sim_now, "callback time differs from handler time");
	CHECK(x->m_armed, "fired a timer that is not armed");
	CHECK(!timer_armed(t), "timer armed in its callback");
	CHECK(t->expires_ms == x->m_exp, "deadline differs from model");
	CHECK(x->m_exp <= now, "fired early: %llu at %llu",
		      (unsigned long long)x->m_exp, (unsigned long long)now);
	if (!x->past && !x->cb_armed) {
		CHECK(now - x->m_exp <= TIMER_TICK_MS,
			      "fired late: %llu at %llu",
			      (unsigned long long)x->m_exp,
			      (unsigned long long)now);
		CHECK(x->m_exp >= last_fired_exp,
			      "out of order: %llu after %llu",
			      (unsigned long long)x->m_exp,
			      (unsigned long long)last_fired_exp);
		last_fired_exp = x->m_exp;
	}
	x->m_armed = false;
	x->fired++;
	x->fired_at = now;
	fires_this_call++;

	if (!cb_random_ops)
		return;
	n = (int)(rnd() % (CB_OPS_MAX + 1));
	for (i = 0; i < n; i++)
		random_op(true);
	if (rnd() % 8 == 0)
		model_arm(x, now + rnd() % 50, true);	/* re-arm self */
}

/**
 * model_check() - compare the wheel with the model outside the handler
 * @after_handler:	the handler just ran at sim_now
 */
static void model_check(bool after_handler)
{
	uint64_t min = UINT64_MAX;
	unsigned int n = 0, i;

	for (i = 0; i < NT; i++) {
		struct tt *x = &tts[i];

		CHECK(x->m_armed == timer_armed(&x->t),
		      "timer %u: armed state differs from model", i);
		if (!x->m_armed)
			continue;
		n++;
		min = x->m_exp < min ? x->m_exp : min;
		if (after_handler && !x->cb_armed)
			CHECK(x->m_exp > sim_now,
				      "timer %u due %llu not fired at %llu", i,
				      (unsigned long long)x->m_exp,
				      (unsigned long long)sim_now);
	}
	CHECK(timer_count() == n, "count %u, model %u", timer_count(), n);

	if (min == UINT64_MAX)
		return;
	min = min / TIMER_TICK_MS * TIMER_TICK_MS + TIMER_TICK_MS - 1;
	CHECK(timer_programmed_ms() <= min,
		      "lost wake-up: programmed %llu, earliest deadline %llu",
		      (unsigned long long)timer_programmed_ms(),
		      (unsigned long long)min);
	CHECK(timer_next_deadline() <= min, "next deadline after earliest");
}

/**
 * run_handler() - run the handler at sim_now, reset per-call state
 */
static void run_handler(void)
{
	unsigned int i;

	last_fired_exp = 0;
	fires_this_call = 0;
	timer_handler(NULL, sim_now);
	model_check(true);
	for (i = 0; i < NT; i++)
		tts[i].cb_armed = false;
}

/**
 * setup_model() - empty wheel without timerfd, fresh test timers
 * @seed:	random seed
 * @start:	simulated start time
 */
static void setup_model(uint64_t seed, uint64_t start)
{
	unsigned int i;

	rng_state = seed;
	sim_now = start;
	cb_random_ops = false;
	ck_assert_int_eq(timer_wheel_init(NULL, -1), 0);
	ck_assert_int_eq(timer_fd(), -1);
	for (i = 0; i < NT; i++) {
		memset(&tts[i], 0, sizeof(tts[i]));
		timer_init(&tts[i].t, model_cb);
	}
}

START_TEST(test_random_every_tick)
{
	uint64_t seed = 0x9e3779b97f4a7c15ULL + (uint64_t)_i;
	unsigned int step, i;

	setup_model(seed, _i ? 1000000 : 5);
	cb_random_ops = _i % 2;

	for (step = 0; step < 20000; step++) {
		unsigned int ops = (unsigned int)(rnd() % 4);

		for (i = 0; i < ops; i++)
			random_op(false);
		model_check(false);
		run_handler();
		sim_now++;
	}
}
END_TEST

START_TEST(test_random_event_driven)
{
	uint64_t seed = 0x1234567ULL * ((uint64_t)_i + 1);
	unsigned int step, idle = 0, wakeups = 0;

	setup_model(seed, 777777);
	cb_random_ops = true;

	for (step = 0; step < 20000; step++) {
		uint64_t next_op = sim_now + 1 + rnd() % 2000;
		uint64_t p = timer_programmed_ms();

		if (p <= next_op) {
			/* The timerfd fires: run the handler at that time */
			if (p > sim_now)
				sim_now = p;
			run_handler();
			wakeups++;
			idle = fires_this_call ? 0 : idle + 1;
			ck_assert_msg(idle < 3, "busy loop at %llu",
				      (unsigned long long)sim_now);
			continue;
		}

		sim_now = next_op;
		random_op(false);
		model_check(false);
	}
	ck_assert_uint_gt(wakeups, 0);
}
END_TEST

START_TEST(test_rearm_later_no_syscall)
{
	unsigned long base;
	unsigned int i;

	setup_model(1, 10000);
	timer_handler(NULL, sim_now);

	model_arm(&tts[0], sim_now + 100, false);
	base = timer_reprogram_count();
	ck_assert_uint_eq(base, 1);
	ck_assert_uint_eq(timer_programmed_ms(), sim_now + 100);

	for (i = 1; i <= 100000; i++)
		model_arm(&tts[0], sim_now + 100 + i, false);
	ck_assert_uint_eq(timer_reprogram_count(), base);

	/* Others armed later: no reprogramming either */
	for (i = 1; i < NT; i++)
		model_arm(&tts[i], sim_now + 200 + i, false);
	ck_assert_uint_eq(timer_reprogram_count(), base);
	ck_assert_uint_eq(timer_count(), NT);

	/* Cancelling costs nothing */
	model_cancel(&tts[5]);
	ck_assert_uint_eq(timer_reprogram_count(), base);

	/* Earlier than the programmed time: one reprogramming */
	model_arm(&tts[1], sim_now + 50, false);
	ck_assert_uint_eq(timer_reprogram_count(), base + 1);
	ck_assert_uint_eq(timer_programmed_ms(), sim_now + 50);
	model_check(false);
}
END_TEST

/**
 * periodic_cb() - re-arms itself every @period ms
 * @c:		context (unused)
 * @t:		timer
 * @now:	current time
 */
static void periodic_cb(const struct ctx *c, struct wheel_timer *t,
			uint64_t now)
{
	struct tt *x = tt_of(t);

	(void)c;
	CHECK(now == t->expires_ms, "periodic timer late or early");
	x->fired++;
	timer_arm(t, now + x->period);
}

START_TEST(test_periodic_self_rearm)
{
	uint64_t start = 50000, t;
	unsigned int wakeups = 0;

	setup_model(2, start);
	timer_init(&tts[0].t, periodic_cb);
	timer_init(&tts[1].t, periodic_cb);
	tts[0].period = 7;
	tts[1].period = 5000;	/* longer than a revolution */
	timer_arm(&tts[0].t, start + 7);
	timer_arm(&tts[1].t, start + 5000);

	for (t = start; t <= start + 100000; t++)
		timer_handler(NULL, t);
	ck_assert_uint_eq(tts[0].fired, 100000 / 7);
	ck_assert_uint_eq(tts[1].fired, 100000 / 5000);
	ck_assert_uint_eq(timer_count(), 2);

	/* Event driven: wake only when programmed */
	setup_model(3, start);
	timer_init(&tts[1].t, periodic_cb);
	tts[1].period = 3 * TIMER_SLOTS + 11;
	timer_arm(&tts[1].t, start + tts[1].period);
	sim_now = start;
	while (sim_now < start + 100 * tts[1].period) {
		sim_now = timer_programmed_ms();
		timer_handler(NULL, sim_now);
		wakeups++;
	}
	ck_assert_uint_eq(tts[1].fired, 100);
	/* At most a cascade wake-up per fire, plus the fire itself */
	ck_assert_uint_le(wakeups, 2 * 100);
}
END_TEST

/**
 * self_now_cb() - re-arms itself at the current time
 * @c:		context (unused)
 * @t:		timer
 * @now:	current time
 */
static void self_now_cb(const struct ctx *c, struct wheel_timer *t,
			uint64_t now)
{
	(void)c;
	tt_of(t)->fired++;
	timer_arm(t, now);
}

START_TEST(test_rearm_self_now_no_loop)
{
	setup_model(4, 1000);
	timer_init(&tts[0].t, self_now_cb);
	timer_arm(&tts[0].t, 1000);
	timer_handler(NULL, 1000);
	ck_assert_uint_eq(tts[0].fired, 1);
	ck_assert(timer_armed(&tts[0].t));
	ck_assert_uint_le(timer_programmed_ms(), 1000);
	timer_handler(NULL, 1000);
	ck_assert_uint_eq(tts[0].fired, 2);
	/* Walks ticks 1000 and 1001: at most once per tick */
	timer_handler(NULL, 1001);
	ck_assert_uint_ge(tts[0].fired, 3);
	ck_assert_uint_le(tts[0].fired, 4);
}
END_TEST

/**
 * count_cb() - counts firings
 * @c:		context (unused)
 * @t:		timer
 * @now:	current time
 */
static void count_cb(const struct ctx *c, struct wheel_timer *t, uint64_t now)
{
	(void)c;
	CHECK(!tt_of(t)->cancelled, "cancelled timer fired");
	tt_of(t)->fired++;
	tt_of(t)->fired_at = now;
}

/**
 * cancel_cb() - counts firings, cancels the timers in @peer
 * @c:		context (unused)
 * @t:		timer
 * @now:	current time
 */
static void cancel_cb(const struct ctx *c, struct wheel_timer *t, uint64_t now)
{
	struct tt *x = tt_of(t);
	unsigned int i;

	count_cb(c, t, now);
	for (i = 0; i < 2; i++) {
		if (!x->peer[i])
			continue;
		x->peer[i]->cancelled = true;
		timer_cancel(&x->peer[i]->t);
	}
}

START_TEST(test_cancel_in_callback)
{
	unsigned int i, fired = 0;

	/* Six timers in one slot, each cancelling both neighbours: whatever
	 * the order, the first one cancels the next one of the walk
	 */
	setup_model(5, 2000);
	for (i = 0; i < 6; i++) {
		timer_init(&tts[i].t, cancel_cb);
		tts[i].peer[0] = &tts[(i + 5) % 6];
		tts[i].peer[1] = &tts[(i + 1) % 6];
		timer_arm(&tts[i].t, 2010);
	}
	timer_handler(NULL, 2010);
	for (i = 0; i < 6; i++) {
		ck_assert(tts[i].fired || tts[i].cancelled);
		ck_assert(!timer_armed(&tts[i].t));
		fired += tts[i].fired;
	}
	ck_assert_uint_ge(fired, 2);
	ck_assert_uint_le(fired, 3);
	ck_assert_uint_eq(timer_count(), 0);

	/* Cancel a timer of a later slot, due in the same handler call */
	setup_model(7, 2000);
	timer_init(&tts[0].t, cancel_cb);
	timer_init(&tts[1].t, count_cb);
	tts[0].peer[0] = &tts[1];
	timer_arm(&tts[0].t, 2030);
	timer_arm(&tts[1].t, 2031);
	timer_handler(NULL, 2040);
	ck_assert_uint_eq(tts[0].fired, 1);
	ck_assert_uint_eq(tts[1].fired, 0);
	ck_assert_uint_eq(timer_count(), 0);

	/* Cancel a timer that is not due: it must not fire later */
	setup_model(10, 2000);
	timer_init(&tts[0].t, cancel_cb);
	timer_init(&tts[1].t, count_cb);
	tts[0].peer[0] = &tts[1];
	timer_arm(&tts[0].t, 2030);
	timer_arm(&tts[1].t, 2000 + 2 * TIMER_SLOTS);
	timer_handler(NULL, 2030);
	timer_handler(NULL, 2000 + 3 * TIMER_SLOTS);
	ck_assert_uint_eq(tts[1].fired, 0);
	ck_assert_uint_eq(timer_count(), 0);
}
END_TEST

START_TEST(test_far_and_past)
{
	uint64_t start = 123456, t, d;

	setup_model(8, start);
	timer_init(&tts[0].t, count_cb);
	timer_init(&tts[1].t, count_cb);
	timer_init(&tts[2].t, count_cb);
	timer_handler(NULL, start);

	d = start + 5 * TIMER_SLOTS + 3;
	timer_arm(&tts[0].t, d);
	timer_arm(&tts[1].t, start + TIMER_SLOTS);	/* just outside */
	ck_assert_uint_le(timer_next_deadline(), start + TIMER_SLOTS);
	for (t = start; t < d; t++) {
		timer_handler(NULL, t);
		CHECK(!tts[0].fired, "far timer fired early at %llu",
		      (unsigned long long)t);
	}
	ck_assert_uint_eq(tts[1].fired, 1);
	ck_assert_uint_eq(tts[1].fired_at, start + TIMER_SLOTS);
	timer_handler(NULL, d);
	ck_assert_uint_eq(tts[0].fired, 1);
	ck_assert_uint_eq(tts[0].fired_at, d);

	/* A deadline in the past fires at the next handler call */
	timer_arm(&tts[2].t, d - 100);
	ck_assert_uint_le(timer_programmed_ms(), d - 100);
	timer_handler(NULL, d);
	ck_assert_uint_eq(tts[2].fired, 1);

	/* A long gap between handler calls expires everything due */
	timer_arm(&tts[0].t, d + 10);
	timer_arm(&tts[1].t, d + 3 * TIMER_SLOTS);
	timer_arm(&tts[2].t, d + 100 * TIMER_SLOTS);
	timer_handler(NULL, d + 50 * TIMER_SLOTS);
	ck_assert_uint_eq(tts[0].fired, 2);
	ck_assert_uint_eq(tts[1].fired, 2);
	ck_assert_uint_eq(tts[2].fired, 1);
	ck_assert_uint_eq(timer_count(), 1);
	ck_assert_uint_le(timer_next_deadline(), d + 100 * TIMER_SLOTS);
	timer_handler(NULL, d + 100 * TIMER_SLOTS);
	ck_assert_uint_eq(tts[2].fired, 2);
	ck_assert_uint_eq(timer_count(), 0);
	ck_assert_uint_eq(timer_next_deadline(), UINT64_MAX);
}
END_TEST

START_TEST(test_counts_and_idempotence)
{
	setup_model(9, 0);
	ck_assert_uint_eq(timer_count(), 0);
	ck_assert_uint_eq(timer_next_deadline(), UINT64_MAX);
	timer_cancel(&tts[0].t);	/* not armed: no-op */
	ck_assert_uint_eq(timer_count(), 0);
	timer_arm(&tts[0].t, 10);
	timer_arm(&tts[0].t, 20);	/* move, not a second timer */
	ck_assert_uint_eq(timer_count(), 1);
	ck_assert_uint_eq(timer_next_deadline(), 20);
	timer_arm(&tts[1].t, 15);
	ck_assert_uint_eq(timer_count(), 2);
	ck_assert_uint_eq(timer_next_deadline(), 15);
	timer_cancel(&tts[1].t);
	timer_cancel(&tts[1].t);
	ck_assert_uint_eq(timer_count(), 1);
	ck_assert_uint_eq(timer_next_deadline(), 20);
	timer_cancel(&tts[0].t);
	ck_assert_uint_eq(timer_count(), 0);
}
END_TEST

START_TEST(test_real_timerfd)
{
	struct epoll_event ev;
	union epoll_ref ref;
	uint64_t start;
	int epfd, n;

	epfd = epoll_create1(EPOLL_CLOEXEC);
	ck_assert_int_ge(epfd, 0);
	ck_assert_int_eq(timer_wheel_init(NULL, epfd), 0);
	ck_assert_int_ge(timer_fd(), 0);

	memset(&tts[0], 0, sizeof(tts[0]));
	timer_init(&tts[0].t, count_cb);
	start = timer_now_ms();
	timer_arm(&tts[0].t, start + 20);

	n = epoll_wait(epfd, &ev, 1, 2000);
	ck_assert_int_eq(n, 1);
	ref.u64 = ev.data.u64;
	ck_assert_int_eq(ref.type, EPOLL_TYPE_TIMER);
	ck_assert_int_eq(ref.fd, timer_fd());
	timer_handler(NULL, timer_now_ms());
	ck_assert_uint_eq(tts[0].fired, 1);
	ck_assert_uint_ge(tts[0].fired_at, start + 20);

	/* Nothing armed: no further wake-up */
	n = epoll_wait(epfd, &ev, 1, 50);
	ck_assert_int_eq(n, 0);

	/* Moved later without a system call: one early wake-up, then fire */
	timer_arm(&tts[0].t, timer_now_ms() + 10);
	timer_arm(&tts[0].t, timer_now_ms() + 60);
	n = epoll_wait(epfd, &ev, 1, 2000);
	ck_assert_int_eq(n, 1);
	timer_handler(NULL, timer_now_ms());
	ck_assert_uint_eq(tts[0].fired, 1);
	n = epoll_wait(epfd, &ev, 1, 2000);
	ck_assert_int_eq(n, 1);
	timer_handler(NULL, timer_now_ms());
	ck_assert_uint_eq(tts[0].fired, 2);

	ck_assert_int_eq(timer_wheel_init(NULL, -1), 0);
	close(epfd);
}
END_TEST

/**
 * timer_suite() - build the suite
 *
 * Return: suite
 */
static Suite *timer_suite(void)
{
	Suite *s = suite_create("timer");
	TCase *tc = tcase_create("wheel");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_random_every_tick, 0, 4);
	tcase_add_loop_test(tc, test_random_event_driven, 0, 4);
	tcase_add_test(tc, test_rearm_later_no_syscall);
	tcase_add_test(tc, test_periodic_self_rearm);
	tcase_add_test(tc, test_rearm_self_now_no_loop);
	tcase_add_test(tc, test_cancel_in_callback);
	tcase_add_test(tc, test_far_and_past);
	tcase_add_test(tc, test_counts_and_idempotence);
	tcase_add_test(tc, test_real_timerfd);
	suite_add_tcase(s, tc);
	return s;
}

/**
 * main() - run the timer suite
 *
 * Return: 0 if every test passed
 */
int main(void)
{
	SRunner *sr = srunner_create(timer_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
