// SPDX-License-Identifier: GPL-2.0-or-later
/* test_flow.c - unit tests for the flow table (flow/flow.c)
 *
 * Theory of operation: fill the table with distinct IPv4 and IPv6 keys,
 * look all of them up, delete them in random order checking after each
 * deletion that every remaining key is still found (backward-shift
 * deletion must not break probe runs) and deleted ones are not; then a
 * long random churn on a tiny table against a reference model, where probe
 * runs wrap around the end of the hash array. Eviction (flow/flow_evict.c)
 * is checked with fake UDP and echo flows whose last activity the test
 * sets: the oldest idle one of a registered type goes, whatever its type;
 * busy flows, flows marked never, unregistered types (TCP) never; the
 * scan of one call is bounded.
 */

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../../flow/flow.h"

/* ck_assert() writes to a file on every call: too slow for hot loops */
#define CHECK(cond, ...)						\
	do {								\
		if (!(cond))						\
			ck_abort_msg(__VA_ARGS__);			\
	} while (0)

#define CAP		1000

static uint64_t rng_state;

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
 * make_key() - build the n-th distinct key, with garbage in the padding
 * @key:	output
 * @n:		key number
 * @pad:	byte to fill padding with
 */
static void make_key(struct flow_key *key, unsigned int n, uint8_t pad)
{
	struct in_addr a4;

	memset(key, pad, sizeof(*key));
	if (n % 2) {
		a4.s_addr = htonl(0x0a000002);
		inany_from_v4(&key->guest_addr, a4);
		a4.s_addr = htonl(0xc0a80000 + n);
		inany_from_v4(&key->remote_addr, a4);
		key->proto = n % 3 ? IPPROTO_TCP : IPPROTO_UDP;
	} else {
		inet_pton(AF_INET6, "2001:db8::2", &key->guest_addr.a6);
		inet_pton(AF_INET6, "2001:db8:1::", &key->remote_addr.a6);
		key->remote_addr.u32[3] = htonl(n);
		key->proto = n % 3 ? IPPROTO_TCP : IPPROTO_ICMPV6;
	}
	key->guest_port = (uint16_t)(40000 + n % 7);
	key->remote_port = (uint16_t)(n % 5 ? 443 : 53);
}

/**
 * shuffle() - Fisher-Yates shuffle
 * @v:		array
 * @n:		length
 */
static void shuffle(uint32_t *v, unsigned int n)
{
	unsigned int i;

	for (i = n - 1; i > 0; i--) {
		unsigned int j = (unsigned int)(rnd() % (i + 1));
		uint32_t t = v[i];

		v[i] = v[j];
		v[j] = t;
	}
}

START_TEST(test_fill_lookup_delete)
{
	static uint32_t idx[CAP], order[CAP];
	static bool gone[CAP];
	struct flow_key k;
	unsigned int i, j;

	rng_state = 0x5eed0001ULL + (uint64_t)_i;
	ck_assert_int_eq(flow_table_init(CAP), 0);
	ck_assert_uint_eq(flow_capacity(), CAP);
	ck_assert_uint_eq(flow_in_use(), 0);

	for (i = 0; i < CAP; i++) {
		idx[i] = flow_alloc(i % 2 ? FLOW_TYPE_TCP : FLOW_TYPE_UDP);
		ck_assert_uint_ne(idx[i], FLOW_IDX_NONE);
		make_key(&k, i, 0xa5);
		ck_assert_int_eq(flow_hash_insert(idx[i], &k), 0);
		order[i] = i;
		gone[i] = false;
	}
	ck_assert_uint_eq(flow_in_use(), CAP);
	ck_assert_uint_eq(flow_alloc(FLOW_TYPE_TCP), FLOW_IDX_NONE);

	/* Padding content does not matter */
	for (i = 0; i < CAP; i++) {
		make_key(&k, i, (uint8_t)i);
		CHECK(flow_lookup(&k) == idx[i], "lookup %u failed", i);
		CHECK(flow_type_of(idx[i]) ==
		      (i % 2 ? FLOW_TYPE_TCP : FLOW_TYPE_UDP), "type %u", i);
	}
	make_key(&k, CAP + 1, 0);
	ck_assert_uint_eq(flow_lookup(&k), FLOW_IDX_NONE);

	shuffle(order, CAP);
	for (i = 0; i < CAP; i++) {
		unsigned int victim = order[i];

		if (i % 2)
			flow_hash_remove(idx[victim]);	/* then free */
		flow_free(idx[victim]);
		gone[victim] = true;
		CHECK(flow_in_use() == CAP - i - 1, "in use after free");

		for (j = 0; j < CAP; j++) {
			make_key(&k, j, 0);
			CHECK(flow_lookup(&k) == (gone[j] ? FLOW_IDX_NONE : idx[j]),
			      "after %u deletions, key %u: wrong lookup", i + 1,
			      j);
		}
	}
	ck_assert_uint_eq(flow_in_use(), 0);
	flow_table_fini();
}
END_TEST

