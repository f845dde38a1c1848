/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Writing an output file so that a reader sees the old file or the new one,
 * never half of either, and so that a root jobmix cannot be steered into
 * replacing what it should not.  Every output jobmix writes goes through
 * here (run.json, points.csv, the A/B index, report/compare/plot -o, import
 * -o, charts).
 *
 * The target is a path (relative to a held folder descriptor in the _at
 * forms, to the working directory otherwise).  What happens by what it is
 * now (its last component; the folders above it are resolved as usual):
 *
 *   absent            a temp file beside it (O_CREAT|O_EXCL|O_NOFOLLOW, an
 *                     unpredictable name ".<name>.<random>.tmp", mode
 *                     0666 & ~umask), filled, flushed, fsynced, renamed onto
 *                     the name (refusing if something appeared there
 *                     meanwhile), then the folder fsynced;
 *   a regular file    the same, the temp first given the file's owner, group
 *                     and permission bits (0777; set-id bits are dropped):
 *                     refused when they cannot be kept (not root, another
 *                     user's file), when it has more than one hard link, or
 *                     when it is one of the command's inputs (same device and
 *                     inode as a file in `inputs`); refused too if it is
 *                     replaced while being written;
 *   a character device or a FIFO (or a symbolic link whose final target is
 *                     one, e.g. /dev/stdout on a terminal or a pipe)
 *                     written in place: opened O_WRONLY without O_CREAT or
 *                     O_TRUNC, a FIFO with O_NONBLOCK first so that one with
 *                     no reader is an error rather than a hang, then written
 *                     with blocking writes; never renamed over, never fsynced;
 *   a symbolic link to a regular file, a dangling link, a directory, a block
 *                     device, a socket: refused, naming the link and its
 *                     target ("-" is standard output where a command takes -o).
 *
 * A refusal is ATOM_REFUSED and leaves nothing behind; an I/O error is
 * ATOM_ERR.  On either the target is as it was (for a device or FIFO: what
 * was written to it is not taken back) and no temp file remains.
 */
#ifndef JOBMIX_ATOMIC_H
#define JOBMIX_ATOMIC_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

#define ATOM_ERR (-1)       /* an I/O error (the file system, a write) */
#define ATOM_REFUSED (-2)   /* the target is not one to write (see above) */

/* The files a command read, by identity: an output may not be one of them. */
struct atom_input {
	dev_t dev;
	ino_t ino;
	char *path;          /* as it was read, for the message */
	bool own;            /* path is the set's copy (else kept by whoever added it) */
};
struct atom_set {
	struct atom_input *v;
	size_t n, cap;
	size_t *slot, nslot;  /* a hash of v by identity: index + 1, 0 empty (a run set
			       * of 100,000 runs notes 100,000 files) */
	/* a file named companion beside an input named companion_of is one too (points.csv
	 * beside run.json); a file with one name can be no other */
	const char *companion, *companion_of;
};

/* Note path (stat, links followed); a path that does not exist is skipped.  -1: no memory. */
int atom_set_add(struct atom_set *s, const char *path) __attribute__((warn_unused_result));
/* The same with path's identity known (st, links followed: a regular file's lstat). */
int atom_set_add_st(struct atom_set *s, const char *path, const struct stat *st)
	__attribute__((warn_unused_result));
/* The same, path kept as it is: it outlives the set (an interned string, intern.h). */
int atom_set_add_kept(struct atom_set *s, const char *path, const struct stat *st)
	__attribute__((warn_unused_result));
/* Every input of `from` into `to` (and its companion when `to` has none).  -1: no memory. */
int atom_set_merge(struct atom_set *to, const struct atom_set *from)
	__attribute__((warn_unused_result));
void atom_set_free(struct atom_set *s);

/* One output being written (begin, write to f, commit or abort). */
struct atom_file {
	FILE *f;                 /* the contents go here */
	/* the rest is private */
	int dirfd;               /* the target's folder, owned; -1 when none */
	bool in_place;           /* a device or FIFO, written directly */
	bool synced;             /* atom_sync done */
	bool have_old;           /* an existing regular file is replaced ... */
	struct stat old;         /* ... which was this */
	char name[NAME_MAX + 1]; /* the target's name in dirfd */
	char tmp[NAME_MAX + 1];  /* the temp file's name in dirfd; "" when none */
	char shown[PATH_MAX];    /* the target as messages name it */
};

