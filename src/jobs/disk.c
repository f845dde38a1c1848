// SPDX-License-Identifier: GPL-2.0-only
/*
 * The AIM7 disk jobs: one engine serving 19 kinds.  A kind is a pattern
 * (rr, rw, rd, wrt, cp, update) and a mode (normal, buffer-cache, O_DIRECT,
 * O_SYNC), both plain data in the kind's `.variant`, the way fio's sync
 * engine serves psync and vsync.  D is ctx->filesize (AIM7's FILESIZE +
 * POOLSIZE/users); requests are 1 KiB, or for O_DIRECT the device's
 * logical block size if that is larger.  Files are opened beneath the
 * held directory descriptors (openat, O_NOFOLLOW, unlinkat) by names set
 * up before the barrier; paths are built only for a message.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jobmix/job.h"
#include "jobmix/job_disk.h"

/* DISK_RD_SRC: read the shared source file, as re-aim's disk_brd and disk_dio_rd did. */
enum disk_pattern { DISK_RR, DISK_RW, DISK_RD, DISK_RD_SRC, DISK_WRT, DISK_CP, DISK_UPDATE };

/* How a family variant opens and syncs. */
struct disk_mode {
	int open_flags;   /* on every open of the job's files (O_DIRECT)        */
	int main_flags;   /* on the open of the measured phase (O_SYNC)         */
	bool sync_points; /* job_sync_point() wherever AIM7 called sync(2)      */
	bool direct;      /* unit = max(1 KiB, logical block size), aligned I/O */
	unsigned div;     /* requests of the measured phase = D / div           */
};

static const struct disk_mode disk_normal = { 0, 0, true, false, 1 };
static const struct disk_mode disk_buffered = { 0, 0, false, false, 1 };
static const struct disk_mode disk_direct = { O_DIRECT, 0, true, true, 1 };
static const struct disk_mode disk_osync = { 0, O_SYNC, false, false, 2 };

struct disk_variant {
	enum disk_pattern pattern;
	const struct disk_mode *mode;
};

#define DISK_NAME 64

/* Per-user state, found before the barrier: the request size and the files' names. */
struct disk_state {
	unsigned unit;
	char own[DISK_NAME]; /* the job's own file in c->dir_fd (job_own_name) */
	char src[DISK_NAME]; /* cp, brd: the shared source file in c->shared_fd */
};

/* Which of a job's two files an operation is on (for its message). */
enum disk_which { DISK_OWN, DISK_SRC };

/* One running job: its files, descriptors and buffers. */
struct disk_job {
	struct job_ctx *c;
	const struct disk_mode *m;
	const char *own;     /* the job's own file's name beneath c->dir_fd  */
	const char *src;     /* cp: the shared source's name beneath c->shared_fd */
	int fd, sfd;
	bool exists;         /* own was created and is not unlinked yet     */
	unsigned unit;
	char *rbuf;          /* upper half of c->iobuf: reads land here     */
};

unsigned job_disk_unit(bool direct, unsigned logical_block_size)
{
	if (direct && logical_block_size > JOB_DISK_UNIT)
		return logical_block_size;
	return JOB_DISK_UNIT;
}

uint64_t job_disk_blocks(uint64_t filesize, unsigned unit)
{
	uint64_t n = filesize / unit;
	return n ? n : 1;
}

uint64_t job_disk_rand_offset(struct jm_rng *r, uint64_t nblocks, unsigned unit)
{
	return jm_rng_below(r, nblocks) * unit;
}

/* Shared cp source: "<kind>.<entry>.src" in the shared directory. */
static char *disk_src_name(char *buf, size_t len, const char *kind, unsigned entry)
{
	snprintf(buf, len, "%s.%u.src", kind, entry);
	return buf;
}

/* The names of a user's files: its own and the shared source. */
static void disk_names(struct disk_state *st, const struct job_ctx *c, const struct job_kind *k)
{
	job_own_name(st->own, sizeof(st->own), c, k->name);
	disk_src_name(st->src, sizeof(st->src), k->name, c->entry);
}