START_TEST(test_reuse_and_errors)
{
	struct flow_key k, k2;
	const struct flow_key *kp;
	uint32_t a, b, c;

	ck_assert_int_eq(flow_table_init(0), -EINVAL);
	ck_assert_uint_eq(flow_alloc(FLOW_TYPE_TCP), FLOW_IDX_NONE);
	ck_assert_int_eq(flow_table_init(4), 0);

	ck_assert_uint_eq(flow_alloc(FLOW_TYPE_NONE), FLOW_IDX_NONE);
	ck_assert_uint_eq(flow_alloc(FLOW_TYPE_MAX), FLOW_IDX_NONE);

	a = flow_alloc(FLOW_TYPE_TCP);
	b = flow_alloc(FLOW_TYPE_PING);
	ck_assert_uint_ne(a, b);
	ck_assert_uint_lt(a, 4);
	ck_assert_uint_lt(b, 4);

	make_key(&k, 1, 0);
	ck_assert_ptr_null(flow_key_of(a));
	ck_assert_int_eq(flow_hash_insert(a, &k), 0);
	ck_assert_int_eq(flow_hash_insert(a, &k), -EALREADY);
	make_key(&k2, 1, 0xff);		/* same key, other padding */
	ck_assert_int_eq(flow_hash_insert(b, &k2), -EEXIST);
	ck_assert_ptr_null(flow_key_of(b));
	kp = flow_key_of(a);
	ck_assert_ptr_nonnull(kp);
	ck_assert_uint_eq(kp->guest_port, k.guest_port);
	ck_assert(inany_equals(&kp->remote_addr, &k.remote_addr));

	/* Free, then reuse: the key is gone with it */
	flow_free(a);
	ck_assert_uint_eq(flow_type_of(a), FLOW_TYPE_NONE);
	ck_assert_ptr_null(flow_key_of(a));
	ck_assert_uint_eq(flow_lookup(&k), FLOW_IDX_NONE);
	flow_free(a);			/* double free: ignored */
	ck_assert_uint_eq(flow_in_use(), 1);
	ck_assert_int_eq(flow_hash_insert(a, &k), -EINVAL);

	c = flow_alloc(FLOW_TYPE_UDP);
	ck_assert_uint_eq(c, a);
	ck_assert_uint_eq(flow_type_of(c), FLOW_TYPE_UDP);
	ck_assert_ptr_null(flow_key_of(c));
	ck_assert_int_eq(flow_hash_insert(b, &k), 0);
	ck_assert_uint_eq(flow_lookup(&k2), b);

	/* Out of range indices */
	flow_free(FLOW_IDX_NONE);
	flow_free(4);
	flow_hash_remove(1000);
	ck_assert_uint_eq(flow_type_of(4), FLOW_TYPE_NONE);
	ck_assert_ptr_null(flow_key_of(FLOW_IDX_NONE));

	flow_table_fini();
	ck_assert_uint_eq(flow_capacity(), 0);
	ck_assert_uint_eq(flow_lookup(&k), FLOW_IDX_NONE);
}
END_TEST

