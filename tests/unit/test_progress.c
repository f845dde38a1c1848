// SPDX-License-Identifier: GPL-2.0-only
/*
 * The run's closing lines (src/display/progress.c, prog_finish) against the
 * summary they print: one answer (issue 42, docs/ramps.md), the same peak,
 * range, interval and quick convergence as run.json's summary.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobmix/progress.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_beaten_once),
		cmocka_unit_test(test_established),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
