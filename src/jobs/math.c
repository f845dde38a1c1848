// SPDX-License-Identifier: GPL-2.0-only
/*
 * The AIM7 numeric jobs, re-aim's work: sieve, num_rtns_1, trig_rtns,
 * series_1, new_raph, matrix_rtns and array_rtns.  Their arguments come,
 * as in re-aim, from two tables made before the clock starts: re-aim's
 * 500 halving values (0, 1, the smallest denormal, then halves of running
 * differences) and 10,000 values in [-10, 10] (every hundredth the
 * smallest denormal), drawn here from the user's seeded RNG; a cursor per
 * user and kind walks each table from job to job.  Results go to the
 * volatile job_sink or are checked (a wrong one fails the job).
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jobmix/job.h"
#include "jobmix/rng.h"
#include "jobmix/job_compute.h"

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
	for (uint64_t i = job_scaled(c, 5); i > 0; i--)
		marks += job_sieve_mark(map, JOB_SIEVE_LIMIT - 1);
	uint64_t n = 0;
	for (uint64_t i = 2; i < JOB_SIEVE_LIMIT; i++)
		n += map[i];
	job_sink = marks;
	return job_sieve_check(c, n);
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
	.teardown = job_free_state,
};

/* ---- the argument tables ---- */

/*
 * re-aim's two tables: vals (0, 1, the smallest denormal, then each the
 * half of the difference of the two before it, so they halve down to about
 * 1e-150) and vals10 (uniform in [-10, 10), every hundredth the smallest
 * denormal; re-aim drew them with rand(), here the user's RNG), the
 * cursors at 0, and for num_rtns_1 a random(3) state of re-aim's size.
 */
void job_num_init(struct job_num *t, struct jm_rng *rng)
{
	memset(t, 0, sizeof(*t));
	t->vals[0] = 0.0;
	t->vals[1] = 1.0;
	t->vals[2] = DBL_TRUE_MIN;
	for (unsigned i = 3; i < JOB_NUM_VALS; i++)
		t->vals[i] = fabs(t->vals[i - 2] - t->vals[i - 1]) / 2.0;
	for (unsigned i = 0; i < JOB_NUM_VALS10; i++)
		t->vals10[i] = i % 100 ? jm_rng_double(rng) * 20.0 - 10.0 : DBL_TRUE_MIN;
	initstate_r(1, t->rstate, sizeof(t->rstate), &t->rdata);
}

static int num_setup(struct job_ctx *c, const struct job_kind *k, const void *params,
		     void **state)
{
	(void)k, (void)params;
	struct job_num *t = malloc(sizeof(*t));
	if (!t)
		return job_fail(c, "allocate the argument tables", NULL, ENOMEM);
	job_num_init(t, c->rng);
	*state = t;
	return 0;
}

/* re-aim's next_value(), ARG, POS and NEG. */
static double num_next(struct job_num *t)
{
	return t->vals[t->count++ % JOB_NUM_VALS];
}

static double num_arg(struct job_num *t)
{
	return t->vals10[t->count10++ % JOB_NUM_VALS10];
}

static double num_pos(struct job_num *t)
{
	return num_arg(t) + 10.0001;
}

static double num_neg(struct job_num *t)
{
	return num_arg(t) - 10.0001;
}

static volatile double math_out1, math_out2, math_out3, math_out4, math_out5;

/* ---- num_rtns_1 ---- */

/*
 * re-aim's num_rtns_1 rounds: floor(exp), ceil(log10), modf(log), frexp,
 * ldexp, fmod, sqrt(pow), then srand with frexp's exponent and one rand;
 * nine table arguments a round.  srandom_r/random_r on a state of the
 * user's own are the algorithm of srand/rand without their process-wide
 * state (users may be threads).
 */
