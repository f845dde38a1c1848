// SPDX-License-Identifier: GPL-2.0-only
/*
 * The work area: one private root per workload directory, created by us
 * (mkdir, never reused) and removed by us.  Everything is done beneath
 * descriptors held from the start: the work directory's parent, the work
 * directory and each root are opened once, a component at a time with
 * O_NOFOLLOW, and every later call (the marker, clearing between points,
 * settling, removal, the users' directories) is an *at() call beneath
 * them, never a path through the work directory.  A directory above it
 * that is moved away and replaced (a tree of symlinks under the names jobs
 * use) is then never seen.  Removal walks with openat() and O_NOFOLLOW,
 * unlinks symlinks instead of following them, and only while the work
 * directory's entry still names the root we made; it runs in a child
 * process that the caller waits for a bounded time (a frozen filesystem
 * cannot hang the run).
 */
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "jobmix/load.h"

/* What we hold of one root, beside its path and descriptor. */
struct area_root {
	int wd_fd;                    /* the work directory (the root's parent) */
	int up_fd;                    /* the work directory's parent, if we remove it too */
	char leaf[64];                /* the root's name in the work directory */
	char *wd_leaf;                /* the work directory's name in its parent */
	dev_t dev, wd_dev;
	ino_t ino, wd_ino;
	bool made_parent;             /* we created the work directory (or took it over) */
};

