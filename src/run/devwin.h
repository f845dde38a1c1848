/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The block devices' counters and the machine's (sys_pstat.h: CPU time by
 * state, pressure stalls, vmstat) over a load point's measured window:
 * read at load's two marks (release, end), never inside the window,
 * turned into rates afterwards.
 */
#ifndef JOBMIX_RUN_DEVWIN_H
#define JOBMIX_RUN_DEVWIN_H

#include <stdbool.h>
#include <stdint.h>

#include "jobmix/iotrace.h"
#include "jobmix/load.h"
#include "jobmix/sys_dev.h"
#include "jobmix/sys_dstat.h"
#include "jobmix/sys_memcg.h"
#include "jobmix/sys_pstat.h"
#include "jobmix/results.h"

struct devwin {
	size_t n;
	char name[SYS_MAX_DEVS][SYS_DEV_NAME];
	struct sys_dstat at[2][SYS_MAX_DEVS];   /* [LOAD_MARK_START | LOAD_MARK_END] */
	bool ok[2][SYS_MAX_DEVS];
	struct sys_pstat ps[2];                 /* the machine at the two marks */
	bool machine;                           /* read them (JOBMIX_NO_EVIDENCE=1: not, for
						 * bench/evidence.sh's comparison) */
	const struct sys_memcg *cg;             /* the users' memory cgroup, or NULL */
	struct sys_memcg_stat ms[2];
	uint64_t t[2];
	bool marked[2];
	struct iotrace *tr;                     /* the block tracer over the same window, or NULL */
};

/* Watch every device of set (a set may be empty). */
void devwin_init(struct devwin *w, const struct sys_devset *set);
/* Forget the last point's readings (the tracer's too). */
void devwin_reset(struct devwin *w);
/*
 * The block tracer's figures of device i over the window into d (blk_*,
 * d->blk); nothing without a tracer.  -1 when out of memory.
 */
int devwin_trace(const struct devwin *w, size_t i, struct res_dev *d);
/* load_cfg.mark: read every device's counters. */
void devwin_mark(void *w, enum load_mark m, uint64_t now_ns);
/*
 * Bytes the watched devices read over the window (the sum), into *bytes;
 * false when no device has a whole window.
 */
bool devwin_read_bytes(const struct devwin *w, double *bytes);
/* Rates of device i over the window; false when the window is incomplete. */
bool devwin_rates(const struct devwin *w, size_t i, struct sys_drate *r);
/*
 * The machine over the window into m (all NAN, noisy -1, when the window
 * is incomplete): users_cpu_s, the users' own CPU time, tells their share
 * from other work's on ncpu CPUs.
 */
void devwin_machine(const struct devwin *w, double users_cpu_s, unsigned ncpu,
		    struct res_machine *m);

#endif
