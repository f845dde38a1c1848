// SPDX-License-Identifier: GPL-2.0-only
/*
 * seqread: one large sequential read of a cold file per job run, buffered
 * or O_DIRECT (the kernel-list report: readahead window and request
 * plugging decide buffered throughput).  The file is written and fsynced
 * outside the timed region; each run evicts its clean pages with
 * posix_fadvise(DONTNEED) instead of dropping every cache on the machine.
 * The file is made and opened beneath a held directory descriptor
 * (openat, O_NOFOLLOW); its path is only for messages.  With `device`,
 * the raw block device is read instead (read-only; refused while mounted
 * or claimed, as an O_EXCL open tells).
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
#include <time.h>
#include <unistd.h>

#include "jobmix/job.h"


struct seqread_params {
	uint64_t file_size;
	uint64_t block;
	bool direct;
	bool fadvise;
	int64_t readahead_kb;
	bool shared;
	char device[JOB_DEVICE_LEN];   /* "": the file; else the block device read */
};

#define SEQREAD_NAME 48

struct seqread_state {
	int fd;
	bool created;             /* private file: remove in teardown */
	char *ownbuf;
	char *buf;
	uint64_t size;            /* bytes one run reads */
	int dirfd;                /* the held directory of the file (not ours to close) */
	const char *dir;          /* its path, for messages */
	char name[SEQREAD_NAME];
};

/*
 * The shared file, named by its size so entries of one size share it
 * (private files carry the mix entry and the user: job_own_name()).
 */
static char *seqread_name(char *buf, size_t len, uint64_t size)
{
	snprintf(buf, len, "seqread-%llu", (unsigned long long)size);
	return buf;
}

/* job_kind.device: the device an entry reads, or NULL. */
static const char *seqread_device(const void *params, bool *writes)
{
	const struct seqread_params *p = params;
	*writes = false;
	return p->device[0] ? p->device : NULL;
}

static int seqread_check(const struct job_kind *k, const void *params, uint64_t set_mask,
			 char *err, size_t errlen)
{
	const struct seqread_params *p = params;
	(void)k, (void)set_mask;
	if (p->device[0] && p->shared) {
		snprintf(err, errlen, "device and shared: true: a device is one for every user "
			 "already");
		return -1;
	}
	uint64_t bytes;
	if (p->device[0] && job_device_check(p->device, &bytes, err, errlen))
		return -1;
	if (p->direct && p->readahead_kb) {
		snprintf(err, errlen, "readahead_kb has no effect with direct: true");
		return -1;
	}
	if (p->direct && p->block % 512) {
		snprintf(err, errlen, "block %llu is not a multiple of 512, as O_DIRECT needs",
			 (unsigned long long)p->block);
		return -1;
	}
	return 0;
}

/* shared: true: one file per work directory, written and fsynced once. */
static int seqread_prepare(struct job_prep *prep, const struct job_kind *k, const void *params)
{
	const struct seqread_params *p = params;
	(void)k;
	if (p->device[0]) {
		/* before every point: still nobody's (a mount since the check is refused) */
		char err[256], path[JOB_DEVICE_LEN + 8];
		uint64_t bytes;
		snprintf(path, sizeof(path), "/dev/%s", p->device);
		return job_device_check(p->device, &bytes, err, sizeof(err)) ?
		       job_prep_fail(prep, "claim (nobody else's, O_EXCL)", path, EBUSY) : 0;
	}
	if (!p->shared)
		return 0;
	char name[SEQREAD_NAME];
	seqread_name(name, sizeof(name), p->file_size);
	if (job_file_is_filled(prep->shared_fd, name, p->file_size))
		return 0;
	const char *op = "";
	int err = job_fill_file(prep->shared_fd, name, p->file_size, prep->seed, &op);
	return err ? job_prep_fail_at(prep, op, name, err) : 0;
}

static void seqread_free(struct seqread_state *s)
{
	if (s->fd >= 0)
		close(s->fd);
	if (s->created)
		unlinkat(s->dirfd, s->name, 0);
	free(s->ownbuf);
	free(s);
}

/*
 * Per user, before the barrier: write the private file (unless shared),
 * open it, pick an aligned buffer, and with readahead_kb switch the
 * kernel's heuristic readahead off for this descriptor (FADV_RANDOM).
 */