/* Describe a failed operation on one of the job's files (the path built here). */
static int disk_fail(struct disk_job *j, const char *op, enum disk_which w, int err)
{
	const struct job_ctx *c = j->c;
	return job_fail_at(j->c, op, w == DISK_SRC ? c->shared_dir : c->dir,
			   w == DISK_SRC ? j->src : j->own, err);
}

/* openat(2) beneath the file's directory, with a message that says so when O_DIRECT is the problem. */
static int disk_open(struct disk_job *j, enum disk_which w, int flags)
{
	const struct job_ctx *c = j->c;
	int fd = openat(w == DISK_SRC ? c->shared_fd : c->dir_fd, w == DISK_SRC ? j->src : j->own,
			flags | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
	int e = errno;
	if ((flags & O_DIRECT) && e == EINVAL)
		return job_failf(j->c, "open '%s/%s' with O_DIRECT failed: the filesystem does "
				 "not support O_DIRECT (%s)", w == DISK_SRC ? c->shared_dir : c->dir,
				 w == DISK_SRC ? j->src : j->own, strerror(e));
	return disk_fail(j, (flags & O_CREAT) ? "create" : "open", w, e);
}

/*
 * Create the job's own file (truncating a stale one).  It counts as existing
 * even if the open fails: O_CREAT|O_DIRECT on a filesystem without O_DIRECT
 * creates the file and then fails with EINVAL.  The name is the job's own,
 * unique to the user (job_own_name), so removing it is always safe.
 */
static int disk_create(struct disk_job *j, int flags)
{
	j->exists = true;
	j->fd = disk_open(j, DISK_OWN, O_CREAT | O_TRUNC | flags);
	return j->fd < 0 ? -1 : 0;
}

static int disk_close(struct disk_job *j, int *fd, enum disk_which w)
{
	int rc = close(*fd);
	*fd = -1;
	if (rc)
		return disk_fail(j, "close", w, errno);
	return 0;
}

static int disk_unlink(struct disk_job *j)
{
	j->exists = false;
	if (unlinkat(j->c->dir_fd, j->own, 0))
		return disk_fail(j, "unlink", DISK_OWN, errno);
	return 0;
}

/* A sync point of the normal and O_DIRECT modes; fd -1 once the file is gone. */
static int disk_sync(struct disk_job *j, int fd)
{
	if (!j->m->sync_points)
		return 0;
	return job_sync_point(j->c, fd, j->c->dir, j->own);
}

/* The write data for the block at off: a slice of the non-zero pattern. */
static const char *disk_wdata(const struct disk_job *j, off_t off)
{
	uint64_t slots = (JOB_IOBUF_SIZE / 2) / j->unit;
	return j->c->iobuf + ((uint64_t)off / j->unit % slots) * j->unit;
}

/*
 * The calls are re-aim's: a request is a read(2) or write(2) at the file
 * position, and a random one is an lseek(2) first, two system calls as
 * there (pread/pwrite would be one: a different cost where calls are dear).
 */
static int disk_seek(struct disk_job *j, int fd, enum disk_which w, off_t off)
{
	if (lseek(fd, off, SEEK_SET) < 0)
		return disk_fail(j, "lseek", w, errno);
	return 0;
}

static int disk_write(struct disk_job *j, int fd, enum disk_which w, const void *buf)
{
	if (job_write_all(fd, buf, j->unit) < 0)
		return disk_fail(j, "write", w, errno);
	j->c->io.wbytes += j->unit;
	j->c->io.wops++;
	return 0;
}

static int disk_read(struct disk_job *j, int fd, enum disk_which w)
{
	ssize_t n = job_read_all(fd, j->rbuf, j->unit);
	if (n < 0)
		return disk_fail(j, "read", w, errno);
	j->c->io.rbytes += (uint64_t)n;
	j->c->io.rops++;
	if ((size_t)n < j->unit)
		return job_failf(j->c, "read '%s/%s' at offset %lld: %zd of %u bytes (file too short)",
				 w == DISK_SRC ? j->c->shared_dir : j->c->dir,
				 w == DISK_SRC ? j->src : j->own,
				 (long long)(lseek(fd, 0, SEEK_CUR) - n), n, j->unit);
	return 0;
}

/* Write blocks [0, n) of the job's file in order, from its start. */
static int disk_fill(struct disk_job *j, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		if (disk_write(j, j->fd, DISK_OWN, disk_wdata(j, (off_t)(i * j->unit))))
			return -1;
	return 0;
}

/*
 * The measured requests; `size` is the file's length in units.  Sequential
 * patterns start with re-aim's rewind of the file they read (one lseek).
 */
static int disk_requests(struct disk_job *j, enum disk_pattern pat, uint64_t ops, uint64_t size)
{
	struct jm_rng *rng = j->c->rng;
	int rfd = pat == DISK_RD ? j->fd : j->sfd;
	enum disk_which rw = pat == DISK_RD ? DISK_OWN : DISK_SRC;

	if ((pat == DISK_RD || pat == DISK_RD_SRC || pat == DISK_CP) &&
	    disk_seek(j, rfd, rw, 0))
		return -1;
	for (uint64_t i = 0; i < ops; i++) {
		off_t seq = (off_t)(i * j->unit);
		off_t rnd;
		switch (pat) {
		case DISK_RR:
			rnd = (off_t)job_disk_rand_offset(rng, size, j->unit);
			if (disk_seek(j, j->fd, DISK_OWN, rnd) || disk_read(j, j->fd, DISK_OWN))
				return -1;
			break;
		case DISK_RW:
			rnd = (off_t)job_disk_rand_offset(rng, size, j->unit);
			if (disk_seek(j, j->fd, DISK_OWN, rnd) ||
			    disk_write(j, j->fd, DISK_OWN, disk_wdata(j, rnd)))
				return -1;
			break;
		case DISK_RD:
		case DISK_RD_SRC:
			if (disk_read(j, rfd, rw))
				return -1;
			break;
		case DISK_WRT:
			if (disk_write(j, j->fd, DISK_OWN, disk_wdata(j, seq)))
				return -1;
			break;
		case DISK_CP:
			if (disk_read(j, j->sfd, DISK_SRC) || disk_write(j, j->fd, DISK_OWN, j->rbuf))
				return -1;
			break;
		case DISK_UPDATE:
			rnd = (off_t)job_disk_rand_offset(rng, size, j->unit);
			/* re-aim: seek, read the block, then write where the read left
			 * the file position: the next block (past the end for the last) */
			if (disk_seek(j, j->fd, DISK_OWN, rnd) || disk_read(j, j->fd, DISK_OWN) ||
			    disk_write(j, j->fd, DISK_OWN, disk_wdata(j, rnd + j->unit)))
				return -1;
			break;
		}
	}
	return 0;
}

/* The measured phase's access mode of a pattern that fills its file first. */
static int disk_reopen_flags(enum disk_pattern pat)
{
	switch (pat) {
	case DISK_RR:
	case DISK_RD:
		return O_RDONLY;
	case DISK_RW:
		return O_WRONLY;
	default:
		return O_RDWR;
	}
}

/*
 * Run one job of the kind's pattern and mode.  The order of opens, syncs,
 * closes and unlinks is AIM7's (see the kinds' docs); every path out
 * closes what is open and unlinks the job's file.
 */
static int disk_run(struct job_ctx *c, const struct job_kind *k, const void *params, void *state)
{
	(void)params;
	const struct disk_variant *v = k->variant;
	const struct disk_mode *m = v->mode;
	const struct disk_state *st = state;
	struct disk_state here;
	struct disk_job j = { .c = c, .m = m, .fd = -1, .sfd = -1,
			      .rbuf = c->iobuf + JOB_IOBUF_SIZE / 2 };
	int ret = -1;

	if (!st) {
		/* run without setup (a test): the names and unit now */
		here.unit = job_disk_unit(m->direct, m->direct ? job_dio_align(c->dir_fd) : 0);
		disk_names(&here, c, k);
		st = &here;
	}
	j.unit = st->unit;
	j.own = st->own;
	j.src = st->src;
	/* the scale multiplies D: the file, its fill and its requests */
	uint64_t blocks = job_scaled(c, job_disk_blocks(c->filesize, j.unit));
	uint64_t ops = blocks / m->div ? blocks / m->div : 1;
	/* the file is D/div long, except that update always works in all of D */
	uint64_t size = v->pattern == DISK_UPDATE ? blocks : ops;

	switch (v->pattern) {
	case DISK_RD_SRC:
		/* re-aim's disk_brd and disk_dio_rd read the shared source file, as disk_cp */
		j.sfd = disk_open(&j, DISK_SRC, O_RDONLY | m->open_flags);
		if (j.sfd < 0)
			goto out;
		break;
	case DISK_RD:
	case DISK_RR:
	case DISK_RW:
	case DISK_UPDATE:
		/* the file is filled with buffered writes in every mode, as re-aim's */
		if (disk_create(&j, O_WRONLY) || disk_fill(&j, size) ||
		    disk_sync(&j, j.fd) || disk_close(&j, &j.fd, DISK_OWN))
			goto out;
		j.fd = disk_open(&j, DISK_OWN, disk_reopen_flags(v->pattern) | m->open_flags |
				 m->main_flags);
		if (j.fd < 0)
			goto out;
		break;
	case DISK_WRT:
		if (disk_create(&j, O_WRONLY | m->open_flags | m->main_flags) || disk_sync(&j, j.fd))
			goto out;
		break;
	case DISK_CP:
		/* re-aim's disk_cp syncs first; its disk_dio_cp does not */
		if (!m->direct && disk_sync(&j, -1))
			goto out;
		j.sfd = disk_open(&j, DISK_SRC, O_RDONLY | m->open_flags);
		if (j.sfd < 0 || disk_create(&j, O_WRONLY | m->open_flags | m->main_flags) ||
		    disk_sync(&j, j.fd))
			goto out;
		break;
	}

	if (disk_requests(&j, v->pattern, ops, size))
		goto out;

	switch (v->pattern) {
	case DISK_RR:
	case DISK_UPDATE:
		/* close, unlink, sync (re-aim's disk_dio_rr: unlink, close, sync) */
		if (m->direct ? disk_unlink(&j) || disk_close(&j, &j.fd, DISK_OWN)
			      : disk_close(&j, &j.fd, DISK_OWN) || disk_unlink(&j))
			goto out;
		if (disk_sync(&j, -1))
			goto out;
		break;
	case DISK_RD_SRC:
		/* the shared file: close, sync */
		if (disk_close(&j, &j.sfd, DISK_SRC) || disk_sync(&j, -1))
			goto out;
		break;
	case DISK_RD:
		/* close, sync, unlink: a file sync has to happen before the close */
		if (disk_sync(&j, j.fd) || disk_close(&j, &j.fd, DISK_OWN) || disk_unlink(&j))
			goto out;
		break;
	case DISK_WRT:
		/* unlink, close, sync (re-aim's disk_dio_wrt: close, unlink, sync) */
		if (m->direct ? disk_close(&j, &j.fd, DISK_OWN) || disk_unlink(&j)
			      : disk_unlink(&j) || disk_close(&j, &j.fd, DISK_OWN))
			goto out;
		if (disk_sync(&j, -1))
			goto out;
		break;
	case DISK_RW:
	case DISK_CP:
		/* unlink, close, sync */
		if (disk_unlink(&j) || disk_close(&j, &j.fd, DISK_OWN) ||
		    (j.sfd >= 0 && disk_close(&j, &j.sfd, DISK_SRC)) || disk_sync(&j, -1))
			goto out;
		break;
	}
	ret = 0;
out:
	if (j.fd >= 0)
		close(j.fd);
	if (j.sfd >= 0)
		close(j.sfd);
	if (j.exists)
		unlinkat(c->dir_fd, j.own, 0);
	return ret;
}

/* Per user, before the barrier: the request size (a /sys lookup for O_DIRECT), the names. */
static int disk_setup(struct job_ctx *c, const struct job_kind *k, const void *params,
		      void **state)
{
	(void)params;
	const struct disk_variant *v = k->variant;
	struct disk_state *st = malloc(sizeof(*st));
	if (!st)
		return job_fail(c, "malloc", NULL, ENOMEM);
	st->unit = job_disk_unit(v->mode->direct, v->mode->direct ? job_dio_align(c->dir_fd) : 0);
	disk_names(st, c, k);
	*state = st;
	return 0;
}

/*
 * cp kinds and disk_dio_rd, in the parent before the users start: the shared source file of
 * D bytes (at least one O_DIRECT unit) with a non-zero pattern, flushed so
 * that no user pays for its writeback.
 */
static int disk_cp_prepare(struct job_prep *p, const struct job_kind *k, const void *params)
{
	(void)params;
	const struct disk_variant *v = k->variant;
	enum { CHUNK = 64 * 1024 };
	char name[DISK_NAME];
	int ret = -1;
	unsigned unit = job_disk_unit(v->mode->direct,
				      v->mode->direct ? job_dio_align(p->shared_fd) : 0);
	uint64_t size = p->filesize < unit ? unit : p->filesize;
	/* long enough for the most blocks a scaled job reads */
	uint64_t most = job_scaled_max(p->scale, job_disk_blocks(p->filesize, unit)) * unit;
	size = most > size ? most : size;

	disk_src_name(name, sizeof(name), k->name, p->entry);
	char *buf = malloc(CHUNK);
	if (!buf)
		return job_prep_fail_at(p, "malloc", name, ENOMEM);
	job_fill_pattern(buf, CHUNK, p->seed ^ ((uint64_t)p->entry << 32));
	int fd = openat(p->shared_fd, name, O_CREAT | O_TRUNC | O_WRONLY | O_NOFOLLOW | O_CLOEXEC,
			0600);
	if (fd < 0) {
		job_prep_fail_at(p, "create", name, errno);
		goto out_buf;
	}
	for (uint64_t done = 0; done < size;) {
		size_t n = size - done < CHUNK ? (size_t)(size - done) : CHUNK;
		if (job_write_all(fd, buf, n) < 0) {
			job_prep_fail_at(p, "write", name, errno);
			goto out_fd;
		}
		done += n;
	}
	if (fsync(fd)) {
		job_prep_fail_at(p, "fsync", name, errno);
		goto out_fd;
	}
	ret = 0;
out_fd:
	if (close(fd) && !ret)
		ret = job_prep_fail_at(p, "close", name, errno);
out_buf:
	free(buf);
	return ret;
}

/* ---- documentation ---- */

#define DISK_DOC_RR "Creates its file in its work directory, writes D (FILESIZE + " \
	"POOLSIZE/users) in 1 KiB blocks, sync point, closes; reopens it read-only and " \
	"reads D blocks, each at a random block of the file; closes, unlinks, sync point."
#define DISK_DOC_RW "Creates its file and writes D in 1 KiB blocks, sync point; reopens " \
	"it write-only and writes D blocks, each at a random block of the file; unlinks, " \
	"closes, sync point."
#define DISK_DOC_RD "Creates its file and writes D in 1 KiB blocks, sync point; reopens " \
	"it read-only and reads it back sequentially in 1 KiB blocks; sync point, closes, " \
	"unlinks."
#define DISK_DOC_BRD "Opens the shared source file of D bytes (made once per load " \
	"point and directory, before the users start, as disk_cp's) and reads it " \
	"sequentially in 1 KiB blocks; closes (re-aim's disk_brd made no file of its own, " \
	"unlike disk_rd)."
#define DISK_DOC_WRT "Creates its file, sync point, writes D sequentially in 1 KiB " \
	"blocks; unlinks, closes, sync point."
#define DISK_DOC_CP "Sync point; opens the shared source file of D bytes (made once per " \
	"load point and directory, before the users start) and creates a target in the " \
	"user's directory, sync point; copies D in 1 KiB reads and writes; unlinks the " \
	"target, closes both, sync point."
#define DISK_DOC_SYNC_RW "Creates its file and writes D/2 in 1 KiB blocks (buffered); " \
	"reopens it write-only with O_SYNC and writes D/2 blocks, each at a random block " \
	"of the file; closes, unlinks."
#define DISK_DOC_SYNC_WRT "Creates its file with O_SYNC and writes D/2 sequentially in " \
	"1 KiB blocks; closes, unlinks."
#define DISK_DOC_SYNC_CP "Opens the shared source file (as disk_cp) and copies D/2 in " \
	"1 KiB blocks into a target opened with O_SYNC; closes, unlinks."
#define DISK_DOC_SYNC_UPDATE "Creates its file and writes D in 1 KiB blocks (buffered); " \
	"reopens it read-write with O_SYNC and does D/2 updates: read a random block of the " \
	"file, then write the block after it, where the read left the file position, as " \
	"re-aim did (for the last block the file grows by one); closes, unlinks."

#define DISK_DOC_NORMAL "Sync points follow the workload's sync: setting (none; file: " \
	"fsync of the job's own file; global: sync(2), as AIM7 did); a sync point after " \
	"the unlink acts only under sync: global."
#define DISK_DOC_BUFFERED "Buffer-cache variant: no sync at all."
#define DISK_DOC_DIRECT "O_DIRECT variant, re-aim's: the file is filled with buffered " \
	"writes, then every measured open uses O_DIRECT and an aligned buffer; the request " \
	"size is the device's logical block size if that is over 1 KiB, and D is rounded " \
	"down to whole requests (at least one). Sync points as in the normal variant. On a " \
	"filesystem without O_DIRECT support the job fails saying so."
#define DISK_DOC_DIO_RR "Creates its file and writes D in 1 KiB blocks (buffered), " \
	"sync point, closes; reopens it with O_DIRECT read-only and reads D blocks, each " \
	"at a random block of the file; unlinks, closes, sync point."
#define DISK_DOC_DIO_RW "Creates its file and writes D in 1 KiB blocks (buffered), " \
	"sync point; reopens it with O_DIRECT write-only and writes D blocks, each at a " \
	"random block of the file; unlinks, closes, sync point."
#define DISK_DOC_DIO_RD "Opens the shared source file of D bytes (made once per load " \
	"point and directory, before the users start, as disk_cp's) with O_DIRECT and " \
	"reads it sequentially in 1 KiB blocks; closes, sync point (re-aim's disk_dio_rd " \
	"made no file of its own)."
#define DISK_DIO_BUG "Fix over re-aim: re-aim's loop count was overwritten by the " \
	"result of posix_memalign (0), so its job did no I/O at all; this one does the " \
	"D requests the job names."
#define DISK_DOC_DIO_WRT "Creates its file with O_DIRECT, sync point, writes D " \
	"sequentially in 1 KiB blocks; closes, unlinks, sync point. " DISK_DIO_BUG
#define DISK_DOC_DIO_CP "Opens the shared source file of D bytes with O_DIRECT and " \
	"creates a target with O_DIRECT, sync point (no sync before, unlike disk_cp); " \
	"copies D in 1 KiB reads and writes; unlinks the target, closes both, sync point. " \
	DISK_DIO_BUG
#define DISK_DOC_OSYNC "No sync points: O_SYNC does the flushing."

#define DISK_FIXES "Calls as re-aim's: read(2) and write(2) at the file position, an " \
	"lseek(2) before each random request and before a sequential read. " \
	"Fixes over re-aim: random offsets span the whole file (re-aim's " \
	"15-bit RNG capped them at 32 MiB, and at 32 KiB for disk_dio_rr); the O_DIRECT " \
	"unit is the logical block size (1 KiB failed on 4Kn devices); the file's name " \
	"carries the user's number, so names cannot collide (re-aim used pid % 100000); " \
	"data written is a non-zero pattern, not zeros."

/* ---- the kinds ---- */

#define DISK_KIND(kname, pat, mode, prep, sum, pdoc, mdoc)                              \
	static const struct disk_variant kname##_variant = { pat, &mode };              \
	const struct job_kind job_##kname = {                                           \
		.name = #kname,                                                         \
		.family = "disk",                                                       \
		.summary = sum,                                                         \
		.doc = pdoc " " mdoc " " DISK_FIXES,                                    \
		.flags = JOB_DISK | JOB_IO,                                             \
		.variant = &kname##_variant,                                            \
		.prepare = prep,                                                        \
		.setup = disk_setup,                                                    \
		.run_once = disk_run,                                                   \
		.teardown = job_free_state,                                             \
	};

