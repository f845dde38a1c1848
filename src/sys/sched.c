// SPDX-License-Identifier: GPL-2.0-only
/*
 * IO scheduler control: read, validate and switch
 * /sys/block/<dev>/queue/scheduler; hold a device for an A/B (a lock,
 * a record of the original scheduler and of which device it was, both in
 * a root-only directory) and always put the original back; repair what a
 * killed run left, on the device it was left on only.  Uses dev.c for
 * names and attributes.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "jobmix/atomic.h"
#include "jobmix/sys_sched.h"
#include "sys_int.h"

#define SYS_LOCK_TRIES 64         /* lock files replaced under us before giving up */

static char sys_dir[PATH_MAX] = "/run/jobmix";

const char *sys_state_dir(void)
{
	return sys_dir;
}

void sys_sched_set_dir(const char *dir)
{
	snprintf(sys_dir, sizeof(sys_dir), "%s", dir && dir[0] ? dir : "/run/jobmix");
}

int sys_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* Append a space-separated word to buf; a word that does not fit is dropped. */
static void sys_put_word(char *buf, size_t len, size_t *used, const char *w, size_t wl)
{
	if (*used + (*used ? 1 : 0) + wl >= len)
		return;
	if (*used)
		buf[(*used)++] = ' ';
	memcpy(buf + *used, w, wl);
	*used += wl;
	buf[*used] = 0;
}

int sys_sched_get(const char *dev, char *active, size_t alen, char *all, size_t all_len)
{
	char line[1024];

	if (alen)
		active[0] = 0;
	if (all_len)
		all[0] = 0;
	if (sys_dev_attr(dev, "queue/scheduler", line, sizeof(line)))
		return -1;

	size_t used = 0, nwords = 0;
	bool bracketed = false;
	char *save = NULL;
	for (char *w = strtok_r(line, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) {
		size_t wl = strlen(w);
		nwords++;
		if (wl >= 2 && w[0] == '[' && w[wl - 1] == ']') {
			w++;
			wl -= 2;
			w[wl] = 0;
			snprintf(active, alen, "%s", w);
			bracketed = true;
		}
		sys_put_word(all, all_len, &used, w, wl);
	}
	/* a queue without elevator support lists a single unbracketed word */
	if (!bracketed && nwords == 1)
		snprintf(active, alen, "%s", all);
	return 0;
}

bool sys_sched_settable(const char *dev)
{
	char active[SYS_SCHED_NAME], all[SYS_SCHED_LIST];
	if (sys_sched_get(dev, active, sizeof(active), all, sizeof(all)))
		return false;
	char line[1024];
	return sys_dev_attr(dev, "queue/scheduler", line, sizeof(line)) == 0 &&
	       strchr(line, '[') && strchr(all, ' ');
}

bool sys_sched_listed(const char *dev, const char *name)
{
	char active[SYS_SCHED_NAME], all[SYS_SCHED_LIST];
	if (!name || !name[0] || strlen(name) >= SYS_SCHED_NAME ||
	    sys_sched_get(dev, active, sizeof(active), all, sizeof(all)))
		return false;
	char *save = NULL;
	for (char *w = strtok_r(all, " ", &save); w; w = strtok_r(NULL, " ", &save))
		if (!strcmp(w, name))
			return true;
	return false;
}

int sys_attr_write(const char *path, const char *value, char *err, size_t errlen)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC);   /* `echo V > file` */
	if (fd < 0) {
		snprintf(err, errlen, "open %s: %s", path, strerror(errno));
		return -1;
	}
	size_t n = strlen(value);
	ssize_t w = write(fd, value, n);
	int e = errno;
	close(fd);
	if (w != (ssize_t)n) {
		snprintf(err, errlen, "writing '%s' to %s: %s", value, path,
			 w < 0 ? strerror(e) : "short write");
		return -1;
	}
	return 0;
}

