// SPDX-License-Identifier: GPL-2.0-only
/*
 * disk_src: AIM7's directory search, re-aim's work.  Once per work
 * directory and load point the parent makes a tree of re-aim's shape (its
 * fakeh: 24 directories, 8 of them holding 40 empty files each) with a
 * `dirlist` file naming 57 files to stat and 43 to create.  Each job reads
 * and parses that list, shuffles both lists into 75 slots, and per slot
 * stats a file and/or creates, closes and unlinks a per-user name, all in
 * the tree shared by the directory's users.  re-aim did this after a
 * chdir() into the tree; users may be threads (the working directory is
 * the process's), so every call here is relative to a descriptor of the
 * tree's root (fstatat, openat, unlinkat): the same lookups, no chdir.
 * The tree is made and opened beneath the held shared directory, one
 * component at a time with O_NOFOLLOW; paths are built only for messages.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jobmix/job.h"
#include "jobmix/rng.h"

#define SRC_SLOTS 75      /* re-aim's MFILES: slots per list                 */
#define SRC_SCRAMBLE 5    /* re-aim's MSCR: shuffle passes over each list    */
#define SRC_FILES 40      /* fake00..fake39 in each leaf of the tree         */
#define SRC_LISTED 34     /* files of each leaf also named in the listing    */
#define SRC_NAME 128
#define SRC_LIST_MAX 16384

/*
 * The leaves of re-aim's tree (the directories above them are made too)
 * and how many of their names its dirlist gives to stat and to create.
 */
static const struct src_leaf {
	const char *dir;
	unsigned stats, creates;
} src_leaves[] = {
	{ ".", 8, 0 },
	{ "./bin", 6, 7 },
	{ "./usr/spool/uucp/XTMP", 7, 6 },
	{ "./usr/ja/sun.rex628/src/man/man1", 7, 6 },
	{ "./usr/steiny/bin/src/bied", 6, 6 },
	{ "./usr/tony", 7, 5 },
	{ "./usr/dist/Tuner/sccs/source", 8, 6 },
	{ "./usr/ja.apr17/port/tools/compress", 8, 7 },
};
#define SRC_NLEAVES (sizeof(src_leaves) / sizeof(src_leaves[0]))

/* The files of a leaf its dirlist names for stat (re-aim's picks). */
static const unsigned src_stat_files[] = { 4, 8, 14, 18, 24, 28, 34, 38 };

enum { SRC_STAT, SRC_CREAT };

#define SRC_ROOT 32

/* Per user: the tree's name, the list file's text, the parsed names and the two slot lists. */
struct src_state {
	char root[SRC_ROOT];
	char text[SRC_LIST_MAX];
	char names[2][SRC_SLOTS][SRC_NAME];
	const char *slot[2][SRC_SLOTS];
};

/* The tree's root: "disk_src.<entry>" in the shared directory. */
static char *src_root(char *buf, size_t len, unsigned entry)
{
	snprintf(buf, len, "disk_src.%u", entry);
	return buf;
}

/* prepare()'s failure on rel (below the tree's root); returns -1. */
static int src_prep_fail(struct job_prep *p, const char *op, const char *root, const char *rel,
			 int err)
{
	char where[PATH_MAX];
	snprintf(where, sizeof(where), "%s%s%s", root, root[0] && rel[0] ? "/" : "", rel);
	return job_prep_fail_at(p, op, where, err);
}

/*
 * mkdir -p of rel below the directory open at rootfd, a component at a
 * time, each made with mkdirat and opened with O_NOFOLLOW beneath the one
 * above; the descriptor of the last (the caller closes it), or -1.
 */
static int src_mkdirs(struct job_prep *p, int rootfd, const char *root, const char *rel)
{
	char comp[PATH_MAX];
	int fd = fcntl(rootfd, F_DUPFD_CLOEXEC, 0);
	if (fd < 0)
		return src_prep_fail(p, "dup", root, "", errno);
	for (const char *c = rel; *c;) {
		size_t n = strcspn(c, "/");
		snprintf(comp, sizeof(comp), "%.*s", (int)n, c);
		int e = mkdirat(fd, comp, 0700) && errno != EEXIST ? errno : 0;
		int sub = e ? -1 : openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0) {
			e = e ? e : errno;
			close(fd);
			snprintf(comp, sizeof(comp), "%.*s", (int)(c - rel + n), rel);
			return src_prep_fail(p, "mkdir", root, comp, e);
		}
		close(fd);
		fd = sub;
		c += n;
		c += *c == '/';
	}
	return fd;
}

