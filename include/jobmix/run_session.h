/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A run's session: the resources it acquires, in this order, and releases
 * in the reverse order on every path (normal end, error, signal):
 *   1. the work area (private directories under each work dir);
 *   2. the devices of an A/B (lock + saved original scheduler);
 *   3. the scheduler switch (undone by the release of 2);
 *   4. the system knobs of an axes matrix (sys_knob.h: held with their
 *      originals recorded, set per arm, put back before the devices).
 * A restore that fails is said loudly (through say) and kept in
 * restore_error.  The users' memory cgroup (5, made with the area) goes
 * last.  Nothing here prints: messages go to say (NULL: dropped).
 */
#ifndef JOBMIX_RUN_SESSION_H
#define JOBMIX_RUN_SESSION_H

#include <stdbool.h>
#include <stddef.h>

#include "jobmix/load.h"
#include "jobmix/sys_dev.h"
#include "jobmix/sys_knob.h"
#include "jobmix/sys_memcg.h"
#include "jobmix/sys_scratch.h"
#include "jobmix/sys_sched.h"
#include "jobmix/workload.h"

#define SESSION_MAX_KNOBS 32

struct session {
	struct load_area area;
	bool have_area;
	size_t nholds;
	struct sys_sched_hold holds[SYS_MAX_DEVS];
	char current[SYS_SCHED_NAME];   /* active on every held device, "" before a switch */
	size_t nknobs;
	struct sys_knob knobs[SESSION_MAX_KNOBS];
	char read_back[SESSION_MAX_KNOBS][SYS_KNOB_VAL];  /* each knob after its last set */
	struct sys_memcg memcg;         /* the users' memory cgroup (run --mem-limit) */
	bool have_memcg;
	bool released;
	bool restore_failed;
	char restore_error[512];
	void (*say)(void *arg, const char *text);   /* what the user should read */
	void *say_arg;
};

/* 1: create the work area.  0, or -1 with err. */
int session_open_area(struct session *s, const struct workload *wl, char *err, size_t errlen);
/* 2: hold every device of set that has a settable scheduler.  0, or -1 with err (none held). */
int session_hold(struct session *s, const struct sys_devset *set, char *err, size_t errlen);
/*
 * 3: make `sched` active on every held device: write back the work area's
 * filesystems, switch and verify each device, drop the work files' cached
 * pages.  0, or -1 with err.
 */
int session_switch(struct session *s, const char *sched, char *err, size_t errlen);
/* 4: hold knob key of family f on target (sys_knob_hold).  0, or -1 with err. */
int session_hold_knob(struct session *s, const struct sys_knob_family *f, const char *key,
		      const char *target, char *err, size_t errlen);
/*
 * The scratch file system (the held "fs" knob's device, held as h): the work area
 * removed, the file system made (mkfs) or only mounted afresh with mnt's
 * options (sys_scratch_make), then, when wl, the work area made on it
 * again.  What mountinfo shows kept in the knob's read_back, what was asked
 * in its current.  0, or -1 with err.
 */
int session_scratch(struct session *s, struct sys_scratch_hold *h, const struct workload *wl,
		    const char *type, bool mkfs, const char *mkfs_opts, const char *mnt, char *err,
		    size_t errlen);
/*
 * The users' memory cgroup with limit bytes, made, or its limit changed
 * when there is one.  0, or -1 with err.  Removed by session_close.
 */
int session_memcg(struct session *s, uint64_t limit, char *err, size_t errlen);
/* Is the mount holding path one whose atime option is held already? */
bool session_holds_mount(const struct session *s, const char *path);
/*
 * Set every held knob named key to value (write back the work area first,
 * drop its cached pages after, as a scheduler switch does); what each read
 * back is kept in read_back.  0, or -1 with err.
 */
int session_set_knob(struct session *s, const char *key, const char *value, char *err,
		     size_t errlen);
/*
 * Restore and unlock every held knob and device (reverse order); failures are
 * said and kept.  Idempotent.  0 or -1 (a restore failed).
 */
int session_release_devices(struct session *s);
/* Release everything (devices, then the work area).  0, or -1 if anything failed. */
int session_close(struct session *s);
/* "dev=original dev2=original" of the held devices. */
void session_originals(const struct session *s, char *buf, size_t len);
/* "dev dev2" of the held devices. */
void session_devices(const struct session *s, char *buf, size_t len);

#endif
