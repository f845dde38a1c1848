// SPDX-License-Identifier: GPL-2.0-only
/*
 * streams: n interleaved writers, then sequential read-back (the
 * kernel-list report: with n streams appending round-robin, some
 * filesystems fragment the files and read-back runs 1/n as fast).  The
 * files are made beneath the user's held directory (openat, O_NOFOLLOW,
 * unlinkat) by names set up before the barrier.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "jobmix/job.h"

#define STREAMS_MAX 256
#define STREAMS_READ (1u << 20)  /* read-back request size */

struct streams_params {
	int64_t n;
	uint64_t write_size;
	uint64_t file_size;
	bool fsync;
	bool direct_read;
	bool fadvise;
};

#define STREAMS_NAME 48

/* Per user: the name of each stream of its entry, unique in a directory the users share. */
struct streams_state {
	unsigned n;
	char name[][STREAMS_NAME];   /* n of them */
};

static uint64_t streams_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * Per user, before the barrier: the streams' names; with direct_read,
 * check that the 4 KiB-aligned I/O buffer satisfies the device's O_DIRECT
 * alignment (the read-back offsets are multiples of 1 MiB).
 */
static int streams_setup(struct job_ctx *c, const struct job_kind *k, const void *params,
			 void **state)
{
	const struct streams_params *p = params;
	(void)k;
	*state = NULL;
	unsigned align = p->direct_read ? job_dio_align(c->dir_fd) : 512;
	if (align > 4096)
		return job_failf(c, "O_DIRECT alignment %u of '%s' exceeds the 4 KiB alignment "
				 "of the I/O buffer", align, c->dir);
	struct streams_state *s = malloc(sizeof(*s) +
					 (size_t)p->n * STREAMS_NAME);
	if (!s)
		return job_fail(c, "malloc", NULL, ENOMEM);
	s->n = (unsigned)p->n;
	for (unsigned i = 0; i < s->n; i++) {
		char leaf[32];
		snprintf(leaf, sizeof(leaf), "streams.%u.%u", c->entry, i);
		job_own_name(s->name[i], STREAMS_NAME, c, leaf);
	}
	*state = s;
	return 0;
}

/* Read file i back sequentially in 1 MiB requests; expects exactly size bytes. */
static int streams_read_back(struct job_ctx *c, int fd, const char *name, uint64_t size)
{
	uint64_t done = 0;
	while (done < size) {
		ssize_t n = read(fd, c->iobuf, STREAMS_READ);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return job_fail_at(c, "read back", c->dir, name, errno);
		}
		if (n == 0)
			return job_failf(c, "'%s/%s' ended at %llu bytes, expected %llu", c->dir, name,
					 (unsigned long long)done, (unsigned long long)size);
		done += (uint64_t)n;
		c->io.rbytes += (uint64_t)n;
		c->io.rops++;
	}
	return 0;
}

/*
 * Timed: create n files, append write_size chunks round-robin until each
 * holds file_size bytes (fsync each at the end if asked: write phase),
 * drop their cached pages (untimed between the phases), read each back
 * (read phase), unlink all.
 */
