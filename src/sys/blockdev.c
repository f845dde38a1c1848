// SPDX-License-Identifier: GPL-2.0-only
/*
 * Block devices: which whole disk under /sys/block holds a path, and the IO
 * scheduler it lists.  Everything here only reads /sys, /proc and /dev.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "jobmix/sys.h"
#include "sys_int.h"

bool sys_dev_name_valid(const char *dev)
{
	if (!dev || !dev[0] || strlen(dev) > NAME_MAX)
		return false;
	if (!strcmp(dev, ".") || !strcmp(dev, "..") || strstr(dev, ".."))
		return false;
	for (const char *c = dev; *c; c++) {
		bool ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
			  (*c >= '0' && *c <= '9') || *c == '.' || *c == '_' || *c == '-';
		if (!ok)
			return false;
	}
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "/sys/block/%s", dev);
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/*
 * Map a block device number to its whole-disk name: /sys/dev/block/MAJ:MIN
 * resolves into the device tree; a partition (it has a `partition` file)
 * belongs to its parent directory's disk.  The name must exist under
 * /sys/block.  0 or -1.
 */
static int sys_devnum_disk(unsigned maj, unsigned min, char *dev, size_t len)
{
	char link[64], real[PATH_MAX], probe[PATH_MAX + 16];
	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", maj, min);
	if (!realpath(link, real))
		return -1;
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

int sys_block_device(const char *path, char *dev, size_t len)
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
	const char *base = strrchr(m.source, '/') + 1;
	if (!sys_dev_name_valid(base))
		return -1;
	snprintf(dev, len, "%s", base);
	return 0;
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
	char p[PATH_MAX], line[1024];
	int ret = -1;
	FILE *f = NULL;

	if (alen)
		active[0] = 0;
	if (all_len)
		all[0] = 0;
	if (!sys_dev_name_valid(dev))
		goto out;
	snprintf(p, sizeof(p), "/sys/block/%s/queue/scheduler", dev);
	f = fopen(p, "re");
	if (!f || !fgets(line, sizeof(line), f))
		goto out;

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
	ret = 0;
out:
	if (f)
		fclose(f);
	return ret;
}