int sys_sched_write(const char *dev, const char *name, char *err, size_t errlen)
{
	char p[PATH_MAX], active[SYS_SCHED_NAME], all[SYS_SCHED_LIST], e2[PATH_MAX + 128];

	if (!sys_dev_name_valid(dev)) {
		snprintf(err, errlen, "'%s' is not a block device listed in /sys/block", dev);
		return -1;
	}
	if (!sys_sched_listed(dev, name)) {
		sys_sched_get(dev, active, sizeof(active), all, sizeof(all));
		snprintf(err, errlen, "%s: scheduler '%s' is not one the kernel lists (%s)", dev,
			 name, all[0] ? all : "no scheduler file");
		return -1;
	}
	snprintf(p, sizeof(p), "%s/block/%s/queue/scheduler", sys_sysfs(), dev);
	if (sys_attr_write(p, name, e2, sizeof(e2))) {
		snprintf(err, errlen, "%s: %s", dev, e2);
		return -1;
	}
	if (sys_sched_get(dev, active, sizeof(active), all, sizeof(all)) || strcmp(active, name)) {
		snprintf(err, errlen, "%s: wrote '%s' but the active scheduler reads back as '%s'",
			 dev, name, active);
		return -1;
	}
	return 0;
}

int sys_sched_identity(const char *dev, char *id, size_t len)
{
	char v[PATH_MAX], devno[32];

	if (len)
		id[0] = 0;
	if (!sys_dev_name_valid(dev))
		return -1;
	if (!sys_dev_attr(dev, "diskseq", v, sizeof(v)) && v[0]) {
		snprintf(id, len, "diskseq %s", v);
		return 0;
	}
	if (sys_dev_attr(dev, "dev", devno, sizeof(devno)) || !devno[0])
		snprintf(devno, sizeof(devno), "?");
	struct stat st;
	if (!sys_dev_attr(dev, "loop/backing_file", v, sizeof(v)) && v[0]) {
		if (stat(v, &st) == 0)
			snprintf(id, len, "dev %s, backing file %s (%u:%u inode %llu)", devno, v,
				 major(st.st_dev), minor(st.st_dev), (unsigned long long)st.st_ino);
		else
			snprintf(id, len, "dev %s, backing file %s (not found)", devno, v);
	} else if ((!sys_dev_attr(dev, "device/serial", v, sizeof(v)) && v[0]) ||
		   (!sys_dev_attr(dev, "serial", v, sizeof(v)) && v[0])) {
		snprintf(id, len, "dev %s, serial %s", devno, v);
	} else if ((!sys_dev_attr(dev, "device/wwid", v, sizeof(v)) && v[0]) ||
		   (!sys_dev_attr(dev, "wwid", v, sizeof(v)) && v[0])) {
		snprintf(id, len, "dev %s, wwid %s", devno, v);
	} else if (!strncmp(dev, "loop", 4)) {
		snprintf(id, len, "dev %s, no backing file", devno);
	} else {
		snprintf(id, len, "dev %s", devno);
	}
	return 0;
}

/*
 * A name for a file of ours: a device name as /sys/block spells them
 * ([A-Za-z0-9._-], not starting with '.'), whether or not it is there now.
 */
static bool sys_rec_name_ok(const char *dev)
{
	if (!dev || !dev[0] || dev[0] == '.' || strlen(dev) >= SYS_DEV_NAME)
		return false;
	for (const char *c = dev; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || *c == '.' || *c == '_' || *c == '-'))
			return false;
	return true;
}

/*
 * Open directory `name` (relative to `at`; `shown` in messages), making it
 * 0700 first when `create`, and trust it only when it is a directory, not a
 * symlink, owned by us and not writable by group or others; one that is
 * readable by them is tightened to 0700.  The descriptor, or -1: errno
 * ENOENT (err "") when it is missing and not to be made, else err.
 */
