// SPDX-License-Identifier: GPL-2.0-only
/*
 * System knobs of an A/B matrix (sys_knob.h): queue attributes, sysctls and
 * a mount's atime option; checked before anything changes, held with a
 * record of the original saved before the first change, always put back.
 * The directory, its checks and the locks are sched.c's (sys_int.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "jobmix/atomic.h"
#include "jobmix/sys.h"
#include "jobmix/sys_dev.h"
#include "jobmix/sys_knob.h"
#include "jobmix/sys_scratch.h"
#include "sys_int.h"

#define KNOB_LOCK_PREFIX "knob."

static char procsys[PATH_MAX] = "/proc/sys";

void sys_knob_set_procsys(const char *dir)
{
	snprintf(procsys, sizeof(procsys), "%s", dir && dir[0] ? dir : "/proc/sys");
}

/* The atime options a `mount` axis offers, and the per-mount flag each sets. */
static const struct {
	const char *name;
	unsigned long flag;
} knob_atimes[] = {
	{ "strictatime", MS_STRICTATIME },
	{ "relatime", MS_RELATIME },
	{ "noatime", MS_NOATIME },
};
#define KNOB_NATIMES (sizeof(knob_atimes) / sizeof(knob_atimes[0]))

/* Only [a-z0-9_] (and, when `dots`, '.' between words). */
static bool knob_word(const char *s, bool dots)
{
	if (!s[0] || s[0] == '.' || strstr(s, ".."))
		return false;
	for (const char *c = s; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_' ||
		      (dots && *c == '.' && c[1])))
			return false;
	return true;
}

int sys_knob_kind_of(const char *key)
{
	if (!strcmp(key, "mount"))
		return SYS_KNOB_MOUNT;
	if (!strcmp(key, "fs") || !strcmp(key, "fs.mkfs"))
		return SYS_KNOB_SCRATCH;
	if (!strncmp(key, "queue.", 6))
		return SYS_KNOB_QUEUE;
	static const char *const families[] = { "vm.", "kernel.", "fs.", "net.", "dev.", "abi.",
						"debug.", "user.", "sunrpc." };
	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++)
		if (!strncmp(key, families[i], strlen(families[i])))
			return SYS_KNOB_SYSCTL;
	return -1;
}

/* The queue attribute of key "queue.ATTR" ("iosched.NAME" is iosched/NAME), into out. */
static int knob_queue_attr(const char *key, char *out, size_t len)
{
	const char *a = key + 6;
	if (!strncmp(a, "iosched.", 8) || !strncmp(a, "iosched/", 8)) {
		if (!knob_word(a + 8, false))
			return -1;
		snprintf(out, len, "iosched/%s", a + 8);
		return 0;
	}
	if (!knob_word(a, false))
		return -1;
	snprintf(out, len, "%s", a);
	return 0;
}

/* The file of a queue attribute or sysctl, into path.  0, or -1 (a name not safe). */
static int knob_path(enum sys_knob_kind kind, const char *key, const char *target, char *path,
		     size_t len)
{
	if (kind == SYS_KNOB_QUEUE) {
		char attr[SYS_KNOB_KEY];
		if (knob_queue_attr(key, attr, sizeof(attr)) || !sys_dev_name_valid(target))
			return -1;
		snprintf(path, len, "%s/block/%s/queue/%s", sys_sysfs(), target, attr);
		return 0;
	}
	if (kind != SYS_KNOB_SYSCTL || !knob_word(key, true))
		return -1;
	int n = snprintf(path, len, "%s/", procsys);
	for (const char *c = key; *c && (size_t)n < len - 1; c++)
		path[n++] = *c == '.' ? '/' : *c;
	path[n] = 0;
	return 0;
}

/* A /sys or /proc/sys value, its words joined by single spaces (sysctls list tabs). */
static int knob_read_file(const char *path, char *buf, size_t len)
{
	char raw[512];
	buf[0] = 0;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, raw, sizeof(raw) - 1);
	close(fd);
	if (n < 0)
		return -1;
	raw[n] = 0;
	size_t used = 0;
	char *save = NULL;
	for (char *w = strtok_r(raw, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save))
		used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%s%s",
					 used ? " " : "", w);
	return used < len ? 0 : -1;
}

/* Is s one integer (with leading '-' when neg), or when `words` space-separated integers? */
static bool knob_ints(const char *s, bool neg, bool words, size_t *count)
{
	size_t n = 0;
	const char *c = s;
	*count = 0;
	while (*c) {
		if (*c == '-' && neg)
			c++;
		if (*c < '0' || *c > '9')
			return false;
		while (*c >= '0' && *c <= '9')
			c++;
		n++;
		if (!*c)
			break;
		if (*c != ' ' || !words || !c[1])
			return false;
		c++;
	}
	*count = n;
	return n > 0;
}

/* The mount holding path: its mount point.  0 or -1. */
static int knob_mount_point(const char *path, char *mp, size_t len)
{
	struct sys_mount m;
	if (sys_mount_find(path, &m) || !m.mount_point[0])
		return -1;
	snprintf(mp, len, "%s", m.mount_point);
	return 0;
}

