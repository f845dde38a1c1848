// SPDX-License-Identifier: GPL-2.0-only
/*
 * The knob records a killed matrix leaves, over a fake /proc/sys and sysfs
 * (records and locks in a temp dir): a record holds the original and the
 * value jobmix wrote; a repair restores the original only while the knob
 * still reads what jobmix wrote (or a write it had under way), drops the
 * record of a value set by hand since (named, the value left), restores an
 * old record without the written value as before and says so, drops a
 * record that can never apply (an iosched tunable not there under the
 * active scheduler) without failing, and sys_knob_left names records
 * without acting on them.  Nothing touches the real /sys or /proc/sys.
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
#include <sys/stat.h>
#include <unistd.h>

#include "jobmix/sys_dev.h"
#include "jobmix/sys_knob.h"
#include "jobmix/sys_sched.h"

static char root[] = "/tmp/jobmix-knobrec.XXXXXX";

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
	if (f && !fgets(buf, (int)len, f))
		buf[0] = 0;
	if (f)
		fclose(f);
	buf[strcspn(buf, "\n")] = 0;
}

static bool exists(const char *rel)
{
	char p[PATH_MAX];
	at(rel, p, sizeof(p));
	return access(p, F_OK) == 0;
}

/* Does root/rel hold a line `line`? */
static bool has_line(const char *rel, const char *line)
{
	char p[PATH_MAX], buf[512];
	at(rel, p, sizeof(p));
	FILE *f = fopen(p, "r");
	bool found = false;
	while (f && !found && fgets(buf, sizeof(buf), f))
		found = !strcmp(buf, line);
	if (f)
		fclose(f);
	return found;
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
	at("proc", p, sizeof(p));
	sys_knob_set_procsys(p);
	put("proc/vm/dirty_ratio", "20\n");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[PATH_MAX + 16];
	sys_dev_set_sysfs(NULL);
	sys_sched_set_dir(NULL);
	sys_knob_set_procsys(NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	int rc = system(cmd);
	strcpy(root, "/tmp/jobmix-knobrec.XXXXXX");
	return rc == 0 ? 0 : -1;
}

/* What a repair reported: each kind, and the messages. */
struct seen {
	unsigned n[SYS_REPAIR_FAILED + 1];
	char msg[2048];
};

static void seen_report(void *arg, enum sys_repair what, const char *msg)
{
	struct seen *s = arg;
	size_t n = strlen(s->msg);
	s->n[what]++;
	snprintf(s->msg + n, sizeof(s->msg) - n, "%s\n", msg);
}

/* A jobmix that held k and died (SIGKILL): its descriptors gone, its record left. */
static void die(struct sys_knob *k)
{
	close(k->lock_fd);
	close(k->lock_dir);
	close(k->state_dir);
	k->lock_fd = k->lock_dir = k->state_dir = -1;
}

/* Held and set to 30: the record keeps 20 (the original) and 30 (what was written). */
static void held_at_30(struct sys_knob *k)
{
	char err[512], rb[64];
	assert_int_equal(sys_knob_hold(k, "vm.dirty_ratio", "", err, sizeof(err)), 0);
	assert_true(has_line("run/knob/sysctl.vm.dirty_ratio", "original=20\n"));
	assert_true(has_line("run/knob/sysctl.vm.dirty_ratio", "written=20\n"));
	assert_int_equal(sys_knob_set(k, "30", rb, sizeof(rb), err, sizeof(err)), 0);
	assert_string_equal(rb, "30");
	assert_true(has_line("run/knob/sysctl.vm.dirty_ratio", "written=30\n"));
	assert_false(has_line("run/knob/sysctl.vm.dirty_ratio", "pending=30\n"));
	die(k);
}

/* Set by hand since the run died: left as it is, the record dropped and named. */
static void test_value_set_since_is_left(void **state)
{
	(void)state;
	struct sys_knob k;
	struct seen s = { 0 };
	char err[512], now[64];
	held_at_30(&k);
	put("proc/vm/dirty_ratio", "25\n");
	assert_int_equal(sys_knob_repair(seen_report, &s, err, sizeof(err)), 0);
	assert_int_equal(s.n[SYS_REPAIR_DROPPED], 1);
	assert_int_equal(s.n[SYS_REPAIR_RESTORED], 0);
	assert_non_null(strstr(s.msg, "vm.dirty_ratio now 25, not the 30 jobmix wrote: left as it "
				"is, record dropped"));
	get("proc/vm/dirty_ratio", now, sizeof(now));
	assert_string_equal(now, "25");
	assert_false(exists("run/knob/sysctl.vm.dirty_ratio"));
}

/* Still what jobmix wrote: the original back. */
static void test_value_still_ours_is_restored(void **state)
{
	(void)state;
	struct sys_knob k;
	struct seen s = { 0 };
	char err[512], now[64];
	held_at_30(&k);
	assert_int_equal(sys_knob_repair(seen_report, &s, err, sizeof(err)), 0);
	assert_int_equal(s.n[SYS_REPAIR_RESTORED], 1);
	assert_non_null(strstr(s.msg, "vm.dirty_ratio on the system: restored '20' left changed"));
	get("proc/vm/dirty_ratio", now, sizeof(now));
	assert_string_equal(now, "20");
	assert_false(exists("run/knob/sysctl.vm.dirty_ratio"));
}

/* A write under way when it died (pending=): the knob reading it is still jobmix's. */
static void test_pending_write_is_ours(void **state)
{
	(void)state;
	struct sys_knob k;
	struct seen s = { 0 };
	char err[512], now[64];
	held_at_30(&k);
	put("run/knob/sysctl.vm.dirty_ratio", "kind=1\nkey=vm.dirty_ratio\ntarget=\noriginal=20\n"
	    "pid=999999\nidentity=sysctl\nwritten=30\npending=40\n");
	put("proc/vm/dirty_ratio", "40\n");
	assert_int_equal(sys_knob_repair(seen_report, &s, err, sizeof(err)), 0);
	assert_int_equal(s.n[SYS_REPAIR_RESTORED], 1);
	get("proc/vm/dirty_ratio", now, sizeof(now));
	assert_string_equal(now, "20");
}

/* A record an older jobmix wrote (no written=): restored as before, and said so. */
static void test_old_record_restored_and_said(void **state)
{
	(void)state;
	struct seen s = { 0 };
	char err[512], now[64], p[PATH_MAX];
	put("run/knob/sysctl.vm.dirty_ratio", "kind=1\nkey=vm.dirty_ratio\ntarget=\noriginal=20\n"
	    "pid=999999\nsaved=1\nidentity=sysctl\n");
	at("run/knob/sysctl.vm.dirty_ratio", p, sizeof(p));
	assert_int_equal(chmod(p, 0600), 0);
	put("proc/vm/dirty_ratio", "25\n");
	assert_int_equal(sys_knob_repair(seen_report, &s, err, sizeof(err)), 0);
	assert_int_equal(s.n[SYS_REPAIR_RESTORED], 1);
	assert_non_null(strstr(s.msg, "an old record, without the value jobmix wrote: restored "
				"unchecked"));
	get("proc/vm/dirty_ratio", now, sizeof(now));
	assert_string_equal(now, "20");
}

/* A fake loop device (its identity: 7:N and a backing file) with mq-deadline's fifo_batch. */
static void fake_loop_deadline(const char *dev)
{
	char rel[128], p[PATH_MAX];
	snprintf(rel, sizeof(rel), "sys/block/%s/queue/scheduler", dev);
	put(rel, "none [mq-deadline] kyber\n");
	snprintf(rel, sizeof(rel), "sys/block/%s/dev", dev);
	put(rel, "7:7\n");
	put("img", "an image\n");
	at("img", p, sizeof(p));
	strcat(p, "\n");
	snprintf(rel, sizeof(rel), "sys/block/%s/loop/backing_file", dev);
	put(rel, p);
	snprintf(rel, sizeof(rel), "sys/block/%s/queue/iosched/fifo_batch", dev);
	put(rel, "16\n");
}

/*
 * An iosched tunable whose scheduler is no longer active: the record can
 * never apply; dropped with one line, not a failure (restore exits 0).
 */
static void test_iosched_record_under_other_scheduler_dropped(void **state)
{
	(void)state;
	struct sys_knob k;
	struct seen s = { 0 };
	char err[512], rb[64], p[PATH_MAX], cmd[PATH_MAX + 16];
	fake_loop_deadline("loop7");
	assert_int_equal(sys_knob_hold(&k, "queue.iosched.fifo_batch", "loop7", err, sizeof(err)),
			 0);
	assert_int_equal(sys_knob_set(&k, "80", rb, sizeof(rb), err, sizeof(err)), 0);
	die(&k);
	/* switched to kyber: mq-deadline's tunables are gone */
	put("sys/block/loop7/queue/scheduler", "none mq-deadline [kyber]\n");
	at("sys/block/loop7/queue/iosched", p, sizeof(p));
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", p);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(sys_knob_repair(seen_report, &s, err, sizeof(err)), 0);
	assert_int_equal(s.n[SYS_REPAIR_CLEARED], 1);
	assert_int_equal(s.n[SYS_REPAIR_FAILED], 0);
	assert_non_null(strstr(s.msg, "queue.iosched.fifo_batch on loop7: not there now (not a "
				"tunable of the active scheduler)"));
	assert_false(exists("run/knob/queue.loop7.iosched.fifo_batch"));
	/* and once only */
	memset(&s, 0, sizeof(s));
	assert_int_equal(sys_knob_repair(seen_report, &s, err, sizeof(err)), 0);
	assert_int_equal(s.n[SYS_REPAIR_CLEARED] + s.n[SYS_REPAIR_FAILED], 0);
}

/* sys_knob_left names a dead run's records and acts on none. */
static void test_left_names_without_acting(void **state)
{
	(void)state;
	struct sys_knob k;
	char names[256], now[64];
	held_at_30(&k);
	assert_int_equal(sys_knob_left(names, sizeof(names)), 1);
	assert_string_equal(names, "vm.dirty_ratio");
	get("proc/vm/dirty_ratio", now, sizeof(now));
	assert_string_equal(now, "30");
	assert_true(exists("run/knob/sysctl.vm.dirty_ratio"));
	/* a knob a live run holds is not named */
	char err[512];
	struct seen s = { 0 };
	assert_int_equal(sys_knob_repair(seen_report, &s, err, sizeof(err)), 0);
	assert_int_equal(sys_knob_hold(&k, "vm.dirty_ratio", "", err, sizeof(err)), 0);
	assert_int_equal(sys_knob_left(names, sizeof(names)), 0);
	assert_int_equal(sys_knob_release(&k, err, sizeof(err)), 0);
}

/* Another run holding the knob is named by what it is, not as an A/B. */
static void test_lock_message_says_what_holds_it(void **state)
{
	(void)state;
	struct sys_knob k1, k2;
	char err[512];
	assert_int_equal(sys_knob_hold(&k1, "vm.dirty_ratio", "", err, sizeof(err)), 0);
	assert_int_equal(sys_knob_hold(&k2, "vm.dirty_ratio", "", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "in use by another jobmix run, pid "));
	assert_non_null(strstr(err, "an A/B matrix varying it"));
	assert_null(strstr(err, "A/B run"));
	assert_int_equal(sys_knob_release(&k1, err, sizeof(err)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_value_set_since_is_left, setup, teardown),
		cmocka_unit_test_setup_teardown(test_value_still_ours_is_restored, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pending_write_is_ours, setup, teardown),
		cmocka_unit_test_setup_teardown(test_old_record_restored_and_said, setup, teardown),
		cmocka_unit_test_setup_teardown(test_iosched_record_under_other_scheduler_dropped,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_left_names_without_acting, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lock_message_says_what_holds_it, setup,
						teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
