// SPDX-License-Identifier: GPL-2.0-only
/*
 * Time per job of the 15 arithmetic kinds, built with whatever flags the
 * caller chose (bench/arith-flags.sh builds it with -O2 and with -O3
 * -march=native).  Prints "name seconds" per kind: the median of REPS runs
 * of one job each.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "jobmix/job.h"
#include "compute.h"

extern const struct job_kind job_add_double, job_add_float, job_add_long, job_add_int,
	job_add_short, job_mul_double, job_mul_float, job_mul_long, job_mul_int, job_mul_short,
	job_div_double, job_div_float, job_div_long, job_div_int, job_div_short;

static const struct job_kind *const kinds[] = {
	&job_add_double, &job_add_float, &job_add_long, &job_add_int, &job_add_short,
	&job_mul_double, &job_mul_float, &job_mul_long, &job_mul_int, &job_mul_short,
	&job_div_double, &job_div_float, &job_div_long, &job_div_int, &job_div_short,
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 5;
	if (reps < 1 || reps > 1000)
		reps = 5;
	double t[1000];
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		const struct job_kind *k = kinds[i];
		struct job_ctx c = { .job_name = k->name };
		for (int r = 0; r < reps; r++) {
			double t0 = now_s();
			k->run_once(&c, k, NULL, NULL);
			t[r] = now_s() - t0;
		}
		qsort(t, (size_t)reps, sizeof(t[0]), cmp);
		printf("%s %.6f\n", k->name, t[reps / 2]);
	}
	return 0;
}