/* A mount's atime option now ("strictatime", "relatime", "noatime"), and its other flags. */
static int knob_mount_get(const char *mp, char *out, size_t len, unsigned long *keep)
{
	struct statvfs sv;
	if (statvfs(mp, &sv))
		return -1;
	unsigned long k = 0;
	if (sv.f_flag & ST_RDONLY)
		k |= MS_RDONLY;
	if (sv.f_flag & ST_NOSUID)
		k |= MS_NOSUID;
	if (sv.f_flag & ST_NODEV)
		k |= MS_NODEV;
	if (sv.f_flag & ST_NOEXEC)
		k |= MS_NOEXEC;
	if (sv.f_flag & ST_NODIRATIME)
		k |= MS_NODIRATIME;
#if defined(ST_NOSYMFOLLOW) && defined(MS_NOSYMFOLLOW)
	if (sv.f_flag & ST_NOSYMFOLLOW)
		k |= MS_NOSYMFOLLOW;
#endif
	if (keep)
		*keep = k;
	snprintf(out, len, "%s", (sv.f_flag & ST_NOATIME) ? "noatime" :
		 (sv.f_flag & ST_RELATIME) ? "relatime" : "strictatime");
	return 0;
}

/* Remount mp with atime option `value`, every other per-mount flag as it is. */
static int knob_mount_set(const char *mp, const char *value, char *err, size_t errlen)
{
	unsigned long keep, flag = 0;
	char now[32];
	for (size_t i = 0; i < KNOB_NATIMES; i++)
		if (!strcmp(value, knob_atimes[i].name))
			flag = knob_atimes[i].flag;
	if (!flag) {
		snprintf(err, errlen, "mount=%s: not an atime option (strictatime, relatime, noatime)",
			 value);
		return -1;
	}
	if (knob_mount_get(mp, now, sizeof(now), &keep)) {
		snprintf(err, errlen, "%s: statvfs: %s", mp, strerror(errno));
		return -1;
	}
	if (mount(NULL, mp, NULL, MS_REMOUNT | MS_BIND | keep | flag, NULL)) {
		snprintf(err, errlen, "remounting %s %s: %s", mp, value, strerror(errno));
		return -1;
	}
	return 0;
}

/* What value the knob has now, into buf.  0 or -1. */
static int knob_get(const struct sys_knob *k, char *buf, size_t len)
{
	char path[PATH_MAX];
	if (k->kind == SYS_KNOB_MOUNT)
		return knob_mount_get(k->target, buf, len, NULL);
	if (k->kind == SYS_KNOB_SCRATCH)
		return sys_scratch_state(k->target, buf, len);
	if (knob_path(k->kind, k->key, k->target, path, sizeof(path)))
		return -1;
	return knob_read_file(path, buf, len);
}

static int knob_put(const struct sys_knob *k, const char *value, char *err, size_t errlen)
{
	char path[PATH_MAX];
	if (k->kind == SYS_KNOB_MOUNT)
		return knob_mount_set(k->target, value, err, errlen);
	if (k->kind == SYS_KNOB_SCRATCH) {
		if (!strcmp(value, "none"))
			return sys_scratch_unmount(k->target, err, errlen);
		snprintf(err, errlen, "fs=%s: the scratch file system is made by sys_scratch_make",
			 value);
		return -1;
	}
	if (knob_path(k->kind, k->key, k->target, path, sizeof(path))) {
		snprintf(err, errlen, "%s: not a knob jobmix sets", k->key);
		return -1;
	}
	return sys_attr_write(path, value, err, errlen);
}

/* Which target this is beyond its name (a device's identity, a mount's). */
static int knob_identity(enum sys_knob_kind kind, const char *target, char *id, size_t len)
{
	id[0] = 0;
	if (kind == SYS_KNOB_QUEUE || kind == SYS_KNOB_SCRATCH)
		return sys_sched_identity(target, id, len);
	if (kind == SYS_KNOB_SYSCTL) {
		snprintf(id, len, "sysctl");
		return 0;
	}
	struct stat st;
	char mp[PATH_MAX];
	if (stat(target, &st) || knob_mount_point(target, mp, sizeof(mp)) || strcmp(mp, target))
		return -1;
	snprintf(id, len, "mount %s, dev %u:%u", target, major(st.st_dev), minor(st.st_dev));
	return 0;
}

/* A value may go into a record line and a /sys file: printable, no newline, not too long. */
static bool knob_value_ok(const char *v)
{
	if (!v[0] || strlen(v) >= SYS_KNOB_VAL)
		return false;
	for (const char *c = v; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || *c == '_' || *c == '-' || *c == '.' || *c == ' '))
			return false;
	return v[0] != ' ' && v[strlen(v) - 1] != ' ';
}