static int seqread_setup(struct job_ctx *c, const struct job_kind *k, const void *params,
			 void **state)
{
	const struct seqread_params *p = params;
	(void)k;
	struct seqread_state *s = calloc(1, sizeof(*s));
	if (!s)
		return job_fail(c, "allocate state", NULL, ENOMEM);
	s->fd = -1;
	s->dirfd = p->shared ? c->shared_fd : c->dir_fd;
	s->dir = p->shared ? c->shared_dir : c->dir;
	s->size = p->file_size;
	if (p->device[0]) {
		/* the raw device, read-only: at most file_size bytes of it */
		uint64_t bytes = 0;
		s->dir = "/dev";
		snprintf(s->name, sizeof(s->name), "%s", p->device);
		s->buf = job_io_buffer(c, s->dirfd, c->dir, p->direct, p->block, &s->ownbuf);
		if (!s->buf)
			goto fail;
		s->fd = job_device_open(c, p->device, O_RDONLY | (p->direct ? O_DIRECT : 0), &bytes);
		if (s->fd < 0)
			goto fail;
		if (bytes < p->block) {
			job_failf(c, "/dev/%s: %llu bytes, less than one block", p->device,
				  (unsigned long long)bytes);
			goto fail;
		}
		if (bytes < s->size)
			s->size = bytes - bytes % p->block;
		goto opened;
	}
	if (p->shared) {
		seqread_name(s->name, sizeof(s->name), p->file_size);
	} else {
		char leaf[32];
		snprintf(leaf, sizeof(leaf), "seqread.%u", c->entry);
		job_own_name(s->name, sizeof(s->name), c, leaf);
	}
	s->buf = job_io_buffer(c, s->dirfd, s->dir, p->direct, p->block, &s->ownbuf);
	if (!s->buf)
		goto fail;
	if (!p->shared) {
		s->created = true;
		const char *op = "";
		int err = job_fill_file(s->dirfd, s->name, p->file_size, c->user + 1, &op);
		if (err) {
			job_fail_at(c, op, s->dir, s->name, err);
			goto fail;
		}
	}
	s->fd = openat(s->dirfd, s->name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC |
		       (p->direct ? O_DIRECT : 0));
	if (s->fd < 0) {
		int err = errno;
		if (p->shared && err == ENOENT)
			job_failf(c, "open '%s/%s' failed: %s (the shared file is made by "
				  "prepare())", s->dir, s->name, strerror(err));
		else
			job_fail_at(c, "open", s->dir, s->name, err);
		goto fail;
	}
opened:
	if (p->readahead_kb) {
		int err = posix_fadvise(s->fd, 0, 0, POSIX_FADV_RANDOM);
		if (err) {
			job_fail_at(c, "posix_fadvise(RANDOM)", s->dir, s->name, err);
			goto fail;
		}
	}
	*state = s;
	return 0;
fail:
	seqread_free(s);
	return -1;
}

static uint64_t seqread_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * Timed: evict the file's pages (fadvise, untimed part of the job), then
 * read it once from start to end in `block` requests; rtime_ns is the
 * read phase.  With readahead_kb, readahead(2) keeps that many bytes
 * requested beyond the end of the current read, topped up (contiguously
 * from where the last call ended) whenever less than half of it remains.
 */
/* One sequential pass over the file's first `size` bytes, its readahead window ahead. */
static int seqread_pass(struct job_ctx *c, const struct seqread_params *p,
			struct seqread_state *s, uint64_t size)
{
	const size_t block = (size_t)p->block;
	const uint64_t window = (uint64_t)p->readahead_kb * 1024;
	uint64_t off = 0, ra_end = 0;
	while (off < size) {
		if (window && ra_end < size) {
			/* ra_end >= off always holds: the window starts at 0 */
			uint64_t want = off + block + window;
			if (ra_end < off + block + window / 2) {
				uint64_t end = want < size ? want : size;
				if (readahead(s->fd, (off_t)ra_end, (size_t)(end - ra_end)))
					return job_fail_at(c, "readahead", s->dir, s->name, errno);
				ra_end = end;
			}
		}
		ssize_t n = pread(s->fd, s->buf, block, (off_t)off);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return job_fail_at(c, "read", s->dir, s->name, errno);
		}
		if (n == 0)
			return job_failf(c, "'%s/%s' ended at %llu bytes, expected %llu", s->dir, s->name,
					 (unsigned long long)off, (unsigned long long)size);
		off += (uint64_t)n;
		c->io.rbytes += (uint64_t)n;
		c->io.rops++;
	}
	return 0;
}

/*
 * The file read once, or with a scale its size times the scale: whole
 * passes from its start, then the rest as a pass over the file's first
 * bytes (in whole blocks, at least one).
 */
