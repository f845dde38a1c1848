// SPDX-License-Identifier: GPL-2.0-only
/*
 * The compute and library jobs: their result checkers accept right answers
 * and reject wrong ones, the arithmetic kernels are reproducible from a
 * seed and depend on it, dir_rtns_1 fails clearly without a directory, and
 * each kind's single-run time is printed (add_int must take long enough
 * that its loop cannot have been optimised away).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "jobmix/job.h"
#include "../../src/jobs/compute.h"

static const char *const arith_kinds[] = {
	"add_double", "add_float", "add_long", "add_int", "add_short",
	"mul_double", "mul_float", "mul_long", "mul_int", "mul_short",
	"div_double", "div_float", "div_long", "div_int", "div_short",
};

#define NARITH (sizeof(arith_kinds) / sizeof(arith_kinds[0]))

static struct job_ctx ctx_for(const char *name, struct jm_rng *rng)
{
	jm_rng_seed(rng, 1, 0);
	struct job_ctx c = { .dir = "/nonexistent", .shared_dir = "/nonexistent", .nusers = 1,
			     .rng = rng, .job_name = name };
	return c;
}

static void test_sieve_checker(void **state)
{
	(void)state;
	struct jm_rng rng;
	struct job_ctx c = ctx_for("sieve", &rng);
	unsigned char *map = malloc(JOB_SIEVE_LIMIT + 1);
	assert_non_null(map);
	assert_int_equal(job_sieve_count(map, 1), 0);
	assert_int_equal(job_sieve_count(map, 2), 1);
	assert_int_equal(job_sieve_count(map, 100), 25);
	assert_int_equal(job_sieve_count(map, 7919), 1000);
	uint64_t n = job_sieve_count(map, JOB_SIEVE_LIMIT);
	assert_int_equal(n, 78498);
	assert_int_equal(job_sieve_check(&c, n), 0);
	assert_int_equal(job_sieve_check(&c, n - 1), -1);
	assert_non_null(strstr(c.err, "sieve: "));
	assert_non_null(strstr(c.err, "78497"));
	c.err[0] = '\0';
	assert_int_equal(job_sieve_check(&c, n + 1), -1);
	assert_non_null(strstr(c.err, "78499"));
	free(map);
}

static void test_series_checker(void **state)
{
	(void)state;
	struct jm_rng rng;
	struct job_ctx c = ctx_for("series_1", &rng);
	for (double x = -M_PI; x <= M_PI; x += 0.125) {
		int terms = 0;
		double s = job_series_sin(x, &terms);
		assert_true(terms > 1 && terms <= 40);
		assert_true(fabs(s - sin(x)) < 1e-13);
		assert_int_equal(job_series_check(&c, x, s), 0);
	}
	assert_int_equal(job_series_check(&c, 1.0, sin(1.0) + 1e-9), -1);
	assert_non_null(strstr(c.err, "series_1: "));
	assert_int_equal(job_series_check(&c, 1.0, NAN), -1);
}

static void test_newton_checker(void **state)
{
	(void)state;
	struct jm_rng rng;
	struct job_ctx c = ctx_for("new_raph", &rng);
	int iters = 0;
	double r = job_newton_cbrt(27.0, &iters);
	assert_true(fabs(r - 3.0) < 1e-12);
	assert_true(iters > 1 && iters < 200);
	assert_int_equal(job_newton_check(&c, 27.0, r, iters), 0);
	r = job_newton_cbrt(1e6, &iters);
	assert_true(fabs(r - 100.0) < 1e-10);
	assert_int_equal(job_newton_check(&c, 1e6, r, iters), 0);
	/* a wrong root, and a right one that claims not to have converged */
	assert_int_equal(job_newton_check(&c, 27.0, 3.0001, 5), -1);
	assert_non_null(strstr(c.err, "new_raph: "));
	assert_int_equal(job_newton_check(&c, 27.0, 3.0, 1000), -1);
	assert_non_null(strstr(c.err, "converge"));
}

static void test_gauss_checker(void **state)
{
	(void)state;
	struct jm_rng rng;
	struct job_ctx c = ctx_for("array_rtns", &rng);
	/* x = (1, -2, 3); the first column's largest entry is not on the diagonal */
	const double a0[9] = { 1, 2, 3, 4, -1, 2, 2, 3, -5 };
	const double want[3] = { 1, -2, 3 };
	double b0[3];
	for (int i = 0; i < 3; i++)
		b0[i] = a0[i * 3] * want[0] + a0[i * 3 + 1] * want[1] + a0[i * 3 + 2] * want[2];
	double a[9], b[3], x[3];
	memcpy(a, a0, sizeof(a));
	memcpy(b, b0, sizeof(b));
	assert_int_equal(job_gauss_solve(3, a, b, x), 0);
	for (int i = 0; i < 3; i++)
		assert_true(fabs(x[i] - want[i]) < 1e-12);
	assert_int_equal(job_gauss_check(&c, 3, a0, b0, x), 0);
	x[1] += 1e-3;
	assert_int_equal(job_gauss_check(&c, 3, a0, b0, x), -1);
	assert_non_null(strstr(c.err, "array_rtns: "));
	/* a singular matrix is reported, not divided by zero */
	const double sing[4] = { 1, 2, 2, 4 };
	memcpy(a, sing, sizeof(sing));
	b[0] = 1, b[1] = 2;
	assert_int_equal(job_gauss_solve(2, a, b, x), -1);
}

