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

static int clear_dir(int dfd, const char *keep);

/* ---- the marker: who owns an area --------------------------------------- */

/* An owner is a process of one boot: pid, start time (clock ticks), boot id. */
struct area_owner {
	long pid;
	unsigned long long start;
	char boot[40];
};

/* A small text file (at dfd, links not followed) into buf; its length, or -1. */
static ssize_t read_text(int dfd, const char *path, char *buf, size_t len)
{
	int fd = openat(dfd, path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	return n;
}

/* The start time of pid from /proc/<pid>/stat (field 22); -1 if it is gone. */
static int proc_start_time(long pid, unsigned long long *start)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if (read_text(AT_FDCWD, path, buf, sizeof(buf)) < 0)
		return -1;
	char *p = strrchr(buf, ')'); /* the command name may hold spaces and parens */
	if (!p)
		return -1;
	/* after ")": field 3 (state) onwards; the start time is field 22 */
	p++;
	for (int field = 3; field < 22; field++) {
		p = strchr(p + 1, ' ');
		if (!p)
			return -1;
	}
	return sscanf(p, " %llu", start) == 1 ? 0 : -1;
}

static int boot_id(char *buf, size_t len)
{
	if (read_text(AT_FDCWD, "/proc/sys/kernel/random/boot_id", buf, len) < 0)
		return -1;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

static int self_owner(struct area_owner *o)
{
	o->pid = (long)getpid();
	return proc_start_time(o->pid, &o->start) || boot_id(o->boot, sizeof(o->boot)) ? -1 : 0;
}

/* Is the owner still running (same boot, same pid, same start time)? */
static bool owner_alive(const struct area_owner *o)
{
	char boot[40];
	unsigned long long start;
	if (boot_id(boot, sizeof(boot)) || strcmp(boot, o->boot))
		return false;
	return !proc_start_time(o->pid, &start) && start == o->start;
}

static int write_marker(const char *root, const struct area_owner *o)
{
	char path[PATH_MAX], text[160];
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", root, LOAD_AREA_MARKER) >= sizeof(path))
		return -1;
	int len = snprintf(text, sizeof(text), "jobmix-area 1\npid %ld\nstart %llu\nboot %s\n",
			   o->pid, o->start, o->boot);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	int ret = write(fd, text, (size_t)len) == len ? 0 : -1;
	if (close(fd))
		ret = -1;
	return ret;
}

/* The owner named by the marker in the directory open at dfd; -1 if none. */
static int read_marker(int dfd, struct area_owner *o)
{
	char text[256];
	if (read_text(dfd, LOAD_AREA_MARKER, text, sizeof(text)) < 0)
		return -1;
	return sscanf(text, "jobmix-area 1\npid %ld\nstart %llu\nboot %39s\n", &o->pid,
		      &o->start, o->boot) == 3 ? 0 : -1;
}

/*
 * Remove the areas under dir whose marker names an owner that is gone (a
 * jobmix killed with SIGKILL, or a reboot).  Only "jobmix.*" directories
 * holding a marker are touched; links are never followed.
 */
static void remove_stale(const char *dir, struct load_area *a)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return;
	DIR *d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return;
	}
	struct dirent *e;
	while ((e = readdir(d))) {
		struct area_owner o;
		if (strncmp(e->d_name, "jobmix.", 7))
			continue;
		int sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0)
			continue;
		if (read_marker(sub, &o) || owner_alive(&o)) {
			close(sub);
			continue;
		}
		if (clear_dir(sub, NULL) || unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR))
			continue;
		if (!a->stale_removed++)
			snprintf(a->stale_note, sizeof(a->stale_note),
				 "removed the work area '%s/%s' that jobmix pid %ld left (no longer "
				 "running)", dir, e->d_name, o.pid);
	}
	closedir(d);
}

/* ---- which directories may be work directories --------------------------- */

/*
 * Refused outright, and (the second list) with everything below them.
 * Scratch places (/tmp, /var/tmp, /mnt, /dev/shm) are fine: jobmix works in
 * a private directory it makes there and removes only that.
 */
static const char *const system_dirs[] = { "/", "/home", "/root", "/run", "/var", "/srv",
					   "/opt", NULL };
static const char *const system_trees[] = { "/bin", "/boot", "/dev", "/etc", "/lib",
					    "/lib32", "/lib64", "/libx32", "/proc", "/sbin",
					    "/sys", "/usr", NULL };

static bool below(const char *path, const char *top)
{
	size_t n = strlen(top);
	return !strncmp(path, top, n) && (path[n] == '/' || !path[n]);
}