DISK_KIND(disk_rr, DISK_RR, disk_normal, NULL,
	  "write D, sync, D random 1 KiB reads over the whole file",
	  DISK_DOC_RR, DISK_DOC_NORMAL)
DISK_KIND(disk_rw, DISK_RW, disk_normal, NULL,
	  "write D, sync, D random 1 KiB writes over the whole file",
	  DISK_DOC_RW, DISK_DOC_NORMAL)
DISK_KIND(disk_rd, DISK_RD, disk_normal, NULL,
	  "write D, sync, read it back sequentially in 1 KiB blocks",
	  DISK_DOC_RD, DISK_DOC_NORMAL)
DISK_KIND(disk_wrt, DISK_WRT, disk_normal, NULL,
	  "create, sync, write D sequentially in 1 KiB blocks",
	  DISK_DOC_WRT, DISK_DOC_NORMAL)
DISK_KIND(disk_cp, DISK_CP, disk_normal, disk_cp_prepare,
	  "copy a shared D-byte file in 1 KiB blocks, with sync points",
	  DISK_DOC_CP, DISK_DOC_NORMAL)

DISK_KIND(disk_brr, DISK_RR, disk_buffered, NULL,
	  "disk_rr without sync (buffer cache)", DISK_DOC_RR, DISK_DOC_BUFFERED)
