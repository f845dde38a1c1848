// SPDX-License-Identifier: GPL-2.0-only
/*
 * Holding the system knobs of an A/B matrix (sys_knob.h): a lock and a
 * record of the original saved before the first change, always put back;
 * a dead run's record acted on.  What each family reads, writes and is
 * called is its row in knob_family.c's table.  The directory, its checks
 * and the locks are sched.c's (sys_int.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "jobmix/atomic.h"
#include "jobmix/sys.h"
#include "jobmix/sys_dev.h"
#include "jobmix/sys_knob.h"
#include "jobmix/sys_scratch.h"
#include "sys_int.h"

#define KNOB_LOCK_PREFIX "knob."

/* The knob's family (its record's key: never the scratch mount, never held). */
static const struct sys_knob_family *knob_fam(const char *key)
{
	return sys_knob_family(key, false);
}

static int knob_get(const struct sys_knob *k, char *buf, size_t len)
{
	return k->fam->get(k->key, k->target, buf, len);
}

/* ---- holding: the record and the lock ---------------------------------------- */

/* The directories: <dir>/lock and <dir>/knob.  0; 1 when <dir> is missing (!create); -1. */
static int knob_dirs(bool create, int *lock_dir, int *state_dir, char *err, size_t errlen)
{
	char shown[PATH_MAX + 16];
	const char *dir = sys_state_dir();
	*lock_dir = *state_dir = -1;
	int top = sys_dir_open(AT_FDCWD, dir, dir, create, err, errlen);
	if (top < 0)
		return !create && errno == ENOENT && !err[0] ? 1 : -1;
	snprintf(shown, sizeof(shown), "%s/lock", dir);
	*lock_dir = sys_dir_open(top, "lock", shown, true, err, errlen);
	snprintf(shown, sizeof(shown), "%s/knob", dir);
	if (*lock_dir >= 0)
		*state_dir = sys_dir_open(top, "knob", shown, true, err, errlen);
	close(top);
	if (*state_dir < 0) {
		if (*lock_dir >= 0)
			close(*lock_dir);
		*lock_dir = -1;
		return -1;
	}
	return 0;
}

/* A record or lock name of ours: [A-Za-z0-9._-], not starting with '.'. */
static bool knob_name_ok(const char *s)
{
	if (!s[0] || s[0] == '.' || strlen(s) > NAME_MAX - sizeof(KNOB_LOCK_PREFIX))
		return false;
	for (const char *c = s; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || *c == '.' || *c == '_' || *c == '-'))
			return false;
	return true;
}

/* The knob's file name: queue.DEV.ATTR, sysctl.KEY, mount.MAJ-MIN.ESCAPED-PATH, ... */
static int knob_name(const struct sys_knob *k, char *out, size_t len)
{
	if (k->fam->record(k->key, k->target, out, len))
		return -1;
	for (char *c = out; *c; c++)
		if (*c == '/')
			*c = '-';
	return knob_name_ok(out) ? 0 : -1;
}

struct knob_rec {
	int kind;
	/* the key's family: a held knob's own; a record read, its key's (knob_rec_read) */
	const struct sys_knob_family *fam;
	char key[SYS_KNOB_KEY];
	char target[PATH_MAX];
	char original[SYS_KNOB_VAL];
	char written[SYS_KNOB_VAL];   /* what the knob read after jobmix's last write */
	char pending[SYS_KNOB_VAL];   /* a write under way ("" none): the knob may read it */
	bool has_written;             /* a record of this format (an old one has no written=) */
	long pid;
	char identity[SYS_SCHED_ID];
};

/*
 * A record: the original, and what jobmix wrote (written=, and pending= while
 * a write is under way), so that a repair restores the original only while
 * the knob still reads a value jobmix wrote.  The scratch knob ("fs") has no
 * written=: what is mounted at jobmix's own mount point is jobmix's.
 */
