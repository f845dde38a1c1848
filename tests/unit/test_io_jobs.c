// SPDX-License-Identifier: GPL-2.0-only
/*
 * The parametrised I/O kinds (fileio, seqread, streams) against their
 * contracts: exact byte and request counts, the rndrw read:write split,
 * O_DIRECT alignment errors, shared vs per-user files, sequential
 * continuation, fsync/sync/fadvise/readahead calls.  The calls are counted
 * by wrappers defined here, which take precedence over libc's for the
 * statically linked job code and forward to the next definition.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "jm_test.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jobmix/job.h"

/* ---- counted system calls -------------------------------------------- */

struct calls {
	unsigned fsync, fdatasync, sync, dontneed, fadv_random;
	unsigned readahead;
	uint64_t ra_bytes, ra_next; /* readahead coverage: sum and expected next start */
	bool ra_gap;                /* a readahead did not start where the last ended */
};
static struct calls calls;

int fsync(int fd)
{
	int (*next)(int) = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
	calls.fsync++;
	return next(fd);
}

int fdatasync(int fd)
{
	int (*next)(int) = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
	calls.fdatasync++;
	return next(fd);
}

void sync(void)
{
	void (*next)(void) = (void (*)(void))dlsym(RTLD_NEXT, "sync");
	calls.sync++;
	next();
}

int posix_fadvise(int fd, off_t off, off_t len, int advice)
{
	int (*next)(int, off_t, off_t, int) =
		(int (*)(int, off_t, off_t, int))dlsym(RTLD_NEXT, "posix_fadvise");
	if (advice == POSIX_FADV_DONTNEED)
		calls.dontneed++;
	if (advice == POSIX_FADV_RANDOM)
		calls.fadv_random++;
	return next(fd, off, len, advice);
}

ssize_t readahead(int fd, off_t off, size_t len)
{
	ssize_t (*next)(int, off_t, size_t) =
		(ssize_t (*)(int, off_t, size_t))dlsym(RTLD_NEXT, "readahead");
	calls.readahead++;
	if ((uint64_t)off != calls.ra_next)
		calls.ra_gap = true;
	calls.ra_next = (uint64_t)off + len;
	calls.ra_bytes += len;
	return next(fd, off, len);
}

/* write(): while rec.on, each call's descriptor and length (streams' order and sizes) */
#define REC_MAX 8192
static struct {
	bool on;
	unsigned n;
	int fd[REC_MAX];
	size_t len[REC_MAX];
} rec;

ssize_t write(int fd, const void *buf, size_t len)
{
	ssize_t (*next)(int, const void *, size_t) =
		(ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
	if (rec.on && rec.n < REC_MAX) {
		rec.fd[rec.n] = fd;
		rec.len[rec.n++] = len;
	}
	return next(fd, buf, len);
}

/* ---- a user's world ---------------------------------------------------- */

struct env {
	char root[64];
	char udir[PATH_MAX], sdir[PATH_MAX];
	int ufd, sfd;
	char *iobuf;
	struct jm_rng rng;
	struct job_ctx c;
	struct job_prep prep;
	const struct job_kind *k;
	void *params;
	void *st;
	uint64_t set;              /* parameters given by env_set() */
};

static void env_init(struct env *e, const char *kind, enum job_sync sync)
{
	memset(e, 0, sizeof(*e));
	snprintf(e->root, sizeof(e->root), "/tmp/jobmix-io-XXXXXX");
	assert_non_null(mkdtemp(e->root));
	snprintf(e->udir, sizeof(e->udir), "%s/u0", e->root);
	snprintf(e->sdir, sizeof(e->sdir), "%s/shared", e->root);
	assert_int_equal(mkdir(e->udir, 0700), 0);
	assert_int_equal(mkdir(e->sdir, 0700), 0);
	e->iobuf = aligned_alloc(4096, JOB_IOBUF_SIZE);
	assert_non_null(e->iobuf);
	job_fill_pattern(e->iobuf, JOB_IOBUF_SIZE, 1);
	jm_rng_seed(&e->rng, 1, 0);
	e->k = job_find(kind);
	assert_non_null(e->k);
	e->params = calloc(1, e->k->params_size);
	char err[256];
	assert_int_equal(job_params_defaults(e->k, e->params, err, sizeof(err)), 0);
	e->ufd = dir_fd(e->udir);
	e->sfd = dir_fd(e->sdir);
	assert_true(e->ufd >= 0 && e->sfd >= 0);
	e->prep = (struct job_prep){ .shared_dir = e->sdir, .shared_fd = e->sfd, .nusers = 1,
				     .dir_users = 1, .sync = sync, .seed = 7,
				     .job_name = e->k->name };
	e->c = (struct job_ctx){ .dir = e->udir, .dir_fd = e->ufd, .shared_dir = e->sdir,
				 .shared_fd = e->sfd, .nusers = 1,
				 .sync = sync, .rng = &e->rng, .iobuf = e->iobuf,
				 .job_name = e->k->name };
}

static void env_set(struct env *e, const char *name, const char *value)
{
	const struct job_param *p = job_param_find(e->k, name);
	char err[256] = "";
	assert_non_null(p);
	if (job_param_parse(p, e->params, value, err, sizeof(err)))
		fail_msg("%s=%s: %s", name, value, err);
	e->set |= 1ull << (p - e->k->params);
}

static int env_check(struct env *e, char *err, size_t len)
{
	err[0] = 0;
	return e->k->check ? e->k->check(e->k, e->params, e->set, err, len) : 0;
}

/* check, prepare and setup; fails the test on an error. */
static void env_start(struct env *e)
{
	char err[256];
	if (env_check(e, err, sizeof(err)))
		fail_msg("check: %s", err);
	if (e->k->prepare && e->k->prepare(&e->prep, e->k, e->params))
		fail_msg("prepare: %s", e->prep.err);
	if (e->k->setup && e->k->setup(&e->c, e->k, e->params, &e->st))
		fail_msg("setup: %s", e->c.err);
	memset(&calls, 0, sizeof(calls));
	memset(&e->c.io, 0, sizeof(e->c.io));
}

static void env_run(struct env *e)
{
	if (e->k->run_once(&e->c, e->k, e->params, e->st))
		fail_msg("run_once: %s", e->c.err);
}

static void env_teardown(struct env *e)
{
	if (e->k->teardown)
		e->k->teardown(&e->c, e->k, e->params, e->st);
	e->st = NULL;
}

static void env_free(struct env *e)
{
	char cmd[PATH_MAX];
	snprintf(cmd, sizeof(cmd), "rm -rf -- '%s'", e->root);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", e->root);
	close(e->ufd);
	close(e->sfd);
	free(e->iobuf);
	free(e->params);
}

/* stat() of dir/name into st; false if it does not exist. */
static bool stat_at(const char *dir, const char *name, struct stat *st)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return stat(path, st) == 0;
}

