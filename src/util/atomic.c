// SPDX-License-Identifier: GPL-2.0-only
/*
 * Output files written safely (see atomic.h): the target judged by what it
 * is, a temp file beside it renamed onto it, or a device or FIFO written in
 * place.  The one writer of every output jobmix makes.
 */
#include "jobmix/atomic.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif

static const struct atom_ops *atom_hooks;

void atom_set_ops(const struct atom_ops *ops)
{
	atom_hooks = ops;
}

static int atom_fsync(int fd)
{
	return atom_hooks && atom_hooks->fsync ? atom_hooks->fsync(fd) : fsync(fd);
}

static int atom_fchown(int fd, uid_t uid, gid_t gid)
{
	return atom_hooks && atom_hooks->fchown ? atom_hooks->fchown(fd, uid, gid) :
						  fchown(fd, uid, gid);
}

static int atom_rename(int ofd, const char *old, int nfd, const char *new, unsigned flags)
{
	if (atom_hooks && atom_hooks->renameat2)
		return atom_hooks->renameat2(ofd, old, nfd, new, flags);
	return renameat2(ofd, old, nfd, new, flags);
}

/* ---- the inputs ------------------------------------------------------------ */

static size_t atom_hash(dev_t dev, ino_t ino, size_t nslot)
{
	uint64_t h = ((uint64_t)dev * 0x9e3779b97f4a7c15u) ^ ((uint64_t)ino * 0xc2b2ae3d27d4eb4fu);
	return (size_t)(h ^ (h >> 29)) & (nslot - 1);
}

/* The slot of (dev, ino): where it is, or the empty one it would take. */
static size_t *atom_slot(const struct atom_set *s, dev_t dev, ino_t ino)
{
	size_t i = atom_hash(dev, ino, s->nslot);
	while (s->slot[i]) {
		const struct atom_input *e = &s->v[s->slot[i] - 1];
		if (e->dev == dev && e->ino == ino)
			break;
		i = (i + 1) & (s->nslot - 1);
	}
	return &s->slot[i];
}

/* Room for one more in the hash (kept at most half full).  -1: no memory. */
static int atom_rehash(struct atom_set *s)
{
	if (2 * (s->n + 1) <= s->nslot)
		return 0;
	size_t n = s->nslot ? 2 * s->nslot : 64;
	size_t *slot = calloc(n, sizeof(*slot)), *old = s->slot;
	if (!slot)
		return -1;
	s->slot = slot;
	s->nslot = n;
	for (size_t i = 0; i < s->n; i++)
		*atom_slot(s, s->v[i].dev, s->v[i].ino) = i + 1;
	free(old);
	return 0;
}

int atom_set_add(struct atom_set *s, const char *path)
{
	struct stat st;
	if (!path || stat(path, &st))
		return 0;   /* nothing there: nothing an output could clobber */
	return atom_set_add_st(s, path, &st);
}

static int atom_set_put(struct atom_set *s, const char *path, const struct stat *stp, bool own)
{
	const struct stat st = *stp;
	if (atom_rehash(s))
		return -1;
	size_t *slot = atom_slot(s, st.st_dev, st.st_ino);
	if (*slot)
		return 0;
	if (s->n == s->cap) {
		size_t nc = s->cap ? 2 * s->cap : 16;
		struct atom_input *v = realloc(s->v, nc * sizeof(*v));
		if (!v)
			return -1;
		s->v = v;
		s->cap = nc;
	}
	char *p = own ? strdup(path) : (char *)path;
	if (!p)
		return -1;
	s->v[s->n++] = (struct atom_input){ .dev = st.st_dev, .ino = st.st_ino, .path = p,
					    .own = own };
	*slot = s->n;
	return 0;
}

int atom_set_add_st(struct atom_set *s, const char *path, const struct stat *st)
{
	return atom_set_put(s, path, st, true);
}

int atom_set_add_kept(struct atom_set *s, const char *path, const struct stat *st)
{
	return atom_set_put(s, path, st, false);
}

