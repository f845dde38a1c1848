// SPDX-License-Identifier: GPL-2.0-only
/*
 * The scheduler records a killed A/B leaves, over a fake sysfs (records and
 * locks in a temp dir): each record names the device it was made on
 * (diskseq, else major:minor and a loop device's backing file), a repair
 * restores only that device and drops the record of a device that changed
 * without switching it, a gone device's record is cleared once, the
 * directory is refused when it is not root-only, lock files go with their
 * holds and a lock file removed under a taker is not held.  Nothing touches
 * the real /sys.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jobmix/sys_dev.h"
#include "jobmix/sys_sched.h"

static char root[] = "/tmp/jobmix-schedrec.XXXXXX";

/* root/rel */
static void at(const char *rel, char *p, size_t len)
{
	snprintf(p, len, "%s/%s", root, rel);
}

/* Write `text` into root/rel, making the directories on the way. */
static void put(const char *rel, const char *text)
{
	char p[PATH_MAX], cmd[PATH_MAX * 2];
	at(rel, p, sizeof(p));
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", p);
	assert_int_equal(system(cmd), 0);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* The first line of root/rel, or "" when there is none. */
static void get(const char *rel, char *buf, size_t len)
{
	char p[PATH_MAX];
	at(rel, p, sizeof(p));
	buf[0] = 0;
	FILE *f = fopen(p, "r");
	if (!f)
		return;
	if (!fgets(buf, (int)len, f))
		buf[0] = 0;
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
}

static bool exists(const char *rel)
{
	char p[PATH_MAX];
	at(rel, p, sizeof(p));
	return access(p, F_OK) == 0;
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(root))
		return -1;
	char p[PATH_MAX];
	at("sys", p, sizeof(p));
	sys_dev_set_sysfs(p);
	at("run", p, sizeof(p));
	sys_sched_set_dir(p);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[PATH_MAX + 16];
	sys_dev_set_sysfs(NULL);
	sys_sched_set_dir(NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	int rc = system(cmd);
	strcpy(root, "/tmp/jobmix-schedrec.XXXXXX");
	return rc == 0 ? 0 : -1;
}

/* A fake loop device attached to root/<image>, with a choice of schedulers. */
static void fake_loop(const char *dev, const char *devno, const char *image, const char *active)
{
	char rel[128], p[PATH_MAX], list[128] = "";
	static const char *const names[] = { "none", "mq-deadline", "kyber", "bfq" };
	for (size_t i = 0; i < 4; i++) {
		bool on = !strcmp(names[i], active);
		size_t n = strlen(list);
		snprintf(list + n, sizeof(list) - n, "%s%s%s%s", n ? " " : "", on ? "[" : "",
			 names[i], on ? "]" : "");
	}
	strcat(list, "\n");
	snprintf(rel, sizeof(rel), "sys/block/%s/queue/scheduler", dev);
	put(rel, list);
	snprintf(rel, sizeof(rel), "sys/block/%s/dev", dev);
	put(rel, devno);
	put(image, "an image\n");
	at(image, p, sizeof(p));
	strcat(p, "\n");
	snprintf(rel, sizeof(rel), "sys/block/%s/loop/backing_file", dev);
	put(rel, p);
}

/* Set the fake device's scheduler list with `active` bracketed (as the kernel would). */
static void set_active(const char *dev, const char *active)
{
	char image[PATH_MAX], rel[128], devno[32];
	snprintf(rel, sizeof(rel), "sys/block/%s/dev", dev);
	get(rel, devno, sizeof(devno));
	snprintf(rel, sizeof(rel), "sys/block/%s/loop/backing_file", dev);
	get(rel, image, sizeof(image));
	const char *base = image + strlen(root) + 1;
	char keep[PATH_MAX];
	snprintf(keep, sizeof(keep), "%s", base);
	fake_loop(dev, devno, keep, active);
}

/*
 * An A/B killed while it had `dev` switched to `to`: a child holds and
 * switches the device, then dies without releasing (its lock goes with it,
 * its record stays).
 */
static void killed_ab(const char *dev, const char *to)
{
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct sys_sched_hold h;
		char err[512];
		if (sys_sched_hold(dev, &h, err, sizeof(err)))
			_exit(10);
		if (sys_sched_switch(&h, to, err, sizeof(err)))
			_exit(11);
		_exit(0);   /* SIGKILL's effect: no release */
	}
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

static int nreports;
static enum sys_repair last_what;
static char last_msg[8192];

static void on_report(void *arg, enum sys_repair what, const char *msg)
{
	(void)arg;
	nreports++;
	last_what = what;
	snprintf(last_msg, sizeof(last_msg), "%s", msg);
}

static int repair(const char *only)
{
	char err[512];
	nreports = 0;
	last_msg[0] = 0;
	int rc = sys_sched_repair(only, on_report, NULL, err, sizeof(err));
	if (rc < 0)
		snprintf(last_msg, sizeof(last_msg), "%s", err);
	return rc;
}

/* What the identity says for a loop device, a disk with diskseq, a serial. */
static void test_identity(void **state)
{
	(void)state;
	char id[SYS_SCHED_ID], id2[SYS_SCHED_ID], want[PATH_MAX + 64], img[PATH_MAX];
	struct stat st;
	fake_loop("loop7", "7:7\n", "a.img", "none");
	assert_int_equal(sys_sched_identity("loop7", id, sizeof(id)), 0);
	at("a.img", img, sizeof(img));
	assert_int_equal(stat(img, &st), 0);
	snprintf(want, sizeof(want), "dev 7:7, backing file %s (%u:%u inode %llu)", img,
		 major(st.st_dev), minor(st.st_dev), (unsigned long long)st.st_ino);
	assert_string_equal(id, want);
	/* the same path, another file (a new image made in its place) is another device */
	at("a.img", img, sizeof(img));
	assert_int_equal(unlink(img), 0);
	put("x.img", "keep the old inode from being reused\n");
	put("a.img", "another image\n");
	assert_int_equal(sys_sched_identity("loop7", id2, sizeof(id2)), 0);
	assert_string_not_equal(id, id2);
	/* a detached loop device */
	char p[PATH_MAX];
	at("sys/block/loop7/loop/backing_file", p, sizeof(p));
	assert_int_equal(unlink(p), 0);
	assert_int_equal(sys_sched_identity("loop7", id, sizeof(id)), 0);
	assert_string_equal(id, "dev 7:7, no backing file");
	/* where the kernel numbers disks, the number is the identity */
	put("sys/block/loop7/diskseq", "41\n");
	assert_int_equal(sys_sched_identity("loop7", id, sizeof(id)), 0);
	assert_string_equal(id, "diskseq 41");
	put("sys/block/vdq/dev", "252:16\n");
	put("sys/block/vdq/serial", "JM-0042\n");
	assert_int_equal(sys_sched_identity("vdq", id, sizeof(id)), 0);
	assert_string_equal(id, "dev 252:16, serial JM-0042");
	put("sys/block/sdq/dev", "8:16\n");
	put("sys/block/sdq/device/wwid", "naa.5000c500\n");
	assert_int_equal(sys_sched_identity("sdq", id, sizeof(id)), 0);
	assert_string_equal(id, "dev 8:16, wwid naa.5000c500");
	assert_int_equal(sys_sched_identity("jobmix-nosuch0", id, sizeof(id)), -1);
	assert_string_equal(id, "");
}

/*
 * The reported case: an A/B killed on loop5 with bfq active, loop5
 * detached and attached to another image set to kyber.  A repair of
 * another device leaves loop5 and its record alone; a repair of loop5
 * drops the record, saying so, and leaves kyber active.
 */
static void test_changed_device_dropped(void **state)
{
	(void)state;
	char buf[256];
	fake_loop("loop5", "7:5\n", "old.img", "none");
	fake_loop("loop6", "7:6\n", "other.img", "mq-deadline");
	killed_ab("loop5", "bfq");
	get("sys/block/loop5/queue/scheduler", buf, sizeof(buf));
	assert_string_equal(buf, "bfq");                 /* left switched */
	assert_true(exists("run/sched/loop5"));
	assert_true(exists("run/lock/loop5"));           /* a killed holder's lock stays */

	/* detached, attached to another image, set to kyber */
	fake_loop("loop5", "7:5\n", "new.img", "kyber");

	assert_int_equal(repair("loop6"), 0);            /* a run on another device */
	assert_int_equal(nreports, 0);
	assert_true(exists("run/sched/loop5"));
	get("sys/block/loop5/queue/scheduler", buf, sizeof(buf));
	assert_string_equal(buf, "none mq-deadline [kyber] bfq");

	assert_int_equal(repair("loop5"), 0);            /* a run on the device */
	assert_int_equal(nreports, 1);
	assert_int_equal(last_what, SYS_REPAIR_DROPPED);
	assert_non_null(strstr(last_msg, "loop5: another device now"));
	assert_non_null(strstr(last_msg, "old.img"));
	assert_non_null(strstr(last_msg, "new.img"));
	assert_non_null(strstr(last_msg, "left as it is ('kyber')"));
	get("sys/block/loop5/queue/scheduler", buf, sizeof(buf));
	assert_string_equal(buf, "none mq-deadline [kyber] bfq");   /* never written */
	assert_false(exists("run/sched/loop5"));
	assert_false(exists("run/lock/loop5"));
	assert_int_equal(repair(NULL), 0);               /* said once */
	assert_int_equal(nreports, 0);

	/* an A/B's hold drops it too, and records the device as it is now */
	killed_ab("loop5", "bfq");
	put("sys/block/loop5/diskseq", "9\n");           /* the kernel renumbered it */
	set_active("loop5", "mq-deadline");
	struct sys_sched_hold h;
	char err[512];
	assert_int_equal(sys_sched_hold("loop5", &h, err, sizeof(err)), 0);
	assert_non_null(strstr(h.repaired, "another device now (recorded as dev 7:5"));
	assert_non_null(strstr(h.repaired, "now diskseq 9"));
	assert_string_equal(h.original, "mq-deadline");
	get("sys/block/loop5/queue/scheduler", buf, sizeof(buf));
	assert_string_equal(buf, "none [mq-deadline] kyber bfq");
	assert_int_equal(sys_sched_release(&h, err, sizeof(err)), 0);
	assert_false(exists("run/sched/loop5"));
	assert_false(exists("run/lock/loop5"));
}

/* The device is still the one recorded: its original comes back, by a repair or a hold. */
static void test_same_device_restored(void **state)
{
	(void)state;
	char buf[256];
	fake_loop("loop5", "7:5\n", "img", "none");
	put("sys/block/loop5/diskseq", "12\n");
	killed_ab("loop5", "bfq");
	set_active("loop5", "bfq");          /* the fake file lists the choice again */
	assert_int_equal(repair(NULL), 0);
	assert_int_equal(nreports, 1);
	assert_int_equal(last_what, SYS_REPAIR_RESTORED);
	assert_non_null(strstr(last_msg, "loop5: restored scheduler 'none' left switched by jobmix pid"));
	get("sys/block/loop5/queue/scheduler", buf, sizeof(buf));
	assert_string_equal(buf, "none");
	assert_false(exists("run/sched/loop5"));
	assert_false(exists("run/lock/loop5"));

	/* a record without an identity (an older jobmix's) is never acted on */
	set_active("loop5", "kyber");
	put("run/sched/loop5", "original=none\npid=4242\n");
	assert_int_equal(repair("loop5"), 0);
	assert_int_equal(last_what, SYS_REPAIR_DROPPED);
	assert_non_null(strstr(last_msg, "recorded without an identity"));
	get("sys/block/loop5/queue/scheduler", buf, sizeof(buf));
	assert_string_equal(buf, "none mq-deadline [kyber] bfq");
}

/* A gone device's record is cleared with a message, once; its lock file too. */
static void test_gone_device_cleared(void **state)
{
	(void)state;
	char cmd[PATH_MAX + 32];
	fake_loop("loop9", "7:9\n", "img", "none");
	killed_ab("loop9", "kyber");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s/sys/block/loop9'", root);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(repair(NULL), 0);
	assert_int_equal(nreports, 1);
	assert_int_equal(last_what, SYS_REPAIR_CLEARED);
	assert_non_null(strstr(last_msg, "loop9: the device is gone"));
	assert_non_null(strstr(last_msg, "to restore 'none'"));
	assert_false(exists("run/sched/loop9"));
	assert_false(exists("run/lock/loop9"));
	assert_int_equal(repair(NULL), 0);
	assert_int_equal(nreports, 0);
	assert_int_equal(repair("loop9"), 0);
	assert_int_equal(nreports, 0);
	/* names that are not device names are refused before anything is opened */
	assert_int_equal(repair("../etc"), -1);
	assert_int_equal(repair(".tmp"), -1);
}

/*
 * The directory must be ours and root-only: a symlink, another owner (as
 * root), a group- or other-writable mode are refused by a hold and a repair,
 * which then change nothing; a readable one is tightened to 0700.
 */
static void test_dir_refused(void **state)
{
	(void)state;
	char p[PATH_MAX], q[PATH_MAX], err[512], buf[256];
	struct sys_sched_hold h;
	struct stat st;
	fake_loop("loop5", "7:5\n", "img", "none");
	at("run", p, sizeof(p));

	at("elsewhere", q, sizeof(q));
	assert_int_equal(mkdir(q, 0700), 0);
	assert_int_equal(symlink(q, p), 0);
	assert_int_equal(sys_sched_hold("loop5", &h, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "is a symlink: refused"));
	assert_int_equal(h.lock_fd, -1);
	assert_int_equal(repair(NULL), -1);
	assert_non_null(strstr(last_msg, "is a symlink"));
	assert_false(exists("elsewhere/lock"));
	assert_int_equal(unlink(p), 0);

	assert_int_equal(mkdir(p, 0700), 0);
	static const mode_t bad[] = { 0777, 0770, 0702, 01777 };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(chmod(p, bad[i]), 0);
		assert_int_equal(sys_sched_hold("loop5", &h, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "writable by group or others"));
		assert_int_equal(repair(NULL), -1);
		assert_false(exists("run/lock"));
	}
	if (geteuid() == 0) {
		assert_int_equal(chmod(p, 0700), 0);
		assert_int_equal(chown(p, 65534, 65534), 0);
		assert_int_equal(sys_sched_hold("loop5", &h, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "its owner is another user (owner uid 65534"));
		assert_int_equal(repair(NULL), -1);
		assert_int_equal(chown(p, 0, 0), 0);
	}
	/* a bad directory inside a good one is refused as well */
	assert_int_equal(chmod(p, 0700), 0);
	at("run/sched", q, sizeof(q));
	assert_int_equal(mkdir(q, 0777), 0);
	assert_int_equal(chmod(q, 0777), 0);
	assert_int_equal(sys_sched_hold("loop5", &h, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "run/sched: refused"));
	get("sys/block/loop5/queue/scheduler", buf, sizeof(buf));
	assert_string_equal(buf, "[none] mq-deadline kyber bfq");
	assert_false(exists("run/lock/loop5"));   /* refused before the lock was taken */
	assert_int_equal(chmod(q, 0755), 0);
	assert_int_equal(chmod(p, 0755), 0);
	/* readable by others only: used, made 0700 */
	assert_int_equal(sys_sched_hold("loop5", &h, err, sizeof(err)), 0);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	assert_int_equal(stat(q, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	assert_int_equal(sys_sched_release(&h, err, sizeof(err)), 0);
}

/*
 * flock as the library calls it, interposed: when armed, the holder of
 * `race_hold` releases it (removing the lock file, unlocking) just before
 * the next taker locks the file it has already opened, the classic race of
 * removing lock files.
 */
static struct sys_sched_hold *race_hold;

int flock(int fd, int op)
{
	if (race_hold && (op & LOCK_EX)) {
		char err[512];
		struct sys_sched_hold *h = race_hold;
		race_hold = NULL;
		assert_int_equal(sys_sched_release(h, err, sizeof(err)), 0);
	}
	return (int)syscall(SYS_flock, fd, op);
}

/*
 * A taker that opened the lock file just before its holder removed it must
 * not hold the removed file: it takes the one at the path, so a third
 * taker is refused.  Releasing removes the file.
 */
static void test_lock_removed_race(void **state)
{
	(void)state;
	char err[512], p[PATH_MAX];
	struct sys_sched_hold h1, h2, h3;
	struct stat held, now;
	fake_loop("loop5", "7:5\n", "img", "none");
	at("run/lock/loop5", p, sizeof(p));
	assert_int_equal(sys_sched_hold("loop5", &h1, err, sizeof(err)), 0);
	race_hold = &h1;
	assert_int_equal(sys_sched_hold("loop5", &h2, err, sizeof(err)), 0);
	assert_null(race_hold);                          /* the race was run */
	assert_int_equal(h1.lock_fd, -1);
	assert_int_equal(fstat(h2.lock_fd, &held), 0);
	assert_int_equal(stat(p, &now), 0);
	assert_true(held.st_ino == now.st_ino && held.st_dev == now.st_dev);
	assert_int_equal(sys_sched_hold("loop5", &h3, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "in use by another jobmix run, pid"));
	assert_int_equal(sys_sched_release(&h2, err, sizeof(err)), 0);
	assert_false(exists("run/lock/loop5"));
	assert_false(exists("run/sched/loop5"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_identity, setup, teardown),
		cmocka_unit_test_setup_teardown(test_changed_device_dropped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_same_device_restored, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gone_device_cleared, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dir_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lock_removed_race, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
