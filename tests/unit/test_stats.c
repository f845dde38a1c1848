// SPDX-License-Identifier: GPL-2.0-only
/* Statistics: summaries, JTI, confidence intervals, Welch's test, histograms. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "jobmix/stats.h"

static void test_summary(void **state)
{
	(void)state;
	const double x[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	struct stats_summary s;
	stats_summarize(x, 8, &s);
	assert_int_equal(s.n, 8);
	assert_true(fabs(s.mean - 5.0) < 1e-12);
	assert_true(fabs(s.min - 2) < 1e-12 && fabs(s.max - 9) < 1e-12);
	/* sample stddev: sqrt(32/7) */
	assert_true(fabs(s.stddev - sqrt(32.0 / 7.0)) < 1e-12);
	stats_summarize(x, 1, &s);
	assert_true(s.stddev == 0 && s.mean == 2);
	stats_summarize(x, 0, &s);
	assert_int_equal(s.n, 0);
}

static void test_jti(void **state)
{
	(void)state;
	const double same[] = { 3, 3, 3, 3 };
	assert_true(fabs(stats_jti(same, 4) - 100) < 1e-9);
	const double spread[] = { 1, 3 };        /* mean 2, sd sqrt(2) */
	assert_true(fabs(stats_jti(spread, 2) - (1 - sqrt(2) / 2) * 100) < 1e-9);
	const double wild[] = { 0.01, 10, 0.01, 0.01 }; /* sd > mean: clamps at 0 */
	assert_true(stats_jti(wild, 4) == 0);
	assert_true(stats_jti(same, 1) == 100);
}

static void test_t_and_ci(void **state)
{
	(void)state;
	assert_true(fabs(stats_t95(1) - 12.706) < 1e-3);
	assert_true(fabs(stats_t95(10) - 2.228) < 1e-3);
	assert_true(fabs(stats_t95(1000) - 1.9623) < 1e-3);
	/* above 30 degrees of freedom the quantile is computed, not the low end of a band */
	assert_true(fabs(stats_t95(31) - 2.0395) < 1e-3);
	assert_true(fabs(stats_t95(35) - 2.0301) < 1e-3);
	assert_true(fabs(stats_t95(40) - 2.0211) < 1e-3);
	assert_true(fabs(stats_t95(60) - 2.0003) < 1e-3);
	assert_true(fabs(stats_t95(100) - 1.9840) < 1e-3);
	assert_true(fabs(stats_t95(2) - 4.3027) < 1e-3);
	assert_true(isinf(stats_t95(0)));
	struct stats_summary s = { .n = 4, .mean = 100, .stddev = 10 };
	assert_true(fabs(stats_ci95_half(&s) - 3.18245 * 10 / 2) < 1e-4);
	s.n = 1;
	assert_true(isnan(stats_ci95_half(&s)));   /* unknown, not zero-width */
}

static void test_welch(void **state)
{
	(void)state;
	/* identical samples: p = 1 */
	struct stats_summary a = { .n = 5, .mean = 10, .stddev = 1 };
	assert_true(fabs(stats_welch_p(&a, &a) - 1) < 1e-9);
	/* far apart: tiny p */
	struct stats_summary b = { .n = 5, .mean = 20, .stddev = 1 };
	assert_true(stats_welch_p(&a, &b) < 1e-6);
	/* t = 2.0 with df = 18 (equal n = 10, equal sd): two-sided p = 0.0608 */
	struct stats_summary c = { .n = 10, .mean = 0, .stddev = 1 };
	struct stats_summary d = { .n = 10, .mean = 2 * sqrt(0.2), .stddev = 1 };
	double p = stats_welch_p(&c, &d);
	assert_true(fabs(p - 0.0608) < 0.001);
	/* too few samples: no evidence */
	struct stats_summary e = { .n = 1, .mean = 100 };
	assert_true(stats_welch_p(&a, &e) == 1.0);
}

