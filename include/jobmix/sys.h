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
	char fs_type[64];           /* of the first work dir */
	char mount_options[SYS_STR];
	char mount_point[SYS_STR];
	char device[64];            /* whole-disk name under /sys/block, "" if none */
	char scheduler[64];         /* active IO scheduler, "" if none/unknown */
	char schedulers[SYS_STR];   /* all the kernel lists, space separated */
	char jobmix_version[64];
};

/* Capture the environment for the filesystem holding `path`. */
void sys_env_capture(const char *path, struct sys_env *env);

/*
 * Resolve the whole-disk block device (e.g. "vda", "loop3", "nvme0n1")
 * that holds `path`; partitions map to their parent disk.  -1 if none
 * (tmpfs, overlay without a single device, ...).
 */
int sys_block_device(const char *path, char *dev, size_t len);

/* Active scheduler of /sys/block/<dev>/queue/scheduler and the full list. */
int sys_sched_get(const char *dev, char *active, size_t alen, char *all, size_t all_len);

#endif
