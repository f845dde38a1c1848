// SPDX-License-Identifier: GPL-2.0-only
/*
 * fileio: sysbench fileio's work over a set of prepared files.
 *
 * Files are written once per load point outside the timed region: shared
 * files by prepare() in the parent (one set per work directory), private
 * files by setup() in each user before the start barrier.  Every run_once
 * then takes `ops` events from the request sequence (struct fileio_ctl):
 * reads and writes of `block` bytes and the fsync rounds sysbench
 * schedules, the sequence shared by all users of a shared entry as
 * sysbench's threads share it.  The hot path allocates nothing and logs
 * nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jobmix/job.h"

enum fileio_mode { FIO_SEQWR, FIO_SEQREWR, FIO_SEQRD, FIO_RNDRD, FIO_RNDWR, FIO_RNDRW };

enum fileio_flag { FIO_F_DIRECT = 1u << 0, FIO_F_SYNC = 1u << 1, FIO_F_DSYNC = 1u << 2 };

enum fileio_fsync_mode { FIO_FSYNC, FIO_FDATASYNC };

static const char *const fileio_modes[] = { "seqwr", "seqrewr", "seqrd",
					    "rndrd", "rndwr", "rndrw", NULL };
static const char *const fileio_flags[] = { "direct", "sync", "dsync", NULL };
static const char *const fileio_fsync_modes[] = { "fsync", "fdatasync", NULL };

#define FIO_DEF_FILE_SIZE (16ull << 20) /* must match the table's "16m" */

struct fileio_params {
	int mode;
	int64_t files;
	uint64_t file_size;
	uint64_t total_size;
	uint64_t block;
	int64_t ops;
	double rw_ratio;
	int64_t fsync_every;
	bool fsync_all;
	bool fsync_end;
	int fsync_mode;
	unsigned flags;
	bool shared;
	bool sparse;                   /* files truncated to size, holes: writes allocate */
	char device[JOB_DEVICE_LEN];   /* "": files; else the block device's regions */
};

/*
 * The request sequence, as sysbench keeps it for all its threads: requests
 * issued, reads and writes decided (the rndrw ratio), the fsync round (next
 * file, dirty since the last round) and the sequential position.  With
 * shared: true it lives in a file mapping (MAP_SHARED) that every user of
 * the work directory maps, guarded by a process-shared robust mutex, as
 * sysbench guards its globals; otherwise each user has its own, unlocked.
 */
struct fileio_ctl {
	pthread_mutex_t lock;     /* shared only */
	uint64_t requests;        /* reads + writes issued (sysbench req_performed) */
	uint64_t reads, writes;   /* decided so far */
	uint32_t fsync_next;      /* next file of an fsync round */
	uint32_t dirty;           /* a write since the last round ended */
	uint32_t cur;             /* sequential: file ...        */
	uint64_t off;             /* ... and offset of the next request */
};

enum fileio_op { FIO_OP_READ, FIO_OP_WRITE, FIO_OP_FSYNC };

/* Per-user state, made by setup(), used by run_once(), freed by teardown(). */
struct fileio_state {
	int *fds;
	unsigned char *dirty;     /* written in this run (end-of-job sync)      */
	char *ownbuf;             /* aligned buffer when iobuf is not enough    */
	char *buf;
	struct fileio_ctl *ctl;   /* the shared mapping, or &own                */
	struct fileio_ctl own;
	bool shared_ctl;
	bool shared_files;        /* fds from job_shared_open(): one set per process */
	unsigned nfiles;
	uint64_t fsize;           /* bytes per file                              */
	uint64_t nblocks;         /* whole blocks per file                       */
	unsigned ncreated;        /* per-user files 0..ncreated-1 may exist      */
	bool sparse;              /* the files are holes until written           */
	unsigned entry, user;
	int dirfd;                /* the held directory of the files (not ours to close) */
	const char *dir;          /* its path, for messages */
	const char *device;       /* the block device whose regions the files are, or NULL */
};

#define FIO_NAME 64

/* Bytes per file: total_size / files when total_size is given. */
static uint64_t fileio_file_size(const struct fileio_params *p)
{
	return p->total_size ? p->total_size / (uint64_t)p->files : p->file_size;
}

