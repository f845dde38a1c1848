// SPDX-License-Identifier: GPL-2.0-only
/*
 * disk_src: AIM7's directory search.  A small source-like tree (25
 * directories, 320 files) is made once per work directory before the users
 * start; each job then runs 75 shuffled slots of name lookups and
 * create+close+unlink of per-user names, and leaves nothing behind.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jobmix/job.h"

#define SRC_TOP 5    /* s0..s4 under the tree's root       */
#define SRC_SUB 4    /* d0..d3 under each: 5 + 20 = 25 dirs */
#define SRC_FILES 16 /* f00.c..f15.c in each leaf: 320 files */

#define SRC_SLOTS 75
#define SRC_STATS 45        /* stat of a known file                        */
#define SRC_CREATE_USER 15  /* create+close+unlink in the user's directory */
/* the rest: stat (a miss) then create+close+unlink of a per-user name in the tree */

enum src_slot { SRC_STAT, SRC_NEW_USER, SRC_NEW_TREE };

/* The tree's root: "<shared_dir>/disk_src.<entry>". */
static char *src_root(char *buf, const char *shared_dir, unsigned entry)
{
	snprintf(buf, PATH_MAX, "%s/disk_src.%u", shared_dir, entry);
	return buf;
}

static char *src_dir(char *buf, const char *root, unsigned top, unsigned sub)
{
	snprintf(buf, PATH_MAX, "%s/s%u/d%u", root, top, sub);
	return buf;
}

static int src_mkdir(struct job_prep *p, const char *path)
{
	if (mkdir(path, 0700) && errno != EEXIST)
		return job_prep_fail(p, "mkdir", path, errno);
	return 0;
}

/* Make (or rewrite) one small file of the tree. */
static int src_make_file(struct job_prep *p, const char *path)
{
	int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return job_prep_fail(p, "create", path, errno);
	char text[PATH_MAX + 32];
	int n = snprintf(text, sizeof(text), "/* jobmix disk_src: %s */\n", path);
	int ret = 0;
	if (job_write_all(fd, text, (size_t)n) < 0)
		ret = job_prep_fail(p, "write", path, errno);
	if (close(fd) && !ret)
		ret = job_prep_fail(p, "close", path, errno);
	return ret;
}

/*
 * In the parent, once per work directory and load point: the tree, flushed
 * with syncfs so that no user pays for its writeback.
 */
static int src_prepare(struct job_prep *p, const struct job_kind *k, const void *params)
{
	(void)k, (void)params;
	char root[PATH_MAX], path[PATH_MAX], dir[PATH_MAX];
	src_root(root, p->shared_dir, p->entry);
	if (src_mkdir(p, root))
		return -1;
	for (unsigned t = 0; t < SRC_TOP; t++) {
		snprintf(path, sizeof(path), "%s/s%u", root, t);
		if (src_mkdir(p, path))
			return -1;
		for (unsigned s = 0; s < SRC_SUB; s++) {
			if (src_mkdir(p, src_dir(dir, root, t, s)))
				return -1;
			for (unsigned f = 0; f < SRC_FILES; f++) {
				snprintf(path, sizeof(path), "%s/f%02u.c", dir, f);
				if (src_make_file(p, path))
					return -1;
			}
		}
	}
	int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return job_prep_fail(p, "open", root, errno);
	int ret = 0;
	if (syncfs(fd))
		ret = job_prep_fail(p, "syncfs", root, errno);
	close(fd);
	return ret;
}

/* Create, close and unlink one name. */
static int src_create_unlink(struct job_ctx *c, const char *path)
{
	int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0600);
	if (fd < 0)
		return job_fail(c, "create", path, errno);
	int ret = 0;
	if (close(fd))
		ret = job_fail(c, "close", path, errno);
	if (unlink(path) && !ret)
		ret = job_fail(c, "unlink", path, errno);
	return ret;
}

/* One slot; `i` makes the per-user names of this job distinct. */
static int src_slot(struct job_ctx *c, const char *root, enum src_slot what, unsigned i)
{
	char dir[PATH_MAX], path[PATH_MAX], leaf[64];
	struct stat st;
	unsigned t = (unsigned)jm_rng_below(c->rng, SRC_TOP);
	unsigned s = (unsigned)jm_rng_below(c->rng, SRC_SUB);
	src_dir(dir, root, t, s);

	switch (what) {
	case SRC_STAT:
		snprintf(leaf, sizeof(leaf), "f%02u.c", (unsigned)jm_rng_below(c->rng, SRC_FILES));
		if (stat(job_path(path, dir, leaf), &st))
			return job_fail(c, "stat", path, errno);
		return 0;
	case SRC_NEW_USER:
		snprintf(leaf, sizeof(leaf), "disk_src.new.%u", i);
		return src_create_unlink(c, job_own_path(path, c, leaf));
	case SRC_NEW_TREE:
		/* the user index makes the name unique among all users of the run */
		snprintf(leaf, sizeof(leaf), ".jm-u%u.%u.c", c->user, i);
		job_path(path, dir, leaf);
		if (stat(path, &st) && errno != ENOENT)
			return job_fail(c, "stat", path, errno);
		return src_create_unlink(c, path);
	}
	return 0;
}

/* 75 slots in an order shuffled with the user's RNG. */
static int src_run(struct job_ctx *c, const struct job_kind *k, const void *params, void *state)
{
	(void)k, (void)params, (void)state;
	enum src_slot slots[SRC_SLOTS];
	char root[PATH_MAX];
	for (unsigned i = 0; i < SRC_SLOTS; i++)
		slots[i] = i < SRC_STATS ? SRC_STAT
			 : i < SRC_STATS + SRC_CREATE_USER ? SRC_NEW_USER : SRC_NEW_TREE;
	for (unsigned i = SRC_SLOTS - 1; i > 0; i--) {
		unsigned r = (unsigned)jm_rng_below(c->rng, i + 1);
		enum src_slot tmp = slots[i];
		slots[i] = slots[r];
		slots[r] = tmp;
	}
	src_root(root, c->shared_dir, c->entry);
	for (unsigned i = 0; i < SRC_SLOTS; i++)
		if (src_slot(c, root, slots[i], i))
			return -1;
	return 0;
}

const struct job_kind job_disk_src = {
	.name = "disk_src",
	.family = "disk",
	.summary = "75 shuffled lookups and create+unlink in a 25-dir, 320-file tree",
	.doc = "AIM7 disk_src (directory search). A tree of 25 directories and 320 small "
	       "files is made once per work directory and load point before the users "
	       "start. Each job runs 75 slots in an order shuffled with the user's RNG: 45 "
	       "stat calls of known files in random directories of the tree, 15 "
	       "create+close+unlink of a name in the user's own directory, and 15 lookups "
	       "(a miss) followed by create+close+unlink of a per-user name in a random "
	       "directory of the tree. Nothing is left behind. Fixes over re-aim: no "
	       "tarball is unpacked; names carry the user index, so they cannot collide "
	       "(re-aim used pid % 100000).",
	.flags = JOB_DISK,
	.prepare = src_prepare,
	.run_once = src_run,
};
