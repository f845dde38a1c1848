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
 * without acting on them.  Each row of the family table (sys_knob_families[])
 * is driven through its ops: check, set, read back, identity, restore and
 * a refusal, for queue, iosched, sysctl, mount (a tmpfs of its own when
 * root), fs and the scratch mount.  Nothing touches the real /sys or
 * /proc/sys.
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
#include <sys/mount.h>
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
	char cmd[PATH_MAX + 16], mnt[PATH_MAX];
	at("mnt", mnt, sizeof(mnt));
	umount2(mnt, MNT_DETACH);   /* test_family_mount's tmpfs, when an assert left it */
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

/* Hold key on target, its family as the plan finds it (sys_knob_family). */
static int hold(struct sys_knob *k, const char *key, const char *target, char *err,
		size_t errlen)
{
	return sys_knob_hold(k, sys_knob_family(key, false), key, target, err, errlen);
}

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
	assert_int_equal(hold(k, "vm.dirty_ratio", "", err, sizeof(err)), 0);
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
	assert_int_equal(hold(&k, "queue.iosched.fifo_batch", "loop7", err, sizeof(err)),
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
	assert_int_equal(hold(&k, "vm.dirty_ratio", "", err, sizeof(err)), 0);
	assert_int_equal(sys_knob_left(names, sizeof(names)), 0);
	assert_int_equal(sys_knob_release(&k, err, sizeof(err)), 0);
}

/*
 * The hold takes the family the plan classified: it gets, puts and records
 * through it (the key not classified again); none given is refused,
 * nothing held or recorded.
 */
static void test_hold_takes_the_family(void **state)
{
	(void)state;
	const struct sys_knob_family *f = sys_knob_family("vm.dirty_ratio", false);
	struct sys_knob k;
	char err[512], rb[64], now[64];
	assert_int_equal(sys_knob_hold(&k, NULL, "vm.dirty_ratio", "", err, sizeof(err)), -1);
	assert_string_equal(err, "vm.dirty_ratio: not a system knob");
	assert_false(exists("run/knob/sysctl.vm.dirty_ratio"));
	assert_int_equal(sys_knob_hold(&k, f, "vm.dirty_ratio", "", err, sizeof(err)), 0);
	assert_ptr_equal(k.fam, f);
	assert_int_equal(k.kind, f->kind);
	assert_string_equal(k.original, "20");
	/* written= is the family's (f->written), in every record it saves */
	assert_true(has_line("run/knob/sysctl.vm.dirty_ratio", "written=20\n"));
	assert_int_equal(sys_knob_set(&k, "25", rb, sizeof(rb), err, sizeof(err)), 0);
	get("proc/vm/dirty_ratio", now, sizeof(now));
	assert_string_equal(now, "25");
	assert_true(has_line("run/knob/sysctl.vm.dirty_ratio", "written=25\n"));
	assert_int_equal(sys_knob_release(&k, err, sizeof(err)), 0);
	get("proc/vm/dirty_ratio", now, sizeof(now));
	assert_string_equal(now, "20");
	assert_false(exists("run/knob/sysctl.vm.dirty_ratio"));
}

/* Another run holding the knob is named by what it is, not as an A/B. */
static void test_lock_message_says_what_holds_it(void **state)
{
	(void)state;
	struct sys_knob k1, k2;
	char err[512];
	assert_int_equal(hold(&k1, "vm.dirty_ratio", "", err, sizeof(err)), 0);
	assert_int_equal(hold(&k2, "vm.dirty_ratio", "", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "in use by another jobmix run, pid "));
	assert_non_null(strstr(err, "an A/B matrix varying it"));
	assert_null(strstr(err, "A/B run"));
	assert_int_equal(sys_knob_release(&k1, err, sizeof(err)), 0);
}

