// SPDX-License-Identifier: GPL-2.0-only
/*
 * The sequential test (stats.h, seq.c) under its own stopping rule: A/A
 * sequences looked at after every round and stopped at the first decision
 * keep their false alarms at most alpha (normal, t with 3 df, and bursts),
 * a 10% change is found within 20 rounds, identical sides end `same`, and
 * the rounds it asks for are more than were run.  Seeded: deterministic.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "jobmix/stats.h"

#define TRIALS 10000
#define MAX_ROUNDS 20
#define SD 0.05           /* per-round sd of the log ratio: a realistic noisy host */
#define THR 0.05
#define ALPHA 0.05

static uint64_t rng_state;

static double rng_u(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return ((double)(rng_state >> 11) + 0.5) / 9007199254740992.0;
}

static double rng_normal(void)
{
	return sqrt(-2 * log(rng_u())) * cos(2 * M_PI * rng_u());
}

/* Student's t with 3 df, scaled to unit sd (its variance is 3). */
static double rng_t3(void)
{
	double z = rng_normal(), c = 0;
	for (int i = 0; i < 3; i++) {
		double y = rng_normal();
		c += y * y;
	}
	return z / sqrt(c / 3) / sqrt(3.0);
}

/* Bursts: one round in ten hit on either side by a disturbance up to 5 sds and more. */
static double rng_burst(void)
{
	double x = rng_normal();
	if (rng_u() < 0.1)
		x += (rng_u() < 0.5 ? -1 : 1) * 5 * fabs(rng_normal());
	return x;
}

enum outcome { OUT_UNDECIDED, OUT_SAME, OUT_UP, OUT_DOWN };

struct tally {
	unsigned n[4];
	unsigned rounds[TRIALS];  /* rounds to the decision (MAX_ROUNDS + 1: none) */
};

/*
 * TRIALS sequences of up to MAX_ROUNDS log ratios shift + SD x noise(),
 * tested after every round from the 2nd, stopped at the first decision of
 * stats_seq_test at threshold thr; naive: a fixed-n Student t at 95% instead.
 */
static void simulate(double shift, double (*noise)(void), double thr, bool naive,
		     struct tally *t)
{
	double d[MAX_ROUNDS];
	memset(t, 0, sizeof(*t));
	rng_state = 0x9E3779B97F4A7C15ull;
	for (unsigned k = 0; k < TRIALS; k++) {
		enum outcome o = OUT_UNDECIDED;
		unsigned n;
		for (n = 1; n <= MAX_ROUNDS && o == OUT_UNDECIDED; n++) {
			d[n - 1] = shift + SD * noise();
			if (n < 2)
				continue;
			if (naive) {
				struct stats_summary s;
				stats_summarize(d, n, &s);
				double h = stats_t95(n - 1) * s.stddev / sqrt(n);
				o = s.mean - h > 0 ? OUT_UP : s.mean + h < 0 ? OUT_DOWN : o;
				continue;
			}
			struct stats_seq r;
			stats_seq_test(d, n, thr, ALPHA, &r);
			o = (enum outcome)r.verdict;
		}
		t->n[o]++;
		t->rounds[k] = o == OUT_UNDECIDED ? MAX_ROUNDS + 1 : n - 1;
	}
}

static double share(unsigned x)
{
	return (double)x / TRIALS;
}

static void test_cs_t(void **state)
{
	(void)state;
	/* tau 1, alpha 0.05: unbounded up to 4 rounds, then the closed form */
	assert_true(isinf(stats_cs_t(2, 0.05)) && isinf(stats_cs_t(4, 0.05)));
	assert_true(fabs(stats_cs_t(5, 0.05) - 8.45) < 0.01);
	/* n 20: g = 21^0.95 x 0.05^0.1 = 13.366, 1 - r = 0.6183, t = sqrt(19 x 0.3817 / 0.6183) */
	assert_true(fabs(stats_cs_t(20, 0.05) - 3.425) < 0.002);
	/* wider than the fixed-n interval it replaces, and the half-width keeps falling */
	for (size_t n = 5; n < 200; n++) {
		assert_true(stats_cs_t(n, 0.05) > stats_t95((unsigned)n - 1));
		assert_true(stats_cs_t(n + 1, 0.05) / sqrt(n + 1.0) < stats_cs_t(n, 0.05) / sqrt(n));
	}
}

/* The A/A false alarms (worse or better) under the stopping rule: <= alpha for each noise. */
static void test_aa_false_alarms(void **state)
{
	(void)state;
	static struct tally t;
	double (*noise[])(void) = { rng_normal, rng_t3, rng_burst };
	const char *name[] = { "normal", "t3", "bursts" };
	for (int i = 0; i < 3; i++) {
		simulate(0, noise[i], THR, false, &t);
		double fa = share(t.n[OUT_UP] + t.n[OUT_DOWN]);
		print_message("A/A %s, thr 5%%: false alarms %.2f%%, same %.1f%%\n", name[i],
			      fa * 100, share(t.n[OUT_SAME]) * 100);
		assert_true(fa <= ALPHA);
		/* no threshold at all: the sequence itself misses 0 at most alpha */
		simulate(0, noise[i], 0, false, &t);
		fa = share(t.n[OUT_UP] + t.n[OUT_DOWN]);
		print_message("A/A %s, thr 0: the sequence missed 0 in %.2f%%\n", name[i], fa * 100);
		assert_true(fa <= ALPHA);
	}
}

