// SPDX-License-Identifier: GPL-2.0-only
/*
 * Helpers shared by job implementations: errors, full-length I/O, sync
 * policy, and the files made beneath a held directory descriptor (never by
 * a path through the work directory).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <pthread.h>
#include <spawn.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/fiemap.h>
#include <linux/fs.h>

#include "jobmix/job.h"

volatile uint64_t job_sink;

uint64_t job_scale_round(uint64_t n, double scale, double u)
{
	if (!n || scale <= 0 || scale == 1)
		return n;
	double x = (double)n * scale, whole = floor(x), frac = x - whole;
	if (frac > 1 - 1e-9 * (x > 1 ? x : 1))   /* a whole product, a hair below */
		whole += 1, frac = 0;
	else if (frac < 1e-9 * (x > 1 ? x : 1))  /* a whole product, a hair above */
		frac = 0;
	uint64_t r = (uint64_t)whole + (u < frac);
	return r ? r : 1;
}

uint64_t job_scaled(struct job_ctx *c, uint64_t n)
{
	double s = c->scale > 0 ? c->scale : 1;
	if (s == 1 || !n)
		return n;
	double x = (double)n * s;
	bool whole = fabs(x - nearbyint(x)) < 1e-9 * (x > 1 ? x : 1);
	/* a draw only for a fraction: a whole product leaves the user's RNG as it was */
	return job_scale_round(n, s, whole || !c->rng ? 1.0 : jm_rng_double(c->rng));
}

uint64_t job_scaled_max(double scale, uint64_t n)
{
	return job_scale_round(n, scale > 0 ? scale : 1, 0.0);
}

int job_fail(struct job_ctx *c, const char *op, const char *path, int err)
{
	if (path)
		snprintf(c->err, sizeof(c->err), "%s: %s '%s' failed: %s", c->job_name, op, path,
			 strerror(err));
	else
		snprintf(c->err, sizeof(c->err), "%s: %s failed: %s", c->job_name, op, strerror(err));
	return -1;
}

int job_fail_at(struct job_ctx *c, const char *op, const char *dir, const char *leaf, int err)
{
	if (!dir || !leaf)
		return job_fail(c, op, dir ? dir : leaf, err);
	snprintf(c->err, sizeof(c->err), "%s: %s '%s/%s' failed: %s", c->job_name, op, dir, leaf,
		 strerror(err));
	return -1;
}

int job_failf(struct job_ctx *c, const char *fmt, ...)
{
	int n = snprintf(c->err, sizeof(c->err), "%s: ", c->job_name);
	va_list ap;
	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < sizeof(c->err))
		vsnprintf(c->err + n, sizeof(c->err) - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

int job_prep_fail(struct job_prep *p, const char *op, const char *path, int err)
{
	snprintf(p->err, sizeof(p->err), "%s: %s '%s' failed: %s", p->job_name, op,
		 path ? path : "", strerror(err));
	return -1;
}

int job_prep_fail_at(struct job_prep *p, const char *op, const char *leaf, int err)
{
	snprintf(p->err, sizeof(p->err), "%s: %s '%s/%s' failed: %s", p->job_name, op,
		 p->shared_dir ? p->shared_dir : "", leaf, strerror(err));
	return -1;
}

char *job_path(char *buf, const char *dir, const char *name)
{
	snprintf(buf, PATH_MAX, "%s/%s", dir, name);
	return buf;
}

ssize_t job_pwrite_all(int fd, const void *buf, size_t len, off_t off)
{
	size_t done = 0;
	while (done < len) {
		ssize_t n = pwrite(fd, (const char *)buf + done, len - done, off + (off_t)done);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0) {
			errno = EIO;
			return -1;
		}
		done += (size_t)n;
	}
	return (ssize_t)done;
}

ssize_t job_pread_all(int fd, void *buf, size_t len, off_t off)
{
	size_t done = 0;
	while (done < len) {
		ssize_t n = pread(fd, (char *)buf + done, len - done, off + (off_t)done);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0)
			break; /* end of file: short read */
		done += (size_t)n;
	}
	return (ssize_t)done;
}