/* Published worked examples of Welch's test, and Holm's adjustment. */
static void test_welch_published(void **state)
{
	(void)state;
	double t, df;
	/* A = 23,21,25,20,27; B = 18,19,17,20,16: t = 3.5546, df = 6.23, p = 0.011267 */
	const double xa[] = { 23, 21, 25, 20, 27 }, xb[] = { 18, 19, 17, 20, 16 };
	struct stats_summary a, b;
	stats_summarize(xa, 5, &a);
	stats_summarize(xb, 5, &b);
	double p = stats_welch(&a, &b, &t, &df);
	assert_true(fabs(t - 3.5546) < 1e-4);
	assert_true(fabs(df - 6.23) < 0.005);
	assert_true(fabs(p - 0.011267) < 1e-5);
	/* n = 20, mean 100, s 15 against n = 20, mean 95, s 20: t = 0.895, df = 35.2 */
	struct stats_summary c = { .n = 20, .mean = 100, .stddev = 15 };
	struct stats_summary d = { .n = 20, .mean = 95, .stddev = 20 };
	p = stats_welch(&c, &d, &t, &df);
	assert_true(fabs(t - 0.8944) < 1e-3);
	assert_true(fabs(df - 35.2) < 0.05);
	assert_true(p > 0.3 && p < 0.4);
	/* the sign follows a - b */
	stats_welch(&b, &a, &t, NULL);
	assert_true(t < 0);
	/* normal: z = 1.96 -> 0.05 */
	assert_true(fabs(stats_normal_p(1.959964) - 0.05) < 1e-6);
	assert_true(fabs(stats_normal_p(-1.959964) - 0.05) < 1e-6);
	/* Holm: 0.01, 0.04, 0.03, 0.005 -> x4, x3, x2, x1 in order of p, monotone */
	const double ps[] = { 0.01, 0.04, 0.03, 0.005 };
	double adj[4];
	stats_holm(ps, 4, adj);
	assert_true(fabs(adj[3] - 0.02) < 1e-12);   /* 0.005 x 4 */
	assert_true(fabs(adj[0] - 0.03) < 1e-12);   /* 0.01 x 3 */
	assert_true(fabs(adj[2] - 0.06) < 1e-12);   /* 0.03 x 2 */
	assert_true(fabs(adj[1] - 0.06) < 1e-12);   /* max(0.04 x 1, 0.06) */
	const double big[] = { 0.9, 0.6 };
	stats_holm(big, 2, adj);
	assert_true(adj[0] == 1.0 && adj[1] == 1.0);
}

static void test_histogram(void **state)
{
	(void)state;
	/* index is monotone and in range */
	unsigned last = 0;
	for (uint64_t v = 0; v < (1ull << 40); v = v * 5 / 4 + 1) {
		unsigned i = stats_hist_index(v);
		assert_true(i >= last);
		assert_true(i < STATS_HIST_BUCKETS);
		last = i;
	}
	static struct stats_hist h;
	memset(&h, 0, sizeof(h));
	/* 1..100000 us uniformly: p50 ~ 50 ms, p99 ~ 99 ms within the bucket resolution */
	for (uint64_t us = 1; us <= 100000; us++)
		stats_hist_add(&h, us * 1000);
	assert_int_equal(h.count, 100000);
	assert_true(h.max_ns == 100000000ull);
	double p50 = stats_hist_quantile(&h, 0.5), p99 = stats_hist_quantile(&h, 0.99);
	assert_true(fabs(p50 - 50e6) / 50e6 < 0.07);
	assert_true(fabs(p99 - 99e6) / 99e6 < 0.07);
	assert_true(stats_hist_quantile(&h, 1.0) <= 100e6);
	static struct stats_hist g;
	memset(&g, 0, sizeof(g));
	stats_hist_add(&g, 500e6);
	stats_hist_merge(&h, &g);
	assert_int_equal(h.count, 100001);
	assert_true(h.max_ns == 500000000ull);
	assert_true(stats_hist_quantile(&h, 1.0) > 400e6);
}

/*
 * The CI of JPM on the ratio scale: two samples far apart (a run's by_users
 * reached ci95_lo -78,308 JPM with the CI of the arithmetic mean) give a
 * positive low end, the interval holds the geometric mean, and for samples
 * close together it is about the CI of the mean.
 */