int load_workdir_check(const char *dir, char *err, size_t errlen)
{
	char path[PATH_MAX], norm[PATH_MAX];
	if (!dir[0]) {
		snprintf(err, errlen, "work directory: an empty path");
		return -1;
	}
	if (dir[0] == '/') {
		snprintf(path, sizeof(path), "%s", dir);
	} else {
		char cwd[PATH_MAX];
		if (!getcwd(cwd, sizeof(cwd)) ||
		    (size_t)snprintf(path, sizeof(path), "%s/%s", cwd, dir) >= sizeof(path)) {
			snprintf(err, errlen, "work directory '%s': path too long", dir);
			return -1;
		}
	}
	/*
	 * Each existing component, as the kernel would resolve it: none may be
	 * a symlink (with none, ".." can then be resolved by name below).
	 */
	size_t n = strlen(path), nlen = 0;
	norm[0] = 0;
	for (size_t i = 0; i < n;) {
		while (path[i] == '/')
			i++;
		size_t j = i;
		while (j < n && path[j] != '/')
			j++;
		if (j == i)
			break;
		char c = path[j];
		path[j] = 0;
		struct stat st;
		if (!lstat(path, &st) && S_ISLNK(st.st_mode)) {
			char to[PATH_MAX];
			ssize_t l = readlink(path, to, sizeof(to) - 1);
			to[l > 0 ? l : 0] = 0;
			snprintf(err, errlen,
				 "work directory '%s' is reached through the symlink '%s' (-> %s): "
				 "give the real path", dir, path, to);
			return -1;
		}
		const char *comp = path + i;
		path[j] = c;
		if (j - i == 1 && comp[0] == '.') {
			/* nothing */
		} else if (j - i == 2 && comp[0] == '.' && comp[1] == '.') {
			char *slash = strrchr(norm, '/');
			nlen = slash ? (size_t)(slash - norm) : 0;
			norm[nlen] = 0;
		} else {
			nlen += (size_t)snprintf(norm + nlen, sizeof(norm) - nlen, "/%.*s",
						 (int)(j - i), comp);
		}
		i = j;
	}
	if (!nlen)
		snprintf(norm, sizeof(norm), "/");
	for (size_t k = 0; system_dirs[k]; k++)
		if (!strcmp(norm, system_dirs[k])) {
			snprintf(err, errlen, "work directory '%s' is the system directory %s: give a "
				 "directory of its own (e.g. %s/jobmix)", dir, norm,
				 strcmp(norm, "/") ? norm : "/var/tmp");
			return -1;
		}
	for (size_t k = 0; system_trees[k]; k++)
		if (below(norm, system_trees[k]) && !below(norm, "/dev/shm")) {
			snprintf(err, errlen, "work directory '%s' is in the system directory %s",
				 dir, system_trees[k]);
			return -1;
		}
	return 0;
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
	struct area_owner owner;
	if (self_owner(&owner)) {
		snprintf(err, errlen, "cannot read this process's start time and boot id in /proc");
		goto fail;
	}
	for (size_t i = 0; i < wl->ndirs; i++) {
		const char *dir = wl->dirs[i];
		struct stat st;
		bool made = false;
		if (lstat(dir, &st)) {
			if (errno != ENOENT || mkdir(dir, 0700)) {
				snprintf(err, errlen, "work directory '%s': %s", dir, strerror(errno));
				goto fail;
			}
			made = true;
		} else if (!S_ISDIR(st.st_mode)) {
			snprintf(err, errlen, "work directory '%s' is not a directory%s", dir,
				 S_ISLNK(st.st_mode) ? " (a symlink; give the real path)" : "");
			goto fail;
		}
		if (!made)
			remove_stale(dir, a);
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
		/* ours only once identified and marked; until then undone here */
		struct area_ident id = { .made_parent = made };
		char *copy = strdup(root);
		if (!copy || ident_of(AT_FDCWD, root, 0, &id) || write_marker(root, &owner)) {
			int e = copy ? errno : ENOMEM;
			char marker[PATH_MAX + 32];
			free(copy);
			snprintf(marker, sizeof(marker), "%s/%s", root, LOAD_AREA_MARKER);
			unlink(marker);
			rmdir(root);
			if (made)
				rmdir(dir);
			snprintf(err, errlen, "work area '%s': %s", root, strerror(e));
			goto fail;
		}
		a->roots[i] = copy;
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
 * never a fifo to block on) gets act(parent fd, name, false).  An entry of
 * dfd itself named keep is passed over.  -1 if anything failed (the walk
 * goes on).
 */
static int walk_dir(int dfd, bool regular_only, const char *keep,
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
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
		    (keep && !strcmp(e->d_name, keep)))
			continue;
		struct stat st;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW))
			continue;
		bool is_dir = S_ISDIR(st.st_mode);
		if (is_dir) {
			int sub = openat(dirfd(d), e->d_name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub < 0 || walk_dir(sub, regular_only, NULL, act))
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

/* Remove every entry of the directory open at dfd but keep, never following links. */
static int clear_dir(int dfd, const char *keep)
{
	return walk_dir(dfd, false, keep, unlink_entry);
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
	return walk_dir(dfd, true, NULL, settle_entry);
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
		if (fd < 0 || clear_dir(fd, LOAD_AREA_MARKER))
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
			if (clear_dir(fd, NULL) || rmdir(a->roots[i]))
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
