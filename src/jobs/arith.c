// SPDX-License-Identifier: GPL-2.0-only
/*
 * The AIM7 arithmetic jobs: add, mul and div on double, float, long, int
 * and short, doing re-aim's work: its loop counts, its operands and, in
 * every iteration, its 12 operations on three values (x, x1, x2), each
 * operation an input of the next ones (a dependent chain, not independent
 * lanes).  No compiler can vectorise a chain or run its steps in parallel,
 * and floating-point operations cannot be reassociated without
 * -ffast-math, so -O2 and -O3 -march=native do the same work (bench/
 * arith-flags.sh measures it).  The operands come from volatiles, as
 * re-aim's came from sscanf, so nothing folds into a constant; the final
 * values go to job_sink.
 *
 *   add  (x1, x2) = (a, -a), x = 0:   x += x1; x1 += x2; x1 += x2; x2 += x; ...
 *   mul  (x1, x2) = (a, 1/a), x = 1 (floating point), (1, 1), x = 12345678
 *   div  (x1, x2) = (4, 1/4), x = 1 (floating point), (1, 1), x = 1234578
 *
 * The values cycle (re-aim chose operands that bring them back every
 * iteration), so no overflow and no denormals whatever the loop count.
 */
#include <stdint.h>
#include <string.h>

#include "jobmix/job.h"
#include "jobmix/job_compute.h"

/* re-aim's 12 operations per loop, in its order. */
#define ARITH_BODY_add(x, x1, x2)                                                         \
	x += x1; x1 += x2; x1 += x2; x2 += x; x2 += x; x += x1;                          \
	x += x1; x1 += x2; x1 += x2; x2 += x; x2 += x; x += x1;
#define ARITH_BODY_mulfp(x, x1, x2)                                                       \
	x *= x1; x1 *= x2; x1 *= x2; x2 *= x; x2 *= x; x *= x1;                          \
	x *= x1; x1 *= x2; x1 *= x2; x2 *= x; x2 *= x; x *= x1;
#define ARITH_BODY_mulint(x, x1, x2)                                                      \
	x *= x1; x1 *= x2; x1 *= x2; x2 *= x1; x2 *= x1; x *= x2;                        \
	x *= x1; x1 *= x2; x1 *= x2; x2 *= x1; x2 *= x1; x *= x2;
#define ARITH_BODY_divfp(x, x1, x2)                                                       \
	x /= x1; x2 /= x; x1 /= x2; x2 /= x1; x /= x2; x2 /= x;                          \
	x /= x1; x2 /= x; x1 /= x2; x2 /= x1; x /= x2; x2 /= x;
#define ARITH_BODY_divint(x, x1, x2)                                                      \
	x /= x1; x /= x2; x1 /= x2; x2 /= x1; x /= x1; x /= x2;                          \
	x1 /= x2; x2 /= x1; x /= x1; x /= x2; x1 /= x2; x2 /= x1;

/* Store a final value: floating-point kinds in out->d, integer kinds in out->l. */
#define ARITH_PUT(out, i, v) _Generic((v), double: ((out)->d[i] = (double)(v)),          \
				      float: ((out)->d[i] = (double)(v)),                   \
				      default: ((out)->l[i] = (int64_t)(v)))

/* Kernel `arith_<name>`: x, x1, x2 of type T from the variant, `loops` iterations of BODY. */
#define ARITH_KERNEL(name, T, BODY)                                                       \
	static void arith_##name(const struct job_arith *v, uint64_t loops,                \
				 struct job_arith_out *out)                                 \
	{                                                                                 \
		volatile T in0 = (T)v->x0, in1 = (T)v->x1, in2 = (T)v->x2;               \
		T x = in0, x1 = in1, x2 = in2;                                            \
		for (uint64_t n = loops; n > 0; n--) {                                    \
			BODY(x, x1, x2)                                                   \
		}                                                                         \
		memset(out, 0, sizeof(*out));                                             \
		ARITH_PUT(out, 0, x);                                                     \
		ARITH_PUT(out, 1, x1);                                                    \
		ARITH_PUT(out, 2, x2);                                                    \
	}

