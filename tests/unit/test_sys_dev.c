// SPDX-License-Identifier: GPL-2.0-only
/*
 * Device resolution, queue settings, device statistics and the scheduler
 * hold (lock and state files in a temp dir) against this machine's /sys.
 * Nothing here writes to /sys: the hold tests only switch to the scheduler
 * that is already active.
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
#include <sys/stat.h>
#include <unistd.h>

#include "jobmix/sys.h"
#include "jobmix/sys_dev.h"
#include "jobmix/sys_dstat.h"
#include "jobmix/sys_queue.h"
#include "jobmix/sys_sched.h"

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

/* A device of this machine that offers a choice of schedulers, or "". */
static void settable_device(char *dev, size_t len)
{
	dev[0] = 0;
	DIR *d = opendir("/sys/block");
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && sys_sched_settable(e->d_name)) {
			snprintf(dev, len, "%s", e->d_name);
			break;
		}
	closedir(d);
}

static void test_rates(void **state)
{
	(void)state;
	struct sys_dstat a = { .rd_ios = 100, .rd_merges = 10, .rd_sectors = 800, .wr_ios = 50,
			       .wr_merges = 40, .wr_sectors = 1600, .io_ticks = 1000,
			       .time_in_queue = 2000, .fl_ios = 3 };
	struct sys_dstat b = a;
	b.rd_ios += 200;        /* 200 reads of 8 KiB */
	b.rd_sectors += 3200;
	b.wr_ios += 100;        /* 100 writes of 16 KiB */
	b.wr_sectors += 3200;
	b.rd_merges += 100;
	b.wr_merges += 0;
	b.io_ticks += 1500;     /* busy 1.5 s of 2 s */
	b.time_in_queue += 4000;
	b.fl_ios += 7;
	struct sys_drate r;
	sys_dstat_rates(&a, &b, 2.0, &r);
	assert_int_equal(r.rd_ios, 200);
	assert_int_equal(r.wr_ios, 100);
	assert_int_equal(r.fl_ios, 7);
	assert_true(r.iops > 149.999 && r.iops < 150.001);
	assert_true(r.rd_req_kib > 7.999 && r.rd_req_kib < 8.001);
	assert_true(r.wr_req_kib > 15.999 && r.wr_req_kib < 16.001);
	/* 6400 sectors over 300 requests */
	assert_true(r.avg_req_kib > 3200.0 / 300 - 1e-9 && r.avg_req_kib < 3200.0 / 300 + 1e-9);
	assert_true(r.merge_ratio > 0.24999 && r.merge_ratio < 0.25001);   /* 100 of 400 */
	assert_true(r.util > 0.7499 && r.util < 0.7501);
	assert_true(r.avg_qdepth > 1.999 && r.avg_qdepth < 2.001);
	assert_true(r.mb_s > 6400 * 512 / 1e6 / 2 - 1e-9 && r.mb_s < 6400 * 512 / 1e6 / 2 + 1e-9);

	/* nothing happened: all zero, no division by zero */
	sys_dstat_rates(&a, &a, 2.0, &r);
	assert_true(r.iops == 0 && r.avg_req_kib == 0 && r.merge_ratio == 0 && r.util == 0);
	/* a counter going backwards (device re-created) counts as 0; secs 0 gives no rates */
	sys_dstat_rates(&b, &a, 0, &r);
	assert_int_equal(r.rd_ios, 0);
	assert_true(r.iops == 0 && r.mb_s == 0);
}

