// SPDX-License-Identifier: GPL-2.0-only
/*
 * What re-aim-7's driver spends around each job, outside the job's own work,
 * for bench/vs-reaim.sh: per job its runloop draws a random number, formats
 * two strings (the job's name and the child number), compares the argument
 * with "DISKS" and reads the clock twice with times(2) - two system calls,
 * where jobmix reads CLOCK_MONOTONIC through the vDSO.  Written from that
 * description (re-aim's driver.c, runloop), not from its code.  On a
 * machine whose system calls are dear (a paravirtualised guest: about 1 us
 * each) that bookkeeping is a large part of a job that takes a few
 * microseconds, and re-aim's JPM of such a job measures its harness as much
 * as the job.
 *
 *   reaim-harness [N]   prints "harness_us times_us": the mean cost of the
 *                       bookkeeping of one job, and of one times() call,
 *                       over N (1,000,000) jobs, best of 5
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/times.h>
#include <time.h>

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static volatile long sink;

static double per_job(long n)
{
	char name[128], child[128];
	const char *volatile args = "20";
	double t0 = now_s();
	for (long i = 0; i < n; i++) {
		int k = rand() % 7;
		snprintf(name, sizeof(name), "%s  ", "matrix_rtns");
		if (strcmp((const char *)args, "DISKS") == 0)
			k++;
		snprintf(child, sizeof(child), "\nChild #%d: ", k);
		clock_t a = times(NULL);
		clock_t z = times(NULL);
		sink += (long)(z - a) + name[0] + child[1];
	}
	return (now_s() - t0) / (double)n;
}

static double per_times(long n)
{
	double t0 = now_s();
	for (long i = 0; i < n; i++)
		sink += (long)times(NULL);
	return (now_s() - t0) / (double)n;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	if (n < 1) {
		fprintf(stderr, "usage: reaim-harness [N > 0]\n");
		return 2;
	}
	double job = 1e9, call = 1e9;
	for (int r = 0; r < 5; r++) {
		double j = per_job(n), c = per_times(n);
		job = j < job ? j : job;
		call = c < call ? c : call;
	}
	printf("%.3f %.3f\n", job * 1e6, call * 1e6);
	return 0;
}