/* Create (or truncate) one empty file beneath dfd. */
static int src_touch(struct job_prep *p, int dfd, const char *name, const char *root,
		     const char *rel)
{
	int fd = openat(dfd, name, O_CREAT | O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	char where[PATH_MAX];
	if (fd < 0 || close(fd)) {
		int e = errno;
		snprintf(where, sizeof(where), "%s%s%s", rel, rel[0] ? "/" : "", name);
		return src_prep_fail(p, fd < 0 ? "create" : "close", root, where, e);
	}
	return 0;
}

/*
 * The list, in re-aim's dirlist format: a listing of the tree ("./path"
 * lines, 282 of them), among them per leaf "c <name>" lines for names to
 * create and "s <name>" lines for files to stat (43 and 57 in all).
 */
static int src_write_list(struct job_prep *p, int rootfd, const char *root)
{
	int fd = openat(rootfd, "dirlist", O_CREAT | O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
			0600);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		return src_prep_fail(p, "create", root, "dirlist", e);
	}
	fprintf(f, ".\n./dirlist\n./usr\n");
	for (size_t l = 0; l < SRC_NLEAVES; l++) {
		const struct src_leaf *d = &src_leaves[l];
		if (l)
			fprintf(f, "%s\n", d->dir);
		for (unsigned i = 0; i < SRC_LISTED; i++)
			fprintf(f, "%s/fake%02u\n", d->dir, i);
		for (unsigned i = 0; i < d->creates; i++)
			fprintf(f, "c %s/notexist%u\n", d->dir, i + 1);
		for (unsigned i = 0; i < d->stats; i++)
			fprintf(f, "s %s/fake%02u\n", d->dir, src_stat_files[i]);
	}
	int err = ferror(f) ? EIO : 0;
	if (fclose(f) && !err)
		err = errno;
	return err ? src_prep_fail(p, "write", root, "dirlist", err) : 0;
}

/*
 * In the parent, once per work directory and load point: the tree and its
 * list, flushed with syncfs so that no user pays for their writeback.
 */
static int src_prepare(struct job_prep *p, const struct job_kind *k, const void *params)
{
	(void)k, (void)params;
	char root[SRC_ROOT], name[16];
	src_root(root, sizeof(root), p->entry);
	int rootfd = src_mkdirs(p, p->shared_fd, "", root);
	if (rootfd < 0)
		return -1;
	int ret = -1;
	for (size_t l = 0; l < SRC_NLEAVES; l++) {
		const char *rel = l ? src_leaves[l].dir + 2 : "";
		int dfd = src_mkdirs(p, rootfd, root, rel);
		if (dfd < 0)
			goto out;
		for (unsigned i = 0; i < SRC_FILES; i++) {
			snprintf(name, sizeof(name), "fake%02u", i);
			if (src_touch(p, dfd, name, root, rel)) {
				close(dfd);
				goto out;
			}
		}
		close(dfd);
	}
	if (src_write_list(p, rootfd, root))
		goto out;
	if (syncfs(rootfd)) {
		src_prep_fail(p, "syncfs", root, "", errno);
		goto out;
	}
	ret = 0;
out:
	close(rootfd);
	return ret;
}

static int src_setup(struct job_ctx *c, const struct job_kind *k, const void *params,
		     void **state)
{
	(void)k, (void)params;
	struct src_state *s = malloc(sizeof(*s));
	if (!s)
		return job_fail(c, "allocate the name lists", NULL, ENOMEM);
	src_root(s->root, sizeof(s->root), c->entry);
	*state = s;
	return 0;
}

/* A failure on name (below the tree's root, in the shared directory); returns -1. */
static int src_fail(struct job_ctx *c, const struct src_state *s, const char *op,
		    const char *name, int err)
{
	char where[PATH_MAX];
	snprintf(where, sizeof(where), "%s/%s", s->root, name);
	return job_fail_at(c, op, c->shared_dir, where, err);
}

/*
 * Read the list (4 KiB reads, as stdio's) and parse it as re-aim's
 * get_list: "s " lines to the stat list, "c " lines, made per-user, to the
 * create list, other lines skipped; unused slots stay empty.
 */
