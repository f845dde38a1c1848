// SPDX-License-Identifier: GPL-2.0-only
/*
 * The work area: created fresh, removed wholly, never following a symlink
 * out of it, never deleting a directory that replaced the one we made, and
 * removing the work directory itself only when jobmix created it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jobmix/load.h"
#include "../../src/load/internal.h"

static char base[PATH_MAX];

static int setup(void **state)
{
	(void)state;
	snprintf(base, sizeof(base), "/tmp/jobmix-area-XXXXXX");
	return mkdtemp(base) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	return system(cmd) == 0 ? 0 : -1;
}

static void touch(const char *path)
{
	int fd = open(path, O_CREAT | O_WRONLY, 0600);
	assert_true(fd >= 0);
	close(fd);
}

static bool exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

static void test_create_remove_never_follows_symlinks(void **state)
{
	(void)state;
	char work[PATH_MAX], outside[PATH_MAX], keep[PATH_MAX], p[PATH_MAX + 64];
	snprintf(work, sizeof(work), "%s/work", base);
	snprintf(outside, sizeof(outside), "%s/outside", base);
	snprintf(keep, sizeof(keep), "%s/keep", outside);
	mkdir(work, 0755);
	mkdir(outside, 0755);
	touch(keep);
	char *dirs[] = { work };
	struct workload wl = { .dirs = dirs, .ndirs = 1 };
	struct load_area a;
	char err[256];
	assert_int_equal(load_area_create(&wl, &a, err, sizeof(err)), 0);
	assert_int_equal(a.n, 1);
	assert_true(exists(a.roots[0]));
	assert_ptr_not_equal(strstr(a.roots[0], "/jobmix."), NULL);

	/* a user's files, a symlink to a directory outside and one to a file outside */
	snprintf(p, sizeof(p), "%s/u0", a.roots[0]);
	mkdir(p, 0700);
	snprintf(p, sizeof(p), "%s/u0/f", a.roots[0]);
	touch(p);
	snprintf(p, sizeof(p), "%s/u0/link-dir", a.roots[0]);
	assert_int_equal(symlink(outside, p), 0);
	snprintf(p, sizeof(p), "%s/u0/link-file", a.roots[0]);
	assert_int_equal(symlink(keep, p), 0);

	assert_int_equal(load_area_clear(&a), 0);
	snprintf(p, sizeof(p), "%s/u0", a.roots[0]);
	assert_false(exists(p));
	assert_true(exists(keep));
	assert_true(exists(a.roots[0]));

	char root[PATH_MAX];
	snprintf(root, sizeof(root), "%s", a.roots[0]);
	assert_int_equal(load_area_remove(&a), 0);
	assert_false(exists(root));
	assert_true(exists(keep));
	assert_true(exists(work)); /* not ours: it existed before */
}

static void test_replaced_root_is_not_removed(void **state)
{
	(void)state;
	char work[PATH_MAX], p[PATH_MAX + 64];
	snprintf(work, sizeof(work), "%s/work2", base);
	mkdir(work, 0755);
	char *dirs[] = { work };
	struct workload wl = { .dirs = dirs, .ndirs = 1 };
	struct load_area a;
	char err[256];
	assert_int_equal(load_area_create(&wl, &a, err, sizeof(err)), 0);
	/* someone swaps our root for another directory with a file in it */
	assert_int_equal(rmdir(a.roots[0]), 0);
	assert_int_equal(mkdir(a.roots[0], 0700), 0);
	snprintf(p, sizeof(p), "%s/theirs", a.roots[0]);
	touch(p);
	assert_int_not_equal(load_area_clear(&a), 0);
	assert_true(exists(p));
	assert_int_not_equal(load_area_remove(&a), 0);
	assert_true(exists(p));
}

static void test_made_workdir_is_removed(void **state)
{
	(void)state;
	char work[PATH_MAX];
	snprintf(work, sizeof(work), "%s/fresh", base);
	char *dirs[] = { work };
	struct workload wl = { .dirs = dirs, .ndirs = 1 };
	struct load_area a;
	char err[256];
	assert_int_equal(load_area_create(&wl, &a, err, sizeof(err)), 0);
	assert_true(exists(work));
	assert_int_equal(load_area_remove(&a), 0);
	assert_false(exists(work));
}

/*
 * files.layout: shared puts the users of a work dir in one directory there
 * (round-robin over the dirs, as re-aim); per_user gives each its own.
 */
static void test_user_dirs_by_layout(void **state)
{
	(void)state;
	char *roots[] = { "/w/a", "/w/b" };
	struct load_area area = { .roots = roots, .n = 2 };
	struct workload wl = { .layout = WL_LAYOUT_SHARED };
	struct load_cfg cfg = { .wl = &wl, .area = &area, .users = 4 };
	char d[4][PATH_MAX];
	for (unsigned u = 0; u < 4; u++)
		load_user_dir(&cfg, u, d[u], sizeof(d[u]));
	assert_string_equal(d[0], "/w/a/work");
	assert_string_equal(d[1], "/w/b/work");
	assert_string_equal(d[2], d[0]);
	assert_string_equal(d[3], d[1]);
	wl.layout = WL_LAYOUT_PER_USER;
	for (unsigned u = 0; u < 4; u++)
		load_user_dir(&cfg, u, d[u], sizeof(d[u]));
	assert_string_equal(d[0], "/w/a/u0");
	assert_string_equal(d[3], "/w/b/u3");
	/* the names users give their own files differ in a shared directory */
	char p0[PATH_MAX], p1[PATH_MAX];
	struct job_ctx c0 = { .dir = "/w/a/work", .user = 0 }, c2 = { .dir = "/w/a/work", .user = 2 };
	job_own_path(p0, &c0, "creat_clo");
	job_own_path(p1, &c2, "creat_clo");
	assert_string_equal(p0, "/w/a/work/creat_clo.u0");
	assert_string_not_equal(p0, p1);
}

static void test_bad_workdir(void **state)
{
	(void)state;
	char file[PATH_MAX], link[PATH_MAX];
	snprintf(file, sizeof(file), "%s/plain-file", base);
	snprintf(link, sizeof(link), "%s/a-link", base);
	touch(file);
	assert_int_equal(symlink(base, link), 0);
	struct load_area a;
	char err[256];
	char *d1[] = { file };
	struct workload wl = { .dirs = d1, .ndirs = 1 };
	assert_int_not_equal(load_area_create(&wl, &a, err, sizeof(err)), 0);
	assert_ptr_not_equal(strstr(err, "not a directory"), NULL);
	char *d2[] = { link };
	wl.dirs = d2;
	assert_int_not_equal(load_area_create(&wl, &a, err, sizeof(err)), 0);
	assert_ptr_not_equal(strstr(err, "symlink"), NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_create_remove_never_follows_symlinks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_replaced_root_is_not_removed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_made_workdir_is_removed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_workdir, setup, teardown),
		cmocka_unit_test(test_user_dirs_by_layout),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
