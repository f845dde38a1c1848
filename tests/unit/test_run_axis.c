// SPDX-License-Identifier: GPL-2.0-only
/*
 * -X KEY=V1,V2,... split once into a typed axis (run_axis_parse): the key,
 * the values, the scheduler's marked, every refusal with its message; and
 * run_axis_copy, whose copy owns its values' text.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "jobmix/exitcode.h"
#include "jobmix/run.h"

static void test_split(void **state)
{
	(void)state;
	struct run_axis ax;
	char err[1024] = "";
	assert_int_equal(run_axis_parse("queue.read_ahead_kb=64,512", &ax, err, sizeof(err)), 0);
	assert_string_equal(ax.key, "queue.read_ahead_kb");
	assert_int_equal(ax.nvals, 2);
	assert_string_equal(ax.vals[0], "64");
	assert_string_equal(ax.vals[1], "512");
	assert_int_equal(ax.kind, RUN_AXIS_WL);   /* until the plan finds its family */
	assert_null(ax.fam);
	/* only the first '=' splits: a mount option's value keeps its own */
	assert_int_equal(run_axis_parse("mount=data=journal,data=ordered", &ax, err,
					sizeof(err)), 0);
	assert_string_equal(ax.key, "mount");
	assert_int_equal(ax.nvals, 2);
	assert_string_equal(ax.vals[0], "data=journal");
	assert_string_equal(ax.vals[1], "data=ordered");
	/* a value may hold spaces (fs.mkfs) */
	assert_int_equal(run_axis_parse("fs.mkfs=-b 1024,-b 4096", &ax, err, sizeof(err)), 0);
	assert_string_equal(ax.vals[1], "-b 4096");
	assert_int_equal(run_axis_parse("fio.block=4k", &ax, err, sizeof(err)), 0);
	assert_int_equal(ax.nvals, 1);
}

static void test_sched_marked(void **state)
{
	(void)state;
	struct run_axis ax;
	char err[1024];
	assert_int_equal(run_axis_parse("sched=none,mq-deadline", &ax, err, sizeof(err)), 0);
	assert_int_equal(ax.kind, RUN_AXIS_SCHED);
	assert_int_equal(ax.nvals, 2);
	assert_int_equal(run_axis_parse("scheduler=all", &ax, err, sizeof(err)), 0);
	assert_int_equal(ax.kind, RUN_AXIS_SCHED);
	assert_string_equal(ax.key, "scheduler");
	/* a key that only begins with it is not the scheduler's */
	assert_int_equal(run_axis_parse("schedx=1,2", &ax, err, sizeof(err)), 0);
	assert_int_equal(ax.kind, RUN_AXIS_WL);
	assert_int_equal(run_axis_parse("queue.scheduler=none,bfq", &ax, err, sizeof(err)), 0);
	assert_int_equal(ax.kind, RUN_AXIS_WL);
}

/* Each refusal: exit 2 and the message naming the axis. */
static void test_refusals(void **state)
{
	(void)state;
	static const struct {
		const char *spec, *msg;
	} bad[] = {
		{ "queue.read_ahead_kb=", "-X 'queue.read_ahead_kb=': give KEY=VALUE1,VALUE2,..." },
		{ "=1,2", "-X '=1,2': give KEY=VALUE1,VALUE2,..." },
		{ "noeq", "-X 'noeq': give KEY=VALUE1,VALUE2,..." },
		{ "a.b=1,,2", "-X a.b: an empty value in '1,,2'" },
		{ "a.b=1,", "-X a.b: an empty value in '1,'" },
		{ "a.b=,1", "-X a.b: an empty value in ',1'" },
		{ "sched=none,none", "-X sched: value 'none' given twice" },
		{ "k=1,2,3,4,5,6,7,8,9", "-X k: at most 8 values" },
	};
	struct run_axis ax;
	char err[1024];
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = 0;
		assert_int_equal(run_axis_parse(bad[i].spec, &ax, err, sizeof(err)), JM_EXIT_USAGE);
		assert_string_equal(err, bad[i].msg);
	}
	char spec[700];
	memset(spec, 'k', 70);
	snprintf(spec + 70, sizeof(spec) - 70, "=1,2");
	assert_int_equal(run_axis_parse(spec, &ax, err, sizeof(err)), JM_EXIT_USAGE);
	assert_string_equal(err, "-X 'kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk...': key too long");
	snprintf(spec, sizeof(spec), "k=");
	memset(spec + 2, 'v', 600);
	spec[602] = 0;
	assert_int_equal(run_axis_parse(spec, &ax, err, sizeof(err)), JM_EXIT_USAGE);
	assert_string_equal(err, "-X k: list too long");
}

/* The copy's values are its own: the original overwritten, the copy unchanged. */
static void test_copy(void **state)
{
	(void)state;
	struct run_axis a, b;
	char err[1024];
	assert_int_equal(run_axis_parse("fio.block=4k,16k", &a, err, sizeof(err)), 0);
	run_axis_copy(&b, &a);
	assert_ptr_equal(b.vals[0], b.buf);
	assert_true(b.vals[1] > b.buf && b.vals[1] < b.buf + sizeof(b.buf));
	assert_int_equal(run_axis_parse("other=x,y", &a, err, sizeof(err)), 0);
	assert_string_equal(b.key, "fio.block");
	assert_int_equal(b.nvals, 2);
	assert_string_equal(b.vals[0], "4k");
	assert_string_equal(b.vals[1], "16k");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_sched_marked),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_copy),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