DISK_KIND(disk_brw, DISK_RW, disk_buffered, NULL,
	  "disk_rw without sync (buffer cache)", DISK_DOC_RW, DISK_DOC_BUFFERED)
DISK_KIND(disk_brd, DISK_RD_SRC, disk_buffered, disk_cp_prepare,
	  "sequential 1 KiB reads of a shared D-byte file (buffer cache)", DISK_DOC_BRD,
	  DISK_DOC_BUFFERED)
DISK_KIND(disk_bwrt, DISK_WRT, disk_buffered, NULL,
	  "disk_wrt without sync (buffer cache)", DISK_DOC_WRT, DISK_DOC_BUFFERED)
DISK_KIND(disk_bcp, DISK_CP, disk_buffered, disk_cp_prepare,
	  "disk_cp without sync (buffer cache)", DISK_DOC_CP, DISK_DOC_BUFFERED)

DISK_KIND(disk_dio_rr, DISK_RR, disk_direct, NULL,
	  "write D, sync, D random O_DIRECT 1 KiB reads over the whole file",
	  DISK_DOC_DIO_RR, DISK_DOC_DIRECT)
DISK_KIND(disk_dio_rw, DISK_RW, disk_direct, NULL,
	  "write D, sync, D random O_DIRECT 1 KiB writes over the whole file",
	  DISK_DOC_DIO_RW, DISK_DOC_DIRECT)
