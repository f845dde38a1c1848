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
	struct job_range write_size;
	uint64_t file_size;
	bool fsync;
	bool direct_read;
	bool fadvise;
	struct job_weights rates;
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

/* rates: none, or one weight per stream. */
static int streams_check(const struct job_kind *k, const void *params, uint64_t set_mask,
			 char *err, size_t errlen)
{
	const struct streams_params *p = params;
	(void)k, (void)set_mask;
	if (p->rates.n && p->rates.n != (unsigned)p->n) {
		char text[64] = "";
		for (unsigned i = 0; i < p->rates.n && strlen(text) + 12 < sizeof(text); i++)
			snprintf(text + strlen(text), sizeof(text) - strlen(text), "%s%u",
				 i ? ":" : "", p->rates.w[i]);
		snprintf(err, errlen, "rates '%s%s' gives %u weights for n: %lld streams (give one "
			 "per stream, or none)", text, strlen(text) + 12 >= sizeof(text) ? "..." : "",
			 p->rates.n, (long long)p->n);
		return -1;
	}
	return 0;
}

/* Bytes stream i writes: file_size scaled by its weight over the largest (at least 1). */
static uint64_t streams_target(const struct streams_params *p, unsigned i)
{
	if (!p->rates.n)
		return p->file_size;
	uint32_t top = 0;
	for (unsigned k = 0; k < p->rates.n; k++)
		top = p->rates.w[k] > top ? p->rates.w[k] : top;
	uint64_t t = (uint64_t)((double)p->file_size * p->rates.w[i] / top);
	return t ? t : 1;
}

/* The next write's length: write_size, or drawn from its range (in 512-byte steps if both ends are). */
static size_t streams_len(struct job_ctx *c, const struct job_range *r)
{
	if (r->lo == r->hi)
		return (size_t)r->lo;
	uint64_t g = !(r->lo % 512) && !(r->hi % 512) ? 512 : 1;
	return (size_t)(r->lo + g * jm_rng_below(c->rng, (r->hi - r->lo) / g + 1));
}

/*
 * The next stream to write, by smooth weighted round robin over the streams
 * still short of their size (cur[] carries the credit): all weights alike,
 * streams 0, 1, ..., n-1 in turn; 1:20, stream 1 twenty times as often,
 * spread out.
 */
static unsigned streams_pick(const struct streams_params *p, const uint64_t *left,
			     int64_t *cur, unsigned n)
{
	int64_t total = 0;
	unsigned best = n;
	for (unsigned i = 0; i < n; i++) {
		if (!left[i])
			continue;
		int64_t w = p->rates.n ? p->rates.w[i] : 1;
		cur[i] += w;
		total += w;
		if (best == n || cur[i] > cur[best])
			best = i;
	}
	cur[best] -= total;
	return best;
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
 * Timed: create n files, append write_size chunks (each drawn from its
 * range) round-robin, by the rates' weights, until each holds its size
 * (fsync each at the end if asked: write phase); untimed between the
 * phases, count their extents and drop their cached pages; read each back
 * (read phase), unlink all.
 */
static int streams_run(struct job_ctx *c, const struct job_kind *k, const void *params,
		       void *state)
{
	const struct streams_params *p = params;
	(void)k;
	const struct streams_state *s = state;
	const unsigned n = (unsigned)p->n;
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

	uint64_t left[STREAMS_MAX], size[STREAMS_MAX];
	int64_t cur[STREAMS_MAX];
	unsigned active = n;
	for (i = 0; i < n; i++) {
		left[i] = size[i] = job_scaled(c, streams_target(p, i));
		cur[i] = 0;
	}
	uint64_t t0 = streams_now_ns();
	while (active) {
		i = streams_pick(p, left, cur, n);
		size_t len = streams_len(c, &p->write_size);
		len = left[i] < len ? (size_t)left[i] : len;
		if (job_write_all(fds[i], c->iobuf, len) < 0) {
			job_fail_at(c, "write", c->dir, s->name[i], errno);
			goto out;
		}
		c->io.wbytes += len;
		c->io.wops++;
		left[i] -= len;
		active -= !left[i];
	}
	for (i = 0; p->fsync && i < n; i++)
		if (fsync(fds[i])) {
			job_fail_at(c, "fsync", c->dir, s->name[i], errno);
			goto out;
		}
	c->io.wtime_ns += streams_now_ns() - t0;

	/* between the phases: the files' extents; make the read-back come from the device */
	for (i = 0; i < n; i++) {
		const char *name = s->name[i];
		job_count_extents(c, fds[i]);
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
		if (streams_read_back(c, fds[i], s->name[i], size[i]))
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
	"sequentially in 1 MiB requests and unlinks them.  write_size may be a range\n"
	"(4k-64k): each write's length is drawn from it (in 512-byte steps when both\n"
	"ends are multiples of 512) by the user's seeded generator, so a fixed seed\n"
	"writes the same sizes.  rates gives each stream a weight (1:20: stream 1\n"
	"appends 20 times as often as stream 0, spread evenly by a smooth weighted\n"
	"round robin); a stream then holds file_size x its weight / the largest\n"
	"weight, so the streams end together.  wtime_ns is the write phase (writes\n"
	"and the fsyncs), rtime_ns the read-back; between them, untimed, each file's\n"
	"extents are counted (FIEMAP after writing back its dirty pages; run.json's\n"
	"extents, per file; null where the file system cannot tell) and its cache\n"
	"dropped.  fadvise: true makes the read-back come from the device: each file\n"
	"is fdatasynced if fsync is false (DONTNEED drops clean pages only) and its\n"
	"pages evicted with posix_fadvise(DONTNEED).  direct_read reads back with\n"
	"O_DIRECT (fadvise is then not needed and skipped).  Fragmentation from\n"
	"interleaved allocation shows as extents, and read-back time, growing with n.",
	.flags = JOB_DISK | JOB_IO,
	.fds_held = streams_fds_held,
	.check = streams_check,
	.params_size = sizeof(struct streams_params),
	.params = {
		{ "n", JP_INT, offsetof(struct streams_params, n), 1, STREAMS_MAX, "4",
		  NULL, "number of interleaved streams (files)" },
		{ "write_size", JP_RANGE, offsetof(struct streams_params, write_size), 1,
		  JOB_IOBUF_SIZE, "4k", NULL,
		  "bytes per append, or a range to draw each from (4k-64k)" },
		{ "file_size", JP_SIZE, offsetof(struct streams_params, file_size), 1,
		  1099511627776.0, "8m", NULL, "bytes written to each stream" },
		{ "fsync", JP_BOOL, offsetof(struct streams_params, fsync), 0, 1, "false",
		  NULL, "fsync each file at the end of the write phase" },
		{ "direct_read", JP_BOOL, offsetof(struct streams_params, direct_read), 0, 1,
		  "false", NULL, "read back with O_DIRECT" },
		{ "fadvise", JP_BOOL, offsetof(struct streams_params, fadvise), 0, 1, "true",
		  NULL, "write back and drop the files' cached pages before read-back" },
		{ "rates", JP_WEIGHTS, offsetof(struct streams_params, rates), 0, 0, "", NULL,
		  "per-stream weights, one per stream (1:20: the second appends 20x as often); "
		  "empty: all alike" },
	},
	.setup = streams_setup,
	.run_once = streams_run,
	.teardown = job_free_state,
};