void job_num_work(struct job_num *t, unsigned rounds)
{
	for (unsigned n = 0; n < rounds; n++) {
		double dtemp;
		int itemp;
		int32_t r;
		double a = floor(exp(num_arg(t)));
		math_out1 = a + ceil(log10(num_pos(t)));
		a = modf(log(num_pos(t)), &dtemp);
		math_out2 = a + frexp(num_neg(t), &itemp);
		a = ldexp(num_arg(t), abs(-itemp));
		double x = num_arg(t) * 5;
		math_out3 = a + fabs(fmod(x, num_pos(t)));
		a = num_pos(t);
		math_out4 = sqrt(pow(a, num_arg(t)));
		srandom_r((unsigned)itemp, &t->rdata);
		random_r(&t->rdata, &r);
		math_out5 = (double)labs((long)(-r + (int32_t)n));
	}
}

static int num_rtns_run(struct job_ctx *c, const struct job_kind *k, const void *params,
			void *state)
{
	(void)k, (void)params;
	job_num_work(state, (unsigned)job_scaled(c, 100));
	return 0;
}

const struct job_kind job_num_rtns_1 = {
	.name = "num_rtns_1",
	.family = "compute",
	.summary = "100 x re-aim's exp, log10, log, modf, frexp, ldexp, fmod, pow, sqrt, srand+rand",
	.doc = "AIM7 num_rtns_1, re-aim's work: 100 rounds of floor(exp(a)) + ceil(log10(p)), "
	       "modf(log(p)) + frexp(m), ldexp(a, |e|) + |fmod(5a, p)|, sqrt(pow(p, a)), then "
	       "srand(e) and labs(n - rand()), on nine arguments a round from re-aim's table of "
	       "10,000 values in [-10, 10] (a = value, p = value + 10.0001, m = value - "
	       "10.0001; every hundredth value the smallest denormal), its cursor kept from "
	       "job to job. Results to volatile sinks. Differences: the table is drawn from the "
	       "user's seeded RNG (re-aim's from rand()), and srand/rand are srandom_r/random_r "
	       "on the user's own state (the same algorithm; re-aim's was process-wide).",
	.flags = 0,
	.setup = num_setup,
	.run_once = num_rtns_run,
	.teardown = job_free_state,
};

/* ---- trig_rtns ---- */

/*
 * re-aim's trig_rtns rounds: acos(cos(asin(sin a))), tanh(atan(tan b)),
 * atan2(sinh c, cosh d); four table arguments and ten calls a round.
 * Returns -1 if a result falls outside the range its last call can give.
 */
int job_trig_work(struct job_num *t, unsigned rounds)
{
	for (unsigned n = 0; n < rounds; n++) {
		double a = acos(cos(asin(sin(num_arg(t)))));
		double b = tanh(atan(tan(num_arg(t))));
		double x = sinh(num_arg(t));
		double d = atan2(x, cosh(num_arg(t)));
		math_out1 = a;
		math_out2 = b;
		math_out3 = d;
		if (!(a >= 0 && a <= M_PI_2 + 1e-12 && fabs(b) < 1 && fabs(d) <= M_PI_2))
			return -1;
	}
	return 0;
}

static int trig_run(struct job_ctx *c, const struct job_kind *k, const void *params,
		    void *state)
{
	(void)k, (void)params;
	if (job_trig_work(state, (unsigned)job_scaled(c, 10000)))
		return job_failf(c, "a trig result fell outside its function's range");
	return 0;
}

const struct job_kind job_trig_rtns = {
	.name = "trig_rtns",
	.family = "compute",
	.summary = "10,000 x re-aim's acos(cos(asin(sin))), tanh(atan(tan)), atan2(sinh, cosh)",
	.doc = "AIM7 trig_rtns, re-aim's work: 10,000 rounds of acos(cos(asin(sin a))), "
	       "tanh(atan(tan b)) and atan2(sinh c, cosh d), ten libm calls on four arguments "
	       "from re-aim's table of 10,000 values in [-10, 10] (see num_rtns_1), its cursor "
	       "kept from job to job. Results to volatile sinks. Fix over re-aim: each result "
	       "is checked to lie in its last function's range (a wrong one fails the job).",
	.flags = 0,
	.setup = num_setup,
	.run_once = trig_run,
	.teardown = job_free_state,
};

