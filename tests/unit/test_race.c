// SPDX-License-Identifier: GPL-2.0-only
/*
 * The work-directory race: a user who owns a directory above the work
 * directory moves the real one away while jobmix runs and puts a tree of
 * symlinks in its place (disk_wrt.u0 -> a root-owned file).  Jobs, prepare
 * hooks and the area's clean-up work beneath descriptors jobmix holds, so
 * the victim keeps its bytes and its mtime, the jobs write into the real
 * (moved) area, and the symlink tree is left as it was.  The swap is made
 * deterministically from the settle hook (after the users set up, before
 * the release) or between two points; and with a racer process that keeps
 * exchanging the two trees (renameat2 RENAME_EXCHANGE) during a point.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jobmix/load.h"
#include "jobmix/workload.h"

static char base[PATH_MAX];

static int setup(void **state)
{
	(void)state;
	snprintf(base, sizeof(base), "/tmp/jobmix-race-XXXXXX");
	return mkdtemp(base) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	return system(cmd) == 0 ? 0 : -1;
}

#define VICTIM_TEXT "root's own file: must never change\n"

/* The victim: a 0600 file with known bytes and an old mtime. */
static void make_victim(const char *path, struct stat *st)
{
	int fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, VICTIM_TEXT, strlen(VICTIM_TEXT)), (ssize_t)strlen(VICTIM_TEXT));
	struct timespec old[2] = { { 1000000000, 0 }, { 1000000000, 0 } };
	assert_int_equal(futimens(fd, old), 0);
	close(fd);
	assert_int_equal(stat(path, st), 0);
}

/* The victim still has its bytes and its mtime. */
static void assert_victim_untouched(const char *path, const struct stat *was)
{
	struct stat st;
	char buf[256] = "";
	assert_int_equal(stat(path, &st), 0);
	int fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n != (ssize_t)strlen(VICTIM_TEXT) || memcmp(buf, VICTIM_TEXT, (size_t)n) ||
	    st.st_size != was->st_size || st.st_mtim.tv_sec != was->st_mtim.tv_sec ||
	    st.st_mtim.tv_nsec != was->st_mtim.tv_nsec)
		fail_msg("the victim was overwritten: %lld bytes (was %lld), mtime %lld (was %lld)",
			 (long long)st.st_size, (long long)was->st_size,
			 (long long)st.st_mtim.tv_sec, (long long)was->st_mtim.tv_sec);
}

struct race {
	char work[PATH_MAX], moved[PATH_MAX + 8], victim[PATH_MAX + 8];
	char leaf[64];                 /* the area root's name in the work directory */
	const char *const *links;      /* names to plant, relative to the root */
	struct stat victim_st;
	unsigned swaps;
};

/*
 * The attack: move the work directory away and make, at its old path, the
 * area's root with its work and shared directories holding symlinks to
 * the victim under the names the jobs use.
 */
static void swap_in_symlinks(struct race *r)
{
	char p[PATH_MAX * 2];
	assert_int_equal(rename(r->work, r->moved), 0);
	assert_int_equal(mkdir(r->work, 0755), 0);
	snprintf(p, sizeof(p), "%s/%s", r->work, r->leaf);
	assert_int_equal(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/%s/work", r->work, r->leaf);
	assert_int_equal(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/%s/shared", r->work, r->leaf);
	assert_int_equal(mkdir(p, 0755), 0);
	for (size_t i = 0; r->links[i]; i++) {
		snprintf(p, sizeof(p), "%s/%s/%s", r->work, r->leaf, r->links[i]);
		assert_int_equal(symlink(r->victim, p), 0);
	}
	r->swaps++;
}

/* Every planted symlink is still there, still a symlink (nothing of theirs removed). */
static void assert_links_kept(const struct race *r)
{
	char p[PATH_MAX * 2];
	for (size_t i = 0; r->links[i]; i++) {
		struct stat st;
		snprintf(p, sizeof(p), "%s/%s/%s", r->work, r->leaf, r->links[i]);
		if (lstat(p, &st) || !S_ISLNK(st.st_mode))
			fail_msg("'%s' of the other tree was removed or replaced", p);
	}
}

static int swap_on_settle(void *arg, struct load_settle *rec, char *err, size_t errlen)
{
	(void)err, (void)errlen;
	memset(rec, 0, sizeof(*rec));
	swap_in_symlinks(arg);
	return 0;
}

static void race_init(struct race *r, const char *const *links)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->work, sizeof(r->work), "%s/w", base);
	snprintf(r->moved, sizeof(r->moved), "%s.moved", r->work);
	snprintf(r->victim, sizeof(r->victim), "%s/victim", base);
	r->links = links;
	assert_int_equal(mkdir(r->work, 0755), 0);
	make_victim(r->victim, &r->victim_st);
}

