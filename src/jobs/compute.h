/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Test hooks of the compute and library job families (src/jobs/arith.c,
 * calls.c, math.c, libc.c), apart so that tests/unit/test_compute.c can
 * drive a kernel with a chosen seed and feed the result checkers wrong
 * answers.  Private to these families; nothing else includes this.
 */
#ifndef JOBMIX_JOBS_COMPUTE_H
#define JOBMIX_JOBS_COMPUTE_H

#include <stddef.h>
#include <stdint.h>

#include "jobmix/job.h"

/*
 * An arithmetic kind's variant (job_add_int.variant and so on): its loop
 * count and its kernel.  The kernel does `loops` x 12 operations on values
 * derived from `seed` and returns a digest of the final values.
 */
struct job_arith {
	uint64_t loops;
	uint64_t (*kernel)(uint64_t loops, uint64_t seed);
};

#endif
