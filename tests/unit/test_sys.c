// SPDX-License-Identifier: GPL-2.0-only
/*
 * Environment capture and block-device resolution against this machine:
 * values are checked against uname/sysconf and against the /sys files
 * themselves, never against constants.  Nothing is written.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "jobmix/sys.h"
#include "jobmix/sys_dev.h"
#include "jobmix/sys_sched.h"
#include "jobmix/sys_settle.h"
#include "jobmix/version.h"

#ifndef TMPFS_MAGIC
#define TMPFS_MAGIC 0x01021994
#endif

/* Read the first line of a file, newline stripped; -1 if unreadable. */
static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	char *ok = fgets(buf, (int)len, f);
	fclose(f);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

static void check_basic_env(const char *path, struct sys_env *env)
{
	struct utsname u;
	assert_int_equal(uname(&u), 0);
	sys_env_capture(path, env);
	assert_string_equal(env->kernel, u.release);
	assert_string_equal(env->machine, u.machine);
	assert_string_equal(env->hostname, u.nodename);
	assert_true(env->cpus >= 1);
	assert_int_equal(env->cpus, (unsigned)sysconf(_SC_NPROCESSORS_ONLN));
	assert_true(env->mem_bytes > 0);
	assert_true(env->fs_type[0] != 0);
	assert_true(env->mount_point[0] == '/');
	assert_true(env->mount_options[0] != 0);
	assert_string_equal(env->jobmix_version, JOBMIX_VERSION);
}

static void test_env_root(void **state)
{
	(void)state;
	struct sys_env env;
	check_basic_env("/", &env);
	assert_string_equal(env.mount_point, "/");
	/* the scheduler, when known, is one of the listed ones */
	if (env.scheduler[0]) {
		assert_true(env.device[0] != 0);
		assert_non_null(strstr(env.schedulers, env.scheduler));
	}
}

static void test_env_tmp(void **state)
{
	(void)state;
	struct sys_env env;
	char real[PATH_MAX];
	assert_non_null(realpath("/tmp", real));
	check_basic_env("/tmp", &env);
	/* the mount point contains /tmp */
	size_t n = strlen(env.mount_point);
	assert_true(!strcmp(env.mount_point, "/") ||
		    (!strncmp(env.mount_point, real, n) && (real[n] == 0 || real[n] == '/')));

	/* a path that does not exist yet is captured at its nearest ancestor */
	struct sys_env later;
	check_basic_env("/tmp/jobmix-does-not-exist.x/a/b", &later);
	assert_string_equal(later.mount_point, env.mount_point);
	assert_string_equal(later.fs_type, env.fs_type);
	assert_string_equal(later.device, env.device);
}

/* Does /sys/block/<dev> (or one of its partitions) carry device number want? */
static bool disk_holds(const char *dev, const char *want)
{
	char p[PATH_MAX], got[64];
	snprintf(p, sizeof(p), "/sys/block/%s/dev", dev);
	if (read_line(p, got, sizeof(got)) == 0 && !strcmp(got, want))
		return true;
	snprintf(p, sizeof(p), "/sys/block/%s", dev);
	DIR *d = opendir(p);
	if (!d)
		return false;
	bool found = false;
	struct dirent *e;
	while (!found && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char part[PATH_MAX];
		snprintf(part, sizeof(part), "/sys/block/%s/%s/partition", dev, e->d_name);
		if (access(part, F_OK))
			continue;
		snprintf(part, sizeof(part), "/sys/block/%s/%s/dev", dev, e->d_name);
		found = read_line(part, got, sizeof(got)) == 0 && !strcmp(got, want);
	}
	closedir(d);
	return found;
}

static void test_block_device_root(void **state)
{
	(void)state;
	struct stat st;
	char want[64], link[96], dev[64] = "x";
	assert_int_equal(stat("/", &st), 0);
	snprintf(want, sizeof(want), "%u:%u", major(st.st_dev), minor(st.st_dev));
	snprintf(link, sizeof(link), "/sys/dev/block/%s", want);
	if (access(link, F_OK)) {
		skip();   /* "/" is not on a block device here (overlay, nfs, ...) */
		return;
	}
	assert_int_equal(sys_block_device("/", dev, sizeof(dev)), 0);
	assert_true(dev[0] != 0);
	assert_null(strchr(dev, '/'));
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "/sys/block/%s", dev);
	assert_int_equal(access(p, F_OK), 0);
	assert_true(disk_holds(dev, want));

	/* its scheduler list is the file's words without brackets */
	char active[64], all[SYS_STR], raw[1024];
	snprintf(p, sizeof(p), "/sys/block/%s/queue/scheduler", dev);
	if (read_line(p, raw, sizeof(raw))) {
		assert_int_equal(sys_sched_get(dev, active, sizeof(active), all, sizeof(all)), -1);
		assert_string_equal(active, "");
		return;
	}
	assert_int_equal(sys_sched_get(dev, active, sizeof(active), all, sizeof(all)), 0);
	char expect_all[1024] = "", expect_active[64] = "";
	char *save = NULL;
	for (char *w = strtok_r(raw, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		size_t wl = strlen(w);
		if (w[0] == '[') {
			snprintf(expect_active, sizeof(expect_active), "%.*s", (int)(wl - 2), w + 1);
			w++;
			w[wl - 2] = 0;
		}
		if (expect_all[0])
			strcat(expect_all, " ");
		strcat(expect_all, w);
	}
	assert_string_equal(all, expect_all);
	if (expect_active[0])
		assert_string_equal(active, expect_active);
	assert_null(strchr(all, '['));

	/* and the whole capture agrees */
	struct sys_env env;
	sys_env_capture("/", &env);
	assert_string_equal(env.device, dev);
	assert_string_equal(env.scheduler, active);
	assert_string_equal(env.schedulers, all);
}