static void load_wl(struct workload *wl, const char *yaml, const char *dir)
{
	struct wl_error werr;
	if (wl_load_buffer("race.yaml", yaml, strlen(yaml), wl, &werr))
		fail_msg("%s", werr.msg);
	for (size_t i = 0; i < wl->ndirs; i++)
		free(wl->dirs[i]);
	wl->dirs[0] = strdup(dir);
	wl->ndirs = 1;
}

static void area_up(struct workload *wl, struct load_area *a, struct race *r)
{
	char err[256];
	if (load_area_create(wl, a, err, sizeof(err)))
		fail_msg("%s", err);
	const char *slash = strrchr(a->roots[0], '/');
	assert_non_null(slash);
	snprintf(r->leaf, sizeof(r->leaf), "%s", slash + 1);
}

/* The users of the point wrote into the real area: the point measured jobs. */
static void assert_point_ran(const struct load_point *p)
{
	if (p->failed)
		fail_msg("the point failed: %s", p->reason);
	assert_true(p->jobs > 0);
}

static const char *const wrt_links[] = { "work/disk_wrt.u0", "work/disk_wrt.u1", NULL };

/* The swap between the users' set-up and the release, users as processes or threads. */
static void swap_before_release(const char *as)
{
	struct race r;
	race_init(&r, wrt_links);
	char yaml[256];
	snprintf(yaml, sizeof(yaml), "files: {filesize: 8k}\nsync: none\nusers: {as: %s}\n"
		 "mix:\n  - {job: disk_wrt}\n", as);
	struct workload wl = { 0 };
	load_wl(&wl, yaml, r.work);
	struct load_area a;
	area_up(&wl, &a, &r);
	struct load_cfg c = {
		.wl = &wl, .area = &a, .users = 2, .jobs_per_user = 3, .timeout_s = 60,
		.seed = 1, .libexec_dir = "libexec", .measure = WL_MEASURE_JOBS,
		.settle = swap_on_settle, .settle_arg = &r,
	};
	struct load_point p;
	char err[256];
	volatile sig_atomic_t stop = 0;
	assert_int_equal(load_run_point(&c, &p, &stop, err, sizeof(err)), 0);
	assert_int_equal(r.swaps, 1);
	assert_victim_untouched(r.victim, &r.victim_st);
	assert_point_ran(&p);
	load_point_free(&p);
	assert_int_equal(load_area_remove(&a), 0);
	assert_victim_untouched(r.victim, &r.victim_st);
	assert_links_kept(&r);
	/* the real area went, from the moved work directory */
	char gone[PATH_MAX * 2];
	snprintf(gone, sizeof(gone), "%s/%s", r.moved, r.leaf);
	assert_int_equal(access(gone, F_OK), -1);
	wl_free(&wl);
}

static void test_swap_before_release(void **state)
{
	(void)state;
	swap_before_release("processes");
}

static void test_swap_before_release_threads(void **state)
{
	(void)state;
	swap_before_release("threads");
}

/*
 * The swap between two points: the second point's directories, its
 * prepare hooks (disk_cp's shared source, fileio's and seqread's shared
 * files) and its jobs all work in the real area.
 */
static void test_swap_between_points(void **state)
{
	(void)state;
	static const char *const links[] = {
		"work/disk_wrt.u0", "work/creat_clo.u0", "work/fifo_test.u0",
		"work/link_test.0.u0", "work/link_test.1.u0", "work/streams.2.0.u0",
		"shared/disk_cp.1.src", "shared/fileio-1x65536.0", "shared/fileio.5.ctl",
		"shared/seqread-65536", "work/disk_cp.u0", NULL,
	};
	struct race r;
	race_init(&r, links);
	const char *yaml = "files: {filesize: 8k}\nsync: none\n"
			   "mix:\n  - {job: disk_wrt}\n  - {job: disk_cp}\n"
			   "  - {job: streams, n: 1, file_size: 64k}\n"
			   "  - {job: creat_clo}\n  - {job: link_test}\n"
			   "  - {job: fileio, shared: true, files: 1, file_size: 64k, block: 4k, ops: 4}\n"
			   "  - {job: seqread, shared: true, file_size: 64k, block: 64k}\n"
			   "  - {job: fifo_test}\n";
	struct workload wl = { 0 };
	load_wl(&wl, yaml, r.work);
	struct load_area a;
	area_up(&wl, &a, &r);
	struct load_cfg c = {
		.wl = &wl, .area = &a, .users = 1, .jobs_per_user = 8, .timeout_s = 60,
		.seed = 1, .libexec_dir = "libexec", .measure = WL_MEASURE_JOBS,
	};
	struct load_point p;
	char err[256];
	volatile sig_atomic_t stop = 0;
	assert_int_equal(load_run_point(&c, &p, &stop, err, sizeof(err)), 0);
	assert_point_ran(&p);
	load_point_free(&p);
	swap_in_symlinks(&r);
	assert_int_equal(load_run_point(&c, &p, &stop, err, sizeof(err)), 0);
	assert_victim_untouched(r.victim, &r.victim_st);
	assert_point_ran(&p);
	load_point_free(&p);
	assert_int_equal(load_area_settle(&a), 0);
	assert_int_equal(load_area_remove(&a), 0);
	assert_victim_untouched(r.victim, &r.victim_st);
	assert_links_kept(&r);
	wl_free(&wl);
}

