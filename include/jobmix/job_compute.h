/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Test hooks of the compute and library job families (src/jobs/arith.c,
 * calls.c, math.c, libc.c), apart so that tests/unit/test_compute.c can
 * drive a kernel with a chosen seed and feed the result checkers wrong
 * answers.  Private to these families; nothing else includes this.
 */
#ifndef JOBMIX_JOBS_COMPUTE_H
#define JOBMIX_JOBS_COMPUTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "jobmix/rng.h"

#include "jobmix/job.h"

/* The three values of an arithmetic chain after its loops (as double or int64_t). */
struct job_arith_out {
	double d[3];     /* double and float kinds: x, x1, x2 */
	int64_t l[3];    /* integer kinds */
};

/*
 * An arithmetic kind's variant (job_add_int.variant and so on): re-aim's
 * loop count, its two operands (x1, x2; x starts at x0) and the kernel.
 * The kernel runs `loops` iterations of re-aim's 12 dependent operations
 * on (x, x1, x2), the operands read through volatiles so that no compiler
 * knows them, and writes the final values to *out.
 */
struct job_arith {
	uint64_t loops;
	double x0, x1, x2;
	void (*kernel)(const struct job_arith *v, uint64_t loops, struct job_arith_out *out);
};

/* ---- math.c ---- */

/* sieve: primes up to JOB_SIEVE_LIMIT, and how many there are. */
#define JOB_SIEVE_LIMIT 1000000u
#define JOB_SIEVE_PRIMES 78498u

/* Sieve of Eratosthenes over 0..limit in map (limit + 1 bytes); returns the prime count. */
uint64_t job_sieve_count(unsigned char *map, uint64_t limit);
/* re-aim's marking pass over 0..limit (every n from 2, multiples from 2n); returns the marks. */
uint64_t job_sieve_mark(unsigned char *map, uint64_t limit);
/* 0 if `primes` is the count of primes up to JOB_SIEVE_LIMIT; else -1 and c->err. */
int job_sieve_check(struct job_ctx *c, uint64_t primes);

/* re-aim's argument tables of num_rtns_1, trig_rtns, series_1, matrix_rtns. */
#define JOB_NUM_VALS 500
#define JOB_NUM_VALS10 10000
struct job_num {
	double vals[JOB_NUM_VALS];      /* re-aim's vals: 0, 1, denormal, halving   */
	double vals10[JOB_NUM_VALS10];  /* re-aim's vals10: [-10, 10], some denormal */
	unsigned count, count10;        /* their cursors, kept from job to job       */
	struct random_data rdata;       /* num_rtns_1's srand/rand state             */
	char rstate[128];
};

/* Fill the tables (vals10 from rng) and reset the cursors. */
void job_num_init(struct job_num *t, struct jm_rng *rng);
/* re-aim's num_rtns_1 and matrix_rtns rounds. */
void job_num_work(struct job_num *t, unsigned rounds);
void job_matrix_work(struct job_num *t, unsigned rounds);
/* re-aim's trig_rtns rounds; -1 if a result is outside its range. */
int job_trig_work(struct job_num *t, unsigned rounds);

/* sin(x) by re-aim's Taylor series; *terms gets the number of terms summed. */
double job_series_sin(double x, int *terms);
/* 0 if `got` is sin(x) within re-aim's tolerance (0.0001); else -1 and c->err. */
int job_series_check(struct job_ctx *c, double x, double got);

/* re-aim's Newton-Raphson on 1000 sin x cos x from start; *iters gets its tries (100: none). */
double job_newton_solve(double start, int *iters);
/* 0 if the solve converged to a root; else -1 and c->err. */
int job_newton_check(struct job_ctx *c, double start, double root, int iters);

/*
 * re-aim's Gauss-Jordan solve of the augmented system a (high rows of
 * high + 1 values, the last the right-hand side), overwritten; the
 * solution in x.  Returns 0, or -1 on a zero pivot.
 */
int job_gauss_solve(size_t high, double *a, double *x);
/* re-aim's test of x against the original system a; else -1 and c->err. */
int job_gauss_check(struct job_ctx *c, size_t high, const double *a, const double *x);
/* re-aim's array_rtns on a and a_orig (100 x 101 doubles each) and x (100). */
int job_array_work(struct job_ctx *c, double *a, double *a_orig, double *x, unsigned systems);

/* ---- calls.c ---- */

/* re-aim's fun_cal loops with nargs 0, 1, 2 or 15; returns the callees' counter, *calls set. */
int64_t job_calls_work(int nargs, int input, unsigned outer, uint64_t *calls);

/* ---- libc.c ---- */

/* What string_rtns called, counted by job_string_work(). */
struct job_str_count {
	uint64_t sprintf;    /* sprintf calls                           */
	uint64_t numeric;    /* atof, strtod, atol, atoi, strtol        */
	uint64_t ctype;      /* is*() classifications                   */
	uint64_t casemap;    /* toupper / tolower                        */
	uint64_t strcat, strncat;
	uint64_t cmp;        /* strcmp / strncmp                         */
	uint64_t search;     /* strcoll, strcspn, strpbrk, strrchr, strspn, strstr */
	uint64_t ctime;      /* each with its zone check (tzset)         */
};

/* Calls and bytes of the mem_rtns_2, ram_copy and misc_rtns_1 work. */
struct job_mem_count {
	uint64_t calls, bytes;
};

/* re-aim's mem_rtns_1 rounds (calls and bytes asked for); its count, or -1 if out of memory. */
int64_t job_mem1_work(unsigned rounds, struct job_mem_count *n);
/* re-aim's mem_rtns_2 rounds on two buffers of 8 KiB + 8 bytes. */
void job_mem2_work(char *b1, char *b2, unsigned rounds, struct job_mem_count *n);
/* re-aim's ram_copy copies from a to b, both 64 KiB + 8 bytes. */
void job_ram_work(char *a, char *b, unsigned rounds, struct job_mem_count *n);
/* re-aim's sort_rtns_1 on its table v (10,000 ints); calls: qsorts + bsearches, bytes: hits. */
int job_sort_work(struct job_ctx *c, int *v, unsigned rounds, struct job_mem_count *n);
/* re-aim's misc_rtns_1 rounds; -1 and c->err on a failed call. */
int job_misc_work(struct job_ctx *c, unsigned rounds, struct job_mem_count *n);

/* re-aim's string_rtns work: `rounds` rounds, the clock starting at t0; counts into *n. */
int64_t job_string_work(unsigned rounds, time_t t0, struct job_str_count *n);

/* 0 if v[0..n) is in ascending order; else -1 and c->err. */
int job_sort_check(struct job_ctx *c, const int *v, size_t n);
/*
 * bsearch for key in v[0..n): 0 if it is found (and the element found
 * equals key) when `present`, or not found when not; else -1 and c->err.
 */
int job_bsearch_check(struct job_ctx *c, const int *v, size_t n, int key, bool present);
/*
 * dir_rtns_1's work: `calls` readdir calls over the first directory of the
 * NULL-terminated list that opens, rewinding at its end.  -1 and c->err if
 * none opens or readdir fails.
 */
int job_dir_read(struct job_ctx *c, const char *const *dirs, unsigned calls);

#endif