int atom_set_merge(struct atom_set *to, const struct atom_set *from)
{
	for (size_t i = 0; from && i < from->n; i++) {
		struct stat st = { .st_dev = from->v[i].dev, .st_ino = from->v[i].ino };
		if (atom_set_put(to, from->v[i].path, &st, from->v[i].own))
			return -1;
	}
	if (from && !to->companion) {
		to->companion = from->companion;
		to->companion_of = from->companion_of;
	}
	return 0;
}

void atom_set_free(struct atom_set *s)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].own)
			free(s->v[i].path);
	free(s->v);
	free(s->slot);
	memset(s, 0, sizeof(*s));
}

/*
 * The input the file st (at dfd/name) is, or NULL.  A companion: a file
 * with one name (more are refused anyway) is one only under the
 * companion's name, beside a file named companion_of that is an input.
 */
static const struct atom_input *atom_input_of(const struct atom_set *s, const struct stat *st,
					      int dfd, const char *name)
{
	static struct atom_input hit;    /* a companion found: for the message */
	static char hitpath[PATH_MAX];
	if (!s || !s->n)
		return NULL;
	size_t k = *atom_slot(s, st->st_dev, st->st_ino);
	if (k)
		return &s->v[k - 1];
	struct stat of;
	if (!s->companion || !s->companion_of || strcmp(name, s->companion) ||
	    fstatat(dfd, s->companion_of, &of, 0) || !(k = *atom_slot(s, of.st_dev, of.st_ino)))
		return NULL;
	const char *in = s->v[k - 1].path, *slash = strrchr(in, '/');
	if (slash)
		snprintf(hitpath, sizeof(hitpath), "%.*s/%s", (int)(slash - in), in, s->companion);
	else
		snprintf(hitpath, sizeof(hitpath), "%s", s->companion);
	hit = (struct atom_input){ .dev = st->st_dev, .ino = st->st_ino, .path = hitpath };
	return &hit;
}

/* ---- judging the target -------------------------------------------------------- */

enum atom_how { AH_NEW, AH_REPLACE, AH_IN_PLACE, AH_IN_PLACE_LINK };

static const char *atom_kind(mode_t m)
{
	return S_ISDIR(m) ? "a directory" : S_ISBLK(m) ? "a block device" :
	       S_ISSOCK(m) ? "a socket" : S_ISCHR(m) ? "a character device" :
	       S_ISFIFO(m) ? "a FIFO" : S_ISLNK(m) ? "a symbolic link" :
	       S_ISREG(m) ? "a regular file" : "a special file";
}

/* The folder part of path (".": none) and its last component; -1 when it names no file. */
static int atom_split(const char *path, char *dir, size_t dlen, char *name, size_t nlen)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	if (!*base || !strcmp(base, ".") || !strcmp(base, "..") || strlen(base) >= nlen)
		return -1;
	if (!slash) {
		snprintf(dir, dlen, ".");
	} else if (slash == path) {
		snprintf(dir, dlen, "/");
	} else {
		size_t n = (size_t)(slash - path);
		if (n >= dlen)
			return -1;
		memcpy(dir, path, n);
		dir[n] = 0;
	}
	snprintf(name, nlen, "%s", base);
	return 0;
}

/*
 * What to do with <dfd>/<name> (shown as `shown`): *how, and in *st what
 * it is (for a link: its final target).  0, or ATOM_REFUSED / ATOM_ERR.
 */
