// SPDX-License-Identifier: GPL-2.0-only
/*
 * The AIM7 function-call jobs, re-aim's work: fun_cal, fun_cal1, fun_cal2
 * and fun_cal15 make 512,000 indirect calls with 0, 1, 2 and 15 arguments.
 * Like re-aim's, each callee adds to a job counter through a pointer it
 * reads from a (here thread-local) variable, so every call is a
 * read-modify-write of memory and the calls form one dependent chain; the
 * callee is picked through a volatile, so no compiler can inline it.
 * fun_cal, fun_cal1 and fun_cal2 run 1000 x 32 x 16 unrolled calls,
 * fun_cal15 1000 x 512 single ones, as re-aim's loops do.
 */
#include <stdint.h>

#include "jobmix/job.h"
#include "jobmix/job_compute.h"

#define CALLS_OUTER 1000
#define CALLS_INNER 32     /* x 16 calls written out: 512 a pass */
#define CALLS_INNER15 512  /* fun_cal15: one call a pass */

/* The job's counter and input, reached by the callees as re-aim's globals were. */
static _Thread_local int64_t *calls_count;
static _Thread_local const int *calls_in;

typedef int64_t (*calls_fn0)(void);
typedef int64_t (*calls_fn1)(int);
typedef int64_t (*calls_fn2)(const int *, const int *);
typedef int64_t (*calls_fn15)(const int *, const int *, const int *, const int *, const int *,
			      const int *, const int *, const int *, const int *, const int *,
			      const int *, const int *, const int *, const int *, const int *);

/* The callees: add to the counter, as re-aim's fcal0, fcal1, fcal2 and fcal15. */
__attribute__((noinline)) static int64_t calls_leaf0(void)
{
	return *calls_count += *calls_in;
}

__attribute__((noinline)) static int64_t calls_leaf1(int n)
{
	return *calls_count += n;
}

__attribute__((noinline)) static int64_t calls_leaf2(const int *n, const int *i)
{
	return *calls_count += *n + *i;
}

__attribute__((noinline)) static int64_t
calls_leaf15(const int *a1, const int *a2, const int *a3, const int *a4, const int *a5,
	     const int *a6, const int *a7, const int *a8, const int *a9, const int *a10,
	     const int *a11, const int *a12, const int *a13, const int *a14, const int *a15)
{
	(void)a1, (void)a2, (void)a3, (void)a4, (void)a5, (void)a6, (void)a7;
	(void)a9, (void)a10, (void)a11, (void)a12, (void)a13, (void)a14;
	return *calls_count += *a8 + *a15;
}

#define CALLS_16(call) \
	do { call; call; call; call; call; call; call; call; \
	     call; call; call; call; call; call; call; call; } while (0)

/*
 * re-aim's loops: the outer count n runs outer - 1 (re-aim: 999) down to 0, the inner i 31
 * (511 for fun_cal15) down to 0; fun_cal1 passes n, fun_cal2 the addresses
 * of n and i, fun_cal15 that of i fifteen times, as re-aim did (so n and i
 * live in memory, their addresses having escaped).  re-aim's callees took
 * them as ints, a bug (an address truncated to an int on LP64); here they
 * take pointers and add what they point to.
 */
int64_t job_calls_work(int nargs, int input, unsigned outer, uint64_t *calls)
{
	int64_t count = 0;
	int in = input;
	calls_count = &count;
	calls_in = &in;
	*calls = 0;
	switch (nargs) {
	case 0: {
		calls_fn0 volatile pick = calls_leaf0;
		calls_fn0 fn = pick;
		for (int n = (int)outer; n--;)
			for (int i = CALLS_INNER; i--;)
				CALLS_16(fn());
		break;
	}
	case 1: {
		calls_fn1 volatile pick = calls_leaf1;
		calls_fn1 fn = pick;
		for (int n = (int)outer; n--;)
			for (int i = CALLS_INNER; i--;)
				CALLS_16(fn(n));
		break;
	}
	case 2: {
		calls_fn2 volatile pick = calls_leaf2;
		calls_fn2 fn = pick;
		for (int n = (int)outer; n--;)
			for (int i = CALLS_INNER; i--;)
				CALLS_16(fn(&n, &i));
		break;
	}
	case 15: {
		calls_fn15 volatile pick = calls_leaf15;
		calls_fn15 fn = pick;
		for (int n = (int)outer; n--;)
			for (int i = CALLS_INNER15; i--;)
				fn(&i, &i, &i, &i, &i, &i, &i, &i, &i, &i, &i, &i, &i, &i, &i);
		*calls = (uint64_t)outer * CALLS_INNER15;
		break;
	}
	default:
		count = -1;
		break;
	}
	if (count >= 0 && nargs < 15)
		*calls = (uint64_t)outer * CALLS_INNER * 16;
	calls_count = NULL; /* no pointer to this frame outlives it */
	calls_in = NULL;
	return count;
}

struct calls_variant {
	int nargs;
};

static int calls_run(struct job_ctx *c, const struct job_kind *k, const void *params,
		     void *state)
{
	(void)params, (void)state;
	const struct calls_variant *v = k->variant;
	uint64_t calls;
	int64_t count = job_calls_work(v->nargs, 1, (unsigned)job_scaled(c, CALLS_OUTER), &calls);
	if (count < 0)
		return job_failf(c, "no callee with %d arguments (a bug)", v->nargs);
	job_sink = (uint64_t)count + calls;
	return 0;
}

#define CALLS_DOC "Each call adds to a job counter through a pointer, as re-aim's callees " \
	"did (a memory read-modify-write, so the calls form one chain); the callee is "   \
	"picked through a volatile function pointer, so -O2/-O3 can neither inline nor "  \
	"drop it."

#define CALLS_KIND(kname, n, sum, loops)                                                  \
	static const struct calls_variant kname##_variant = { .nargs = n };               \
	const struct job_kind job_##kname = {                                             \
		.name = #kname,                                                          \
		.family = "compute",                                                     \
		.summary = sum,                                                          \
		.doc = "AIM7 " #kname ", re-aim's work: " sum "; " loops ". " CALLS_DOC, \
		.flags = 0,                                                              \
		.variant = &kname##_variant,                                             \
		.run_once = calls_run,                                                   \
	};

CALLS_KIND(fun_cal, 0, "512,000 indirect calls without arguments",
	   "1000 x 32 x 16 calls, each adding the input (1) to the counter")
CALLS_KIND(fun_cal1, 1, "512,000 indirect calls with 1 argument",
	   "1000 x 32 x 16 calls, each adding the outer count to the counter")
CALLS_KIND(fun_cal2, 2, "512,000 indirect calls with 2 arguments",
	   "1000 x 32 x 16 calls with the addresses of the outer and inner counts, each "
	   "adding the two counts (re-aim's callee took the addresses as ints, a bug on "
	   "64-bit; this one reads through them)")
CALLS_KIND(fun_cal15, 15, "512,000 indirect calls with 15 arguments",
	   "1000 x 512 calls with the inner count's address 15 times, each adding what its "
	   "8th and 15th arguments point to (re-aim's callee took them as ints, a bug on "
	   "64-bit; this one reads through them)")
