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
	/* re-aim's marking: every multiple 2p, 3p, ... of every prime p, once per prime */
	uint64_t want = 0;
	for (uint64_t p = 2; p <= 100; p++) {
		bool prime = true;
		for (uint64_t d = 2; d * d <= p; d++)
			prime = prime && p % d;
		if (prime)
			want += 100 / p - 1;
	}
	assert_int_equal(job_sieve_mark(map, 100), want);
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

/*
 * new_raph: re-aim's 200 starts 0, 0.05, ... each converge to a root of
 * sin 2x (a multiple of pi/2) in fewer than 100 tries; the checker rejects
 * a non-root and a solve that ran out of tries.
 */
static void test_newton_checker(void **state)
{
	(void)state;
	struct jm_rng rng;
	struct job_ctx c = ctx_for("new_raph", &rng);
	int total = 0;
	for (int n = 0; n < 200; n++) {
		int iters;
		double x = job_newton_solve(0.05 * n, &iters);
		assert_int_equal(job_newton_check(&c, 0.05 * n, x, iters), 0);
		double k = x / (M_PI / 2);
		assert_true(fabs(k - round(k)) < 1e-9);
		assert_true(iters >= 1 && iters < 100);
		total += iters;
	}
	assert_true(total > 200); /* most starts need several steps */
	assert_int_equal(job_newton_check(&c, 0.3, 0.3, 5), -1);
	assert_int_equal(job_newton_check(&c, 0.0, 0.0, 100), -1);
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

/*
 * A second, plain transcription of re-aim's loop bodies (add.c, mul.c,
 * div.c), one step at a time, to check the kernels operation by operation.
 * op: 0 add, 1 mul (floating point), 2 mul (integer), 3 div (floating
 * point), 4 div (integer).  Integers in int64_t: the few steps tested stay
 * far from overflow.
 */
#define STEP(a, o, b) do { if ((o) == '+') (a) += (b); else if ((o) == '*') (a) *= (b); else (a) /= (b); } while (0)
static const char *const ref_bodies[5] = {
	/* each: 12 steps "dst src" over x=0, x1=1, x2=2 */
	"01 12 12 20 20 01 01 12 12 20 20 01",
	"01 12 12 20 20 01 01 12 12 20 20 01",
	"01 12 12 21 21 02 01 12 12 21 21 02",
	"01 20 12 21 02 20 01 20 12 21 02 20",
	"01 02 12 21 01 02 12 21 01 02 12 21",
};

static void ref_fp(int op, uint64_t loops, double v[3], bool is_float)
{
	char o = op == 0 ? '+' : op <= 2 ? '*' : '/';
	for (uint64_t n = 0; n < loops; n++)
		for (int st = 0; st < 12; st++) {
			const char *p = ref_bodies[op] + 3 * st;
			int a = p[0] - '0', b = p[1] - '0';
			if (is_float) {
				float fa = (float)v[a], fb = (float)v[b];
				STEP(fa, o, fb);
				v[a] = fa;
			} else {
				STEP(v[a], o, v[b]);
			}
		}
}

static void ref_int(int op, uint64_t loops, int64_t v[3])
{
	char o = op == 0 ? '+' : op <= 2 ? '*' : '/';
	for (uint64_t n = 0; n < loops; n++)
		for (int st = 0; st < 12; st++) {
			const char *p = ref_bodies[op] + 3 * st;
			STEP(v[p[0] - '0'], o, v[p[1] - '0']);
		}
}

/*
 * Each arithmetic kind does re-aim's work: its loop count and operands
 * (the table below is re-aim's register_test arguments) and, loop by loop,
 * the same 12 operations on the same three values, checked against the
 * plain transcription above with re-aim's operands and with others that
 * do not cycle (so every operation shows in the result).
 */
static void test_arith_chains(void **state)
{
	(void)state;
	static const struct { const char *name; uint64_t loops; double x0, x1, x2; int op; } want[] = {
		{ "add_double", 1500000, 0, 3.14159, -3.14159, 0 },
		{ "add_float", 1000000, 0, 3.5, -3.5, 0 },
		{ "add_long", 5000000, 0, 3, -3, 0 },
		{ "add_int", 5000000, 0, 3, -3, 0 },
		{ "add_short", 2000000, 0, 3, -3, 0 },
		{ "mul_double", 1000000, 1, 3.14159, 0.31831, 1 },
		{ "mul_float", 1000000, 1, 4, 0.25, 1 },
		{ "mul_long", 20000, 12345678, 1, 1, 2 },
		{ "mul_int", 20000, 12345678, 1, 1, 2 },
		{ "mul_short", 25000, 1234, 1, 1, 2 },
		{ "div_double", 250000, 1, 4, 0.25, 3 },
		{ "div_float", 250000, 1, 4, 0.25, 3 },
		{ "div_long", 75000, 1234578, 1, 1, 4 },
		{ "div_int", 75000, 1234578, 1, 1, 4 },
		{ "div_short", 75000, 1234, 1, 1, 4 },
	};
	static const double other[5][3] = { { 1, 2, -1 }, { 1.5, 1.25, 0.75 }, { 3, -1, 1 },
					     { 3, 1.5, 0.5 }, { 100000, 1, -1 } };
	assert_int_equal(sizeof(want) / sizeof(want[0]), NARITH);
	for (size_t i = 0; i < NARITH; i++) {
		const struct job_kind *k = job_find(want[i].name);
		assert_non_null(k);
		const struct job_arith *v = k->variant;
		assert_int_equal(v->loops, want[i].loops);
		assert_true(v->x0 == want[i].x0 && v->x1 == want[i].x1 && v->x2 == want[i].x2);
		bool fp = strstr(k->name, "double") || strstr(k->name, "float");
		bool is_float = strstr(k->name, "float") != NULL;
		int op = want[i].op;
		for (int set = 0; set < 2; set++) {
			struct job_arith t = *v;
			if (set) {
				t.x0 = other[op][0], t.x1 = other[op][1], t.x2 = other[op][2];
			}
			for (uint64_t loops = 0; loops <= (fp ? (op == 3 ? 2u : 4u) : 1u); loops++) {
				struct job_arith_out out;
				t.kernel(&t, loops, &out);
				if (fp) {
					double r[3] = { t.x0, t.x1, t.x2 };
					if (is_float)
						for (int q = 0; q < 3; q++)
							r[q] = (float)r[q];
					ref_fp(op, loops, r, is_float);
					for (int q = 0; q < 3; q++)
						if (out.d[q] != r[q])
							fail_msg("%s set %d, %llu loops: value %d is %g, "
								 "re-aim's chain gives %g", k->name, set,
								 (unsigned long long)loops, q, out.d[q], r[q]);
				} else {
					int64_t r[3] = { (int64_t)t.x0, (int64_t)t.x1, (int64_t)t.x2 };
					ref_int(op, loops, r);
					if (!strstr(k->name, "short") || set == 0)
						for (int q = 0; q < 3; q++)
							if (out.l[q] != r[q])
								fail_msg("%s set %d, %llu loops: value %d is "
									 "%lld, re-aim's chain gives %lld",
									 k->name, set, (unsigned long long)loops,
									 q, (long long)out.l[q], (long long)r[q]);
				}
			}
		}
		/* the whole job: values stay normal numbers (no denormal slow path) */
		struct job_arith_out out;
		v->kernel(v, v->loops, &out);
		for (int q = 0; fp && q < 3; q++)
			assert_true(out.d[q] == 0 || isnormal(out.d[q]));
	}
}

/*
 * string_rtns counts re-aim's calls: per round 5 sprintf, 5 numeric
 * conversions, 11 ctype calls on each of 1,023 characters, 55 strcat and
 * 99 strncat (1 KiB filled with 18 and 10 characters at a time), a compare
 * after each and one more, 6 searches, 1 ctime.  Round one twiddles the
 * 26 lower and 26 upper case letters of its character line (2 calls each);
 * later rounds also meet the previous fill left in the buffer.
 */
static void test_string_counts(void **state)
{
	(void)state;
	struct job_str_count n = { 0 };
	assert_true(job_string_work(1, 1000000000, &n) >= 0);
	assert_int_equal(n.sprintf, 5);
	assert_int_equal(n.numeric, 5);
	assert_int_equal(n.ctype, 11 * 1023);
	assert_int_equal(n.casemap, 4 * 26);
	assert_int_equal(n.strcat, 55);
	assert_int_equal(n.strncat, 99);
	assert_int_equal(n.cmp, 1 + 55 + 99);
	assert_int_equal(n.search, 6);
	assert_int_equal(n.ctime, 1);
	struct job_str_count m = { 0 };
	int64_t a = job_string_work(100, 1000000000, &m);
	assert_int_equal(m.ctype, 100 * 11 * 1023);
	assert_int_equal(m.strcat, 100 * 55);
	assert_int_equal(m.strncat, 100 * 99);
	assert_int_equal(m.ctime, 100);
	assert_true(m.casemap > 100 * 4 * 26); /* leftovers of earlier rounds are scanned too */
	struct job_str_count o = { 0 };
	assert_int_equal(job_string_work(100, 1000000000, &o), a); /* same clock: same result */
	assert_memory_equal(&m, &o, sizeof(m));
}

/*
 * mem_rtns_2, ram_copy and misc_rtns_1 count re-aim's calls and bytes:
 * mem_rtns_2's 40 sizes over 100 rounds sum to 104,900 bytes, each round 6
 * calls over 5 x its size; ram_copy's 93 sizes over 100 copies to 139,996
 * bytes; misc_rtns_1 makes 21 calls a round.
 */
static void test_mem_misc_counts(void **state)
{
	(void)state;
	static char a[65536 + 8], b[65536 + 8];
	struct job_mem_count n = { 0 };
	job_mem2_work(a, b, 100, &n);
	assert_int_equal(n.calls, 600);
	assert_int_equal(n.bytes, 5 * 104900);
	memset(&n, 0, sizeof(n));
	job_ram_work(a, b, 100, &n);
	assert_int_equal(n.calls, 100);
	assert_int_equal(n.bytes, 139996);
	memset(&n, 0, sizeof(n));
	struct jm_rng rng;
	struct job_ctx c = ctx_for("misc_rtns_1", &rng);
	if (job_misc_work(&c, 10, &n))
		fail_msg("%s", c.err);
	assert_int_equal(n.calls, 210);
	/* sort_rtns_1: 2 x (3 qsorts + 2000 bsearches), 1000 hits a round, table kept */
	int *v = malloc(10000 * sizeof(*v));
	assert_non_null(v);
	for (int i = 0; i < 10000; i++)
		v[i] = i;
	memset(&n, 0, sizeof(n));
	struct job_ctx cs = ctx_for("sort_rtns_1", &rng);
	if (job_sort_work(&cs, v, &n))
		fail_msg("%s", cs.err);
	assert_int_equal(n.calls, 2 * (3 + 2000));
	assert_int_equal(n.bytes, 2 * 1000);
	for (int i = 0; i < 10000; i++)
		assert_int_equal(v[i], i);
	free(v);
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
		cmocka_unit_test(test_arith_chains),
		cmocka_unit_test(test_string_counts),
		cmocka_unit_test(test_mem_misc_counts),
		cmocka_unit_test(test_kind_times),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