/*
 * The name of file i in its directory (FIO_NAME bytes).  Private files
 * carry the mix entry and the user (a user may run several fileio entries;
 * users may share the directory); shared files carry their geometry, so
 * mix entries with the same files x file_size share one set (e.g. buffered
 * and O_DIRECT users on one file).  Made where a file is opened, and on
 * the error path for a message.
 */
static char *fileio_name(char *buf, const struct fileio_state *s, bool shared, unsigned i)
{
	if (s->device)
		snprintf(buf, FIO_NAME, "%s (region %u)", s->device, i);
	else if (shared)
		snprintf(buf, FIO_NAME, "fileio-%ux%llu%s.%u", s->nfiles,
			 (unsigned long long)s->fsize, s->sparse ? "-sparse" : "", i);
	else
		snprintf(buf, FIO_NAME, "fileio.%u.%u.u%u", s->entry, i, s->user);
	return buf;
}

/* The shared request sequence of a mix entry: one per work directory. */
static char *fileio_ctl_name(char *buf, unsigned entry)
{
	snprintf(buf, FIO_NAME, "fileio.%u.ctl", entry);
	return buf;
}

/* "<op> '<dir>/<file f>' failed: ..." for file f of the set; returns -1. */
static int fileio_file_fail(struct job_ctx *c, const struct fileio_state *s, bool shared,
			    const char *op, unsigned f, int err)
{
	char name[FIO_NAME];
	return job_fail_at(c, op, s->dir, fileio_name(name, s, shared, f), err);
}

/*
 * Cross-parameter checks at load time.  file_size with total_size is judged
 * by value, not by set_mask, so that a printed resolved workload (which
 * lists every parameter) loads again: file_size left at its default 16m
 * beside total_size is accepted.
 */
static int fileio_check(const struct job_kind *k, const void *params, uint64_t set_mask,
			char *err, size_t errlen)
{
	const struct fileio_params *p = params;
	(void)k, (void)set_mask;
	if (p->total_size && p->file_size != FIO_DEF_FILE_SIZE) {
		snprintf(err, errlen, "give file_size or total_size, not both");
		return -1;
	}
	uint64_t fsize = fileio_file_size(p);
	if (fsize < p->block) {
		snprintf(err, errlen, "file size %llu bytes%s is smaller than block %llu",
			 (unsigned long long)fsize, p->total_size ? " (total_size / files)" : "",
			 (unsigned long long)p->block);
		return -1;
	}
	if ((p->flags & FIO_F_DIRECT) && p->block % 512) {
		snprintf(err, errlen, "block %llu is not a multiple of 512, as O_DIRECT needs",
			 (unsigned long long)p->block);
		return -1;
	}
	if (p->sparse && p->device[0]) {
		snprintf(err, errlen, "sparse: true makes files; a device's regions are not files");
		return -1;
	}
	uint64_t bytes;
	if (p->device[0] && job_device_check(p->device, &bytes, err, errlen))
		return -1;
	if (p->device[0] && (uint64_t)p->files * fsize > bytes) {
		snprintf(err, errlen, "files x file_size (%llu bytes) do not fit /dev/%s (%llu bytes)",
			 (unsigned long long)((uint64_t)p->files * fsize), p->device,
			 (unsigned long long)bytes);
		return -1;
	}
	return 0;
}

/* Does the entry write (any mode but seqrd and rndrd)? */
static bool fileio_writes(const struct fileio_params *p)
{
	return p->mode != FIO_SEQRD && p->mode != FIO_RNDRD;
}

/* job_kind.device: the device whose regions are the files, or NULL. */
static const char *fileio_device(const void *params, bool *writes)
{
	const struct fileio_params *p = params;
	*writes = fileio_writes(p);
	return p->device[0] ? p->device : NULL;
}

