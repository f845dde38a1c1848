/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * System knobs an A/B matrix varies (run -X), beyond the IO scheduler:
 *   queue.ATTR   /sys/block/DEV/queue/ATTR on one device (read_ahead_kb,
 *                nr_requests, max_sectors_kb, wbt_lat_usec, iosched/NAME
 *                of the active scheduler, ...); never queue.scheduler
 *                (that is -s / -X sched)
 *   SYSCTL       /proc/sys by its sysctl name (vm.dirty_ratio); only the
 *                vm. and kernel.sched_ families unless allowed
 *   mount        the per-mount atime option of the mount holding a work
 *                directory: strictatime, relatime or noatime, remounted
 *                in place (MS_REMOUNT | MS_BIND: no other option touched)
 *   fs           the scratch device's file system (sys_scratch.h): held
 *                with original "none" (nothing mounted), made and mounted
 *                through sys_scratch_make, unmounted when put back;
 *                fs.mkfs names the same knob (its mkfs options)
 *
 * A knob is held as a device is for a scheduler A/B (sys_sched.h), in the
 * same root-only directory: <dir>/lock/knob.NAME (flock, without waiting)
 * and <dir>/knob/NAME, the record of its original value, the value jobmix
 * wrote last (written=, read back; pending= while a write is under way),
 * the holder's pid and the target's identity, saved before the first
 * change and again around every write.  Releasing writes the original back,
 * reads it back and removes the record only when that worked; a record
 * left by a jobmix that died (SIGKILL) is acted on by the next hold of that
 * knob (only: a run holds the knobs of its own axes) and by
 * sys_knob_repair (`jobmix restore`): the original written back when the
 * target is the one recorded and still reads what jobmix wrote; the record
 * dropped, the value left as it is, when the target is another one, reads
 * a value someone set since, or the knob is not there (an iosched tunable
 * under another scheduler).  An old record without written= is restored
 * unchecked, and said so.
 */
#ifndef JOBMIX_SYS_KNOB_H
#define JOBMIX_SYS_KNOB_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "jobmix/sys_sched.h"

#define SYS_KNOB_KEY 64           /* longest key (+ NUL) */
#define SYS_KNOB_VAL 128          /* longest value kept (+ NUL) */

enum sys_knob_kind {
	SYS_KNOB_QUEUE,
	SYS_KNOB_SYSCTL,
	SYS_KNOB_MOUNT,
	SYS_KNOB_SCRATCH,         /* "fs": the scratch file system (sys_scratch.h) */
};

/* Where the plan sets an axis of a family, and the engine holds it. */
enum sys_knob_on {
	SYS_KNOB_ON_SYSTEM,       /* once, target "" (a sysctl) */
	SYS_KNOB_ON_DEVICES,      /* on each watched device (queue.*) */
	SYS_KNOB_ON_MOUNTS,       /* on the mount of each work directory (mount) */
	SYS_KNOB_ON_SCRATCH,      /* the scratch file system, made per arm (sys_scratch.h) */
};

struct sys_knob;

/*
 * A knob family: one row of sys_knob_families[] (knob_family.c) says all
 * jobmix does with its keys.  key: the axis key; target: the device, the
 * mount point (after `target`), "" for the system.  The ops after `check`
 * are NULL for a family never held itself (the scratch mount: the scratch
 * file system's hold covers it).
 */
struct sys_knob_family {
	const char *name;             /* "queue", "sysctl", ...: in docs and tests */
	enum sys_knob_kind kind;      /* as a record stores it */
	enum sys_knob_on on;
	bool scratch_only;            /* a family only with a scratch device (--scratch) */
	bool sched_bound;             /* the scheduler's: put back after the scheduler */
	bool written;                 /* its record keeps the value jobmix wrote */
	const char *lock;             /* what a holder is doing, for another's message */
	bool (*match)(const char *key);
	/* each value settable on target, changing nothing: 0, or -1 with err */
	int (*check)(const char *key, const char *target, const char *const *values, size_t n,
		     bool allow_any, char *err, size_t errlen);
	/* the target held for a given one (the mount of a path; "" for the system) */
	int (*target)(const char *given, char *out, size_t len);
	/* the file of the knob (NULL: not one file) */
	int (*path)(const char *key, const char *target, char *path, size_t len);
	int (*get)(const char *key, const char *target, char *buf, size_t len);
	int (*put)(const char *key, const char *target, const char *value, char *err,
		   size_t errlen);
	/* put the original back (the scratch file system: unmounted) */
	int (*restore)(const char *key, const char *target, const char *original, char *err,
		       size_t errlen);
	/* which target this is beyond its name, as its record keeps it */
	int (*identity)(const char *target, char *id, size_t len);
	/* its record's and lock's file name (before '/' becomes '-') */
	int (*record)(const char *key, const char *target, char *name, size_t len);
	/* a value read, as a plan shows it (NULL: as read) */
	void (*show)(const char *value, const char *target, char *buf, size_t len);
};

