// SPDX-License-Identifier: GPL-2.0-only
/*
 * The knob families an A/B matrix varies (sys_knob.h), one row each in
 * sys_knob_families[]: how a key is recognised, checked before anything
 * changes, where it is set, read, written, put back, which target it is
 * and what its record is called.  The holding (locks, records, repair)
 * is knob.c's and walks this table; so do the plan, the engine and the
 * dry run.  A new family is one row here and its functions.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "jobmix/sys.h"
#include "jobmix/sys_dev.h"
#include "jobmix/sys_knob.h"
#include "jobmix/sys_scratch.h"
#include "sys_int.h"

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

bool sys_knob_value_ok(const char *v)
{
	if (!v[0] || strlen(v) >= SYS_KNOB_VAL)
		return false;
	for (const char *c = v; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || *c == '_' || *c == '-' || *c == '.' || *c == ' '))
			return false;
	return v[0] != ' ' && v[strlen(v) - 1] != ' ';
}

/* ---- files: queue attributes, iosched tunables, sysctls ---------------------- */

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

static int queue_path(const char *key, const char *target, char *path, size_t len)
{
	char attr[SYS_KNOB_KEY];
	if (knob_queue_attr(key, attr, sizeof(attr)) || !sys_dev_name_valid(target))
		return -1;
	snprintf(path, len, "%s/block/%s/queue/%s", sys_sysfs(), target, attr);
	return 0;
}

static int sysctl_path(const char *key, const char *target, char *path, size_t len)
{
	(void)target;
	if (!knob_word(key, true))
		return -1;
	int n = snprintf(path, len, "%s/", procsys);
	for (const char *c = key; *c && (size_t)n < len - 1; c++)
		path[n++] = *c == '.' ? '/' : *c;
	path[n] = 0;
	return 0;
}

/* A file family's path op (the family known: its key is never classified again). */
typedef int knob_path_fn(const char *key, const char *target, char *path, size_t len);

static int file_get(knob_path_fn *path_of, const char *key, const char *target, char *buf,
		    size_t len)
{
	char path[PATH_MAX];
	if (path_of(key, target, path, sizeof(path)))
		return -1;
	return knob_read_file(path, buf, len);
}

static int file_put(knob_path_fn *path_of, const char *key, const char *target,
		    const char *value, char *err, size_t errlen)
{
	char path[PATH_MAX];
	if (path_of(key, target, path, sizeof(path)))
		return sys_err(err, errlen, "%s: not a knob jobmix sets", key);
	return sys_attr_write(path, value, err, errlen);
}

/* get and put of the queue (and iosched) and sysctl families: their file's. */
static int queue_get(const char *key, const char *target, char *buf, size_t len)
{
	return file_get(queue_path, key, target, buf, len);
}

static int queue_put(const char *key, const char *target, const char *value, char *err,
		     size_t errlen)
{
	return file_put(queue_path, key, target, value, err, errlen);
}

static int sysctl_get(const char *key, const char *target, char *buf, size_t len)
{
	return file_get(sysctl_path, key, target, buf, len);
}

static int sysctl_put(const char *key, const char *target, const char *value, char *err,
		      size_t errlen)
{
	return file_put(sysctl_path, key, target, value, err, errlen);
}

/* The file there, a regular writable one, and what it reads now. */
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

/* Each value of the form the file shows (integers where it reads integers). */
static int knob_check_values(const char *key, const char *path, const char *const *values,
			     size_t n, bool neg, bool words, const char *dev, long long hw_max,
			     char *err, size_t errlen)
{
	char now[SYS_KNOB_VAL * 2];
	size_t have, want;
	if (knob_check_file(key, path, now, sizeof(now), err, errlen))
		return -1;
	if (!knob_ints(now, true, words, &have))
		return 0;
	neg = neg || now[0] == '-';
	for (size_t i = 0; i < n; i++) {
		if (!knob_ints(values[i], neg, words, &want))
			return sys_err(err, errlen, "-X %s=%s: not %s (%s reads '%s')", key,
					values[i], words && have > 1 ? "a list of integers" :
					neg ? "an integer" : "a whole number", path, now);
		if (want != have)
			return sys_err(err, errlen, "-X %s=%s: %zu number%s where %s has %zu ('%s')",
					key, values[i], want, want == 1 ? "" : "s", path, have, now);
		if (hw_max >= 0 && strtoll(values[i], NULL, 10) > hw_max)
			return sys_err(err, errlen, "-X %s=%s: above %s's max_hw_sectors_kb (%lld)",
					key, values[i], dev, hw_max);
	}
	return 0;
}