static int seqread_run(struct job_ctx *c, const struct job_kind *k, const void *params,
		       void *state)
{
	const struct seqread_params *p = params;
	struct seqread_state *s = state;
	(void)k;
	const uint64_t size = s->size, block = (uint64_t)p->block;

	if (p->fadvise && !p->direct) {
		int err = posix_fadvise(s->fd, 0, 0, POSIX_FADV_DONTNEED);
		if (err)
			return job_fail_at(c, "posix_fadvise(DONTNEED)", s->dir, s->name, err);
	}
	uint64_t t0 = seqread_now_ns();
	for (uint64_t left = job_scaled(c, size); left;) {
		uint64_t len = left < size ? left : size;
		if (len < size)
			len = len < block ? block : len - len % block;
		if (seqread_pass(c, p, s, len < size ? len : size))
			return -1;
		left -= len < left ? len : left;
	}
	c->io.rtime_ns += seqread_now_ns() - t0;
	job_count_extents(c, s->fd);   /* after the read phase: the layout it read */
	return 0;
}

static void seqread_teardown(struct job_ctx *c, const struct job_kind *k, const void *params,
			     void *state)
{
	(void)c, (void)k, (void)params;
	if (state)
		seqread_free(state);
}

const struct job_kind job_seqread = {
	.name = "seqread",
	.family = "io",
	.summary = "read a cold file once, sequentially, in large requests (buffered or O_DIRECT)",
	.doc =
	"Each job run reads the whole file once in `block` requests and records the\n"
	"read phase in rtime_ns, then (after it) counts the file's extents (FIEMAP:\n"
	"run.json's extents; null where the file system cannot tell).  The file is written fully and fsynced outside the\n"
	"timed region (per user by setup(), or with shared: true once per work\n"
	"directory by prepare(), named by its size so entries of the same size share\n"
	"it).  fadvise: true evicts the file's cached pages with\n"
	"posix_fadvise(DONTNEED) before each read (untimed), so the read hits the\n"
	"device without dropping the machine's other caches; DONTNEED only drops\n"
	"clean pages, hence the fsync at preparation (with a shared file, one user's\n"
	"eviction also evicts pages other users are reading).\n"
	"readahead_kb 0 leaves the kernel's readahead as the device configures it\n"
	"(/sys/block/<dev>/queue/read_ahead_kb, which jobmix never changes).\n"
	"readahead_kb N turns the kernel's heuristic readahead off for this\n"
	"descriptor (posix_fadvise RANDOM: each read then fetches just what it asks\n"
	"for) and keeps N KiB beyond the end of the current read requested with\n"
	"readahead(2), topped up contiguously when less than half of it remains (the\n"
	"first call covers the first block plus N KiB).  The kernel may trim a single\n"
	"readahead(2) call to the larger of the device's maximum request size and the\n"
	"file's readahead size.  readahead_kb with direct: true is an error (O_DIRECT\n"
	"bypasses the page cache).\n"
	"device: /dev/X reads the raw block device instead of a file, as the 2012\n"
	"readahead report did: its first file_size bytes (all of it when smaller),\n"
	"read-only, never written; refused when an O_EXCL open of it fails (a\n"
	"mounted file system, another exclusive holder), at load and before every\n"
	"point.  The device is among those watched (run.json devices).",
	.flags = JOB_DISK | JOB_IO,
	.params_size = sizeof(struct seqread_params),
	.params = {
		{ "file_size", JP_SIZE, offsetof(struct seqread_params, file_size), 4096,
		  1099511627776.0, "256m", NULL, "bytes in the file, read once per job run" },
		{ "block", JP_SIZE, offsetof(struct seqread_params, block), 512, 64 << 20, "1m",
		  NULL, "bytes per read request" },
		{ "direct", JP_BOOL, offsetof(struct seqread_params, direct), 0, 1, "false",
		  NULL, "read with O_DIRECT" },
		{ "fadvise", JP_BOOL, offsetof(struct seqread_params, fadvise), 0, 1, "true",
		  NULL, "evict the file's cached pages (DONTNEED) before each read" },
		{ "readahead_kb", JP_INT, offsetof(struct seqread_params, readahead_kb), 0,
		  1048576, "0", NULL,
		  "0: kernel readahead as configured; N: own readahead(2) window of N KiB" },
		{ "shared", JP_BOOL, offsetof(struct seqread_params, shared), 0, 1, "false",
		  NULL, "all users of a directory read one file made by prepare()" },
		{ "device", JP_DEVICE, offsetof(struct seqread_params, device), 0, 0, "none",
		  NULL, "read this block device (/dev/X, its first file_size bytes) instead of a "
		  "file: read-only, refused while mounted or claimed (root)" },
	},
	.device = seqread_device,
	.check = seqread_check,
	.prepare = seqread_prepare,
	.setup = seqread_setup,
	.run_once = seqread_run,
	.teardown = seqread_teardown,
};