/*
 * A jobmix killed while rewriting a record leaves the atomic writer's
 * temporary file (".NAME.<16 hex>.tmp") beside it: the next hold of that
 * knob and `jobmix restore` remove it with the record's lock held, also
 * when there is no record (killed writing the first one); another file
 * is left alone.
 */
static void test_tmp_left_by_a_killed_writer(void **state)
{
	(void)state;
	struct sys_knob k;
	struct seen s = { 0 };
	char err[512];
	held_at_30(&k);
	put("run/knob/.sysctl.vm.dirty_ratio.0123456789abcdef.tmp", "kind=1\n");
	put("run/knob/.queue.loop7.read_ahead_kb.fedcba9876543210.tmp", "kind=0\n");
	put("run/knob/.notours", "x\n");
	assert_int_equal(sys_knob_repair(seen_report, &s, err, sizeof(err)), 0);
	assert_int_equal(s.n[SYS_REPAIR_RESTORED], 1);
	assert_int_equal(s.n[SYS_REPAIR_FAILED], 0);
	assert_false(exists("run/knob/.sysctl.vm.dirty_ratio.0123456789abcdef.tmp"));
	assert_false(exists("run/knob/.queue.loop7.read_ahead_kb.fedcba9876543210.tmp"));
	assert_true(exists("run/knob/.notours"));
	/* the next hold of the knob, too */
	held_at_30(&k);
	put("run/knob/.sysctl.vm.dirty_ratio.00000000000000aa.tmp", "kind=1\n");
	assert_int_equal(hold(&k, "vm.dirty_ratio", "", err, sizeof(err)), 0);
	assert_false(exists("run/knob/.sysctl.vm.dirty_ratio.00000000000000aa.tmp"));
	assert_int_equal(sys_knob_release(&k, err, sizeof(err)), 0);
}

/* ---- the family table: every row, each op ------------------------------------ */

static const struct sys_knob_family *fam(const char *key, bool scratch, const char *name)
{
	const struct sys_knob_family *f = sys_knob_family(key, scratch);
	assert_non_null(f);
	assert_string_equal(f->name, name);
	return f;
}

/* Every row complete; each key its family; a workload key none. */
static void test_family_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sys_knob_nfamilies; i++) {
		const struct sys_knob_family *f = &sys_knob_families[i];
		/* never held itself (the scratch mount): no get, and none of the rest */
		bool held = f->get != NULL;
		if (!f->name || !f->match || !f->check ||
		    (held && (!f->target || !f->put || !f->restore || !f->identity || !f->record ||
			      !f->lock)))
			fail_msg("src/sys/knob_family.c: sys_knob_families[%zu] (%s) lacks an op "
				 "(docs/hacking.md: an -X knob family)", i, f->name ? f->name : "?");
	}
	assert_true(fam("queue.iosched.fifo_batch", false, "iosched")->sched_bound);
	assert_false(fam("queue.read_ahead_kb", false, "queue")->sched_bound);
	assert_int_equal(fam("vm.dirty_ratio", false, "sysctl")->on, SYS_KNOB_ON_SYSTEM);
	fam("fs.nr_open", false, "sysctl");
	assert_int_equal(fam("fs", false, "scratch")->on, SYS_KNOB_ON_SCRATCH);
	fam("fs.mkfs", true, "scratch");
	assert_int_equal(fam("mount", false, "mount")->on, SYS_KNOB_ON_MOUNTS);
	assert_int_equal(fam("mount", true, "scratch mount")->on, SYS_KNOB_ON_SCRATCH);
	assert_null(sys_knob_family("threads", false));
	assert_null(sys_knob_family("sched", true));
	assert_int_equal(sys_knob_kind_of("mount"), SYS_KNOB_MOUNT);
	assert_int_equal(sys_knob_kind_of("queue.iosched.fifo_batch"), SYS_KNOB_QUEUE);
	assert_int_equal(sys_knob_kind_of("threads"), -1);
}

