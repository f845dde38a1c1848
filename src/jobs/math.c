// SPDX-License-Identifier: GPL-2.0-only
/*
 * The AIM7 numeric jobs: sieve, num_rtns_1, trig_rtns, series_1, new_raph,
 * matrix_rtns and array_rtns.  Inputs come from the user's seeded RNG, so
 * nothing can be folded at compile time; every job either checks its
 * answer (a wrong one fails the job, unlike re-aim, which never looked)
 * or stores a digest of it to the volatile job_sink.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jobmix/job.h"
#include "jobmix/rng.h"
#include "compute.h"

/* Bits of a double, for job_sink. */
static uint64_t math_bits(double v)
{
	uint64_t u;
	memcpy(&u, &v, sizeof(u));
	return u;
}

/* ---- sieve ---- */

/*
 * re-aim's sieve: every number from 2 up is tried as a factor (not only up
 * to the square root), and a prime's multiples are marked from its double
 * (not its square), so each composite is marked once per prime factor.
 */
uint64_t job_sieve_mark(unsigned char *map, uint64_t limit)
{
	uint64_t marks = 0;
	memset(map, 1, limit + 1);
	for (uint64_t n = 2; n <= limit; n++) {
		if (!map[n])
			continue;
		for (uint64_t i = n + n; i <= limit; i += n) {
			map[i] = 0;
			marks++;
		}
	}
	return marks;
}

uint64_t job_sieve_count(unsigned char *map, uint64_t limit)
{
	if (limit < 2)
		return 0;
	job_sieve_mark(map, limit);
	uint64_t n = 0;
	for (uint64_t i = 2; i <= limit; i++)
		n += map[i];
	return n;
}

int job_sieve_check(struct job_ctx *c, uint64_t primes)
{
	if (primes != JOB_SIEVE_PRIMES)
		return job_failf(c, "sieve found %llu primes up to %u, expected %u",
				 (unsigned long long)primes, JOB_SIEVE_LIMIT, JOB_SIEVE_PRIMES);
	return 0;
}

/* The 1 MB map (a byte per number), per user. */
static int sieve_setup(struct job_ctx *c, const struct job_kind *k, const void *params,
		       void **state)
{
	(void)k, (void)params;
	unsigned char *map = malloc(JOB_SIEVE_LIMIT + 1);
	if (!map)
		return job_fail(c, "allocate the sieve map", NULL, ENOMEM);
	*state = map;
	return 0;
}

/* re-aim's 5 sieves below 10^6, the primes counted once after them. */
static int sieve_run(struct job_ctx *c, const struct job_kind *k, const void *params,
		     void *state)
{
	(void)k, (void)params;
	unsigned char *map = state;
	uint64_t marks = 0;
	for (int i = 0; i < 5; i++)
		marks += job_sieve_mark(map, JOB_SIEVE_LIMIT - 1);
	uint64_t n = 0;
	for (uint64_t i = 2; i < JOB_SIEVE_LIMIT; i++)
		n += map[i];
	job_sink = marks;
	return job_sieve_check(c, n);
}

static void math_free_state(struct job_ctx *c, const struct job_kind *k, const void *params,
			    void *state)
{
	(void)c, (void)k, (void)params;
	free(state);
}

const struct job_kind job_sieve = {
	.name = "sieve",
	.family = "compute",
	.summary = "5 x re-aim's sieve below 10^6 (every factor, multiples from 2n), checked",
	.doc = "AIM7 sieve, re-aim's work: five times, a sieve over 0..999,999 in a 1 MB "
	       "byte map (allocated once per user, before the clock starts) that tries every "
	       "number from 2 as a factor and marks a prime's multiples from its double, so a "
	       "composite is marked once per prime factor (about 2.7 million marks); then one "
	       "count of the primes. Fix over re-aim: the count is checked (78498) and a wrong "
	       "one fails the job.",
	.flags = 0,
	.setup = sieve_setup,
	.run_once = sieve_run,
	.teardown = math_free_state,
};

/* ---- num_rtns_1 ---- */

