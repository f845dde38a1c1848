// SPDX-License-Identifier: GPL-2.0-only
/*
 * fileio: sysbench-fileio-like requests over a set of prepared files.
 *
 * Files are written once per load point outside the timed region: shared
 * files by prepare() in the parent (one set per work directory), private
 * files by setup() in each user before the start barrier.  Every run_once
 * then issues `ops` requests of `block` bytes over the open files:
 * sequential modes continue where the previous run stopped, random modes
 * pick a file and a block-aligned offset uniformly with the user's RNG.
 * The hot path allocates nothing and logs nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jobmix/job.h"

enum fileio_mode { FIO_SEQWR, FIO_SEQREWR, FIO_SEQRD, FIO_RNDRD, FIO_RNDWR, FIO_RNDRW };

enum fileio_flag { FIO_F_DIRECT = 1u << 0, FIO_F_SYNC = 1u << 1, FIO_F_DSYNC = 1u << 2 };

static const char *const fileio_modes[] = { "seqwr", "seqrewr", "seqrd",
					    "rndrd", "rndwr", "rndrw", NULL };
static const char *const fileio_flags[] = { "direct", "sync", "dsync", NULL };

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
	unsigned flags;
	bool shared;
};

/* Per-user state, made by setup(), used by run_once(), freed by teardown(). */
struct fileio_state {
	int *fds;
	uint64_t *since_fsync;    /* write requests since the file's last fsync */
	unsigned char *dirty;     /* written in this run (end-of-job sync)      */
	char *ownbuf;             /* aligned buffer when iobuf is not enough    */
	char *buf;
	unsigned nfiles;
	uint64_t fsize;           /* bytes per file                              */
	uint64_t nblocks;         /* whole blocks per file                       */
	unsigned cur;             /* sequential position: file ...               */
	uint64_t off;             /* ... and offset of the next request          */
	unsigned ncreated;        /* per-user files 0..ncreated-1 may exist      */
	char dir[PATH_MAX];
};

/* Bytes per file: total_size / files when total_size is given. */
static uint64_t fileio_file_size(const struct fileio_params *p)
{
	return p->total_size ? p->total_size / (uint64_t)p->files : p->file_size;
}

/*
 * The name of file i.  Private files carry the mix entry (a user may run
 * several fileio entries); shared files carry their geometry, so mix
 * entries with the same files x file_size share one set (e.g. buffered and
 * O_DIRECT users on one large file).
 */
static char *fileio_path(char *buf, const char *dir, bool shared, unsigned entry,
			 unsigned files, uint64_t fsize, unsigned i)
{
	if (shared)
		snprintf(buf, PATH_MAX, "%s/fileio-%ux%llu.%u", dir, files,
			 (unsigned long long)fsize, i);
	else
		snprintf(buf, PATH_MAX, "%s/fileio.%u.%u", dir, entry, i);
	return buf;
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
	return 0;
}

/* Shared files: one set per work directory, written fully and fsynced. */
static int fileio_prepare(struct job_prep *prep, const struct job_kind *k, const void *params)
{
	const struct fileio_params *p = params;
	(void)k;
	if (!p->shared)
		return 0;
	uint64_t fsize = fileio_file_size(p);
	char path[PATH_MAX];
	for (unsigned i = 0; i < (unsigned)p->files; i++) {
		fileio_path(path, prep->shared_dir, true, prep->entry, (unsigned)p->files, fsize, i);
		if (job_file_is_filled(path, fsize))
			continue; /* made by an entry with the same geometry */
		const char *op = "";
		int err = job_fill_file(path, fsize, prep->seed + i, &op);
		if (err)
			return job_prep_fail(prep, op, path, err);
	}
	return 0;
}

/* Release what setup() acquired; removes per-user files. */
static void fileio_free(struct fileio_state *s, unsigned entry)
{
	char path[PATH_MAX];
	for (unsigned i = 0; s->fds && i < s->nfiles; i++)
		if (s->fds[i] >= 0)
			close(s->fds[i]);
	for (unsigned i = 0; i < s->ncreated; i++)
		unlink(fileio_path(path, s->dir, false, entry, s->nfiles, s->fsize, i));
	free(s->ownbuf);
	free(s->dirty);
	free(s->since_fsync);
	free(s->fds);
	free(s);
}

/*
 * Per user, before the barrier: write private files (unless shared), open
 * every file with the requested flags, choose an aligned buffer.
 */
