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

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "jobmix/job.h"
#include "jobmix/job_compute.h"

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
		assert_true(terms > 1 && terms <= 30);
		assert_true(fabs(s - sin(x)) < 1e-13);
		assert_int_equal(job_series_check(&c, x, s), 0);
	}
	/* re-aim's stop: a term that no longer changes the sum (0: at once) */
	int terms = 0;
	assert_true(job_series_sin(0.0, &terms) == 0.0);
	assert_int_equal(terms, 1);
	assert_true(job_series_sin(1e-150, &terms) == 1e-150);
	assert_int_equal(terms, 2);
	/* re-aim's tolerance: 0.0001 */
	assert_int_equal(job_series_check(&c, 1.0, sin(1.0) + 5e-5), 0);
	assert_int_equal(job_series_check(&c, 1.0, sin(1.0) + 2e-4), -1);
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

/*
 * array_rtns: re-aim's Gauss-Jordan on an augmented system (element (col,
 * row) at col + (n + 1) row), no pivoting: a zero pivot is reported; its
 * test accepts a solution within 0.5 per row and rejects a worse one.
 */
static void test_gauss_checker(void **state)
{
	(void)state;
	struct jm_rng rng;
	struct job_ctx c = ctx_for("array_rtns", &rng);
	/* x = (1, -2, 3) */
	const double m[3][3] = { { 4, 1, 2 }, { 1, 5, 1 }, { 2, 1, 6 } };
	const double want[3] = { 1, -2, 3 };
	double a0[12], a[12], x[3];
	for (int r = 0; r < 3; r++) {
		double b = 0;
		for (int k = 0; k < 3; k++) {
			a0[k + 4 * r] = m[r][k];
			b += m[r][k] * want[k];
		}
		a0[3 + 4 * r] = b;
	}
	memcpy(a, a0, sizeof(a));
	assert_int_equal(job_gauss_solve(3, a, x), 0);
	for (int i = 0; i < 3; i++)
		assert_true(fabs(x[i] - want[i]) < 1e-12);
	assert_int_equal(job_gauss_check(&c, 3, a0, x), 0);
	x[1] += 1.0;
	assert_int_equal(job_gauss_check(&c, 3, a0, x), -1);
	assert_non_null(strstr(c.err, "array_rtns: "));
	/* a zero pivot is reported, not divided by */
	const double sing[6] = { 0, 1, 1, 1, 0, 1 };
	memcpy(a, sing, sizeof(sing));
	assert_int_equal(job_gauss_solve(2, a, x), -1);
	/* the whole job's 20 systems (5..100 equations) pass re-aim's test */
	double *big = malloc(2 * 10100 * sizeof(double)), sol[100];
	assert_non_null(big);
	if (job_array_work(&c, big, big + 10100, sol, 20))
		fail_msg("%s", c.err);
	free(big);
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
	if (job_sort_work(&cs, v, 2, &n))
		fail_msg("%s", cs.err);
	assert_int_equal(n.calls, 2 * (3 + 2000));
	assert_int_equal(n.bytes, 2 * 1000);
	for (int i = 0; i < 10000; i++)
		assert_int_equal(v[i], i);
	free(v);
}

/*
 * fun_cal*: re-aim's loops make 512,000 calls, and every call adds to the
 * counter through its pointer: the input (1), the outer count n (999..0,
 * 512 calls each), n + the inner count i (31..0, 16 calls each), or twice
 * the inner count of fun_cal15 (511..0, once each per n).
 */
static void test_calls_counts(void **state)
{
	(void)state;
	uint64_t calls = 0;
	assert_int_equal(job_calls_work(0, 1, 1000, &calls), 512000);
	assert_int_equal(calls, 512000);
	assert_int_equal(job_calls_work(0, 3, 1000, &calls), 3 * 512000);
	assert_int_equal(job_calls_work(1, 1, 1000, &calls), 512 * 499500);
	assert_int_equal(calls, 512000);
	assert_int_equal(job_calls_work(2, 1, 1000, &calls), 16 * (32 * 499500 + 1000 * 496));
	assert_int_equal(calls, 512000);
	assert_int_equal(job_calls_work(15, 1, 1000, &calls), 1000 * 2 * 130816);
	assert_int_equal(calls, 512000);
	assert_int_equal(job_calls_work(3, 1, 1000, &calls), -1);
}

