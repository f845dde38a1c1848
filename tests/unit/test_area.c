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
#include "jobmix/workload.h"
#include "jobmix/load_internal.h"

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
	snprintf(p, sizeof(p), "%s/%s", a.roots[0], LOAD_AREA_MARKER);
	assert_int_equal(unlink(p), 0);
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

/* System directories and symlinked paths are refused; scratch places are not. */
static void test_workdir_check(void **state)
{
	(void)state;
	char err[512], p[PATH_MAX + 64], link[PATH_MAX], sub[PATH_MAX];
	static const char *const refused[] = { "/", "//", "/etc", "/etc/jobmix", "/usr/local/w",
					       "/proc/1", "/sys/kernel", "/dev", "/dev/x",
					       "/var", "/home", "/root", "/boot/w", "/tmp/../etc",
					       "/usr/lib/x", NULL };
	for (size_t i = 0; refused[i]; i++) {
		err[0] = 0;
		assert_int_equal(load_workdir_check(refused[i], err, sizeof(err)), -1);
		assert_ptr_not_equal(strstr(err, "system directory"), NULL);
	}
	static const char *const fine[] = { "/tmp", "/tmp/x/y", "/var/tmp", "/dev/shm/w", "/mnt",
					    NULL };
	for (size_t i = 0; fine[i]; i++)
		assert_int_equal(load_workdir_check(fine[i], err, sizeof(err)), 0);
	assert_int_equal(load_workdir_check(base, err, sizeof(err)), 0);
	/* a symlink anywhere in the path, even one ".." walks back out of */
	snprintf(sub, sizeof(sub), "%s/sub", base);
	assert_int_equal(mkdir(sub, 0700), 0);
	snprintf(link, sizeof(link), "%s/link", base);
	assert_int_equal(symlink(sub, link), 0);
	snprintf(p, sizeof(p), "%s/link/w", base);
	assert_int_equal(load_workdir_check(p, err, sizeof(err)), -1);
	assert_ptr_not_equal(strstr(err, "symlink"), NULL);
	snprintf(p, sizeof(p), "%s/link/../w", base);
	assert_int_equal(load_workdir_check(p, err, sizeof(err)), -1);
	snprintf(p, sizeof(p), "%s/sub/../sub/./w", base);
	assert_int_equal(load_workdir_check(p, err, sizeof(err)), 0);
	/* relative to the current directory */
	char cwd[PATH_MAX];
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(base), 0);
	assert_int_equal(load_workdir_check("sub/w", err, sizeof(err)), 0);
	assert_int_equal(load_workdir_check("link/w", err, sizeof(err)), -1);
	assert_int_equal(chdir("/"), 0);
	assert_int_equal(load_workdir_check("etc", err, sizeof(err)), -1);
	assert_int_equal(chdir(cwd), 0);
}

/*
 * The trust rule, over made-up stat results: a directory on the work
 * directory's path is fine when owned by root or the invoking user and
 * writable by neither group nor others, or sticky and root's (/tmp).
 */
static void test_dir_trusted_rule(void **state)
{
	(void)state;
	static const struct {
		uid_t uid;
		mode_t mode;
		uid_t euid;
		bool ok;
		const char *says;       /* in the message when refused */
	} cases[] = {
		{ 0, 0755, 0, true, NULL },            /* /mnt, /work */
		{ 0, 0700, 0, true, NULL },
		{ 0, 01777, 0, true, NULL },           /* /tmp */
		{ 0, 01777, 1000, true, NULL },        /* /tmp, a user's run */
		{ 1000, 0755, 1000, true, NULL },      /* the user's own home */
		{ 1000, 0755, 0, false, "belongs to another user" },  /* bob's dir, root's run */
		{ 1000, 0700, 0, false, "belongs to another user" },
		{ 1000, 01777, 0, false, "belongs to another user" }, /* sticky, not root's */
		{ 0, 0775, 0, false, "writable by its group" },
		{ 0, 0757, 0, false, "writable by every user" },
		{ 0, 0777, 0, false, "mode 0777" },
		{ 1000, 0775, 1000, false, "writable by its group" },
		{ 2000, 0755, 1000, false, "uid 2000" },
		{ 0, 02775, 0, false, "mode 2775" },   /* setgid, group-writable */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct stat st = { .st_uid = cases[i].uid, .st_mode = S_IFDIR | cases[i].mode };
		char err[512] = "";
		int rc = load_dir_trusted("/mnt/t", &st, cases[i].euid, err, sizeof(err));
		if ((rc == 0) != cases[i].ok)
			fail_msg("case %zu: uid %u mode %04o euid %u: %s", i, (unsigned)cases[i].uid,
				 (unsigned)cases[i].mode, (unsigned)cases[i].euid,
				 rc ? err : "accepted");
		if (!cases[i].ok) {
			assert_non_null(strstr(err, "'/mnt/t'"));
			assert_non_null(strstr(err, "owner "));
			if (!strstr(err, cases[i].says))
				fail_msg("case %zu: '%s' lacks '%s'", i, err, cases[i].says);
		}
	}
	/* not a directory: not this rule's to refuse */
	struct stat file = { .st_uid = 1000, .st_mode = S_IFREG | 0666 };
	char err[256];
	assert_int_equal(load_dir_trusted("/mnt/t/f", &file, 0, err, sizeof(err)), 0);
}