/* 100 x a mix of libm calls on random arguments, with two identities checked. */
static int num_rtns_run(struct job_ctx *c, const struct job_kind *k, const void *params,
			void *state)
{
	(void)k, (void)params, (void)state;
	double acc = 0;
	for (int i = 0; i < 100; i++) {
		double x = 1.0 + 100.0 * jm_rng_double(c->rng);
		double y = 0.5 + jm_rng_double(c->rng);
		double l = log(x), s = sqrt(x);
		double e = exp(l);
		if (fabs(e - x) > 1e-12 * x || fabs(s * s - x) > 1e-12 * x)
			return job_failf(c, "libm identity failed at x=%.17g: exp(log x)=%.17g, "
					 "sqrt(x)^2=%.17g", x, e, s * s);
		acc += log10(x) + pow(x, y) + fabs(y - x) + floor(x) + ceil(y) + fmod(x, y) +
		       atan2(y, x) + hypot(x, y) + cbrt(x) + sinh(y) + cosh(y) + tanh(y) +
		       expm1(y) + log1p(x);
	}
	job_sink = math_bits(acc);
	return 0;
}

const struct job_kind job_num_rtns_1 = {
	.name = "num_rtns_1",
	.family = "compute",
	.summary = "100 x a mix of libm calls (exp, log, pow, sqrt, fmod, atan2, ...)",
	.doc = "AIM7 num_rtns_1: 100 rounds of exp, log, log10, sqrt, pow, fabs, floor, ceil, "
	       "fmod, atan2, hypot, cbrt, sinh, cosh, tanh, expm1 and log1p on random "
	       "arguments. Fixes over re-aim: arguments come from the user's seeded RNG (no "
	       "constants to fold), exp(log x) and sqrt(x)^2 are checked against x, and the "
	       "sum goes to a volatile sink.",
	.flags = 0,
	.run_once = num_rtns_run,
};

/* ---- trig_rtns ---- */

/* 10,000 x a chain of trig calls; sin^2 + cos^2 = 1 checked each time. */
static int trig_run(struct job_ctx *c, const struct job_kind *k, const void *params,
		    void *state)
{
	(void)k, (void)params, (void)state;
	double acc = 0;
	for (int i = 0; i < 10000; i++) {
		double x = (jm_rng_double(c->rng) - 0.5) * 3.0; /* in (-1.5, 1.5) */
		double s = sin(x), co = cos(x);
		if (fabs(s * s + co * co - 1.0) > 1e-12)
			return job_failf(c, "sin^2 + cos^2 = %.17g at x=%.17g", s * s + co * co, x);
		double t = tan(x);
		acc += asin(s) + acos(co) + atan(t) + sin(co) + cos(s);
	}
	job_sink = math_bits(acc);
	return 0;
}

const struct job_kind job_trig_rtns = {
	.name = "trig_rtns",
	.family = "compute",
	.summary = "10,000 x a chain of sin, cos, tan, asin, acos, atan",
	.doc = "AIM7 trig_rtns: 10,000 rounds, each sin, cos and tan of a random angle, "
	       "then asin, acos and atan of the results and sin and cos of them again. "
	       "Fixes over re-aim: angles from the user's seeded RNG, sin^2 + cos^2 = 1 "
	       "checked each round, the sum stored to a volatile sink.",
	.flags = 0,
	.run_once = trig_run,
};

/* ---- series_1 ---- */

#define SERIES_MAX_TERMS 40
#define SERIES_TOL 1e-12

double job_series_sin(double x, int *terms)
{
	double term = x, sum = x, x2 = x * x;
	int n = 1;
	while (n < SERIES_MAX_TERMS && fabs(term) > 1e-17 * fabs(sum)) {
		term *= -x2 / ((2.0 * n) * (2.0 * n + 1.0));
		sum += term;
		n++;
	}
	*terms = n;
	return sum;
}

int job_series_check(struct job_ctx *c, double x, double got)
{
	double want = sin(x);
	if (!(fabs(got - want) <= SERIES_TOL))
		return job_failf(c, "Taylor series gave sin(%.17g) = %.17g, libm %.17g", x, got,
				 want);
	return 0;
}

static int series_run(struct job_ctx *c, const struct job_kind *k, const void *params,
		      void *state)
{
	(void)k, (void)params, (void)state;
	double acc = 0;
	for (int i = 0; i < 100; i++) {
		double x = (2.0 * jm_rng_double(c->rng) - 1.0) * M_PI;
		int terms;
		double s = job_series_sin(x, &terms);
		if (job_series_check(c, x, s))
			return -1;
		acc += s;
	}
	job_sink = math_bits(acc);
	return 0;
}

const struct job_kind job_series_1 = {
	.name = "series_1",
	.family = "compute",
	.summary = "100 Taylor-series sines, each checked against sin()",
	.doc = "AIM7 series_1: 100 times, sin(x) of a random x in [-pi, pi] summed from its "
	       "Taylor series until the terms no longer matter (at most 40 terms). Fix over "
	       "re-aim: each result is checked against libm's sin() (within 1e-12) and a "
	       "wrong one fails the job.",
	.flags = 0,
	.run_once = series_run,
};

