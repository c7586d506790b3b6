// SPDX-License-Identifier: GPL-2.0-or-later
/* test_flow.c - unit tests for the flow table (flow/flow.c)
 *
 * Theory of operation: fill the table with distinct IPv4 and IPv6 keys,
 * look all of them up, delete them in random order checking after each
 * deletion that every remaining key is still found (backward-shift
 * deletion must not break probe runs) and deleted ones are not; then a
 * long random churn on a tiny table against a reference model, where probe
 * runs wrap around the end of the hash array.
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
