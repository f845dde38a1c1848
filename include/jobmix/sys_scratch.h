/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The scratch device of a run (run --scratch DEV, xfstests' SCRATCH_DEV):
 * a whole block device or a loop device whose contents jobmix may destroy,
 * on which a file system is made (mkfs.TYPE) and mounted per arm at
 * <state dir>/scratch/DEV, the users' work directory.
 *
 * Refused as a scratch device: anything not a whole device listed in
 * /sys/block (a partition, a file), a read-only or empty device, one that
 * holds partitions or a partition table (MBR, GPT), one another device is
 * stacked on (holders: dm, md), one holding a mounted file system or
 * active swap, the device of the root file system, one opened exclusively
 * by someone else.  Mounted at its own scratch mount point (a killed run's,
 * unmounted by the knob's repair before anything else) is not refused.
 *
 * Held as a system knob (sys_knob.h, key "fs", original "none": not
 * mounted), so that a scratch file system a killed jobmix left mounted is
 * unmounted by the next run and by `jobmix restore`.
 */
#ifndef JOBMIX_SYS_SCRATCH_H
#define JOBMIX_SYS_SCRATCH_H

#include <stdbool.h>
#include <stddef.h>

#define SYS_SCRATCH_TYPES "ext2, ext3, ext4, xfs, btrfs, f2fs"
#define SYS_SCRATCH_OPTS 192      /* longest mkfs or mount option text (+ NUL) */

/*
 * Is path a device jobmix may use as scratch (see above)?  Its kernel name
 * into name.  Reads only.  0, or -1 with err naming the device and why.
 */
int sys_scratch_check(const char *path, char *name, size_t nlen, char *err, size_t errlen);
/* Is type a file system jobmix makes, with its mkfs program here?  0, or -1 with err. */
int sys_scratch_fs_check(const char *type, char *err, size_t errlen);
/*
 * Is v a mkfs option text jobmix passes on (words of [A-Za-z0-9_=.:^/+-]
 * separated by single spaces)?  0, or -1 with err.
 */
int sys_scratch_mkfs_check(const char *v, char *err, size_t errlen);
/*
 * Is v a mount option text for a fresh mount: options joined by '+'
 * ("noatime", "data=journal+noatime"); "ro" and "remount" refused.
 * 0, or -1 with err.
 */
int sys_scratch_mount_check(const char *v, char *err, size_t errlen);
/* Where the scratch file system of dev is mounted: <state dir>/scratch/DEV. */
void sys_scratch_mount_point(const char *dev, char *out, size_t len);
/*
 * What the scratch mount point of dev holds: "none" (nothing mounted
 * there), or "mounted".  0, or -1 when it cannot be told.
 */
int sys_scratch_state(const char *dev, char *out, size_t len);
/*
 * Make the scratch file system: unmount what is mounted there, then, when
 * mkfs is true, mkfs.TYPE (forced, quiet; ext3/ext4 with their inode tables
 * and journal initialised now, not by a kernel thread during the points,
 * unless the options give -E) with mkfs_opts, then mount it with
 * mount_opts ("" for the defaults).  What mountinfo shows ("ext4 rw,
 * relatime,data=journal") into read_back.  0, or -1 with err (mkfs's own
 * message in it).
 */
int sys_scratch_make(const char *dev, const char *type, bool mkfs, const char *mkfs_opts,
		     const char *mount_opts, char *read_back, size_t rblen, char *err,
		     size_t errlen);
/*
 * Unmount the scratch file system of dev (waiting a little for a busy one)
 * and remove its mount point.  0 (also when nothing was mounted), or -1.
 */
int sys_scratch_unmount(const char *dev, char *err, size_t errlen);

#endif