ssize_t job_write_all(int fd, const void *buf, size_t len)
{
	size_t done = 0;
	while (done < len) {
		ssize_t n = write(fd, (const char *)buf + done, len - done);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0) {
			errno = EIO;
			return -1;
		}
		done += (size_t)n;
	}
	return (ssize_t)done;
}

ssize_t job_read_all(int fd, void *buf, size_t len)
{
	size_t done = 0;
	while (done < len) {
		ssize_t n = read(fd, (char *)buf + done, len - done);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0)
			break;
		done += (size_t)n;
	}
	return (ssize_t)done;
}

size_t job_reaim_msg_size(unsigned i)
{
	static const unsigned short sizes[] = {
		1, 3, 5, 7, 16, 32, 64, 512, 1024, 2048, 4096,
		1, 3, 5, 7, 16, 32, 64, 512, 1024, 2048, 4096,
		32, 32, 32, 32, 32, 32,
		512, 512, 512, 512, 512,
		2048, 2048, 2048, 2048,
	};
	return sizes[i % (sizeof(sizes) / sizeof(sizes[0]))];
}

char *job_own_name(char *buf, size_t len, const struct job_ctx *c, const char *name)
{
	snprintf(buf, len, "%s.u%u", name, c->user);
	return buf;
}

char *job_own_path(char *buf, const struct job_ctx *c, const char *name)
{
	snprintf(buf, PATH_MAX, "%s/%s.u%u", c->dir, name, c->user);
	return buf;
}

/*
 * re-aim's default sync point, system("sync"): a shell that runs the sync
 * program, waited for.  posix_spawn rather than system(): system() changes
 * SIGINT/SIGQUIT dispositions process-wide, wrong with users as threads.
 */