ARITH_KERNEL(add_double, double, ARITH_BODY_add)
ARITH_KERNEL(add_float, float, ARITH_BODY_add)
ARITH_KERNEL(add_long, long, ARITH_BODY_add)
ARITH_KERNEL(add_int, int, ARITH_BODY_add)
ARITH_KERNEL(add_short, short, ARITH_BODY_add)
ARITH_KERNEL(mul_double, double, ARITH_BODY_mulfp)
ARITH_KERNEL(mul_float, float, ARITH_BODY_mulfp)
ARITH_KERNEL(mul_long, long, ARITH_BODY_mulint)
ARITH_KERNEL(mul_int, int, ARITH_BODY_mulint)
ARITH_KERNEL(mul_short, short, ARITH_BODY_mulint)
ARITH_KERNEL(div_double, double, ARITH_BODY_divfp)
ARITH_KERNEL(div_float, float, ARITH_BODY_divfp)
ARITH_KERNEL(div_long, long, ARITH_BODY_divint)
ARITH_KERNEL(div_int, int, ARITH_BODY_divint)
ARITH_KERNEL(div_short, short, ARITH_BODY_divint)

static int arith_run(struct job_ctx *c, const struct job_kind *k, const void *params,
		     void *state)
{
	(void)params, (void)state;
	const struct job_arith *v = k->variant;
	struct job_arith_out out;
	v->kernel(v, job_scaled(c, v->loops), &out);
	uint64_t bits;
	memcpy(&bits, &out.d[0], sizeof(bits));
	job_sink = bits ^ (uint64_t)out.l[0] ^ (uint64_t)out.l[1] ^ (uint64_t)out.l[2];
	return 0;
}

#define ARITH_DOC "re-aim's work: its loop count and operands, and per loop its 12 " \
	"operations on three values, each the input of the next (a dependent chain that " \
	"no compiler can vectorise or reorder, so -O2 and -O3 -march=native do the same " \
	"work); operands read through volatiles as re-aim read them with sscanf, the " \
	"final values stored to a volatile sink."

/* re-aim's operands: PI and 1/PI as its sprintf("%g") wrote them. */
#define ARITH_PI 3.14159
#define ARITH_1_PI 0.31831

#define ARITH_KIND(op, tname, nloops, v0, v1, v2, sum)                                    \
	static const struct job_arith op##_##tname##_variant = {                         \
		.loops = nloops, .x0 = v0, .x1 = v1, .x2 = v2,                           \
		.kernel = arith_##op##_##tname };                                        \
	const struct job_kind job_##op##_##tname = {                                      \
		.name = #op "_" #tname,                                                  \
		.family = "compute",                                                     \
		.summary = sum,                                                          \
		.doc = "AIM7 " #op "_" #tname ": " sum ". " ARITH_DOC,                   \
		.flags = 0,                                                              \
		.variant = &op##_##tname##_variant,                                      \
		.run_once = arith_run,                                                   \
	};

ARITH_KIND(add, double, 1500000, 0, ARITH_PI, -ARITH_PI,
	   "1.5M loops x 12 dependent double additions (3.14159, -3.14159)")
ARITH_KIND(add, float, 1000000, 0, 3.5, -3.5,
	   "1M loops x 12 dependent float additions (3.5, -3.5)")
ARITH_KIND(add, long, 5000000, 0, 3, -3, "5M loops x 12 dependent long additions (3, -3)")
ARITH_KIND(add, int, 5000000, 0, 3, -3, "5M loops x 12 dependent int additions (3, -3)")
ARITH_KIND(add, short, 2000000, 0, 3, -3, "2M loops x 12 dependent short additions (3, -3)")

ARITH_KIND(mul, double, 1000000, 1, ARITH_PI, ARITH_1_PI,
	   "1M loops x 12 dependent double multiplications (3.14159, 0.31831)")
ARITH_KIND(mul, float, 1000000, 1, 4, 0.25,
	   "1M loops x 12 dependent float multiplications (4, 0.25)")
ARITH_KIND(mul, long, 20000, 12345678, 1, 1, "20k loops x 12 dependent long multiplications (1, 1)")
ARITH_KIND(mul, int, 20000, 12345678, 1, 1, "20k loops x 12 dependent int multiplications (1, 1)")
ARITH_KIND(mul, short, 25000, 1234, 1, 1, "25k loops x 12 dependent short multiplications (1, 1)")

ARITH_KIND(div, double, 250000, 1, 4, 0.25,
	   "250k loops x 12 dependent double divisions (4, 0.25)")
ARITH_KIND(div, float, 250000, 1, 4, 0.25,
	   "250k loops x 12 dependent float divisions (4, 0.25)")
ARITH_KIND(div, long, 75000, 1234578, 1, 1, "75k loops x 12 dependent long divisions (1, 1)")
ARITH_KIND(div, int, 75000, 1234578, 1, 1, "75k loops x 12 dependent int divisions (1, 1)")
ARITH_KIND(div, short, 75000, 1234, 1, 1, "75k loops x 12 dependent short divisions (1, 1)")