/*
 * A racer that exchanges the work directory with a symlink tree as fast
 * as it can (renameat2 RENAME_EXCHANGE) while two users run disk_wrt jobs:
 * half of all path lookups through the work directory land in the tree.
 */
static void test_exchange_racer(void **state)
{
	(void)state;
	struct race r;
	race_init(&r, wrt_links);
	struct workload wl = { 0 };
	load_wl(&wl, "files: {filesize: 4k}\nsync: none\nmix:\n  - {job: disk_wrt}\n", r.work);
	struct load_area a;
	area_up(&wl, &a, &r);
	/* the other tree, beside the work directory, swapped in and out */
	char other[PATH_MAX + 8], p[PATH_MAX * 2];
	snprintf(other, sizeof(other), "%s.other", r.work);
	assert_int_equal(mkdir(other, 0755), 0);
	snprintf(p, sizeof(p), "%s/%s", other, r.leaf);
	assert_int_equal(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/%s/work", other, r.leaf);
	assert_int_equal(mkdir(p, 0755), 0);
	for (size_t i = 0; wrt_links[i]; i++) {
		snprintf(p, sizeof(p), "%s/%s/%s", other, r.leaf, wrt_links[i]);
		assert_int_equal(symlink(r.victim, p), 0);
	}
	int go[2];
	assert_int_equal(pipe(go), 0);
	pid_t racer = fork();
	assert_true(racer >= 0);
	if (racer == 0) {
		char b;
		close(go[1]);
		if (read(go[0], &b, 1) != 1)
			_exit(1);
		/* swap, then plant the links again where the jobs' unlinks took them */
		for (bool fake_at_work = false;; fake_at_work = !fake_at_work) {
			if (renameat2(AT_FDCWD, r.work, AT_FDCWD, other, RENAME_EXCHANGE))
				_exit(2);
			for (size_t i = 0; wrt_links[i]; i++) {
				struct stat ls;
				snprintf(p, sizeof(p), "%s/%s/%s", fake_at_work ? other : r.work,
					 r.leaf, wrt_links[i]);
				if (!lstat(p, &ls) && !S_ISLNK(ls.st_mode))
					unlink(p);
				symlink(r.victim, p);
			}
		}
	}
	close(go[0]);
	struct load_cfg c = {
		.wl = &wl, .area = &a, .users = 2, .jobs_per_user = 400, .timeout_s = 60,
		.seed = 1, .libexec_dir = "libexec", .measure = WL_MEASURE_JOBS,
	};
	struct load_point pt;
	char err[256];
	volatile sig_atomic_t stop = 0;
	assert_int_equal(write(go[1], "g", 1), 1);
	int rc = load_run_point(&c, &pt, &stop, err, sizeof(err));
	kill(racer, SIGKILL);
	waitpid(racer, NULL, 0);
	close(go[1]);
	/* put the real work directory back at its name */
	struct stat st;
	snprintf(p, sizeof(p), "%s/%s/%s", r.work, r.leaf, LOAD_AREA_MARKER);
	if (stat(p, &st))
		assert_int_equal(renameat2(AT_FDCWD, r.work, AT_FDCWD, other, RENAME_EXCHANGE), 0);
	assert_int_equal(rc, 0);
	assert_victim_untouched(r.victim, &r.victim_st);
	assert_point_ran(&pt);
	load_point_free(&pt);
	assert_int_equal(load_area_remove(&a), 0);
	assert_victim_untouched(r.victim, &r.victim_st);
	wl_free(&wl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_swap_before_release, setup, teardown),
		cmocka_unit_test_setup_teardown(test_swap_before_release_threads, setup, teardown),
		cmocka_unit_test_setup_teardown(test_swap_between_points, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exchange_racer, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