static int atom_judge(int dfd, const char *name, const char *shown, const struct atom_set *inputs,
		      struct stat *st, enum atom_how *how, char *err, size_t errlen)
{
	if (fstatat(dfd, name, st, AT_SYMLINK_NOFOLLOW)) {
		if (errno == ENOENT) {
			*how = AH_NEW;
			return 0;
		}
		snprintf(err, errlen, "output '%s': %s", shown, strerror(errno));
		return ATOM_ERR;
	}
	if (S_ISLNK(st->st_mode)) {
		char to[PATH_MAX];
		struct stat t;
		ssize_t n = readlinkat(dfd, name, to, sizeof(to) - 1);
		to[n < 0 ? 0 : n] = 0;
		if (fstatat(dfd, name, &t, 0)) {
			snprintf(err, errlen, "output '%s' is a symbolic link to '%s', which %s: "
				 "refusing to write through it", shown, to,
				 errno == ENOENT ? "does not exist" : strerror(errno));
			return ATOM_REFUSED;
		}
		if (S_ISREG(t.st_mode)) {
			snprintf(err, errlen, "output '%s' is a symbolic link to '%s', a regular file: "
				 "refusing to replace the link or write through it (name the file "
				 "itself%s)", shown, to, !strcmp(shown, "/dev/stdout") ?
				 ", or '-' for standard output" : "");
			return ATOM_REFUSED;
		}
		if (!S_ISCHR(t.st_mode) && !S_ISFIFO(t.st_mode)) {
			snprintf(err, errlen, "output '%s' is a symbolic link to '%s', %s: refusing "
				 "to write there", shown, to, atom_kind(t.st_mode));
			return ATOM_REFUSED;
		}
		*st = t;
		*how = AH_IN_PLACE_LINK;
		return 0;
	}
	if (S_ISCHR(st->st_mode) || S_ISFIFO(st->st_mode)) {
		*how = AH_IN_PLACE;
		return 0;
	}
	if (!S_ISREG(st->st_mode)) {
		snprintf(err, errlen, "output '%s' is %s: refusing to replace it", shown,
			 atom_kind(st->st_mode));
		return ATOM_REFUSED;
	}
	const struct atom_input *in = atom_input_of(inputs, st, dfd, name);
	if (in) {
		snprintf(err, errlen, "output '%s' is one of this command's inputs ('%s'): refusing "
			 "to replace it", shown, in->path);
		return ATOM_REFUSED;
	}
	if (st->st_nlink > 1) {
		snprintf(err, errlen, "output '%s' has %ju hard links: refusing to replace it (its "
			 "other names would keep the old contents)", shown, (uintmax_t)st->st_nlink);
		return ATOM_REFUSED;
	}
	*how = AH_REPLACE;
	return 0;
}

/* Open the folder of path (relative to dirfd) into a->dirfd and its last component into a->name. */
static int atom_open_dir(struct atom_file *a, int dirfd, const char *path, char *err, size_t errlen)
{
	char dir[PATH_MAX];
	memset(a, 0, sizeof(*a));
	a->dirfd = -1;
	snprintf(a->shown, sizeof(a->shown), "%s", path ? path : "");
	if (!path || atom_split(path, dir, sizeof(dir), a->name, sizeof(a->name))) {
		snprintf(err, errlen, "output '%s': not a file name", a->shown);
		return ATOM_REFUSED;
	}
	a->dirfd = openat(dirfd, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (a->dirfd < 0) {
		snprintf(err, errlen, "output '%s': cannot open its folder '%s': %s", a->shown, dir,
			 strerror(errno));
		return ATOM_ERR;
	}
	return 0;
}

int atom_check_at(int dirfd, const char *path, const struct atom_set *inputs, char *err,
		  size_t errlen)
{
	struct atom_file a;
	struct stat st;
	enum atom_how how;
	int rc = atom_open_dir(&a, dirfd, path, err, errlen);
	if (!rc)
		rc = atom_judge(a.dirfd, a.name, a.shown, inputs, &st, &how, err, errlen);
	atom_abort(&a);
	return rc;
}

/* ---- opening -------------------------------------------------------------------- */

/* A device or FIFO (st: what was judged) opened for writing where it is. */
static int atom_open_in_place(struct atom_file *a, const struct stat *st, bool via_link, char *err,
			      size_t errlen)
{
	int flags = O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK | (via_link ? 0 : O_NOFOLLOW);
	int fd = openat(a->dirfd, a->name, flags);
	struct stat now;
	if (fd < 0) {
		if (errno == ENXIO && S_ISFIFO(st->st_mode))
			snprintf(err, errlen, "output '%s' is a FIFO with no reader", a->shown);
		else
			snprintf(err, errlen, "open '%s' failed: %s", a->shown, strerror(errno));
		return ATOM_ERR;
	}
	if (fstat(fd, &now) || now.st_dev != st->st_dev || now.st_ino != st->st_ino ||
	    (!S_ISCHR(now.st_mode) && !S_ISFIFO(now.st_mode))) {
		close(fd);
		snprintf(err, errlen, "output '%s' changed while it was opened: refusing to write",
			 a->shown);
		return ATOM_REFUSED;
	}
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) || !(a->f = fdopen(fd, "w"))) {
		snprintf(err, errlen, "open '%s' failed: %s", a->shown, strerror(errno));
		close(fd);
		return ATOM_ERR;
	}
	a->in_place = true;
	return 0;
}

