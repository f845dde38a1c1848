// SPDX-License-Identifier: GPL-2.0-only
/*
 * The load point's window marks: START before the users are released, END
 * after the last one finished (jobs mode) or when the window closes (time
 * mode), each exactly once; and load_area_settle on a real area.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "jobmix/load.h"
#include "jobmix/workload.h"

static char base[PATH_MAX];

static int setup(void **state)
{
	(void)state;
	snprintf(base, sizeof(base), "/tmp/jobmix-mark-XXXXXX");
	return mkdtemp(base) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	return system(cmd) == 0 ? 0 : -1;
}

struct marks {
	unsigned n[2];
	uint64_t at[2];
	unsigned order_bad;
};

static void on_mark(void *arg, enum load_mark m, uint64_t now)
{
	struct marks *k = arg;
	if (m == LOAD_MARK_END && !k->n[LOAD_MARK_START])
		k->order_bad++;
	k->n[m]++;
	k->at[m] = now;
}

static void load_wl(struct workload *wl, const char *yaml)
{
	struct wl_error werr;
	assert_int_equal(wl_load_buffer("mark.yaml", yaml, strlen(yaml), wl, &werr), 0);
	for (size_t i = 0; i < wl->ndirs; i++)
		free(wl->dirs[i]);
	wl->dirs[0] = strdup(base);
	wl->ndirs = 1;
}

static void run_point(struct workload *wl, enum wl_measure how, double duration,
		      struct marks *k, struct load_point *p)
{
	struct load_area a;
	char err[256];
	volatile sig_atomic_t stop = 0;
	assert_int_equal(load_area_create(wl, &a, err, sizeof(err)), 0);
	struct load_cfg c = {
		.wl = wl, .area = &a, .users = 2, .jobs_per_user = 4, .timeout_s = 60,
		.seed = 1, .libexec_dir = "libexec", .measure = how, .duration_s = duration,
		.mark = on_mark, .mark_arg = k,
	};
	assert_int_equal(load_run_point(&c, p, &stop, err, sizeof(err)), 0);
	assert_false(p->failed);
	assert_int_equal(load_area_settle(&a), 0);
	assert_int_equal(load_area_remove(&a), 0);
}

static void test_marks_jobs_mode(void **state)
{
	(void)state;
	struct workload wl = { 0 };
	load_wl(&wl, "mix:\n  - {job: creat_clo}\n  - {job: add_int}\n");
	struct marks k = { 0 };
	struct load_point p;
	run_point(&wl, WL_MEASURE_JOBS, 0, &k, &p);
	assert_int_equal(k.n[LOAD_MARK_START], 1);
	assert_int_equal(k.n[LOAD_MARK_END], 1);
	assert_int_equal(k.order_bad, 0);
	/* the window spans the users' work: at least the slowest user's time */
	double window = (double)(k.at[1] - k.at[0]) / 1e9;
	assert_true(window >= p.elapsed_s);
	assert_true(window < p.elapsed_s + 1.0);
	load_point_free(&p);
	wl_free(&wl);
}

static void test_marks_time_mode(void **state)
{
	(void)state;
	struct workload wl = { 0 };
	load_wl(&wl, "mix:\n  - {job: add_int}\n");
	struct marks k = { 0 };
	struct load_point p;
	run_point(&wl, WL_MEASURE_TIME, 1.0, &k, &p);
	assert_int_equal(k.n[LOAD_MARK_START], 1);
	assert_int_equal(k.n[LOAD_MARK_END], 1);
	double window = (double)(k.at[1] - k.at[0]) / 1e9;
	assert_true(window >= 0.99 && window < 1.3);
	load_point_free(&p);
	wl_free(&wl);
}

/* A settle hook: counts its calls, fills a record, and may stop or fail the point. */
struct settler {
	unsigned calls;
	volatile sig_atomic_t *stop;   /* set to SIGINT from the hook when not NULL */
	bool fail;
};

static int on_settle(void *arg, struct load_settle *rec, char *err, size_t errlen)
{
	struct settler *t = arg;
	t->calls++;
	*rec = (struct load_settle){ .dirty_bytes = 4096, .wait_s = 0.01, .drained = true,
				     .full = true };
	if (t->stop)
		*t->stop = SIGINT;
	if (t->fail) {
		snprintf(err, errlen, "no meminfo here");
		return -1;
	}
	return 0;
}

static void settle_point(struct workload *wl, struct settler *t, volatile sig_atomic_t *stop,
			 struct load_point *p)
{
	struct load_area a;
	char err[256];
	assert_int_equal(load_area_create(wl, &a, err, sizeof(err)), 0);
	struct load_cfg c = {
		.wl = wl, .area = &a, .users = 2, .jobs_per_user = 4, .timeout_s = 60,
		.seed = 1, .libexec_dir = "libexec", .measure = WL_MEASURE_JOBS,
		.settle = on_settle, .settle_arg = t,
	};
	assert_int_equal(load_run_point(&c, p, stop, err, sizeof(err)), 0);
	assert_int_equal(load_area_remove(&a), 0);
}

/*
 * The settle hook runs once per point, after the users set up and before
 * the release, and its record lands in the point; a failing hook fails the
 * point; a stop during it interrupts the point, which is then not failed.
 */
static void test_settle_hook(void **state)
{
	(void)state;
	struct workload wl = { 0 };
	load_wl(&wl, "mix:\n  - {job: add_int}\n");
	struct load_point p;
	volatile sig_atomic_t stop = 0;
	struct settler t = { 0 };
	settle_point(&wl, &t, &stop, &p);
	assert_int_equal(t.calls, 1);
	assert_true(p.settled && p.settle.full && p.settle.drained);
	assert_int_equal(p.settle.dirty_bytes, 4096);
	assert_false(p.failed);
	assert_true(p.jobs > 0);
	load_point_free(&p);

	t = (struct settler){ .fail = true };
	settle_point(&wl, &t, &stop, &p);
	assert_true(p.failed);
	assert_non_null(strstr(p.reason, "no meminfo here"));
	assert_int_equal(p.jobs, 0);
	load_point_free(&p);

	t = (struct settler){ .stop = &stop };
	settle_point(&wl, &t, &stop, &p);
	assert_true(p.interrupted);
	assert_false(p.failed);                       /* interrupted is not failed */
	assert_non_null(strstr(p.reason, "interrupted by signal"));
	load_point_free(&p);
	wl_free(&wl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_marks_jobs_mode, setup, teardown),
		cmocka_unit_test_setup_teardown(test_marks_time_mode, setup, teardown),
		cmocka_unit_test_setup_teardown(test_settle_hook, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
