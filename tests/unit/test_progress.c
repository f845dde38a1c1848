// SPDX-License-Identifier: GPL-2.0-only
/*
 * The run's closing lines (src/display/progress.c, prog_finish) against the
 * summary they print: one answer (issue 42, docs/ramps.md), the same peak,
 * range, interval and quick convergence as run.json's summary; and a
 * point's entry line (prog_point_done) against run.json's read_mb_s /
 * write_mb_s (rec_point): one MB/s formula.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobmix/progress.h"
#include "jobmix/run_record.h"

/* prog_finish's plain lines for s, malloc'd. */
static char *closing(const struct ramp_summary *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	struct prog p = { .style = PROG_PLAIN, .out = f, .run_dir = "/r", .t_start = prog_now_ns() };
	prog_finish(&p, "complete", s, NULL, 9);
	fclose(f);
	return buf;
}

/* How many lines of text start with prefix. */
static unsigned lines_with(const char *text, const char *prefix)
{
	unsigned n = 0;
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		n += strncmp(l, prefix, strlen(prefix)) == 0;
	return n;
}

/*
 * A beaten peak: since issue 42 the summary's peak is the count that beat
 * the search's (best == peak).  The console printed it twice, first as "the
 * peak search's" (it is not: the search's peak is gone from the summary),
 * then as "best point of the ramp".  Once, as the best point, no claim.
 */
static void test_beaten_once(void **state)
{
	(void)state;
	struct ramp_summary s = { .have_peak = true, .peak_users = 126, .peak_jpm = 12248.1,
				  .best_users = 126, .best_jpm = 12248.1, .peak_beaten = true,
				  .stop_reason = RAMP_MAX_TIME, .peak_wanted = true };
	char *out = closing(&s);
	print_message("%s", out);
	assert_int_equal(lines_with(out, "best point: 12248.1 JPM at 126 users"), 1);
	assert_int_equal(lines_with(out, "best point"), 1);
	assert_int_equal(lines_with(out, "peak: not established (max_time)\n"), 1);
	assert_null(strstr(out, "the peak search's"));
	free(out);
}

/* An established peak: its range, interval and quick convergence as the summary has them. */
static void test_established(void **state)
{
	(void)state;
	struct ramp_summary s = { .have_peak = true, .peak_users = 16, .peak_jpm = 50000,
				  .best_users = 16, .best_jpm = 50000, .peak_established = true,
				  .peak_users_lo = 9, .peak_users_hi = 31, .peak_ci_lo = 48000,
				  .peak_ci_hi = 52000, .noise_rel = 0.03, .noise_df = 4,
				  .have_converge = true, .converge_users = 700,
				  .converge_jpm = 41000, .converge_threshold = 60,
				  .stop_reason = RAMP_DONE, .peak_wanted = true, .converge_wanted = true };
	char *out = closing(&s);
	print_message("%s", out);
	assert_int_equal(lines_with(out, "peak: 50000.0 JPM at 16 users\n"), 1);
	assert_int_equal(lines_with(out, "within the noise of it: 9 to 31 users\n"), 1);
	free(out);
	/* an open top: the range ends at the search's ceiling, and says so */
	s.peak_users_hi = 4096;
	s.last_users = 700;
	out = closing(&s);
	assert_int_equal(lines_with(out, "within the noise of it: 9 to 4096 users (the search's "
					 "ceiling: nothing measured above 700 users is below it)\n"), 1);
	assert_int_equal(lines_with(out, "the peak's 95% interval: 48000.0 to 52000.0 JPM\n"), 1);
	assert_int_equal(lines_with(out, "quick convergence: 41000.0 JPM at 700 users\n"), 1);
	assert_int_equal(lines_with(out, "best point"), 0);
	free(out);
}

/* The MB/s a point's entry line prints after `what` ("read"/"write"); NAN when absent. */
static double line_mb_s(const char *text, const char *what)
{
	char key[32];
	snprintf(key, sizeof(key), "  %s ", what);
	const char *at = strstr(text, key);
	return at ? strtod(at + strlen(key), NULL) : NAN;
}

/*
 * An entry whose reads and writes took part of its job time (phases timed)
 * and one with no phase timed: the progress line's MB/s and run.json's are
 * the same figure (to the line's one decimal), and the one formula's.
 */
static void test_mb_s_one_formula(void **state)
{
	(void)state;
	static const struct job_io io[] = {
		{ .rbytes = 734003200, .wbytes = 91750400, .rtime_ns = 1700000000ull,
		  .wtime_ns = 900000000ull },
		{ .rbytes = 52428800, .wbytes = 3145728 },
	};
	for (size_t i = 0; i < sizeof(io) / sizeof(io[0]); i++) {
		struct load_entry_stats e = { .runs = 40, .io = io[i] };
		e.lat.count = 40;
		e.lat.sum_ns = 5200000000ull;
		struct load_point pt = { .users = 4, .jobs = 40, .elapsed_s = 1.9, .nentries = 1,
					 .entries = &e };
		struct wl_entry mix = { .name = "rw" };
		struct workload wl = { .mix = &mix, .nmix = 1 };
		struct res_point o;
		assert_int_equal(rec_point(&pt, 0, NULL, &o), 0);
		assert_int_equal(o.nkinds, 1);
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		assert_non_null(f);
		struct prog p = { .style = PROG_PLAIN, .out = f, .verbosity = 1,
				  .t_start = prog_now_ns() };
		prog_point_done(&p, &pt, &wl);
		fclose(f);
		double job = 5.2, rt = io[i].rtime_ns ? 1.7 : job, wt = io[i].wtime_ns ? 0.9 : job;
		double want_r = (double)io[i].rbytes / 1e6 * (job / 1.9) / (rt < job ? rt : job);
		double want_w = (double)io[i].wbytes / 1e6 * (job / 1.9) / (wt < job ? wt : job);
		assert_float_equal(o.kinds[0].read_mb_s, want_r, 1e-9 * want_r);
		assert_float_equal(o.kinds[0].write_mb_s, want_w, 1e-9 * want_w);
		assert_float_equal(line_mb_s(buf, "read"), o.kinds[0].read_mb_s, 0.05 + 1e-9);
		assert_float_equal(line_mb_s(buf, "write"), o.kinds[0].write_mb_s, 0.05 + 1e-9);
		free(buf);
		res_kinds_free(o.kinds, o.nkinds);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_beaten_once),
		cmocka_unit_test(test_established),
		cmocka_unit_test(test_mb_s_one_formula),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