/* 64 random bits for a temp name (getrandom; the clock and pid where it fails). */
static unsigned long long atom_random(unsigned salt)
{
	unsigned long long r;
	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) == (ssize_t)sizeof(r))
		return r;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((unsigned long long)ts.tv_nsec << 20) ^ (unsigned long long)ts.tv_sec ^
	       ((unsigned long long)getpid() << 40) ^ salt;
}

/* The temp file beside the target; old: the regular file it replaces, or NULL. */
static int atom_open_temp(struct atom_file *a, const struct stat *old, mode_t mode, char *err,
			  size_t errlen)
{
	int fd = -1;
	for (unsigned tries = 0; fd < 0 && tries < 100; tries++) {
		snprintf(a->tmp, sizeof(a->tmp), ".%.200s.%016llx.tmp", a->name, atom_random(tries));
		fd = openat(a->dirfd, a->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    old ? 0600 : mode);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		snprintf(err, errlen, "output '%s': cannot create a temp file beside it: %s",
			 a->shown, strerror(errno));
		a->tmp[0] = 0;
		return ATOM_ERR;
	}
	if (old && atom_fchown(fd, old->st_uid, old->st_gid)) {
		snprintf(err, errlen, "output '%s' belongs to %ju:%ju, which cannot be kept (%s): "
			 "refusing to replace it", a->shown, (uintmax_t)old->st_uid,
			 (uintmax_t)old->st_gid, strerror(errno));
		close(fd);
		return ATOM_REFUSED;   /* the caller's abort removes the temp */
	}
	a->f = fdopen(fd, "w");
	if (!a->f) {
		snprintf(err, errlen, "output '%s': %s", a->shown, strerror(errno));
		close(fd);
		return ATOM_ERR;
	}
	if (old) {
		a->have_old = true;
		a->old = *old;
	}
	return 0;
}

/* atom_begin_at; private: only a regular file (or none) at path, a new one made with mode 0600. */
static int atom_begin_how(struct atom_file *a, int dirfd, const char *path,
			  const struct atom_set *inputs, bool private, char *err, size_t errlen)
{
	struct stat st;
	enum atom_how how;
	int rc = atom_open_dir(a, dirfd, path, err, errlen);
	if (!rc)
		rc = atom_judge(a->dirfd, a->name, a->shown, inputs, &st, &how, err, errlen);
	if (!rc && private && how != AH_NEW && how != AH_REPLACE) {
		snprintf(err, errlen, "record '%s' is %s: refusing to write it", a->shown,
			 atom_kind(st.st_mode));
		rc = ATOM_REFUSED;
	}
	if (!rc) {
		if (how == AH_IN_PLACE || how == AH_IN_PLACE_LINK)
			rc = atom_open_in_place(a, &st, how == AH_IN_PLACE_LINK, err, errlen);
		else
			rc = atom_open_temp(a, how == AH_REPLACE ? &st : NULL,
					    private ? 0600 : 0666, err, errlen);
	}
	if (rc)
		atom_abort(a);
	return rc;
}

int atom_begin_at(struct atom_file *a, int dirfd, const char *path, const struct atom_set *inputs,
		  char *err, size_t errlen)
{
	return atom_begin_how(a, dirfd, path, inputs, false, err, errlen);
}