static void test_dstat_read(void **state)
{
	(void)state;
	char dev[SYS_DEV_NAME], p[PATH_MAX], line[512];
	settable_device(dev, sizeof(dev));
	if (!dev[0]) {
		skip();
		return;
	}
	struct sys_dstat s;
	snprintf(p, sizeof(p), "/sys/block/%s/stat", dev);
	assert_int_equal(read_line(p, line, sizeof(line)), 0);
	unsigned long long rd;
	assert_int_equal(sscanf(line, "%llu", &rd), 1);
	assert_int_equal(sys_dstat_read(dev, &s), 0);
	assert_true(s.rd_ios >= rd);   /* counters only grow */
	assert_int_equal(sys_dstat_read("../../etc", &s), -1);
	assert_int_equal(sys_dstat_read("jobmix-no-such-dev", &s), -1);
}

static void test_queue_read(void **state)
{
	(void)state;
	char dev[SYS_DEV_NAME], p[PATH_MAX], want[128];
	settable_device(dev, sizeof(dev));
	if (!dev[0]) {
		skip();
		return;
	}
	struct sys_dev d = { 0 };
	snprintf(d.name, sizeof(d.name), "%s", dev);
	struct sys_queue q;
	sys_queue_read(&d, &q);
	assert_string_equal(q.dev, dev);
	assert_true(q.settable);
	assert_true(sys_sched_listed(dev, q.scheduler));
	snprintf(p, sizeof(p), "/sys/block/%s/queue/nr_requests", dev);
	assert_int_equal(read_line(p, want, sizeof(want)), 0);
	assert_int_equal(q.nr_requests, atol(want));
	snprintf(p, sizeof(p), "/sys/block/%s/queue/logical_block_size", dev);
	assert_int_equal(read_line(p, want, sizeof(want)), 0);
	assert_int_equal(q.logical_block_size, atol(want));
	assert_true(q.physical_block_size >= q.logical_block_size);
	assert_true(q.rotational == 0 || q.rotational == 1);
	assert_true(q.read_ahead_kb >= 0 && q.max_sectors_kb > 0 && q.nomerges >= 0);
	/* a scheduler other than none has tunables, each read from its file */
	if (strcmp(q.scheduler, "none")) {
		assert_true(q.ntunables > 0);
		snprintf(p, sizeof(p), "/sys/block/%s/queue/iosched/%s", dev, q.tunables[0].name);
		assert_int_equal(read_line(p, want, sizeof(want)), 0);
		assert_string_equal(q.tunables[0].value, want);
	}
}

static void test_resolve(void **state)
{
	(void)state;
	struct sys_devset set = { 0 };
	char err[256], top[SYS_DEV_NAME];
	if (sys_block_device("/", top, sizeof(top))) {
		skip();
		return;
	}
	assert_int_equal(sys_dev_resolve("/", &set, err, sizeof(err)), 0);
	assert_true(set.n >= 1);
	assert_string_equal(set.dev[0].name, top);
	assert_string_equal(set.dev[0].via, "");
	/* resolving again, or a path below it, adds nothing */
	assert_int_equal(sys_dev_resolve("/usr", &set, err, sizeof(err)), 0);
	size_t n = set.n;
	assert_int_equal(sys_dev_resolve("/", &set, err, sizeof(err)), 0);
	assert_int_equal(set.n, n);
	/* every device below a stacked one names it */
	for (size_t i = 1; i < set.n; i++)
		assert_true(set.dev[i].via[0] != 0);

	/* the environment records each device's queue */
	struct sys_env env;
	sys_env_capture("/", &env);
	assert_true(env.nqueues >= 1);
	assert_string_equal(env.queues[0].dev, top);
}

static void test_resolve_errors(void **state)
{
	(void)state;
	struct sys_devset set = { 0 };
	char err[256] = "";
	struct stat st;
	if (stat("/dev/shm", &st) == 0 && sys_block_device("/dev/shm", err, sizeof(err))) {
		assert_int_equal(sys_dev_resolve("/dev/shm", &set, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "not on a block device"));
		assert_int_equal(set.n, 0);
	}
	static const char *const bad[] = { "../sda", "a/b", "", "..", "vda/../vda", "x y",
					   "/dev/vda", "jobmix-no-such-device-0", NULL };
	for (int i = 0; bad[i]; i++) {
		err[0] = 0;
		assert_int_equal(sys_dev_add_name(bad[i], &set, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "not a block device"));
	}
	assert_int_equal(set.n, 0);
	char buf[64];
	assert_int_equal(sys_dev_attr("vda", "../../../etc/passwd", buf, sizeof(buf)), -1);
	assert_int_equal(sys_dev_attr("vda", "/etc/passwd", buf, sizeof(buf)), -1);
}