/* ---- series_1 ---- */

/*
 * re-aim's series: sin(x) summed from its Taylor series until a term no
 * longer changes the sum (small x underflow into denormals on the way, as
 * in re-aim); *terms gets the terms summed.
 */
double job_series_sin(double x, int *terms)
{
	double old = 100.0, sine = 0.0, d1 = x, x2 = x * x, fact = 1.0, i = 1.0;
	int n = 0;
	while (sine != old) {
		old = sine;
		sine += d1 / fact;
		fact *= (i + 1) * (i + 2);
		i += 2;
		d1 *= -x2;
		n++;
	}
	*terms = n;
	return sine;
}

/* re-aim's check: the series within 0.0001 of libm's sin(). */
int job_series_check(struct job_ctx *c, double x, double got)
{
	double want = sin(x);
	if (!(fabs(got - want) <= 0.0001))
		return job_failf(c, "Taylor series gave sin(%.17g) = %.17g, libm %.17g", x, got,
				 want);
	return 0;
}

/* 100 series of the next values of re-aim's halving table, each checked. */
static int series_run(struct job_ctx *c, const struct job_kind *k, const void *params,
		      void *state)
{
	(void)k, (void)params;
	struct job_num *t = state;
	double acc = 0;
	for (uint64_t i = job_scaled(c, 100); i > 0; i--) {
		double x = num_next(t);
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
	.summary = "100 Taylor-series sines of re-aim's halving values, each checked against sin()",
	.doc = "AIM7 series_1, re-aim's work: 100 times, sin(x) summed from its Taylor series "
	       "until a term no longer changes the sum, then checked against libm's sin() "
	       "(within 0.0001, a wrong one fails the job). x comes from re-aim's table of 500 "
	       "values (0, 1, the smallest denormal, then halves of running differences down "
	       "to about 1e-150), its cursor kept from job to job, so most series are short "
	       "and run through denormals, as re-aim's did.",
	.flags = 0,
	.setup = num_setup,
	.run_once = series_run,
	.teardown = job_free_state,
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

/*
 * re-aim's check (fewer than 100 tries), and the root a multiple of pi/2
 * (the roots of sin 2x), checked without another sin or cos.
 */
int job_newton_check(struct job_ctx *c, double start, double root, int iters)
{
	if (iters >= NEWTON_MAX_TRIES)
		return job_failf(c, "Newton-Raphson from %.17g did not converge in %d tries", start,
				 NEWTON_MAX_TRIES);
	double q = root / M_PI_2;
	if (!(fabs(q - nearbyint(q)) <= 1e-9))
		return job_failf(c, "Newton-Raphson from %.17g stopped at %.17g, not a root of "
				 "sin 2x", start, root);
	return 0;
}

/* re-aim's 200 solves of 1000 sin x cos x = 0, from x = 0, 0.05, ..., 9.95. */
static int newton_run(struct job_ctx *c, const struct job_kind *k, const void *params,
		      void *state)
{
	(void)k, (void)params, (void)state;
	double acc = 0;
	const uint64_t solves = job_scaled(c, NEWTON_SOLVES);
	for (uint64_t n = 0; n < solves; n++) {
		double start = 0.05 * (double)(n % NEWTON_SOLVES);
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
	       "cos x (f' = 1000 (cos^2 x - sin^2 x); one sin and cos of the same x per step, "
	       "which gcc makes one sincos call, as in re-aim) from x = 0.05 n, until a step is "
	       "below 1e-12, at most 100 tries. Fix over re-aim: the root is checked to be a "
	       "multiple of pi/2 (by a division, no further trig call) besides the convergence, "
	       "and a wrong one fails the job.",
	.flags = 0,
	.run_once = newton_run,
};

/* ---- matrix_rtns ---- */

/*
 * re-aim's matrix_rtns rounds: a point (4 values) and a 4x4 transform (16)
 * from the halving table, the transformed point, its screen coordinates
 * as ints and a running product of its first three coordinates.
 */
void job_matrix_work(struct job_num *t, unsigned rounds)
{
	double v1[4], v2[4][4], v3[4], prod = 0.0;
	for (unsigned n = 0; n < rounds; n++) {
		for (int i = 0; i < 4; i++)
			v1[i] = num_next(t);
		for (int i = 0; i < 4; i++)
			for (int j = 0; j < 4; j++)
				v2[i][j] = num_next(t);
		for (int i = 0; i < 4; i++) {
			v3[i] = 0.0;
			for (int j = 0; j < 4; j++)
				v3[i] += v1[j] * v2[i][j];
		}
		int x = (int)(v3[0] * 1280.0), y = (int)(v3[1] * 1024.0), z = (int)(v3[2] * 8192.0);
		prod += v3[0] * v3[1] * v3[2];
		math_out1 = x + y + z + prod;
	}
}

static int matrix_run(struct job_ctx *c, const struct job_kind *k, const void *params,
		      void *state)
{
	(void)k, (void)params;
	job_matrix_work(state, (unsigned)job_scaled(c, 100));
	return 0;
}

const struct job_kind job_matrix_rtns = {
	.name = "matrix_rtns",
	.family = "compute",
	.summary = "100 x re-aim's point transform: (4x4) x (4x1) on its halving values",
	.doc = "AIM7 matrix_rtns, re-aim's work: 100 times, a point (4 values) and a 4x4 "
	       "transform (16 values) from re-aim's table of 500 halving values (see "
	       "series_1), the point transformed (16 multiply-adds), converted to integer "
	       "screen coordinates (x 1280, 1024, 8192) and the product of three coordinates "
	       "summed; results to a volatile sink.",
	.flags = 0,
	.setup = num_setup,
	.run_once = matrix_run,
	.teardown = job_free_state,
};

/* ---- array_rtns ---- */

/* Element (col, row) of a system `wide` columns wide, as re-aim indexes it. */
#define GJ(a, wide, col, row) ((a)[(col) + (size_t)(wide) * (row)])

/*
 * re-aim's solver: Gauss-Jordan without pivoting on the augmented system
 * (high rows, wide = high + 1 columns): each row scaled so its pivot is 1
 * and subtracted from the rows below, then from the rows above, so the
 * last column holds the solution, copied into x.  -1 on a zero pivot.
 */
int job_gauss_solve(size_t high, double *a, double *x)
{
	size_t wide = high + 1;
	for (size_t i = 0; i < high; i++) {
		double t = GJ(a, wide, i, i);
		if (t == 0.0)
			return -1;
		for (size_t j = i; j < wide; j++)
			GJ(a, wide, j, i) = GJ(a, wide, j, i) / t;
		for (size_t j = i + 1; j < high; j++) {
			t = GJ(a, wide, i, j);
			for (size_t k = 0; k < wide; k++)
				GJ(a, wide, k, j) = GJ(a, wide, k, j) - t * GJ(a, wide, k, i);
		}
	}
	for (size_t i = high - 1; i > 0; i--)
		for (size_t j = i; j-- > 0;) {
			double t = GJ(a, wide, i, j);
			for (size_t k = 0; k < wide; k++)
				GJ(a, wide, k, j) = GJ(a, wide, k, j) - t * GJ(a, wide, k, i);
		}
	for (size_t i = 0; i < high; i++)
		x[i] = GJ(a, wide, wide - 1, i);
	return 0;
}

/* re-aim's test: each row of the original system times x within 0.5 of its last column. */
int job_gauss_check(struct job_ctx *c, size_t high, const double *a, const double *x)
{
	size_t wide = high + 1;
	for (size_t i = 0; i < high; i++) {
		double t = 0.0;
		for (size_t j = 0; j < high; j++)
			t += GJ(a, wide, j, i) * x[j];
		if (!(fabs(GJ(a, wide, wide - 1, i) - t) <= 0.5))
			return job_failf(c, "linear system of size %zu, row %zu: wanted %g, got %g",
					 high, i, GJ(a, wide, wide - 1, i), t);
	}
	return 0;
}

#define ARRAY_HIGH 100
#define ARRAY_SIZE (ARRAY_HIGH * (ARRAY_HIGH + 1))

/* Per user, as re-aim's static arrays: the system, its copy and the solution. */
struct array_state {
	double a[ARRAY_SIZE], a_orig[ARRAY_SIZE], x[ARRAY_HIGH];
};

static int array_setup(struct job_ctx *c, const struct job_kind *k, const void *params,
		       void **state)
{
	(void)k, (void)params;
	struct array_state *g = malloc(sizeof(*g));
	if (!g)
		return job_fail(c, "allocate the arrays", NULL, ENOMEM);
	*state = g;
	return 0;
}

/*
 * re-aim's array_rtns: both 80 KiB arrays cleared, then 20 systems of 5,
 * 10, ..., 100 rows filled from val = 1 (val = 1.00001 val + 1, less 1e19
 * above 1e20), the whole array copied (as re-aim did, 80 KiB each time),
 * solved and tested.
 */
int job_array_work(struct job_ctx *c, double *a, double *a_orig, double *x, unsigned systems)
{
	memset(a, 0, ARRAY_SIZE * sizeof(double));
	memset(a_orig, 0, ARRAY_SIZE * sizeof(double));
	double val = 1.0;
	size_t high = 5;
	for (unsigned n = 0; n < systems; n++, high += 5) {
		if (high > ARRAY_HIGH)
			high = 5;
		size_t wide = high + 1;
		for (size_t j = 0; j < high; j++)
			for (size_t k = 0; k < wide; k++) {
				GJ(a, wide, k, j) = val;
				val = val * 1.00001 + 1.0;
				if (val > 1e20)
					val -= 1e19;
			}
		memcpy(a_orig, a, ARRAY_SIZE * sizeof(double));
		if (job_gauss_solve(high, a, x))
			return job_failf(c, "linear system of size %zu is singular", high);
		if (job_gauss_check(c, high, a_orig, x))
			return -1;
	}
	job_sink = math_bits(x[0]);
	return 0;
}

static int array_run(struct job_ctx *c, const struct job_kind *k, const void *params,
		     void *state)
{
	(void)k, (void)params;
	struct array_state *g = state;
	/* the systems grow from 5 to 100 rows: the unit is the whole cycle of 20 */
	return job_array_work(c, g->a, g->a_orig, g->x, 20 * (unsigned)job_scaled(c, 1));
}

const struct job_kind job_array_rtns = {
	.name = "array_rtns",
	.family = "compute",
	.summary = "20 of re-aim's Gauss-Jordan solves, sizes 5 to 100, each tested",
	.doc = "AIM7 array_rtns, re-aim's work: both 80 KiB arrays cleared, then 20 linear "
	       "systems of 5, 10, ..., 100 equations, filled from re-aim's sequence (val = "
	       "1.00001 val + 1 from 1), the whole array copied (80 KiB each time, as re-aim), "
	       "solved by Gauss-Jordan elimination without pivoting on the augmented matrix, "
	       "and tested as re-aim did (each row within 0.5 of its right-hand side; a failed "
	       "test fails the job). Arrays allocated once per user before the clock starts.",
	.flags = 0,
	.setup = array_setup,
	.run_once = array_run,
	.teardown = job_free_state,
};