/* Size of dir/name in bytes, -1 if it does not exist. */
static long long file_size_at(const char *dir, const char *name)
{
	struct stat st;
	return stat_at(dir, name, &st) ? (long long)st.st_size : -1;
}

/* FIEMAP answers for a file of dir (not on tmpfs and others: ENOTTY, EOPNOTSUPP). */
static bool fiemap_works(const char *dir)
{
	char path[PATH_MAX];
	uint64_t n;
	snprintf(path, sizeof(path), "%s/.fiemap", dir);
	int fd = open(path, O_CREAT | O_RDWR, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "x", 1), 1);
	int rc = job_extents(fd, &n), err = errno;
	close(fd);
	unlink(path);
	if (rc && err != ENOTTY && err != EOPNOTSUPP)
		fail_msg("FIEMAP on %s: %s", path, strerror(err));
	if (rc)
		print_message("SKIP: FIEMAP not supported in %s\n", dir);
	return !rc;
}

/* O_DIRECT works in /tmp here (not on tmpfs). */
static bool direct_supported(const char *dir)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/.dio-probe", dir);
	int fd = open(path, O_CREAT | O_RDWR | O_DIRECT, 0600);
	if (fd >= 0) {
		close(fd);
		unlink(path);
	}
	return fd >= 0;
}

/* ---- fileio ------------------------------------------------------------ */

static void test_fileio_modes_exact(void **state)
{
	(void)state;
	static const char *const modes[] = { "seqwr", "seqrewr", "seqrd",
					     "rndrd", "rndwr", "rndrw" };
	for (size_t m = 0; m < 6; m++) {
		struct env e;
		env_init(&e, "fileio", JOB_SYNC_NONE);
		env_set(&e, "mode", modes[m]);
		env_set(&e, "files", "2");
		env_set(&e, "file_size", "64k");
		env_set(&e, "block", "8k");
		env_set(&e, "ops", "50");
		env_start(&e);
		env_run(&e);
		env_run(&e); /* sequential modes wrap: 2 files x 8 blocks < 100 */
		const struct job_io *io = &e.c.io;
		bool reads = strstr(modes[m], "rd") != NULL;
		bool writes = strstr(modes[m], "wr") != NULL;
		if (reads && !writes) {
			assert_int_equal(io->rops, 100);
			assert_int_equal(io->rbytes, 100 * 8192);
			assert_int_equal(io->wops + io->wbytes, 0);
		} else if (writes && !reads) {
			assert_int_equal(io->wops, 100);
			assert_int_equal(io->wbytes, 100 * 8192);
			assert_int_equal(io->rops + io->rbytes, 0);
		} else {
			assert_int_equal(io->rops + io->wops, 100);
			assert_true(io->rops > 0 && io->wops > 0);
			assert_int_equal(io->rbytes, io->rops * 8192);
			assert_int_equal(io->wbytes, io->wops * 8192);
		}
		env_teardown(&e);
		assert_int_equal(count_entries(e.udir), 0);
		env_free(&e);
	}
}

static void check_ratio(const char *ratio, double want)
{
	struct env e;
	env_init(&e, "fileio", JOB_SYNC_NONE);
	env_set(&e, "mode", "rndrw");
	env_set(&e, "files", "1");
	env_set(&e, "file_size", "1m");
	env_set(&e, "block", "4k");
	env_set(&e, "ops", "20000");
	env_set(&e, "fsync_every", "0");
	env_set(&e, "rw_ratio", ratio);
	env_start(&e);
	env_run(&e);
	double got = (double)e.c.io.rops / (double)e.c.io.wops;
	if (got < want * 0.93 || got > want * 1.07)
		fail_msg("rw_ratio %s: %llu reads / %llu writes = %.3f", ratio,
			 (unsigned long long)e.c.io.rops, (unsigned long long)e.c.io.wops, got);
	env_teardown(&e);
	env_free(&e);
}

static void test_fileio_rw_ratio(void **state)
{
	(void)state;
	check_ratio("1.5", 1.5);
	check_ratio("4", 4.0);
	check_ratio("0.25", 0.25);
}

