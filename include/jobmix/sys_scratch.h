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
 * by someone else, one that is the backing device of a loop device.  Mounted
 * at its own scratch mount point (a killed run's, unmounted by the knob's
 * repair before anything else) is not refused.  A loop device is followed
 * down every layer (/sys/block/loopN/loop/backing_file): a backing block
 * device passes the same checks; a backing file must be root's, writable
 * by no one else, not active swap, and no other loop device's backing file.
 *
 * The device is held from its check to the end of the run (struct
 * sys_scratch_hold): a plain descriptor all along (a loop device cannot be
 * detached while it is open: `losetup -d` only marks it to go at the last
 * close), and an O_EXCL one except while mkfs or mount(2) claims it
 * themselves.  Its identity (device number, diskseq, a loop device's
 * backing file) is compared with the one checked before every mkfs and
 * every mount.
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

#define SYS_STATE_DIR_DEFAULT "/run/jobmix"   /* the state directory without JOBMIX_STATE_DIR */
#define SYS_SCRATCH_ID 512        /* an identity text (+ NUL) */
#define SYS_SCRATCH_DEPTH 8       /* loop layers followed at most */

/* The scratch device, held. */
struct sys_scratch_hold {
	char name[64];                /* its kernel name ("loop5") */
	int fd;                       /* O_RDONLY, from the check to the end; -1: not held */
	int excl;                     /* O_RDONLY | O_EXCL, -1 while mkfs or a mount claims it */
	unsigned long long rdev;      /* its device number as checked */
	unsigned long long seq;       /* its diskseq as checked, 0: none */
	char id[SYS_SCRATCH_ID];      /* sys_scratch_identity() as checked */
	bool changed;                 /* a comparison found another device under its name */
};

/*
 * Is path a device jobmix may use as scratch (see above)?  When it is, it
 * is held into h (h->name its kernel name); release with
 * sys_scratch_release.  Writes nothing.  0, or -1 with err naming the
 * device (and the layer of a loop device) and why, nothing held.
 */
int sys_scratch_check(const char *path, struct sys_scratch_hold *h, char *err, size_t errlen);
/* Close what h holds (a loop device marked by `losetup -d` goes now). */
void sys_scratch_release(struct sys_scratch_hold *h);
/* Give up the O_EXCL descriptor while the workload itself opens the device (raw). */
void sys_scratch_share(struct sys_scratch_hold *h);
/*
 * What the device called name is, from sysfs: "dev MAJ:MIN, diskseq N",
 * and for a loop device its backing file's device and inode.  0, or -1
 * (no such device).
 */
int sys_scratch_identity(const char *name, char *id, size_t len);
/*
 * Is h's name still the device checked (the node's and the held
 * descriptor's device number, sysfs's identity, diskseq)?  0, or -1 with
 * err and h->changed set.
 */
int sys_scratch_same(struct sys_scratch_hold *h, char *err, size_t errlen);
/* Is type a file system jobmix makes, with its mkfs program here?  0, or -1 with err. */
int sys_scratch_fs_check(const char *type, char *err, size_t errlen);
/*
 * Is v a mkfs option text jobmix may pass on: words of [A-Za-z0-9_=.:^+-]
 * separated by single spaces, no '/'?  (Which options: see
 * sys_scratch_mkfs_allowed.)  0, or -1 with err.
 */
int sys_scratch_mkfs_check(const char *v, char *err, size_t errlen);
/*
 * Is every word of v an option mkfs.TYPE takes from jobmix's allow-list
 * for TYPE (options that name no path and no device; a value, attached or
 * the next word, without '/'; xfs's and mke2fs's -E/-J sub-options from
 * their own lists)?  No positional word.  0, or -1 with err naming it.
 */
int sys_scratch_mkfs_allowed(const char *type, const char *v, char *err, size_t errlen);
/*
 * Is v a mount option text for a fresh mount: options joined by '+'
 * ("noatime", "data=journal+noatime"); "ro" and "remount" refused.
 * 0, or -1 with err.
 */
int sys_scratch_mount_check(const char *v, char *err, size_t errlen);
/*
 * Is path (its nearest existing ancestor, resolved) at or beneath a place
 * where jobmix mounts and unmounts scratch file systems: <state
 * dir>/scratch, or /run/jobmix/scratch?  That place into where.
 */
bool sys_scratch_inside(const char *path, char *where, size_t len);
/* Where the scratch file system of dev is mounted: <state dir>/scratch/DEV. */
void sys_scratch_mount_point(const char *dev, char *out, size_t len);
/*
 * What the scratch mount point of dev holds: "none" (nothing mounted
 * there), or "mounted".  0, or -1 when it cannot be told.
 */
int sys_scratch_state(const char *dev, char *out, size_t len);
/*
 * Make the scratch file system on the held device: unmount what is mounted
 * there, then, when mkfs is true, mkfs.TYPE (forced, quiet; ext3/ext4 with
 * their inode tables and journal initialised now, not by a kernel thread
 * during the points, unless the options give -E) with mkfs_opts and the
 * device last, after "--", then mount it with mount_opts ("" for the
 * defaults).  The device's identity is compared before the mkfs and before
 * the mount (sys_scratch_same).  mkfs dies with jobmix (PR_SET_PDEATHSIG).
 * What mountinfo shows ("ext4 rw,relatime,data=journal") into read_back.
 * 0, or -1 with err (mkfs's own message in it; h->changed when the device
 * was not the one checked: nothing was written).
 */
int sys_scratch_make(struct sys_scratch_hold *h, const char *type, bool mkfs,
		     const char *mkfs_opts, const char *mount_opts, char *read_back, size_t rblen, char *err,
		     size_t errlen);
/*
 * Unmount the scratch file system of dev (waiting a little for a busy one)
 * and remove its mount point.  0 (also when nothing was mounted), or -1.
 */
int sys_scratch_unmount(const char *dev, char *err, size_t errlen);

#endif
