// SPDX-License-Identifier: GPL-2.0-only
/*
 * The metric names printed anywhere come from rep_metrics[]
 * (src/report/metric.c): rep_metric_names lists every row, and an unknown
 * metric's message names every group, naming the file when one is missing.
 * The --metric help that shows the list: tests/e2e/metric-names.sh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "jobmix/report.h"

/* Every row of rep_metrics[] in the list, by the part after its group. */
static void test_names_list_every_metric(void **state)
{
	(void)state;
	char names[2048];
	assert_true(rep_metric_names(names, sizeof(names), false) < sizeof(names));
	for (const struct rep_metric *m = rep_metrics; m->name; m++) {
		const char *tail = strchr(m->name, '.');
		tail = m->src == REP_MS_ENTRY || !tail ? m->name : tail + 1;
		if (!strstr(names, tail))
			fail_msg("rep_metric_names lacks %s (%s)", m->name, names);
	}
	assert_non_null(strstr(names, "ENTRY."));
	assert_non_null(strstr(names, "|extents"));
	assert_non_null(strstr(names, "mem.cache_hit_pct|peak_bytes|refault_s"));
}

/* An unknown metric: the message names every group, and each name parses. */
static void test_unknown_metric_names_groups(void **state)
{
	(void)state;
	const struct rep_metric *m;
	char entry[64], err[512], name[96];
	assert_int_equal(rep_metric_parse("nosuch", &m, entry, sizeof(entry), err, sizeof(err)),
			 -1);
	for (const char *g = "cpu.*\0ENTRY.*\0dev[.DEVICE].*\0machine.*\0psi.*\0vm.*\0mem.*\0";
	     *g; g += strlen(g) + 1)
		if (!strstr(err, g))
			fail_msg("src/report/metric.c: '%s' lacks %s", err, g);
	for (const struct rep_metric *x = rep_metrics; x->name; x++) {
		snprintf(name, sizeof(name), "%s%s", x->src == REP_MS_ENTRY ? "w1." : "", x->name);
		if (rep_metric_parse(name, &m, entry, sizeof(entry), err, sizeof(err)))
			fail_msg("%s: %s", name, err);
		assert_ptr_equal(m, x);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_list_every_metric),
		cmocka_unit_test(test_unknown_metric_names_groups),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