DISK_KIND(disk_dio_rd, DISK_RD_SRC, disk_direct, disk_cp_prepare,
	  "O_DIRECT sequential 1 KiB reads of a shared D-byte file",
	  DISK_DOC_DIO_RD, DISK_DOC_DIRECT)
DISK_KIND(disk_dio_wrt, DISK_WRT, disk_direct, NULL,
	  "create, sync, write D sequentially with O_DIRECT in 1 KiB blocks",
	  DISK_DOC_DIO_WRT, DISK_DOC_DIRECT)
DISK_KIND(disk_dio_cp, DISK_CP, disk_direct, disk_cp_prepare,
	  "copy a shared D-byte file with O_DIRECT in 1 KiB blocks",
	  DISK_DOC_DIO_CP, DISK_DOC_DIRECT)

DISK_KIND(sync_disk_rw, DISK_RW, disk_osync, NULL,
	  "write D/2, then D/2 random 1 KiB O_SYNC writes", DISK_DOC_SYNC_RW, DISK_DOC_OSYNC)
DISK_KIND(sync_disk_wrt, DISK_WRT, disk_osync, NULL,
	  "D/2 sequential 1 KiB O_SYNC writes", DISK_DOC_SYNC_WRT, DISK_DOC_OSYNC)
DISK_KIND(sync_disk_cp, DISK_CP, disk_osync, disk_cp_prepare,
	  "copy D/2 of a shared file into an O_SYNC target", DISK_DOC_SYNC_CP, DISK_DOC_OSYNC)
DISK_KIND(sync_disk_update, DISK_UPDATE, disk_osync, NULL,
	  "write D, then D/2 random 1 KiB read+write updates with O_SYNC",
	  DISK_DOC_SYNC_UPDATE, DISK_DOC_OSYNC)