static int knob_check_file(const char *key, const char *path, char *now, size_t len, char *err,
			   size_t errlen)
{
	struct stat st;
	if (lstat(path, &st))
		return sys_err(err, errlen, "-X %s: %s is not there (%s)", key, path,
				strerror(errno));
	if (!S_ISREG(st.st_mode))
		return sys_err(err, errlen, "-X %s: %s is not a regular file", key, path);
	if (!(st.st_mode & S_IWUSR))
		return sys_err(err, errlen, "-X %s: %s is read-only (mode %04o): not a knob to set",
				key, path, (unsigned)(st.st_mode & 07777));
	if (knob_read_file(path, now, len))
		return sys_err(err, errlen, "-X %s: cannot read %s", key, path);
	return 0;
}

int sys_knob_check(const char *key, const char *target, const char *const *values, size_t n,
		   bool allow_any, char *err, size_t errlen)
{
	int kind = sys_knob_kind_of(key);
	char path[PATH_MAX], now[SYS_KNOB_VAL * 2], attr[SYS_KNOB_KEY];
	if (kind < 0)
		return sys_err(err, errlen, "-X %s: not a system knob", key);
	if (strlen(key) >= SYS_KNOB_KEY)
		return sys_err(err, errlen, "-X %.40s...: key too long", key);
	if (kind == SYS_KNOB_SCRATCH) {
		for (size_t i = 0; i < n; i++)
			if (!strcmp(key, "fs") ? sys_scratch_fs_check(values[i], err, errlen) :
			    sys_scratch_mkfs_check(values[i], err, errlen))
				return -1;
		return 0;
	}
	for (size_t i = 0; i < n && kind != SYS_KNOB_MOUNT; i++)
		if (!knob_value_ok(values[i]))
			return sys_err(err, errlen, "-X %s=%s: a value is letters, digits, '_', '-', "
					"'.' and inner spaces, at most %d characters", key, values[i],
					SYS_KNOB_VAL - 1);
	if (kind == SYS_KNOB_MOUNT) {
		for (size_t i = 0; i < n; i++) {
			bool ok = false;
			for (size_t a = 0; a < KNOB_NATIMES; a++)
				ok = ok || !strcmp(values[i], knob_atimes[a].name);
			if (!ok && strchr(values[i], '='))
				return sys_err(err, errlen, "-X mount=%s: an option that needs a fresh "
						"mount (as data=) is set only on a file system jobmix "
						"makes (--scratch DEV); in place it remounts only "
						"strictatime, relatime and noatime", values[i]);
			if (!ok)
				return sys_err(err, errlen, "-X mount=%s: not an option jobmix remounts "
						"(strictatime, relatime, noatime)", values[i]);
		}
		char mp[PATH_MAX];
		if (knob_mount_point(target, mp, sizeof(mp)))
			return sys_err(err, errlen, "-X mount: no mount found for %s", target);
		if (!strcmp(mp, "/"))
			return sys_err(err, errlen, "-X mount: %s is on the root file system; jobmix "
					"remounts only another mount (give -d on one)", target);
		return knob_mount_get(mp, now, sizeof(now), NULL) ?
		       sys_err(err, errlen, "-X mount: statvfs %s: %s", mp, strerror(errno)) : 0;
	}
	if (kind == SYS_KNOB_QUEUE) {
		if (knob_queue_attr(key, attr, sizeof(attr)))
			return sys_err(err, errlen, "-X %s: not a queue attribute name "
					"(queue.ATTR, queue.iosched.NAME)", key);
		if (!strcmp(attr, "scheduler"))
			return sys_err(err, errlen, "-X %s: the scheduler is its own axis: -s or "
					"-X sched=...", key);
		if (!sys_dev_name_valid(target))
			return sys_err(err, errlen, "-X %s: '%s' is not a block device listed in "
					"/sys/block", key, target);
	} else if (!knob_word(key, true)) {
		return sys_err(err, errlen, "-X %s: not a sysctl name (as vm.dirty_ratio)", key);
	} else if (!allow_any && strncmp(key, "vm.", 3) && strncmp(key, "kernel.sched_", 13)) {
		return sys_err(err, errlen, "-X %s: only vm.* and kernel.sched_* sysctls are varied "
				"unless --allow-sysctl", key);
	}
	if (knob_path(kind, key, target, path, sizeof(path)))
		return sys_err(err, errlen, "-X %s: not a knob jobmix sets", key);
	if (knob_check_file(key, path, now, sizeof(now), err, errlen))
		return -1;
	size_t have, want;
	bool numeric = knob_ints(now, true, kind == SYS_KNOB_SYSCTL, &have);
	bool neg = now[0] == '-' || !strcmp(attr, "wbt_lat_usec") || kind == SYS_KNOB_SYSCTL;
	char hw[64];
	long long hw_max = -1;
	if (kind == SYS_KNOB_QUEUE && !strcmp(attr, "max_sectors_kb") &&
	    !sys_dev_attr(target, "queue/max_hw_sectors_kb", hw, sizeof(hw)))
		hw_max = strtoll(hw, NULL, 10);
	for (size_t i = 0; i < n; i++) {
		if (!numeric)
			continue;
		if (!knob_ints(values[i], neg, kind == SYS_KNOB_SYSCTL, &want))
			return sys_err(err, errlen, "-X %s=%s: not %s (%s reads '%s')", key,
					values[i], kind == SYS_KNOB_SYSCTL && have > 1 ?
					"a list of integers" : neg ? "an integer" :
					"a whole number", path, now);
		if (want != have)
			return sys_err(err, errlen, "-X %s=%s: %zu number%s where %s has %zu ('%s')",
					key, values[i], want, want == 1 ? "" : "s", path, have, now);
		if (hw_max >= 0 && strtoll(values[i], NULL, 10) > hw_max)
			return sys_err(err, errlen, "-X %s=%s: above %s's max_hw_sectors_kb (%lld)",
					key, values[i], target, hw_max);
	}
	return 0;
}