static void test_sched_validation(void **state)
{
	(void)state;
	char dev[SYS_DEV_NAME], err[512], before[SYS_SCHED_NAME], all[SYS_SCHED_LIST];
	settable_device(dev, sizeof(dev));
	if (!dev[0]) {
		skip();
		return;
	}
	assert_int_equal(sys_sched_get(dev, before, sizeof(before), all, sizeof(all)), 0);
	static const char *const bad[] = { "jobmix-nope", "", "../none", "none mq-deadline",
					   "[none]", NULL };
	for (int i = 0; bad[i]; i++) {
		assert_int_equal(sys_sched_write(dev, bad[i], err, sizeof(err)), -1);
		assert_non_null(strstr(err, "not one the kernel lists"));
	}
	assert_int_equal(sys_sched_write("../vda", "none", err, sizeof(err)), -1);
	char now[SYS_SCHED_NAME];
	assert_int_equal(sys_sched_get(dev, now, sizeof(now), all, sizeof(all)), 0);
	assert_string_equal(now, before);
	assert_false(sys_sched_listed(dev, "jobmix-nope"));
	assert_true(sys_sched_listed(dev, before));
}

static char tmpdir[] = "/tmp/jobmix-sched-test.XXXXXX";

/* Locks and records in a temp dir: state_dir is its sched/, lock_dir its lock/. */
static void dirs_setup(char *state_dir, char *lock_dir)
{
	char d[PATH_MAX];
	assert_non_null(mkdtemp(tmpdir));
	snprintf(d, sizeof(d), "%s/run", tmpdir);
	sprintf(state_dir, "%s/run/sched", tmpdir);
	sprintf(lock_dir, "%s/run/lock", tmpdir);
	sys_sched_set_dir(d);
}

static void dirs_teardown(const char *state_dir, const char *lock_dir)
{
	char cmd[PATH_MAX + 16];
	(void)state_dir;
	(void)lock_dir;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	assert_int_equal(system(cmd), 0);
	strcpy(tmpdir, "/tmp/jobmix-sched-test.XXXXXX");
	sys_sched_set_dir(NULL);
}

