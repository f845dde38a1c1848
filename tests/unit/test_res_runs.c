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

#include <jansson.h>

#include "jobmix/res_index.h"
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

/* What the project hook saw. */
struct seen {
	size_t calls, points, off_peak;
};

static void count_project(struct res_rec *r, void *arg)
{
	struct seen *s = arg;
	s->calls++;
	s->points += r->npoints;
	for (size_t i = 0; i < r->npoints; i++)
		s->off_peak += !res_rec_peak_point(r, i);
	r->nproj = 1;
	r->proj[0] = (double)r->npoints;
}

/* A results root of the test runs, one of them failed at its last point. */
static void make_root(char *dir)
{
	static const char *const name[] = { "v1-early", "v1-peak", "v2-ab-bfq" };
	char p[256];
	assert_non_null(mkdtemp(dir));
	for (size_t i = 0; i < 4; i++) {
		json_error_t je;
		snprintf(p, sizeof(p), "tests/data/runs/%s.json", name[i < 3 ? i : 1]);
		json_t *doc = json_load_file(p, 0, &je);
		assert_non_null(doc);
		if (i == 3) {   /* failed at its last point, with a reason */
			json_t *pts = json_object_get(doc, "points");
			json_t *last = json_array_get(pts, json_array_size(pts) - 1);
			json_object_set_new(last, "failed", json_true());
			json_object_set_new(last, "reason", json_string("fork: Resource busy"));
			json_object_set_new(doc, "status", json_string("failed"));
			/* its summary agrees (else the run is refused): its users' other sample alone */
			json_t *by = json_object_get(json_object_get(doc, "summary"), "by_users");
			json_t *b = json_array_get(by, json_array_size(by) - 1);
			json_t *one = json_array_get(pts, json_array_size(pts) - 2);
			json_t *v = json_object_get(one, "jpm");
			json_object_set_new(b, "n", json_integer(1));
			json_object_set(b, "jpm_mean", v);
			json_object_set_new(b, "jpm_samples", json_pack("[O]", v));
			json_object_set_new(b, "failed", json_true());
		}
		snprintf(p, sizeof(p), "%s/run-%zu", dir, i);
		assert_int_equal(mkdir(p, 0755), 0);
		snprintf(p, sizeof(p), "%s/run-%zu/run.json", dir, i);
		assert_int_equal(json_dump_file(doc, p, 0), 0);
		json_decref(doc);
	}
}

/*
 * A run-level read (no RES_RUNS_POINTS), parsed and then through the
 * index, against a read of every part: the same runs and summaries, no
 * points and no curves kept, what the points said kept (completed points,
 * the failure's reason), the hook shown only the peak's points from the
 * index; with RES_RUNS_CURVES the curves equal.
 */