/* ---- finishing ------------------------------------------------------------------- */

int atom_sync(struct atom_file *a, char *err, size_t errlen)
{
	const char *op = "write";
	int e = 0;
	if (a->synced)
		return 0;
	if (!a->f) {
		snprintf(err, errlen, "output '%s': not open", a->shown);
		atom_abort(a);
		return ATOM_ERR;
	}
	if (fflush(a->f) || ferror(a->f)) {
		e = errno ? errno : EIO;
	} else if (!a->in_place) {
		int fd = fileno(a->f);
		if (a->have_old && fchmod(fd, a->old.st_mode & 0777)) {
			e = errno;
			op = "chmod";
		} else if (atom_fsync(fd)) {
			e = errno;
			op = "fsync";
		}
	}
	if (e) {
		snprintf(err, errlen, "%s '%s' failed: %s", op, a->shown, strerror(e));
		atom_abort(a);
		return ATOM_ERR;
	}
	a->synced = true;
	return 0;
}

/* After the temp is closed: is the target still what was judged? */
static int atom_unchanged(struct atom_file *a, char *err, size_t errlen)
{
	struct stat now;
	int gone = fstatat(a->dirfd, a->name, &now, AT_SYMLINK_NOFOLLOW) ? errno : 0;
	bool same = a->have_old ? !gone && now.st_dev == a->old.st_dev &&
					  now.st_ino == a->old.st_ino && S_ISREG(now.st_mode) &&
					  now.st_nlink == 1
				: gone == ENOENT;
	if (same)
		return 0;
	snprintf(err, errlen, "output '%s' changed while it was written: not replaced", a->shown);
	return ATOM_REFUSED;
}

int atom_commit(struct atom_file *a, char *err, size_t errlen)
{
	int rc = atom_sync(a, err, errlen);
	if (rc)
		return rc;
	FILE *f = a->f;
	a->f = NULL;
	if (fclose(f)) {
		snprintf(err, errlen, "write '%s' failed: %s", a->shown, strerror(errno));
		atom_abort(a);
		return ATOM_ERR;
	}
	if (a->in_place) {
		atom_abort(a);   /* only the folder is left to close */
		return 0;
	}
	rc = atom_unchanged(a, err, errlen);
	if (rc) {
		atom_abort(a);
		return rc;
	}
	unsigned flags = a->have_old ? 0 : RENAME_NOREPLACE;
	int r = atom_rename(a->dirfd, a->tmp, a->dirfd, a->name, flags);
	if (r && flags && (errno == EINVAL || errno == ENOSYS))   /* no RENAME_NOREPLACE here */
		r = atom_rename(a->dirfd, a->tmp, a->dirfd, a->name, 0);
	if (r) {
		int e = errno;
		if (e == EEXIST)
			snprintf(err, errlen, "output '%s' appeared while it was written: not "
				 "replaced", a->shown);
		else
			snprintf(err, errlen, "rename onto '%s' failed: %s", a->shown, strerror(e));
		atom_abort(a);
		return e == EEXIST ? ATOM_REFUSED : ATOM_ERR;
	}
	a->tmp[0] = 0;   /* it is the target now */
	if (atom_fsync(a->dirfd)) {
		snprintf(err, errlen, "'%s' written, but fsync of its folder failed: %s", a->shown,
			 strerror(errno));
		atom_abort(a);
		return ATOM_ERR;
	}
	atom_abort(a);
	return 0;
}

void atom_abort(struct atom_file *a)
{
	if (a->f)
		fclose(a->f);
	a->f = NULL;
	if (a->tmp[0] && a->dirfd >= 0)
		unlinkat(a->dirfd, a->tmp, 0);
	a->tmp[0] = 0;
	if (a->dirfd >= 0)
		close(a->dirfd);
	a->dirfd = -1;
}

/* ---- folders ------------------------------------------------------------------------ */