/* Every value one a record line and a /sys file can take. */
static int knob_check_words(const char *key, const char *const *values, size_t n, char *err,
			    size_t errlen)
{
	for (size_t i = 0; i < n; i++)
		if (!sys_knob_value_ok(values[i]))
			return sys_err(err, errlen, "-X %s=%s: a value is letters, digits, '_', '-', "
					"'.' and inner spaces, at most %d characters", key, values[i],
					SYS_KNOB_VAL - 1);
	return 0;
}

static int queue_check(const char *key, const char *target, const char *const *values,
		       size_t n, bool allow_any, char *err, size_t errlen)
{
	char attr[SYS_KNOB_KEY], path[PATH_MAX], hw[64];
	long long hw_max = -1;
	(void)allow_any;
	if (knob_check_words(key, values, n, err, errlen))
		return -1;
	if (knob_queue_attr(key, attr, sizeof(attr)))
		return sys_err(err, errlen, "-X %s: not a queue attribute name "
				"(queue.ATTR, queue.iosched.NAME)", key);
	if (!strcmp(attr, "scheduler"))
		return sys_err(err, errlen, "-X %s: the scheduler is its own axis: -s or "
				"-X sched=...", key);
	if (!sys_dev_name_valid(target))
		return sys_err(err, errlen, "-X %s: '%s' is not a block device listed in "
				"/sys/block", key, target);
	if (queue_path(key, target, path, sizeof(path)))
		return sys_err(err, errlen, "-X %s: not a knob jobmix sets", key);
	if (!strcmp(attr, "max_sectors_kb") &&
	    !sys_dev_attr(target, "queue/max_hw_sectors_kb", hw, sizeof(hw)))
		hw_max = strtoll(hw, NULL, 10);
	return knob_check_values(key, path, values, n, !strcmp(attr, "wbt_lat_usec"), false,
				 target, hw_max, err, errlen);
}

static int sysctl_check(const char *key, const char *target, const char *const *values,
			size_t n, bool allow_any, char *err, size_t errlen)
{
	char path[PATH_MAX];
	if (knob_check_words(key, values, n, err, errlen))
		return -1;
	if (!knob_word(key, true))
		return sys_err(err, errlen, "-X %s: not a sysctl name (as vm.dirty_ratio)", key);
	if (!allow_any && strncmp(key, "vm.", 3) && strncmp(key, "kernel.sched_", 13))
		return sys_err(err, errlen, "-X %s: only vm.* and kernel.sched_* sysctls are varied "
				"unless --allow-sysctl", key);
	if (sysctl_path(key, target, path, sizeof(path)))
		return sys_err(err, errlen, "-X %s: not a knob jobmix sets", key);
	return knob_check_values(key, path, values, n, true, true, "", -1, err, errlen);
}

/* An iosched tunable: the scheduler's, so put back after it (the row before queue's). */
static bool iosched_match(const char *key)
{
	return !strncmp(key, "queue.iosched.", 14) || !strncmp(key, "queue.iosched/", 14);
}

static bool queue_match(const char *key)
{
	return !strncmp(key, "queue.", 6);
}

static bool sysctl_match(const char *key)
{
	static const char *const families[] = { "vm.", "kernel.", "fs.", "net.", "dev.", "abi.",
						"debug.", "user.", "sunrpc." };
	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++)
		if (!strncmp(key, families[i], strlen(families[i])))
			return true;
	return false;
}

static int same_target(const char *given, char *out, size_t len)
{
	snprintf(out, len, "%s", given);
	return 0;
}

static int system_target(const char *given, char *out, size_t len)
{
	(void)given;
	snprintf(out, len, "%s", "");
	return 0;
}

static int sysctl_identity(const char *target, char *id, size_t len)
{
	(void)target;
	snprintf(id, len, "sysctl");
	return 0;
}