/*
 * The tunables each scheduler has had on every kernel jobmix runs on
 * (block/mq-deadline.c, kyber-iosched.c, bfq-iosched.c); newer ones
 * (mq-deadline's async_depth, prio_aging_expire) are known only under the
 * active scheduler, where the directory shows them.
 */
static const struct {
	const char *sched;
	const char *tunables;
} knob_iosched[] = {
	{ "mq-deadline", " read_expire write_expire writes_starved front_merges fifo_batch " },
	{ "deadline", " read_expire write_expire writes_starved front_merges fifo_batch " },
	{ "kyber", " read_lat_nsec write_lat_nsec " },
	{ "bfq", " slice_idle slice_idle_us quantum back_seek_max back_seek_penalty "
		 "fifo_expire_async fifo_expire_sync low_latency timeout_sync max_budget "
		 "strict_guarantees " },
	{ "none", " " },
};

int sys_knob_check_iosched(const char *key, const char *dev, const char *active,
			   const char *const *scheds, size_t n, char *err, size_t errlen)
{
	char word[SYS_KNOB_KEY + 2];
	if (strncmp(key, "queue.iosched.", 14) && strncmp(key, "queue.iosched/", 14))
		return 0;
	snprintf(word, sizeof(word), " %s ", key + 14);
	for (size_t i = 0; i < n; i++) {
		if (active && !strcmp(scheds[i], active))
			continue;   /* there now: sys_knob_check found the file */
		size_t t;
		for (t = 0; t < sizeof(knob_iosched) / sizeof(knob_iosched[0]) &&
			    strcmp(knob_iosched[t].sched, scheds[i]); t++)
			;
		if (t == sizeof(knob_iosched) / sizeof(knob_iosched[0]))
			return sys_err(err, errlen, "-X %s: the run switches %s to %s, and jobmix "
					"cannot tell whether %s has the tunable %s without switching "
					"to it (it knows mq-deadline's, kyber's and bfq's): give the "
					"tunable only with schedulers that have it", key, dev,
					scheds[i], scheds[i], key + 14);
		if (!strstr(knob_iosched[t].tunables, word))
			return sys_err(err, errlen, "-X %s: the scheduler %s has no tunable %s (the "
					"run switches %s to it); an iosched tunable is an axis only "
					"beside schedulers that all have it%s%s", key, scheds[i],
					key + 14, dev, knob_iosched[t].tunables[1] ? "; " : "",
					knob_iosched[t].tunables[1] ? "known under it:" : "");
	}
	return 0;
}

void sys_knob_now(const char *key, const char *target, char *buf, size_t len)
{
	int kind = sys_knob_kind_of(key);
	char path[PATH_MAX], mp[PATH_MAX], v[SYS_KNOB_VAL];
	snprintf(buf, len, "?");
	if (kind == SYS_KNOB_MOUNT) {
		if (!knob_mount_point(target, mp, sizeof(mp)) &&
		    !knob_mount_get(mp, v, sizeof(v), NULL))
			snprintf(buf, len, "%s on %s", v, mp);
		return;
	}
	if (kind == SYS_KNOB_SCRATCH) {
		if (sys_scratch_state(target, v, sizeof(v)))
			snprintf(v, sizeof(v), "?");
		snprintf(buf, len, "%s", !strcmp(v, "none") ? "nothing mounted" : v);
		return;
	}
	if (kind >= 0 && !knob_path((enum sys_knob_kind)kind, key, target, path, sizeof(path)) &&
	    knob_read_file(path, buf, len))
		snprintf(buf, len, "?");
}

/* ---- holding: the record and the lock ---------------------------------------- */

/* The directories: <dir>/lock and <dir>/knob.  0; 1 when <dir> is missing (!create); -1. */
static int knob_dirs(bool create, int *lock_dir, int *state_dir, char *err, size_t errlen)
{
	char shown[PATH_MAX + 16];
	const char *dir = sys_state_dir();
	*lock_dir = *state_dir = -1;
	int top = sys_dir_open(AT_FDCWD, dir, dir, create, err, errlen);
	if (top < 0)
		return !create && errno == ENOENT && !err[0] ? 1 : -1;
	snprintf(shown, sizeof(shown), "%s/lock", dir);
	*lock_dir = sys_dir_open(top, "lock", shown, true, err, errlen);
	snprintf(shown, sizeof(shown), "%s/knob", dir);
	if (*lock_dir >= 0)
		*state_dir = sys_dir_open(top, "knob", shown, true, err, errlen);
	close(top);
	if (*state_dir < 0) {
		if (*lock_dir >= 0)
			close(*lock_dir);
		*lock_dir = -1;
		return -1;
	}
	return 0;
}