static int knob_rec_fill(FILE *f, void *ctx)
{
	const struct knob_rec *r = ctx;
	if (fprintf(f, "kind=%d\nkey=%s\ntarget=%s\noriginal=%s\npid=%ld\nsaved=%ld\n"
		    "identity=%s\n", r->kind, r->key, r->target, r->original, r->pid,
		    (long)time(NULL), r->identity) < 0)
		return -1;
	if (r->fam && r->fam->written && fprintf(f, "written=%s\n", r->written) < 0)
		return -1;
	return r->pending[0] && fprintf(f, "pending=%s\n", r->pending) < 0 ? -1 : 0;
}

/* Read record `name`: 0; 1 when there is none; -1 with err. */
static int knob_rec_read(int dirfd, const char *name, struct knob_rec *r, char *err,
			 size_t errlen)
{
	char line[PATH_MAX + 32];
	memset(r, 0, sizeof(*r));
	r->kind = -1;
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		if (errno == ENOENT)
			return 1;
		return sys_err(err, errlen, "cannot open %s/knob/%s: %s", sys_state_dir(), name,
				strerror(errno));
	}
	struct stat st;
	FILE *f = NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    !(f = fdopen(fd, "r"))) {
		close(fd);
		return sys_err(err, errlen, "%s/knob/%s is not a record of ours", sys_state_dir(),
				name);
	}
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		char *eq = strchr(line, '=');
		if (!eq)
			continue;
		*eq++ = 0;
		if (!strcmp(line, "kind"))
			r->kind = atoi(eq);
		else if (!strcmp(line, "key"))
			snprintf(r->key, sizeof(r->key), "%s", eq);
		else if (!strcmp(line, "target"))
			snprintf(r->target, sizeof(r->target), "%s", eq);
		else if (!strcmp(line, "original"))
			snprintf(r->original, sizeof(r->original), "%s", eq);
		else if (!strcmp(line, "pid"))
			r->pid = strtol(eq, NULL, 10);
		else if (!strcmp(line, "identity"))
			snprintf(r->identity, sizeof(r->identity), "%s", eq);
		else if (!strcmp(line, "written"))
			r->has_written = snprintf(r->written, sizeof(r->written), "%s", eq) >= 0;
		else if (!strcmp(line, "pending"))
			snprintf(r->pending, sizeof(r->pending), "%s", eq);
	}
	fclose(f);
	r->fam = knob_fam(r->key);   /* the record's own text: classified once here */
	if (!r->fam || (int)r->fam->kind != r->kind || !sys_knob_value_ok(r->original) ||
	    (r->has_written && !sys_knob_value_ok(r->written)) ||
	    (r->pending[0] && !sys_knob_value_ok(r->pending)))
		return sys_err(err, errlen, "%s/knob/%s: not a record jobmix wrote (kept)",
				sys_state_dir(), name);
	return 0;
}

/* Drop record `name` and say why (msg): `what`, or -1 when it cannot be dropped. */
static int knob_rec_drop(int dirfd, const char *name, int what, char *msg, size_t msglen)
{
	if (!unlinkat(dirfd, name, 0) || errno == ENOENT)
		return what;
	size_t n = strlen(msg);
	snprintf(msg + n, msglen - n, " (but cannot remove %s/knob/%s: %s)", sys_state_dir(),
		 name, strerror(errno));
	return SYS_REPAIR_FAILED;
}

/*
 * The record a temporary file of the atomic writer (".NAME.<16 hex>.tmp",
 * atomic.c) was to become, into name: true when ent is one.
 */
static bool knob_tmp_of(const char *ent, char *name, size_t len)
{
	size_t n = strlen(ent);
	if (ent[0] != '.' || n < 1 + 1 + 1 + 16 + 4 || strcmp(ent + n - 4, ".tmp") ||
	    ent[n - 4 - 16 - 1] != '.' || n - 4 - 16 - 2 >= len)
		return false;
	for (size_t i = n - 4 - 16; i < n - 4; i++)
		if (!((ent[i] >= '0' && ent[i] <= '9') || (ent[i] >= 'a' && ent[i] <= 'f')))
			return false;
	snprintf(name, len, "%.*s", (int)(n - 4 - 16 - 2), ent + 1);
	return knob_name_ok(name);
}