static void test_ci_log(void **state)
{
	(void)state;
	static const struct {
		size_t n;
		double x[6];
	} cases[] = {
		{ 2, { 1000, 100000 } },
		{ 2, { 24453, 724 } },
		{ 2, { 5000, 5000 } },
		{ 3, { 9000, 31000, 12000 } },
		{ 6, { 100, 102, 98, 100, 101, 99 } },
	};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		double lo, hi, g = stats_geomean(cases[c].x, cases[c].n);
		struct stats_summary s;
		stats_summarize(cases[c].x, cases[c].n, &s);
		stats_ci95_log(cases[c].x, cases[c].n, &lo, &hi);
		assert_true(lo > 0 && lo <= g * (1 + 1e-12) && g <= hi * (1 + 1e-12));
		assert_true(s.mean - stats_ci95_half(&s) < lo || s.stddev == 0);
		/* symmetric on the log scale: lo x hi = g^2 */
		assert_true(fabs(log(lo) + log(hi) - 2 * log(g)) < 1e-9);
	}
	/* the linear CI of the first case goes below zero; this one does not */
	struct stats_summary s;
	stats_summarize(cases[0].x, 2, &s);
	assert_true(s.mean - stats_ci95_half(&s) < 0);
	/* close samples: about the CI of the mean (within 0.1%) */
	double lo, hi;
	stats_ci95_log(cases[4].x, 6, &lo, &hi);
	stats_summarize(cases[4].x, 6, &s);
	double h = stats_ci95_half(&s);
	assert_true(fabs(lo - (s.mean - h)) < 1e-3 * s.mean);
	assert_true(fabs(hi - (s.mean + h)) < 1e-3 * s.mean);
	assert_true(fabs(stats_geomean(cases[0].x, 2) - 10000) < 1e-6);
	/* unknown: one sample, or a sample without a log */
	stats_ci95_log(cases[0].x, 1, &lo, &hi);
	assert_true(isnan(lo) && isnan(hi));
	const double zero[] = { 0, 5000 };
	stats_ci95_log(zero, 2, &lo, &hi);
	assert_true(isnan(lo) && isnan(hi));
	assert_true(isnan(stats_geomean(zero, 2)) && isnan(stats_geomean(zero, 0)));
}

/* min <= p50 <= p99 <= max, from the histogram h of the samples x (ns). */
static void expect_order(const struct stats_hist *h, const uint64_t *x, size_t n)
{
	uint64_t min = UINT64_MAX, max = 0;
	for (size_t i = 0; i < n; i++) {
		min = x[i] < min ? x[i] : min;
		max = x[i] > max ? x[i] : max;
	}
	assert_true(h->min_ns == min && h->max_ns == max);
	double last = (double)min;
	for (double q = 0; q <= 1.0001; q += 0.01) {
		double v = stats_hist_quantile(h, q);
		assert_true(v >= last && v >= (double)min && v <= (double)max);
		last = v;
	}
	assert_true(stats_hist_quantile(h, 0) == (double)min);
	assert_true(stats_hist_quantile(h, 1) == (double)max);
}

/*
 * Percentiles come from the histogram and the exact min and max: a run
 * whose jobs all take about the same time gives p99 >= mean (a bucket's
 * midpoint put a lone 7.17 ms job's p50 and p99 at 7.08 ms, below its
 * mean; fserver -j 10 ran one job of each kind a user, and half its kinds
 * showed a p99 below the mean), min <= p50 <= p99 <= max always, and a
 * p99 below the mean only where the distribution is that skewed.
 */