/* A record or lock name of ours: [A-Za-z0-9._-], not starting with '.'. */
static bool knob_name_ok(const char *s)
{
	if (!s[0] || s[0] == '.' || strlen(s) > NAME_MAX - sizeof(KNOB_LOCK_PREFIX))
		return false;
	for (const char *c = s; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || *c == '.' || *c == '_' || *c == '-'))
			return false;
	return true;
}

/* The knob's file name: queue.DEV.ATTR, sysctl.KEY, mount.MAJ-MIN.ESCAPED-PATH. */
static int knob_name(const struct sys_knob *k, char *out, size_t len)
{
	if (k->kind == SYS_KNOB_QUEUE) {
		snprintf(out, len, "queue.%s.%s", k->target, k->key + 6);
	} else if (k->kind == SYS_KNOB_SYSCTL) {
		snprintf(out, len, "sysctl.%s", k->key);
	} else if (k->kind == SYS_KNOB_SCRATCH) {
		if (!sys_dev_name_valid(k->target))
			return -1;
		snprintf(out, len, "scratch.%s", k->target);
	} else {
		struct stat st;
		if (stat(k->target, &st))
			return -1;
		int n = snprintf(out, len, "mount.%u-%u.", major(st.st_dev), minor(st.st_dev));
		for (const char *c = k->target; *c && (size_t)n < len - 1; c++)
			out[n++] = knob_name_ok((char[2]){ *c, 0 }) ? *c : '_';
		out[n] = 0;
	}
	for (char *c = out; *c; c++)
		if (*c == '/')
			*c = '-';
	return knob_name_ok(out) ? 0 : -1;
}

struct knob_rec {
	int kind;
	char key[SYS_KNOB_KEY];
	char target[PATH_MAX];
	char original[SYS_KNOB_VAL];
	char written[SYS_KNOB_VAL];   /* what the knob read after jobmix's last write */
	char pending[SYS_KNOB_VAL];   /* a write under way ("" none): the knob may read it */
	bool has_written;             /* a record of this format (an old one has no written=) */
	long pid;
	char identity[SYS_SCHED_ID];
};

/*
 * A record: the original, and what jobmix wrote (written=, and pending= while
 * a write is under way), so that a repair restores the original only while
 * the knob still reads a value jobmix wrote.  The scratch knob ("fs") has no
 * written=: what is mounted at jobmix's own mount point is jobmix's.
 */
static int knob_rec_fill(FILE *f, void *ctx)
{
	const struct knob_rec *r = ctx;
	if (fprintf(f, "kind=%d\nkey=%s\ntarget=%s\noriginal=%s\npid=%ld\nsaved=%ld\n"
		    "identity=%s\n", r->kind, r->key, r->target, r->original, r->pid,
		    (long)time(NULL), r->identity) < 0)
		return -1;
	if (r->kind != SYS_KNOB_SCRATCH && fprintf(f, "written=%s\n", r->written) < 0)
		return -1;
	return r->pending[0] && fprintf(f, "pending=%s\n", r->pending) < 0 ? -1 : 0;
}

/* Read record `name`: 0; 1 when there is none; -1 with err. */
static int knob_rec_read(int dirfd, const char *name, struct knob_rec *r, char *err,
			 size_t errlen)
{
	char line[PATH_MAX + 32];
	memset(r, 0, sizeof(*r));
	r->kind = -1;
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		if (errno == ENOENT)
			return 1;
		return sys_err(err, errlen, "cannot open %s/knob/%s: %s", sys_state_dir(), name,
				strerror(errno));
	}
	struct stat st;
	FILE *f = NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    !(f = fdopen(fd, "r"))) {
		close(fd);
		return sys_err(err, errlen, "%s/knob/%s is not a record of ours", sys_state_dir(),
				name);
	}
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		char *eq = strchr(line, '=');
		if (!eq)
			continue;
		*eq++ = 0;
		if (!strcmp(line, "kind"))
			r->kind = atoi(eq);
		else if (!strcmp(line, "key"))
			snprintf(r->key, sizeof(r->key), "%s", eq);
		else if (!strcmp(line, "target"))
			snprintf(r->target, sizeof(r->target), "%s", eq);
		else if (!strcmp(line, "original"))
			snprintf(r->original, sizeof(r->original), "%s", eq);
		else if (!strcmp(line, "pid"))
			r->pid = strtol(eq, NULL, 10);
		else if (!strcmp(line, "identity"))
			snprintf(r->identity, sizeof(r->identity), "%s", eq);
		else if (!strcmp(line, "written"))
			r->has_written = snprintf(r->written, sizeof(r->written), "%s", eq) >= 0;
		else if (!strcmp(line, "pending"))
			snprintf(r->pending, sizeof(r->pending), "%s", eq);
	}
	fclose(f);
	if (r->kind < SYS_KNOB_QUEUE || r->kind > SYS_KNOB_SCRATCH || sys_knob_kind_of(r->key) !=
	    r->kind || !knob_value_ok(r->original) || (r->has_written && !knob_value_ok(r->written))
	    || (r->pending[0] && !knob_value_ok(r->pending)))
		return sys_err(err, errlen, "%s/knob/%s: not a record jobmix wrote (kept)",
				sys_state_dir(), name);
	return 0;
}

