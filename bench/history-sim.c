// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench/history.sh's simulator: how change points (src/stats/changepoint.c)
 * find known shifts in nightly series with the machine's noise, and what a
 * night-against-night compare would have said of the same nights.
 *
 * A night is RUNS runs, each the true level times exp(sd x N(0,1)) (sd the
 * per-run noise); the series holds each night's geometric mean.  Series of
 * NIGHTS nights; a shift of SIZE at a random night in the middle half.
 *   recall     series whose shift is found within 3 nights of where it is
 *   precision  change points found within 3 nights of a true shift, of all
 *   a/a_cp     A/A series (no shift) with any change point
 *   red        nights of the A/A series a night-against-night test calls
 *              worse (Welch's t on the runs' logs, p < 0.05, change >= 2%:
 *              jobmix compare's rule for one metric)
 * Seeded: the same output every time.
 *
 *   history-sim TRIALS [NIGHTS] [RUNS]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "jobmix/changepoint.h"
#include "jobmix/rng.h"
#include "jobmix/stats.h"

static double gauss(struct jm_rng *g)
{
	double u1 = jm_rng_double(g), u2 = jm_rng_double(g);
	if (u1 < 1e-300)
		u1 = 1e-300;
	return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

/* One series: night values (geometric means) and every run's log, shift at `at` (0: none). */
static void nights(struct jm_rng *g, unsigned n, unsigned runs, double sd, unsigned at,
		   double size, double *val, double *logs)
{
	for (unsigned i = 0; i < n; i++) {
		double level = log(1000 * (at && i >= at ? 1 + size : 1)), s = 0;
		for (unsigned r = 0; r < runs; r++) {
			double l = level + sd * gauss(g);
			logs[i * runs + r] = l;
			s += l;
		}
		val[i] = exp(s / runs);
	}
}

/* Night i against night i-1 as compare judges one metric: worse? */
static int night_red(const double *logs, unsigned runs, unsigned i)
{
	struct stats_summary a, b;
	stats_summarize(logs + (i - 1) * runs, runs, &a);
	stats_summarize(logs + i * runs, runs, &b);
	double t, df, p = stats_welch(&b, &a, &t, &df);
	return p < 0.05 && expm1(b.mean - a.mean) <= -0.02;
}

int main(int argc, char **argv)
{
	unsigned trials = argc > 1 ? (unsigned)atoi(argv[1]) : 400;
	unsigned n = argc > 2 ? (unsigned)atoi(argv[2]) : 60;
	unsigned runs = argc > 3 ? (unsigned)atoi(argv[3]) : 3;
	static const double sds[] = { 0.05, 0.10, 0.15 };
	static const double sizes[] = { -0.02, -0.05, -0.10, -0.20 };
	double *val = calloc(n, sizeof(*val)), *logs = calloc((size_t)n * runs, sizeof(*logs));
	if (!val || !logs)
		return 2;
	printf("%u nights of %u runs a night, %u trials a row; change points: alpha %g, window %u, "
	       "%u nights a side at least\n", n, runs, trials, CP_ALPHA_DEFAULT, CP_WINDOW_DEFAULT,
	       CP_MIN_SEG_DEFAULT);
	printf("%-8s %-7s %8s %10s %10s\n", "noise", "shift", "recall", "precision", "found/series");
	for (size_t s = 0; s < 3; s++) {
		for (size_t z = 0; z < 4; z++) {
			struct jm_rng g;
			jm_rng_seed(&g, 1000 * s + z + 1, 17);
			unsigned hit = 0, near = 0, found = 0;
			for (unsigned t = 0; t < trials; t++) {
				unsigned at = n / 4 + (unsigned)jm_rng_below(&g, n / 2);
				nights(&g, n, runs, sds[s], at, sizes[z], val, logs);
				struct cp_point *cp;
				size_t k;
				if (cp_detect(val, n, NULL, &cp, &k))
					return 2;
				int h = 0;
				for (size_t i = 0; i < k; i++)
					if (cp[i].at + 3 >= at && cp[i].at <= at + 3) {
						near++;
						h = 1;
					}
				hit += h;
				found += (unsigned)k;
				free(cp);
			}
			printf("%5.0f%%   %+5.0f%% %7.1f%% %9.1f%% %10.2f\n", sds[s] * 100, sizes[z] * 100,
			       100.0 * hit / trials, found ? 100.0 * near / found : 100.0,
			       (double)found / trials);
		}
	}
	printf("\nA/A (no shift): series with a false change point, and nights a night-against-night\n"
	       "compare calls worse\n%-8s %10s %14s %18s\n", "noise", "a/a_cp", "red nights",
	       "series with a red");
	for (size_t s = 0; s < 3; s++) {
		struct jm_rng g;
		jm_rng_seed(&g, 9000 + s, 17);
		unsigned any = 0, red = 0, red_series = 0;
		for (unsigned t = 0; t < trials; t++) {
			nights(&g, n, runs, sds[s], 0, 0, val, logs);
			struct cp_point *cp;
			size_t k;
			if (cp_detect(val, n, NULL, &cp, &k))
				return 2;
			any += k > 0;
			free(cp);
			unsigned r = 0;
			for (unsigned i = 1; i < n; i++)
				r += (unsigned)night_red(logs, runs, i);
			red += r;
			red_series += r > 0;
		}
		printf("%5.0f%%   %9.1f%% %13.1f%% %17.1f%%\n", sds[s] * 100, 100.0 * any / trials,
		       100.0 * red / ((double)trials * (n - 1)), 100.0 * red_series / trials);
	}
	free(val);
	free(logs);
	return 0;
}
