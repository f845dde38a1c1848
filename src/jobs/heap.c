// SPDX-License-Identifier: GPL-2.0-only
/*
 * Heap jobs: page_test and brk_test move the program break with sbrk(2),
 * as AIM7 did, so they exercise the kernel's brk path.  The break is
 * process-wide and malloc also moves it, so both are JOB_PROCESS_ONLY (a
 * process holds one user, whose job does not call malloc meanwhile).  Each
 * iteration shrinks the break by exactly what it grows it, and the break is
 * put back where it was at the end, so malloc's idea of the heap holds.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "jobmix/job.h"

#define HEAP_GROW   (1 << 20)     /* once, up front        */
#define HEAP_SHRINK (64 << 10)    /* per iteration          */
#define HEAP_STEP   (4 << 10)     /* 16 of these grow it back */
#define HEAP_STEPS  (HEAP_SHRINK / HEAP_STEP)
#define HEAP_TOUCH  128           /* page_test writes one byte per 128 */

struct heap_variant {
	int loops;
	bool touch;
};

/*
 * Grow the break by 1 MiB, then loops x (shrink 64 KiB; 16 x grow 4 KiB,
 * writing a byte every 128 bytes of each new piece if touch is set).
 * Always restores the original break.
 */
static int heap_run(struct job_ctx *c, const struct job_kind *k, const void *params,
		    void *state)
{
	(void)params, (void)state;
	const struct heap_variant *v = k->variant;
	const char *op = NULL;
	int err = 0;
	char *start = sbrk(0);
	if (start == (void *)-1)
		return job_fail(c, "sbrk(0)", NULL, errno);
	if (sbrk(HEAP_GROW) == (void *)-1) {
		op = "sbrk(+1 MiB)";
		err = errno;
		goto restore;
	}
	for (uint64_t i = job_scaled(c, (uint64_t)v->loops); i > 0; i--) {
		if (sbrk(-HEAP_SHRINK) == (void *)-1) {
			op = "sbrk(-64 KiB)";
			err = errno;
			goto restore;
		}
		for (int j = 0; j < HEAP_STEPS; j++) {
			volatile char *p = sbrk(HEAP_STEP);
			if (p == (void *)-1) {
				op = "sbrk(+4 KiB)";
				err = errno;
				goto restore;
			}
			if (v->touch)
				for (int off = 0; off < HEAP_STEP; off += HEAP_TOUCH)
					p[off] = (char)(off | 1);
		}
	}
restore:
	if (brk(start))
		return job_failf(c, "could not put the program break back to %p: %s", (void *)start,
				 strerror(errno));
	if (sbrk(0) != start)
		return job_failf(c, "program break still moved after restoring it to %p",
				 (void *)start);
	if (op)
		return job_fail(c, op, NULL, err);
	return 0;
}

static const struct heap_variant heap_page_v = { .loops = 100, .touch = true };
static const struct heap_variant heap_brk_v = { .loops = 1000, .touch = false };

const struct job_kind job_page_test = {
	.name = "page_test",
	.family = "mem",
	.summary = "sbrk +1 MiB; 100 x (-64 KiB; 16 x +4 KiB touching every 128 bytes)",
	.doc = "AIM7 page_test: grow the heap (program break) by 1 MiB, then 100 x (shrink it "
	       "by 64 KiB; grow it by 4 KiB 16 times, writing one byte every 128 bytes of each "
	       "new piece, so every page is faulted in afresh), then restore the break.  Uses "
	       "sbrk(2), so it measures the kernel's brk path as AIM7 did; since the break is "
	       "process-wide (and malloc's), it is process-only rather than emulated with "
	       "mmap/mremap in threads.",
	.flags = JOB_PROCESS_ONLY,
	.variant = &heap_page_v,
	.run_once = heap_run,
};

const struct job_kind job_brk_test = {
	.name = "brk_test",
	.family = "mem",
	.summary = "sbrk +1 MiB; 1000 x (-64 KiB; 16 x +4 KiB), no touching",
	.doc = "AIM7 brk_test: page_test's break pattern without touching memory: grow the "
	       "heap by 1 MiB, then 1000 x (shrink by 64 KiB; 16 x grow by 4 KiB), then restore "
	       "the break.  sbrk(2), process-only, like page_test.",
	.flags = JOB_PROCESS_ONLY,
	.variant = &heap_brk_v,
	.run_once = heap_run,
};
