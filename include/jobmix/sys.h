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

#include "jobmix/sys_context.h"
#include "jobmix/sys_dev.h"
#include "jobmix/sys_queue.h"

#define SYS_STR 256

/*
 * The host's identity, telling apart hosts that share a name (clones): its
 * machine id (/etc/machine-id, else /var/lib/dbus/machine-id) as the
 * application-specific id systemd derives for jobmix (what `systemd-id128
 * machine-id --app-specific=SYS_ENV_APP_ID` prints), so that run.json,
 * shared and pushed to a fleet's database, never holds the machine id
 * itself (machine-id(5): keep it confidential).  32 hex digits into out,
 * or "" when neither file holds a machine id.
 */
#define SYS_ENV_APP_ID "ea5386dca17447ff8a51716cb43a3f87"
void sys_env_machine_id(char *out, size_t len);

struct sys_env {
	char kernel[SYS_STR];       /* uname -r */
	char hostname[SYS_STR];
	char machine_id[40];        /* the host's identity (sys_env_machine_id), "" if unknown */
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
	struct sys_context ctx;     /* CPUs allowed, governor, THP, swap, cmdline, hypervisor, build */
};

/*
 * Capture the environment for the filesystem holding `path` (the nearest
 * existing ancestor when `path` does not exist yet), with the queue
 * settings of the devices holding it.  Reads only; fields it cannot learn
 * are left "" / 0.
 */
void sys_env_capture(const char *path, struct sys_env *env);

/*
 * The kernel's limits on tasks (processes and threads count alike) and
 * what uses them now; 0 for a limit that is not known or not set.
 */
struct sys_tasks {
	uint64_t pid_max;           /* /proc/sys/kernel/pid_max */
	uint64_t threads_max;       /* /proc/sys/kernel/threads-max */
	uint64_t running;           /* tasks on the machine: /proc/loadavg's 4th field, after '/' */
	uint64_t cg_max;            /* pids.max of the pids cgroup that binds tightest, 0: none */
	uint64_t cg_current;        /* its pids.current */
	char cg_path[SYS_STR];      /* its directory (this process's cgroup or an ancestor) */
};

/*
 * Read the limits: pid_max, threads-max, the tasks running, and the pids
 * cgroups of this process and their ancestors (cgroup v2 and the v1 pids
 * hierarchy, found from /proc/self/cgroup and /proc/self/mountinfo), of
 * which the one with the least room is kept.  Reads only.
 */
void sys_tasks_read(struct sys_tasks *t);

/* What a load leaves the rest of the machine under a limit: 10% of it, at least 256 tasks. */
uint64_t sys_tasks_margin(uint64_t limit);

/*
 * How many users of `per_user` tasks each the limits hold beside what is
 * running and the margin of each (UINT64_MAX when no limit is known).  When
 * that is fewer than `users`, why names the limit that binds and its
 * numbers: "200000 users need 200000 tasks, but pid_max is 32768 and 412 are
 * in use (with a margin of 3277, at most 29079 users fit)".  Pure.
 */
uint64_t sys_tasks_fit(const struct sys_tasks *t, uint64_t per_user, uint64_t users, char *why,
		       size_t whylen);

/*
 * The most users this machine can hold, for an adaptive ramp whose
 * users.end is auto: what sys_tasks_fit allows users of `per_user` tasks
 * now and, for a user other than root, RLIMIT_NPROC (less a reserve of 64).
 * At least 1, at most 1,000,000.  Reads only.
 */
unsigned sys_max_users(unsigned per_user);

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
/* Re-read the file system, mount point and options holding path (after a remount). */
void sys_env_set_mount(struct sys_env *env, const char *path);

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
