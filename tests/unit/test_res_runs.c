// SPDX-License-Identifier: GPL-2.0-only
/*
 * The run set report, compare and plot read (res_runs.h): runs read from
 * files and folders, what cannot be read warned about through the hook (not
 * printed) and listed, every file found noted as an input, a path that does
 * not exist an error with nothing kept.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jobmix/res_runs.h"

struct said {
	char msg[8][1024];
	size_t n;
};

static void said_warn(void *arg, const char *msg)
{
	struct said *s = arg;
	if (s->n < 8)
		snprintf(s->msg[s->n], sizeof(s->msg[0]), "%s", msg);
	s->n++;
}

/* Two run files read, both noted as inputs (a points.csv only where there is one). */
static void test_files(void **state)
{
	(void)state;
	char *paths[] = { "tests/data/runs/v1-peak.json", "tests/data/runs/v2-ab-bfq.json" };
	struct res_runs rs;
	struct said s = { .n = 0 };
	char err[512] = "";
	assert_int_equal(res_runs_load(&rs, paths, 2, said_warn, &s, err, sizeof(err)), 0);
	assert_int_equal(rs.n, 2);
	assert_int_equal(rs.skipped, 0);
	assert_int_equal(s.n, 0);
	assert_true(rs.run[0].id[0] && rs.run[1].id[0]);
	assert_int_equal(rs.inputs.n, 2);   /* the files; no points.csv beside them */
	res_runs_free(&rs);
	assert_int_equal(rs.n, 0);
	assert_null(rs.run);
}

/* A broken run.json and an empty folder: warned through the hook, the broken one listed. */
static void test_warnings(void **state)
{
	(void)state;
	char dir[] = "/tmp/jm-res-runs.XXXXXX", sub[64], empty[64], file[96];
	assert_non_null(mkdtemp(dir));
	snprintf(sub, sizeof(sub), "%s/broken", dir);
	snprintf(empty, sizeof(empty), "%s/empty", dir);
	snprintf(file, sizeof(file), "%s/run.json", sub);
	assert_int_equal(mkdir(sub, 0700), 0);
	assert_int_equal(mkdir(empty, 0700), 0);
	FILE *f = fopen(file, "w");
	assert_non_null(f);
	fputs("{ not json", f);
	fclose(f);
	char *paths[] = { sub, empty };
	struct res_runs rs;
	struct said s = { .n = 0 };
	char err[512] = "";
	assert_int_equal(res_runs_load(&rs, paths, 2, said_warn, &s, err, sizeof(err)), 0);
	assert_int_equal(rs.n, 0);
	assert_int_equal(rs.skipped, 1);
	assert_non_null(strstr(rs.skip[0], file));
	assert_int_equal(s.n, 2);
	assert_true(!strncmp(s.msg[0], "skipped ", 8) && strstr(s.msg[0], file));
	char want[128];
	snprintf(want, sizeof(want), "no run.json under '%s'", empty);
	assert_string_equal(s.msg[1], want);
	res_runs_free(&rs);
	/* no hook: the same, nothing said */
	assert_int_equal(res_runs_load(&rs, paths, 2, NULL, NULL, err, sizeof(err)), 0);
	assert_int_equal(rs.skipped, 1);
	res_runs_free(&rs);
	unlink(file);
	rmdir(sub);
	rmdir(empty);
	rmdir(dir);
}

/* A path that is not there: -1 with err, nothing kept. */
static void test_missing(void **state)
{
	(void)state;
	char *paths[] = { "tests/data/runs/v1-peak.json", "/nonexistent/jobmix-runs" };
	struct res_runs rs;
	struct said s = { .n = 0 };
	char err[512] = "";
	assert_int_equal(res_runs_load(&rs, paths, 2, said_warn, &s, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "/nonexistent/jobmix-runs"));
	assert_int_equal(rs.n, 0);
	assert_null(rs.run);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_files),
		cmocka_unit_test(test_warnings),
		cmocka_unit_test(test_missing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