static void test_fileio_direct(void **state)
{
	(void)state;
	struct env e;
	char err[256];
	env_init(&e, "fileio", JOB_SYNC_NONE);
	env_set(&e, "flags", "direct");
	env_set(&e, "block", "1000");
	assert_int_equal(env_check(&e, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "O_DIRECT"));
	assert_non_null(strstr(err, "1000"));
	/* setup checks against the device even when check() was skipped */
	assert_int_equal(e.k->setup(&e.c, e.k, e.params, &e.st), -1);
	assert_non_null(strstr(e.c.err, "fileio: block 1000 is not a multiple of the O_DIRECT"));
	assert_non_null(strstr(e.c.err, e.udir));
	assert_int_equal(count_entries(e.udir), 0);

	if (direct_supported(e.udir)) {
		env_set(&e, "block", "4k");
		env_set(&e, "files", "2");
		env_set(&e, "file_size", "256k");
		env_set(&e, "flags", "direct|dsync");
		env_start(&e);
		env_run(&e);
		assert_int_equal(e.c.io.rops + e.c.io.wops, 100);
		assert_int_equal(e.c.io.rbytes + e.c.io.wbytes, 100 * 4096);
		env_teardown(&e);
		assert_int_equal(count_entries(e.udir), 0);
	} else {
		print_message("O_DIRECT not supported in /tmp: aligned run skipped\n");
	}
	env_free(&e);
}

static void test_fileio_check(void **state)
{
	(void)state;
	struct env e;
	char err[256];
	env_init(&e, "fileio", JOB_SYNC_NONE);
	assert_int_equal(env_check(&e, err, sizeof(err)), 0);
	env_set(&e, "total_size", "1m");
	assert_int_equal(env_check(&e, err, sizeof(err)), 0);
	env_set(&e, "file_size", "32m");
	assert_int_equal(env_check(&e, err, sizeof(err)), -1);
	assert_string_equal(err, "give file_size or total_size, not both");
	env_set(&e, "file_size", "16m"); /* the default beside total_size: accepted */
	assert_int_equal(env_check(&e, err, sizeof(err)), 0);
	env_set(&e, "files", "128");
	env_set(&e, "block", "16k"); /* 1m / 128 = 8k < 16k */
	assert_int_equal(env_check(&e, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "smaller than block"));

	/* total_size / files is the size of each prepared file */
	env_set(&e, "files", "4");
	env_set(&e, "shared", "true");
	env_start(&e);
	assert_int_equal(count_entries(e.sdir), 4 + 1); /* and the request sequence */
	assert_int_equal(file_size_at(e.sdir, "fileio-4x262144.3"), 256 * 1024);
	env_teardown(&e);
	env_free(&e);
}

static void test_fileio_shared(void **state)
{
	(void)state;
	struct env e;
	env_init(&e, "fileio", JOB_SYNC_FILE);
	env_set(&e, "shared", "true");
	env_set(&e, "files", "3");
	env_set(&e, "file_size", "64k");
	env_set(&e, "block", "4k");

	/* without prepare() the files are missing, and the error says so */
	assert_int_equal(e.k->setup(&e.c, e.k, e.params, &e.st), -1);
	assert_non_null(strstr(e.c.err, e.sdir));
	assert_non_null(strstr(e.c.err, "prepare()"));

	env_start(&e);
	assert_int_equal(count_entries(e.sdir), 3 + 1); /* files and the request sequence */
	assert_true(file_size_at(e.sdir, "fileio.0.ctl") > 0);
	assert_int_equal(count_entries(e.udir), 0);
	for (int i = 0; i < 3; i++) {
		char name[64];
		snprintf(name, sizeof(name), "fileio-3x65536.%d", i);
		assert_int_equal(file_size_at(e.sdir, name), 65536);
	}
	env_run(&e);
	assert_int_equal(e.c.io.rops + e.c.io.wops, 100);
	assert_int_equal(count_entries(e.udir), 0);
	env_teardown(&e);
	assert_int_equal(count_entries(e.udir), 0);
	assert_int_equal(count_entries(e.sdir), 4); /* the parent removes the work area */
	env_free(&e);
}

/* Bytes dir/name occupies on disk (st_blocks), -1 if it does not exist. */
static long long file_alloc_at(const char *dir, const char *name)
{
	struct stat st;
	return stat_at(dir, name, &st) ? (long long)st.st_blocks * 512 : -1;
}

/*
 * sparse: true: the shared files are holes of their size (a set of their
 * own, not the filled one's), made anew by every prepare() (a point's
 * writes allocate again); private files the same; refused with device:.
 */