static int queue_record(const char *key, const char *target, char *name, size_t len)
{
	snprintf(name, len, "queue.%s.%s", target, key + 6);
	return 0;
}

static int sysctl_record(const char *key, const char *target, char *name, size_t len)
{
	(void)target;
	snprintf(name, len, "sysctl.%s", key);
	return 0;
}

/* ---- mount: the atime option of a work directory's mount -------------------- */

/* The mount holding path: its mount point.  0 or -1. */
static int mount_target(const char *path, char *mp, size_t len)
{
	struct sys_mount m;
	if (sys_mount_find(path, &m) || !m.mount_point[0])
		return -1;
	snprintf(mp, len, "%s", m.mount_point);
	return 0;
}

/* A mount's atime option now ("strictatime", "relatime", "noatime"), and its other flags. */
static int mount_now(const char *mp, char *out, size_t len, unsigned long *keep)
{
	static const struct {
		unsigned long st, ms;
	} kept[] = {
		{ ST_RDONLY, MS_RDONLY }, { ST_NOSUID, MS_NOSUID }, { ST_NODEV, MS_NODEV },
		{ ST_NOEXEC, MS_NOEXEC }, { ST_NODIRATIME, MS_NODIRATIME },
#if defined(ST_NOSYMFOLLOW) && defined(MS_NOSYMFOLLOW)
		{ ST_NOSYMFOLLOW, MS_NOSYMFOLLOW },
#endif
	};
	struct statvfs sv;
	if (statvfs(mp, &sv))
		return -1;
	unsigned long k = 0;
	for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
		if (sv.f_flag & kept[i].st)
			k |= kept[i].ms;
	if (keep)
		*keep = k;
	snprintf(out, len, "%s", (sv.f_flag & ST_NOATIME) ? "noatime" :
		 (sv.f_flag & ST_RELATIME) ? "relatime" : "strictatime");
	return 0;
}

static int mount_get(const char *key, const char *mp, char *out, size_t len)
{
	(void)key;
	return mount_now(mp, out, len, NULL);
}

/* Remount mp with atime option `value`, every other per-mount flag as it is. */
static int mount_put(const char *key, const char *mp, const char *value, char *err,
		     size_t errlen)
{
	unsigned long keep, flag = 0;
	char now[32];
	(void)key;
	for (size_t i = 0; i < KNOB_NATIMES; i++)
		if (!strcmp(value, knob_atimes[i].name))
			flag = knob_atimes[i].flag;
	if (!flag)
		return sys_err(err, errlen, "mount=%s: not an atime option (strictatime, relatime, "
				"noatime)", value);
	if (mount_now(mp, now, sizeof(now), &keep))
		return sys_err(err, errlen, "%s: statvfs: %s", mp, strerror(errno));
	if (mount(NULL, mp, NULL, MS_REMOUNT | MS_BIND | keep | flag, NULL))
		return sys_err(err, errlen, "remounting %s %s: %s", mp, value, strerror(errno));
	return 0;
}

static int mount_check(const char *key, const char *target, const char *const *values,
		       size_t n, bool allow_any, char *err, size_t errlen)
{
	char mp[PATH_MAX], now[32];
	(void)key;
	(void)allow_any;
	for (size_t i = 0; i < n; i++) {
		bool ok = false;
		for (size_t a = 0; a < KNOB_NATIMES; a++)
			ok = ok || !strcmp(values[i], knob_atimes[a].name);
		if (!ok && strchr(values[i], '='))
			return sys_err(err, errlen, "-X mount=%s: an option that needs a fresh mount "
					"(as data=) is set only on a file system jobmix makes "
					"(--scratch DEV); in place it remounts only strictatime, "
					"relatime and noatime", values[i]);
		if (!ok)
			return sys_err(err, errlen, "-X mount=%s: not an option jobmix remounts "
					"(strictatime, relatime, noatime)", values[i]);
	}
	if (mount_target(target, mp, sizeof(mp)))
		return sys_err(err, errlen, "-X mount: no mount found for %s", target);
	if (!strcmp(mp, "/"))
		return sys_err(err, errlen, "-X mount: %s is on the root file system; jobmix "
				"remounts only another mount (give -d on one)", target);
	return mount_now(mp, now, sizeof(now), NULL) ?
	       sys_err(err, errlen, "-X mount: statvfs %s: %s", mp, strerror(errno)) : 0;
}

