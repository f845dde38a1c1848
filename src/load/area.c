// SPDX-License-Identifier: GPL-2.0-only
/*
 * The work area: one private root per workload directory, created by us
 * (mkdir, never reused) and removed by us.  Removal walks with openat()
 * and O_NOFOLLOW and unlinks symlinks instead of following them, and
 * checks that each root is still the directory we made (device and inode),
 * so nothing outside the area can be deleted.
 */
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jobmix/load.h"

/* Identity of what we created, kept beside the root paths. */
struct area_ident {
	uint64_t dev, ino;
	struct statx_timestamp btime; /* birth time, where the fs records it */
	uint32_t gen;                 /* inode generation (FS_IOC_GETVERSION), 0 if none */
	bool made_parent;             /* we created the workload dir itself */
};

/*
 * Identity of an open directory or a path.  Inode numbers are reused, and a
 * directory made again within one clock tick has the same birth time, so
 * the inode's generation number counts too where the filesystem keeps one
 * (ext4, xfs, btrfs: a new number for every new inode).
 */
static int ident_of(int dirfd, const char *path, int flags, struct area_ident *id)
{
	struct statx sx;
	if (statx(dirfd, path, flags | AT_SYMLINK_NOFOLLOW, STATX_INO | STATX_BTIME, &sx))
		return -1;
	id->gen = 0;
	int fd = (flags & AT_EMPTY_PATH) && !path[0] ?
		 fcntl(dirfd, F_DUPFD_CLOEXEC, 0) :
		 openat(dirfd, path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0) {
		unsigned int gen = 0;
		if (!ioctl(fd, FS_IOC_GETVERSION, &gen))
			id->gen = gen;
		close(fd);
	}
	id->dev = ((uint64_t)sx.stx_dev_major << 32) | sx.stx_dev_minor;
	id->ino = sx.stx_ino;
	if (sx.stx_mask & STATX_BTIME)
		id->btime = sx.stx_btime;
	else
		memset(&id->btime, 0, sizeof(id->btime));
	return 0;
}

static struct area_ident *idents(const struct load_area *a)
{
	return (struct area_ident *)a->priv;
}

int load_area_create(const struct workload *wl, struct load_area *a, char *err, size_t errlen)
{
	memset(a, 0, sizeof(*a));
	a->roots = calloc(wl->ndirs, sizeof(*a->roots));
	a->priv = calloc(wl->ndirs, sizeof(struct area_ident));
	if (!a->roots || !a->priv) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	for (size_t i = 0; i < wl->ndirs; i++) {
		const char *dir = wl->dirs[i];
		struct stat st;
		bool made = false;
		if (lstat(dir, &st)) {
			if (errno != ENOENT || mkdir(dir, 0755)) {
				snprintf(err, errlen, "work directory '%s': %s", dir, strerror(errno));
				goto fail;
			}
			made = true;
		} else if (!S_ISDIR(st.st_mode)) {
			snprintf(err, errlen, "work directory '%s' is not a directory%s", dir,
				 S_ISLNK(st.st_mode) ? " (a symlink; give the real path)" : "");
			goto fail;
		}
		char root[PATH_MAX];
		int made_root = 0;
		for (unsigned n = 0; n < 1000 && !made_root; n++) {
			if (n)
				snprintf(root, sizeof(root), "%s/jobmix.%ld.%zu.%u", dir,
					 (long)getpid(), i, n);
			else
				snprintf(root, sizeof(root), "%s/jobmix.%ld.%zu", dir, (long)getpid(), i);
			if (!mkdir(root, 0700))
				made_root = 1;
			else if (errno != EEXIST)
				break;
		}
		if (!made_root) {
			snprintf(err, errlen, "cannot create a work area in '%s': %s", dir, strerror(errno));
			if (made)
				rmdir(dir);
			goto fail;
		}
		struct area_ident id = { .made_parent = made };
		if (ident_of(AT_FDCWD, root, 0, &id)) {
			snprintf(err, errlen, "work area '%s': %s", root, strerror(errno));
			goto fail;
		}
		a->roots[i] = strdup(root);
		idents(a)[i] = id;
		a->n = i + 1;
	}
	return 0;
fail:
	load_area_remove(a);
	return -1;
}