static int job_sync_exec(struct job_ctx *c)
{
	static char *const argv[] = { "sh", "-c", "sync", NULL };
	pid_t pid;
	int rc = posix_spawn(&pid, "/bin/sh", NULL, NULL, argv, environ);
	if (rc)
		return job_fail(c, "spawn of sync program", "/bin/sh -c sync", rc);
	int st;
	while (waitpid(pid, &st, 0) < 0) {
		if (errno != EINTR)
			return job_fail(c, "waitpid for", "/bin/sh -c sync", errno);
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		return job_failf(c, "'/bin/sh -c sync' failed (%s %d)",
				 WIFEXITED(st) ? "exit status" : "signal",
				 WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
	return 0;
}

int job_sync_point(struct job_ctx *c, int fd, const char *dir, const char *leaf)
{
	switch (c->sync) {
	case JOB_SYNC_NONE:
		return 0;
	case JOB_SYNC_FILE:
		if (fd >= 0) {
			if (fsync(fd)) {
				int e = errno;
				job_fail_at(c, "fsync", dir, leaf, e);
				errno = e; /* for a caller that names the file itself */
				return -1;
			}
			c->io.fsyncs++;
		}
		c->io.syncs++;
		return 0;
	case JOB_SYNC_GLOBAL:
		sync();
		c->io.syncs++;
		return 0;
	case JOB_SYNC_EXEC:
		if (job_sync_exec(c))
			return -1;
		c->io.syncs++;
		return 0;
	}
	return 0;
}

unsigned job_dio_align(int dirfd)
{
	struct stat st;
	if (fstat(dirfd, &st))
		return 512;
	char sys[PATH_MAX];
	/* a partition has queue/ in its parent; try both */
	static const char *const up[] = { "", "../" };
	for (int i = 0; i < 2; i++) {
		snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u/%squeue/logical_block_size",
			 major(st.st_dev), minor(st.st_dev), up[i]);
		FILE *f = fopen(sys, "r");
		if (!f)
			continue;
		unsigned v = 0;
		int ok = fscanf(f, "%u", &v) == 1;
		fclose(f);
		if (ok && v >= 512 && v <= 65536 && !(v & (v - 1)))
			return v;
	}
	return 512;
}

/*
 * The process's table of shared files (job_shared_open): the one mutable
 * state jobs share, by design, under its lock.  Users forked from the
 * parent start with it empty (the parent opens nothing through it).
 */
struct job_shfd {
	int dirfd, flags, fd;
	unsigned refs;
	char leaf[NAME_MAX + 1];
};
static pthread_mutex_t job_shfd_lock = PTHREAD_MUTEX_INITIALIZER;
static struct job_shfd *job_shfds;
static size_t job_nshfds, job_shfd_cap;

int job_shared_open(int dirfd, const char *leaf, int flags)
{
	int fd = -1, err = 0;
	if (strlen(leaf) > NAME_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	pthread_mutex_lock(&job_shfd_lock);
	for (size_t i = 0; i < job_nshfds; i++) {
		struct job_shfd *e = &job_shfds[i];
		if (e->dirfd == dirfd && e->flags == flags && !strcmp(e->leaf, leaf)) {
			e->refs++;
			fd = e->fd;
			goto out;
		}
	}
	if (job_nshfds == job_shfd_cap) {
		size_t cap = job_shfd_cap ? 2 * job_shfd_cap : 64;
		struct job_shfd *t = realloc(job_shfds, cap * sizeof(*t));
		if (!t) {
			err = ENOMEM;
			goto out;
		}
		job_shfds = t;
		job_shfd_cap = cap;
	}
	fd = openat(dirfd, leaf, flags | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		goto out;
	}
	struct job_shfd *e = &job_shfds[job_nshfds++];
	*e = (struct job_shfd){ .dirfd = dirfd, .flags = flags, .fd = fd, .refs = 1 };
	snprintf(e->leaf, sizeof(e->leaf), "%s", leaf);
out:
	pthread_mutex_unlock(&job_shfd_lock);
	if (err)
		errno = err;
	return fd;
}

void job_shared_close(int fd)
{
	if (fd < 0)
		return;
	pthread_mutex_lock(&job_shfd_lock);
	for (size_t i = 0; i < job_nshfds; i++) {
		if (job_shfds[i].fd != fd)
			continue;
		if (!--job_shfds[i].refs) {
			close(fd);
			job_shfds[i] = job_shfds[--job_nshfds];
		}
		break;
	}
	pthread_mutex_unlock(&job_shfd_lock);
}

unsigned job_shared_count(void)
{
	pthread_mutex_lock(&job_shfd_lock);
	unsigned n = (unsigned)job_nshfds;
	pthread_mutex_unlock(&job_shfd_lock);
	return n;
}

int job_extents(int fd, uint64_t *n)
{
	struct fiemap fm;
	memset(&fm, 0, sizeof(fm));
	fm.fm_length = FIEMAP_MAX_OFFSET;
	fm.fm_flags = FIEMAP_FLAG_SYNC;
	fm.fm_extent_count = 0;    /* count only */
	if (ioctl(fd, FS_IOC_FIEMAP, &fm))
		return -1;
	*n = fm.fm_mapped_extents;
	return 0;
}

void job_count_extents(struct job_ctx *c, int fd)
{
	uint64_t n;
	if (job_extents(fd, &n))
		return;    /* not known here: the entry's extents stay null */
	c->io.extents += n;
	c->io.extent_files++;
}

void job_free_state(struct job_ctx *c, const struct job_kind *k, const void *params, void *state)
{
	(void)c, (void)k, (void)params;
	free(state);
}

void job_fill_pattern(void *buf, size_t len, uint64_t seed)
{
	struct jm_rng r;
	jm_rng_seed(&r, seed, 0x5eed);
	uint64_t *p = buf;
	size_t n = len / sizeof(*p);
	for (size_t i = 0; i < n; i++)
		p[i] = jm_rng_next(&r) | 0x0101010101010101ULL;
	memset((char *)buf + n * sizeof(*p), 0x5a, len - n * sizeof(*p));
}

bool job_file_is_filled(int dirfd, const char *leaf, uint64_t size)
{
	struct stat st;
	if (fstatat(dirfd, leaf, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
		return false;
	return (uint64_t)st.st_size == size && (uint64_t)st.st_blocks * 512 >= size;
}

#define JOB_FILL_CHUNK (1u << 20)

int job_fill_file(int dirfd, const char *leaf, uint64_t size, uint64_t seed, const char **op)
{
	return job_fill_file_req(dirfd, leaf, size, seed, JOB_FILL_CHUNK, op);
}

int job_fill_file_req(int dirfd, const char *leaf, uint64_t size, uint64_t seed, size_t req,
		      const char **op)
{
	if (req == 0 || req > JOB_FILL_CHUNK)
		req = JOB_FILL_CHUNK;
	int err = 0, fd = -1;
	uint64_t *buf = aligned_alloc(4096, JOB_FILL_CHUNK);
	if (!buf) {
		*op = "allocate a buffer for";
		return ENOMEM;
	}
	job_fill_pattern(buf, JOB_FILL_CHUNK, seed);
	fd = openat(dirfd, leaf, O_CREAT | O_TRUNC | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		*op = "create";
		err = errno;
		goto out;
	}
	for (uint64_t off = 0; off < size; off += JOB_FILL_CHUNK) {
		size_t len = size - off < JOB_FILL_CHUNK ? (size_t)(size - off) : JOB_FILL_CHUNK;
		/* make every 4 KiB block distinct */
		for (size_t b = 0; b < JOB_FILL_CHUNK / 8; b += 512)
			buf[b] = (off + b * 8) ^ seed ^ 0x0101010101010101ull;
		for (size_t done = 0; done < len; done += req) {
			size_t n = len - done < req ? len - done : req;
			if (job_pwrite_all(fd, (char *)buf + done, n, (off_t)(off + done)) < 0) {
				*op = "write";
				err = errno;
				goto out;
			}
		}
	}
	if (fsync(fd)) {
		*op = "fsync";
		err = errno;
	}
out:
	if (fd >= 0 && close(fd) && !err) {
		*op = "close";
		err = errno;
	}
	free(buf);
	return err;
}

char *job_io_buffer(struct job_ctx *c, int dirfd, const char *dir, bool direct, uint64_t block,
		    char **own)
{
	unsigned align = 4096;
	*own = NULL;
	if (direct) {
		unsigned dio = job_dio_align(dirfd);
		if (block % dio) {
			job_failf(c, "block %llu is not a multiple of the O_DIRECT alignment %u of '%s'",
				  (unsigned long long)block, dio, dir);
			return NULL;
		}
		if (dio > align)
			align = dio;
	}
	if (block <= JOB_IOBUF_SIZE && align <= 4096)
		return c->iobuf;
	size_t len = (block + align - 1) / align * align;
	*own = aligned_alloc(align, len);
	if (!*own) {
		job_fail(c, "allocate an I/O buffer", NULL, ENOMEM);
		return NULL;
	}
	job_fill_pattern(*own, len, c->user + 1);
	return *own;
}

int job_device_check(const char *name, uint64_t *bytes, char *err, size_t errlen)
{
	char path[JOB_DEVICE_LEN + 8];
	struct stat st;
	snprintf(path, sizeof(path), "/dev/%s", name);
	*bytes = 0;
	if (stat(path, &st)) {
		snprintf(err, errlen, "device %s: %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISBLK(st.st_mode)) {
		snprintf(err, errlen, "device %s: not a block device", path);
		return -1;
	}
	int fd = open(path, O_RDONLY | O_EXCL | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "device %s: %s", path, errno == EBUSY ?
			 "in use (a mounted file system or an exclusive holder): jobmix reads "
			 "only a device nobody has claimed" : strerror(errno));
		return -1;
	}
	int rc = ioctl(fd, BLKGETSIZE64, bytes);
	if (rc)
		snprintf(err, errlen, "device %s: its size: %s", path, strerror(errno));
	close(fd);
	return rc ? -1 : 0;
}

int job_device_open(struct job_ctx *c, const char *name, int flags, uint64_t *bytes)
{
	char path[JOB_DEVICE_LEN + 8];
	snprintf(path, sizeof(path), "/dev/%s", name);
	int fd = open(path, flags | O_CLOEXEC);
	if (fd < 0 || ioctl(fd, BLKGETSIZE64, bytes)) {
		job_fail_at(c, fd < 0 ? "open" : "ioctl(BLKGETSIZE64)", "/dev", name, errno);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}