extern const struct sys_knob_family sys_knob_families[];
extern const size_t sys_knob_nfamilies;

/*
 * The family of an axis key (scratch: the run has a scratch device), or
 * NULL when it is none (a workload key, sched).  Names only: nothing read.
 */
const struct sys_knob_family *sys_knob_family(const char *key, bool scratch);

/* The kind of an axis key (its family without a scratch device), or -1. */
int sys_knob_kind_of(const char *key);

/* A value a record line and a /sys file can take: printable, short, no newline. */
bool sys_knob_value_ok(const char *v);

/*
 * Check that key (of family f, NULL: refused) can be set on target (the
 * device of queue.*, a path on the mount of `mount`, the scratch device,
 * ignored for a sysctl) to each of values[0..n), as far as can be told
 * without changing anything: a safe name, the file there and writable, a
 * sysctl of an allowed family (allow_any: any), each value of the right
 * form (an integer where the kernel shows one; a mount value one of the
 * atime options), max_sectors_kb within max_hw_sectors_kb.  Reads only.
 * 0, or -1 with err naming the key, the value and why.
 */
int sys_knob_check(const struct sys_knob_family *f, const char *key, const char *target,
		   const char *const *values, size_t n, bool allow_any, char *err,
		   size_t errlen);

/*
 * An iosched tunable (queue.iosched.NAME) beside a scheduler axis: the
 * schedulers[0..n) the run switches dev to (active: the one on it now,
 * whose tunables sys_knob_check saw) must each have the tunable.  A
 * scheduler's tunables are listed in /sys only while it is active, and
 * nothing may be switched while planning: the others are judged from the
 * tunables each has had on every kernel (mq-deadline, kyber, bfq, none);
 * a scheduler jobmix knows nothing of is refused.  0 when key is not an
 * iosched tunable.  Reads nothing.  0, or -1 with err naming the tunable
 * and the scheduler that lacks it.
 */
int sys_knob_check_iosched(const char *key, const char *dev, const char *active,
			   const char *const *scheds, size_t n, char *err, size_t errlen);

/*
 * What key of family f (sys_knob_family: the plan's axis carries it) reads
 * on target now (a mount's: "noatime on /mnt"), for a plan to show; "?"
 * when it cannot be read.  Reads only.
 */
void sys_knob_now(const struct sys_knob_family *f, const char *key, const char *target,
		  char *buf, size_t len);

struct sys_knob {
	enum sys_knob_kind kind;
	const struct sys_knob_family *fam;
	char key[SYS_KNOB_KEY];
	char target[PATH_MAX];          /* device, mount point, "" */
	char name[NAME_MAX + 1];        /* its record's and lock's file name */
	char original[SYS_KNOB_VAL];    /* as it was when held */
	char current[SYS_KNOB_VAL];     /* what we last set */
	char written[SYS_KNOB_VAL];     /* what it read after our last write (original first) */
	char identity[SYS_SCHED_ID];    /* the target's, as recorded */
	int lock_fd, lock_dir, state_dir;  /* -1 when not held */
	bool saved;                     /* our record exists */
	char repaired[SYS_SCHED_ID + 256];  /* what acting on a dead run's record did, or "" */
};

/*
 * Hold a knob (lock; a dead run's record acted on; the original read and
 * recorded with the target's identity).  f: key's family, as the plan
 * classified it (sys_knob_family; NULL: refused); it sets, reads and
 * records the knob from then on, the key never classified again.  target:
 * the device (queue.*), the mount point (mount), "" (sysctl).  0, or -1
 * with err (nothing held).
 */
int sys_knob_hold(struct sys_knob *k, const struct sys_knob_family *f, const char *key,
		  const char *target, char *err, size_t errlen) __attribute__((warn_unused_result));
/*
 * Set a held knob and read it back into read_back (what the kernel shows:
 * read_ahead_kb is kept in pages, so 5 reads back 4).  0, or -1 with err.
 */
int sys_knob_set(struct sys_knob *k, const char *value, char *read_back, size_t rblen,
		 char *err, size_t errlen) __attribute__((warn_unused_result));
/*
 * Put the original back (when changed), verify it, remove the record and
 * the lock.  Always unlocks; -1 with err when the original could not be
 * put back (the record is kept for a later repair).  A no-op when not held.
 */
int sys_knob_release(struct sys_knob *k, char *err, size_t errlen);
/*
 * Act on every knob record a dead jobmix left (a knob a live run holds is
 * left to it), telling report each one.  The number of failures, or -1 with
 * err when the directory is not safe.  Makes nothing when there is none.
 */
int sys_knob_repair(sys_repair_report *report, void *arg, char *err, size_t errlen);
/*
 * The records dead runs left (none a live run holds), for a run to name and
 * leave to `jobmix restore`: their number, and "key on target, ..." in names.
 * Acts on none of them.
 */
int sys_knob_left(char *names, size_t len);
/* The /proc/sys root sysctls are read from (tests point it at a temp dir); NULL: /proc/sys. */
void sys_knob_set_procsys(const char *dir);

#endif
