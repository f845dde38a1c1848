/* SPDX-License-Identifier: GPL-2.0-only */
/* Helpers shared inside src/sys only. */
#ifndef JOBMIX_SYS_INT_H
#define JOBMIX_SYS_INT_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Resolve `path` (realpath) or, when it does not exist yet, its nearest
 * existing ancestor ("." for a missing relative leaf).  0 or -1.
 */
int sys_existing_path(const char *path, char *out, size_t len);

/* The sysfs root every /sys path is built on ("/sys"; see sys_dev_set_sysfs). */
const char *sys_sysfs(void);

/* The directory of locks and records (/run/jobmix; sys_sched_set_dir). */
const char *sys_state_dir(void);
/*
 * Open directory `name` (relative to `at`; `shown` in messages), made 0700
 * first when `create`; trusted only when it is a directory, not a symlink,
 * ours and not writable by group or others.  The descriptor, or -1: errno
 * ENOENT (err "") when missing and not to be made, else err.
 */
int sys_dir_open(int at, const char *name, const char *shown, bool create, char *err,
		 size_t errlen);
/*
 * Write value to a /sys or /proc/sys file (the last component not
 * followed), as `echo V > file` does.  0, or -1 with err naming the file.
 */
int sys_attr_write(const char *path, const char *value, char *err, size_t errlen);
/*
 * Take the lock file `name` in dirfd without waiting: the descriptor, or -1
 * with err (errno EWOULDBLOCK when another jobmix holds it, its pid and
 * what it said it is doing named).  doing: what the holder is, for the
 * message another jobmix gets ("an A/B switching the IO scheduler").
 */
int sys_lock_take(int dirfd, const char *name, const char *doing, char *err, size_t errlen);
/* What a lock's holder is doing, for sys_lock_take. */
#define SYS_LOCK_AB "an A/B switching the IO scheduler"
#define SYS_LOCK_MATRIX "an A/B matrix varying it"
#define SYS_LOCK_SCRATCH "a run using it as its scratch device"
#define SYS_LOCK_REPAIR "putting back what a killed jobmix left"
#define SYS_LOCK_LOOK "looking at what a killed jobmix left" 
/* err = the formatted message; returns -1 (for `return sys_err(...)`). */
int sys_err(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Give a lock up: its file removed while still held, then unlocked. */
void sys_lock_drop(int dirfd, const char *name, int fd);
#endif