/* Has the folder fd no entries besides . and ..? */
static bool atom_dir_empty(int fd)
{
	int d = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	DIR *dir = d < 0 ? NULL : fdopendir(d);
	bool empty = dir != NULL;
	struct dirent *de;
	if (!dir && d >= 0)
		close(d);
	while (dir && empty && (de = readdir(dir)))
		empty = !strcmp(de->d_name, ".") || !strcmp(de->d_name, "..");
	if (dir)
		closedir(dir);
	return empty;
}

/*
 * Could the folder st (just opened as the one made in parent) be another's?
 * Ours when this user owns it; else (a file system that gives its own
 * owner: vfat, NFS with root squashed) only when it has the parent's owner
 * and no one else could have put it there (the parent not group or other
 * writable).
 */
static bool atom_dir_ours(const struct stat *st, int parent)
{
	struct stat p;
	if (st->st_uid == geteuid())
		return true;
	return !fstatat(parent, ".", &p, 0) && p.st_uid == st->st_uid && !(p.st_mode & 022);
}

int atom_mkdir_at(int dirfd, const char *name, mode_t mode)
{
	struct stat st;
	if (mkdirat(dirfd, name, mode))
		return -1;
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISDIR(st.st_mode) || !atom_dir_ours(&st, dirfd) ||
	    !atom_dir_empty(fd)) {
		close(fd);
		return ATOM_REFUSED;
	}
	return fd;
}

/* ---- in one call ------------------------------------------------------------------ */

int atom_fill_buf(FILE *f, void *ctx)
{
	const struct atom_buf *b = ctx;
	return b->len && fwrite(b->data, 1, b->len, f) != b->len ? -1 : 0;
}

static int atom_write_how(int dirfd, const char *path, atom_fill_fn fill, void *ctx,
			  const struct atom_set *inputs, bool private, char *err, size_t errlen)
{
	struct atom_file a;
	int rc = atom_begin_how(&a, dirfd, path, inputs, private, err, errlen);
	if (rc)
		return rc;
	errno = 0;
	if (fill(a.f, ctx)) {
		int e = errno ? errno : EIO;
		snprintf(err, errlen, "write '%s' failed: %s", a.shown, strerror(e));
		atom_abort(&a);
		return ATOM_ERR;
	}
	return atom_commit(&a, err, errlen);
}

int atom_write_at(int dirfd, const char *path, atom_fill_fn fill, void *ctx,
		  const struct atom_set *inputs, char *err, size_t errlen)
{
	return atom_write_how(dirfd, path, fill, ctx, inputs, false, err, errlen);
}

int atom_write_private_at(int dirfd, const char *path, atom_fill_fn fill, void *ctx, char *err,
			  size_t errlen)
{
	return atom_write_how(dirfd, path, fill, ctx, NULL, true, err, errlen);
}

int atom_write(const char *path, atom_fill_fn fill, void *ctx, const struct atom_set *inputs,
	       char *err, size_t errlen)
{
	return atom_write_at(AT_FDCWD, path, fill, ctx, inputs, err, errlen);
}

int atom_mkdirs(const char *path, char *err, size_t errlen)
{
	char buf[PATH_MAX];
	struct stat st;

	if (!path[0] || strlen(path) >= sizeof(buf)) {
		snprintf(err, errlen, "directory '%s': invalid path", path);
		return -1;
	}
	snprintf(buf, sizeof(buf), "%s", path);
	size_t n = strlen(buf);
	for (size_t i = 1; i <= n; i++) {
		if (buf[i] != '/' && buf[i] != 0)
			continue;
		if (buf[i - 1] == '/')
			continue;   /* "a//b", trailing "/" */
		char saved = buf[i];
		buf[i] = 0;
		if (mkdir(buf, 0755) && errno != EEXIST) {
			snprintf(err, errlen, "create directory '%s' failed: %s", buf, strerror(errno));
			return -1;
		}
		int e = stat(buf, &st) ? errno : S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
		if (e) {
			snprintf(err, errlen, "create directory '%s' failed: %s", buf, strerror(e));
			return -1;
		}
		buf[i] = saved;
	}
	return 0;
}