/* A mount point and its device: the same mount only while both are. */
static int mount_identity(const char *target, char *id, size_t len)
{
	struct stat st;
	char mp[PATH_MAX];
	id[0] = 0;
	if (stat(target, &st) || mount_target(target, mp, sizeof(mp)) || strcmp(mp, target))
		return -1;
	snprintf(id, len, "mount %s, dev %u:%u", target, major(st.st_dev), minor(st.st_dev));
	return 0;
}

/* mount.MAJ-MIN.PATH, each character of the path not [A-Za-z0-9_-] as '_'. */
static int mount_record(const char *key, const char *target, char *name, size_t len)
{
	struct stat st;
	(void)key;
	if (stat(target, &st))
		return -1;
	int n = snprintf(name, len, "mount.%u-%u.", major(st.st_dev), minor(st.st_dev));
	for (const char *c = target; *c && n > 0 && (size_t)n < len - 1; c++) {
		bool ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
			  (*c >= '0' && *c <= '9') || *c == '_' || *c == '-';
		name[n++] = ok ? *c : '_';
	}
	name[n > 0 && (size_t)n < len ? n : 0] = 0;
	return 0;
}

static void mount_show(const char *value, const char *target, char *buf, size_t len)
{
	snprintf(buf, len, "%s on %s", value, target);
}

/* ---- fs: the scratch device's file system ----------------------------------- */

static bool fs_match(const char *key)
{
	return !strcmp(key, "fs") || !strcmp(key, "fs.mkfs");
}

static int fs_check(const char *key, const char *target, const char *const *values, size_t n,
		    bool allow_any, char *err, size_t errlen)
{
	(void)target;
	(void)allow_any;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(key, "fs") ? sys_scratch_fs_check(values[i], err, errlen) :
		    sys_scratch_mkfs_check(values[i], err, errlen))
			return -1;
	return 0;
}

static int fs_get(const char *key, const char *dev, char *buf, size_t len)
{
	(void)key;
	return sys_scratch_state(dev, buf, len);
}

static int fs_put(const char *key, const char *dev, const char *value, char *err,
		  size_t errlen)
{
	(void)key;
	(void)dev;
	return sys_err(err, errlen, "fs=%s: the scratch file system is made by sys_scratch_make",
		       value);
}

/* Its original is "none": nothing mounted.  Put back: unmounted. */
static int fs_restore(const char *key, const char *dev, const char *value, char *err,
		      size_t errlen)
{
	if (strcmp(value, "none"))
		return fs_put(key, dev, value, err, errlen);
	return sys_scratch_unmount(dev, err, errlen);
}

static int fs_record(const char *key, const char *dev, char *name, size_t len)
{
	(void)key;
	if (!sys_dev_name_valid(dev))
		return -1;
	snprintf(name, len, "scratch.%s", dev);
	return 0;
}

static void fs_show(const char *value, const char *target, char *buf, size_t len)
{
	(void)target;
	snprintf(buf, len, "%s", !strcmp(value, "none") ? "nothing mounted" : value);
}

/* ---- the scratch mount: -X mount with --scratch, a fresh mount per arm ------- */

static bool scratch_mount_match(const char *key)
{
	return !strcmp(key, "mount");
}

static int scratch_mount_check(const char *key, const char *target, const char *const *values,
			       size_t n, bool allow_any, char *err, size_t errlen)
{
	(void)key;
	(void)target;
	(void)allow_any;
	for (size_t i = 0; i < n; i++)
		if (sys_scratch_mount_check(values[i], err, errlen))
			return -1;
	return 0;
}

/* ---- the table --------------------------------------------------------------- */

/*
 * One row per family; the first whose match takes a key is its family (the
 * scratch rows first: "fs" is the scratch file system, "fs.*" else a
 * sysctl; "mount" with a scratch device is its fresh mount).  The scratch
 * mount is never held itself: the scratch file system's hold covers it.
 */
