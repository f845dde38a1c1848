/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * System access: the environment a run records (kernel, host, CPUs, memory,
 * filesystem, mount options, block devices and their queue settings) and
 * the mount holding a path.  Device resolution (sys_dev.h), queue settings
 * (sys_queue.h), scheduler control (sys_sched.h) and device statistics
 * (sys_dstat.h) have their own headers.
 */
#ifndef JOBMIX_SYS_H
#define JOBMIX_SYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "jobmix/sys_dev.h"
#include "jobmix/sys_queue.h"

#define SYS_STR 256

struct sys_env {
	char kernel[SYS_STR];       /* uname -r */
	char hostname[SYS_STR];
	char machine[64];           /* uname -m */
	unsigned cpus;              /* online */
	uint64_t mem_bytes;
	char fs_type[64];           /* of the filesystem holding the captured path */
	char mount_options[SYS_STR];
	char mount_point[SYS_STR];
	char device[64];            /* the first device that schedules (else the top one), "" if none */
	char scheduler[64];         /* its active IO scheduler ("none" when [none]), "" if no file */
	char schedulers[SYS_STR];   /* all it lists, space separated */
	char jobmix_version[64];
	size_t nqueues;             /* every device met resolving the work dirs (or --device) */
	struct sys_queue queues[SYS_MAX_DEVS];
};

/*
 * Capture the environment for the filesystem holding `path` (the nearest
 * existing ancestor when `path` does not exist yet), with the queue
 * settings of the devices holding it.  Reads only; fields it cannot learn
 * are left "" / 0.
 */
void sys_env_capture(const char *path, struct sys_env *env);

/*
 * The most users this machine can hold, for an adaptive ramp whose
 * users.end is auto: each user is a process (or a thread) that may have one
 * child at a time (fork_test, exec_test, shell_rtns, sync: exec), so half of
 * the smallest of RLIMIT_NPROC, kernel.threads-max and kernel.pid_max, less
 * a reserve of 64 for the rest of the system.  At least 1.  Reads only.
 */
unsigned sys_max_users(void);

/*
 * Make room for a load point that needs `nofile` descriptors in one process
 * and `nproc` tasks of this user: raise the soft RLIMIT_NOFILE and
 * RLIMIT_NPROC up to their hard limits where needed.  0, or -1 with err
 * naming the limit, what is needed and what the hard limit allows (then
 * nothing was changed).  RLIMIT_NPROC does not bind root.
 */
int sys_fit_limits(uint64_t nofile, uint64_t nproc, char *err, size_t errlen);
/* The hard RLIMIT_NOFILE (UINT64_MAX for none). */
uint64_t sys_nofile_hard(void);

/*
 * Replace the devices of a captured environment with `set` (every work
 * directory's, or --device): queues[] re-read, device/scheduler/schedulers
 * from the first device that schedules.  Call again after a switch.
 */
void sys_env_set_devices(struct sys_env *env, const struct sys_devset *set);

/* The mount holding a path, from /proc/self/mountinfo. */
struct sys_mount {
	unsigned major, minor;       /* device number as mountinfo reports it */
	char mount_point[SYS_STR];
	char fs_type[64];
	char source[SYS_STR];        /* "/dev/vda1", "tmpfs", "overlay", ... */
	char options[SYS_STR];       /* per-mount options, then the super options not already listed */
};

/*
 * Find the mount holding `path` (or its nearest existing ancestor): the
 * mountinfo line whose device matches the path's st_dev and whose mount
 * point is the longest prefix of the resolved path; when no line matches
 * the device (btrfs subvolumes), the longest prefix alone.  0 or -1.
 */
int sys_mount_find(const char *path, struct sys_mount *m);

#endif
