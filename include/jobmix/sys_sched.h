/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * IO scheduler control: read a device's schedulers, switch one with a read
 * back, and hold a device for an A/B run so that its original scheduler
 * always comes back.
 *
 * Everything lives in one root-only directory (default /run/jobmix; made
 * 0700, refused when it is a symlink, owned by another user, or group- or
 * other-writable), reached through held directory descriptors, files made
 * 0600 and opened with O_NOFOLLOW:
 *   <dir>/lock/<dev>    the device's lock (flock), holding the holder's pid;
 *                       removed by whoever releases it
 *   <dir>/sched/<dev>   the record of a held device: its original scheduler,
 *                       the holder's pid and the device's identity
 *                       (sys_sched_identity)
 *
 * Holding a device (sys_sched_hold):
 *   1. its lock, taken without waiting: a second A/B on it is refused;
 *   2. a record left by a jobmix that died holding it (SIGKILL) is acted on
 *      (sys_sched_repair): its original written back when the device is the
 *      one recorded, the record dropped unacted when it is not;
 *   3. the original scheduler is read and recorded before anything is
 *      switched;
 * releasing writes the original back, reads it back, removes the record
 * only when that worked (so a later repair retries), removes the lock and
 * unlocks.
 */
#ifndef JOBMIX_SYS_SCHED_H
#define JOBMIX_SYS_SCHED_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "jobmix/sys_dev.h"

#define SYS_SCHED_NAME 32         /* longest scheduler name kept (+ NUL) */
#define SYS_SCHED_LIST 256        /* the space-separated list */
#define SYS_SCHED_ID (PATH_MAX + 96)  /* a device's identity (a loop's backing path) */

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

/*
 * Which device `dev` is now, beyond its name: "diskseq N" where the kernel
 * numbers disks (a loop device gets a new number at every attach and
 * detach); else "dev MAJ:MIN" and, for a loop device, its backing file with
 * that file's device and inode ("dev 7:5, backing file /img (254:1 inode
 * 12)"), for another device its serial or wwid where sysfs lists one.  0, or
 * -1 (id "") when the device is not in /sys/block.  Reads only.
 */
int sys_sched_identity(const char *dev, char *id, size_t len);

/* The directory of locks and records (tests point it at a temp dir); NULL or "" puts back /run/jobmix. */
void sys_sched_set_dir(const char *dir);

struct sys_sched_hold {
	char dev[SYS_DEV_NAME];
	char original[SYS_SCHED_NAME];  /* active when the hold began */
	char current[SYS_SCHED_NAME];   /* what we last made active */
	int lock_fd;                    /* -1 when not held */
	int lock_dir, state_dir;        /* the directories' descriptors while held */
	bool state_saved;               /* our record exists */
	char repaired[SYS_SCHED_ID + 256];  /* what step 2 did, "" if nothing */
};

/*
 * Take the device for an A/B (steps 1-3 above; the directory is made when
 * missing).  0; -1 with err when the directory is not safe, the lock is held
 * by another jobmix (its pid named), the device has no settable scheduler,
 * a dead run's record cannot be acted on, or the record cannot be saved;
 * nothing is left held.
 */
int sys_sched_hold(const char *dev, struct sys_sched_hold *h, char *err, size_t errlen)
	__attribute__((warn_unused_result));

/* Switch a held device (sys_sched_write, remembering it). */
int sys_sched_switch(struct sys_sched_hold *h, const char *name, char *err, size_t errlen)
	__attribute__((warn_unused_result));

/*
 * Restore the original scheduler (when switched), verify it, remove the
 * record, remove the lock and unlock.  Always unlocks; -1 with err when the
 * original could not be put back (the record is kept for a later repair).
 * A no-op on a hold that is not held.
 */
int sys_sched_release(struct sys_sched_hold *h, char *err, size_t errlen);

/* What a repair did with one record. */
enum sys_repair {
	SYS_REPAIR_RESTORED,   /* the device is the one recorded: its original is back */
	SYS_REPAIR_DROPPED,    /* the device is another one now: record dropped, nothing switched */
	SYS_REPAIR_CLEARED,    /* the device is gone from /sys/block: record cleared */
	SYS_REPAIR_LEFT,       /* a live A/B holds the device: left to it */
	SYS_REPAIR_FAILED,     /* the original could not be put back (record kept) */
};

/* Told each record a repair met (one line, no newline). */
typedef void sys_repair_report(void *arg, enum sys_repair what, const char *msg);

/*
 * Repair what dead jobmix runs left: for the record of `only` (NULL: every
 * record, and every lock file nobody holds), under the device's lock: the
 * original scheduler written back when the device's identity is the one
 * recorded, the record dropped when the identity changed (never switching
 * that device), cleared when the device is gone; a device a live run
 * holds is left to it.  Makes no directory: none there, nothing to do.
 * The number of failures, or -1 with err when the directory is not safe
 * (then nothing was read or changed).
 */
int sys_sched_repair(const char *only, sys_repair_report *report, void *arg, char *err,
		     size_t errlen);

#endif