static void test_tmpfs_has_no_device(void **state)
{
	(void)state;
	struct statfs sf;
	if (statfs("/dev/shm", &sf) || sf.f_type != TMPFS_MAGIC) {
		skip();
		return;
	}
	char dev[64] = "x";
	assert_int_equal(sys_block_device("/dev/shm", dev, sizeof(dev)), -1);
	assert_string_equal(dev, "");
	struct sys_env env;
	sys_env_capture("/dev/shm", &env);
	assert_string_equal(env.fs_type, "tmpfs");
	assert_string_equal(env.device, "");
	assert_string_equal(env.scheduler, "");
	assert_string_equal(env.schedulers, "");
	struct sys_mount m;
	assert_int_equal(sys_mount_find("/dev/shm", &m), 0);
	assert_string_equal(m.fs_type, "tmpfs");
	assert_string_equal(m.mount_point, "/dev/shm");
}

/* users.end auto: users of two tasks each, at most half of pid_max (less the margin), at least 1. */
static void test_max_users(void **state)
{
	(void)state;
	unsigned n = sys_max_users(2);
	assert_true(n >= 1);
	FILE *f = fopen("/proc/sys/kernel/pid_max", "r");
	unsigned long long pid_max = 0;
	if (f) {
		assert_int_equal(fscanf(f, "%llu", &pid_max), 1);
		fclose(f);
		assert_true(n <= pid_max / 2);
	}
}

static void test_dev_name_validation(void **state)
{
	(void)state;
	static const char *const bad[] = { "../x", "a/b", "", ".", "..", "../../etc",
					   "vda/../vda", "sda\n", "x y",
					   "jobmix-no-such-device-0", NULL };
	char active[64], all[SYS_STR];
	for (int i = 0; bad[i]; i++) {
		assert_false(sys_dev_name_valid(bad[i]));
		strcpy(active, "stale");
		strcpy(all, "stale");
		assert_int_equal(sys_sched_get(bad[i], active, sizeof(active), all, sizeof(all)), -1);
		assert_string_equal(active, "");
		assert_string_equal(all, "");
	}
	assert_false(sys_dev_name_valid(NULL));

	/* every plainly named entry of /sys/block is accepted */
	DIR *d = opendir("/sys/block");
	if (!d) {
		skip();
		return;
	}
	int seen = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || strspn(e->d_name, "abcdefghijklmnopqrstuvwxyz"
					"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") !=
						   strlen(e->d_name))
			continue;
		assert_true(sys_dev_name_valid(e->d_name));
		seen++;
	}
	closedir(d);
	if (!seen)
		skip();
}

/* Dirty and Writeback from a meminfo file; the real settle drains and records. */
static void test_settle(void **state)
{
	(void)state;
	char path[] = "/tmp/jobmix-test-meminfo.XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	const char *text = "MemTotal:       24000000 kB\nDirty:              1234 kB\n"
			   "Writeback:            8 kB\nAnonPages: 1 kB\n";
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	uint64_t d = 0, w = 0;
	assert_int_equal(sys_meminfo_dirty(path, &d, &w), 0);
	assert_int_equal(d, 1234 * 1024);
	assert_int_equal(w, 8 * 1024);
	FILE *f = fopen(path, "w");
	fputs("MemTotal: 1 kB\nDirty: 5 kB\n", f);   /* no Writeback line */
	fclose(f);
	assert_int_equal(sys_meminfo_dirty(path, &d, &w), -1);
	unlink(path);
	assert_int_equal(sys_meminfo_dirty("/nonexistent/meminfo", &d, &w), -1);

	/* on this machine: sync, drain within the bound, timed */
	struct sys_settle_rec rec;
	char err[256];
	assert_int_equal(sys_settle(10, false, &rec, err, sizeof(err)), 0);
	assert_true(rec.wait_s >= 0 && rec.wait_s < 11);
	assert_false(rec.dropped);
	assert_true(rec.drained == (rec.left_bytes <= SYS_SETTLE_DRAINED));
	if (geteuid() != 0) {
		assert_int_equal(sys_settle(1, true, &rec, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "drop_caches"));
	}
}

/*
 * sys_fit_limits raises a soft RLIMIT_NOFILE to what is needed, up to the
 * hard limit, and refuses (changing nothing) beyond it.  In a child, so the
 * test binary keeps its own limits.
 */
static void test_fit_limits(void **state)
{
	(void)state;
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit rl = { .rlim_cur = 64, .rlim_max = 512 };
		char err[512];
		if (setrlimit(RLIMIT_NOFILE, &rl))
			_exit(10);
		if (sys_fit_limits(300, 1, err, sizeof(err)))
			_exit(11);
		if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur != 300 || rl.rlim_max != 512)
			_exit(12);
		if (sys_fit_limits(100, 1, err, sizeof(err)) || getrlimit(RLIMIT_NOFILE, &rl) ||
		    rl.rlim_cur != 300)
			_exit(13); /* never lowered */
		if (!sys_fit_limits(1000, 1, err, sizeof(err)))
			_exit(14);
		if (!strstr(err, "needs 1000 open files") || !strstr(err, "hard limit is 512"))
			_exit(15);
		if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur != 300)
			_exit(16); /* unchanged when refused */
		if (sys_nofile_hard() != 512)
			_exit(17);
		_exit(0);
	}
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_env_root),
		cmocka_unit_test(test_settle),
		cmocka_unit_test(test_env_tmp),
		cmocka_unit_test(test_block_device_root),
		cmocka_unit_test(test_tmpfs_has_no_device),
		cmocka_unit_test(test_dev_name_validation),
		cmocka_unit_test(test_max_users),
		cmocka_unit_test(test_fit_limits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