/* check(key, target, values...) refused with a message holding `want`. */
static void refused(const struct sys_knob_family *f, const char *key, const char *target,
		    const char *value, bool any, const char *want)
{
	char err[512] = "";
	const char *v[] = { value };
	assert_int_equal(sys_knob_check(f, key, target, v, 1, any, err, sizeof(err)), -1);
	if (!strstr(err, want))
		fail_msg("-X %s=%s: '%s' does not say '%s'", key, value, err, want);
}

static void accepted(const struct sys_knob_family *f, const char *key, const char *target,
		     const char *value, bool any)
{
	char err[512] = "";
	const char *v[] = { value };
	if (sys_knob_check(f, key, target, v, 1, any, err, sizeof(err)))
		fail_msg("-X %s=%s refused: %s", key, value, err);
}

/* Hold key on target, set value (read back `reads`), release: the original back. */
static void set_and_restore(const char *key, const char *target, const char *file,
			    const char *value, const char *reads, const char *original,
			    const char *record)
{
	struct sys_knob k;
	char err[512], rb[64], now[64], rel[256];
	assert_int_equal(hold(&k, key, target, err, sizeof(err)), 0);
	snprintf(rel, sizeof(rel), "run/knob/%s", record);
	assert_true(exists(rel));
	assert_int_equal(sys_knob_set(&k, value, rb, sizeof(rb), err, sizeof(err)), 0);
	assert_string_equal(rb, reads);
	get(file, now, sizeof(now));
	assert_string_equal(now, value);
	assert_int_equal(sys_knob_release(&k, err, sizeof(err)), 0);
	get(file, now, sizeof(now));
	assert_string_equal(now, original);
	assert_false(exists(rel));
}

/* A fake loop device with queue attributes (identity: 7:7 and a backing file). */
static void fake_loop_queue(void)
{
	fake_loop_deadline("loop7");
	put("sys/block/loop7/queue/read_ahead_kb", "128\n");
	put("sys/block/loop7/queue/max_sectors_kb", "256\n");
	put("sys/block/loop7/queue/max_hw_sectors_kb", "512\n");
	put("sys/block/loop7/queue/hw_sector_size", "512\n");
	char p[PATH_MAX];
	at("sys/block/loop7/queue/hw_sector_size", p, sizeof(p));
	assert_int_equal(chmod(p, 0444), 0);
}

static void test_family_queue(void **state)
{
	(void)state;
	const struct sys_knob_family *f = fam("queue.read_ahead_kb", false, "queue");
	char id[SYS_SCHED_ID], want[SYS_SCHED_ID], name[128];
	fake_loop_queue();
	accepted(f, "queue.read_ahead_kb", "loop7", "64", false);
	refused(f, "queue.read_ahead_kb", "loop7", "lots", false, "not a whole number");
	refused(f, "queue.read_ahead_kb", "loop7", "-4", false, "not a whole number");
	refused(f, "queue.read_ahead_kb", "loop7", "a/b", false, "a value is letters");
	refused(f, "queue.max_sectors_kb", "loop7", "1024", false,
		"above loop7's max_hw_sectors_kb (512)");
	refused(f, "queue.hw_sector_size", "loop7", "4096", false, "is read-only");
	refused(f, "queue.nr_requests", "loop7", "64", false, "is not there");
	refused(f, "queue.scheduler", "loop7", "none", false, "its own axis");
	refused(f, "queue.read_ahead_kb", "../loop7", "64", false, "not a block device");
	assert_int_equal(f->identity("loop7", id, sizeof(id)), 0);
	assert_int_equal(sys_sched_identity("loop7", want, sizeof(want)), 0);
	assert_string_equal(id, want);
	assert_int_equal(f->record("queue.read_ahead_kb", "loop7", name, sizeof(name)), 0);
	assert_string_equal(name, "queue.loop7.read_ahead_kb");
	set_and_restore("queue.read_ahead_kb", "loop7", "sys/block/loop7/queue/read_ahead_kb",
			"64", "64", "128", "queue.loop7.read_ahead_kb");
}