/* The rule on real paths: an ancestor or the work directory itself, and nothing made. */
static void test_workdir_check_trust(void **state)
{
	(void)state;
	char open_dir[PATH_MAX], p[PATH_MAX + 32], err[1024];
	snprintf(open_dir, sizeof(open_dir), "%s/open", base);
	assert_int_equal(mkdir(open_dir, 0700), 0);
	assert_int_equal(chmod(open_dir, 0777), 0);
	snprintf(p, sizeof(p), "%s/w", open_dir);
	assert_int_equal(load_workdir_check(p, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "its parent '"));
	assert_non_null(strstr(err, "mode 0777"));
	assert_false(exists(p));
	/* the work directory itself */
	assert_int_equal(load_workdir_check(open_dir, err, sizeof(err)), -1);
	assert_null(strstr(err, "its parent"));
	/* sticky and root's (when we are root), or ours and closed: fine */
	assert_int_equal(chmod(open_dir, geteuid() == 0 ? 01777 : 0755), 0);
	assert_int_equal(load_workdir_check(p, err, sizeof(err)), 0);
}

/* Write a marker file into dir; owner fields as given. */
static void fake_area(const char *dir, const char *marker)
{
	char p[PATH_MAX + 64];
	assert_int_equal(mkdir(dir, 0700), 0);
	if (!marker)
		return;
	snprintf(p, sizeof(p), "%s/%s", dir, LOAD_AREA_MARKER);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(marker, f);
	fclose(f);
	snprintf(p, sizeof(p), "%s/a-file", dir);
	touch(p);
}

/*
 * The marker: written into each root, kept by clear, and how a later run
 * tells a stale area (owner gone: dead pid, other boot) from a live one.
 */
static void test_stale_areas(void **state)
{
	(void)state;
	char work[PATH_MAX], other[PATH_MAX], live[PATH_MAX + 64], p[PATH_MAX + 64];
	char dead[PATH_MAX + 64], reboot[PATH_MAX + 64], nomark[PATH_MAX + 64];
	snprintf(work, sizeof(work), "%s/w", base);
	snprintf(other, sizeof(other), "%s/o", base);
	assert_int_equal(mkdir(work, 0700), 0);
	char *dirs[] = { other };
	struct workload wl = { .dirs = dirs, .ndirs = 1 };
	struct load_area a, b;
	char err[256], mark[256] = "";
	/* a live area (this process's) elsewhere: its marker is kept by clear */
	assert_int_equal(load_area_create(&wl, &a, err, sizeof(err)), 0);
	snprintf(p, sizeof(p), "%s/%s", a.roots[0], LOAD_AREA_MARKER);
	FILE *f = fopen(p, "r");
	assert_non_null(f);
	assert_true(fread(mark, 1, sizeof(mark) - 1, f) > 0);
	fclose(f);
	assert_int_equal(load_area_clear(&a), 0);
	assert_true(exists(p));
	long pid;
	unsigned long long start;
	char boot[40];
	assert_int_equal(sscanf(mark, "jobmix-area 1\npid %ld\nstart %llu\nboot %39s", &pid,
				&start, boot), 3);
	assert_int_equal(pid, (long)getpid());
	/* in work: the live one, a dead pid, another boot, and no marker at all */
	char text[256];
	snprintf(live, sizeof(live), "%s/jobmix.1.0", work);
	fake_area(live, mark);
	snprintf(dead, sizeof(dead), "%s/jobmix.2.0", work);
	snprintf(text, sizeof(text), "jobmix-area 1\npid 999999999\nstart 1\nboot %s\n", boot);
	fake_area(dead, text);
	snprintf(reboot, sizeof(reboot), "%s/jobmix.3.0", work);
	snprintf(text, sizeof(text), "jobmix-area 1\npid %ld\nstart %llu\nboot x%s\n", pid, start,
		 boot + 1);
	fake_area(reboot, text);
	snprintf(nomark, sizeof(nomark), "%s/jobmix.4.0", work);
	fake_area(nomark, NULL);
	dirs[0] = work;
	assert_int_equal(load_area_create(&wl, &b, err, sizeof(err)), 0);
	assert_int_equal(b.stale_removed, 2);
	assert_ptr_not_equal(strstr(b.stale_note, "left"), NULL);
	assert_false(exists(dead));
	assert_false(exists(reboot));
	assert_true(exists(live));
	assert_true(exists(nomark));
	assert_int_equal(load_area_remove(&b), 0);
	assert_int_equal(load_area_remove(&a), 0);
}