const struct sys_knob_family sys_knob_families[] = {
	{ .name = "scratch mount", .kind = SYS_KNOB_MOUNT, .on = SYS_KNOB_ON_SCRATCH,
	  .scratch_only = true, .match = scratch_mount_match, .check = scratch_mount_check },
	{ .name = "scratch", .kind = SYS_KNOB_SCRATCH, .on = SYS_KNOB_ON_SCRATCH,
	  .match = fs_match, .check = fs_check, .target = same_target, .get = fs_get,
	  .put = fs_put, .restore = fs_restore, .identity = sys_sched_identity,
	  .record = fs_record, .show = fs_show, .lock = SYS_LOCK_SCRATCH },
	{ .name = "mount", .kind = SYS_KNOB_MOUNT, .on = SYS_KNOB_ON_MOUNTS,
	  .match = scratch_mount_match, .check = mount_check, .target = mount_target,
	  .get = mount_get, .put = mount_put, .restore = mount_put, .identity = mount_identity,
	  .record = mount_record, .show = mount_show, .lock = SYS_LOCK_MATRIX, .written = true },
	{ .name = "iosched", .kind = SYS_KNOB_QUEUE, .on = SYS_KNOB_ON_DEVICES,
	  .sched_bound = true, .match = iosched_match, .check = queue_check,
	  .target = same_target, .path = queue_path, .get = queue_get, .put = queue_put,
	  .restore = queue_put, .identity = sys_sched_identity, .record = queue_record,
	  .lock = SYS_LOCK_MATRIX, .written = true },
	{ .name = "queue", .kind = SYS_KNOB_QUEUE, .on = SYS_KNOB_ON_DEVICES,
	  .match = queue_match, .check = queue_check, .target = same_target, .path = queue_path,
	  .get = queue_get, .put = queue_put, .restore = queue_put, .identity = sys_sched_identity,
	  .record = queue_record, .lock = SYS_LOCK_MATRIX, .written = true },
	{ .name = "sysctl", .kind = SYS_KNOB_SYSCTL, .on = SYS_KNOB_ON_SYSTEM,
	  .match = sysctl_match, .check = sysctl_check, .target = system_target,
	  .path = sysctl_path, .get = sysctl_get, .put = sysctl_put, .restore = sysctl_put,
	  .identity = sysctl_identity, .record = sysctl_record, .lock = SYS_LOCK_MATRIX,
	  .written = true },
};
const size_t sys_knob_nfamilies = sizeof(sys_knob_families) / sizeof(sys_knob_families[0]);

const struct sys_knob_family *sys_knob_family(const char *key, bool scratch)
{
	for (size_t i = 0; i < sys_knob_nfamilies; i++) {
		const struct sys_knob_family *f = &sys_knob_families[i];
		if ((scratch || !f->scratch_only) && f->match(key))
			return f;
	}
	return NULL;
}

int sys_knob_kind_of(const char *key)
{
	const struct sys_knob_family *f = sys_knob_family(key, false);
	return f ? (int)f->kind : -1;
}

int sys_knob_check(const struct sys_knob_family *f, const char *key, const char *target,
		   const char *const *values, size_t n, bool allow_any, char *err, size_t errlen)
{
	if (!f)
		return sys_err(err, errlen, "-X %s: not a system knob", key);
	if (strlen(key) >= SYS_KNOB_KEY)
		return sys_err(err, errlen, "-X %.40s...: key too long", key);
	return f->check(key, target, values, n, allow_any, err, errlen);
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
	if (!iosched_match(key))
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
		const char *known = knob_iosched[t].tunables;   /* " a b " */
		if (!strstr(known, word))
			return sys_err(err, errlen, "-X %s: the scheduler %s has no tunable %s (the "
					"run switches %s to it); an iosched tunable is an axis only "
					"beside schedulers that all have it%s%.*s", key, scheds[i],
					key + 14, dev, known[1] ? "; known under it:" : "",
					(int)strlen(known) - 1, known);
	}
	return 0;
}

void sys_knob_now(const struct sys_knob_family *f, const char *key, const char *target,
		  char *buf, size_t len)
{
	char t[PATH_MAX], v[SYS_KNOB_VAL];
	snprintf(buf, len, "?");
	if (!f || !f->get || f->target(target, t, sizeof(t)) || f->get(key, t, v, sizeof(v)))
		return;
	if (f->show)
		f->show(v, t, buf, len);
	else
		snprintf(buf, len, "%s", v);
}