int sys_dir_open(int at, const char *name, const char *shown, bool create, char *err,
			size_t errlen)
{
	struct stat ls, st;
	err[0] = 0;
	if (create && mkdirat(at, name, 0700) && errno != EEXIST) {
		snprintf(err, errlen, "cannot create %s: %s", shown, strerror(errno));
		return -1;
	}
	if (fstatat(at, name, &ls, AT_SYMLINK_NOFOLLOW)) {
		int e = errno;
		if (e != ENOENT)
			snprintf(err, errlen, "cannot stat %s: %s", shown, strerror(e));
		errno = e;
		return -1;
	}
	if (S_ISLNK(ls.st_mode)) {
		snprintf(err, errlen, "%s is a symlink: refused (it must be a root-only directory)",
			 shown);
		errno = ELOOP;
		return -1;
	}
	int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "cannot open %s: %s", shown, strerror(errno));
		return -1;
	}
	const char *why = NULL;
	if (fstat(fd, &st) || st.st_dev != ls.st_dev || st.st_ino != ls.st_ino)
		why = "it changed while being opened";
	else if (!S_ISDIR(st.st_mode))
		why = "it is not a directory";
	else if (st.st_uid != geteuid())
		why = "its owner is another user";
	else if (st.st_mode & (S_IWGRP | S_IWOTH))
		why = "it is writable by group or others";
	if (why) {
		snprintf(err, errlen,
			 "%s: refused, %s (owner uid %u, mode %04o; it must be a directory owned "
			 "by uid %u, mode 0700)", shown, why, (unsigned)st.st_uid,
			 (unsigned)(st.st_mode & 07777), (unsigned)geteuid());
		close(fd);
		errno = EPERM;
		return -1;
	}
	if ((st.st_mode & 077) && fchmod(fd, 0700)) {
		snprintf(err, errlen, "cannot make %s mode 0700: %s", shown, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* The two directories of locks and records, as descriptors (-1: not open). */
struct sys_dirs {
	int lock, state;
};

static void sys_dirs_close(struct sys_dirs *d)
{
	if (d->lock >= 0)
		close(d->lock);
	if (d->state >= 0)
		close(d->state);
	d->lock = d->state = -1;
}

/*
 * Open <dir>, <dir>/lock and <dir>/sched, each checked by sys_dir_open;
 * <dir> is made only when `create` (the two inside whenever <dir> is
 * there).  0; 1 when <dir> is missing and not to be made; -1 with err.
 */
static int sys_dirs_open(bool create, struct sys_dirs *d, char *err, size_t errlen)
{
	char shown[PATH_MAX + 16];
	d->lock = d->state = -1;
	int top = sys_dir_open(AT_FDCWD, sys_dir, sys_dir, create, err, errlen);
	if (top < 0)
		return !create && errno == ENOENT && !err[0] ? 1 : -1;
	snprintf(shown, sizeof(shown), "%s/lock", sys_dir);
	d->lock = sys_dir_open(top, "lock", shown, true, err, errlen);
	snprintf(shown, sizeof(shown), "%s/sched", sys_dir);
	if (d->lock >= 0)
		d->state = sys_dir_open(top, "sched", shown, true, err, errlen);
	close(top);
	if (d->state < 0) {
		sys_dirs_close(d);
		return -1;
	}
	return 0;
}

/* A record of a held device, as kept in <dir>/sched/<dev>. */
struct sys_rec {
	char original[SYS_SCHED_NAME];
	long pid;
	char identity[SYS_SCHED_ID];  /* "" in a record of an older jobmix */
};

/*
 * Read the record of `dev`: "original=", "pid=" and "identity=" lines of a
 * regular file of ours.  0; 1 when there is none; -1 with err.
 */
static int sys_rec_read(int dirfd, const char *dev, struct sys_rec *r, char *err, size_t errlen)
{
	char line[SYS_SCHED_ID + 32];
	memset(r, 0, sizeof(*r));
	int fd = openat(dirfd, dev, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		if (errno == ENOENT)
			return 1;
		snprintf(err, errlen, "%s: cannot open its record %s/sched/%s: %s", dev, sys_dir,
			 dev, strerror(errno));
		return -1;
	}
	struct stat st;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
		snprintf(err, errlen, "%s: %s/sched/%s is not a record of ours", dev, sys_dir, dev);
		close(fd);
		return -1;
	}
	FILE *f = fdopen(fd, "r");
	if (!f) {
		snprintf(err, errlen, "%s: reading %s/sched/%s: %s", dev, sys_dir, dev,
			 strerror(errno));
		close(fd);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (!strncmp(line, "original=", 9))
			snprintf(r->original, sizeof(r->original), "%s", line + 9);
		else if (!strncmp(line, "pid=", 4))
			r->pid = strtol(line + 4, NULL, 10);
		else if (!strncmp(line, "identity=", 9))
			snprintf(r->identity, sizeof(r->identity), "%s", line + 9);
	}
	fclose(f);
	if (!r->original[0]) {
		snprintf(err, errlen, "%s: %s/sched/%s names no original scheduler", dev, sys_dir,
			 dev);
		return -1;
	}
	return 0;
}

static int sys_rec_fill(FILE *f, void *ctx)
{
	const struct sys_rec *r = ctx;
	return fprintf(f, "original=%s\npid=%ld\nsaved=%ld\nidentity=%s\n", r->original, r->pid,
		       (long)time(NULL), r->identity) < 0 ? -1 : 0;
}

/*
 * Write the record of `dev` through the one atomic writer: a 0600 temp file
 * beside it, fsync, rename over it, fsync the directory.  0 or -1 with err.
 */
static int sys_rec_write(int dirfd, const char *dev, const struct sys_rec *r, char *err,
			 size_t errlen)
{
	char why[512];
	if (!atom_write_private_at(dirfd, dev, sys_rec_fill, (void *)r, why, sizeof(why)))
		return 0;
	snprintf(err, errlen, "cannot save the original scheduler in %s/sched/%s: %s", sys_dir, dev,
		 why);
	return -1;
}

/*
 * Take the device's lock in <dir>/lock without waiting: the descriptor, or
 * -1 with err (errno EWOULDBLOCK when another jobmix holds it, its pid in
 * err).  The lock is the file at the path when we got it: one its holder
 * removed while we waited for it is left, and the path tried again.
 */
int sys_lock_take(int dirfd, const char *dev, const char *doing, char *err, size_t errlen)
{
	for (int tries = 0; tries < SYS_LOCK_TRIES; tries++) {
		int fd = openat(dirfd, dev, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK,
				0600);
		if (fd < 0) {
			snprintf(err, errlen, "cannot open the lock %s/lock/%s: %s", sys_dir, dev,
				 strerror(errno));
			return -1;
		}
		if (flock(fd, LOCK_EX | LOCK_NB)) {
			int e = errno;
			/* "PID\nDOING\n" (an older jobmix wrote "PID\n") */
			char who[128] = "", *nl;
			ssize_t n = pread(fd, who, sizeof(who) - 1, 0);
			who[n > 0 ? n : 0] = 0;
			for (char *c = who; *c; c++)
				if ((*c < ' ' && *c != '\n') || *c > '~')
					*c = '?';
			const char *what = "";
			if ((nl = strchr(who, '\n'))) {
				*nl = 0;
				what = nl + 1;
				nl[1 + strcspn(nl + 1, "\n")] = 0;
			}
			if (e == EWOULDBLOCK)
				snprintf(err, errlen,
					 "%s is in use by another jobmix run%s%s%s%s (lock %s/lock/%s)",
					 dev, who[0] ? ", pid " : "", who, what[0] ? ", " : "", what,
					 sys_dir, dev);
			else
				snprintf(err, errlen, "cannot lock %s/lock/%s: %s", sys_dir, dev,
					 strerror(e));
			close(fd);
			errno = e;
			return -1;
		}
		struct stat held, now;
		if (fstat(fd, &held) || fstatat(dirfd, dev, &now, AT_SYMLINK_NOFOLLOW) ||
		    held.st_dev != now.st_dev || held.st_ino != now.st_ino) {
			close(fd);  /* removed (or replaced) by its last holder: not the lock */
			continue;
		}
		char me[128];
		int n = snprintf(me, sizeof(me), "%ld\n%s\n", (long)getpid(), doing ? doing : "");
		if (ftruncate(fd, 0) == 0 && pwrite(fd, me, (size_t)n, 0) != n) {
			/* the pid is only a courtesy for the refusal message */
		}
		return fd;
	}
	snprintf(err, errlen, "cannot lock %s/lock/%s: replaced %d times while taken", sys_dir,
		 dev, SYS_LOCK_TRIES);
	errno = EAGAIN;
	return -1;
}

/* Give the lock up: remove its file while still holding it, then unlock. */
void sys_lock_drop(int dirfd, const char *dev, int fd)
{
	if (fd < 0)
		return;
	unlinkat(dirfd, dev, 0);
	close(fd);
}

/*
 * With the device's lock held: act on a record left by a dead run (see
 * sys_sched_repair).  What was done, with msg; -1 when there was no record
 * (msg "").
 */
static int sys_rec_repair(int dirfd, const char *dev, char *msg, size_t msglen)
{
	struct sys_rec r;
	char e2[512], active[SYS_SCHED_NAME], all[SYS_SCHED_LIST], id[SYS_SCHED_ID];
	msg[0] = 0;
	int rc = sys_rec_read(dirfd, dev, &r, e2, sizeof(e2));
	if (rc > 0)
		return -1;
	if (rc < 0) {
		snprintf(msg, msglen, "%s (kept)", e2);
		return SYS_REPAIR_FAILED;
	}
	if (!sys_dev_name_valid(dev)) {
		if (unlinkat(dirfd, dev, 0) && errno != ENOENT) {
			snprintf(msg, msglen, "%s: gone; cannot clear its record: %s", dev,
				 strerror(errno));
			return SYS_REPAIR_FAILED;
		}
		snprintf(msg, msglen,
			 "%s: the device is gone; the record jobmix pid %ld left (to restore '%s') "
			 "cleared", dev, r.pid, r.original);
		return SYS_REPAIR_CLEARED;
	}
	sys_sched_identity(dev, id, sizeof(id));
	sys_sched_get(dev, active, sizeof(active), all, sizeof(all));
	if (!r.identity[0] || strcmp(r.identity, id)) {
		if (unlinkat(dirfd, dev, 0) && errno != ENOENT) {
			snprintf(msg, msglen, "%s: another device now; cannot drop its record: %s",
				 dev, strerror(errno));
			return SYS_REPAIR_FAILED;
		}
		char was[SYS_SCHED_ID + 16];
		snprintf(was, sizeof(was), "recorded as %s", r.identity);
		snprintf(msg, msglen,
			 "%s: another device now (%s, now %s); the record jobmix pid %ld left (to "
			 "restore '%s') dropped, its scheduler left as it is ('%s')", dev,
			 r.identity[0] ? was : "recorded without an identity", id, r.pid,
			 r.original, active);
		return SYS_REPAIR_DROPPED;
	}
	if (strcmp(active, r.original) && sys_sched_write(dev, r.original, e2, sizeof(e2))) {
		snprintf(msg, msglen, "%s: cannot restore '%s' left by jobmix pid %ld: %s", dev,
			 r.original, r.pid, e2);
		return SYS_REPAIR_FAILED;
	}
	if (unlinkat(dirfd, dev, 0) && errno != ENOENT) {
		snprintf(msg, msglen, "%s: restored '%s' but cannot remove its record: %s", dev,
			 r.original, strerror(errno));
		return SYS_REPAIR_FAILED;
	}
	snprintf(msg, msglen, "%s: restored scheduler '%s' left switched by jobmix pid %ld", dev,
		 r.original, r.pid);
	return SYS_REPAIR_RESTORED;
}

/* Close what a hold has open (lock, directories) and mark it not held. */
static void sys_hold_close(struct sys_sched_hold *h, bool drop_lock)
{
	if (h->lock_fd >= 0) {
		if (drop_lock)
			sys_lock_drop(h->lock_dir, h->dev, h->lock_fd);
		else
			close(h->lock_fd);
	}
	struct sys_dirs d = { .lock = h->lock_dir, .state = h->state_dir };
	sys_dirs_close(&d);
	h->lock_fd = h->lock_dir = h->state_dir = -1;
}

int sys_sched_hold(const char *dev, struct sys_sched_hold *h, char *err, size_t errlen)
{
	struct sys_dirs d;
	memset(h, 0, sizeof(*h));
	h->lock_fd = h->lock_dir = h->state_dir = -1;
	if (!sys_dev_name_valid(dev)) {
		snprintf(err, errlen, "'%s' is not a block device listed in /sys/block", dev);
		return -1;
	}
	if (!sys_sched_settable(dev)) {
		snprintf(err, errlen, "%s has no settable IO scheduler", dev);
		return -1;
	}
	snprintf(h->dev, sizeof(h->dev), "%s", dev);
	if (sys_dirs_open(true, &d, err, errlen))
		return -1;
	h->lock_dir = d.lock;
	h->state_dir = d.state;
	h->lock_fd = sys_lock_take(h->lock_dir, dev, SYS_LOCK_AB, err, errlen);
	if (h->lock_fd < 0)
		goto fail;
	int what = sys_rec_repair(h->state_dir, dev, h->repaired, sizeof(h->repaired));
	if (what == SYS_REPAIR_FAILED) {
		snprintf(err, errlen, "%s", h->repaired);
		goto fail;
	}
	struct sys_rec r = { .pid = (long)getpid() };
	char all[SYS_SCHED_LIST];
	if (sys_sched_get(dev, h->original, sizeof(h->original), all, sizeof(all)) ||
	    !h->original[0]) {
		snprintf(err, errlen, "%s: cannot read its scheduler", dev);
		goto fail;
	}
	snprintf(h->current, sizeof(h->current), "%s", h->original);
	snprintf(r.original, sizeof(r.original), "%s", h->original);
	if (sys_sched_identity(dev, r.identity, sizeof(r.identity))) {
		snprintf(err, errlen, "%s: cannot tell which device it is", dev);
		goto fail;
	}
	if (sys_rec_write(h->state_dir, dev, &r, err, errlen))
		goto fail;
	h->state_saved = true;
	return 0;
fail:
	sys_hold_close(h, true);
	return -1;
}

int sys_sched_switch(struct sys_sched_hold *h, const char *name, char *err, size_t errlen)
{
	if (h->lock_fd < 0) {
		snprintf(err, errlen, "%s: switching a device that is not held", h->dev);
		return -1;
	}
	/* the current one is unknown after a failed write: treat it as switched */
	snprintf(h->current, sizeof(h->current), "%s", name);
	if (sys_sched_write(h->dev, name, err, errlen)) {
		char all[SYS_SCHED_LIST];
		sys_sched_get(h->dev, h->current, sizeof(h->current), all, sizeof(all));
		return -1;
	}
	return 0;
}

int sys_sched_release(struct sys_sched_hold *h, char *err, size_t errlen)
{
	int ret = 0;
	if (h->lock_fd < 0)
		return 0;
	char active[SYS_SCHED_NAME], all[SYS_SCHED_LIST];
	sys_sched_get(h->dev, active, sizeof(active), all, sizeof(all));
	if (strcmp(active, h->original) && sys_sched_write(h->dev, h->original, err, errlen))
		ret = -1;
	if (ret == 0) {
		snprintf(h->current, sizeof(h->current), "%s", h->original);
		if (h->state_saved) {
			if (unlinkat(h->state_dir, h->dev, 0) && errno != ENOENT) {
				snprintf(err, errlen, "%s: restored '%s' but cannot remove %s/sched/%s: %s",
					 h->dev, h->original, sys_dir, h->dev, strerror(errno));
				ret = -1;
			}
			h->state_saved = false;
		}
	}
	sys_hold_close(h, true);
	return ret;
}

/* Tell the caller, when it asked to be told. */
static void sys_tell(sys_repair_report *report, void *arg, enum sys_repair what,
		     const char *msg)
{
	if (report)
		report(arg, what, msg);
}

/*
 * Repair the record of one device (see sys_sched_repair) under its lock.
 * 1 when it failed, else 0.
 */
static int sys_repair_one(const struct sys_dirs *d, const char *dev, sys_repair_report *report,
			  void *arg)
{
	char err[512], msg[SYS_SCHED_ID + 256];
	int fd = sys_lock_take(d->lock, dev, SYS_LOCK_REPAIR, err, sizeof(err));
	if (fd < 0) {
		bool held = errno == EWOULDBLOCK;
		/* a live run holds it and restores it itself */
		if (held)
			snprintf(msg, sizeof(msg), "%s; left to it", err);
		sys_tell(report, arg, held ? SYS_REPAIR_LEFT : SYS_REPAIR_FAILED, held ? msg : err);
		return held ? 0 : 1;
	}
	int what = sys_rec_repair(d->state, dev, msg, sizeof(msg));
	sys_lock_drop(d->lock, dev, fd);
	if (what >= 0)
		sys_tell(report, arg, (enum sys_repair)what, msg);
	return what == SYS_REPAIR_FAILED;
}

/*
 * Leftovers no record needs: lock files nobody holds (a killed run's) and
 * temp files of writers that are gone.
 */
static void sys_sweep(const struct sys_dirs *d)
{
	char err[256];
	int fd = dup(d->lock);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;
	while (dir && (e = readdir(dir))) {
		if (!sys_rec_name_ok(e->d_name))
			continue;
		int lk = sys_lock_take(d->lock, e->d_name, SYS_LOCK_LOOK, err, sizeof(err));
		sys_lock_drop(d->lock, e->d_name, lk);
	}
	if (dir)
		closedir(dir);
	else if (fd >= 0)
		close(fd);
	fd = dup(d->state);
	dir = fd >= 0 ? fdopendir(fd) : NULL;
	while (dir && (e = readdir(dir))) {
		const char *dot = strrchr(e->d_name, '.');
		long pid = dot ? strtol(dot + 1, NULL, 10) : 0;
		if (!strncmp(e->d_name, ".tmp-", 5) && pid > 0 && kill((pid_t)pid, 0) &&
		    errno == ESRCH)
			unlinkat(d->state, e->d_name, 0);
	}
	if (dir)
		closedir(dir);
	else if (fd >= 0)
		close(fd);
}

int sys_sched_repair(const char *only, sys_repair_report *report, void *arg, char *err,
		     size_t errlen)
{
	struct sys_dirs d;
	int failures = 0;
	if (only && !sys_rec_name_ok(only)) {
		snprintf(err, errlen, "'%s' is not a block device name", only);
		return -1;
	}
	int rc = sys_dirs_open(false, &d, err, errlen);
	if (rc)
		return rc > 0 ? 0 : -1;   /* none there: nothing was ever saved */
	if (only) {
		failures = sys_repair_one(&d, only, report, arg);
		goto out;
	}
	int fd = dup(d.state);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	if (!dir) {
		snprintf(err, errlen, "cannot read %s/sched: %s", sys_dir, strerror(errno));
		if (fd >= 0)
			close(fd);
		sys_dirs_close(&d);
		return -1;
	}
	struct dirent *e;
	while ((e = readdir(dir)))
		if (sys_rec_name_ok(e->d_name))
			failures += sys_repair_one(&d, e->d_name, report, arg);
	closedir(dir);
	sys_sweep(&d);
out:
	sys_dirs_close(&d);
	return failures;
}