static int streams_run(struct job_ctx *c, const struct job_kind *k, const void *params,
		       void *state)
{
	const struct streams_params *p = params;
	(void)k;
	const struct streams_state *s = state;
	const unsigned n = (unsigned)p->n;
	const uint64_t size = p->file_size, ws = p->write_size;
	const int dfd = c->dir_fd;
	int fds[STREAMS_MAX];
	unsigned made = 0, i;
	int ret = -1;

	for (i = 0; i < n; i++)
		fds[i] = -1;
	for (made = 0; made < n; made++) {
		fds[made] = openat(dfd, s->name[made], O_CREAT | O_TRUNC | O_RDWR | O_NOFOLLOW |
				   O_CLOEXEC, 0600);
		if (fds[made] < 0) {
			job_fail_at(c, "create", c->dir, s->name[made], errno);
			goto out;
		}
	}

	uint64_t t0 = streams_now_ns();
	for (uint64_t off = 0; off < size; off += ws) {
		size_t len = (size_t)(size - off < ws ? size - off : ws);
		for (i = 0; i < n; i++) {
			if (job_write_all(fds[i], c->iobuf, len) < 0) {
				job_fail_at(c, "write", c->dir, s->name[i], errno);
				goto out;
			}
			c->io.wbytes += len;
			c->io.wops++;
		}
	}
	for (i = 0; p->fsync && i < n; i++)
		if (fsync(fds[i])) {
			job_fail_at(c, "fsync", c->dir, s->name[i], errno);
			goto out;
		}
	c->io.wtime_ns += streams_now_ns() - t0;

	/* between the phases: make the read-back come from the device */
	for (i = 0; i < n; i++) {
		const char *name = s->name[i];
		if (p->fadvise && !p->direct_read) {
			if (!p->fsync && fdatasync(fds[i])) {
				job_fail_at(c, "fdatasync", c->dir, name, errno);
				goto out;
			}
			int err = posix_fadvise(fds[i], 0, 0, POSIX_FADV_DONTNEED);
			if (err) {
				job_fail_at(c, "posix_fadvise(DONTNEED)", c->dir, name, err);
				goto out;
			}
		}
		close(fds[i]);
		fds[i] = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC |
				(p->direct_read ? O_DIRECT : 0));
		if (fds[i] < 0) {
			job_fail_at(c, "open for read-back", c->dir, name, errno);
			goto out;
		}
	}

	uint64_t t1 = streams_now_ns();
	for (i = 0; i < n; i++)
		if (streams_read_back(c, fds[i], s->name[i], size))
			goto out;
	c->io.rtime_ns += streams_now_ns() - t1;
	ret = 0;
out:
	for (i = 0; i < made; i++) {
		if (fds[i] >= 0)
			close(fds[i]);
		unlinkat(dfd, s->name[i], 0);
	}
	return ret;
}

/* A job has all its streams open at once. */
static unsigned streams_fds_held(const void *params)
{
	return (unsigned)((const struct streams_params *)params)->n;
}

const struct job_kind job_streams = {
	.name = "streams",
	.family = "io",
	.summary = "n interleaved appending writers, then sequential read-back of each file",
	.doc =
	"Each job run creates n files in the user's directory and appends write_size\n"
	"chunks to them round-robin until each holds file_size bytes (the last chunk\n"
	"may be short), fsyncs each file if fsync: true, then reads every file back\n"
	"sequentially in 1 MiB requests and unlinks them.  wtime_ns is the write phase\n"
	"(writes and the fsyncs), rtime_ns the read-back; opening and dropping caches\n"
	"between them is in neither.  fadvise: true makes the read-back come from the\n"
	"device: each file is fdatasynced if fsync is false (DONTNEED drops clean pages\n"
	"only) and its pages evicted with posix_fadvise(DONTNEED).  direct_read reads\n"
	"back with O_DIRECT (fadvise is then not needed and skipped).  Fragmentation\n"
	"from interleaved allocation shows as read-back time growing with n.",
	.flags = JOB_DISK | JOB_IO,
	.fds_held = streams_fds_held,
	.params_size = sizeof(struct streams_params),
	.params = {
		{ "n", JP_INT, offsetof(struct streams_params, n), 1, STREAMS_MAX, "4",
		  NULL, "number of interleaved streams (files)" },
		{ "write_size", JP_SIZE, offsetof(struct streams_params, write_size), 1,
		  JOB_IOBUF_SIZE, "4k", NULL, "bytes per append" },
		{ "file_size", JP_SIZE, offsetof(struct streams_params, file_size), 1,
		  1099511627776.0, "8m", NULL, "bytes written to each stream" },
		{ "fsync", JP_BOOL, offsetof(struct streams_params, fsync), 0, 1, "false",
		  NULL, "fsync each file at the end of the write phase" },
		{ "direct_read", JP_BOOL, offsetof(struct streams_params, direct_read), 0, 1,
		  "false", NULL, "read back with O_DIRECT" },
		{ "fadvise", JP_BOOL, offsetof(struct streams_params, fadvise), 0, 1, "true",
		  NULL, "write back and drop the files' cached pages before read-back" },
	},
	.setup = streams_setup,
	.run_once = streams_run,
	.teardown = job_free_state,
};