/* Drop record `name` and say why (msg): `what`, or -1 when it cannot be dropped. */
static int knob_rec_drop(int dirfd, const char *name, int what, char *msg, size_t msglen)
{
	if (!unlinkat(dirfd, name, 0) || errno == ENOENT)
		return what;
	size_t n = strlen(msg);
	snprintf(msg + n, msglen - n, " (but cannot remove %s/knob/%s: %s)", sys_state_dir(),
		 name, strerror(errno));
	return SYS_REPAIR_FAILED;
}

/*
 * With the knob's lock held: act on the record `name` a dead run left.
 * The original goes back only while the target is the one recorded and the
 * knob reads what jobmix wrote (or a write it had under way); a value set
 * since is left as it is and the record dropped; a record that can never
 * apply (the file gone: an iosched tunable under another scheduler, a
 * sysctl of a module unloaded) is dropped.  An old record, without what
 * jobmix wrote, is restored as before and said so.  A sys_repair kind
 * with msg, or -1 when there is none.
 */
static int knob_rec_repair(int dirfd, const char *name, char *msg, size_t msglen)
{
	struct knob_rec r;
	char e2[512], id[SYS_SCHED_ID], now[SYS_KNOB_VAL], on[PATH_MAX + 8] = "";
	msg[0] = 0;
	int rc = knob_rec_read(dirfd, name, &r, e2, sizeof(e2));
	if (rc > 0)
		return -1;
	if (rc < 0) {
		snprintf(msg, msglen, "%s", e2);
		return SYS_REPAIR_FAILED;
	}
	struct sys_knob k = { .kind = (enum sys_knob_kind)r.kind };
	snprintf(k.key, sizeof(k.key), "%s", r.key);
	snprintf(k.target, sizeof(k.target), "%s", r.target);
	const char *what = r.target[0] ? r.target : "the system";
	if (r.target[0])
		snprintf(on, sizeof(on), " on %s", r.target);
	if (knob_identity(k.kind, r.target, id, sizeof(id)) || strcmp(id, r.identity)) {
		snprintf(msg, msglen, "%s on %s: %s (recorded as %s); the record jobmix pid %ld "
			 "left (to restore '%s') dropped, nothing changed", r.key, what,
			 id[0] ? "another one now" : "gone", r.identity, r.pid, r.original);
		return knob_rec_drop(dirfd, name, id[0] ? SYS_REPAIR_DROPPED : SYS_REPAIR_CLEARED,
				     msg, msglen);
	}
	if (knob_get(&k, now, sizeof(now))) {
		if (errno != ENOENT) {
			snprintf(msg, msglen, "%s%s: cannot read it to restore '%s' left by jobmix "
				 "pid %ld: %s", r.key, on, r.original, r.pid, strerror(errno));
			return SYS_REPAIR_FAILED;
		}
		snprintf(msg, msglen, "%s%s: not there now%s: the record jobmix pid %ld left (to "
			 "restore '%s') can never apply, dropped", r.key, on,
			 strstr(r.key, ".iosched.") ? " (not a tunable of the active scheduler)" : "",
			 r.pid, r.original);
		return knob_rec_drop(dirfd, name, SYS_REPAIR_CLEARED, msg, msglen);
	}
	bool ours = !r.has_written || !strcmp(now, r.written) ||
		    (r.pending[0] && !strcmp(now, r.pending));
	if (strcmp(now, r.original) && !ours) {
		snprintf(msg, msglen, "%s%s now %s, not the %s jobmix wrote: left as it is, record "
			 "dropped (it would have restored '%s', left by jobmix pid %ld)", r.key, on,
			 now, r.written, r.original, r.pid);
		return knob_rec_drop(dirfd, name, SYS_REPAIR_DROPPED, msg, msglen);
	}
	if (strcmp(now, r.original) && knob_put(&k, r.original, e2, sizeof(e2))) {
		snprintf(msg, msglen, "%s on %s: cannot restore '%s' left by jobmix pid %ld: %s",
			 r.key, what, r.original, r.pid, e2);
		return SYS_REPAIR_FAILED;
	}
	if (k.kind == SYS_KNOB_SCRATCH)
		snprintf(msg, msglen, "scratch %s: unmounted the file system jobmix pid %ld left "
			 "mounted at %s/scratch/%s", what, r.pid, sys_state_dir(), what);
	else
		snprintf(msg, msglen, "%s on %s: restored '%s' left changed by jobmix pid %ld%s",
			 r.key, what, r.original, r.pid, r.has_written ? "" :
			 " (an old record, without the value jobmix wrote: restored unchecked)");
	return knob_rec_drop(dirfd, name, SYS_REPAIR_RESTORED, msg, msglen);
}

