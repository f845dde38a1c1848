// SPDX-License-Identifier: GPL-2.0-only
/*
 * The AIM7 arithmetic jobs: add, mul and div on double, float, long, int
 * and short.  One kernel per operation, generated for each type by a
 * macro; the fifteen kinds differ only in type and loop count.
 *
 * Each loop iteration does 12 operations, one on each of 12 independent
 * values (lanes), with an operand read through a volatile at the top of
 * the iteration, so the compiler can neither fold the loop into a closed
 * form (a += k, N times, is a + N*k) nor hoist anything out of it.  The
 * final lanes are folded into a digest that run_once() stores to job_sink.
 *
 * Integer kinds compute in the unsigned type of the same width (wrapping
 * is defined there; re-aim's signed overflow was undefined behaviour), and
 * short values are widened to unsigned int for the operation so that the
 * promotion to int cannot overflow either.
 *
 *   add: x = x + k        k in 1..1000
 *   mul: x = x * m        integers: m odd, so x never collapses to 0;
 *                         floating point: m just above 1 (no overflow,
 *                         no denormals over the job's loop count)
 *   div: x = K / x        K large; x stays in [1, K], so never 0
 */
#include <stdint.h>
#include <string.h>

#include "jobmix/job.h"
#include "jobmix/rng.h"
#include "compute.h"

/* Digest of a final value: its bits, whatever its type. */
static inline uint64_t arith_bits_d(double v)
{
	uint64_t u;
	memcpy(&u, &v, sizeof(u));
	return u;
}

static inline uint64_t arith_bits_f(float v)
{
	uint32_t u;
	memcpy(&u, &v, sizeof(u));
	return u;
}

static inline uint64_t arith_bits_u(uint64_t v)
{
	return v;
}

#define ARITH_BITS(v) \
	_Generic((v), double: arith_bits_d, float: arith_bits_f, default: arith_bits_u)(v)

/* The three operations; x is the lane, k the operand, both of the wide type W. */
#define ARITH_OP_add(x, k) ((x) + (k))
#define ARITH_OP_mul(x, k) ((x) * (k))
#define ARITH_OP_div(x, k) ((k) / (x))

#define ARITH_LANE(op, T, W, x) x = (T)ARITH_OP_##op((W)(x), k)

/*
 * Kernel `arith_<op>_<tname>(loops, seed)`: 12 lanes seeded with 1..1000,
 * the operand made from the seed by the expression OPERAND (of r, a random
 * 64-bit value) and read back through a volatile every iteration.
 */
#define ARITH_KERNEL(op, tname, T, W, OPERAND)                                            \
	static uint64_t arith_##op##_##tname(uint64_t loops, uint64_t seed)               \
	{                                                                                 \
		uint64_t s = seed;                                                        \
		uint64_t r = jm_splitmix64(&s);                                           \
		volatile T operand = (T)(OPERAND);                                        \
		T a = (T)(1 + jm_splitmix64(&s) % 1000), b = (T)(1 + jm_splitmix64(&s) % 1000); \
		T c = (T)(1 + jm_splitmix64(&s) % 1000), d = (T)(1 + jm_splitmix64(&s) % 1000); \
		T e = (T)(1 + jm_splitmix64(&s) % 1000), f = (T)(1 + jm_splitmix64(&s) % 1000); \
		T g = (T)(1 + jm_splitmix64(&s) % 1000), h = (T)(1 + jm_splitmix64(&s) % 1000); \
		T i = (T)(1 + jm_splitmix64(&s) % 1000), j = (T)(1 + jm_splitmix64(&s) % 1000); \
		T l = (T)(1 + jm_splitmix64(&s) % 1000), m = (T)(1 + jm_splitmix64(&s) % 1000); \
		for (uint64_t n = 0; n < loops; n++) {                                    \
			const W k = operand;                                              \
			ARITH_LANE(op, T, W, a); ARITH_LANE(op, T, W, b);                 \
			ARITH_LANE(op, T, W, c); ARITH_LANE(op, T, W, d);                 \
			ARITH_LANE(op, T, W, e); ARITH_LANE(op, T, W, f);                 \
			ARITH_LANE(op, T, W, g); ARITH_LANE(op, T, W, h);                 \
			ARITH_LANE(op, T, W, i); ARITH_LANE(op, T, W, j);                 \
			ARITH_LANE(op, T, W, l); ARITH_LANE(op, T, W, m);                 \
		}                                                                         \
		uint64_t digest = 0;                                                      \
		const T lanes[12] = { a, b, c, d, e, f, g, h, i, j, l, m };              \
		for (int q = 0; q < 12; q++)                                              \
			digest = (digest * 0x100000001b3ULL) ^ ARITH_BITS(lanes[q]);      \
		return digest;                                                            \
	}