/*
 * With the knob's lock held: remove what a writer of record `name` killed
 * mid-write left (its temporary file; the record is the old one or none).
 */
static void knob_tmp_drop(int dirfd, const char *name)
{
	/* its own open directory: a dup would share the offset of a readdir under way */
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;
	char of[NAME_MAX + 1];
	while (dir && (e = readdir(dir)))
		if (knob_tmp_of(e->d_name, of, sizeof(of)) && !strcmp(of, name))
			unlinkat(dirfd, e->d_name, 0);
	if (dir)
		closedir(dir);
	else if (fd >= 0)
		close(fd);
}

/*
 * With the knob's lock held: act on the record `name` a dead run left.
 * The original goes back only while the target is the one recorded and the
 * knob reads what jobmix wrote (or a write it had under way); a value set
 * since is left as it is and the record dropped; a record that can never
 * apply (the file gone: an iosched tunable under another scheduler, a
 * sysctl of a module unloaded) is dropped.  An old record, without what
 * jobmix wrote, is restored as before and said so.  A sys_repair kind
 * with msg, or -1 when there is none.
 */
static int knob_rec_repair(int dirfd, const char *name, char *msg, size_t msglen)
{
	struct knob_rec r;
	char e2[512], id[SYS_SCHED_ID], now[SYS_KNOB_VAL], on[PATH_MAX + 8] = "";
	msg[0] = 0;
	knob_tmp_drop(dirfd, name);
	int rc = knob_rec_read(dirfd, name, &r, e2, sizeof(e2));
	if (rc > 0)
		return -1;
	if (rc < 0) {
		snprintf(msg, msglen, "%s", e2);
		return SYS_REPAIR_FAILED;
	}
	struct sys_knob k = { .kind = (enum sys_knob_kind)r.kind, .fam = r.fam };
	snprintf(k.key, sizeof(k.key), "%s", r.key);
	snprintf(k.target, sizeof(k.target), "%s", r.target);
	const char *what = r.target[0] ? r.target : "the system";
	if (r.target[0])
		snprintf(on, sizeof(on), " on %s", r.target);
	if (k.fam->identity(r.target, id, sizeof(id)) || strcmp(id, r.identity)) {
		snprintf(msg, msglen, "%s on %s: %s (recorded as %s); the record jobmix pid %ld "
			 "left (to restore '%s') dropped, nothing changed", r.key, what,
			 id[0] ? "another one now" : "gone", r.identity, r.pid, r.original);
		return knob_rec_drop(dirfd, name, id[0] ? SYS_REPAIR_DROPPED : SYS_REPAIR_CLEARED,
				     msg, msglen);
	}
	if (knob_get(&k, now, sizeof(now))) {
		if (errno != ENOENT) {
			snprintf(msg, msglen, "%s%s: cannot read it to restore '%s' left by jobmix "
				 "pid %ld: %s", r.key, on, r.original, r.pid, strerror(errno));
			return SYS_REPAIR_FAILED;
		}
		snprintf(msg, msglen, "%s%s: not there now%s: the record jobmix pid %ld left (to "
			 "restore '%s') can never apply, dropped", r.key, on,
			 strstr(r.key, ".iosched.") ? " (not a tunable of the active scheduler)" : "",
			 r.pid, r.original);
		return knob_rec_drop(dirfd, name, SYS_REPAIR_CLEARED, msg, msglen);
	}
	bool ours = !r.has_written || !strcmp(now, r.written) ||
		    (r.pending[0] && !strcmp(now, r.pending));
	if (strcmp(now, r.original) && !ours) {
		snprintf(msg, msglen, "%s%s now %s, not the %s jobmix wrote: left as it is, record "
			 "dropped (it would have restored '%s', left by jobmix pid %ld)", r.key, on,
			 now, r.written, r.original, r.pid);
		return knob_rec_drop(dirfd, name, SYS_REPAIR_DROPPED, msg, msglen);
	}
	if (strcmp(now, r.original) && k.fam->restore(k.key, k.target, r.original, e2, sizeof(e2))) {
		snprintf(msg, msglen, "%s on %s: cannot restore '%s' left by jobmix pid %ld: %s",
			 r.key, what, r.original, r.pid, e2);
		return SYS_REPAIR_FAILED;
	}
	if (!k.fam->written)
		snprintf(msg, msglen, "scratch %s: unmounted the file system jobmix pid %ld left "
			 "mounted at %s/scratch/%s", what, r.pid, sys_state_dir(), what);
	else
		snprintf(msg, msglen, "%s on %s: restored '%s' left changed by jobmix pid %ld%s",
			 r.key, what, r.original, r.pid, r.has_written ? "" :
			 " (an old record, without the value jobmix wrote: restored unchecked)");
	return knob_rec_drop(dirfd, name, SYS_REPAIR_RESTORED, msg, msglen);
}