/* (Re)write the record of held knob k: its original, what it wrote, a write under way. */
static int knob_rec_save(const struct sys_knob *k, const char *pending, char *err,
			 size_t errlen)
{
	struct knob_rec r = { .kind = (int)k->kind, .pid = (long)getpid(), .has_written = true };
	char why[512];
	snprintf(r.key, sizeof(r.key), "%s", k->key);
	snprintf(r.target, sizeof(r.target), "%s", k->target);
	snprintf(r.original, sizeof(r.original), "%s", k->original);
	snprintf(r.written, sizeof(r.written), "%s", k->written);
	snprintf(r.pending, sizeof(r.pending), "%s", pending);
	snprintf(r.identity, sizeof(r.identity), "%s", k->identity);
	if (!atom_write_private_at(k->state_dir, k->name, knob_rec_fill, &r, why, sizeof(why)))
		return 0;
	return sys_err(err, errlen, "cannot save the record of %s in %s/knob/%s: %s", k->key,
		       sys_state_dir(), k->name, why);
}

static void knob_close(struct sys_knob *k, bool drop_lock)
{
	char lock[NAME_MAX + 1];
	snprintf(lock, sizeof(lock), KNOB_LOCK_PREFIX "%s", k->name);
	if (k->lock_fd >= 0) {
		if (drop_lock)
			sys_lock_drop(k->lock_dir, lock, k->lock_fd);
		else
			close(k->lock_fd);
	}
	if (k->lock_dir >= 0)
		close(k->lock_dir);
	if (k->state_dir >= 0)
		close(k->state_dir);
	k->lock_fd = k->lock_dir = k->state_dir = -1;
}

int sys_knob_hold(struct sys_knob *k, const char *key, const char *target, char *err,
		  size_t errlen)
{
	char lock[NAME_MAX + 1];
	int kind = sys_knob_kind_of(key);
	memset(k, 0, sizeof(*k));
	k->lock_fd = k->lock_dir = k->state_dir = -1;
	if (kind < 0 || strlen(key) >= sizeof(k->key))
		return sys_err(err, errlen, "%s: not a system knob", key);
	k->kind = (enum sys_knob_kind)kind;
	snprintf(k->key, sizeof(k->key), "%s", key);
	if (k->kind == SYS_KNOB_MOUNT) {
		if (knob_mount_point(target, k->target, sizeof(k->target)))
			return sys_err(err, errlen, "mount: no mount found for %s", target);
	} else {
		snprintf(k->target, sizeof(k->target), "%s", k->kind == SYS_KNOB_SYSCTL ? "" :
			 target);
	}
	if (knob_name(k, k->name, sizeof(k->name)))
		return sys_err(err, errlen, "%s on %s: no safe record name", key, k->target);
	if (knob_dirs(true, &k->lock_dir, &k->state_dir, err, errlen))
		return -1;
	snprintf(lock, sizeof(lock), KNOB_LOCK_PREFIX "%s", k->name);
	char e2[512];
	k->lock_fd = sys_lock_take(k->lock_dir, lock, k->kind == SYS_KNOB_SCRATCH ?
				   SYS_LOCK_SCRATCH : SYS_LOCK_MATRIX, e2, sizeof(e2));
	if (k->lock_fd < 0) {
		snprintf(err, errlen, "%s on %s: %s", key, k->target[0] ? k->target : "the system",
			 e2);
		goto fail;
	}
	int what = knob_rec_repair(k->state_dir, k->name, k->repaired, sizeof(k->repaired));
	if (what == SYS_REPAIR_FAILED) {
		snprintf(err, errlen, "%s", k->repaired);
		goto fail;
	}
	if (knob_get(k, k->original, sizeof(k->original)) || !knob_value_ok(k->original)) {
		snprintf(err, errlen, "%s on %s: cannot read its value", key,
			 k->target[0] ? k->target : "the system");
		goto fail;
	}
	snprintf(k->current, sizeof(k->current), "%s", k->original);
	snprintf(k->written, sizeof(k->written), "%s", k->original);
	if (knob_identity(k->kind, k->target, k->identity, sizeof(k->identity))) {
		snprintf(err, errlen, "%s on %s: cannot tell which it is", key, k->target);
		goto fail;
	}
	if (knob_rec_save(k, "", err, errlen))
		goto fail;
	k->saved = true;
	return 0;
fail:
	knob_close(k, true);
	return -1;
}

int sys_knob_set(struct sys_knob *k, const char *value, char *read_back, size_t rblen,
		 char *err, size_t errlen)
{
	const char *what = k->target[0] ? k->target : "the system";
	if (rblen)
		read_back[0] = 0;
	if (k->lock_fd < 0)
		return sys_err(err, errlen, "%s: setting a knob that is not held", k->key);
	if (!knob_value_ok(value))
		return sys_err(err, errlen, "%s=%s: not a value jobmix writes", k->key, value);
	/* the record first: a jobmix killed mid-write left either value, both ours */
	if (k->saved && knob_rec_save(k, value, err, errlen))
		return -1;
	/* unknown after a failed write: treat it as changed */
	snprintf(k->current, sizeof(k->current), "%s", value);
	char e2[512], now[SYS_KNOB_VAL];
	if (knob_put(k, value, e2, sizeof(e2)))
		return sys_err(err, errlen, "%s=%s on %s: %s", k->key, value, what, e2);
	if (knob_get(k, now, sizeof(now)))
		return sys_err(err, errlen, "%s=%s on %s: set, but cannot read it back", k->key,
				value, what);
	if (rblen)
		snprintf(read_back, rblen, "%s", now);
	/* what it reads now (read_ahead_kb 5 reads 4) is what a repair will look for */
	snprintf(k->written, sizeof(k->written), "%s", now);
	return k->saved && knob_value_ok(now) ? knob_rec_save(k, "", err, errlen) : 0;
}