/* The simulation can see the harm: a fixed-n t interval looked at every round cries wolf. */
static void test_naive_peeking_fails(void **state)
{
	(void)state;
	static struct tally t;
	simulate(0, rng_normal, 0, true, &t);
	double fa = share(t.n[OUT_UP] + t.n[OUT_DOWN]);
	print_message("A/A normal, a fixed-n t-test at every round: %.1f%% false alarms\n",
		      fa * 100);
	assert_true(fa > 2 * ALPHA);
}

static unsigned median_rounds(const struct tally *t)
{
	unsigned c[MAX_ROUNDS + 2] = { 0 }, seen = 0;
	for (unsigned k = 0; k < TRIALS; k++)
		c[t->rounds[k]]++;
	for (unsigned r = 0; r < MAX_ROUNDS + 2; r++)
		if ((seen += c[r]) * 2 >= TRIALS)
			return r;
	return MAX_ROUNDS + 1;
}

/* A 10% change at 5% noise: found (the right way) in >= 80% within 20 rounds. */
static void test_power(void **state)
{
	(void)state;
	static struct tally t;
	double (*noise[])(void) = { rng_normal, rng_t3, rng_burst };
	const char *name[] = { "normal", "t3", "bursts" };
	for (int i = 0; i < 3; i++) {
		simulate(log(1.1), noise[i], THR, false, &t);
		print_message("+10%% %s: up %.1f%%, down %.2f%%, median rounds %u\n", name[i],
			      share(t.n[OUT_UP]) * 100, share(t.n[OUT_DOWN]) * 100,
			      median_rounds(&t));
		assert_true(share(t.n[OUT_UP]) >= 0.8);
		assert_int_equal(t.n[OUT_DOWN], 0);
		simulate(log(0.9), noise[i], THR, false, &t);
		assert_true(share(t.n[OUT_DOWN]) >= 0.8);
	}
}

/* Identical sides end `same` at a 5% threshold in at least half the trials within 20 rounds. */
static void test_aa_same(void **state)
{
	(void)state;
	static struct tally t;
	simulate(0, rng_normal, THR, false, &t);
	print_message("A/A normal: same %.1f%%, median rounds %u\n", share(t.n[OUT_SAME]) * 100,
		      median_rounds(&t));
	assert_true(share(t.n[OUT_SAME]) >= 0.5);
}

/*
 * What an undecided test asks for is more rounds (never none, never a total
 * below what ran: three rounds are never "about 2 would decide it"), and
 * that many more at the same mean and spread do decide.
 */
static void test_need(void **state)
{
	(void)state;
	const double d3[] = { 0.09, 0.11, 0.10 };   /* a clear 10%, but only 3 rounds */
	struct stats_seq r, r2;
	stats_seq_test(d3, 3, THR, ALPHA, &r);
	assert_int_equal(r.verdict, STATS_SEQ_UNDECIDED);
	assert_true(isinf(r.lo) && isinf(r.hi));
	assert_true(r.need >= 2);   /* 5 rounds at least bound the sequence */
	double d[64];
	for (size_t i = 0; i < r.n + r.need; i++)
		d[i] = r.mean + (i % 2 ? 1 : -1) * r.sd * sqrt((r.n + r.need - 1.0) / (r.n + r.need));
	stats_seq_test(d, r.n + r.need, THR, ALPHA, &r2);
	assert_int_equal(r2.verdict, STATS_SEQ_UP);
	stats_seq_test(d, r.n + r.need - 1, THR, ALPHA, &r2);
	assert_int_equal(r2.verdict, STATS_SEQ_UNDECIDED);
	/* every undecided verdict asks for at least one more */
	for (size_t n = 2; n < 12; n++) {
		for (size_t i = 0; i < n; i++)
			d[i] = 0.03 + 0.04 * ((double)(i % 3) - 1);
		stats_seq_test(d, n, THR, ALPHA, &r);
		if (r.verdict == STATS_SEQ_UNDECIDED)
			assert_true(r.need >= 1);
	}
	/* no spread and no difference: the sequence is a point inside the margins */
	const double z[] = { 0, 0, 0, 0, 0 };
	stats_seq_test(z, 5, THR, ALPHA, &r);
	assert_int_equal(r.verdict, STATS_SEQ_SAME);
	/* identical pairs whose logs differ by rounding alone: no change, p 1, t 0 (not -inf) */
	const double eq[] = { -1.1e-16, -1.1e-16, -1.1e-16, -1.1e-16, -1.1e-16 };
	stats_seq_test(eq, 5, THR, ALPHA, &r);
	assert_true(r.t == 0);
	assert_true(r.p == 1);
	assert_true(r.mean == 0);
	assert_int_equal(r.verdict, STATS_SEQ_SAME);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cs_t),
		cmocka_unit_test(test_aa_false_alarms),
		cmocka_unit_test(test_naive_peeking_fails),
		cmocka_unit_test(test_power),
		cmocka_unit_test(test_aa_same),
		cmocka_unit_test(test_need),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