/* A file of `size` bytes that are all a hole (made anew): 0 or an errno. */
static int fileio_make_sparse(int dirfd, const char *leaf, uint64_t size)
{
	int fd = openat(dirfd, leaf, O_CREAT | O_TRUNC | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return errno;
	int err = ftruncate(fd, (off_t)size) ? errno : 0;
	close(fd);
	return err;
}

/*
 * Shared files: one set per work directory, written fully and fsynced (or,
 * sparse, truncated to their size anew at every point); and
 * the entry's request sequence (struct fileio_ctl), zeroed for each load
 * point, its mutex process-shared and robust (a killed user cannot leave it
 * locked for the others).
 */
static int fileio_prepare(struct job_prep *prep, const struct job_kind *k, const void *params)
{
	const struct fileio_params *p = params;
	(void)k;
	if (p->device[0]) {
		/* before every point: still nobody's; its regions are read as they are */
		char err[256], path[JOB_DEVICE_LEN + 8];
		uint64_t bytes;
		snprintf(path, sizeof(path), "/dev/%s", p->device);
		if (job_device_check(p->device, &bytes, err, sizeof(err)))
			return job_prep_fail(prep, "claim (nobody else's, O_EXCL)", path, EBUSY);
	}
	if (!p->shared)
		return 0;
	struct fileio_state geo = { .nfiles = (unsigned)p->files, .fsize = fileio_file_size(p),
				    .sparse = p->sparse };
	const int dfd = prep->shared_fd;
	char name[FIO_NAME];
	for (unsigned i = 0; !p->device[0] && i < geo.nfiles; i++) {
		fileio_name(name, &geo, true, i);
		if (p->sparse) {
			/* holes again at every point: each one's writes allocate */
			int err = fileio_make_sparse(dfd, name, geo.fsize);
			if (err)
				return job_prep_fail_at(prep, "truncate", name, err);
			continue;
		}
		if (job_file_is_filled(dfd, name, geo.fsize))
			continue; /* made by an entry with the same geometry */
		const char *op = "";
		/* in `block` requests, as sysbench prepare writes its files */
		int err = job_fill_file_req(dfd, name, geo.fsize, prep->seed + i, (size_t)p->block,
					    &op);
		if (err)
			return job_prep_fail_at(prep, op, name, err);
	}

	fileio_ctl_name(name, prep->entry);
	int fd = openat(dfd, name, O_CREAT | O_TRUNC | O_RDWR | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return job_prep_fail_at(prep, "create", name, errno);
	int ret = -1;
	if (ftruncate(fd, sizeof(struct fileio_ctl))) {
		job_prep_fail_at(prep, "truncate", name, errno);
		goto out;
	}
	struct fileio_ctl *ctl = mmap(NULL, sizeof(*ctl), PROT_READ | PROT_WRITE, MAP_SHARED,
				      fd, 0);
	if (ctl == MAP_FAILED) {
		job_prep_fail_at(prep, "mmap", name, errno);
		goto out;
	}
	pthread_mutexattr_t a;
	int rc = pthread_mutexattr_init(&a);
	if (!rc)
		rc = pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	if (!rc)
		rc = pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	if (!rc)
		rc = pthread_mutex_init(&ctl->lock, &a);
	pthread_mutexattr_destroy(&a);
	munmap(ctl, sizeof(*ctl));
	if (rc) {
		job_prep_fail_at(prep, "init the process-shared mutex in", name, rc);
		goto out;
	}
	ret = 0;
out:
	close(fd);
	return ret;
}

/* Release what setup() acquired; removes per-user files. */
static void fileio_free(struct fileio_state *s)
{
	char name[FIO_NAME];
	if (s->device && s->fds && s->fds[0] >= 0)
		close(s->fds[0]);   /* one descriptor for every region */
	for (unsigned i = 0; !s->device && s->fds && i < s->nfiles; i++)
		if (s->fds[i] >= 0 && s->shared_files)
			job_shared_close(s->fds[i]);
		else if (s->fds[i] >= 0)
			close(s->fds[i]);
	for (unsigned i = 0; i < s->ncreated; i++)
		unlinkat(s->dirfd, fileio_name(name, s, false, i), 0);
	if (s->shared_ctl)
		munmap(s->ctl, sizeof(*s->ctl));
	free(s->ownbuf);
	free(s->dirty);
	free(s->fds);
	free(s);
}

/* Map the entry's shared request sequence made by prepare(). */
static int fileio_map_ctl(struct job_ctx *c, struct fileio_state *s)
{
	char name[FIO_NAME];
	fileio_ctl_name(name, c->entry);
	int fd = openat(c->shared_fd, name, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return job_failf(c, "open '%s/%s' failed: %s (the shared request counter "
					 "is made by prepare())", c->shared_dir, name,
					 strerror(errno));
		return job_fail_at(c, "open", c->shared_dir, name, errno);
	}
	void *m = mmap(NULL, sizeof(*s->ctl), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	int err = errno;
	close(fd);
	if (m == MAP_FAILED)
		return job_fail_at(c, "mmap", c->shared_dir, name, err);
	s->ctl = m;
	s->shared_ctl = true;
	return 0;
}

/*
 * Per user, before the barrier: write private files (unless shared), open
 * every file with the requested flags, choose an aligned buffer, map the
 * shared request sequence.
 */
static int fileio_setup(struct job_ctx *c, const struct job_kind *k, const void *params,
			void **state)
{
	const struct fileio_params *p = params;
	(void)k;
	char name[FIO_NAME];
	struct fileio_state *s = calloc(1, sizeof(*s));
	if (!s)
		return job_fail(c, "allocate state", NULL, ENOMEM);
	s->nfiles = (unsigned)p->files;
	s->fsize = fileio_file_size(p);
	s->sparse = p->sparse;
	s->nblocks = s->fsize / p->block;
	s->entry = c->entry;
	s->user = c->user;
	s->ctl = &s->own;
	s->dirfd = p->shared ? c->shared_fd : c->dir_fd;
	s->dir = p->shared ? c->shared_dir : c->dir;
	s->fds = malloc(s->nfiles * sizeof(*s->fds));
	s->dirty = calloc(s->nfiles, 1);
	if (!s->fds || !s->dirty) {
		job_fail(c, "allocate state", NULL, ENOMEM);
		goto fail;
	}
	for (unsigned i = 0; i < s->nfiles; i++)
		s->fds[i] = -1;
	if (s->nblocks == 0) {
		job_failf(c, "file size %llu is smaller than block %llu",
			  (unsigned long long)s->fsize, (unsigned long long)p->block);
		goto fail;
	}

	s->buf = job_io_buffer(c, s->dirfd, s->dir, p->flags & FIO_F_DIRECT, p->block, &s->ownbuf);
	if (!s->buf)
		goto fail;
	if (p->shared && fileio_map_ctl(c, s))
		goto fail;

	int oflags = 0;
	switch (p->mode) {
	case FIO_SEQRD:
	case FIO_RNDRD:
		oflags = O_RDONLY;
		break;
	case FIO_SEQWR:
	case FIO_SEQREWR:
	case FIO_RNDWR:
		oflags = O_WRONLY;
		break;
	default:
		oflags = O_RDWR;
		break;
	}
	if (p->flags & FIO_F_DIRECT)
		oflags |= O_DIRECT;
	if (p->flags & FIO_F_SYNC)
		oflags |= O_SYNC;
	if (p->flags & FIO_F_DSYNC)
		oflags |= O_DSYNC;

	if (p->device[0]) {
		/* the device's regions: one descriptor, file i at i x file_size */
		uint64_t bytes;
		s->device = p->device;
		s->dir = "/dev";
		s->fds[0] = job_device_open(c, p->device, oflags, &bytes);
		if (s->fds[0] < 0)
			goto fail;
		if ((uint64_t)s->nfiles * s->fsize > bytes) {
			job_failf(c, "/dev/%s: %llu bytes, less than files x file_size", p->device,
				  (unsigned long long)bytes);
			goto fail;
		}
		for (unsigned i = 1; i < s->nfiles; i++)
			s->fds[i] = s->fds[0];
		*state = s;
		return 0;
	}
	for (unsigned i = 0; i < s->nfiles; i++) {
		fileio_name(name, s, p->shared, i);
		/* seqwr truncates each file as it reaches it: create it empty */
		int create = 0;
		if (!p->shared) {
			s->ncreated = i + 1;
			if (p->mode == FIO_SEQWR)
				create = O_CREAT | O_TRUNC;
		}
		if (!p->shared && !create && p->sparse) {
			int err = fileio_make_sparse(s->dirfd, name, s->fsize);
			if (err) {
				job_fail_at(c, "truncate", s->dir, name, err);
				goto fail;
			}
		} else if (!p->shared && !create) {
			const char *op = "";
			int err = job_fill_file_req(s->dirfd, name, s->fsize,
						    ((uint64_t)c->user << 32) + i, (size_t)p->block,
						    &op);
			if (err) {
				job_fail_at(c, op, s->dir, name, err);
				goto fail;
			}
		}
		/* shared files: one descriptor per process, whatever its thread users */
		s->shared_files = p->shared;
		s->fds[i] = p->shared ? job_shared_open(s->dirfd, name, oflags)
			: openat(s->dirfd, name, oflags | create | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (s->fds[i] < 0) {
			int err = errno;
			if (p->shared && err == ENOENT)
				job_failf(c, "open '%s/%s' failed: %s (shared files are made by "
					  "prepare())", s->dir, name, strerror(err));
			else if (err == EMFILE)
				job_failf(c, "open '%s/%s' failed: %s (files: %u needs that many "
					  "descriptors per user; raise ulimit -n)", s->dir, name,
					  strerror(err), s->nfiles);
			else
				job_fail_at(c, "open", s->dir, name, err);
			goto fail;
		}
	}
	*state = s;
	return 0;
fail:
	fileio_free(s);
	return -1;
}

/* Describe a failed request on file f; returns -1. */
static int fileio_req_fail(struct job_ctx *c, const struct fileio_state *s,
			   const struct fileio_params *p, const char *op, unsigned f,
			   uint64_t off, int err)
{
	char name[FIO_NAME];
	fileio_name(name, s, p->shared, f);
	if (err)
		return job_failf(c, "%s of %llu bytes at offset %llu of '%s/%s' failed: %s", op,
				 (unsigned long long)p->block, (unsigned long long)off, s->dir,
				 name, strerror(err));
	return job_failf(c, "%s of %llu bytes at offset %llu of '%s/%s' came up short "
			 "(file shorter than %llu bytes?)", op, (unsigned long long)p->block,
			 (unsigned long long)off, s->dir, name, (unsigned long long)s->fsize);
}

/* fsync (or fdatasync) file f, counted. */
static int fileio_fsync(struct job_ctx *c, struct fileio_state *s,
			const struct fileio_params *p, unsigned f)
{
	int rc = p->fsync_mode == FIO_FDATASYNC ? fdatasync(s->fds[f]) : fsync(s->fds[f]);
	if (rc)
		return fileio_file_fail(c, s, p->shared,
					p->fsync_mode == FIO_FDATASYNC ? "fdatasync" : "fsync", f,
					errno);
	c->io.fsyncs++;
	return 0;
}

/*
 * End of a job without fsyncs of its own: the workload's sync: policy.
 * With sync: file the only call that can fail is the file's fsync, named
 * here (the name made only then).
 */
static int fileio_sync_end(struct job_ctx *c, struct fileio_state *s,
			   const struct fileio_params *p)
{
	int ret = 0;
	if (c->sync == JOB_SYNC_GLOBAL || c->sync == JOB_SYNC_EXEC) {
		memset(s->dirty, 0, s->nfiles);
		return job_sync_point(c, -1, NULL, NULL);
	}
	for (unsigned f = 0; f < s->nfiles; f++) {
		if (!s->dirty[f])
			continue;
		s->dirty[f] = 0;
		if (!ret && job_sync_point(c, s->fds[f], NULL, NULL))
			ret = fileio_file_fail(c, s, p->shared, "fsync", f, errno);
	}
	return ret;
}

static int fileio_lock(struct fileio_state *s)
{
	if (!s->shared_ctl)
		return 0;
	int rc = pthread_mutex_lock(&s->ctl->lock);
	if (rc == EOWNERDEAD) /* a killed user held it: the counters are still usable */
		rc = pthread_mutex_consistent(&s->ctl->lock);
	return rc;
}

static void fileio_unlock(struct fileio_state *s)
{
	if (s->shared_ctl)
		pthread_mutex_unlock(&s->ctl->lock);
}

/*
 * The next event of the sequence (caller holds the lock), sysbench's way:
 * when fsync_every requests have been issued since the last round and a
 * write happened, the next `files` events are fsyncs, one per file in turn;
 * otherwise a read or a write (rndrw: a read while (reads+1)/(writes+1) is
 * below rw_ratio), sequential modes taking the shared position.
 */
static enum fileio_op fileio_next(struct fileio_ctl *x, const struct fileio_params *p,
				  const struct fileio_state *s, uint64_t block, unsigned *f,
				  uint64_t *off)
{
	if (p->fsync_every && x->dirty && x->requests % (uint64_t)p->fsync_every == 0) {
		*f = x->fsync_next;
		if (++x->fsync_next == s->nfiles) {
			x->fsync_next = 0;
			x->dirty = 0;
		}
		return FIO_OP_FSYNC;
	}
	enum fileio_op op;
	switch (p->mode) {
	case FIO_SEQRD:
	case FIO_RNDRD:
		op = FIO_OP_READ;
		break;
	case FIO_RNDRW:
		op = ((double)x->reads + 1.0) / ((double)x->writes + 1.0) < p->rw_ratio ?
		     FIO_OP_READ : FIO_OP_WRITE;
		break;
	default:
		op = FIO_OP_WRITE;
		break;
	}
	if (op == FIO_OP_READ)
		x->reads++;
	else
		x->writes++, x->dirty = 1;
	x->requests++;
	if (p->mode == FIO_SEQWR || p->mode == FIO_SEQREWR || p->mode == FIO_SEQRD) {
		if (x->cur >= s->nfiles)
			x->cur = 0;
		*f = x->cur;
		*off = x->off;
		x->off += block;
		if (x->off + block > s->fsize) {
			x->off = 0;
			if (++x->cur == s->nfiles)
				x->cur = 0;
		}
	} else {
		*f = UINT32_MAX; /* random: the caller draws it */
	}
	return op;
}

/* Timed: `ops` events (reads, writes, scheduled fsyncs).  No allocation, no logging. */
static int fileio_run(struct job_ctx *c, const struct job_kind *k, const void *params,
		      void *state)
{
	const struct fileio_params *p = params;
	struct fileio_state *s = state;
	(void)k;
	const size_t block = (size_t)p->block;
	const bool own_fsyncs = p->fsync_every || p->fsync_all || p->fsync_end;
	const bool end_sync = !own_fsyncs && c->sync != JOB_SYNC_NONE;
	uint64_t writes = 0;

	const uint64_t ops = job_scaled(c, (uint64_t)p->ops);
	for (uint64_t i = 0; i < ops; i++) {
		unsigned f = 0;
		uint64_t off = 0;
		int rc = fileio_lock(s);
		if (rc)
			return job_fail(c, "lock the shared request counter", NULL, rc);
		enum fileio_op op = fileio_next(s->ctl, p, s, block, &f, &off);
		fileio_unlock(s);

		if (op == FIO_OP_FSYNC) {
			/* with fsync_all every write was synced already (sysbench skips these) */
			if (!p->fsync_all && fileio_fsync(c, s, p, f))
				return -1;
			continue;
		}
		if (f == UINT32_MAX) {
			f = s->nfiles > 1 ? (unsigned)jm_rng_below(c->rng, s->nfiles) : 0;
			off = jm_rng_below(c->rng, s->nblocks) * block;
		}
		int fd = s->fds[f];
		if (s->device)
			off += (uint64_t)f * s->fsize;   /* region f of the device */
		if (op == FIO_OP_READ) {
			ssize_t n = job_pread_all(fd, s->buf, block, (off_t)off);
			if (n != (ssize_t)block)
				return fileio_req_fail(c, s, p, "read", f, off, n < 0 ? errno : 0);
			c->io.rbytes += block;
			c->io.rops++;
			continue;
		}
		if (off == 0 && p->mode == FIO_SEQWR && !p->shared && !s->device && ftruncate(fd, 0))
			return fileio_req_fail(c, s, p, "truncate", f, off, errno);
		if (job_pwrite_all(fd, s->buf, block, (off_t)off) < 0)
			return fileio_req_fail(c, s, p, "write", f, off, errno);
		c->io.wbytes += block;
		c->io.wops++;
		writes++;
		if (end_sync)
			s->dirty[f] = 1;
		if (p->fsync_all && fileio_fsync(c, s, p, f))
			return -1;
	}
	/* sysbench's --file-fsync-end: the user's last run fsyncs every file */
	if (p->fsync_end && c->last_run && p->mode != FIO_SEQRD && p->mode != FIO_RNDRD) {
		for (unsigned f = 0; f < s->nfiles; f++)
			if (fileio_fsync(c, s, p, f))
				return -1;
	}
	if (end_sync && writes)
		return fileio_sync_end(c, s, p);
	return 0;
}

/* After the user's last job: close, remove per-user files, free. */
static void fileio_teardown(struct job_ctx *c, const struct job_kind *k, const void *params,
			    void *state)
{
	(void)c, (void)k, (void)params;
	if (state)
		fileio_free(state);
}

/* Each user keeps its files open from setup to teardown ... */
static unsigned fileio_fds_held(const void *params)
{
	const struct fileio_params *p = params;
	return p->device[0] ? 1 : (unsigned)p->files;
}

/* ... shared ones once per process (threads share them). */
static unsigned fileio_fds_shared(const void *params)
{
	const struct fileio_params *p = params;
	return p->shared && !p->device[0] ? (unsigned)p->files : 0;
}

const struct job_kind job_fileio = {
	.name = "fileio",
	.family = "io",
	.summary = "sysbench fileio: its request sequence, fsync rounds and rw ratio over files",
	.doc =
	"sysbench fileio's work, one job run being one sysbench thread's run of `ops`\n"
	"events.  Files are written fully (unless sparse: true) in `block` requests and fsynced\n"
	"outside the timed region (as sysbench prepare does): with shared: true once per work directory by\n"
	"prepare() (all users of that directory use one set, named by its geometry, so\n"
	"mix entries with the same files and file_size share it); with shared: false per\n"
	"user by setup(), removed by teardown().  Shared files are opened once per\n"
	"process: users as threads (users.as: threads) share the descriptors, as\n"
	"sysbench's threads do (256 threads x 128 files: 128 descriptors, not 32,768).\n"
	"The request sequence is sysbench's:\n"
	"one counter of requests, of reads and writes, one fsync round and one\n"
	"sequential position, shared by all users of the entry in a work directory\n"
	"(shared: true: in shared memory under a process-shared mutex, as sysbench's\n"
	"threads share its globals) or kept by each user (shared: false).  An event is\n"
	"a read, a write or an fsync: after every fsync_every requests, if anything was\n"
	"written, the next `files` events fsync every file in turn (128 fsyncs per 100\n"
	"requests with 128 files, as sysbench).  rndrw issues a read while (reads+1) /\n"
	"(writes+1) is below rw_ratio, so the ratio holds over all users.  rndrd/rndwr/\n"
	"rndrw pick a file and a block-aligned offset uniformly (the user's RNG);\n"
	"seqwr/seqrewr/seqrd continue where the sequence stopped, wrapping to the next\n"
	"file; seqwr truncates a private file when the sequence reaches its start, so\n"
	"its writes allocate.  fsync_all fsyncs the file after every write (scheduled\n"
	"fsync events then do nothing, as in sysbench); fsync_end fsyncs every file at\n"
	"the end of the user's last run of the entry (fixed job counts only).  Every\n"
	"fsync is counted (fsyncs, fsyncs_s in run.json).  Without any of the three, the\n"
	"workload's sync: policy applies once at the end of a run that wrote.  flags:\n"
	"direct (O_DIRECT; block must be a multiple of the device's logical block\n"
	"size), sync (O_SYNC), dsync (O_DSYNC).  total_size sets file_size = total_size\n"
	"/ files; giving total_size with a file_size other than the default 16m is an\n"
	"error.  sysbench --threads=T --events=E is users T, 1 job per user, ops E/T.\n"
	"device: /dev/X makes file i the region [i x file_size, (i+1) x file_size) of the\n"
	"raw block device (one descriptor per user; nothing is prepared: reads read what\n"
	"is there).  Refused when an O_EXCL open of it fails (mounted or claimed), when\n"
	"the regions do not fit, and for a mode that writes unless the device is the\n"
	"run's --scratch device (then no file system is made on it).",
	.flags = JOB_DISK | JOB_IO,
	.fds_held = fileio_fds_held,
	.fds_shared = fileio_fds_shared,
	.params_size = sizeof(struct fileio_params),
	.params = {
		{ "mode", JP_ENUM, offsetof(struct fileio_params, mode), 0, 0, "rndrw",
		  fileio_modes, "sysbench --file-test-mode: seqwr, seqrewr, seqrd, rndrd, rndwr, "
		  "rndrw" },
		{ "files", JP_INT, offsetof(struct fileio_params, files), 1, 4096, "8",
		  NULL, "sysbench --file-num: number of files" },
		{ "file_size", JP_SIZE, offsetof(struct fileio_params, file_size), 4096,
		  1099511627776.0, "16m", NULL, "bytes per file (sysbench: total / file-num)" },
		{ "total_size", JP_SIZE, offsetof(struct fileio_params, total_size), 0,
		  17592186044416.0, "0",
		  NULL, "sysbench --file-total-size: bytes over all files (0: files x "
		  "file_size); sets file_size" },
		{ "block", JP_SIZE, offsetof(struct fileio_params, block), 512, 64 << 20, "16k",
		  NULL, "sysbench --file-block-size: bytes per request" },
		{ "ops", JP_INT, offsetof(struct fileio_params, ops), 1, 1e9, "100",
		  NULL, "events per job run: reads, writes and scheduled fsyncs (sysbench "
		  "--events / --threads)" },
		{ "rw_ratio", JP_DOUBLE, offsetof(struct fileio_params, rw_ratio), 0.01, 100,
		  "1.5", NULL, "sysbench --file-rw-ratio: reads per write in rndrw" },
		{ "fsync_every", JP_INT, offsetof(struct fileio_params, fsync_every), 0, 1e9,
		  "100", NULL, "sysbench --file-fsync-freq: requests between fsync rounds, "
		  "each fsyncing every file (0: none)" },
		{ "fsync_all", JP_BOOL, offsetof(struct fileio_params, fsync_all), 0, 1, "false",
		  NULL, "sysbench --file-fsync-all: fsync the file after every write" },
		{ "fsync_end", JP_BOOL, offsetof(struct fileio_params, fsync_end), 0, 1, "false",
		  NULL, "sysbench --file-fsync-end (on in sysbench): fsync every file after "
		  "the user's last run" },
		{ "fsync_mode", JP_ENUM, offsetof(struct fileio_params, fsync_mode), 0, 0,
		  "fsync", fileio_fsync_modes, "sysbench --file-fsync-mode: fsync or fdatasync" },
		{ "flags", JP_FLAGS, offsetof(struct fileio_params, flags), 0, 0, "none",
		  fileio_flags, "sysbench --file-extra-flags: direct (O_DIRECT), sync (O_SYNC), "
		  "dsync (O_DSYNC)" },
		{ "shared", JP_BOOL, offsetof(struct fileio_params, shared), 0, 1, "false",
		  NULL, "all users of a directory share one set of files and one request "
		  "sequence (sysbench's threads)" },
		{ "sparse", JP_BOOL, offsetof(struct fileio_params, sparse), 0, 1, "false",
		  NULL, "the files are made by truncating them to their size (holes, no data "
		  "written; shared: anew at every point), so writes allocate: a file system "
		  "may serialise allocating O_DIRECT writes to one file (ext4's inode lock)" },
		{ "device", JP_DEVICE, offsetof(struct fileio_params, device), 0, 0, "none",
		  NULL, "the files are regions of this block device (/dev/X): read as they are; "
		  "written only when it is the run's --scratch device (root)" },
	},
	.device = fileio_device,
	.check = fileio_check,
	.prepare = fileio_prepare,
	.setup = fileio_setup,
	.run_once = fileio_run,
	.teardown = fileio_teardown,
};