static void test_sort_checkers(void **state)
{
	(void)state;
	struct jm_rng rng;
	struct job_ctx c = ctx_for("sort_rtns_1", &rng);
	const int sorted[] = { -5, 0, 2, 2, 8, 40, 100 };
	const int unsorted[] = { 8, 0, 2, 100, -5, 40, 2 };
	size_t n = sizeof(sorted) / sizeof(sorted[0]);
	assert_int_equal(job_sort_check(&c, sorted, n), 0);
	assert_int_equal(job_sort_check(&c, unsorted, n), -1);
	assert_non_null(strstr(c.err, "sort_rtns_1: "));
	assert_int_equal(job_bsearch_check(&c, sorted, n, 40, true), 0);
	assert_int_equal(job_bsearch_check(&c, sorted, n, 41, false), 0);
	assert_int_equal(job_bsearch_check(&c, sorted, n, 41, true), -1);
	assert_int_equal(job_bsearch_check(&c, sorted, n, 40, false), -1);
	/* bsearch over an unsorted array misses a value that is there */
	assert_int_equal(job_bsearch_check(&c, unsorted, n, -5, true), -1);
}

static void test_dir_read(void **state)
{
	(void)state;
	struct jm_rng rng;
	struct job_ctx c = ctx_for("dir_rtns_1", &rng);
	const char *const none[] = { "/nonexistent-jobmix-a", "/nonexistent-jobmix-b", NULL };
	assert_int_equal(job_dir_read(&c, none, 10), -1);
	assert_non_null(strstr(c.err, "dir_rtns_1: "));
	assert_non_null(strstr(c.err, "/nonexistent-jobmix-b"));
	assert_non_null(strstr(c.err, "No such file"));
	const char *const empty[] = { NULL };
	assert_int_equal(job_dir_read(&c, empty, 10), -1);
	/* the first directory that opens is used; more calls than entries rewind */
	char dir[] = "/tmp/jobmix-compute-XXXXXX";
	assert_non_null(mkdtemp(dir));
	const char *const some[] = { "/nonexistent-jobmix-a", dir, NULL };
	c.err[0] = '\0';
	assert_int_equal(job_dir_read(&c, some, 1000), 0);
	assert_string_equal(c.err, "");
	rmdir(dir);
}

static void test_arith_seeded(void **state)
{
	(void)state;
	for (size_t i = 0; i < NARITH; i++) {
		const struct job_kind *k = job_find(arith_kinds[i]);
		assert_non_null(k);
		const struct job_arith *v = k->variant;
		assert_non_null(v);
		assert_true(v->loops >= 20000);
		uint64_t a = v->kernel(5000, 1), b = v->kernel(5000, 1);
		uint64_t other = v->kernel(5000, 2), shorter = v->kernel(4999, 1);
		if (a != b || a == other || a == shorter)
			print_error("%s: seed 1 %016llx/%016llx, seed 2 %016llx, 4999 loops %016llx\n",
				    k->name, (unsigned long long)a, (unsigned long long)b,
				    (unsigned long long)other, (unsigned long long)shorter);
		assert_true(a == b);
		assert_true(a != other);
		assert_true(a != shorter);
	}
	/* the loop counts of the reference table */
	const uint64_t loops[NARITH] = { 1500000, 1000000, 5000000, 5000000, 2000000,
					 1000000, 1000000, 20000, 20000, 25000,
					 250000, 250000, 75000, 75000, 75000 };
	for (size_t i = 0; i < NARITH; i++)
		assert_int_equal(((const struct job_arith *)job_find(arith_kinds[i])->variant)->loops,
				 loops[i]);
}

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* Every compute and library kind once: setup, one timed run, teardown. */
static void test_kind_times(void **state)
{
	(void)state;
	int ran = 0;
	double add_int_us = 0;
	for (size_t i = 0; i < job_nkinds; i++) {
		const struct job_kind *k = job_kinds[i];
		if (strcmp(k->family, "compute") && strcmp(k->family, "library"))
			continue;
		assert_int_equal(k->flags, 0);
		assert_int_equal(k->params_size, 0);
		assert_non_null(k->doc);
		struct jm_rng rng;
		struct job_ctx c = ctx_for(k->name, &rng);
		void *st = NULL;
		if (k->setup && k->setup(&c, k, NULL, &st))
			fail_msg("%s: setup: %s", k->name, c.err);
		double t0 = now_us();
		int rc = k->run_once(&c, k, NULL, st);
		double us = now_us() - t0;
		if (k->teardown)
			k->teardown(&c, k, NULL, st);
		if (rc)
			fail_msg("%s: %s", k->name, c.err);
		printf("    %-12s %10.0f us\n", k->name, us);
		fflush(stdout);
		if (!strcmp(k->name, "add_int"))
			add_int_us = us;
		ran++;
	}
	assert_int_equal(ran, 33);
	assert_true(add_int_us > 100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sieve_checker),
		cmocka_unit_test(test_series_checker),
		cmocka_unit_test(test_newton_checker),
		cmocka_unit_test(test_gauss_checker),
		cmocka_unit_test(test_sort_checkers),
		cmocka_unit_test(test_dir_read),
		cmocka_unit_test(test_arith_seeded),
		cmocka_unit_test(test_kind_times),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