/*
 * A work directory a gone run made (its marker says so) is taken over by
 * the next run that removes the stale area: removed at that run's end,
 * once empty.  A live area of another run there is counted and named.
 */
static void test_made_workdir_taken_over(void **state)
{
	(void)state;
	char work[PATH_MAX], stale[PATH_MAX + 32], text[256], boot[40] = "";
	snprintf(work, sizeof(work), "%s/left", base);
	assert_int_equal(mkdir(work, 0700), 0);
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
	assert_non_null(f);
	assert_non_null(fgets(boot, sizeof(boot), f));
	fclose(f);
	boot[strcspn(boot, "\n")] = 0;
	snprintf(stale, sizeof(stale), "%s/jobmix.999999999.0", work);
	snprintf(text, sizeof(text), "jobmix-area 1\npid 999999999\nstart 1\nboot %s\n"
		 "workdir made\n", boot);
	fake_area(stale, text);
	char *dirs[] = { work };
	struct workload wl = { .dirs = dirs, .ndirs = 1 };
	struct load_area a;
	char err[256];
	assert_int_equal(load_area_create(&wl, &a, err, sizeof(err)), 0);
	assert_int_equal(a.stale_removed, 1);
	assert_non_null(strstr(a.workdir_note, "was made by jobmix pid 999999999"));
	assert_int_equal(a.others, 0);
	assert_int_equal(load_area_remove(&a), 0);
	assert_false(exists(work));

	/* the same, with another live run's area beside: counted, and not taken over */
	assert_int_equal(mkdir(work, 0700), 0);
	fake_area(stale, text);
	char live[PATH_MAX + 32];
	snprintf(live, sizeof(live), "%s/jobmix.1.0", work);
	unsigned long long start = 0;
	char buf[1024];
	f = fopen("/proc/1/stat", "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	char *q = strrchr(buf, ')');
	for (int field = 2; q && field < 22; field++)
		q = strchr(q + 1, ' ');
	assert_non_null(q);
	assert_int_equal(sscanf(q, " %llu", &start), 1);
	snprintf(text, sizeof(text), "jobmix-area 1\npid 1\nstart %llu\nboot %s\n", start, boot);
	fake_area(live, text);
	assert_int_equal(load_area_create(&wl, &a, err, sizeof(err)), 0);
	assert_int_equal(a.others, 1);
	assert_int_equal(a.other_pid, 1);
	assert_non_null(strstr(a.others_note, "pid 1)"));
	assert_string_equal(a.workdir_note, "");
	assert_int_equal(load_area_remove(&a), 0);
	assert_true(exists(work));
	assert_true(exists(live));
}

/*
 * Everything beneath the held descriptors: after the area is made, its
 * work directory renamed away and replaced leaves the area working where
 * it is (clear, settle, remove), and the replacement untouched.
 */
static void test_area_follows_its_descriptors(void **state)
{
	(void)state;
	char work[PATH_MAX], moved[PATH_MAX + 8], p[PATH_MAX * 2];
	snprintf(work, sizeof(work), "%s/held", base);
	snprintf(moved, sizeof(moved), "%s.moved", work);
	assert_int_equal(mkdir(work, 0755), 0);
	char *dirs[] = { work };
	struct workload wl = { .dirs = dirs, .ndirs = 1 };
	struct load_area a;
	char err[256];
	assert_int_equal(load_area_create(&wl, &a, err, sizeof(err)), 0);
	const char *leaf = strrchr(a.roots[0], '/') + 1;
	char keep_leaf[64];
	snprintf(keep_leaf, sizeof(keep_leaf), "%s", leaf);
	assert_int_equal(mkdirat(load_area_root_fd(&a, 0), "u0", 0700), 0);
	assert_int_equal(rename(work, moved), 0);
	/* in its place: a directory of the same name with a file of theirs */
	snprintf(p, sizeof(p), "%s/%s", work, keep_leaf);
	assert_int_equal(mkdir(work, 0755), 0);
	assert_int_equal(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/%s/theirs", work, keep_leaf);
	touch(p);
	assert_int_equal(load_area_clear(&a), 0);
	assert_int_equal(load_area_settle(&a), 0);
	assert_true(exists(p));
	snprintf(p, sizeof(p), "%s/%s/u0", moved, keep_leaf);
	assert_false(exists(p));            /* cleared where it is */
	assert_int_equal(load_area_remove(&a), 0);
	snprintf(p, sizeof(p), "%s/%s", moved, keep_leaf);
	assert_false(exists(p));            /* removed where it is */
	snprintf(p, sizeof(p), "%s/%s/theirs", work, keep_leaf);
	assert_true(exists(p));             /* theirs: untouched */
}

/* What a point needs of RLIMIT_NOFILE: per process, or all users in one. */
static void test_need(void **state)
{
	(void)state;
	struct workload wl;
	struct wl_error werr;
	const char *yaml = "name: n\nmix:\n  - {job: fileio, files: 16, weight: 1}\n"
			   "  - {job: sieve, weight: 1}\n";
	assert_int_equal(wl_load_buffer("n.yaml", yaml, strlen(yaml), &wl, &werr), 0);
	struct load_need proc, thr, proc2;
	load_need(&wl, 100, &proc);
	load_need(&wl, 200, &proc2);
	assert_int_equal(proc.nofile, proc2.nofile);       /* each user its own table */
	assert_true(proc.nofile >= 16 + JOB_FDS_TRANSIENT);
	assert_true(proc2.nproc >= 200);
	wl.users.as = WL_USERS_THREADS;
	load_need(&wl, 100, &thr);
	assert_true(thr.nofile >= 100 * (16 + JOB_FDS_TRANSIENT));
	assert_true(thr.nofile < 100 * (16 + JOB_FDS_TRANSIENT) + 1024);
	wl_free(&wl);
	/*
	 * 64 thread users on 32 shared files: the files once for the process
	 * (and each thread its transient reserve), not once per thread; as
	 * processes, each user needs them all.
	 */
	yaml = "name: n\nusers: {as: threads}\nmix:\n"
	       "  - {job: fileio, files: 32, shared: true, weight: 1}\n";
	assert_int_equal(wl_load_buffer("n.yaml", yaml, strlen(yaml), &wl, &werr), 0);
	load_need(&wl, 64, &thr);
	assert_true(thr.nofile >= 32 + 64 * JOB_FDS_TRANSIENT);
	assert_true(thr.nofile < 32 + 64 * JOB_FDS_TRANSIENT + 1024);
	assert_true(thr.nofile < 64 * 32);
	wl.users.as = WL_USERS_PROCESSES;
	load_need(&wl, 64, &proc);
	assert_true(proc.nofile >= 32 + JOB_FDS_TRANSIENT);
	wl_free(&wl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_create_remove_never_follows_symlinks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_replaced_root_is_not_removed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_made_workdir_is_removed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_workdir, setup, teardown),
		cmocka_unit_test(test_user_dirs_by_layout),
		cmocka_unit_test_setup_teardown(test_workdir_check, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stale_areas, setup, teardown),
		cmocka_unit_test(test_need),
		cmocka_unit_test(test_dir_trusted_rule),
		cmocka_unit_test_setup_teardown(test_workdir_check_trust, setup, teardown),
		cmocka_unit_test_setup_teardown(test_made_workdir_taken_over, setup, teardown),
		cmocka_unit_test_setup_teardown(test_area_follows_its_descriptors, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
