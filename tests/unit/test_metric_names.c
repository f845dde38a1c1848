// SPDX-License-Identifier: GPL-2.0-only
/*
 * The metric names printed anywhere come from rep_metrics[]
 * (src/report/metric.c): rep_metric_names lists every row, the --metric
 * help of report, compare, plot and history (src/cli/reporting.c) shows
 * that list, and an unknown metric's message names every group.  A
 * metric added to the table and missing from one of them fails here,
 * naming the file.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "jobmix/opt.h"
#include "jobmix/report.h"
#include "../../src/cli/reporting.h"

/* The help's lines joined again: a break after '|' was nothing, another a space. */
static void unwrap(const char *help, char *out, size_t len)
{
	size_t o = 0;
	for (const char *c = help; *c && o + 1 < len; c++)
		if (*c != '\n')
			out[o++] = *c;
		else if (c > help && c[-1] != '|')
			out[o++] = ' ';
	out[o] = 0;
}

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

/* --metric's help (src/cli/reporting.c) shows the table's list, whole. */
static void test_metric_help_is_the_table(void **state)
{
	(void)state;
	char names[2048], help[4096];
	const struct opt *o = NULL;
	rep_metric_names(names, sizeof(names), false);
	for (size_t i = 0; i < rep_common_opts.n; i++)
		if (rep_common_opts.opt[i].name && !strcmp(rep_common_opts.opt[i].name, "metric"))
			o = &rep_common_opts.opt[i];
	assert_non_null(o);
	unwrap(o->help, help, sizeof(help));
	if (!strstr(help, names))
		fail_msg("src/cli/reporting.c: --metric's help does not list rep_metrics[] (%s); "
			 "it says: %s", names, help);
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
		cmocka_unit_test(test_metric_help_is_the_table),
		cmocka_unit_test(test_unknown_metric_names_groups),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