/* (Re)write the record of held knob k: its original, what it wrote, a write under way. */
static int knob_rec_save(const struct sys_knob *k, const char *pending, char *err,
			 size_t errlen)
{
	struct knob_rec r = { .kind = (int)k->kind, .fam = k->fam, .pid = (long)getpid(),
			      .has_written = true };
	char why[512];
	snprintf(r.key, sizeof(r.key), "%s", k->key);
	snprintf(r.target, sizeof(r.target), "%s", k->target);
	snprintf(r.original, sizeof(r.original), "%s", k->original);
	snprintf(r.written, sizeof(r.written), "%s", k->written);
	snprintf(r.pending, sizeof(r.pending), "%s", pending);
	snprintf(r.identity, sizeof(r.identity), "%s", k->identity);
	if (!atom_write_private_at(k->state_dir, k->name, knob_rec_fill, &r, why, sizeof(why)))
		return 0;
	return sys_err(err, errlen, "cannot save the record of %s in %s/knob/%s: %s", k->key,
		       sys_state_dir(), k->name, why);
}

static void knob_close(struct sys_knob *k, bool drop_lock)
{
	char lock[NAME_MAX + 1];
	snprintf(lock, sizeof(lock), KNOB_LOCK_PREFIX "%s", k->name);
	if (k->lock_fd >= 0) {
		if (drop_lock)
			sys_lock_drop(k->lock_dir, lock, k->lock_fd);
		else
			close(k->lock_fd);
	}
	if (k->lock_dir >= 0)
		close(k->lock_dir);
	if (k->state_dir >= 0)
		close(k->state_dir);
	k->lock_fd = k->lock_dir = k->state_dir = -1;
}

