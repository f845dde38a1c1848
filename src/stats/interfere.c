// SPDX-License-Identifier: GPL-2.0-only
/*
 * Samples that survive a busy host (stats.h): the bound on other work's
 * share of the CPUs above which a sample is measured again, taken from the
 * run's own quiet samples, and the decision for one sample.  Pure
 * functions; no I/O.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "jobmix/stats.h"

static int interfere_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/*
 * The median of the finite values among pct[0..n), into *med; false when
 * there is none (or no memory for the copy).
 */
static bool interfere_median(const double *pct, size_t n, double *med)
{
	double *v = n ? malloc(n * sizeof(*v)) : NULL;
	size_t k = 0;
	for (size_t i = 0; v && i < n; i++)
		if (isfinite(pct[i]))
			v[k++] = pct[i];
	if (k)
		qsort(v, k, sizeof(*v), interfere_cmp);
	if (k)
		*med = k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
	free(v);
	return k > 0;
}

double stats_interfere_bound(double given, const double *quiet, size_t n)
{
	double med;
	if (given > 0)
		return given;
	if (!interfere_median(quiet, n, &med))
		return NAN;
	/* on a host already near full, half of what is left to the users */
	double margin = (100 - med) / 2;
	if (margin > STATS_INTERFERE_MARGIN_PCT)
		margin = STATS_INTERFERE_MARGIN_PCT;
	double b = med + margin;
	return b < STATS_INTERFERE_FLOOR_PCT ? STATS_INTERFERE_FLOOR_PCT : b;
}

enum stats_interfere_act stats_interfere_decide(double other_pct, double bound, unsigned done,
						unsigned max)
{
	if (!isfinite(other_pct) || !isfinite(bound) || other_pct <= bound)
		return STATS_IF_KEEP;
	return done < max ? STATS_IF_REMEASURE : STATS_IF_FLAG;
}
