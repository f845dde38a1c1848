// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel's task limits against a load: sys_tasks_fit's arithmetic over
 * made-up limits (which limit binds, the margin, the message), and
 * sys_tasks_read against this machine's /proc.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "jobmix/sys.h"

static void test_margin(void **state)
{
	(void)state;
	static const struct { uint64_t limit, margin; } cases[] = {
		{ 32768, 3277 },     /* 10%, rounded up */
		{ 4194304, 419431 },
		{ 2570, 257 },
		{ 2560, 256 },
		{ 1000, 256 },       /* at least 256 */
		{ 0, 256 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_int_equal(sys_tasks_margin(cases[i].limit), cases[i].margin);
}

static void test_fit(void **state)
{
	(void)state;
	static const struct {
		struct sys_tasks t;
		uint64_t per_user, users, fit;
		const char *why;     /* "" when the users fit */
	} cases[] = {
		/* the reported case: -u 200000 against pid_max 32768 */
		{ { .pid_max = 32768, .threads_max = 192726, .running = 412 }, 1, 200000, 29079,
		  "200000 users need 200000 tasks, but pid_max is 32768 and 412 are in use (with a "
		  "margin of 3277, at most 29079 users fit)" },
		/* exactly what fits, and one more */
		{ { .pid_max = 32768, .threads_max = 192726, .running = 412 }, 1, 29079, 29079, "" },
		{ { .pid_max = 32768, .threads_max = 192726, .running = 412 }, 1, 29080, 29079,
		  "29080 users need 29080 tasks, but pid_max is 32768 and 412 are in use (with a "
		  "margin of 3277, at most 29079 users fit)" },
		/* threads-max binds; users of forking jobs count their children */
		{ { .pid_max = 4194304, .threads_max = 15000, .running = 500 }, 5, 3000, 2600,
		  "3000 users need 15000 tasks (5 a user), but threads-max is 15000 and 500 are in "
		  "use (with a margin of 1500, at most 2600 users fit)" },
		{ { .pid_max = 4194304, .threads_max = 15000, .running = 500 }, 5, 2600, 2600, "" },
		/* a pids cgroup binds, with its own count in use */
		{ { .pid_max = 32768, .threads_max = 192726, .running = 412, .cg_max = 1000,
		    .cg_current = 100, .cg_path = "/sys/fs/cgroup/lab.slice" }, 1, 1000, 644,
		  "1000 users need 1000 tasks, but pids.max of cgroup /sys/fs/cgroup/lab.slice is "
		  "1000 and 100 are in use (with a margin of 256, at most 644 users fit)" },
		/* a limit below its margin holds none */
		{ { .pid_max = 32768, .running = 80, .cg_max = 300, .cg_current = 50,
		    .cg_path = "/x" }, 1, 1, 0,
		  "1 user needs 1 task, but pids.max of cgroup /x is 300 and 50 are in use (with a "
		  "margin of 256, at most 0 users fit)" },
		/* more in use than the limit */
		{ { .pid_max = 1000, .running = 5000 }, 1, 1, 0,
		  "1 user needs 1 task, but pid_max is 1000 and 5000 are in use (with a margin of "
		  "256, at most 0 users fit)" },
		/* nothing known: no bound */
		{ { 0 }, 3, 1000000, UINT64_MAX, "" },
		/* per_user 0 counts as 1 */
		{ { .pid_max = 2000, .running = 0 }, 0, 10, 1744, "" },
		/* a need too large to count saturates */
		{ { .pid_max = 32768, .running = 0 }, 1ull << 40, 1ull << 30, 0,
		  "1073741824 users need 18446744073709551615 tasks (1099511627776 a user), but "
		  "pid_max is 32768 and 0 are in use (with a margin of 3277, at most 0 users fit)" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char why[512] = "stale";
		uint64_t fit = sys_tasks_fit(&cases[i].t, cases[i].per_user, cases[i].users, why,
					     sizeof(why));
		if (fit != cases[i].fit || strcmp(why, cases[i].why))
			print_error("case %zu: fit %llu why '%s'\n", i, (unsigned long long)fit, why);
		assert_true(fit == cases[i].fit);
		assert_string_equal(why, cases[i].why);
	}
}

/* This machine's limits as /proc states them; tasks are running (this one at least). */
static void test_read(void **state)
{
	(void)state;
	struct sys_tasks t;
	sys_tasks_read(&t);
	unsigned long long v = 0;
	FILE *f = fopen("/proc/sys/kernel/pid_max", "r");
	if (f) {
		assert_int_equal(fscanf(f, "%llu", &v), 1);
		fclose(f);
		assert_true(t.pid_max == v);
	}
	f = fopen("/proc/sys/kernel/threads-max", "r");
	if (f) {
		assert_int_equal(fscanf(f, "%llu", &v), 1);
		fclose(f);
		assert_true(t.threads_max == v);
	}
	assert_true(t.running >= 1);
	assert_true(!t.cg_max || (t.cg_path[0] == '/' && strstr(t.cg_path, "cgroup")));
	/* what the auto bound allows is what fits */
	char why[512];
	unsigned most = sys_max_users(3);
	assert_true(most >= 1 && most <= 1000000);
	if (t.pid_max && most > 1) {
		sys_tasks_read(&t);
		assert_true(sys_tasks_fit(&t, 3, most, why, sizeof(why)) + 64 >= most);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_margin),
		cmocka_unit_test(test_fit),
		cmocka_unit_test(test_read),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
