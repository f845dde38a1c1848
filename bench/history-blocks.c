// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench/history.sh's false-alarm check of the nightly verdict: A/A series
 * of NIGHTS blocks (nights) of RUNS runs, each run the level times
 * exp(between x N) for its night and exp(within x N) for itself, judged
 * night by night as `jobmix history --order night` does
 * (cp_detect_blocks on the nights so far; a newest non-host change that is
 * a fall of 2% or more is a regression, and the first night one appears
 * exits 1).  Prints the share of series that ever exit 1.  Seeded.
 *
 *   history-blocks SERIES NIGHTS RUNS WITHIN BETWEEN
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "jobmix/changepoint.h"
#include "jobmix/rng.h"

static double gauss(struct jm_rng *g)
{
	double u1 = jm_rng_double(g), u2 = jm_rng_double(g);
	if (u1 < 1e-300)
		u1 = 1e-300;
	return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

int main(int argc, char **argv)
{
	if (argc != 6) {
		fprintf(stderr, "usage: history-blocks SERIES NIGHTS RUNS WITHIN BETWEEN\n");
		return 2;
	}
	unsigned ns = (unsigned)atoi(argv[1]), nb = (unsigned)atoi(argv[2]), k = (unsigned)atoi(argv[3]);
	double within = atof(argv[4]), between = atof(argv[5]);
	double *x = malloc(sizeof(*x) * nb * k);
	size_t *start = malloc(sizeof(*start) * (nb + 1));
	unsigned ever = 0, anycp = 0;
	struct jm_rng g;
	jm_rng_seed(&g, 44, 1);
	for (unsigned s = 0; s < ns; s++) {
		for (unsigned b = 0; b < nb; b++) {
			double level = 1000 * exp(between * gauss(&g));
			start[b] = b * k;
			for (unsigned r = 0; r < k; r++)
				x[b * k + r] = level * exp(within * gauss(&g));
		}
		int alarm = 0, cp_seen = 0;
		for (unsigned look = 2; look <= nb && !alarm; look++) {
			struct cp_point *cp;
			size_t n;
			start[look] = look * k;
			if (cp_detect_blocks(x, look * k, start, look, NULL, &cp, &n))
				return 1;
			cp_seen |= n > 0;
			alarm = n && cp[n - 1].change <= -0.02;
			free(cp);
		}
		ever += alarm;
		anycp += cp_seen;
	}
	printf("A/A nightly verdicts: %u series of %u nights of %u runs (noise %.0f%% a run, %.0f%% a night):\n"
	       "  ever exit 1: %u (%.1f%%); any change point at any night: %u (%.1f%%)\n",
	       ns, nb, k, within * 100, between * 100, ever, 100.0 * ever / ns, anycp,
	       100.0 * anycp / ns);
	free(x);
	free(start);
	return 0;
}