static struct area_root *area_roots(const struct load_area *a)
{
	return (struct area_root *)a->priv;
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

/*
 * The marker in the root open at rootfd.  "workdir made" says the run made
 * the work directory (or took it over): a later run that removes this area
 * as stale removes the work directory too, once empty.
 */
static int write_marker(int rootfd, const struct area_owner *o, bool made_wd)
{
	char text[192];
	int len = snprintf(text, sizeof(text), "jobmix-area 1\npid %ld\nstart %llu\nboot %s\n%s",
			   o->pid, o->start, o->boot, made_wd ? "workdir made\n" : "");
	int fd = openat(rootfd, LOAD_AREA_MARKER,
			O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	int ret = write(fd, text, (size_t)len) == len ? 0 : -1;
	if (close(fd))
		ret = -1;
	return ret;
}

/* The owner named by the marker in the directory open at dfd; -1 if none. */
static int read_marker(int dfd, struct area_owner *o, bool *made_wd)
{
	char text[256];
	if (read_text(dfd, LOAD_AREA_MARKER, text, sizeof(text)) < 0)
		return -1;
	*made_wd = strstr(text, "\nworkdir made\n") != NULL;
	return sscanf(text, "jobmix-area 1\npid %ld\nstart %llu\nboot %39s\n", &o->pid,
		      &o->start, o->boot) == 3 ? 0 : -1;
}

/*
 * Under the work directory open at wd_fd (named dir): remove the areas
 * whose marker names an owner that is gone (a jobmix killed with SIGKILL,
 * a reboot, a removal that failed), and note the live areas of other runs.
 * Only "jobmix.*" directories holding a marker are touched; links are
 * never followed.  True if a removed area's run had made the work
 * directory and no live area is left in it (this run takes it over).
 */
static bool remove_stale(int wd_fd, const char *dir, struct load_area *a)
{
	bool made_by_gone = false;
	unsigned live = 0;
	long gone_pid = 0;
	int dfd = openat(wd_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
	if (!d) {
		if (dfd >= 0)
			close(dfd);
		return false;
	}
	struct dirent *e;
	while ((e = readdir(d))) {
		struct area_owner o;
		bool made_wd = false;
		if (strncmp(e->d_name, "jobmix.", 7))
			continue;
		int sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0)
			continue;
		if (read_marker(sub, &o, &made_wd)) {
			close(sub);
			continue;
		}
		if (owner_alive(&o)) {
			close(sub);
			live++;
			if (o.pid != (long)getpid() && !a->others++) {
				a->other_pid = o.pid;
				snprintf(a->others_note, sizeof(a->others_note),
					 "another jobmix run (pid %ld) is working in '%s' too: the "
					 "two loads mix, and neither run's figures are its own alone",
					 o.pid, dir);
			}
			continue;
		}
		if (clear_dir(sub, NULL) || unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR))
			continue;
		if (made_wd) {
			made_by_gone = true;
			gone_pid = o.pid;
		}
		if (!a->stale_removed++)
			snprintf(a->stale_note, sizeof(a->stale_note),
				 "removed the work area '%s/%s' that jobmix pid %ld left (no longer "
				 "running)", dir, e->d_name, o.pid);
	}
	closedir(d);
	if (!made_by_gone || live)
		return false;
	snprintf(a->workdir_note, sizeof(a->workdir_note),
		 "the work directory '%s' was made by jobmix pid %ld, which could not remove it: "
		 "this run removes it at its end if it is empty then", dir, gone_pid);
	return true;
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

int load_dir_trusted(const char *path, const struct stat *st, uid_t euid, char *err,
		     size_t errlen)
{
	const bool owner_ok = st->st_uid == 0 || st->st_uid == euid;
	const bool others_write = (st->st_mode & (S_IWGRP | S_IWOTH)) != 0;
	if (!S_ISDIR(st->st_mode) || (owner_ok && !others_write) ||
	    (st->st_uid == 0 && (st->st_mode & S_ISVTX)))
		return 0;
	char owner[96];
	struct passwd pw, *found = NULL;
	char pwbuf[1024];
	if (!getpwuid_r(st->st_uid, &pw, pwbuf, sizeof(pwbuf), &found) && found)
		snprintf(owner, sizeof(owner), "%s (uid %u)", found->pw_name, (unsigned)st->st_uid);
	else
		snprintf(owner, sizeof(owner), "uid %u", (unsigned)st->st_uid);
	snprintf(err, errlen, "'%s' (owner %s, mode %04o) %s", path, owner,
		 (unsigned)(st->st_mode & 07777),
		 !owner_ok ? "belongs to another user"
			   : (st->st_mode & S_IWOTH) ? "is writable by every user"
						     : "is writable by its group");
	return -1;
}

/* The trust rule for one existing directory of the work directory's path. */
static int workdir_trusted(const char *dir, const char *comp, bool is_wd, char *err,
			   size_t errlen)
{
	struct stat st;
	char why[384];
	if (lstat(comp, &st) || !load_dir_trusted(comp, &st, geteuid(), why, sizeof(why)))
		return 0;
	snprintf(err, errlen,
		 "work directory '%s': %s%s, so someone else could swap the work directory for "
		 "symlinks while jobmix works there as root: give a directory whose every "
		 "parent is owned by root or you and writable by no one else (sticky ones owned "
		 "by root, as /tmp, are fine)", dir, is_wd ? "" : "its parent ", why);
	return -1;
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
	 * a symlink (with none, ".." can then be resolved by name below), and
	 * none may be one that another user can change (load_dir_trusted).
	 */
	if (workdir_trusted(dir, "/", false, err, errlen))
		return -1;
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
		const bool last = !path[j + strspn(path + j, "/")]; /* the work directory itself */
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
		if (workdir_trusted(dir, path, last, err, errlen))
			return -1;
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

/* ---- creating the area ---------------------------------------------------- */

/* The held descriptors of one root, all closed (-1 stays -1). */
static void root_close(struct area_root *r, int *root_fd)
{
	if (*root_fd >= 0)
		close(*root_fd);
	if (r->wd_fd >= 0)
		close(r->wd_fd);
	if (r->up_fd >= 0)
		close(r->up_fd);
	free(r->wd_leaf);
	*root_fd = r->wd_fd = r->up_fd = -1;
	r->wd_leaf = NULL;
}

/*
 * Open the work directory dir beneath its parent (the parent by its path,
 * the work directory by its name with O_NOFOLLOW), making it (0700) if it
 * is missing.  Fills r's wd_fd, up_fd, wd_leaf, identity and made_parent.
 */
static int open_workdir(const char *dir, struct area_root *r, char *err, size_t errlen)
{
	char parent[PATH_MAX];
	size_t len = strlen(dir);
	while (len > 1 && dir[len - 1] == '/')
		len--;
	if (len >= sizeof(parent)) {
		snprintf(err, errlen, "work directory '%s': path too long", dir);
		return -1;
	}
	memcpy(parent, dir, len);
	parent[len] = 0;
	char *slash = strrchr(parent, '/');
	const char *leaf = slash ? slash + 1 : parent;
	if (!*leaf) {
		snprintf(err, errlen, "work directory '%s': give a directory below '/'", dir);
		return -1;
	}
	r->wd_leaf = strdup(leaf);
	if (!r->wd_leaf) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (slash == parent)
		parent[1] = 0;          /* "/w": the parent is "/" */
	else if (slash)
		*slash = 0;
	else
		snprintf(parent, sizeof(parent), ".");
	r->up_fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct stat st;
	if (r->up_fd < 0 || fstatat(r->up_fd, r->wd_leaf, &st, AT_SYMLINK_NOFOLLOW)) {
		if (r->up_fd < 0 || errno != ENOENT || mkdirat(r->up_fd, r->wd_leaf, 0700)) {
			snprintf(err, errlen, "work directory '%s': %s", dir, strerror(errno));
			return -1;
		}
		r->made_parent = true;
	} else if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "work directory '%s' is not a directory%s", dir,
			 S_ISLNK(st.st_mode) ? " (a symlink; give the real path)" : "");
		return -1;
	}
	r->wd_fd = openat(r->up_fd, r->wd_leaf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (r->wd_fd < 0 || fstat(r->wd_fd, &st)) {
		snprintf(err, errlen, "work directory '%s': %s", dir, strerror(errno));
		if (r->made_parent)
			unlinkat(r->up_fd, r->wd_leaf, AT_REMOVEDIR);
		return -1;
	}
	r->wd_dev = st.st_dev;
	r->wd_ino = st.st_ino;
	return 0;
}

/* Does the held descriptor fd still name, as leaf of dfd, the same directory? */
static bool still_named(int dfd, const char *leaf, dev_t dev, ino_t ino)
{
	struct stat st;
	if (fstatat(dfd, leaf, &st, AT_SYMLINK_NOFOLLOW))
		return false;
	if (st.st_dev != dev || st.st_ino != ino) {
		errno = ESTALE;
		return false;
	}
	return true;
}

/*
 * Make root i beneath the work directory open in r (mkdirat, never reuse),
 * open it, record its identity and write its marker.  0, or -1 with err
 * (what was made is undone here).
 */
static int make_root(struct load_area *a, size_t i, const char *dir, struct area_root *r,
		     const struct area_owner *owner, char *err, size_t errlen)
{
	int made = 0;
	for (unsigned n = 0; n < 1000 && !made; n++) {
		if (n)
			snprintf(r->leaf, sizeof(r->leaf), "jobmix.%ld.%zu.%u", (long)getpid(), i, n);
		else
			snprintf(r->leaf, sizeof(r->leaf), "jobmix.%ld.%zu", (long)getpid(), i);
		if (!mkdirat(r->wd_fd, r->leaf, 0700))
			made = 1;
		else if (errno != EEXIST)
			break;
	}
	if (!made) {
		snprintf(err, errlen, "cannot create a work area in '%s': %s", dir, strerror(errno));
		return -1;
	}
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/%s", dir, r->leaf);
	struct stat st;
	int fd = openat(r->wd_fd, r->leaf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	char *copy = strdup(path);
	if (fd < 0 || fstat(fd, &st) || !copy || write_marker(fd, owner, r->made_parent)) {
		int e = !copy ? ENOMEM : errno;
		free(copy);
		if (fd >= 0) {
			unlinkat(fd, LOAD_AREA_MARKER, 0);
			close(fd);
		}
		unlinkat(r->wd_fd, r->leaf, AT_REMOVEDIR);
		snprintf(err, errlen, "work area '%s': %s", path, strerror(e));
		return -1;
	}
	r->dev = st.st_dev;
	r->ino = st.st_ino;
	a->roots[i] = copy;
	a->root_fds[i] = fd;
	return 0;
}

static int remove_work(struct load_area *a);
static void area_free(struct load_area *a);

int load_area_create(const struct workload *wl, struct load_area *a, char *err, size_t errlen)
{
	memset(a, 0, sizeof(*a));
	a->roots = calloc(wl->ndirs, sizeof(*a->roots));
	a->root_fds = malloc(wl->ndirs * sizeof(*a->root_fds));
	a->priv = calloc(wl->ndirs, sizeof(struct area_root));
	if (!a->roots || !a->root_fds || !a->priv) {
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
		struct area_root r = { .wd_fd = -1, .up_fd = -1 };
		int none = -1;
		if (open_workdir(dir, &r, err, errlen)) {
			root_close(&r, &none);
			goto fail;
		}
		/* a work directory a gone run made and left is ours to remove too */
		if (!r.made_parent && remove_stale(r.wd_fd, dir, a))
			r.made_parent = true;
		if (!r.made_parent) {
			close(r.up_fd);
			r.up_fd = -1;
		}
		if (make_root(a, i, dir, &r, &owner, err, errlen)) {
			if (r.made_parent)
				unlinkat(r.up_fd, r.wd_leaf, AT_REMOVEDIR); /* only if empty */
			root_close(&r, &none);
			goto fail;
		}
		area_roots(a)[i] = r;
		a->n = i + 1;
	}
	return 0;
fail:
	remove_work(a);
	area_free(a);
	return -1;
}

/* ---- walking, settling and removing ---------------------------------------- */

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

/* Remove every entry of the directory open at dfd (consumed) but keep, never following links. */
static int clear_dir(int dfd, const char *keep)
{
	return walk_dir(dfd, false, keep, unlink_entry);
}

/*
 * A new open file description of root i (walks read it from its start),
 * if the work directory's entry still names the root we made; -1 (errno
 * ESTALE: replaced, ENOENT: gone) if not.
 */
static int open_root(const struct load_area *a, size_t i)
{
	const struct area_root *r = &area_roots(a)[i];
	if (a->root_fds[i] < 0 || !still_named(r->wd_fd, r->leaf, r->dev, r->ino))
		return -1;
	return openat(a->root_fds[i], ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

int load_area_root_fd(const struct load_area *a, size_t i)
{
	return a->root_fds ? a->root_fds[i] : -1;
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

/*
 * Run work(a) in a child process (it inherits the held descriptors) and
 * wait for it at most the area's bound: a hung or frozen filesystem leaves
 * the child blocked, not the run.  The child is not killed on a timeout
 * (it may only be slow); a_left_note then says what was left where.  The
 * child's result, or -1 (ETIMEDOUT) on a timeout.  Without a child (fork
 * or pipe failed) the work is done here.
 */
static int bounded(struct load_area *a, int (*work)(struct load_area *), const char *what)
{
	int p[2];
	if (!a->n)
		return work(a);
	if (pipe2(p, O_CLOEXEC))
		return work(a);
	pid_t pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return work(a);
	}
	if (pid == 0) {
		close(p[0]);
		char rc = work(a) ? 1 : 0;
		_exit(write(p[1], &rc, 1) == 1 ? 0 : 1);
	}
	close(p[1]);
	double lim = a->clean_timeout_s > 0 ? a->clean_timeout_s : LOAD_CLEAN_TIMEOUT_S;
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	double end = (double)now.tv_sec + now.tv_nsec / 1e9 + lim;
	char rc = 1;
	ssize_t got = -1;
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		double left = end - ((double)now.tv_sec + now.tv_nsec / 1e9);
		if (left <= 0)
			break;
		struct timespec ts = { (time_t)left, (long)((left - (double)(time_t)left) * 1e9) };
		struct pollfd pfd = { .fd = p[0], .events = POLLIN };
		int n = ppoll(&pfd, 1, &ts, NULL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n > 0)
			got = read(p[0], &rc, 1);
		break;
	}
	close(p[0]);
	if (got < 0) {
		/* still at it: left behind, as a user that outlives SIGKILL */
		size_t used = (size_t)snprintf(a->left_note, sizeof(a->left_note),
					       "the work area%s ", a->n > 1 ? "s" : "");
		for (size_t i = 0; i < a->n && used < sizeof(a->left_note); i++)
			used += (size_t)snprintf(a->left_note + used, sizeof(a->left_note) - used,
						 "%s'%s'", i ? ", " : "", a->roots[i]);
		if (used < sizeof(a->left_note))
			snprintf(a->left_note + used, sizeof(a->left_note) - used,
				 " left in place: its %s did not finish within %.0f s (process %ld "
				 "goes on with it; a frozen or hung filesystem?)", what, lim,
				 (long)pid);
		errno = ETIMEDOUT;
		return -1;
	}
	waitpid(pid, NULL, 0); /* it has written its result: only its exit is left */
	return got == 1 && rc == 0 ? 0 : -1;
}

/* Empty every root but its marker (in the child of bounded()). */
static int clear_work(struct load_area *a)
{
	int ret = 0;
	for (size_t i = 0; i < a->n; i++) {
		int fd = open_root(a, i);
		if (fd < 0 || clear_dir(fd, LOAD_AREA_MARKER))
			ret = -1;
	}
	return ret;
}

int load_area_clear(struct load_area *a)
{
	return bounded(a, clear_work, "clearing");
}

/*
 * Remove every root still named by its work directory, and each work
 * directory we made once it is empty (one pass).
 */
static int remove_pass(struct load_area *a)
{
	int ret = 0;
	for (size_t i = 0; i < a->n; i++) {
		const struct area_root *r = &area_roots(a)[i];
		int fd = open_root(a, i);
		if (fd >= 0) {
			if (clear_dir(fd, NULL) || unlinkat(r->wd_fd, r->leaf, AT_REMOVEDIR))
				ret = -1;
		} else if (errno != ENOENT) {
			ret = -1;
		}
		/* only if empty: we made it, others may have used it */
		if (r->made_parent && r->up_fd >= 0 &&
		    still_named(r->up_fd, r->wd_leaf, r->wd_dev, r->wd_ino))
			unlinkat(r->up_fd, r->wd_leaf, AT_REMOVEDIR);
	}
	return ret;
}

/*
 * The removal, in the child of bounded().  Users left behind in
 * uninterruptible sleep (a frozen filesystem) were SIGKILLed, but each
 * finishes the call it slept in once the filesystem wakes: a file it was
 * creating can appear after this pass emptied its directory, so the rmdir
 * finds it not empty.  With such users the pass is repeated, a quarter
 * second apart, for up to REMOVE_RETRY_S (a killed user makes no second
 * call); without them, one pass says it all.
 */
#define REMOVE_RETRY_S 15
static int remove_work(struct load_area *a)
{
	int ret = remove_pass(a);
	for (unsigned i = 0; ret && a->stuck_users && i < REMOVE_RETRY_S * 4; i++) {
		struct timespec q = { 0, 250000000L };
		nanosleep(&q, NULL);
		ret = remove_pass(a);
	}
	return ret;
}

/* Close every held descriptor and free the area (nothing on disk changes). */
static void area_free(struct load_area *a)
{
	for (size_t i = 0; a->priv && i < a->n; i++)
		root_close(&area_roots(a)[i], &a->root_fds[i]);
	for (size_t i = 0; a->roots && i < a->n; i++)
		free(a->roots[i]);
	free(a->roots);
	free(a->root_fds);
	free(a->priv);
	a->roots = NULL;
	a->root_fds = NULL;
	a->priv = NULL;
	a->n = 0;
}

int load_area_remove(struct load_area *a)
{
	int ret = bounded(a, remove_work, "removal");
	area_free(a);
	return ret;
}