int sys_knob_hold(struct sys_knob *k, const struct sys_knob_family *f, const char *key,
		  const char *target, char *err, size_t errlen)
{
	char lock[NAME_MAX + 1];
	memset(k, 0, sizeof(*k));
	k->lock_fd = k->lock_dir = k->state_dir = -1;
	if (!f || strlen(key) >= sizeof(k->key))
		return sys_err(err, errlen, "%s: not a system knob", key);
	k->kind = f->kind;
	k->fam = f;
	snprintf(k->key, sizeof(k->key), "%s", key);
	if (f->target(target, k->target, sizeof(k->target)))
		return sys_err(err, errlen, "%s: no mount found for %s", key, target);
	if (knob_name(k, k->name, sizeof(k->name)))
		return sys_err(err, errlen, "%s on %s: no safe record name", key, k->target);
	if (knob_dirs(true, &k->lock_dir, &k->state_dir, err, errlen))
		return -1;
	snprintf(lock, sizeof(lock), KNOB_LOCK_PREFIX "%s", k->name);
	char e2[512];
	k->lock_fd = sys_lock_take(k->lock_dir, lock, f->lock, e2, sizeof(e2));
	if (k->lock_fd < 0) {
		snprintf(err, errlen, "%s on %s: %s", key, k->target[0] ? k->target : "the system",
			 e2);
		goto fail;
	}
	int what = knob_rec_repair(k->state_dir, k->name, k->repaired, sizeof(k->repaired));
	if (what == SYS_REPAIR_FAILED) {
		snprintf(err, errlen, "%s", k->repaired);
		goto fail;
	}
	if (knob_get(k, k->original, sizeof(k->original)) || !sys_knob_value_ok(k->original)) {
		snprintf(err, errlen, "%s on %s: cannot read its value", key,
			 k->target[0] ? k->target : "the system");
		goto fail;
	}
	snprintf(k->current, sizeof(k->current), "%s", k->original);
	snprintf(k->written, sizeof(k->written), "%s", k->original);
	if (f->identity(k->target, k->identity, sizeof(k->identity))) {
		snprintf(err, errlen, "%s on %s: cannot tell which it is", key, k->target);
		goto fail;
	}
	if (knob_rec_save(k, "", err, errlen))
		goto fail;
	k->saved = true;
	return 0;
fail:
	knob_close(k, true);
	return -1;
}

int sys_knob_set(struct sys_knob *k, const char *value, char *read_back, size_t rblen,
		 char *err, size_t errlen)
{
	const char *what = k->target[0] ? k->target : "the system";
	if (rblen)
		read_back[0] = 0;
	if (k->lock_fd < 0)
		return sys_err(err, errlen, "%s: setting a knob that is not held", k->key);
	if (!sys_knob_value_ok(value))
		return sys_err(err, errlen, "%s=%s: not a value jobmix writes", k->key, value);
	/* the record first: a jobmix killed mid-write left either value, both ours */
	if (k->saved && knob_rec_save(k, value, err, errlen))
		return -1;
	/* unknown after a failed write: treat it as changed */
	snprintf(k->current, sizeof(k->current), "%s", value);
	char e2[512], now[SYS_KNOB_VAL];
	if (k->fam->put(k->key, k->target, value, e2, sizeof(e2)))
		return sys_err(err, errlen, "%s=%s on %s: %s", k->key, value, what, e2);
	if (knob_get(k, now, sizeof(now)))
		return sys_err(err, errlen, "%s=%s on %s: set, but cannot read it back", k->key,
				value, what);
	if (rblen)
		snprintf(read_back, rblen, "%s", now);
	/* what it reads now (read_ahead_kb 5 reads 4) is what a repair will look for */
	snprintf(k->written, sizeof(k->written), "%s", now);
	return k->saved && sys_knob_value_ok(now) ? knob_rec_save(k, "", err, errlen) : 0;
}

int sys_knob_release(struct sys_knob *k, char *err, size_t errlen)
{
	int ret = 0;
	char now[SYS_KNOB_VAL], e2[512];
	if (k->lock_fd < 0)
		return 0;
	bool same = !knob_get(k, now, sizeof(now)) && !strcmp(now, k->original);
	if (!same && (k->fam->restore(k->key, k->target, k->original, e2, sizeof(e2)) ||
		      knob_get(k, now, sizeof(now)) ||
		      strcmp(now, k->original))) {
		snprintf(err, errlen, "%s on %s: cannot put '%s' back (%s)", k->key,
			 k->target[0] ? k->target : "the system", k->original,
			 e2[0] && !same ? e2 : "it reads back otherwise");
		ret = -1;
	}
	if (!ret) {
		snprintf(k->current, sizeof(k->current), "%s", k->original);
		if (k->saved && unlinkat(k->state_dir, k->name, 0) && errno != ENOENT) {
			snprintf(err, errlen, "%s: restored '%s' but cannot remove %s/knob/%s: %s",
				 k->key, k->original, sys_state_dir(), k->name, strerror(errno));
			ret = -1;
		}
		k->saved = false;
	}
	knob_close(k, true);
	return ret;
}