static void test_fileio_sparse(void **state)
{
	(void)state;
	struct env e;
	char err[256];
	env_init(&e, "fileio", JOB_SYNC_NONE);
	env_set(&e, "shared", "true");
	env_set(&e, "sparse", "true");
	env_set(&e, "files", "2");
	env_set(&e, "file_size", "1m");
	env_set(&e, "block", "4k");
	env_set(&e, "mode", "rndwr");
	env_start(&e);
	assert_int_equal(file_size_at(e.sdir, "fileio-2x1048576-sparse.1"), 1 << 20);
	assert_int_equal(file_alloc_at(e.sdir, "fileio-2x1048576-sparse.1"), 0);
	assert_int_equal(file_size_at(e.sdir, "fileio-2x1048576.1"), -1);
	env_run(&e);
	long long a = file_alloc_at(e.sdir, "fileio-2x1048576-sparse.0") +
		      file_alloc_at(e.sdir, "fileio-2x1048576-sparse.1");
	assert_true(a > 0);          /* the writes allocated */
	env_teardown(&e);
	/* the next point's prepare() makes them holes again */
	assert_int_equal(e.k->prepare(&e.prep, e.k, e.params), 0);
	assert_int_equal(file_alloc_at(e.sdir, "fileio-2x1048576-sparse.0"), 0);
	assert_int_equal(file_size_at(e.sdir, "fileio-2x1048576-sparse.0"), 1 << 20);
	env_free(&e);

	env_init(&e, "fileio", JOB_SYNC_NONE);
	env_set(&e, "sparse", "true");
	env_set(&e, "files", "1");
	env_set(&e, "file_size", "256k");
	env_set(&e, "block", "4k");
	env_start(&e);
	char name[64];
	snprintf(name, sizeof(name), "fileio.%u.0.u%u", e.c.entry, e.c.user);
	assert_int_equal(file_size_at(e.udir, name), 256 * 1024);
	assert_int_equal(file_alloc_at(e.udir, name), 0);
	env_teardown(&e);
	env_set(&e, "device", "loop0");
	assert_int_equal(env_check(&e, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "sparse"));
	env_free(&e);
}

/* Descriptors this process has open (/proc/self/fd, less the one reading it). */
static unsigned open_fds(void)
{
	unsigned n = 0;
	DIR *d = opendir("/proc/self/fd");
	assert_non_null(d);
	for (struct dirent *de; (de = readdir(d));)
		n += de->d_name[0] != '.';
	closedir(d);
	return n - 1;
}

/*
 * 64 users as threads of one process on 32 shared files: one set of 32
 * descriptors for all (sysbench's threads share theirs), not 64 x 32;
 * released with the last user.  Private files stay one set per user.
 */
static void test_fileio_shared_fds(void **state)
{
	(void)state;
	struct env e;
	env_init(&e, "fileio", JOB_SYNC_NONE);
	env_set(&e, "shared", "true");
	env_set(&e, "files", "32");
	env_set(&e, "file_size", "8k");
	env_set(&e, "block", "4k");
	env_set(&e, "ops", "8");
	unsigned before = open_fds();
	env_start(&e);                         /* prepare, and user 0's setup */
	void *st[64] = { e.st };
	for (unsigned u = 1; u < 64; u++) {
		e.c.user = u;
		if (e.k->setup(&e.c, e.k, e.params, &st[u]))
			fail_msg("setup of user %u: %s", u, e.c.err);
	}
	unsigned peak = open_fds();
	print_message("64 users x 32 shared files: %u descriptors open (before: %u)\n",
		      peak - before, 64 * 32);
	assert_int_equal(peak - before, 32);
	assert_int_equal(job_shared_count(), 32);
	for (unsigned u = 0; u < 64; u++) {   /* every user runs on the shared set */
		e.st = st[u];
		env_run(&e);
	}
	for (unsigned u = 0; u < 63; u++)
		e.k->teardown(&e.c, e.k, e.params, st[u]);
	assert_int_equal(open_fds() - before, 32);   /* the last user still holds them */
	e.k->teardown(&e.c, e.k, e.params, st[63]);
	assert_int_equal(open_fds(), before);
	assert_int_equal(job_shared_count(), 0);
	e.st = NULL;
	env_free(&e);
	/* private files: each user its own descriptors, as before */
	env_init(&e, "fileio", JOB_SYNC_NONE);
	env_set(&e, "files", "4");
	env_set(&e, "file_size", "8k");
	env_set(&e, "block", "4k");
	before = open_fds();
	env_start(&e);
	void *s2 = NULL;
	e.c.user = 1;
	assert_int_equal(e.k->setup(&e.c, e.k, e.params, &s2), 0);
	assert_int_equal(open_fds() - before, 8);
	e.k->teardown(&e.c, e.k, e.params, s2);
	env_teardown(&e);
	assert_int_equal(open_fds(), before);
	env_free(&e);
}

static void test_fileio_private_files(void **state)
{
	(void)state;
	struct env e;
	env_init(&e, "fileio", JOB_SYNC_NONE);
	env_set(&e, "files", "3");
	env_set(&e, "file_size", "64k");
	env_start(&e);
	assert_int_equal(count_entries(e.udir), 3);
	assert_int_equal(count_entries(e.sdir), 0);
	char path[PATH_MAX];
	struct stat st;
	snprintf(path, sizeof(path), "%s/fileio.0.2.u0", e.udir);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 65536);
	assert_true((uint64_t)st.st_blocks * 512 >= 65536); /* written, not sparse */
	env_run(&e);
	env_teardown(&e);
	assert_int_equal(count_entries(e.udir), 0);
	env_free(&e);
}

/* seqwr continues across runs, round-robin over files, truncating as it wraps. */
static void test_fileio_sequential_state(void **state)
{
	(void)state;
	struct env e;
	env_init(&e, "fileio", JOB_SYNC_NONE);
	env_set(&e, "mode", "seqwr");
	env_set(&e, "files", "2");
	env_set(&e, "file_size", "64k");
	env_set(&e, "block", "4k");
	env_set(&e, "ops", "20");
	env_start(&e);
	env_run(&e); /* file 0: blocks 0-15, file 1: blocks 0-3 */
	assert_int_equal(file_size_at(e.udir, "fileio.0.0.u0"), 65536);
	assert_int_equal(file_size_at(e.udir, "fileio.0.1.u0"), 16384);
	env_run(&e); /* file 1: blocks 4-15, file 0 truncated: blocks 0-7 */
	assert_int_equal(file_size_at(e.udir, "fileio.0.1.u0"), 65536);
	assert_int_equal(file_size_at(e.udir, "fileio.0.0.u0"), 32768);
	env_teardown(&e);
	env_free(&e);

	/* seqrewr overwrites in place: sizes never change */
	env_init(&e, "fileio", JOB_SYNC_NONE);
	env_set(&e, "mode", "seqrewr");
	env_set(&e, "files", "2");
	env_set(&e, "file_size", "64k");
	env_set(&e, "block", "4k");
	env_set(&e, "ops", "20");
	env_start(&e);
	env_run(&e);
	env_run(&e);
	assert_int_equal(file_size_at(e.udir, "fileio.0.0.u0"), 65536);
	assert_int_equal(file_size_at(e.udir, "fileio.0.1.u0"), 65536);
	assert_int_equal(e.c.io.wops, 40);
	env_teardown(&e);
	env_free(&e);
}

