/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Block devices: which devices under /sys/block hold a path, down to the
 * queues that schedule (a partition maps to its disk, a device-mapper or md
 * device to its slaves, recursively), and small reads of their sysfs
 * attributes.  Only device names ever reach a /sys path, and only names
 * that /sys/block lists.  Reads only.
 */
#ifndef JOBMIX_SYS_DEV_H
#define JOBMIX_SYS_DEV_H

#include <stdbool.h>
#include <stddef.h>

#define SYS_DEV_NAME 32           /* longest device name kept (+ NUL) */
#define SYS_MAX_DEVS 8            /* devices in one set */

/*
 * A block device name that may be used to build a /sys/block path: only
 * [A-Za-z0-9._-], no "..", and /sys/block/<dev> exists.
 */
bool sys_dev_name_valid(const char *dev);

/* One device met while resolving. */
struct sys_dev {
	char name[SYS_DEV_NAME];      /* under /sys/block */
	char via[SYS_DEV_NAME];       /* the stacked device it was reached from, "" for a top one */
	bool stacked;                 /* has slaves (dm, md): its I/O is scheduled below */
	bool settable;                /* queue/scheduler offers a choice of schedulers */
};

/* Devices in the order met; no name twice. */
struct sys_devset {
	size_t n;
	struct sys_dev dev[SYS_MAX_DEVS];
};

/*
 * Add the devices holding `path` (its nearest existing ancestor when it
 * does not exist yet): stat -> st_dev -> /sys/dev/block/MAJ:MIN, a
 * partition to its disk, a stacked device and then every slave below it
 * (partitions of slaves to their disks).  A filesystem without one device
 * (btrfs, overlay) falls back to its mount source.  0, or -1 with err
 * saying why (tmpfs, nfs, too many devices).
 */
int sys_dev_resolve(const char *path, struct sys_devset *set, char *err, size_t errlen);

/*
 * Add device `name` (as given to --device) and, when stacked, its slaves.
 * -1 with err when the name is not one /sys/block lists.
 */
int sys_dev_add_name(const char *name, struct sys_devset *set, char *err, size_t errlen);

/*
 * Resolve the first whole-disk device holding `path` (the top of
 * sys_dev_resolve's walk: "dm-0", "vda", "loop3").  -1 if none.
 */
int sys_block_device(const char *path, char *dev, size_t len);

/*
 * Read the first line of /sys/block/<dev>/<attr>, newline stripped.  `attr`
 * is a relative name made of [A-Za-z0-9._-/] without "..".  0 or -1.
 */
int sys_dev_attr(const char *dev, const char *attr, char *buf, size_t len);

/*
 * Read sysfs from another root (a fake tree in the unit tests); NULL or ""
 * puts back "/sys".
 */
void sys_dev_set_sysfs(const char *root);

#endif
