// SPDX-License-Identifier: GPL-2.0-only
/*
 * Block-device resolution: from a path (or a name given with --device) to
 * the devices under /sys/block that hold it, down through partitions and
 * stacked devices (dm, md) to the queues that schedule.  Reads /sys, /proc
 * and /dev only; uses mount.c and nothing else in sys.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "jobmix/sys.h"
#include "jobmix/sys_dev.h"
#include "sys_int.h"

#define SYS_DEV_DEPTH 8   /* stacking levels followed (dm on md on dm ...) */

/* Where sysfs is: "/sys", or a fake tree in the unit tests. */
static char sys_sysfs_root[PATH_MAX] = "/sys";

void sys_dev_set_sysfs(const char *root)
{
	snprintf(sys_sysfs_root, sizeof(sys_sysfs_root), "%s", root && root[0] ? root : "/sys");
}

const char *sys_sysfs(void)
{
	return sys_sysfs_root;
}

/* [A-Za-z0-9._-] only (and '/' when allowed), no "..": safe inside a /sys path. */
static bool sys_safe_word(const char *s, bool slash)
{
	if (!s || !s[0] || strlen(s) > NAME_MAX || strstr(s, ".."))
		return false;
	if (!strcmp(s, "."))
		return false;
	for (const char *c = s; *c; c++) {
		bool ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
			  (*c >= '0' && *c <= '9') || *c == '.' || *c == '_' || *c == '-' ||
			  (slash && *c == '/' && c != s);
		if (!ok)
			return false;
	}
	return true;
}