START_TEST(test_churn_small)
{
	enum { SCAP = 8, KEYS = 24, OPS = 200000 };
	uint32_t owner[KEYS];		/* model: key -> flow index */
	struct flow_key k;
	unsigned int op, i, used = 0;

	rng_state = 0xc0ffee00ULL + (uint64_t)_i;
	ck_assert_int_eq(flow_table_init(SCAP), 0);
	for (i = 0; i < KEYS; i++)
		owner[i] = FLOW_IDX_NONE;

	for (op = 0; op < OPS; op++) {
		unsigned int n = (unsigned int)(rnd() % KEYS);

		make_key(&k, n, (uint8_t)op);
		if (owner[n] == FLOW_IDX_NONE) {
			uint32_t f = flow_alloc(FLOW_TYPE_TCP);

			if (used == SCAP) {
				CHECK(f == FLOW_IDX_NONE, "alloc past capacity");
				continue;
			}
			CHECK(f != FLOW_IDX_NONE, "alloc failed, %u used", used);
			CHECK(flow_hash_insert(f, &k) == 0, "insert failed");
			owner[n] = f;
			used++;
		} else {
			flow_free(owner[n]);
			owner[n] = FLOW_IDX_NONE;
			used--;
		}

		CHECK(flow_in_use() == used, "in use %u, model %u",
		      flow_in_use(), used);
		for (i = 0; i < KEYS; i++) {
			make_key(&k, i, 0);
			CHECK(flow_lookup(&k) == owner[i],
			      "op %u: key %u lookup %u, model %u", op, i,
			      flow_lookup(&k), owner[i]);
		}
	}
	flow_table_fini();
}
END_TEST

#define ECAP		600	/* more than one scan (256) */

static uint64_t ev_last[ECAP];	/* fake last activity per flow */
static uint32_t ev_closed[ECAP];	/* flows evicted, in order */
static unsigned int ev_n;
static unsigned int ev_looked;	/* last_ms() calls */
static uint64_t ev_min;		/* oldest last activity seen */

/**
 * ev_last_ms() - fake last_ms() of struct flow_evict_ops
 * @idx:	flow index
 *
 * Return: the time the test set for @idx
 */
static uint64_t ev_last_ms(uint32_t idx)
{
	ev_looked++;
	if (ev_last[idx] < ev_min)
		ev_min = ev_last[idx];
	return ev_last[idx];
}

/**
 * ev_evict() - fake evict() of struct flow_evict_ops: record and free
 * @c:		execution context (unused)
 * @idx:	flow index
 * @idle_ms:	idle time (unused)
 */
static void ev_evict(const struct ctx *c, uint32_t idx, uint64_t idle_ms)
{
	(void)c;
	(void)idle_ms;
	ev_closed[ev_n++] = idx;
	flow_free(idx);
}

static const struct flow_evict_ops ev_ops = {
	.last_ms = ev_last_ms,
	.evict = ev_evict,
};

