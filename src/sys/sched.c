// SPDX-License-Identifier: GPL-2.0-only
/*
 * IO scheduler control: read, validate and switch
 * /sys/block/<dev>/queue/scheduler; hold a device for an A/B run (lock
 * file, state file with the original scheduler) and always put the
 * original back.  Uses dev.c for names and attributes.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "jobmix/sys_sched.h"
#include "sys_int.h"

static char sys_state_dir[PATH_MAX] = "/run/jobmix/sched";
static char sys_lock_dir[PATH_MAX] = "/run/lock";

void sys_sched_set_dirs(const char *state_dir, const char *lock_dir)
{
	if (state_dir)
		snprintf(sys_state_dir, sizeof(sys_state_dir), "%s", state_dir);
	if (lock_dir)
		snprintf(sys_lock_dir, sizeof(sys_lock_dir), "%s", lock_dir);
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

int sys_sched_write(const char *dev, const char *name, char *err, size_t errlen)
{
	char p[PATH_MAX], active[SYS_SCHED_NAME], all[SYS_SCHED_LIST];
	int fd = -1, ret = -1;

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
	fd = open(p, O_WRONLY | O_TRUNC | O_CLOEXEC);   /* as `echo NAME > file` */
	if (fd < 0) {
		snprintf(err, errlen, "%s: open %s: %s", dev, p, strerror(errno));
		goto out;
	}
	size_t n = strlen(name);
	ssize_t w = write(fd, name, n);
	if (w != (ssize_t)n) {
		snprintf(err, errlen, "%s: writing '%s' to %s: %s", dev, name, p,
			 w < 0 ? strerror(errno) : "short write");
		goto out;
	}
	if (sys_sched_get(dev, active, sizeof(active), all, sizeof(all)) || strcmp(active, name)) {
		snprintf(err, errlen, "%s: wrote '%s' but the active scheduler reads back as '%s'",
			 dev, name, active);
		goto out;
	}
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	return ret;
}

static void sys_state_path(const char *dev, char *p, size_t len)
{
	snprintf(p, len, "%s/%s", sys_state_dir, dev);
}

static void sys_lock_path(const char *dev, char *p, size_t len)
{
	snprintf(p, len, "%s/jobmix-sched-%s.lock", sys_lock_dir, dev);
}

/* mkdir -p for the state directory (root-owned, 0755). */
static int sys_mkdirs(const char *dir)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s", dir);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		if (mkdir(p, 0755) && errno != EEXIST)
			return -1;
		*s = '/';
	}
	return mkdir(p, 0755) && errno != EEXIST ? -1 : 0;
}

/*
 * Read a state file: "original=NAME" and "pid=N" lines.  0 or -1 (missing
 * or unreadable; errno kept for ENOENT).
 */
static int sys_state_read(const char *dev, char *original, size_t len, long *pid)
{
	char p[PATH_MAX], line[128];
	sys_state_path(dev, p, sizeof(p));
	FILE *f = fopen(p, "re");
	if (!f)
		return -1;
	original[0] = 0;
	*pid = 0;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (!strncmp(line, "original=", 9))
			snprintf(original, len, "%s", line + 9);
		else if (!strncmp(line, "pid=", 4))
			*pid = strtol(line + 4, NULL, 10);
	}
	fclose(f);
	return original[0] ? 0 : -1;
}

/* Write the state file atomically (temp file, fsync, rename).  0 or -1 with err. */
static int sys_state_write(const char *dev, const char *original, char *err, size_t errlen)
{
	char p[PATH_MAX], tmp[PATH_MAX + 16];
	FILE *f = NULL;

	if (sys_mkdirs(sys_state_dir)) {
		snprintf(err, errlen, "cannot create %s: %s", sys_state_dir, strerror(errno));
		return -1;
	}
	sys_state_path(dev, p, sizeof(p));
	snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", p, (long)getpid());
	f = fopen(tmp, "wxe");
	if (!f)
		goto fail;
	fprintf(f, "original=%s\npid=%ld\nsaved=%ld\n", original, (long)getpid(), (long)time(NULL));
	if (fflush(f) || fsync(fileno(f)))
		goto fail;
	if (fclose(f)) {
		f = NULL;
		goto fail;
	}
	f = NULL;
	if (rename(tmp, p))
		goto fail;
	return 0;
fail:
	snprintf(err, errlen, "cannot save the original scheduler in %s: %s", p, strerror(errno));
	if (f)
		fclose(f);
	unlink(tmp);
	return -1;
}

/* Take the device's lock without waiting: the fd, or -1 (errno EWOULDBLOCK when held). */
static int sys_lock_take(const char *dev, char *err, size_t errlen)
{
	char p[PATH_MAX];
	sys_lock_path(dev, p, sizeof(p));
	if (sys_mkdirs(sys_lock_dir)) {
		snprintf(err, errlen, "cannot create %s: %s", sys_lock_dir, strerror(errno));
		return -1;
	}
	int fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0) {
		snprintf(err, errlen, "cannot open the lock %s: %s", p, strerror(errno));
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		int e = errno;
		char who[32] = "";
		ssize_t n = pread(fd, who, sizeof(who) - 1, 0);
		who[n > 0 ? n : 0] = 0;
		who[strcspn(who, "\n")] = 0;
		if (e == EWOULDBLOCK)
			snprintf(err, errlen, "%s is in use by another jobmix A/B run%s%s (lock %s)",
				 dev, who[0] ? ", pid " : "", who, p);
		else
			snprintf(err, errlen, "cannot lock %s: %s", p, strerror(e));
		close(fd);
		errno = e;
		return -1;
	}
	char me[32];
	int n = snprintf(me, sizeof(me), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) == 0 && pwrite(fd, me, (size_t)n, 0) != n) {
		/* the pid is only a courtesy for the refusal message */
	}
	return fd;
}