static void test_hist_quantile_order(void **state)
{
	(void)state;
	static struct stats_hist h;
	static uint64_t x[2000];
	static const uint64_t lone[] = { 7172493, 1040000, 257146, 17704, 5, 1000000 };

	/* one sample: every quantile is that sample, the mean */
	for (size_t i = 0; i < sizeof(lone) / sizeof(lone[0]); i++) {
		memset(&h, 0, sizeof(h));
		stats_hist_add(&h, lone[i]);
		assert_true(stats_hist_quantile(&h, 0.5) == (double)lone[i]);
		assert_true(stats_hist_quantile(&h, 0.99) == (double)lone[i]);
	}
	/* about the same time (1.00 .. 1.05 ms, across a bucket edge at 1.048576 ms) */
	static const struct { uint64_t base, spread; size_t n; } same[] = {
		{ 1000000, 50000, 2000 }, { 1000000, 50000, 31 }, { 7100000, 20000, 3 },
		{ 1040000, 0, 50 }, { 983040, 65535, 1000 },
	};
	for (size_t c = 0; c < sizeof(same) / sizeof(same[0]); c++) {
		memset(&h, 0, sizeof(h));
		for (size_t i = 0; i < same[c].n; i++) {
			x[i] = same[c].base + (same[c].spread ? (i * 7919) % same[c].spread : 0);
			stats_hist_add(&h, x[i]);
		}
		double mean = (double)h.sum_ns / (double)h.count;
		if (stats_hist_quantile(&h, 0.99) < mean)
			print_error("case %zu: p99 %.0f below mean %.0f\n", c,
				    stats_hist_quantile(&h, 0.99), mean);
		assert_true(stats_hist_quantile(&h, 0.99) >= mean);
		expect_order(&h, x, same[c].n);
	}
	/* merged from users: the same figures as one histogram of all samples */
	static struct stats_hist u[4], all;
	memset(u, 0, sizeof(u));
	memset(&all, 0, sizeof(all));
	for (size_t i = 0; i < 400; i++) {
		x[i] = 2000000 + (i * 104729) % 3000000;
		stats_hist_add(&u[i % 4], x[i]);
	}
	for (size_t k = 0; k < 4; k++)
		stats_hist_merge(&all, &u[k]);
	expect_order(&all, x, 400);
	/* really skewed: 995 jobs at 1 ms, 5 at 1 s: the mean (6 ms) lies above p99 */
	memset(&h, 0, sizeof(h));
	for (size_t i = 0; i < 1000; i++) {
		x[i] = i < 995 ? 1000000 : 1000000000;
		stats_hist_add(&h, x[i]);
	}
	assert_true(stats_hist_quantile(&h, 0.99) < (double)h.sum_ns / 1000);
	assert_true(stats_hist_quantile(&h, 0.99) >= 1000000 &&
		    stats_hist_quantile(&h, 0.99) < 1048576);   /* in the 1 ms bucket */
	expect_order(&h, x, 1000);
}

/* The interference bound: given, else the median of the quiet samples + margin, floored. */
static void test_interfere_bound(void **state)
{
	(void)state;
	const double quiet[] = { 2, NAN, 40, 3, 4 };
	/* nothing measured yet: not judged */
	assert_true(isnan(stats_interfere_bound(0, NULL, 0)));
	const double none[] = { NAN };
	assert_true(isnan(stats_interfere_bound(0, none, 1)));
	/* given wins */
	assert_true(stats_interfere_bound(30, quiet, 5) == 30);
	/* median of 2, 3, 4, 40 is 3.5: 13.5 is below the floor */
	assert_true(stats_interfere_bound(0, quiet, 5) == STATS_INTERFERE_FLOOR_PCT);
	/* a host always 40% busy: 40 + margin, so its usual samples stay */
	const double busy[] = { 38, 42, 40 };
	double b = stats_interfere_bound(0, busy, 3);
	assert_true(b == 40 + STATS_INTERFERE_MARGIN_PCT);
	assert_int_equal(stats_interfere_decide(44, b, 0, 2), STATS_IF_KEEP);
	/* a hog on one of two CPUs on top: over */
	assert_int_equal(stats_interfere_decide(90, b, 0, 2), STATS_IF_REMEASURE);
	/* a host near full: half of what is left to the users, never a bound of 100 or more */
	const double full[] = { 94, 95, 96 };
	b = stats_interfere_bound(0, full, 3);
	assert_true(b == 97.5);
	assert_int_equal(stats_interfere_decide(98.2, b, 0, 2), STATS_IF_REMEASURE);
	assert_int_equal(stats_interfere_decide(96.5, b, 0, 2), STATS_IF_KEEP);
}