static void test_family_iosched(void **state)
{
	(void)state;
	const struct sys_knob_family *f = fam("queue.iosched.fifo_batch", false, "iosched");
	const char *scheds[] = { "mq-deadline", "kyber" };
	char err[512];
	fake_loop_deadline("loop7");
	accepted(f, "queue.iosched.fifo_batch", "loop7", "32", false);
	refused(f, "queue.iosched.fifo_batch", "loop7", "x", false, "not a whole number");
	refused(f, "queue.iosched.nosuch", "loop7", "1", false, "is not there");
	assert_int_equal(sys_knob_check_iosched("queue.iosched.fifo_batch", "loop7", "mq-deadline",
						scheds, 1, err, sizeof(err)), 0);
	assert_int_equal(sys_knob_check_iosched("queue.iosched.fifo_batch", "loop7", "mq-deadline",
						scheds, 2, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "the scheduler kyber has no tunable fifo_batch"));
	assert_non_null(strstr(err, "known under it: read_lat_nsec write_lat_nsec"));
	set_and_restore("queue.iosched.fifo_batch", "loop7",
			"sys/block/loop7/queue/iosched/fifo_batch", "32", "32", "16",
			"queue.loop7.iosched.fifo_batch");
}

static void test_family_sysctl(void **state)
{
	(void)state;
	const struct sys_knob_family *f = fam("vm.dirty_ratio", false, "sysctl");
	char id[64], t[8] = "x", name[128];
	put("proc/kernel/printk", "4\t4\t1\t7\n");
	accepted(f, "vm.dirty_ratio", "", "10", false);
	refused(f, "vm.dirty_ratio", "", "ten", false, "not an integer");
	refused(f, "kernel.printk", "", "4 4 1 7", false, "only vm.* and kernel.sched_*");
	accepted(f, "kernel.printk", "", "4 4 1 7", true);
	refused(f, "kernel.printk", "", "4 4", true, "2 numbers where");
	refused(f, "vm.no_such_knob", "", "1", false, "is not there");
	refused(f, "vm.Dirty", "", "1", false, "not a sysctl name");
	assert_int_equal(f->target("/anything", t, sizeof(t)), 0);
	assert_string_equal(t, "");
	assert_int_equal(f->identity("", id, sizeof(id)), 0);
	assert_string_equal(id, "sysctl");
	assert_int_equal(f->record("vm.dirty_ratio", "", name, sizeof(name)), 0);
	assert_string_equal(name, "sysctl.vm.dirty_ratio");
	set_and_restore("vm.dirty_ratio", "", "proc/vm/dirty_ratio", "10", "10", "20",
			"sysctl.vm.dirty_ratio");
}

