// SPDX-License-Identifier: GPL-2.0-only
/*
 * re-aim's work, counted at the calls: the library and system calls that
 * num_rtns_1, trig_rtns, series_1, new_raph, mem_rtns_1, fork_test,
 * exec_test, disk_src and the disk kinds make in one job are counted by wrappers defined
 * here, which take the place of libc's and libm's for the whole test
 * binary (they count only while `counting` is set) and pass each call on.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "jm_test.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jobmix/job.h"
#include "jobmix/rng.h"
#include "jobmix/job_compute.h"

/* ---- counted calls ------------------------------------------------------- */

static bool counting;

static struct {
	unsigned long exp, log10, log, modf, frexp, ldexp, fmod, pow, srandom_r, random_r;
	unsigned long sin, cos, tan, asin, acos, atan, tanh, sinh, cosh, atan2, sincos;
	unsigned long malloc, calloc, free;
	unsigned long fork, waitpid, echild;
	unsigned long fstatat, openat, creates, unlinkat;
	unsigned long open, lseek, read, write, pread, pwrite;
	unsigned long tzset;
} n;

/* The next definition of f (libc's or libm's), looked up once. */
#define NEXT(f) \
	static __typeof__(&f) next; \
	if (!next) \
		next = (__typeof__(&f))dlsym(RTLD_NEXT, #f)

#define WRAP_D1(f) \
	double f(double x) \
	{ \
		NEXT(f); \
		n.f += counting; \
		return next(x); \
	}

WRAP_D1(exp)
WRAP_D1(log10)
WRAP_D1(log)
WRAP_D1(sin)
WRAP_D1(cos)
WRAP_D1(tan)
WRAP_D1(asin)
WRAP_D1(acos)
WRAP_D1(atan)
WRAP_D1(tanh)
WRAP_D1(sinh)
WRAP_D1(cosh)

double fmod(double x, double y)
{
	NEXT(fmod);
	n.fmod += counting;
	return next(x, y);
}

double pow(double x, double y)
{
	NEXT(pow);
	n.pow += counting;
	return next(x, y);
}

double atan2(double y, double x)
{
	NEXT(atan2);
	n.atan2 += counting;
	return next(y, x);
}

double modf(double x, double *ip)
{
	NEXT(modf);
	n.modf += counting;
	return next(x, ip);
}

double frexp(double x, int *e)
{
	NEXT(frexp);
	n.frexp += counting;
	return next(x, e);
}

double ldexp(double x, int e)
{
	NEXT(ldexp);
	n.ldexp += counting;
	return next(x, e);
}

void sincos(double x, double *s, double *c)
{
	NEXT(sincos);
	n.sincos += counting;
	next(x, s, c);
}

int srandom_r(unsigned seed, struct random_data *d)
{
	NEXT(srandom_r);
	n.srandom_r += counting;
	return next(seed, d);
}

int random_r(struct random_data *d, int32_t *r)
{
	NEXT(random_r);
	n.random_r += counting;
	return next(d, r);
}

/*
 * The allocator is glibc's own, reached by its exported internal names.
 * Not under AddressSanitizer (make SANITIZE=1), which brings its own.
 */
#ifndef __SANITIZE_ADDRESS__
#define COUNT_MALLOC 1
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void __libc_free(void *);

void *malloc(size_t len)
{
	n.malloc += counting;
	return __libc_malloc(len);
}

void *calloc(size_t m, size_t len)
{
	n.calloc += counting;
	return __libc_calloc(m, len);
}

void free(void *p)
{
	n.free += counting;
	__libc_free(p);
}
#endif

pid_t fork(void)
{
	NEXT(fork);
	n.fork += counting;
	return next();
}

pid_t waitpid(pid_t pid, int *st, int opt)
{
	NEXT(waitpid);
	pid_t r = next(pid, st, opt);
	if (counting) {
		n.waitpid++;
		n.echild += r < 0 && errno == ECHILD;
	}
	return r;
}

int fstatat(int dfd, const char *path, struct stat *st, int flags)
{
	NEXT(fstatat);
	n.fstatat += counting;
	return next(dfd, path, st, flags);
}

/* open's and openat's mode argument, there with O_CREAT. */
#define OPEN_MODE(flags) \
	mode_t mode = 0; \
	if ((flags) & O_CREAT) { \
		va_list ap; \
		va_start(ap, flags); \
		mode = va_arg(ap, mode_t); \
		va_end(ap); \
	}

static void count_open(unsigned long *calls, int flags)
{
	if (counting) {
		(*calls)++;
		n.creates += (flags & O_CREAT) != 0;
	}
}

int openat(int dfd, const char *path, int flags, ...)
{
	NEXT(openat);
	OPEN_MODE(flags);
	count_open(&n.openat, flags);
	return next(dfd, path, flags, mode);
}

int open(const char *path, int flags, ...)
{
	NEXT(open);
	OPEN_MODE(flags);
	count_open(&n.open, flags);
	return next(path, flags, mode);
}

void tzset(void)
{
	NEXT(tzset);
	n.tzset += counting;
	next();
}

off_t lseek(int fd, off_t off, int whence)
{
	NEXT(lseek);
	n.lseek += counting;
	return next(fd, off, whence);
}

ssize_t read(int fd, void *buf, size_t len)
{
	NEXT(read);
	n.read += counting;
	return next(fd, buf, len);
}

ssize_t write(int fd, const void *buf, size_t len)
{
	NEXT(write);
	n.write += counting;
	return next(fd, buf, len);
}

ssize_t pread(int fd, void *buf, size_t len, off_t off)
{
	NEXT(pread);
	n.pread += counting;
	return next(fd, buf, len, off);
}

ssize_t pwrite(int fd, const void *buf, size_t len, off_t off)
{
	NEXT(pwrite);
	n.pwrite += counting;
	return next(fd, buf, len, off);
}

int unlinkat(int dfd, const char *path, int flags)
{
	NEXT(unlinkat);
	n.unlinkat += counting;
	return next(dfd, path, flags);
}

/* ---- one job of a kind, counted ------------------------------------------ */

struct world {
	char root[64], udir[PATH_MAX], sdir[PATH_MAX], libexec[PATH_MAX];
	int ufd, sfd;
	char *iobuf;
	struct jm_rng rng;
	struct job_ctx c;
};

static int world_setup(void **state)
{
	struct world *w = calloc(1, sizeof(*w));
	char cwd[PATH_MAX];
	if (!w || !getcwd(cwd, sizeof(cwd)))
		return -1;
	snprintf(w->root, sizeof(w->root), "/tmp/jobmix-work-XXXXXX");
	if (!mkdtemp(w->root))
		return -1;
	snprintf(w->udir, sizeof(w->udir), "%s/u0", w->root);
	snprintf(w->sdir, sizeof(w->sdir), "%s/shared", w->root);
	snprintf(w->libexec, sizeof(w->libexec), "%s/libexec", cwd);
	if (mkdir(w->udir, 0700) || mkdir(w->sdir, 0700))
		return -1;
	w->iobuf = aligned_alloc(4096, JOB_IOBUF_SIZE);
	if (!w->iobuf)
		return -1;
	job_fill_pattern(w->iobuf, JOB_IOBUF_SIZE, 3);
	jm_rng_seed(&w->rng, 3, 0);
	w->ufd = dir_fd(w->udir);
	w->sfd = dir_fd(w->sdir);
	if (w->ufd < 0 || w->sfd < 0)
		return -1;
	w->c = (struct job_ctx){ .dir = w->udir, .dir_fd = w->ufd, .shared_dir = w->sdir,
				 .shared_fd = w->sfd,
				 .libexec_dir = w->libexec, .nusers = 1, .filesize = 64 << 10,
				 .sync = JOB_SYNC_NONE, .rng = &w->rng, .iobuf = w->iobuf };
	*state = w;
	return 0;
}

static int world_teardown(void **state)
{
	struct world *w = *state;
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf -- '%s'", w->root);
	int rc = system(cmd);
	close(w->ufd);
	close(w->sfd);
	free(w->iobuf);
	free(w);
	return rc ? -1 : 0;
}

/* Prepare (if the kind has it), set up, run once counted, tear down. */
static void run_counted(struct world *w, const char *name)
{
	const struct job_kind *k = job_find(name);
	assert_non_null(k);
	w->c.job_name = k->name;
	if (k->prepare) {
		struct job_prep p = { .shared_dir = w->sdir, .shared_fd = w->sfd, .nusers = 1,
				      .dir_users = 1,
				      .filesize = w->c.filesize, .seed = 3, .job_name = k->name };
		if (k->prepare(&p, k, NULL))
			fail_msg("%s: prepare: %s", name, p.err);
	}
	void *st = NULL;
	if (k->setup && k->setup(&w->c, k, NULL, &st))
		fail_msg("%s: setup: %s", name, w->c.err);
	memset(&n, 0, sizeof(n));
	counting = true;
	int rc = k->run_once(&w->c, k, NULL, st);
	counting = false;
	if (k->teardown)
		k->teardown(&w->c, k, NULL, st);
	if (rc)
		fail_msg("%s: %s", name, w->c.err);
}

/* num_rtns_1: per round one each of re-aim's eight libm calls, srand and rand. */
static void test_num_rtns_calls(void **state)
{
	run_counted(*state, "num_rtns_1");
	unsigned long want = 100;
	assert_int_equal(n.exp, want);
	assert_int_equal(n.log10, want);
	assert_int_equal(n.log, want);
	assert_int_equal(n.modf, want);
	assert_int_equal(n.frexp, want);
	assert_int_equal(n.ldexp, want);
	assert_int_equal(n.fmod, want);
	assert_int_equal(n.pow, want);
	assert_int_equal(n.srandom_r, want);
	assert_int_equal(n.random_r, want);
	assert_int_equal(n.sin + n.atan2, 0);
}

/* trig_rtns: 10,000 rounds of ten calls, each function once. */
static void test_trig_rtns_calls(void **state)
{
	run_counted(*state, "trig_rtns");
	unsigned long want = 10000;
	assert_int_equal(n.sin, want);
	assert_int_equal(n.asin, want);
	assert_int_equal(n.cos, want);
	assert_int_equal(n.acos, want);
	assert_int_equal(n.tan, want);
	assert_int_equal(n.atan, want);
	assert_int_equal(n.tanh, want);
	assert_int_equal(n.sinh, want);
	assert_int_equal(n.cosh, want);
	assert_int_equal(n.atan2, want);
	assert_int_equal(n.exp + n.pow, 0);
}

/*
 * series_1: one sin() a series (re-aim's check); new_raph: one sin and
 * one cos of the same x a Newton step (gcc makes them one sincos, as in
 * re-aim's binary; two pairs without that), nothing for its check.
 */
static void test_series_newton_calls(void **state)
{
	run_counted(*state, "series_1");
	assert_int_equal(n.sin, 100);
	int steps = 0;
	for (int i = 0; i < 200; i++) {
		int it;
		job_newton_solve(0.05 * i, &it);
		steps += it;
	}
	run_counted(*state, "new_raph");
	unsigned long evals = n.sin + n.cos + 2 * n.sincos;
	if (evals != 2ul * (unsigned long)steps && evals != 4ul * (unsigned long)steps)
		fail_msg("new_raph: %lu sin/cos evaluations for %d Newton steps", evals, steps);
}

/* mem_rtns_1: per round 200 malloc (string, block), 100 calloc, 300 free. */
static void test_mem_rtns_1_calls(void **state)
{
#ifndef COUNT_MALLOC
	skip();
#endif
	run_counted(*state, "mem_rtns_1");
	assert_int_equal(n.malloc, 100 * 200);
	assert_int_equal(n.calloc, 100 * 100);
	assert_int_equal(n.free, 100 * 300);
}

/*
 * fork_test: 100 forks, each waited for and then once more (ECHILD), as
 * re-aim's wait loop; exec_test: 5 forks (each execs the script).
 */
static void test_fork_exec_calls(void **state)
{
	run_counted(*state, "fork_test");
	assert_int_equal(n.fork, 100);
	assert_int_equal(n.waitpid, 200);
	assert_int_equal(n.echild, 100);
	run_counted(*state, "exec_test");
	assert_int_equal(n.fork, 5);
	assert_int_equal(n.waitpid, 5);
	run_counted(*state, "jmp_test"); /* it counts its own 1000 jumps */
}

/*
 * disk_src: re-aim's list gives 57 files to stat and 43 names to create;
 * each job opens the tree (beneath the held shared directory: an openat
 * where an open of its path was) and the list, stats 57 times, creates,
 * closes and unlinks 43 names, all relative to the tree's descriptor, and
 * leaves the tree as it was.  A second job does the same work.
 */
static void test_disk_src_calls(void **state)
{
	struct world *w = *state;
	char tree[PATH_MAX];
	snprintf(tree, sizeof(tree), "%s/disk_src.0", w->sdir);
	for (int round = 0; round < 2; round++) {
		run_counted(w, "disk_src");
		assert_int_equal(n.fstatat, 57);
		assert_int_equal(n.creates, 43);
		assert_int_equal(n.openat, 43 + 2);   /* the names, the list and the tree */
		assert_int_equal(n.open, 0);
		assert_int_equal(n.unlinkat, 43);
		assert_int_equal(count_entries(tree), 40 + 1 + 2); /* fakeNN, dirlist, bin, usr */
		char bin[PATH_MAX + 8];
		snprintf(bin, sizeof(bin), "%s/bin", tree);
		assert_int_equal(count_entries(bin), 40);
	}
	/* the list is re-aim's shape: 382 lines, 57 "s " and 43 "c " */
	char path[PATH_MAX + 16], line[256];
	snprintf(path, sizeof(path), "%s/dirlist", tree);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	int lines = 0, s = 0, c = 0;
	while (fgets(line, sizeof(line), f)) {
		lines++;
		s += !strncmp(line, "s ", 2);
		c += !strncmp(line, "c ", 2);
	}
	fclose(f);
	assert_int_equal(lines, 382);
	assert_int_equal(s, 57);
	assert_int_equal(c, 43);
}

/*
 * string_rtns checks the time zone before each ctime, as re-aim's ctime()
 * (glibc's localtime) does and ctime_r alone does not: 100 a job.
 */
static void test_string_zone(void **state)
{
	(void)state;
	struct job_str_count c = { 0 };
	memset(&n, 0, sizeof(n));
	counting = true;
	int64_t v = job_string_work(100, 1000000000, &c);
	counting = false;
	assert_true(v >= 0);
	assert_int_equal(c.ctime, 100);
	assert_int_equal(n.tzset, c.ctime);          /* one check a ctime */
}

/*
 * The disk kinds make re-aim's calls (disk1.c): a request is a read(2) or
 * write(2) at the file position, a random one an lseek(2) first; a
 * sequential read starts with a rewind.  D = 64 KiB: 64 blocks of 1 KiB.
 */
struct disk_calls {
	const char *name;
	unsigned long creates, lseeks, reads, writes;
};

static void test_disk_calls(void **state)
{
	static const struct disk_calls want[] = {
		{ "disk_brr", 1, 64, 64, 64 },          /* fill 64, 64 x (lseek, read)        */
		{ "disk_brw", 1, 64, 0, 128 },          /* fill 64, 64 x (lseek, write)       */
		{ "disk_rd", 1, 1, 64, 64 },            /* fill 64, rewind, 64 reads          */
		{ "disk_brd", 0, 1, 64, 0 },            /* the shared file: rewind, 64 reads  */
		{ "disk_bwrt", 1, 0, 0, 64 },           /* 64 writes                          */
		{ "disk_bcp", 1, 1, 64, 64 },           /* rewind the source, 64 x (read, write) */
		{ "sync_disk_rw", 1, 32, 0, 64 },       /* fill 32, 32 x (lseek, write)       */
		{ "sync_disk_update", 1, 32, 32, 96 },  /* fill 64, 32 x (lseek, read, write) */
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct disk_calls *e = &want[i];
		run_counted(*state, e->name);
		if (n.creates != e->creates || n.lseek != e->lseeks || n.read != e->reads ||
		    n.write != e->writes || n.pread || n.pwrite)
			fail_msg("%s: %lu creates, %lu lseeks, %lu reads, %lu writes, %lu preads, "
				 "%lu pwrites; want %lu, %lu, %lu, %lu, 0, 0", e->name, n.creates,
				 n.lseek, n.read, n.write, n.pread, n.pwrite, e->creates,
				 e->lseeks, e->reads, e->writes);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_num_rtns_calls),
		cmocka_unit_test(test_trig_rtns_calls),
		cmocka_unit_test(test_series_newton_calls),
		cmocka_unit_test(test_mem_rtns_1_calls),
		cmocka_unit_test(test_fork_exec_calls),
		cmocka_unit_test(test_disk_src_calls),
		cmocka_unit_test(test_disk_calls),
		cmocka_unit_test(test_string_zone),
	};
	return cmocka_run_group_tests(tests, world_setup, world_teardown);
}
