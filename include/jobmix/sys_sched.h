/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * IO scheduler control: read a device's schedulers, switch one with a read
 * back, and hold a device for an A/B run so that its original scheduler
 * always comes back.
 *
 * Holding a device (sys_sched_hold):
 *   1. an flock'd lock file <lockdir>/jobmix-sched-<dev>.lock, taken without
 *      waiting: a second A/B on the same device is refused;
 *   2. a state file <statedir>/<dev> left by a jobmix that died holding the
 *      device (SIGKILL) is acted on: its original scheduler is written back;
 *   3. the original scheduler is read and saved in <statedir>/<dev> before
 *      anything is switched;
 * releasing writes the original back, reads it back, removes the state
 * file only when that worked (so the next jobmix or `jobmix sched
 * --restore` retries), and unlocks.  Defaults: /run/jobmix/sched and
 * /run/lock.
 */
#ifndef JOBMIX_SYS_SCHED_H
#define JOBMIX_SYS_SCHED_H

#include <stdbool.h>
#include <stddef.h>

#include "jobmix/sys_dev.h"

#define SYS_SCHED_NAME 32         /* longest scheduler name kept (+ NUL) */
#define SYS_SCHED_LIST 256        /* the space-separated list */

/*
 * Active scheduler of /sys/block/<dev>/queue/scheduler (the bracketed word,
 * "none" when [none] is active) and the full list without brackets, space
 * separated.  -1 (both "") when `dev` is not a valid name or the device has
 * no scheduler file.  Reads only.
 */
int sys_sched_get(const char *dev, char *active, size_t alen, char *all, size_t all_len);

/* Does the device offer a choice (a bracketed active one among several)? */
bool sys_sched_settable(const char *dev);

/* Is `name` one of the schedulers the device lists? */
bool sys_sched_listed(const char *dev, const char *name);

/*
 * Make `name` the device's scheduler: the name must be listed by the
 * device; write it, read it back, check it is the active one.  0, or -1
 * with err (the device and what is active now).
 */
int sys_sched_write(const char *dev, const char *name, char *err, size_t errlen)
	__attribute__((warn_unused_result));

/* Where state and lock files live (tests point them at a temp dir); NULL keeps one. */
void sys_sched_set_dirs(const char *state_dir, const char *lock_dir);

struct sys_sched_hold {
	char dev[SYS_DEV_NAME];
	char original[SYS_SCHED_NAME];  /* active when the hold began */
	char current[SYS_SCHED_NAME];   /* what we last made active */
	int lock_fd;                    /* -1 when not held */
	bool state_saved;               /* our state file exists */
	char repaired[160];             /* what step 2 did, "" if nothing */
};

/*
 * Take the device for an A/B (steps 1-3 above).  0; -1 with err when the
 * lock is held by another jobmix (its pid named), the device has no
 * settable scheduler, or the state cannot be saved; nothing is left held.
 */
int sys_sched_hold(const char *dev, struct sys_sched_hold *h, char *err, size_t errlen)
	__attribute__((warn_unused_result));

/* Switch a held device (sys_sched_write, remembering it). */
int sys_sched_switch(struct sys_sched_hold *h, const char *name, char *err, size_t errlen)
	__attribute__((warn_unused_result));

/*
 * Restore the original scheduler (when switched), verify it, remove the
 * state file, unlock.  Always unlocks; -1 with err when the original could
 * not be put back (the state file is kept for a later repair).  A no-op on
 * a hold that is not held.
 */
int sys_sched_release(struct sys_sched_hold *h, char *err, size_t errlen);

/*
 * Repair what dead jobmix runs left: for every state file whose device is
 * not locked by a live run, write its original scheduler back and remove the
 * file.  `report` (may be NULL) is told each repair or failure (one line,
 * no newline).
 * Returns the number of failures.  `only`: repair just that device (NULL all).
 */
int sys_sched_repair(const char *only, void (*report)(void *arg, bool ok, const char *msg),
		     void *arg);

#endif