static int fileio_setup(struct job_ctx *c, const struct job_kind *k, const void *params,
			void **state)
{
	const struct fileio_params *p = params;
	(void)k;
	char path[PATH_MAX];
	struct fileio_state *s = calloc(1, sizeof(*s));
	if (!s)
		return job_fail(c, "allocate state", NULL, ENOMEM);
	s->nfiles = (unsigned)p->files;
	s->fsize = fileio_file_size(p);
	s->nblocks = s->fsize / p->block;
	snprintf(s->dir, sizeof(s->dir), "%s", p->shared ? c->shared_dir : c->dir);
	s->fds = malloc(s->nfiles * sizeof(*s->fds));
	s->since_fsync = calloc(s->nfiles, sizeof(*s->since_fsync));
	s->dirty = calloc(s->nfiles, 1);
	if (!s->fds || !s->since_fsync || !s->dirty) {
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

	s->buf = job_io_buffer(c, s->dir, p->flags & FIO_F_DIRECT, p->block, &s->ownbuf);
	if (!s->buf)
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

	for (unsigned i = 0; i < s->nfiles; i++) {
		fileio_path(path, s->dir, p->shared, c->entry, s->nfiles, s->fsize, i);
		/* seqwr truncates each file as it reaches it: create it empty */
		int create = 0;
		if (!p->shared) {
			s->ncreated = i + 1;
			if (p->mode == FIO_SEQWR)
				create = O_CREAT | O_TRUNC;
		}
		if (!p->shared && !create) {
			const char *op = "";
			int err = job_fill_file(path, s->fsize, ((uint64_t)c->user << 32) + i, &op);
			if (err) {
				job_fail(c, op, path, err);
				goto fail;
			}
		}
		s->fds[i] = open(path, oflags | create, 0600);
		if (s->fds[i] < 0) {
			int err = errno;
			if (p->shared && err == ENOENT)
				job_failf(c, "open '%s' failed: %s (shared files are made by "
					  "prepare())", path, strerror(err));
			else if (err == EMFILE)
				job_failf(c, "open '%s' failed: %s (files: %u needs that many "
					  "descriptors per user; raise ulimit -n)", path,
					  strerror(err), s->nfiles);
			else
				job_fail(c, "open", path, err);
			goto fail;
		}
	}
	*state = s;
	return 0;
fail:
	fileio_free(s, c->entry);
	return -1;
}

/* Describe a failed request on file f; returns -1. */
static int fileio_req_fail(struct job_ctx *c, const struct fileio_state *s,
			   const struct fileio_params *p, const char *op, unsigned f,
			   uint64_t off, int err)
{
	char path[PATH_MAX];
	fileio_path(path, s->dir, p->shared, c->entry, s->nfiles, s->fsize, f);
	if (err)
		return job_failf(c, "%s of %llu bytes at offset %llu of '%s' failed: %s", op,
				 (unsigned long long)p->block, (unsigned long long)off, path,
				 strerror(err));
	return job_failf(c, "%s of %llu bytes at offset %llu of '%s' came up short "
			 "(file shorter than %llu bytes?)", op, (unsigned long long)p->block,
			 (unsigned long long)off, path, (unsigned long long)s->fsize);
}

/* End of a job without periodic fsyncs: the workload's sync: policy. */
static int fileio_sync_end(struct job_ctx *c, struct fileio_state *s,
			   const struct fileio_params *p)
{
	char path[PATH_MAX];
	int ret = 0;
	if (c->sync == JOB_SYNC_GLOBAL) {
		memset(s->dirty, 0, s->nfiles);
		return job_sync_point(c, -1, NULL);
	}
	for (unsigned f = 0; f < s->nfiles; f++) {
		if (!s->dirty[f])
			continue;
		s->dirty[f] = 0;
		fileio_path(path, s->dir, p->shared, c->entry, s->nfiles, s->fsize, f);
		if (!ret && job_sync_point(c, s->fds[f], path))
			ret = -1;
	}
	return ret;
}

/* Timed: `ops` requests.  No allocation, no logging. */
static int fileio_run(struct job_ctx *c, const struct job_kind *k, const void *params,
		      void *state)
{
	const struct fileio_params *p = params;
	struct fileio_state *s = state;
	(void)k;
	const size_t block = (size_t)p->block;
	const bool seq = p->mode == FIO_SEQWR || p->mode == FIO_SEQREWR || p->mode == FIO_SEQRD;
	const bool end_sync = p->fsync_every == 0 && c->sync != JOB_SYNC_NONE;
	const double p_read = p->rw_ratio / (1.0 + p->rw_ratio);
	uint64_t writes = 0;

	for (int64_t i = 0; i < p->ops; i++) {
		unsigned f;
		uint64_t off;
		bool rd;
		if (seq) {
			f = s->cur;
			off = s->off;
			if (off == 0 && p->mode == FIO_SEQWR && !p->shared &&
			    ftruncate(s->fds[f], 0))
				return fileio_req_fail(c, s, p, "truncate", f, off, errno);
			s->off += block;
			if (s->off + block > s->fsize) {
				s->off = 0;
				if (++s->cur == s->nfiles)
					s->cur = 0;
			}
		} else {
			f = s->nfiles > 1 ? (unsigned)jm_rng_below(c->rng, s->nfiles) : 0;
			off = jm_rng_below(c->rng, s->nblocks) * block;
		}
		switch (p->mode) {
		case FIO_SEQRD:
		case FIO_RNDRD:
			rd = true;
			break;
		case FIO_RNDRW:
			rd = jm_rng_double(c->rng) < p_read;
			break;
		default:
			rd = false;
			break;
		}
		int fd = s->fds[f];
		if (rd) {
			ssize_t n = job_pread_all(fd, s->buf, block, (off_t)off);
			if (n != (ssize_t)block)
				return fileio_req_fail(c, s, p, "read", f, off, n < 0 ? errno : 0);
			c->io.rbytes += block;
			c->io.rops++;
			continue;
		}
		if (job_pwrite_all(fd, s->buf, block, (off_t)off) < 0)
			return fileio_req_fail(c, s, p, "write", f, off, errno);
		c->io.wbytes += block;
		c->io.wops++;
		writes++;
		if (end_sync)
			s->dirty[f] = 1;
		if (p->fsync_every && ++s->since_fsync[f] >= (uint64_t)p->fsync_every) {
			s->since_fsync[f] = 0;
			if (fsync(fd))
				return fileio_req_fail(c, s, p, "fsync after write", f, off, errno);
		}
	}
	if (end_sync && writes)
		return fileio_sync_end(c, s, p);
	return 0;
}

/* After the user's last job: close, remove per-user files, free. */
static void fileio_teardown(struct job_ctx *c, const struct job_kind *k, const void *params,
			    void *state)
{
	(void)k, (void)params;
	if (state)
		fileio_free(state, c->entry);
}

const struct job_kind job_fileio = {
	.name = "fileio",
	.family = "io",
	.summary = "sysbench-fileio-like sequential/random requests over prepared files",
	.doc =
	"Requests of `block` bytes over `files` prepared files, like sysbench fileio.\n"
	"Files are written fully (not sparse) and fsynced outside the timed region: with\n"
	"shared: true once per work directory by prepare() (all users of that directory\n"
	"use one set, named by its geometry, so mix entries with the same files and\n"
	"file_size share it); with shared: false per user by setup(), removed by\n"
	"teardown().  Each job run issues `ops` requests.  seqwr/seqrewr/seqrd continue\n"
	"where the previous run stopped, wrapping at the end of a file to the next file\n"
	"(round-robin); seqwr truncates a private file when the sequence reaches its\n"
	"start, so its writes allocate (shared files are rewritten in place instead);\n"
	"seqrewr overwrites.  rndrd/rndwr/rndrw pick a file and a block-aligned offset\n"
	"uniformly over the whole file; in rndrw a request is a read with probability\n"
	"rw_ratio / (1 + rw_ratio).  fsync_every N: each file is fsynced after every N\n"
	"write requests to it (counted per user across runs); with fsync_every 0 the\n"
	"workload's sync: policy applies once at the end of a job that wrote (file:\n"
	"fsync of each file written, global: sync(2)).  flags: direct (O_DIRECT; block\n"
	"must be a multiple of the device's logical block size), sync (O_SYNC), dsync\n"
	"(O_DSYNC).  total_size sets file_size = total_size / files; giving total_size\n"
	"with a file_size other than the default 16m is an error.",
	.flags = JOB_DISK | JOB_IO,
	.params_size = sizeof(struct fileio_params),
	.params = {
		{ "mode", JP_ENUM, offsetof(struct fileio_params, mode), 0, 0, "rndrw",
		  fileio_modes, "request pattern: seqwr, seqrewr, seqrd, rndrd, rndwr, rndrw" },
		{ "files", JP_INT, offsetof(struct fileio_params, files), 1, 4096, "8",
		  NULL, "number of files" },
		{ "file_size", JP_SIZE, offsetof(struct fileio_params, file_size), 4096,
		  1099511627776.0, "16m", NULL, "bytes per file" },
		{ "total_size", JP_SIZE, offsetof(struct fileio_params, total_size), 0,
		  17592186044416.0, "0",
		  NULL, "bytes over all files (0: files x file_size); sets file_size" },
		{ "block", JP_SIZE, offsetof(struct fileio_params, block), 512, 64 << 20, "16k",
		  NULL, "bytes per request" },
		{ "ops", JP_INT, offsetof(struct fileio_params, ops), 1, 1e9, "100",
		  NULL, "requests per job run" },
		{ "rw_ratio", JP_DOUBLE, offsetof(struct fileio_params, rw_ratio), 0.01, 100,
		  "1.5", NULL, "reads per write in rndrw" },
		{ "fsync_every", JP_INT, offsetof(struct fileio_params, fsync_every), 0, 1e9,
		  "100", NULL, "write requests to a file between its fsyncs (0: none)" },
		{ "flags", JP_FLAGS, offsetof(struct fileio_params, flags), 0, 0, "none",
		  fileio_flags, "open flags: direct (O_DIRECT), sync (O_SYNC), dsync (O_DSYNC)" },
		{ "shared", JP_BOOL, offsetof(struct fileio_params, shared), 0, 1, "false",
		  NULL, "all users of a directory work on one prepared set of files" },
	},
	.check = fileio_check,
	.prepare = fileio_prepare,
	.setup = fileio_setup,
	.run_once = fileio_run,
	.teardown = fileio_teardown,
};