/*
 * Check the target path (relative to dirfd, or AT_FDCWD) and open what is
 * to be written: a temp file beside it, or the device or FIFO itself.
 * inputs may be NULL.  0, ATOM_REFUSED or ATOM_ERR with err naming the
 * path and the reason (then nothing is left behind).
 */
int atom_begin_at(struct atom_file *a, int dirfd, const char *path, const struct atom_set *inputs,
		  char *err, size_t errlen) __attribute__((warn_unused_result));
/* The rules alone: 0 when atom_begin_at would go ahead, else as it fails. */
int atom_check_at(int dirfd, const char *path, const struct atom_set *inputs, char *err,
		  size_t errlen) __attribute__((warn_unused_result));
/*
 * Everything before the rename: flush, give the temp the old file's owner
 * and mode, fsync.  Two files that must change together (run.json and
 * points.csv) are both synced before either is committed.  On error the
 * file is aborted.  (Called by atom_commit when not done.)
 */
int atom_sync(struct atom_file *a, char *err, size_t errlen) __attribute__((warn_unused_result));
/*
 * Rename the temp onto the target and fsync the folder (a device or FIFO:
 * flush and close).  On error the file is aborted; a failed folder fsync
 * after the rename is an error too (the new file may not survive a crash).
 */
int atom_commit(struct atom_file *a, char *err, size_t errlen) __attribute__((warn_unused_result));
/* Close and remove the temp file; the target is left alone.  Safe to call twice. */
void atom_abort(struct atom_file *a);

/* fill(f, ctx) writes the contents; nonzero (errno set when it can) fails the write. */
typedef int (*atom_fill_fn)(FILE *f, void *ctx);

/* begin, fill, commit: 0, ATOM_REFUSED or ATOM_ERR with err set. */
int atom_write_at(int dirfd, const char *path, atom_fill_fn fill, void *ctx,
		  const struct atom_set *inputs, char *err, size_t errlen)
	__attribute__((warn_unused_result));
/*
 * A private record (a root-only state file): as atom_write_at, but only a
 * regular file (or nothing) at path is replaced, and a new one is 0600.
 */
int atom_write_private_at(int dirfd, const char *path, atom_fill_fn fill, void *ctx, char *err,
			  size_t errlen) __attribute__((warn_unused_result));
int atom_write(const char *path, atom_fill_fn fill, void *ctx, const struct atom_set *inputs,
	       char *err, size_t errlen) __attribute__((warn_unused_result));

/* A fill from memory: ctx is a struct atom_buf. */
struct atom_buf {
	const void *data;
	size_t len;
};
int atom_fill_buf(FILE *f, void *ctx);

/*
 * A fresh folder <dirfd>/<name>, held: mkdir, then opened
 * O_DIRECTORY|O_NOFOLLOW and checked to be the folder made (a directory,
 * empty, owned by this user, or by the parent's owner when the parent is
 * writable by no one else: vfat, NFS with root squashed), so that what is written through the
 * descriptor goes there whatever later becomes of the name.  The
 * descriptor; -1 with errno when mkdir or open fails (EEXIST: the name is
 * taken); ATOM_REFUSED when what was opened is not the folder made (it is
 * left alone).
 */
int atom_mkdir_at(int dirfd, const char *name, mode_t mode) __attribute__((warn_unused_result));

/*
 * mkdir each missing component of path (0755); every existing one must be a
 * directory.  0, or -1 with err naming the component.
 */
int atom_mkdirs(const char *path, char *err, size_t errlen) __attribute__((warn_unused_result));

/*
 * The system calls whose order and failures the unit tests check; NULL
 * members (or ops NULL) are the system's own.  For tests only.
 */
struct atom_ops {
	int (*fsync)(int fd);
	int (*fchown)(int fd, uid_t uid, gid_t gid);
	int (*renameat2)(int olddirfd, const char *oldpath, int newdirfd, const char *newpath,
			 unsigned flags);
};
void atom_set_ops(const struct atom_ops *ops);

#endif