/* Run fileio with the given mode/ops/fsync_every and sync policy; returns its counters. */
struct fsync_got {
	struct calls calls;
	struct job_io io;
};

static struct fsync_got fsync_case(const char *mode, const char *files, const char *ops,
				   const char *every, enum job_sync sync, int runs,
				   const char *extra, const char *extra_val)
{
	struct env e;
	env_init(&e, "fileio", sync);
	env_set(&e, "mode", mode);
	env_set(&e, "files", files);
	env_set(&e, "file_size", "1m");
	env_set(&e, "block", "4k");
	env_set(&e, "ops", ops);
	env_set(&e, "fsync_every", every);
	if (extra)
		env_set(&e, extra, extra_val);
	env_start(&e);
	for (int i = 0; i < runs; i++) {
		e.c.last_run = i == runs - 1;
		env_run(&e);
	}
	struct fsync_got got = { calls, e.c.io };
	env_teardown(&e);
	env_free(&e);
	return got;
}

/*
 * sysbench's fsync rounds: after every fsync_every requests (if anything
 * was written) the next `files` events fsync every file in turn; each fsync
 * is an event of `ops` and is counted.
 */
static void test_fileio_fsync(void **state)
{
	(void)state;
	struct fsync_got r;
	/* 4 files, every 10: cycles of 10 writes + 4 fsyncs; 200 events = 14 cycles + 4 */
	r = fsync_case("rndwr", "4", "200", "10", JOB_SYNC_NONE, 1, NULL, NULL);
	assert_int_equal(r.io.wops, 144);
	assert_int_equal(r.io.fsyncs, 56);
	assert_int_equal(r.calls.fsync, 56);
	/* 1 file: 9 cycles of 11 events + 1 write */
	r = fsync_case("seqwr", "1", "100", "10", JOB_SYNC_FILE, 1, NULL, NULL);
	assert_int_equal(r.io.wops, 91);
	assert_int_equal(r.io.fsyncs, 9);
	/* the sequence carries over runs: 10 w, f, 4 w | 6 w, f, 8 w */
	r = fsync_case("seqwr", "1", "15", "10", JOB_SYNC_FILE, 2, NULL, NULL);
	assert_int_equal(r.calls.fsync, 2);
	/* nothing written: no fsync round */
	r = fsync_case("rndrd", "4", "200", "10", JOB_SYNC_FILE, 1, NULL, NULL);
	assert_int_equal(r.io.fsyncs + r.calls.fsync, 0);
	assert_int_equal(r.io.rops, 200);
	/* rndrw: 1.5 reads per write, fsync rounds as for writes */
	r = fsync_case("rndrw", "2", "204", "100", JOB_SYNC_NONE, 1, NULL, NULL);
	assert_int_equal(r.io.fsyncs, 4);
	assert_int_equal(r.io.rops + r.io.wops, 200);
	assert_int_equal(r.io.rops, 120);
	/* fdatasync mode */
	r = fsync_case("rndwr", "4", "28", "10", JOB_SYNC_NONE, 1, "fsync_mode", "fdatasync");
	assert_int_equal(r.calls.fdatasync, 8);
	assert_int_equal(r.calls.fsync, 0);
	assert_int_equal(r.io.fsyncs, 8);
	/* fsync_all: every write fsynced; the scheduled fsync events do nothing */
	r = fsync_case("rndwr", "4", "50", "10", JOB_SYNC_NONE, 1, "fsync_all", "true");
	assert_int_equal(r.io.wops, 38);
	assert_int_equal(r.io.fsyncs, 38);
	assert_int_equal(r.calls.fsync, 38);
	/* fsync_end: every file once, after the user's last run only */
	r = fsync_case("rndwr", "4", "20", "0", JOB_SYNC_NONE, 3, "fsync_end", "true");
	assert_int_equal(r.io.fsyncs, 4);
	assert_int_equal(r.calls.fsync, 4);
	r = fsync_case("rndrd", "4", "20", "0", JOB_SYNC_NONE, 1, "fsync_end", "true");
	assert_int_equal(r.io.fsyncs, 0);
	/* without fsyncs of its own: the workload's sync: policy at the end */
	r = fsync_case("rndwr", "4", "200", "0", JOB_SYNC_FILE, 1, NULL, NULL);
	assert_int_equal(r.calls.fsync, 4);
	assert_int_equal(r.calls.sync, 0);
	r = fsync_case("rndwr", "4", "200", "0", JOB_SYNC_GLOBAL, 1, NULL, NULL);
	assert_int_equal(r.calls.fsync, 0);
	assert_int_equal(r.calls.sync, 1);
	r = fsync_case("rndwr", "4", "200", "0", JOB_SYNC_EXEC, 1, NULL, NULL);
	assert_int_equal(r.calls.fsync + r.calls.sync, 0);
	assert_int_equal(r.io.syncs, 1);
	r = fsync_case("rndwr", "4", "200", "0", JOB_SYNC_NONE, 1, NULL, NULL);
	assert_int_equal(r.calls.fsync + r.calls.sync + r.io.syncs, 0);
}

