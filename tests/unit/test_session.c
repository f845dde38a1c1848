// SPDX-License-Identifier: GPL-2.0-only
/*
 * The run's session over a fake sysfs (lock and state files in a temp dir):
 * hold, switch, release; and a restore that fails is reported, recorded and
 * leaves its state file for a later repair.  Nothing touches the real /sys.
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
#include <unistd.h>

#include "jobmix/sys_dev.h"
#include "jobmix/sys_sched.h"
#include "jobmix/run_session.h"

static char root[] = "/tmp/jobmix-session.XXXXXX";

static void put(const char *rel, const char *text)
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

static void get(const char *rel, char *buf, size_t len)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	FILE *f = fopen(p, "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, (int)len, f));
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(root))
		return -1;
	char sysfs[PATH_MAX], rd[PATH_MAX];
	snprintf(sysfs, sizeof(sysfs), "%s/sys", root);
	snprintf(rd, sizeof(rd), "%s/run", root);
	sys_dev_set_sysfs(sysfs);
	sys_sched_set_dir(rd);
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
	strcpy(root, "/tmp/jobmix-session.XXXXXX");
	return rc == 0 ? 0 : -1;
}

/*
 * A fake scheduler file takes whatever is written; after writing one name
 * it lists only that name, so a restore of the original is refused (not
 * listed): the restore-failure path.
 */
static void test_restore_failure_is_kept(void **state)
{
	(void)state;
	char err[512], buf[256];
	put("sys/block/fake0/queue/scheduler", "[none] mq-deadline bfq\n");
	put("sys/block/fake1/queue/scheduler", "[none] mq-deadline bfq\n");
	struct sys_devset set = { 0 };
	assert_int_equal(sys_dev_add_name("fake0", &set, err, sizeof(err)), 0);
	assert_int_equal(sys_dev_add_name("fake1", &set, err, sizeof(err)), 0);

	struct session s = { 0 };
	assert_int_equal(session_hold(&s, &set, err, sizeof(err)), 0);
	assert_int_equal(s.nholds, 2);
	session_originals(&s, buf, sizeof(buf));
	assert_string_equal(buf, "fake0=none fake1=none");
	session_devices(&s, buf, sizeof(buf));
	assert_string_equal(buf, "fake0 fake1");
	/* a second session cannot hold the same devices, and leaves nothing held */
	struct session s2 = { 0 };
	assert_int_equal(session_hold(&s2, &set, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "in use by another jobmix"));
	assert_int_equal(session_close(&s2), 0);

	assert_int_equal(session_switch(&s, "bfq", err, sizeof(err)), 0);
	assert_string_equal(s.current, "bfq");
	get("sys/block/fake0/queue/scheduler", buf, sizeof(buf));
	assert_string_equal(buf, "bfq");
	/* an unknown name is refused before anything is written */
	assert_int_equal(session_switch(&s, "jobmix-nope", err, sizeof(err)), -1);
	get("sys/block/fake1/queue/scheduler", buf, sizeof(buf));
	assert_string_equal(buf, "bfq");

	/* fake1 gets its list back, fake0 cannot take "none" any more */
	put("sys/block/fake1/queue/scheduler", "none mq-deadline [bfq]\n");
	assert_int_equal(session_release_devices(&s), -1);
	assert_true(s.restore_failed);
	assert_non_null(strstr(s.restore_error, "fake0"));
	get("sys/block/fake1/queue/scheduler", buf, sizeof(buf));
	assert_string_equal(buf, "none");                /* the one that could be restored was */
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/run/sched/fake0", root);
	assert_int_equal(access(p, F_OK), 0);           /* kept for a later repair */
	snprintf(p, sizeof(p), "%s/run/sched/fake1", root);
	assert_int_equal(access(p, F_OK), -1);
	assert_int_equal(session_close(&s), 0);          /* releasing again changes nothing */
	assert_true(s.restore_failed);

	/* once the device lists it again, a repair puts it back */
	put("sys/block/fake0/queue/scheduler", "none mq-deadline [bfq]\n");
	assert_int_equal(sys_sched_repair(NULL, NULL, NULL, err, sizeof(err)), 0);
	get("sys/block/fake0/queue/scheduler", buf, sizeof(buf));
	assert_string_equal(buf, "none");
	snprintf(p, sizeof(p), "%s/run/sched/fake0", root);
	assert_int_equal(access(p, F_OK), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_restore_failure_is_kept, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
