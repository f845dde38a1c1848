// SPDX-License-Identifier: GPL-2.0-only
/*
 * Change points (src/stats/changepoint.c) on synthetic nightly series with
 * seeded log-normal noise: none in flat series, a single step found where it
 * is with its size inside the interval, two steps both found, a slow slide
 * of 1% a week shows as a change once it has added up, short series, bad
 * values, and a series of 20,000 values in time.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

#include "jobmix/changepoint.h"
#include "jobmix/rng.h"

/* A normal deviate (Box-Muller) from the seeded generator. */
static double gauss(struct jm_rng *g)
{
	double u1 = jm_rng_double(g), u2 = jm_rng_double(g);
	if (u1 < 1e-300)
		u1 = 1e-300;
	return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

/* n values around 1000 with relative noise sd; level times (1 + step) from `at` (0: none). */
static double *series(size_t n, double sd, size_t at, double step, uint64_t seed)
{
	double *x = calloc(n, sizeof(*x));
	struct jm_rng g;
	jm_rng_seed(&g, seed, 3);
	for (size_t i = 0; i < n; i++)
		x[i] = 1000 * (at && i >= at ? 1 + step : 1) * exp(sd * gauss(&g));
	return x;
}

static void test_flat_none(void **state)
{
	(void)state;
	unsigned false_cp = 0;
	for (uint64_t seed = 1; seed <= 100; seed++) {
		double *x = series(60, 0.10, 0, 0, seed);
		struct cp_point *cp;
		size_t n;
		assert_int_equal(cp_detect(x, 60, NULL, &cp, &n), 0);
		false_cp += n > 0;
		free(cp);
		free(x);
	}
	/* 60 nights of 10% noise: a false change point in few series (3.4% of 500 seeds) */
	assert_true(false_cp <= 6);
}

static void test_one_step(void **state)
{
	(void)state;
	unsigned found = 0;
	for (uint64_t seed = 1; seed <= 20; seed++) {
		double *x = series(60, 0.05, 30, -0.20, seed);
		struct cp_point *cp;
		size_t n;
		assert_int_equal(cp_detect(x, 60, NULL, &cp, &n), 0);
		if (n == 1 && cp[0].at >= 28 && cp[0].at <= 32) {
			found++;
			assert_true(cp[0].lo < -0.20 && cp[0].hi > -0.20);   /* the truth inside */
			assert_true(cp[0].change < -0.15 && cp[0].change > -0.25);
			assert_true(cp[0].before > 900 && cp[0].before < 1100);
			assert_true(cp[0].seg_lo == 0 && cp[0].seg_hi == 60);
			assert_true(cp[0].p < 1e-6);
		}
		free(cp);
		free(x);
	}
	assert_true(found >= 19);
}

static void test_two_steps(void **state)
{
	(void)state;
	double *x = series(120, 0.05, 40, 0.15, 7);
	for (size_t i = 80; i < 120; i++)
		x[i] *= 0.80;   /* and down again at 80 */
	struct cp_point *cp;
	size_t n;
	assert_int_equal(cp_detect(x, 120, NULL, &cp, &n), 0);
	assert_int_equal(n, 2);
	assert_true(cp[0].at >= 38 && cp[0].at <= 42 && cp[0].change > 0.10);
	assert_true(cp[1].at >= 78 && cp[1].at <= 82 && cp[1].change < -0.15);
	assert_int_equal(cp[0].seg_hi, cp[1].at);
	assert_int_equal(cp[1].seg_lo, cp[0].at);
	free(cp);
	free(x);
}

/* A slide of 1% a night for 30 nights after 30 flat ones, 3% noise: a change, downwards. */
static void test_slide(void **state)
{
	(void)state;
	double *x = series(90, 0.03, 0, 0, 11);
	for (size_t i = 30; i < 90; i++)
		x[i] *= pow(0.99, (double)(i < 60 ? i - 30 : 30));
	struct cp_point *cp;
	size_t n;
	assert_int_equal(cp_detect(x, 90, NULL, &cp, &n), 0);
	assert_true(n >= 1);
	assert_true(cp[n - 1].after < cp[0].before);
	/* min_change: a change under it is never reported */
	struct cp_opts o = { .min_change = 0.5 };
	free(cp);
	assert_int_equal(cp_detect(x, 90, &o, &cp, &n), 0);
	assert_int_equal(n, 0);
	free(x);
}

static void test_edges(void **state)
{
	(void)state;
	double x[9] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 }, bad[3] = { 1, 0, 2 };
	struct cp_point *cp;
	size_t n;
	assert_int_equal(cp_detect(x, 9, NULL, &cp, &n), 0);   /* too short to split (5 a side) */
	assert_int_equal(n, 0);
	assert_null(cp);
	assert_int_equal(cp_detect(x, 0, NULL, &cp, &n), 0);
	assert_int_equal(cp_detect(bad, 3, NULL, &cp, &n), -1);
	double flat[10] = { 5, 5, 5, 5, 5, 5, 5, 5, 5, 5 };
	assert_int_equal(cp_detect(flat, 10, NULL, &cp, &n), 0);
	assert_int_equal(n, 0);
	double jump[10] = { 5, 5, 5, 5, 5, 9, 9, 9, 9, 9 };   /* no spread at all, exactly apart */
	assert_int_equal(cp_detect(jump, 10, NULL, &cp, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(cp[0].at, 5);
	free(cp);
}

static void test_long_series(void **state)
{
	(void)state;
	double *x = series(20000, 0.08, 15000, -0.10, 5);
	struct cp_point *cp;
	size_t n;
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	assert_int_equal(cp_detect(x, 20000, NULL, &cp, &n), 0);
	clock_gettime(CLOCK_MONOTONIC, &b);
	double s = (double)(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
	assert_true(s < 5);   /* linear per segment: well under a second on this machine */
	assert_true(n >= 1);
	bool near = false;
	for (size_t i = 0; i < n; i++)
		near = near || (cp[i].at > 14900 && cp[i].at < 15100);
	assert_true(near);
	free(cp);
	free(x);
}

/*
 * nb nights of k runs: each night's level exp(between x N) times the
 * step from night `at` (0: none), each run exp(within x N) about it.
 */
static double *nights(size_t nb, size_t k, double between, double within, size_t at, double step,
		      uint64_t seed, size_t *start)
{
	double *x = calloc(nb * k, sizeof(*x));
	struct jm_rng g;
	jm_rng_seed(&g, seed, 5);
	for (size_t b = 0; b < nb; b++) {
		double level = 1000 * (at && b >= at ? 1 + step : 1) * exp(between * gauss(&g));
		start[b] = b * k;
		for (size_t r = 0; r < k; r++)
			x[b * k + r] = level * exp(within * gauss(&g));
	}
	start[nb] = nb * k;
	return x;
}

/* A change of level in the middle of night 3 (runs 6-8): the block change falls between nights. */
static void test_blocks_between_nights(void **state)
{
	(void)state;
	double x[36];
	size_t start[13];
	for (size_t b = 0; b <= 12; b++)
		start[b] = b * 3;
	for (size_t i = 0; i < 36; i++)
		x[i] = (i >= 7 ? 400 : 1000) * (1 + 0.01 * (double)(i % 3));
	struct cp_point *cp;
	size_t n;
	assert_int_equal(cp_detect_blocks(x, 36, start, 12, NULL, &cp, &n), 0);
	assert_true(n >= 1);
	for (size_t c = 0; c < n; c++)
		assert_int_equal(cp[c].at % 3, 0);
	free(cp);
}

/*
 * A/A nights that vary more from night to night (4%) than within (1%):
 * runs taken as independent see changes that are not there; blocks do not.
 */
static void test_blocks_night_noise(void **state)
{
	(void)state;
	unsigned runs_cp = 0, blocks_cp = 0;
	for (uint64_t seed = 1; seed <= 40; seed++) {
		size_t start[31];
		double *x = nights(30, 3, 0.04, 0.01, 0, 0, seed, start);
		struct cp_point *cp;
		size_t n;
		struct cp_opts o = { .min_seg = 3 };
		assert_int_equal(cp_detect(x, 90, &o, &cp, &n), 0);
		runs_cp += n > 0;
		free(cp);
		assert_int_equal(cp_detect_blocks(x, 90, start, 30, NULL, &cp, &n), 0);
		blocks_cp += n > 0;
		free(cp);
		free(x);
	}
	print_message("A/A, 40 series of 30 nights: runs %u, blocks %u with a change point\n",
		      runs_cp, blocks_cp);
	assert_true(runs_cp >= 10);
	assert_true(blocks_cp <= 2);
}

/* One bad night among good ones (CPU hogs beside night 3): a change into it and one out. */
static void test_blocks_one_bad_night(void **state)
{
	(void)state;
	size_t start[9];
	double *x = nights(8, 3, 0.01, 0.01, 0, 0, 3, start);
	for (size_t i = 9; i < 12; i++)
		x[i] *= 0.5;
	struct cp_point *cp;
	size_t n;
	assert_int_equal(cp_detect_blocks(x, 24, start, 8, NULL, &cp, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(cp[0].at, 9);
	assert_int_equal(cp[1].at, 12);
	assert_true(cp[0].change < -0.4 && cp[1].change > 0.8);
	free(cp);
	free(x);
}

/*
 * A step at the newest of seven nights (scale 1.2: a sixth less JPM) is
 * found that night.  (With four nights before it, df 3 when the nights'
 * means spread more than their runs predict: p about 1e-4 times 14
 * intervals, not below 0.001; see bench/README.md.)
 */
static void test_blocks_newest_step(void **state)
{
	(void)state;
	size_t start[8];
	double *x = nights(7, 3, 0, 0.01, 6, 1 / 1.2 - 1, 9, start);
	struct cp_point *cp;
	size_t n;
	assert_int_equal(cp_detect_blocks(x, 21, start, 7, NULL, &cp, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(cp[0].at, 18);
	assert_true(cp[0].lo < -1.0 / 6 && cp[0].hi > -1.0 / 6);
	free(cp);
	free(x);
	/* bad starts: refused */
	double y[4] = { 1, 2, 3, 4 };
	size_t bad[3] = { 0, 2, 3 };
	assert_int_equal(cp_detect_blocks(y, 4, bad, 2, NULL, &cp, &n), -1);
	size_t empty[3] = { 0, 2, 2 };
	assert_int_equal(cp_detect_blocks(y, 2, empty, 2, NULL, &cp, &n), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flat_none),  cmocka_unit_test(test_one_step),
		cmocka_unit_test(test_two_steps),  cmocka_unit_test(test_slide),
		cmocka_unit_test(test_edges),      cmocka_unit_test(test_long_series),
		cmocka_unit_test(test_blocks_between_nights),
		cmocka_unit_test(test_blocks_night_noise),
		cmocka_unit_test(test_blocks_one_bad_night),
		cmocka_unit_test(test_blocks_newest_step),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