/*
 * shared: true: one request sequence for all users of the directory, in
 * shared memory.  Two users, 60 events each, fsync every 100 over 4 files:
 * user 0 issues requests 1-60, user 1 requests 61-100, the round of 4
 * fsyncs, then 16 requests; reads and writes hold 1.5 over both.
 */
static void test_fileio_shared_sequence(void **state)
{
	(void)state;
	struct env a, b;
	env_init(&a, "fileio", JOB_SYNC_NONE);
	env_init(&b, "fileio", JOB_SYNC_NONE);
	struct env *u[2] = { &a, &b };
	for (int i = 0; i < 2; i++) {
		env_set(u[i], "shared", "true");
		env_set(u[i], "files", "4");
		env_set(u[i], "file_size", "256k");
		env_set(u[i], "block", "4k");
		env_set(u[i], "ops", "60");
		env_set(u[i], "fsync_every", "100");
	}
	b.c.shared_dir = a.sdir;
	b.c.shared_fd = a.sfd;
	b.c.user = 1;
	env_start(&a); /* prepare: the files and the sequence */
	if (b.k->setup(&b.c, b.k, b.params, &b.st))
		fail_msg("setup: %s", b.c.err);
	memset(&b.c.io, 0, sizeof(b.c.io));
	env_run(&a);
	env_run(&b);
	assert_int_equal(a.c.io.rops + a.c.io.wops, 60);
	assert_int_equal(a.c.io.fsyncs, 0);
	assert_int_equal(b.c.io.rops + b.c.io.wops, 56);
	assert_int_equal(b.c.io.fsyncs, 4);
	uint64_t r = a.c.io.rops + b.c.io.rops, w = a.c.io.wops + b.c.io.wops;
	assert_int_equal(r + w, 116);
	assert_true(r * 2 >= w * 3 - 2 && r * 2 <= w * 3 + 2); /* r / w = 1.5 */
	env_teardown(&b);
	env_teardown(&a);
	env_free(&b);
	env_free(&a);
}