static void test_run_level(void **state)
{
	(void)state;
	char dir[] = "/tmp/jm-res-runs-level.XXXXXX", err[512] = "";
	make_root(dir);
	char *paths[] = { dir };
	struct res_runs full, lvl;
	assert_int_equal(res_runs_load_parts(&full, paths, 1, RES_RUNS_POINTS | RES_RUNS_CURVES, NULL,
					     NULL, NULL, NULL, err, sizeof(err)), 0);
	res_index_settle(true);
	assert_int_equal(full.n, 4);
	for (int pass = 0; pass < 3; pass++) {
		struct seen seen = { 0 };
		unsigned parts = pass == 2 ? RES_RUNS_CURVES : 0;
		assert_int_equal(res_runs_load_parts(&lvl, paths, 1, parts, count_project, &seen, NULL,
						     NULL, err, sizeof(err)), 0);
		res_index_settle(true);
		assert_int_equal(lvl.n, full.n);
		assert_int_equal(lvl.index.hits, full.n);   /* the index full.n's read made */
		assert_int_equal(seen.calls, full.n);
		assert_int_equal(seen.off_peak, 0);          /* only the peak's points */
		assert_true(seen.points > 0 && seen.points < 4 * 6);
		unsigned failed = 0;
		for (size_t i = 0; i < lvl.n; i++) {
			const struct res_rec *a = &full.run[i], *b = &lvl.run[i];
			unsigned ok = 0;
			for (size_t k = 0; k < a->npoints; k++)
				ok += !a->points[k].failed && !a->points[k].interrupted;
			assert_string_equal(a->id, b->id);
			assert_string_equal(a->path, b->path);
			assert_null(b->points);
			assert_int_equal(b->npoints, 0);
			assert_int_equal(b->npoints_ok, ok);
			assert_int_equal(a->npoints_ok, ok);
			assert_string_equal(b->fail_reason, a->fail_reason);
			assert_int_equal(b->fail_users, a->fail_users);
			failed += b->fail_reason[0] != 0;
			assert_true(b->summary.peak_jpm == a->summary.peak_jpm ||
				    (a->summary.peak_jpm != a->summary.peak_jpm &&
				     b->summary.peak_jpm != b->summary.peak_jpm));
			assert_int_equal(b->nsettings, a->nsettings);
			for (size_t k = 0; k < a->nsettings; k++) {
				assert_string_equal(b->settings[k].key, a->settings[k].key);
				assert_string_equal(b->settings[k].value, a->settings[k].value);
			}
			assert_int_equal(b->nenv, a->nenv);
			assert_true(b->lists_shared);
			assert_int_equal(b->nproj, 1);
			/* the curve only (its figures not kept): what compare and charts read */
			assert_null(b->summary.by);
			assert_int_equal(b->summary.nby, 0);
			assert_int_equal(a->summary.ncurve, a->summary.nby);
			if (parts & RES_RUNS_CURVES) {
				assert_int_equal(b->summary.ncurve, a->summary.ncurve);
				assert_true(a->summary.ncurve > 0);
				for (size_t k = 0; k < a->summary.ncurve; k++) {
					const struct res_curve_pt *x = &a->summary.curve[k];
					const struct res_curve_pt *y = &b->summary.curve[k];
					assert_int_equal(y->users, x->users);
					assert_int_equal(y->n, x->n);
					assert_int_equal(y->failed, x->failed);
					assert_memory_equal(y->samples, x->samples, x->n * sizeof(double));
				}
			} else {
				assert_null(b->summary.curve);
				assert_int_equal(b->summary.ncurve, 0);
			}
		}
		assert_int_equal(failed, 1);
		res_runs_free(&lvl);
	}
	res_runs_free(&full);
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/*
 * RES_RUNS_PEAK keeps the points at the peak, the same through the index
 * (decoded from its row) and parsed (filtered): the full read's points
 * that res_rec_peak_point names, in order, without their mix entries.
 */
static void test_peak_points(void **state)
{
	(void)state;
	char dir[] = "/tmp/jm-res-runs-peak.XXXXXX", err[512] = "";
	make_root(dir);
	char *paths[] = { dir };
	struct res_runs full, pk;
	assert_int_equal(res_runs_load_parts(&full, paths, 1, RES_RUNS_POINTS, NULL, NULL, NULL, NULL,
					     err, sizeof(err)), 0);
	res_index_settle(true);
	for (int pass = 0; pass < 2; pass++) {
		if (pass)
			setenv("JOBMIX_INDEX", "off", 1);   /* parsed, not from the index */
		assert_int_equal(res_runs_load_parts(&pk, paths, 1, RES_RUNS_PEAK, NULL, NULL, NULL,
						     NULL, err, sizeof(err)), 0);
		res_index_settle(true);
		unsetenv("JOBMIX_INDEX");
		assert_int_equal(pk.index.hits, pass ? 0 : full.n);
		assert_int_equal(pk.n, full.n);
		for (size_t i = 0; i < full.n; i++) {
			const struct res_rec *a = &full.run[i], *b = &pk.run[i];
			size_t k = 0;
			assert_true(b->points_part);
			for (size_t j = 0; j < a->npoints; j++) {
				if (!res_rec_peak_point(a, j))
					continue;
				assert_true(k < b->npoints);
				assert_int_equal(b->points[k].users, a->points[j].users);
				assert_int_equal(b->points[k].sample, a->points[j].sample);
				assert_true(b->points[k].jpm == a->points[j].jpm);
				assert_int_equal(b->points[k].nkinds, 0);
				assert_null(b->points[k].kinds);
				k++;
			}
			assert_true(k > 0 && k < a->npoints);
			assert_int_equal(b->npoints, k);
		}
		res_runs_free(&pk);
	}
	res_runs_free(&full);
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/*
 * A device's rows by entry (blk_entries, schema 9) read through the
 * results root's index as parsed: names, entries and figures.
 */
static void test_blk_entries_index(void **state)
{
	(void)state;
	char dir[] = "/tmp/jm-res-runs-blk.XXXXXX", err[512] = "", p[256];
	json_error_t je;
	assert_non_null(mkdtemp(dir));
	json_t *doc = json_load_file("tests/data/runs/v2-ab-bfq.json", 0, &je);
	assert_non_null(doc);
	json_t *dev = json_object_get(json_object_get(json_array_get(json_object_get(doc, "points"),
								       0), "devices"), "loop0");
	json_object_set_new(dev, "blk_entries", json_pack(
		"{s:{s:i, s:i, s:i, s:n, s:n, s:f, s:f}, s:{s:i, s:i, s:i, s:n, s:n, s:f, s:f}}",
		"other", "requests", 12, "reads", 0, "writes", 12, "sched_p50_ms", "sched_p99_ms",
		"dev_p50_ms", 0.5, "dev_p99_ms", 2.5,
		"dwr", "requests", 5210, "reads", 0, "writes", 5210, "sched_p50_ms", "sched_p99_ms",
		"dev_p50_ms", 0.08, "dev_p99_ms", 0.53));
	snprintf(p, sizeof(p), "%s/run-0", dir);
	assert_int_equal(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/run-0/run.json", dir);
	assert_int_equal(json_dump_file(doc, p, 0), 0);
	json_decref(doc);
	char *paths[] = { dir };
	for (int pass = 0; pass < 2; pass++) {   /* parsed (the index built), then from it */
		struct res_runs rs;
		assert_int_equal(res_runs_load_parts(&rs, paths, 1, RES_RUNS_POINTS, NULL, NULL, NULL,
						     NULL, err, sizeof(err)), 0);
		res_index_settle(true);
		assert_int_equal(rs.index.hits, pass ? 1 : 0);
		assert_int_equal(rs.n, 1);
		const struct res_dev *d = &rs.run[0].points[0].devs[0];
		assert_non_null(d->blk);
		assert_int_equal(d->blk->nent, 2);
		assert_string_equal(d->blk->ent[0].name, "other");
		assert_int_equal(d->blk->ent[0].entry, -1);
		assert_string_equal(d->blk->ent[1].name, "dwr");
		assert_int_equal(d->blk->ent[1].entry, 0);
		assert_int_equal(d->blk->ent[1].requests, 5210);
		assert_true(d->blk->ent[1].dev_p99_ms == 0.53);
		res_runs_free(&rs);
	}
	snprintf(p, sizeof(p), "rm -rf '%s'", dir);
	assert_int_equal(system(p), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_files),
		cmocka_unit_test(test_warnings),
		cmocka_unit_test(test_missing),
		cmocka_unit_test(test_blk_entries_index),
		cmocka_unit_test(test_run_level),
		cmocka_unit_test(test_peak_points),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
