// SPDX-License-Identifier: GPL-2.0-only
/*
 * The AIM7 function-call jobs: fun_cal, fun_cal1, fun_cal2 and fun_cal15
 * make 512,000 calls with 0, 1, 2 and 15 arguments.  The callee is reached
 * through a function pointer read from a volatile, so the compiler can
 * neither inline it nor drop the call; the return values are summed into
 * job_sink, and the arguments change from call to call.
 */
#include <stdint.h>

#include "jobmix/job.h"

#define CALLS_N 512000

typedef uint64_t (*calls_fn0)(void);
typedef uint64_t (*calls_fn1)(uint64_t);
typedef uint64_t (*calls_fn2)(uint64_t, uint64_t);
typedef uint64_t (*calls_fn15)(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t,
			       uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t,
			       uint64_t, uint64_t, uint64_t);

/* The callees: as little work as their arguments allow. */
static uint64_t calls_leaf0(void)
{
	return 1;
}

static uint64_t calls_leaf1(uint64_t a)
{
	return a ^ 1;
}

static uint64_t calls_leaf2(uint64_t a, uint64_t b)
{
	return a ^ b;
}

static uint64_t calls_leaf15(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e,
			     uint64_t f, uint64_t g, uint64_t h, uint64_t i, uint64_t j,
			     uint64_t k, uint64_t l, uint64_t m, uint64_t n, uint64_t o)
{
	return a + b + c + d + e + f + g + h + i + j + k + l + m + n + o;
}

struct calls_variant {
	int nargs;
};

/* 512,000 calls through a pointer the compiler cannot resolve. */
static int calls_run(struct job_ctx *c, const struct job_kind *k, const void *params,
		     void *state)
{
	(void)params, (void)state;
	const struct calls_variant *v = k->variant;
	uint64_t x = jm_rng_next(c->rng), sum = 0;
	switch (v->nargs) {
	case 0: {
		calls_fn0 volatile pick = calls_leaf0;
		calls_fn0 fn = pick;
		for (uint64_t n = 0; n < CALLS_N; n++)
			sum += fn();
		break;
	}
	case 1: {
		calls_fn1 volatile pick = calls_leaf1;
		calls_fn1 fn = pick;
		for (uint64_t n = 0; n < CALLS_N; n++)
			sum += fn(x + n);
		break;
	}
	case 2: {
		calls_fn2 volatile pick = calls_leaf2;
		calls_fn2 fn = pick;
		for (uint64_t n = 0; n < CALLS_N; n++)
			sum += fn(x + n, sum);
		break;
	}
	case 15: {
		calls_fn15 volatile pick = calls_leaf15;
		calls_fn15 fn = pick;
		for (uint64_t n = 0; n < CALLS_N; n++)
			sum += fn(x + n, sum, x, n, x ^ n, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
		break;
	}
	default:
		return job_failf(c, "no callee with %d arguments (a bug)", v->nargs);
	}
	job_sink = sum;
	return 0;
}

#define CALLS_DOC "The callee is reached through a function pointer read from a " \
	"volatile, so it cannot be inlined or its call dropped under -O2/-O3; the " \
	"arguments change from call to call and the return values go to a volatile sink."

#define CALLS_KIND(kname, n, sum)                                                         \
	static const struct calls_variant kname##_variant = { .nargs = n };               \
	const struct job_kind job_##kname = {                                             \
		.name = #kname,                                                          \
		.family = "compute",                                                     \
		.summary = sum,                                                          \
		.doc = "AIM7 " #kname ": " sum ". " CALLS_DOC,                           \
		.flags = 0,                                                              \
		.variant = &kname##_variant,                                             \
		.run_once = calls_run,                                                   \
	};

CALLS_KIND(fun_cal, 0, "512,000 indirect function calls without arguments")
CALLS_KIND(fun_cal1, 1, "512,000 indirect function calls with 1 argument")
CALLS_KIND(fun_cal2, 2, "512,000 indirect function calls with 2 arguments")
CALLS_KIND(fun_cal15, 15, "512,000 indirect function calls with 15 arguments")
