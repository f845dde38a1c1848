// SPDX-License-Identifier: GPL-2.0-only
/* The A/B order: fair interleaving, rotation by round, sequential. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "jobmix/ramp_order.h"

static void expect(enum ramp_order o, unsigned k, unsigned round, unsigned step,
		   const unsigned *want)
{
	unsigned got[8];
	memset(got, 0xff, sizeof(got));
	ramp_ab_order(o, k, round, step, got);
	for (unsigned i = 0; i < k; i++)
		assert_int_equal(got[i], want[i]);
}

static void test_fair_interleaves(void **state)
{
	(void)state;
	/* two schedulers, linear ramp: A B, B A, A B, ... */
	expect(RAMP_ORDER_FAIR, 2, 0, 0, (unsigned[]){ 0, 1 });
	expect(RAMP_ORDER_FAIR, 2, 0, 1, (unsigned[]){ 1, 0 });
	expect(RAMP_ORDER_FAIR, 2, 0, 2, (unsigned[]){ 0, 1 });
	expect(RAMP_ORDER_FAIR, 3, 0, 1, (unsigned[]){ 2, 1, 0 });
	/* over two steps every arm's mean position is the same */
	for (unsigned k = 1; k <= 6; k++) {
		unsigned pos[8] = { 0 }, o[8];
		for (unsigned step = 0; step < 2; step++) {
			ramp_ab_order(RAMP_ORDER_FAIR, k, 0, step, o);
			for (unsigned i = 0; i < k; i++)
				pos[o[i]] += i;
		}
		for (unsigned a = 0; a < k; a++)
			assert_int_equal(pos[a], k - 1);
	}
}

static void test_rounds_rotate(void **state)
{
	(void)state;
	/* adaptive ramps: one ramp per arm, rotated by round */
	expect(RAMP_ORDER_FAIR, 3, 0, 0, (unsigned[]){ 0, 1, 2 });
	expect(RAMP_ORDER_FAIR, 3, 1, 0, (unsigned[]){ 1, 2, 0 });
	expect(RAMP_ORDER_FAIR, 3, 2, 0, (unsigned[]){ 2, 0, 1 });
	expect(RAMP_ORDER_FAIR, 3, 3, 0, (unsigned[]){ 0, 1, 2 });
	/* each arm goes first exactly once in k rounds */
	unsigned first[8] = { 0 }, o[8];
	for (unsigned r = 0; r < 5; r++) {
		ramp_ab_order(RAMP_ORDER_FAIR, 5, r, 0, o);
		first[o[0]]++;
	}
	for (unsigned a = 0; a < 5; a++)
		assert_int_equal(first[a], 1);
}

static void test_sequential(void **state)
{
	(void)state;
	for (unsigned r = 0; r < 3; r++)
		for (unsigned step = 0; step < 3; step++)
			expect(RAMP_ORDER_SEQUENTIAL, 3, r, step, (unsigned[]){ 0, 1, 2 });
	assert_string_equal(ramp_order_name(RAMP_ORDER_SEQUENTIAL), "sequential");
	assert_string_equal(ramp_order_name(RAMP_ORDER_FAIR), "fair");
}

static void test_permutation(void **state)
{
	(void)state;
	for (unsigned k = 1; k <= 8; k++)
		for (unsigned r = 0; r < 9; r++)
			for (unsigned step = 0; step < 4; step++) {
				unsigned o[8], seen[8] = { 0 };
				ramp_ab_order(RAMP_ORDER_FAIR, k, r, step, o);
				for (unsigned i = 0; i < k; i++) {
					assert_true(o[i] < k);
					seen[o[i]]++;
				}
				for (unsigned i = 0; i < k; i++)
					assert_int_equal(seen[i], 1);
			}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fair_interleaves),
		cmocka_unit_test(test_rounds_rotate),
		cmocka_unit_test(test_sequential),
		cmocka_unit_test(test_permutation),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