bool sys_dev_name_valid(const char *dev)
{
	if (!sys_safe_word(dev, false) || strlen(dev) >= SYS_DEV_NAME)
		return false;
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/block/%s", sys_sysfs_root, dev);
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

int sys_dev_attr(const char *dev, const char *attr, char *buf, size_t len)
{
	char p[PATH_MAX];
	int ret = -1;
	FILE *f = NULL;

	if (len)
		buf[0] = 0;
	if (!sys_dev_name_valid(dev) || !sys_safe_word(attr, true))
		goto out;
	snprintf(p, sizeof(p), "%s/block/%s/%s", sys_sysfs_root, dev, attr);
	f = fopen(p, "re");
	if (!f || !fgets(buf, (int)len, f))
		goto out;
	buf[strcspn(buf, "\n")] = 0;
	ret = 0;
out:
	if (f)
		fclose(f);
	return ret;
}

/*
 * A resolved sysfs directory of a block device (or partition) to the name
 * of its whole device: a partition (it has a `partition` file) belongs to
 * its parent directory.  The name must be listed in /sys/block.  0 or -1.
 */
static int sys_dev_from_sysdir(char *real, char *dev, size_t len)
{
	char probe[PATH_MAX + 16];
	snprintf(probe, sizeof(probe), "%s/partition", real);
	if (access(probe, F_OK) == 0) {
		char *slash = strrchr(real, '/');
		if (!slash || slash == real)
			return -1;
		*slash = 0;
	}
	const char *name = strrchr(real, '/');
	name = name ? name + 1 : real;
	if (!sys_dev_name_valid(name))
		return -1;
	snprintf(dev, len, "%s", name);
	return 0;
}

/* Device number -> whole-device name via /sys/dev/block/MAJ:MIN.  0 or -1. */
static int sys_devnum_disk(unsigned maj, unsigned min, char *dev, size_t len)
{
	char link[PATH_MAX], real[PATH_MAX];
	snprintf(link, sizeof(link), "%s/dev/block/%u:%u", sys_sysfs_root, maj, min);
	if (!realpath(link, real))
		return -1;
	return sys_dev_from_sysdir(real, dev, len);
}

/* The top device holding path: by st_dev, else by the mount's /dev source. */
static int sys_top_device(const char *path, char *dev, size_t len)
{
	char at[PATH_MAX];
	struct stat st;
	struct sys_mount m;

	dev[0] = 0;
	if (sys_existing_path(path, at, sizeof(at)) || stat(at, &st))
		return -1;
	if (major(st.st_dev) != 0 &&
	    sys_devnum_disk(major(st.st_dev), minor(st.st_dev), dev, len) == 0)
		return 0;
	/* anonymous device (btrfs, overlay, nfs...): try the mount's source */
	if (sys_mount_find(at, &m) || strncmp(m.source, "/dev/", 5))
		return -1;
	struct stat src;
	if (stat(m.source, &src) == 0 && S_ISBLK(src.st_mode) &&
	    sys_devnum_disk(major(src.st_rdev), minor(src.st_rdev), dev, len) == 0)
		return 0;
	return -1;
}

int sys_block_device(const char *path, char *dev, size_t len)
{
	return sys_top_device(path, dev, len);
}

/* Does the scheduler file offer a choice: several words, one bracketed? */
static bool sys_queue_has_choice(const char *dev)
{
	char line[SYS_STR];
	if (sys_dev_attr(dev, "queue/scheduler", line, sizeof(line)))
		return false;
	return strchr(line, '[') && strchr(line, ' ');
}

/* Add `name` (reached from `via`) and walk its slaves; depth-limited. */
static int sys_dev_walk(const char *name, const char *via, struct sys_devset *set, int depth,
			char *err, size_t errlen)
{
	char p[PATH_MAX];
	DIR *d = NULL;
	int ret = -1;

	for (size_t i = 0; i < set->n; i++)
		if (!strcmp(set->dev[i].name, name))
			return 0;
	if (set->n == SYS_MAX_DEVS) {
		snprintf(err, errlen, "more than %d block devices to follow", SYS_MAX_DEVS);
		return -1;
	}
	size_t self = set->n++;
	struct sys_dev *dv = &set->dev[self];
	memset(dv, 0, sizeof(*dv));
	snprintf(dv->name, sizeof(dv->name), "%s", name);
	snprintf(dv->via, sizeof(dv->via), "%s", via ? via : "");
	dv->settable = sys_queue_has_choice(name);

	snprintf(p, sizeof(p), "%s/block/%s/slaves", sys_sysfs_root, name);
	d = opendir(p);
	if (!d)
		return 0;   /* no slaves directory: a plain device */
	struct dirent *e;
	while ((e = readdir(d))) {
		char link[PATH_MAX + 2 * NAME_MAX], real[PATH_MAX], slave[SYS_DEV_NAME];
		if (e->d_name[0] == '.' || !sys_safe_word(e->d_name, false))
			continue;
		snprintf(link, sizeof(link), "%s/block/%s/slaves/%s", sys_sysfs_root, name,
			 e->d_name);
		if (!realpath(link, real) || sys_dev_from_sysdir(real, slave, sizeof(slave)))
			continue;
		set->dev[self].stacked = true;
		if (depth >= SYS_DEV_DEPTH) {
			snprintf(err, errlen, "'%s': block devices stacked deeper than %d", name,
				 SYS_DEV_DEPTH);
			goto out;
		}
		if (sys_dev_walk(slave, name, set, depth + 1, err, errlen))
			goto out;
	}
	ret = 0;
out:
	closedir(d);
	return ret;
}

int sys_dev_resolve(const char *path, struct sys_devset *set, char *err, size_t errlen)
{
	char top[SYS_DEV_NAME];
	if (sys_top_device(path, top, sizeof(top))) {
		struct sys_mount m;
		if (sys_mount_find(path, &m) == 0)
			snprintf(err, errlen, "'%s' is on %s (%s), not on a block device", path,
				 m.fs_type, m.source);
		else
			snprintf(err, errlen, "'%s': no block device found", path);
		return -1;
	}
	return sys_dev_walk(top, NULL, set, 0, err, errlen);
}

int sys_dev_add_name(const char *name, struct sys_devset *set, char *err, size_t errlen)
{
	if (!sys_dev_name_valid(name)) {
		snprintf(err, errlen, "'%s' is not a block device listed in /sys/block", name);
		return -1;
	}
	return sys_dev_walk(name, NULL, set, 0, err, errlen);
}