static void test_hold_lock_state(void **state)
{
	(void)state;
	char dev[SYS_DEV_NAME], err[512], sd[PATH_MAX], ld[PATH_MAX], p[PATH_MAX + 64], line[128];
	char lk[PATH_MAX + 64];
	settable_device(dev, sizeof(dev));
	if (!dev[0]) {
		skip();
		return;
	}
	dirs_setup(sd, ld);
	struct sys_sched_hold h, h2;
	assert_int_equal(sys_sched_hold(dev, &h, err, sizeof(err)), 0);
	assert_true(h.original[0] != 0);
	assert_string_equal(h.repaired, "");
	/* the record holds the original before anything is switched, root-only */
	snprintf(p, sizeof(p), "%s/%s", sd, dev);
	assert_int_equal(read_line(p, line, sizeof(line)), 0);
	char want[64];
	snprintf(want, sizeof(want), "original=%s", h.original);
	assert_string_equal(line, want);
	struct stat st;
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	snprintf(lk, sizeof(lk), "%s/%s", ld, dev);
	assert_int_equal(stat(lk, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(stat(sd, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	/* a second hold on the device is refused, naming our pid */
	assert_int_equal(sys_sched_hold(dev, &h2, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "in use by another jobmix"));
	char pid[32];
	snprintf(pid, sizeof(pid), "pid %ld", (long)getpid());
	assert_non_null(strstr(err, pid));
	assert_int_equal(h2.lock_fd, -1);
	/* repair leaves a held device to its holder */
	assert_int_equal(access(p, F_OK), 0);
	assert_int_equal(sys_sched_switch(&h, "jobmix-nope", err, sizeof(err)), -1);
	assert_int_equal(sys_sched_release(&h, err, sizeof(err)), 0);
	assert_int_equal(access(p, F_OK), -1);
	assert_int_equal(access(lk, F_OK), -1);   /* the lock file goes with the hold */
	assert_int_equal(h.lock_fd, -1);
	assert_int_equal(sys_sched_release(&h, err, sizeof(err)), 0);   /* twice is harmless */
	/* free again */
	assert_int_equal(sys_sched_hold(dev, &h2, err, sizeof(err)), 0);
	assert_int_equal(sys_sched_release(&h2, err, sizeof(err)), 0);
	/* a device without a scheduler choice cannot be held */
	DIR *d = opendir("/sys/block");
	struct dirent *e;
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.' && !sys_sched_settable(e->d_name)) {
			assert_int_equal(sys_sched_hold(e->d_name, &h2, err, sizeof(err)), -1);
			assert_non_null(strstr(err, "no settable IO scheduler"));
			break;
		}
	if (d)
		closedir(d);
	dirs_teardown(sd, ld);
}

static int nreports, nfailed;
static char last_report[8192];
static enum sys_repair last_what;

static void on_report(void *arg, enum sys_repair what, const char *msg)
{
	(void)arg;
	nreports++;
	if (what == SYS_REPAIR_FAILED)
		nfailed++;
	last_what = what;
	snprintf(last_report, sizeof(last_report), "%s", msg);
}

/* A dead run's record of `dev`: its original, its pid and the device's identity now. */
static void dead_record(const char *sd, const char *dev, const char *original, long pid)
{
	char p[PATH_MAX + 64], id[SYS_SCHED_ID];
	assert_int_equal(sys_sched_identity(dev, id, sizeof(id)), 0);
	snprintf(p, sizeof(p), "%s/%s", sd, dev);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fprintf(f, "original=%s\npid=%ld\nidentity=%s\n", original, pid, id);
	fclose(f);
}

static void test_repair(void **state)
{
	(void)state;
	char dev[SYS_DEV_NAME], err[512], sd[PATH_MAX], ld[PATH_MAX], p[PATH_MAX + 64];
	char active[SYS_SCHED_NAME], all[SYS_SCHED_LIST];
	settable_device(dev, sizeof(dev));
	if (!dev[0]) {
		skip();
		return;
	}
	assert_int_equal(sys_sched_get(dev, active, sizeof(active), all, sizeof(all)), 0);
	dirs_setup(sd, ld);
	/* nothing saved (not even the directory): nothing to do, nothing made */
	nreports = nfailed = 0;
	assert_int_equal(sys_sched_repair(NULL, on_report, NULL, err, sizeof(err)), 0);
	assert_int_equal(nreports, 0);
	snprintf(p, sizeof(p), "%s/run", tmpdir);
	assert_int_equal(access(p, F_OK), -1);

	/* a dead run's record (its original is the active one: no write needed) */
	snprintf(p, sizeof(p), "mkdir -p '%s' '%s'", sd, ld);
	assert_int_equal(system(p), 0);
	dead_record(sd, dev, active, 999999);
	snprintf(p, sizeof(p), "%s/%s", sd, dev);
	/* a held device is left to its holder */
	struct sys_sched_hold h;
	assert_int_equal(sys_sched_hold(dev, &h, err, sizeof(err)), 0);
	assert_non_null(strstr(h.repaired, "left switched by jobmix pid 999999"));
	assert_int_equal(sys_sched_repair(NULL, on_report, NULL, err, sizeof(err)), 0);
	assert_int_equal(nfailed, 0);
	assert_non_null(strstr(last_report, "left to it"));
	assert_int_equal(last_what, SYS_REPAIR_LEFT);
	assert_int_equal(access(p, F_OK), 0);   /* the holder's own record */
	assert_int_equal(sys_sched_release(&h, err, sizeof(err)), 0);
	assert_int_equal(access(p, F_OK), -1);

	/* again with nobody holding it: repair removes it */
	dead_record(sd, dev, active, 999998);
	nreports = nfailed = 0;
	assert_int_equal(sys_sched_repair(dev, on_report, NULL, err, sizeof(err)), 0);
	assert_int_equal(nreports, 1);
	assert_int_equal(last_what, SYS_REPAIR_RESTORED);
	assert_non_null(strstr(last_report, "999998"));
	assert_int_equal(access(p, F_OK), -1);

	/* a record for a device that is not there is cleared, once */
	snprintf(p, sizeof(p), "printf 'original=none\\nidentity=diskseq 1\\n' > '%s/jobmix-gone0'",
		 sd);
	assert_int_equal(system(p), 0);
	nreports = nfailed = 0;
	assert_int_equal(sys_sched_repair(NULL, on_report, NULL, err, sizeof(err)), 0);
	assert_int_equal(nreports, 1);
	assert_int_equal(last_what, SYS_REPAIR_CLEARED);
	assert_non_null(strstr(last_report, "jobmix-gone0: the device is gone"));
	snprintf(p, sizeof(p), "%s/jobmix-gone0", sd);
	assert_int_equal(access(p, F_OK), -1);
	nreports = 0;
	assert_int_equal(sys_sched_repair(NULL, on_report, NULL, err, sizeof(err)), 0);
	assert_int_equal(nreports, 0);
	dirs_teardown(sd, ld);
}

/* Write `text` into root/rel, making the directories on the way. */
static void fake_file(const char *root, const char *rel, const char *text)
{
	char p[PATH_MAX], cmd[PATH_MAX * 2];
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", p);
	assert_int_equal(system(cmd), 0);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void fake_link(const char *root, const char *rel, const char *target)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	assert_int_equal(symlink(target, p), 0);
}

static const struct sys_dev *find_dev(const struct sys_devset *set, const char *name)
{
	for (size_t i = 0; i < set->n; i++)
		if (!strcmp(set->dev[i].name, name))
			return &set->dev[i];
	return NULL;
}

/*
 * A fake sysfs: dm-0 (bio-based, no choice of scheduler) over loop7 and
 * partition vdz1 of vdz; md0 over two partitions of vdz; zram9 without a
 * scheduler file.  The walk must reach the queues that schedule.
 */
static void test_stacked_walk(void **state)
{
	(void)state;
	char root[] = "/tmp/jobmix-fakesys.XXXXXX", err[256];
	assert_non_null(mkdtemp(root));
	fake_file(root, "block/loop7/queue/scheduler", "[none] mq-deadline kyber bfq\n");
	fake_file(root, "block/loop7/stat", "1 2 3 4 5 6 7 8 0 9 10\n");
	fake_file(root, "block/vdz/queue/scheduler", "none [mq-deadline] kyber bfq\n");
	fake_file(root, "block/vdz/queue/nr_requests", "64\n");
	fake_file(root, "block/vdz/queue/iosched/fifo_batch", "16\n");
	fake_file(root, "block/vdz/queue/iosched/read_expire", "500\n");
	fake_file(root, "block/vdz/vdz1/partition", "1\n");
	fake_file(root, "block/vdz/vdz2/partition", "2\n");
	fake_file(root, "block/dm-0/queue/scheduler", "none\n");
	fake_file(root, "block/md0/queue/scheduler", "none\n");
	fake_file(root, "block/zram9/size", "0\n");
	char d[PATH_MAX];
	snprintf(d, sizeof(d), "mkdir -p %s/block/dm-0/slaves %s/block/md0/slaves", root, root);
	assert_int_equal(system(d), 0);
	fake_link(root, "block/dm-0/slaves/loop7", "../../loop7");
	fake_link(root, "block/dm-0/slaves/vdz1", "../../vdz/vdz1");
	fake_link(root, "block/md0/slaves/vdz1", "../../vdz/vdz1");
	fake_link(root, "block/md0/slaves/vdz2", "../../vdz/vdz2");
	sys_dev_set_sysfs(root);

	struct sys_devset set = { 0 };
	assert_int_equal(sys_dev_add_name("dm-0", &set, err, sizeof(err)), 0);
	assert_int_equal(set.n, 3);
	assert_string_equal(set.dev[0].name, "dm-0");
	assert_true(set.dev[0].stacked);
	assert_false(set.dev[0].settable);   /* bio-based: says so, scheduled below */
	const struct sys_dev *l = find_dev(&set, "loop7"), *v = find_dev(&set, "vdz");
	assert_non_null(l);
	assert_non_null(v);                  /* the partition's disk, not vdz1 */
	assert_null(find_dev(&set, "vdz1"));
	assert_true(l->settable && v->settable);
	assert_string_equal(l->via, "dm-0");
	assert_false(l->stacked);

	/* md0 on two partitions of one disk: the disk once; adding to a set dedups */
	struct sys_devset md = { 0 };
	assert_int_equal(sys_dev_add_name("md0", &md, err, sizeof(err)), 0);
	assert_int_equal(md.n, 2);
	assert_string_equal(md.dev[1].name, "vdz");
	assert_int_equal(sys_dev_add_name("md0", &set, err, sizeof(err)), 0);
	assert_int_equal(set.n, 4);

	/* queue settings and the scheduler's tunables of the fake disk */
	struct sys_queue q;
	sys_queue_read(v, &q);
	assert_string_equal(q.scheduler, "mq-deadline");
	assert_string_equal(q.schedulers, "none mq-deadline kyber bfq");
	assert_int_equal(q.nr_requests, 64);
	assert_int_equal(q.read_ahead_kb, -1);   /* not there: unknown */
	assert_int_equal(q.ntunables, 2);
	assert_string_equal(q.tunables[0].name, "fifo_batch");
	assert_string_equal(q.tunables[1].value, "500");
	assert_string_equal(q.via, "dm-0");

	/* a device without a scheduler file: listed, never settable, never held */
	struct sys_devset z = { 0 };
	assert_int_equal(sys_dev_add_name("zram9", &z, err, sizeof(err)), 0);
	assert_false(z.dev[0].settable);
	struct sys_sched_hold h;
	assert_int_equal(sys_sched_hold("zram9", &h, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "no settable IO scheduler"));
	assert_int_equal(sys_sched_hold("dm-0", &h, err, sizeof(err)), -1);
	assert_int_equal(sys_sched_write("dm-0", "bfq", err, sizeof(err)), -1);

	/* statistics read through the same root */
	struct sys_dstat st;
	assert_int_equal(sys_dstat_read("loop7", &st), 0);
	assert_int_equal(st.rd_ios, 1);
	assert_int_equal(st.time_in_queue, 10);

	sys_dev_set_sysfs(NULL);
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
	/* back on the real /sys: the fake disk is gone */
	assert_false(sys_dev_name_valid("vdz") && access("/sys/block/vdz", F_OK));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rates),
		cmocka_unit_test(test_dstat_read),
		cmocka_unit_test(test_queue_read),
		cmocka_unit_test(test_resolve),
		cmocka_unit_test(test_resolve_errors),
		cmocka_unit_test(test_sched_validation),
		cmocka_unit_test(test_hold_lock_state),
		cmocka_unit_test(test_repair),
		cmocka_unit_test(test_stacked_walk),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