/* The atime option of a mount: refusals everywhere; set and restored on a tmpfs of ours. */
static void test_family_mount(void **state)
{
	(void)state;
	const struct sys_knob_family *f = fam("mount", false, "mount");
	char mnt[PATH_MAX], mp[PATH_MAX], id[SYS_SCHED_ID], now[64], buf[PATH_MAX + 32], err[512];
	refused(f, "mount", "/", "data=journal", false, "needs a fresh mount");
	refused(f, "mount", "/", "sync", false, "not an option jobmix remounts");
	assert_int_equal(f->put("mount", "/", "sync", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not an atime option"));
	if (geteuid() != 0)
		skip();
	at("mnt", mnt, sizeof(mnt));
	assert_int_equal(mkdir(mnt, 0700), 0);
	assert_int_equal(mount("jobmix-test", mnt, "tmpfs", MS_RELATIME, "size=1m"), 0);
	accepted(f, "mount", mnt, "noatime", false);
	assert_int_equal(f->target(mnt, mp, sizeof(mp)), 0);
	assert_string_equal(mp, mnt);
	assert_int_equal(f->identity(mnt, id, sizeof(id)), 0);
	snprintf(buf, sizeof(buf), "mount %s, dev ", mnt);
	assert_non_null(strstr(id, buf));
	assert_int_equal(f->get("mount", mnt, now, sizeof(now)), 0);
	assert_string_equal(now, "relatime");
	struct sys_knob k;
	char rb[64];
	int rc = hold(&k, "mount", mnt, err, sizeof(err));
	if (!rc && !(rc = sys_knob_set(&k, "noatime", rb, sizeof(rb), err, sizeof(err))))
		rc = strcmp(rb, "noatime");
	sys_knob_now(f, "mount", mnt, buf, sizeof(buf));
	int rel = sys_knob_release(&k, err, sizeof(err));
	f->get("mount", mnt, now, sizeof(now));
	umount2(mnt, MNT_DETACH);
	assert_int_equal(rc, 0);
	assert_int_equal(rel, 0);
	assert_string_equal(now, "relatime");
	assert_non_null(strstr(buf, "noatime on "));
}

/* The scratch file system: checked, named, put back (unmounted); never written by put. */
static void test_family_fs(void **state)
{
	(void)state;
	const struct sys_knob_family *f = fam("fs", true, "scratch");
	char now[64], id[SYS_SCHED_ID], name[64], err[512], buf[64];
	fake_loop_deadline("loop7");
	refused(f, "fs", "loop7", "nofs", false, "nofs");
	refused(f, "fs.mkfs", "loop7", "-d /etc", false, "/");
	assert_int_equal(f->get("fs", "loop7", now, sizeof(now)), 0);
	assert_string_equal(now, "none");
	f->show(now, "loop7", buf, sizeof(buf));
	assert_string_equal(buf, "nothing mounted");
	assert_int_equal(f->put("fs", "loop7", "ext4", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "made by sys_scratch_make"));
	assert_int_equal(f->restore("fs", "loop7", "ext4", err, sizeof(err)), -1);
	assert_int_equal(f->restore("fs", "loop7", "none", err, sizeof(err)), 0);
	assert_int_equal(f->identity("loop7", id, sizeof(id)), 0);
	assert_int_equal(f->record("fs", "loop7", name, sizeof(name)), 0);
	assert_string_equal(name, "scratch.loop7");
	assert_int_equal(f->record("fs", "../sda", name, sizeof(name)), -1);
	assert_false(f->written);
	/* held: the record says the original, nothing mounted; released: gone */
	struct sys_knob k;
	assert_int_equal(hold(&k, "fs", "loop7", err, sizeof(err)), 0);
	assert_true(has_line("run/knob/scratch.loop7", "original=none\n"));
	assert_false(has_line("run/knob/scratch.loop7", "written=none\n"));
	assert_int_equal(sys_knob_release(&k, err, sizeof(err)), 0);
	assert_false(exists("run/knob/scratch.loop7"));
}

/* -X mount with a scratch device: a fresh mount's options, never held itself. */
static void test_family_scratch_mount(void **state)
{
	(void)state;
	const struct sys_knob_family *f = fam("mount", true, "scratch mount");
	assert_null(f->get);
	assert_true(f->scratch_only);
	accepted(f, "mount", "loop7", "data=journal+noatime", false);
	refused(f, "mount", "loop7", "ro", false, "ro");
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
		cmocka_unit_test_setup_teardown(test_tmp_left_by_a_killed_writer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hold_takes_the_family, setup, teardown),
		cmocka_unit_test(test_family_table),
		cmocka_unit_test_setup_teardown(test_family_queue, setup, teardown),
		cmocka_unit_test_setup_teardown(test_family_iosched, setup, teardown),
		cmocka_unit_test_setup_teardown(test_family_sysctl, setup, teardown),
		cmocka_unit_test_setup_teardown(test_family_mount, setup, teardown),
		cmocka_unit_test_setup_teardown(test_family_fs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_family_scratch_mount, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