/* Files filled in small requests hold the same bytes as in 1 MiB requests. */
static void test_fill_file_req(void **state)
{
	(void)state;
	char dir[] = "/tmp/jobmix-fill-XXXXXX", a[PATH_MAX], b[PATH_MAX];
	assert_non_null(mkdtemp(dir));
	snprintf(a, sizeof(a), "%s/a", dir);
	snprintf(b, sizeof(b), "%s/b", dir);
	const char *op = "";
	const uint64_t size = (3u << 20) + 12288;
	int dfd = dir_fd(dir);
	assert_int_equal(job_fill_file(dfd, "a", size, 9, &op), 0);
	assert_int_equal(job_fill_file_req(dfd, "b", size, 9, 16384, &op), 0);
	close(dfd);
	char cmd[3 * PATH_MAX];
	snprintf(cmd, sizeof(cmd), "cmp -s '%s' '%s'", a, b);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(file_size_at(dir, "b"), (long long)size);
	snprintf(cmd, sizeof(cmd), "rm -rf -- '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* ---- seqread ----------------------------------------------------------- */

static void seqread_case(const char *size, const char *block, bool direct, const char *ra_kb,
			 bool fadvise, bool shared)
{
	struct env e;
	env_init(&e, "seqread", JOB_SYNC_FILE);
	if (direct && !direct_supported(e.udir)) {
		print_message("O_DIRECT not supported in /tmp: skipped\n");
		env_free(&e);
		return;
	}
	env_set(&e, "file_size", size);
	env_set(&e, "block", block);
	env_set(&e, "direct", direct ? "true" : "false");
	env_set(&e, "readahead_kb", ra_kb);
	env_set(&e, "fadvise", fadvise ? "true" : "false");
	env_set(&e, "shared", shared ? "true" : "false");
	env_start(&e);
	assert_int_equal(count_entries(e.udir), shared ? 0 : 1);
	assert_int_equal(count_entries(e.sdir), shared ? 1 : 0);
	const struct job_param *ps = job_param_find(e.k, "file_size");
	const struct job_param *pb = job_param_find(e.k, "block");
	uint64_t fsize, bsize;
	memcpy(&fsize, (char *)e.params + ps->offset, sizeof(fsize));
	memcpy(&bsize, (char *)e.params + pb->offset, sizeof(bsize));
	uint64_t reqs = (fsize + bsize - 1) / bsize;

	env_run(&e);
	assert_int_equal(e.c.io.rbytes, fsize);
	assert_int_equal(e.c.io.rops, reqs);
	assert_true(e.c.io.rtime_ns > 0);
	assert_int_equal(e.c.io.wbytes + e.c.io.wops, 0);
	/* the file's extents, where FIEMAP works (/tmp here: ext4) */
	if (fiemap_works(e.udir)) {
		assert_int_equal(e.c.io.extent_files, 1);
		assert_true(e.c.io.extents >= 1);
	}
	assert_int_equal(calls.dontneed, fadvise && !direct ? 1 : 0);
	if (atoi(ra_kb)) {
		assert_false(calls.ra_gap);
		assert_int_equal(calls.ra_bytes, fsize); /* the window covered the file once */
		assert_true(calls.readahead >= 1);
	} else {
		assert_int_equal(calls.readahead, 0);
	}
	env_run(&e);
	assert_int_equal(e.c.io.rbytes, 2 * fsize);
	assert_int_equal(e.c.io.rops, 2 * reqs);
	env_teardown(&e);
	assert_int_equal(count_entries(e.udir), 0);
	env_free(&e);
}

static void test_seqread(void **state)
{
	(void)state;
	seqread_case("1m", "1m", false, "0", true, false);
	seqread_case("4100k", "1m", false, "0", true, false);   /* short last request */
	seqread_case("4100k", "256k", false, "512", true, false); /* own readahead window */
	seqread_case("3m", "128k", false, "64", false, false); /* block > window */
	seqread_case("4100k", "1m", true, "0", true, false);
	seqread_case("2m", "64k", false, "0", true, true);
	seqread_case("2m", "1m", true, "0", true, true);

	struct env e;
	char err[256];
	env_init(&e, "seqread", JOB_SYNC_NONE);
	env_set(&e, "direct", "true");
	env_set(&e, "readahead_kb", "1024");
	assert_int_equal(env_check(&e, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "readahead_kb"));
	env_set(&e, "readahead_kb", "0");
	env_set(&e, "block", "1000");
	assert_int_equal(env_check(&e, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "O_DIRECT"));
	assert_int_equal(e.k->setup(&e.c, e.k, e.params, &e.st), -1);
	assert_non_null(strstr(e.c.err, "O_DIRECT alignment"));
	assert_int_equal(count_entries(e.udir), 0);
	env_free(&e);
}

/* ---- streams ----------------------------------------------------------- */

static void streams_case(const char *n, const char *ws, const char *fs, bool fsync_,
			 bool direct, bool fadvise, unsigned nfiles, uint64_t size, uint64_t wsize)
{
	struct env e;
	env_init(&e, "streams", JOB_SYNC_FILE);
	if (direct && !direct_supported(e.udir)) {
		print_message("O_DIRECT not supported in /tmp: skipped\n");
		env_free(&e);
		return;
	}
	env_set(&e, "n", n);
	env_set(&e, "write_size", ws);
	env_set(&e, "file_size", fs);
	env_set(&e, "fsync", fsync_ ? "true" : "false");
	env_set(&e, "direct_read", direct ? "true" : "false");
	env_set(&e, "fadvise", fadvise ? "true" : "false");
	env_start(&e);
	env_run(&e);
	const struct job_io *io = &e.c.io;
	assert_int_equal(io->wbytes, nfiles * size);
	assert_int_equal(io->wops, nfiles * ((size + wsize - 1) / wsize));
	assert_int_equal(io->rbytes, nfiles * size);
	assert_int_equal(io->rops, nfiles * ((size + (1u << 20) - 1) >> 20));
	assert_true(io->wtime_ns > 0);
	assert_true(io->rtime_ns > 0);
	assert_int_equal(calls.fsync, fsync_ ? nfiles : 0);
	bool drop = fadvise && !direct;
	assert_int_equal(calls.dontneed, drop ? nfiles : 0);
	assert_int_equal(calls.fdatasync, drop && !fsync_ ? nfiles : 0);
	assert_int_equal(count_entries(e.udir), 0);
	env_teardown(&e);
	assert_int_equal(count_entries(e.udir), 0);
	env_free(&e);
}

static void test_streams(void **state)
{
	(void)state;
	streams_case("3", "4k", "65636", false, false, true, 3, 65636, 4096);
	streams_case("1", "10k", "3m", true, false, true, 1, 3u << 20, 10240);
	streams_case("4", "50k", "2m", false, false, false, 4, 2u << 20, 51200);
	streams_case("2", "4k", "2097664", false, true, true, 2, 2097664, 4096);
}

/* One streams run of n streams: write() calls recorded; returns the io counts. */
static struct job_io streams_recorded(const char *n, const char *ws, const char *fs,
				      const char *rates, uint64_t seed)
{
	struct env e;
	env_init(&e, "streams", JOB_SYNC_NONE);
	jm_rng_seed(&e.rng, seed, 0);
	env_set(&e, "n", n);
	env_set(&e, "write_size", ws);
	env_set(&e, "file_size", fs);
	if (rates)
		env_set(&e, "rates", rates);
	env_start(&e);
	memset(&rec, 0, sizeof(rec));
	rec.on = true;
	env_run(&e);
	rec.on = false;
	struct job_io io = e.c.io;
	env_teardown(&e);
	env_free(&e);
	return io;
}

/* write_size as a range: each write drawn from it, the same for a seed, not for another. */
static void test_streams_sizes(void **state)
{
	(void)state;
	struct job_io io = streams_recorded("2", "4k-64k", "1m", NULL, 5);
	unsigned n = rec.n;
	size_t lens[REC_MAX];
	bool differ = false;
	assert_int_equal(n, io.wops);
	assert_int_equal(io.wbytes, 2u << 20);
	for (unsigned i = 0; i < n; i++) {
		lens[i] = rec.len[i];
		bool last = i >= n - 2;   /* each stream's last write may be cut to fit */
		if (!last) {
			assert_in_range(rec.len[i], 4096, 65536);
			assert_int_equal(rec.len[i] % 512, 0);
		}
		differ = differ || (i && !last && rec.len[i] != rec.len[0]);
	}
	assert_true(differ);
	assert_true(n > 2 * (1u << 20) / 65536 && n < 2 * (1u << 20) / 4096);
	streams_recorded("2", "4k-64k", "1m", NULL, 5);
	assert_int_equal(rec.n, n);
	assert_memory_equal(rec.len, lens, n * sizeof(lens[0]));   /* the same seed */
	streams_recorded("2", "4k-64k", "1m", NULL, 6);
	assert_true(rec.n != n || memcmp(rec.len, lens, n * sizeof(lens[0])));
	/* fixed write_size: the streams in turn, as before ranges existed */
	streams_recorded("3", "4k", "64k", NULL, 5);
	assert_int_equal(rec.n, 3 * 16);
	for (unsigned i = 3; i < rec.n; i++) {
		assert_int_equal(rec.fd[i], rec.fd[i - 3]);
		assert_int_equal(rec.len[i], 4096);
	}
	assert_true(rec.fd[0] != rec.fd[1] && rec.fd[1] != rec.fd[2]);
}

/* rates 1:20: the second stream appends 20x as often, spread out, and writes 20x the bytes. */
static void test_streams_rates(void **state)
{
	(void)state;
	struct job_io io = streams_recorded("2", "4k", "800k", "1:20", 1);
	assert_int_equal(io.wbytes, 800 * 1024 + 40 * 1024);
	assert_int_equal(io.rbytes, io.wbytes);
	int slow = -1;   /* the first descriptor is the heavy stream's, the other the slow one's */
	for (unsigned i = 1; i < rec.n && slow < 0; i++)
		if (rec.fd[i] != rec.fd[0])
			slow = rec.fd[i];
	unsigned nslow = 0, run = 0, longest = 0;
	for (unsigned i = 0; i < rec.n; i++) {
		if (rec.fd[i] == slow) {
			nslow++;
			run = 0;
		} else if (++run > longest) {
			longest = run;
		}
	}
	assert_int_equal(nslow, 10);
	assert_int_equal(rec.n - nslow, 200);
	assert_in_range(longest, 19, 21);   /* spread: never a burst of the heavy stream */
	/* bad values are named, and a count that is not n is refused */
	struct env e;
	char err[256];
	env_init(&e, "streams", JOB_SYNC_NONE);
	const struct job_param *ws = job_param_find(e.k, "write_size");
	const struct job_param *rt = job_param_find(e.k, "rates");
	assert_int_equal(job_param_parse(ws, e.params, "4k-64x", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "'64x'"));
	assert_int_equal(job_param_parse(ws, e.params, "64k-4k", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "'64k-4k'"));
	assert_int_equal(job_param_parse(ws, e.params, "4k-8m", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "'8m'"));
	assert_int_equal(job_param_parse(rt, e.params, "1:0", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "weight '0'"));
	assert_int_equal(job_param_parse(rt, e.params, "1:x2", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "weight 'x2'"));
	env_set(&e, "n", "3");
	env_set(&e, "rates", "1:20");
	assert_int_equal(env_check(&e, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "rates '1:20' gives 2 weights for n: 3"));
	env_set(&e, "rates", "1:20:3");
	assert_int_equal(env_check(&e, err, sizeof(err)), 0);
	char text[64];
	job_param_format(rt, e.params, text, sizeof(text));
	assert_string_equal(text, "1:20:3");
	env_set(&e, "write_size", "4k-64k");
	job_param_format(ws, e.params, text, sizeof(text));
	assert_string_equal(text, "4k-64k");
	env_free(&e);
}

/*
 * FIEMAP on a real file of the work dir's file system: two written pieces
 * with a hole between are two extents; streams counts one figure per file.
 */
static void test_extents(void **state)
{
	(void)state;
	char dir[] = "/tmp/jobmix-ext-XXXXXX", path[PATH_MAX];
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/f", dir);
	int fd = open(path, O_CREAT | O_RDWR, 0600);
	assert_true(fd >= 0);
	char buf[4096];
	memset(buf, 7, sizeof(buf));
	assert_int_equal(pwrite(fd, buf, sizeof(buf), 0), 4096);
	assert_int_equal(pwrite(fd, buf, sizeof(buf), 1 << 20), 4096);
	uint64_t n = 0;
	int rc = job_extents(fd, &n), err = errno;
	close(fd);
	unlink(path);
	rmdir(dir);
	if (rc && (err == ENOTTY || err == EOPNOTSUPP)) {
		print_message("SKIP: FIEMAP not supported in /tmp\n");
		return;
	}
	assert_int_equal(rc, 0);
	assert_int_equal(n, 2);
	struct job_io io = streams_recorded("4", "4k", "256k", NULL, 1);
	assert_int_equal(io.extent_files, 4);
	assert_true(io.extents >= 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fileio_modes_exact),
		cmocka_unit_test(test_fileio_rw_ratio),
		cmocka_unit_test(test_fileio_direct),
		cmocka_unit_test(test_fileio_check),
		cmocka_unit_test(test_fileio_shared),
		cmocka_unit_test(test_fileio_sparse),
		cmocka_unit_test(test_fileio_shared_fds),
		cmocka_unit_test(test_fileio_private_files),
		cmocka_unit_test(test_fileio_sequential_state),
		cmocka_unit_test(test_fileio_fsync),
		cmocka_unit_test(test_fileio_shared_sequence),
		cmocka_unit_test(test_fill_file_req),
		cmocka_unit_test(test_seqread),
		cmocka_unit_test(test_streams),
		cmocka_unit_test(test_streams_sizes),
		cmocka_unit_test(test_streams_rates),
		cmocka_unit_test(test_extents),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