/* walk_dir action: remove the entry (a directory is empty by then). */
static int unlink_entry(int pfd, const char *name, bool is_dir)
{
	return unlinkat(pfd, name, is_dir ? AT_REMOVEDIR : 0);
}

/* walk_dir action: fsync a regular file and drop its cached pages. */
static int settle_entry(int pfd, const char *name, bool is_dir)
{
	if (is_dir)
		return 0;
	int fd = openat(pfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	int ret = fd < 0 || fdatasync(fd) || posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) ? -1 : 0;
	if (fd >= 0)
		close(fd);
	return ret;
}

/*
 * Walk the directory open at dfd (consumed) depth first, never following
 * links: each subdirectory is walked, then act(parent fd, name, is_dir) is
 * called for it; each other entry (with regular_only, each regular file:
 * never a fifo to block on) gets act(parent fd, name, false).  -1 if
 * anything failed (the walk goes on).
 */
static int walk_dir(int dfd, bool regular_only,
		    int (*act)(int pfd, const char *name, bool is_dir))
{
	int ret = 0;
	DIR *d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return -1;
	}
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		struct stat st;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW))
			continue;
		bool is_dir = S_ISDIR(st.st_mode);
		if (is_dir) {
			int sub = openat(dirfd(d), e->d_name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub < 0 || walk_dir(sub, regular_only, act))
				ret = -1;
		} else if (regular_only && !S_ISREG(st.st_mode)) {
			continue;
		}
		if (act(dirfd(d), e->d_name, is_dir))
			ret = -1;
	}
	closedir(d);
	return ret;
}

/* Remove every entry of the directory open at dfd, never following links. */
static int clear_dir(int dfd)
{
	return walk_dir(dfd, false, unlink_entry);
}

/* Open root i if it is still the directory we created. */
static int open_root(const struct load_area *a, size_t i)
{
	int fd = open(a->roots[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	struct area_ident now, *was = &idents(a)[i];
	if (ident_of(fd, "", AT_EMPTY_PATH, &now) || now.dev != was->dev || now.ino != was->ino ||
	    now.btime.tv_sec != was->btime.tv_sec || now.btime.tv_nsec != was->btime.tv_nsec ||
	    now.gen != was->gen) {
		close(fd);
		errno = ESTALE;
		return -1;
	}
	return fd;
}

/* fsync then drop the cached pages of every regular file below dfd (links not followed). */
static int settle_dir(int dfd)
{
	return walk_dir(dfd, true, settle_entry);
}

int load_area_settle(struct load_area *a)
{
	int ret = 0;
	for (size_t i = 0; i < a->n; i++) {
		int fd = open_root(a, i);
		if (fd < 0) {
			ret = -1;
			continue;
		}
		if (syncfs(fd))
			ret = -1;
		if (settle_dir(fd))
			ret = -1;
	}
	return ret;
}

int load_area_clear(struct load_area *a)
{
	int ret = 0;
	for (size_t i = 0; i < a->n; i++) {
		int fd = open_root(a, i);
		if (fd < 0 || clear_dir(fd))
			ret = -1;
	}
	return ret;
}

int load_area_remove(struct load_area *a)
{
	int ret = 0;
	for (size_t i = 0; i < a->n; i++) {
		int fd = open_root(a, i);
		if (fd >= 0) {
			if (clear_dir(fd) || rmdir(a->roots[i]))
				ret = -1;
		} else if (errno != ENOENT) {
			ret = -1;
		}
		if (idents(a)[i].made_parent) {
			char *parent = strdup(a->roots[i]);
			char *slash = parent ? strrchr(parent, '/') : NULL;
			if (slash) {
				*slash = 0;
				rmdir(parent); /* only if empty: we made it, others may have used it */
			}
			free(parent);
		}
	}
	for (size_t i = 0; a->roots && i < a->n; i++)
		free(a->roots[i]);
	free(a->roots);
	free(a->priv);
	memset(a, 0, sizeof(*a));
	return ret;
}