/* The decision: over the bound re-measures while tries are left, then flags. */
static void test_interfere_decide(void **state)
{
	(void)state;
	assert_int_equal(stats_interfere_decide(5, 15, 0, 2), STATS_IF_KEEP);
	assert_int_equal(stats_interfere_decide(15, 15, 0, 2), STATS_IF_KEEP);
	assert_int_equal(stats_interfere_decide(15.1, 15, 0, 2), STATS_IF_REMEASURE);
	assert_int_equal(stats_interfere_decide(60, 15, 1, 2), STATS_IF_REMEASURE);
	assert_int_equal(stats_interfere_decide(60, 15, 2, 2), STATS_IF_FLAG);
	/* --remeasure 0: flagged at once */
	assert_int_equal(stats_interfere_decide(60, 15, 0, 0), STATS_IF_FLAG);
	/* nothing to judge: kept */
	assert_int_equal(stats_interfere_decide(NAN, 15, 0, 2), STATS_IF_KEEP);
	assert_int_equal(stats_interfere_decide(60, NAN, 0, 2), STATS_IF_KEEP);
}

/* --point-noise's factor: (sd / target)^2 rounded up to a power of two, capped. */
static void test_size_factor(void **state)
{
	(void)state;
	struct stats_sizing f;
	static const struct {
		double sd, target, point_s, max_s;
		unsigned factor, wanted;
		bool cap_max, cap_time;
	} c[] = {
		{ 1.0, 3, 1, 60, 1, 1, false, false },      /* under the target: as asked */
		{ 3.0, 3, 1, 60, 1, 1, false, false },      /* at it: as asked */
		{ 3.3, 3, 1, 60, 2, 2, false, false },      /* 1.21 -> 2 */
		{ 6.0, 3, 1, 60, 4, 4, false, false },      /* exactly 4 stays 4 */
		{ 6.1, 3, 1, 60, 8, 8, false, false },      /* 4.13 -> 8 */
		{ 9.8, 3, 1, 60, 16, 16, false, false },    /* 10.7 -> 16 */
		{ 12.1, 3, 1, 60, 16, 32, true, false },    /* 16.3 -> 32: capped at 16 */
		{ 600, 0.5, 1, 0, 16, 1u << 20, true, false },  /* 1.44e6: the count stops at 2^20 */
		{ 9.8, 3, 10, 60, 4, 16, false, true },     /* 10 s a point: x4 is 40 s, x8 80 */
		{ 9.8, 3, 60, 60, 1, 16, false, true },     /* a point as long as the cap already */
		{ 9.8, 3, 0, 60, 16, 16, false, false },    /* no time known: no time cap */
		{ NAN, 3, 1, 60, 1, 1, false, false },      /* no sd (one pilot): as asked */
		{ 9.8, 0, 1, 60, 1, 1, false, false },      /* no target: as asked */
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		stats_size_factor(c[i].sd, c[i].target, c[i].point_s, c[i].max_s, &f);
		if (f.factor != c[i].factor || f.wanted != c[i].wanted ||
		    f.capped_max != c[i].cap_max || f.capped_time != c[i].cap_time)
			fail_msg("case %zu: sd %g target %g: factor %u wanted %u caps %d %d", i,
				 c[i].sd, c[i].target, f.factor, f.wanted, f.capped_max,
				 f.capped_time);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_summary),
		cmocka_unit_test(test_jti),
		cmocka_unit_test(test_t_and_ci),
		cmocka_unit_test(test_welch),
		cmocka_unit_test(test_welch_published),
		cmocka_unit_test(test_histogram),
		cmocka_unit_test(test_ci_log),
		cmocka_unit_test(test_hist_quantile_order),
		cmocka_unit_test(test_interfere_bound),
		cmocka_unit_test(test_interfere_decide),
		cmocka_unit_test(test_size_factor),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