/*
 * With the lock held: act on a state file left by a dead run.  0 when
 * there was none or the original is back (msg says what was done), -1
 * with err otherwise (the file is kept).
 */
static int sys_state_repair(const char *dev, char *msg, size_t msglen, char *err, size_t errlen)
{
	char original[SYS_SCHED_NAME], p[PATH_MAX], e2[256];
	long pid;
	msg[0] = 0;
	sys_state_path(dev, p, sizeof(p));
	if (sys_state_read(dev, original, sizeof(original), &pid)) {
		if (errno == ENOENT || access(p, F_OK))
			return 0;
		snprintf(err, errlen, "%s: unreadable state file %s", dev, p);
		return -1;
	}
	char active[SYS_SCHED_NAME], all[SYS_SCHED_LIST];
	sys_sched_get(dev, active, sizeof(active), all, sizeof(all));
	if (strcmp(active, original) && sys_sched_write(dev, original, e2, sizeof(e2))) {
		snprintf(err, errlen, "%s: cannot restore '%s' left by jobmix pid %ld: %s", dev,
			 original, pid, e2);
		return -1;
	}
	if (unlink(p) && errno != ENOENT) {
		snprintf(err, errlen, "%s: restored '%s' but cannot remove %s: %s", dev, original, p,
			 strerror(errno));
		return -1;
	}
	snprintf(msg, msglen, "%s: restored scheduler '%s' left switched by jobmix pid %ld", dev,
		 original, pid);
	return 0;
}

int sys_sched_hold(const char *dev, struct sys_sched_hold *h, char *err, size_t errlen)
{
	memset(h, 0, sizeof(*h));
	h->lock_fd = -1;
	if (!sys_dev_name_valid(dev)) {
		snprintf(err, errlen, "'%s' is not a block device listed in /sys/block", dev);
		return -1;
	}
	if (!sys_sched_settable(dev)) {
		snprintf(err, errlen, "%s has no settable IO scheduler", dev);
		return -1;
	}
	snprintf(h->dev, sizeof(h->dev), "%s", dev);
	h->lock_fd = sys_lock_take(dev, err, errlen);
	if (h->lock_fd < 0)
		return -1;
	if (sys_state_repair(dev, h->repaired, sizeof(h->repaired), err, errlen))
		goto fail;
	char all[SYS_SCHED_LIST];
	if (sys_sched_get(dev, h->original, sizeof(h->original), all, sizeof(all)) ||
	    !h->original[0]) {
		snprintf(err, errlen, "%s: cannot read its scheduler", dev);
		goto fail;
	}
	snprintf(h->current, sizeof(h->current), "%s", h->original);
	if (sys_state_write(dev, h->original, err, errlen))
		goto fail;
	h->state_saved = true;
	return 0;
fail:
	close(h->lock_fd);
	h->lock_fd = -1;
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
			char p[PATH_MAX];
			sys_state_path(h->dev, p, sizeof(p));
			if (unlink(p) && errno != ENOENT) {
				snprintf(err, errlen, "%s: restored '%s' but cannot remove %s: %s",
					 h->dev, h->original, p, strerror(errno));
				ret = -1;
			}
			h->state_saved = false;
		}
	}
	close(h->lock_fd);
	h->lock_fd = -1;
	return ret;
}

/* Tell the caller, when it asked to be told. */
static void sys_tell(void (*report)(void *, bool, const char *), void *arg, bool ok,
		     const char *msg)
{
	if (report)
		report(arg, ok, msg);
}

int sys_sched_repair(const char *only, void (*report)(void *arg, bool ok, const char *msg),
		     void *arg)
{
	DIR *d = opendir(sys_state_dir);
	int failures = 0;
	if (!d)
		return 0;   /* nothing was ever saved */
	struct dirent *e;
	while ((e = readdir(d))) {
		char err[512], msg[512];
		const char *dev = e->d_name;
		if (dev[0] == '.' || strchr(dev, '.') || (only && strcmp(only, dev)))
			continue;
		if (!sys_dev_name_valid(dev)) {
			snprintf(msg, sizeof(msg), "%s/%s: no such block device; left alone",
				 sys_state_dir, dev);
			sys_tell(report, arg, false, msg);
			failures++;
			continue;
		}
		int fd = sys_lock_take(dev, err, sizeof(err));
		if (fd < 0) {
			if (errno != EWOULDBLOCK) {
				sys_tell(report, arg, false, err);
				failures++;
			} else {
				/* a live run holds it and restores it itself */
				snprintf(msg, sizeof(msg), "%s; left to it", err);
				sys_tell(report, arg, true, msg);
			}
			continue;
		}
		if (sys_state_repair(dev, msg, sizeof(msg), err, sizeof(err))) {
			sys_tell(report, arg, false, err);
			failures++;
		} else if (msg[0]) {
			sys_tell(report, arg, true, msg);
		}
		close(fd);
	}
	closedir(d);
	return failures;
}