/* ---- new_raph ---- */

#define NEWTON_SOLVES 200
#define NEWTON_MAX_TRIES 100    /* re-aim's MAXTRIES */
#define NEWTON_TOL 1e-12        /* re-aim's step tolerance */

/* re-aim's function and its derivative: f(x) = 1000 sin x cos x. */
static double newton_f(double x)
{
	return 1000.0 * sin(x) * cos(x);
}

static double newton_fprime(double x)
{
	double c = cos(x), s = sin(x);
	return -(s * s * 1000.0) + (c * c * 1000.0);
}

double job_newton_solve(double start, int *iters)
{
	double p0 = start, p = start;
	int i = 1;
	while (i < NEWTON_MAX_TRIES) {
		p = p0 - newton_f(p0) / newton_fprime(p0);
		if (fabs(p - p0) < NEWTON_TOL)
			break;
		i++;
		p0 = p;
	}
	*iters = i;
	return p;
}

int job_newton_check(struct job_ctx *c, double start, double root, int iters)
{
	if (iters >= NEWTON_MAX_TRIES)
		return job_failf(c, "Newton-Raphson from %.17g did not converge in %d tries", start,
				 NEWTON_MAX_TRIES);
	if (!(fabs(newton_f(root)) <= 1e-6))
		return job_failf(c, "Newton-Raphson from %.17g stopped at %.17g, where f is %.17g",
				 start, root, newton_f(root));
	return 0;
}

/* re-aim's 200 solves of 1000 sin x cos x = 0, from x = 0, 0.05, ..., 9.95. */
static int newton_run(struct job_ctx *c, const struct job_kind *k, const void *params,
		      void *state)
{
	(void)k, (void)params, (void)state;
	double acc = 0;
	for (int n = 0; n < NEWTON_SOLVES; n++) {
		double start = 0.05 * (double)n;
		int iters;
		double x = job_newton_solve(start, &iters);
		if (job_newton_check(c, start, x, iters))
			return -1;
		acc += x;
	}
	job_sink = math_bits(acc);
	return 0;
}

const struct job_kind job_new_raph = {
	.name = "new_raph",
	.family = "compute",
	.summary = "200 Newton-Raphson solves of 1000 sin x cos x = 0 (re-aim's), each checked",
	.doc = "AIM7 new_raph, re-aim's work: 200 times, Newton-Raphson on f(x) = 1000 sin x "
	       "cos x (f' = 1000 (cos^2 x - sin^2 x), two sin and two cos per step) from x = "
	       "0.05 n, until a step is below 1e-12, at most 100 tries. Fix over re-aim: the "
	       "root is checked (|f| below 1e-6) besides the convergence, and a wrong one fails "
	       "the job.",
	.flags = 0,
	.run_once = newton_run,
};

/* ---- matrix_rtns ---- */

/* 100 x (M = M R) with 4x4 matrices; R scaled to norm 1 so M stays bounded. */
static int matrix_run(struct job_ctx *c, const struct job_kind *k, const void *params,
		      void *state)
{
	(void)k, (void)params, (void)state;
	double m[4][4], r[4][4], t[4][4], norm = 0;
	for (int i = 0; i < 4; i++) {
		double row = 0;
		for (int j = 0; j < 4; j++) {
			m[i][j] = jm_rng_double(c->rng) - 0.5;
			r[i][j] = jm_rng_double(c->rng) - 0.5;
			row += fabs(r[i][j]);
		}
		norm = row > norm ? row : norm;
	}
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++)
			r[i][j] /= norm;
	for (int n = 0; n < 100; n++) {
		for (int i = 0; i < 4; i++)
			for (int j = 0; j < 4; j++) {
				double s = 0;
				for (int q = 0; q < 4; q++)
					s += m[i][q] * r[q][j];
				t[i][j] = s;
			}
		memcpy(m, t, sizeof(m));
	}
	double acc = 0;
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++)
			acc += m[i][j];
	job_sink = math_bits(acc);
	return 0;
}

const struct job_kind job_matrix_rtns = {
	.name = "matrix_rtns",
	.family = "compute",
	.summary = "100 x 4x4 matrix multiplies",
	.doc = "AIM7 matrix_rtns: a random 4x4 matrix multiplied 100 times by another "
	       "(scaled to norm 1 so the values stay bounded, with no denormals to slow it). "
	       "Fix over re-aim: random inputs from the user's seeded RNG and the result "
	       "stored to a volatile sink, so -O2 keeps the work.",
	.flags = 0,
	.run_once = matrix_run,
};

/* ---- array_rtns ---- */