int sys_knob_release(struct sys_knob *k, char *err, size_t errlen)
{
	int ret = 0;
	char now[SYS_KNOB_VAL], e2[512];
	if (k->lock_fd < 0)
		return 0;
	bool same = !knob_get(k, now, sizeof(now)) && !strcmp(now, k->original);
	if (!same && (knob_put(k, k->original, e2, sizeof(e2)) || knob_get(k, now, sizeof(now)) ||
		      strcmp(now, k->original))) {
		snprintf(err, errlen, "%s on %s: cannot put '%s' back (%s)", k->key,
			 k->target[0] ? k->target : "the system", k->original,
			 e2[0] && !same ? e2 : "it reads back otherwise");
		ret = -1;
	}
	if (!ret) {
		snprintf(k->current, sizeof(k->current), "%s", k->original);
		if (k->saved && unlinkat(k->state_dir, k->name, 0) && errno != ENOENT) {
			snprintf(err, errlen, "%s: restored '%s' but cannot remove %s/knob/%s: %s",
				 k->key, k->original, sys_state_dir(), k->name, strerror(errno));
			ret = -1;
		}
		k->saved = false;
	}
	knob_close(k, true);
	return ret;
}

int sys_knob_repair(sys_repair_report *report, void *arg, char *err, size_t errlen)
{
	int lock_dir, state_dir, failures = 0;
	int rc = knob_dirs(false, &lock_dir, &state_dir, err, errlen);
	if (rc)
		return rc > 0 ? 0 : -1;
	int fd = dup(state_dir);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	if (!dir) {
		if (fd >= 0)
			close(fd);
		close(lock_dir);
		close(state_dir);
		return sys_err(err, errlen, "cannot read %s/knob: %s", sys_state_dir(),
				strerror(errno));
	}
	struct dirent *e;
	while ((e = readdir(dir))) {
		char lock[NAME_MAX + 1], msg[SYS_SCHED_ID + 256], e2[512];
		if (!knob_name_ok(e->d_name))
			continue;
		snprintf(lock, sizeof(lock), KNOB_LOCK_PREFIX "%s", e->d_name);
		int lk = sys_lock_take(lock_dir, lock, SYS_LOCK_REPAIR, e2, sizeof(e2));
		if (lk < 0) {
			bool held = errno == EWOULDBLOCK;
			snprintf(msg, sizeof(msg), "%s%s", e2, held ? "; left to it" : "");
			if (report)
				report(arg, held ? SYS_REPAIR_LEFT : SYS_REPAIR_FAILED, msg);
			failures += !held;
			continue;
		}
		int what = knob_rec_repair(state_dir, e->d_name, msg, sizeof(msg));
		sys_lock_drop(lock_dir, lock, lk);
		if (what >= 0 && report)
			report(arg, (enum sys_repair)what, msg);
		failures += what == SYS_REPAIR_FAILED;
	}
	closedir(dir);
	close(lock_dir);
	close(state_dir);
	return failures;
}

int sys_knob_left(char *names, size_t len)
{
	int lock_dir, state_dir, n = 0;
	char err[512];
	size_t used = 0;
	if (len)
		names[0] = 0;
	if (knob_dirs(false, &lock_dir, &state_dir, err, sizeof(err)))
		return 0;
	int fd = dup(state_dir);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;
	while (dir && (e = readdir(dir))) {
		struct knob_rec r;
		char lock[NAME_MAX + 1];
		if (!knob_name_ok(e->d_name))
			continue;
		snprintf(lock, sizeof(lock), KNOB_LOCK_PREFIX "%s", e->d_name);
		int lk = sys_lock_take(lock_dir, lock, SYS_LOCK_LOOK, err, sizeof(err));
		if (lk < 0)
			continue;   /* a live run's */
		int rc = knob_rec_read(state_dir, e->d_name, &r, err, sizeof(err));
		sys_lock_drop(lock_dir, lock, lk);
		if (rc > 0)
			continue;
		n++;
		if (used < len)
			used += (size_t)snprintf(names + used, len - used, "%s%s%s%s", used ? ", " : "",
						 rc ? e->d_name : r.key, !rc && r.target[0] ? " on " : "",
						 !rc ? r.target : "");
	}
	if (dir)
		closedir(dir);
	else if (fd >= 0)
		close(fd);
	close(lock_dir);
	close(state_dir);
	return n;
}
