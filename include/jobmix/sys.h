/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * System access: the environment a run records (kernel, host, CPUs, memory,
 * filesystem, mount options, block device and its IO scheduler), block
 * device resolution and the IO scheduler switch with restore.
 */
#ifndef JOBMIX_SYS_H
#define JOBMIX_SYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
	char device[64];            /* whole-disk name under /sys/block, "" if none */
	char scheduler[64];         /* active IO scheduler ("none" when [none]), "" if no file */
	char schedulers[SYS_STR];   /* all the kernel lists, space separated */
	char jobmix_version[64];
};

/*
 * Capture the environment for the filesystem holding `path` (the nearest
 * existing ancestor when `path` does not exist yet).  Reads only; fields it
 * cannot learn are left "" / 0.
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

/*
 * A block device name that may be used to build a /sys/block path: only
 * [A-Za-z0-9._-], not "." or "..", and /sys/block/<dev> exists.
 */
bool sys_dev_name_valid(const char *dev);

/*
 * Resolve the whole-disk block device (e.g. "vda", "loop3", "nvme0n1")
 * that holds `path`; partitions map to their parent disk.  -1 if none
 * (tmpfs, overlay without a single device, ...).
 */
int sys_block_device(const char *path, char *dev, size_t len);

/*
 * Active scheduler of /sys/block/<dev>/queue/scheduler (the bracketed word,
 * "none" when [none] is active) and the full list without brackets, space
 * separated.  -1 (both "") when `dev` is not a valid name or the device has
 * no scheduler file.  Reads only.
 */
int sys_sched_get(const char *dev, char *active, size_t alen, char *all, size_t all_len);

#endif