#define GAUSS_MAX 100
#define GAUSS_TOL 1e-10

int job_gauss_solve(size_t n, double *a, double *b, double *x)
{
	for (size_t col = 0; col < n; col++) {
		size_t piv = col;
		for (size_t i = col + 1; i < n; i++)
			if (fabs(a[i * n + col]) > fabs(a[piv * n + col]))
				piv = i;
		if (a[piv * n + col] == 0.0)
			return -1;
		if (piv != col) {
			for (size_t j = 0; j < n; j++) {
				double t = a[col * n + j];
				a[col * n + j] = a[piv * n + j];
				a[piv * n + j] = t;
			}
			double t = b[col];
			b[col] = b[piv];
			b[piv] = t;
		}
		for (size_t i = col + 1; i < n; i++) {
			double f = a[i * n + col] / a[col * n + col];
			for (size_t j = col; j < n; j++)
				a[i * n + j] -= f * a[col * n + j];
			b[i] -= f * b[col];
		}
	}
	for (size_t i = n; i-- > 0;) {
		double s = b[i];
		for (size_t j = i + 1; j < n; j++)
			s -= a[i * n + j] * x[j];
		x[i] = s / a[i * n + i];
	}
	return 0;
}

int job_gauss_check(struct job_ctx *c, size_t n, const double *a, const double *b,
		    const double *x)
{
	double res = 0, anorm = 0, xnorm = 0, bnorm = 0;
	for (size_t i = 0; i < n; i++) {
		double s = -b[i], row = 0;
		for (size_t j = 0; j < n; j++) {
			s += a[i * n + j] * x[j];
			row += fabs(a[i * n + j]);
		}
		res = fmax(res, fabs(s));
		anorm = fmax(anorm, row);
		xnorm = fmax(xnorm, fabs(x[i]));
		bnorm = fmax(bnorm, fabs(b[i]));
	}
	if (!(res <= GAUSS_TOL * (anorm * xnorm + bnorm)))
		return job_failf(c, "Gaussian elimination of size %zu: residual %.3g too large",
				 n, res);
	return 0;
}

/* Per-user arrays for the largest system: a, b, their copies and x. */
struct gauss_state {
	double a[GAUSS_MAX * GAUSS_MAX], a0[GAUSS_MAX * GAUSS_MAX];
	double b[GAUSS_MAX], b0[GAUSS_MAX], x[GAUSS_MAX];
};

static int array_setup(struct job_ctx *c, const struct job_kind *k, const void *params,
		       void **state)
{
	(void)k, (void)params;
	struct gauss_state *g = malloc(sizeof(*g));
	if (!g)
		return job_fail(c, "allocate the arrays", NULL, ENOMEM);
	*state = g;
	return 0;
}

/* 20 systems of sizes 5, 10, ..., 100: random, diagonally weighted; residual checked. */
static int array_run(struct job_ctx *c, const struct job_kind *k, const void *params,
		     void *state)
{
	(void)k, (void)params;
	struct gauss_state *g = state;
	double acc = 0;
	for (size_t n = 5; n <= GAUSS_MAX; n += 5) {
		for (size_t i = 0; i < n; i++) {
			for (size_t j = 0; j < n; j++)
				g->a0[i * n + j] = 2.0 * jm_rng_double(c->rng) - 1.0;
			g->a0[i * n + i] += (double)n;
			g->b0[i] = 2.0 * jm_rng_double(c->rng) - 1.0;
		}
		memcpy(g->a, g->a0, n * n * sizeof(double));
		memcpy(g->b, g->b0, n * sizeof(double));
		if (job_gauss_solve(n, g->a, g->b, g->x))
			return job_failf(c, "Gaussian elimination of size %zu: zero pivot", n);
		if (job_gauss_check(c, n, g->a0, g->b0, g->x))
			return -1;
		acc += g->x[0];
	}
	job_sink = math_bits(acc);
	return 0;
}

const struct job_kind job_array_rtns = {
	.name = "array_rtns",
	.family = "compute",
	.summary = "20 Gaussian eliminations, sizes 5 to 100, residual checked",
	.doc = "AIM7 array_rtns: 20 linear systems of sizes 5, 10, ..., 100 with random "
	       "entries (diagonal weighted so they are well conditioned), solved by Gaussian "
	       "elimination with partial pivoting and back substitution; arrays allocated "
	       "once per user before the clock starts. Fix over re-aim: each solution's "
	       "residual is checked and a bad one fails the job.",
	.flags = 0,
	.setup = array_setup,
	.run_once = array_run,
	.teardown = math_free_state,
};