START_TEST(test_evict)
{
	const uint64_t now = 100000;
	uint32_t idx[8], f;
	unsigned int i;

	ck_assert_int_eq(flow_table_init(8), 0);
	flow_evict_register(FLOW_TYPE_UDP, &ev_ops);
	flow_evict_register(FLOW_TYPE_PING, &ev_ops);
	ev_n = 0;

	/* TCP, busy UDP, busy echo, one marked never: nothing to take */
	idx[0] = flow_alloc(FLOW_TYPE_TCP);
	idx[1] = flow_alloc(FLOW_TYPE_UDP);
	idx[2] = flow_alloc(FLOW_TYPE_PING);
	idx[3] = flow_alloc(FLOW_TYPE_UDP);
	ev_last[idx[0]] = 0;		/* TCP: type not registered */
	ev_last[idx[1]] = now - 999;	/* busy: less than a second */
	ev_last[idx[2]] = now - 500;
	ev_last[idx[3]] = FLOW_EVICT_NEVER;
	ck_assert(!flow_evict(NULL, now));
	ck_assert_uint_eq(ev_n, 0);

	/* Idle ones: the oldest goes first, an echo flow as a UDP one */
	idx[4] = flow_alloc(FLOW_TYPE_PING);
	idx[5] = flow_alloc(FLOW_TYPE_UDP);
	idx[6] = flow_alloc(FLOW_TYPE_PING);
	ev_last[idx[4]] = now - 5000;
	ev_last[idx[5]] = now - 3000;
	ev_last[idx[6]] = now - 1000;	/* exactly a second: idle */
	for (i = 0; i < 3; i++)
		ck_assert(flow_evict(NULL, now));
	ck_assert(!flow_evict(NULL, now));
	ck_assert_uint_eq(ev_n, 3);
	ck_assert_uint_eq(ev_closed[0], idx[4]);
	ck_assert_uint_eq(ev_closed[1], idx[5]);
	ck_assert_uint_eq(ev_closed[2], idx[6]);
	ck_assert_uint_eq(flow_type_of(idx[0]), FLOW_TYPE_TCP);
	ck_assert_uint_eq(flow_in_use(), 4);

	/* A type unregistered again is left alone */
	f = flow_alloc(FLOW_TYPE_PING);
	ev_last[f] = 0;
	flow_evict_register(FLOW_TYPE_PING, NULL);
	ck_assert(!flow_evict(NULL, now));
	flow_evict_register(FLOW_TYPE_PING, &ev_ops);
	ck_assert(flow_evict(NULL, now));
	ck_assert_uint_eq(ev_closed[3], f);

	flow_evict_register(FLOW_TYPE_UDP, NULL);
	flow_evict_register(FLOW_TYPE_PING, NULL);
	flow_table_fini();
	ck_assert(!flow_evict(NULL, now));	/* no table: nothing */
}
END_TEST

START_TEST(test_evict_scan)
{
	const uint64_t now = 10000000;
	unsigned int i;

	rng_state = 0xe71c7ULL;
	ck_assert_int_eq(flow_table_init(ECAP), 0);
	flow_evict_register(FLOW_TYPE_UDP, &ev_ops);
	ev_n = 0;

	/* A full table of idle UDP flows of random ages: each call looks at
	 * no more than 256 entries, and takes the oldest of those; the new
	 * flow taking its place is busy
	 */
	for (i = 0; i < ECAP; i++) {
		uint32_t f = flow_alloc(FLOW_TYPE_UDP);

		ck_assert_uint_eq(f, i);
		ev_last[f] = now - 2000 - rnd() % 1000000;
	}
	for (i = 0; i < ECAP / 2; i++) {
		uint64_t taken;
		uint32_t f;

		ev_looked = 0;
		ev_min = UINT64_MAX;
		ck_assert(flow_evict(NULL, now));
		ck_assert_uint_le(ev_looked, 256);
		ck_assert_uint_gt(ev_looked, 0);
		taken = ev_last[ev_closed[ev_n - 1]];
		ck_assert_uint_eq(taken, ev_min);

		f = flow_alloc(FLOW_TYPE_UDP);
		ck_assert_uint_eq(f, ev_closed[ev_n - 1]);
		ev_last[f] = now;
	}

	flow_evict_register(FLOW_TYPE_UDP, NULL);
	flow_table_fini();
}
END_TEST

/**
 * flow_suite() - build the suite
 *
 * Return: suite
 */
static Suite *flow_suite(void)
{
	Suite *s = suite_create("flow");
	TCase *tc = tcase_create("table");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_fill_lookup_delete, 0, 2);
	tcase_add_test(tc, test_reuse_and_errors);
	tcase_add_loop_test(tc, test_churn_small, 0, 4);
	tcase_add_test(tc, test_evict);
	tcase_add_test(tc, test_evict_scan);
	suite_add_tcase(s, tc);
	return s;
}

/**
 * main() - run the flow suite
 *
 * Return: 0 if every test passed
 */
int main(void)
{
	SRunner *sr = srunner_create(flow_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