/*
 * All three kernels of one type.  MUL and DIV are the operand expressions
 * of r: the multiplier and the dividend K (at least 60000, so the lanes,
 * seeded at most 1000, start inside [1, K]).
 */
#define ARITH_TYPE(tname, T, W, MUL, DIV)                                                 \
	ARITH_KERNEL(add, tname, T, W, 1 + r % 1000)                                      \
	ARITH_KERNEL(mul, tname, T, W, MUL)                                               \
	ARITH_KERNEL(div, tname, T, W, DIV)

ARITH_TYPE(double, double, double, 1.0 + (double)(1 + r % 4) / 1048576.0,
	   1e6 + (double)(r % 1000))
ARITH_TYPE(float, float, float, 1.0f + (float)(1 + r % 4) / 1048576.0f,
	   1e6f + (float)(r % 1000))
ARITH_TYPE(long, unsigned long, unsigned long, r | 1, (r | (1ul << 62)) >> 1)
ARITH_TYPE(int, unsigned int, unsigned int, r | 1, (unsigned int)(r | (1u << 31)))
ARITH_TYPE(short, unsigned short, unsigned int, r | 1, 60000 + r % 5000)

static int arith_run(struct job_ctx *c, const struct job_kind *k, const void *params,
		     void *state)
{
	(void)params, (void)state;
	const struct job_arith *v = k->variant;
	job_sink = v->kernel(v->loops, jm_rng_next(c->rng));
	return 0;
}

#define ARITH_DOC "Each iteration does 12 operations on 12 independent values, with an " \
	"operand read through a volatile every iteration and the final values stored to " \
	"a volatile sink, so -O2 and -O3 do the same work (no loop folded into a closed " \
	"form); the starting values come from the user's seeded RNG. Integer kinds " \
	"compute in the unsigned type of the same width (re-aim's signed overflow was " \
	"undefined behaviour); division never divides by zero."

#define ARITH_KIND(op, tname, nloops, sum)                                                \
	static const struct job_arith op##_##tname##_variant = {                         \
		.loops = nloops, .kernel = arith_##op##_##tname };                      \
	const struct job_kind job_##op##_##tname = {                                      \
		.name = #op "_" #tname,                                                  \
		.family = "compute",                                                     \
		.summary = sum,                                                          \
		.doc = "AIM7 " #op "_" #tname ": " sum ". " ARITH_DOC,                   \
		.flags = 0,                                                              \
		.variant = &op##_##tname##_variant,                                      \
		.run_once = arith_run,                                                   \
	};

ARITH_KIND(add, double, 1500000, "1.5M loops x 12 double additions")
ARITH_KIND(add, float, 1000000, "1M loops x 12 float additions")
ARITH_KIND(add, long, 5000000, "5M loops x 12 long additions")
ARITH_KIND(add, int, 5000000, "5M loops x 12 int additions")
ARITH_KIND(add, short, 2000000, "2M loops x 12 short additions")

ARITH_KIND(mul, double, 1000000, "1M loops x 12 double multiplications")
ARITH_KIND(mul, float, 1000000, "1M loops x 12 float multiplications")
ARITH_KIND(mul, long, 20000, "20k loops x 12 long multiplications")
ARITH_KIND(mul, int, 20000, "20k loops x 12 int multiplications")
ARITH_KIND(mul, short, 25000, "25k loops x 12 short multiplications")

ARITH_KIND(div, double, 250000, "250k loops x 12 double divisions")
ARITH_KIND(div, float, 250000, "250k loops x 12 float divisions")
ARITH_KIND(div, long, 75000, "75k loops x 12 long divisions")
ARITH_KIND(div, int, 75000, "75k loops x 12 int divisions")
ARITH_KIND(div, short, 75000, "75k loops x 12 short divisions")