static int src_read_list(struct job_ctx *c, struct src_state *s, int dfd)
{
	int fd = openat(dfd, "dirlist", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return src_fail(c, s, "open", "dirlist", errno);
	size_t len = 0;
	for (;;) {
		size_t want = sizeof(s->text) - 1 - len;
		ssize_t n = read(fd, s->text + len, want < 4096 ? want : 4096);
		if (n < 0) {
			int e = errno;
			close(fd);
			return src_fail(c, s, "read", "dirlist", e);
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len == sizeof(s->text) - 1) {
			close(fd);
			return job_failf(c, "'%s/%s/dirlist' is larger than %d bytes", c->shared_dir,
					 s->root, SRC_LIST_MAX - 1);
		}
	}
	close(fd);
	s->text[len] = '\0';
	unsigned n[2] = { 0, 0 };
	memset(s->slot, 0, sizeof(s->slot));
	for (char *line = s->text, *end; *line; line = end) {
		end = strchrnul(line, '\n');
		size_t ll = (size_t)(end - line);
		if (*end)
			end++;
		if (ll < 3 || (line[0] != 's' && line[0] != 'c') || line[1] != ' ')
			continue;
		int which = line[0] == 's' ? SRC_STAT : SRC_CREAT;
		if (n[which] == SRC_SLOTS)
			return job_failf(c, "'%s/%s/dirlist' names more than %d files to %s",
					 c->shared_dir, s->root, SRC_SLOTS,
					 which == SRC_STAT ? "stat" : "create");
		char *name = s->names[which][n[which]];
		int w = which == SRC_STAT
			? snprintf(name, SRC_NAME, "%.*s", (int)ll - 2, line + 2)
			: snprintf(name, SRC_NAME, "%.*s.u%u", (int)ll - 2, line + 2, c->user);
		if (w >= SRC_NAME)
			return job_failf(c, "'%s/%s/dirlist': name too long", c->shared_dir,
					 s->root);
		s->slot[which][n[which]++] = name;
	}
	return 0;
}

/* re-aim's scramble: SRC_SCRAMBLE passes, each slot swapped with a random one. */
static void src_scramble(struct job_ctx *c, const char **list)
{
	for (int pass = 0; pass < SRC_SCRAMBLE; pass++)
		for (unsigned i = 0; i < SRC_SLOTS; i++) {
			unsigned r = (unsigned)jm_rng_below(c->rng, SRC_SLOTS);
			const char *t = list[i];
			list[i] = list[r];
			list[r] = t;
		}
}

/*
 * One slot: stat its file, then create, close and unlink its new name.
 * The names are below the tree's root, whose directories jobmix made in
 * its own 0700 area; the last component is never followed.
 */
static int src_slot(struct job_ctx *c, const struct src_state *s, int dfd,
		    const char *stat_name, const char *new_name)
{
	struct stat st;
	if (stat_name && fstatat(dfd, stat_name, &st, AT_SYMLINK_NOFOLLOW))
		return src_fail(c, s, "stat", stat_name, errno);
	if (!new_name)
		return 0;
	int fd = openat(dfd, new_name, O_CREAT | O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0777);
	if (fd < 0)
		return src_fail(c, s, "create", new_name, errno);
	if (close(fd))
		return src_fail(c, s, "close", new_name, errno);
	if (unlinkat(dfd, new_name, 0))
		return src_fail(c, s, "unlink", new_name, errno);
	return 0;
}

static int src_run(struct job_ctx *c, const struct job_kind *k, const void *params, void *state)
{
	(void)k, (void)params;
	struct src_state *s = state;
	int dfd = openat(c->shared_fd, s->root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return job_fail_at(c, "open", c->shared_dir, s->root, errno);
	int ret = src_read_list(c, s, dfd);
	if (!ret) {
		src_scramble(c, s->slot[SRC_STAT]);
		src_scramble(c, s->slot[SRC_CREAT]);
	}
	const uint64_t slots = job_scaled(c, SRC_SLOTS);   /* re-aim's list, again from its top */
	for (uint64_t n = 0; !ret && n < slots; n++) {
		unsigned i = (unsigned)(n % SRC_SLOTS);
		ret = src_slot(c, s, dfd, s->slot[SRC_STAT][i], s->slot[SRC_CREAT][i]);
	}
	close(dfd);
	return ret;
}

const struct job_kind job_disk_src = {
	.name = "disk_src",
	.family = "disk",
	.summary = "re-aim's directory search: parse a 382-line list, 57 stats, 43 create+unlink",
	.doc = "AIM7 disk_src, re-aim's work. A tree of re-aim's shape (its fakeh: 24 "
	       "directories, 8 with 40 empty files, up to 6 levels deep) and its list file "
	       "(382 lines, 10 KiB) are made once per work directory and load point before the "
	       "users start, and shared by the directory's users. Each job opens the tree, reads "
	       "the list and parses it (57 names to stat, 43 to create, made per user), shuffles "
	       "each list into 75 slots (5 passes of 75 swaps), and per slot stats its file "
	       "and/or creates, closes and unlinks its name. Differences from re-aim: the calls "
	       "are relative to a descriptor of the tree (fstatat, openat, unlinkat) instead of "
	       "a chdir() into it, which users that are threads would share; the list is read "
	       "into a per-user buffer with read(2) instead of stdio and malloc; new names carry "
	       "the user index, so they cannot collide (re-aim used pid % 100000).",
	.flags = JOB_DISK,
	.prepare = src_prepare,
	.setup = src_setup,
	.run_once = src_run,
	.teardown = job_free_state,
};