/*
 * re-aim's argument tables: vals 0, 1, the smallest denormal, then halves
 * of running differences (all positive, down to about 1e-150); vals10 in
 * [-10, 10] with every hundredth the smallest denormal.  The cursors move
 * by re-aim's counts: num_rtns_1 9 arguments a round, trig_rtns 4,
 * matrix_rtns 20 values; the tables depend on the seed.
 */
static void test_num_tables(void **state)
{
	(void)state;
	struct jm_rng rng;
	jm_rng_seed(&rng, 1, 0);
	struct job_num *t = malloc(sizeof(*t)), *u = malloc(sizeof(*u));
	assert_non_null(t);
	assert_non_null(u);
	job_num_init(t, &rng);
	assert_true(t->vals[0] == 0.0 && t->vals[1] == 1.0 && t->vals[2] == DBL_TRUE_MIN);
	assert_true(fabs(t->vals[3] - 0.5) < 1e-300 + 1e-15);
	for (int i = 4; i < JOB_NUM_VALS; i++) /* 2^-(i-2) */
		assert_true(t->vals[i] == t->vals[i - 1] / 2 && isnormal(t->vals[i]));
	assert_true(t->vals[JOB_NUM_VALS - 1] < 1e-140);
	int denormals = 0;
	for (int i = 0; i < JOB_NUM_VALS10; i++) {
		assert_true(t->vals10[i] >= -10.0 && t->vals10[i] <= 10.0);
		denormals += t->vals10[i] == DBL_TRUE_MIN;
	}
	assert_int_equal(denormals, JOB_NUM_VALS10 / 100);
	assert_true(t->vals10[0] == DBL_TRUE_MIN && t->vals10[100] == DBL_TRUE_MIN);
	job_num_work(t, 100);
	assert_int_equal(t->count10, 900);
	assert_int_equal(job_trig_work(t, 10000), 0);
	assert_int_equal(t->count10, 900 + 40000);
	job_matrix_work(t, 100);
	assert_int_equal(t->count, 2000);
	jm_rng_seed(&rng, 2, 0);
	job_num_init(u, &rng);
	assert_memory_equal(u->vals, t->vals, sizeof(t->vals));
	assert_memory_not_equal(u->vals10, t->vals10, sizeof(t->vals10));
	free(t);
	free(u);
}

/*
 * mem_rtns_1: per round 100 x (string malloc + strcpy, malloc, calloc) and
 * 300 frees; the sizes asked for are the 45-byte string and re-aim's
 * table, whose 40 entries (twice 21,005 bytes) come 2.5 times per round
 * for malloc and for calloc.
 */
static void test_mem1_counts(void **state)
{
	(void)state;
	struct job_mem_count n = { 0 };
	int64_t count = job_mem1_work(1, &n);
	assert_int_equal(n.calls, 600);
	/* sizes[i % 40] and sizes[(i + 1) % 40] for i < 100: 2.5 passes of 42,010 each */
	uint64_t table = 0;
	static const unsigned sizes[40] = {
		1, 3, 5, 7, 9, 11, 33, 65, 129, 1024, 1025, 1023, 8192, 4096, 4095,
		11, 33, 65, 129, 1024, 1, 3, 5, 7, 9, 11, 33, 65, 129, 1024,
		1025, 1023, 8192, 4096, 4095, 11, 33, 65, 129, 1024,
	};
	for (unsigned i = 0; i < 100; i++)
		table += sizes[i % 40] + sizes[(i + 1) % 40];
	assert_int_equal(n.bytes, 100 * 45 + table);
	assert_true(count >= (int64_t)n.bytes); /* plus the first bytes read ('H' at least) */
	memset(&n, 0, sizeof(n));
	job_mem1_work(100, &n);
	assert_int_equal(n.calls, 100 * 600);
	assert_int_equal(n.bytes, 100 * (100 * 45 + table));
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
		cmocka_unit_test(test_calls_counts),
		cmocka_unit_test(test_num_tables),
		cmocka_unit_test(test_mem1_counts),
		cmocka_unit_test(test_kind_times),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