int sys_knob_repair(sys_repair_report *report, void *arg, char *err, size_t errlen)
{
	int lock_dir, state_dir, failures = 0;
	int rc = knob_dirs(false, &lock_dir, &state_dir, err, errlen);
	if (rc)
		return rc > 0 ? 0 : -1;
	int fd = dup(state_dir);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	if (!dir) {
		if (fd >= 0)
			close(fd);
		close(lock_dir);
		close(state_dir);
		return sys_err(err, errlen, "cannot read %s/knob: %s", sys_state_dir(),
				strerror(errno));
	}
	struct dirent *e;
	while ((e = readdir(dir))) {
		char lock[NAME_MAX + 1], msg[SYS_SCHED_ID + 256], e2[512], rec[NAME_MAX + 1];
		struct stat st;
		bool tmp = !knob_name_ok(e->d_name);
		if (tmp && (!knob_tmp_of(e->d_name, rec, sizeof(rec)) ||
			    !fstatat(state_dir, rec, &st, AT_SYMLINK_NOFOLLOW)))
			continue;   /* not ours, or its record's visit takes it */
		snprintf(lock, sizeof(lock), KNOB_LOCK_PREFIX "%s", tmp ? rec : e->d_name);
		int lk = sys_lock_take(lock_dir, lock, SYS_LOCK_REPAIR, e2, sizeof(e2));
		if (tmp) {   /* a first record killed mid-write: only its temporary file */
			if (lk >= 0) {
				knob_tmp_drop(state_dir, rec);
				sys_lock_drop(lock_dir, lock, lk);
			}
			continue;
		}
		if (lk < 0) {
			bool held = errno == EWOULDBLOCK;
			snprintf(msg, sizeof(msg), "%s%s", e2, held ? "; left to it" : "");
			if (report)
				report(arg, held ? SYS_REPAIR_LEFT : SYS_REPAIR_FAILED, msg);
			failures += !held;
			continue;
		}
		int what = knob_rec_repair(state_dir, e->d_name, msg, sizeof(msg));
		sys_lock_drop(lock_dir, lock, lk);
		if (what >= 0 && report)
			report(arg, (enum sys_repair)what, msg);
		failures += what == SYS_REPAIR_FAILED;
	}
	closedir(dir);
	close(lock_dir);
	close(state_dir);
	return failures;
}

int sys_knob_left(char *names, size_t len)
{
	int lock_dir, state_dir, n = 0;
	char err[512];
	size_t used = 0;
	if (len)
		names[0] = 0;
	if (knob_dirs(false, &lock_dir, &state_dir, err, sizeof(err)))
		return 0;
	int fd = dup(state_dir);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;
	while (dir && (e = readdir(dir))) {
		struct knob_rec r;
		char lock[NAME_MAX + 1];
		if (!knob_name_ok(e->d_name))
			continue;
		snprintf(lock, sizeof(lock), KNOB_LOCK_PREFIX "%s", e->d_name);
		int lk = sys_lock_take(lock_dir, lock, SYS_LOCK_LOOK, err, sizeof(err));
		if (lk < 0)
			continue;   /* a live run's */
		int rc = knob_rec_read(state_dir, e->d_name, &r, err, sizeof(err));
		sys_lock_drop(lock_dir, lock, lk);
		if (rc > 0)
			continue;
		n++;
		if (used < len)
			used += (size_t)snprintf(names + used, len - used, "%s%s%s%s", used ? ", " : "",
						 rc ? e->d_name : r.key, !rc && r.target[0] ? " on " : "",
						 !rc ? r.target : "");
	}
	if (dir)
		closedir(dir);
	else if (fd >= 0)
		close(fd);
	close(lock_dir);
	close(state_dir);
	return n;
}
