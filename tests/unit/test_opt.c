// SPDX-License-Identifier: GPL-2.0-only
/*
 * Option tables (opt.h): the getopt arrays built from a table (letters,
 * argument colons, a prefix, -h/--help, help-only and shared rows), parsing
 * through them, the --help layout (the description column, one space when
 * the label ends just short of it, the next line when it does not fit,
 * continuation lines, headings, flat tables, hidden rows), lookups by name
 * and id, the completion values, and a table too large refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobmix/opt.h"

enum { T_ALPHA = 'a', T_BETA = 'b', T_CHI = 'c', T_LONG = OPT_LONG_ID, T_SHARED, T_OTHER };

enum { MINE = 1, THEIRS = 2 };

static const struct opt shared_rows[] = {
	{ .id = T_SHARED, .name = "shared", .arg = OPT_REQUIRED, .metavar = "S",
	  .help = "for everyone", .values = "x y" },
	{ .id = T_OTHER, .name = "theirs", .arg = OPT_NONE, .help = "not mine", .only = THEIRS },
};
static const struct opt_list shared = OPT_LIST(shared_rows);

static const struct opt rows[] = {
	{ .arg = OPT_ROW, .metavar = "PATH", .help = "where" },
	{ .id = T_ALPHA, .letter = 'a', .name = "alpha", .arg = OPT_NONE, .help = "a flag" },
	{ .id = T_BETA, .letter = 'b', .name = "beta", .arg = OPT_REQUIRED, .metavar = "N",
	  .help = "two lines:\nthe second", .values = "one two  three" },
	{ .id = T_CHI, .letter = 'c', .arg = OPT_OPTIONAL, .metavar = "K", .help = "optional" },
	{ .include = &shared, .mask = MINE },
	{ .id = T_LONG, .name = "a-very-long-option", .arg = OPT_REQUIRED, .metavar = "VALUE",
	  .help = "does not fit", .section = "Heading:" },
	{ .arg = OPT_ROW, .name = "beta", .metavar = "N", .help = "told again" },
	{ .id = 'z', .letter = 'z', .arg = OPT_NONE, .hidden = true, .help = "secret" },
};

static const struct opt_cmd cmd = {
	.name = "t",
	.synopsis = "usage: t [options]\n",
	.footer = "end\n",
	.rows = OPT_LIST(rows),
	.col = 18,
	.getopt_prefix = ":",
};

static char *usage_text(const struct opt_cmd *c)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	assert_non_null(m);
	opt_usage(m, c);
	assert_int_equal(fclose(m), 0);
	return text;
}

/* The rows a command sees: its own, the shared ones for its bit, in order. */
static void test_iter(void **state)
{
	(void)state;
	struct opt_iter it = { 0 };
	const struct opt *o;
	const char *seen[16];
	size_t n = 0;
	while ((o = opt_next(&cmd, &it)) && n < 16)
		seen[n++] = o->name ? o->name : o->metavar;
	assert_int_equal(n, 8);
	assert_string_equal(seen[0], "PATH");
	assert_string_equal(seen[3], "K");
	assert_string_equal(seen[4], "shared");
	assert_string_equal(seen[5], "a-very-long-option");   /* "theirs" is not MINE */
}

/* getopt's arrays: letters with their colons, the prefix, -h/--help; rows and others' left out. */
static void test_build_and_parse(void **state)
{
	(void)state;
	struct opt_parser p;
	assert_int_equal(opt_build(&p, &cmd), 0);
	assert_string_equal(p.shorts, ":ab:c::zh");
	const char *want[] = { "alpha", "beta", "shared", "a-very-long-option", "help" };
	size_t n = 0;
	for (; p.longs[n].name; n++) {
		assert_true(n < 5);
		assert_string_equal(p.longs[n].name, want[n]);
	}
	assert_int_equal(n, 5);
	assert_int_equal(p.longs[1].has_arg, required_argument);
	assert_int_equal(p.longs[2].val, T_SHARED);
	assert_int_equal(p.longs[4].val, 'h');

	char *argv[] = { "t", "--beta=5", "-a", "-c7", "--shared", "s", "file", "--a-very-long-option",
			 "v", "-h", NULL };
	int argc = 10, c, got[8], ng = 0;
	optind = 1;
	while ((c = opt_getopt(&p, argc, argv)) != -1 && ng < 8)
		got[ng++] = c;
	assert_int_equal(ng, 6);
	assert_int_equal(got[0], T_BETA);
	assert_int_equal(got[1], T_ALPHA);
	assert_int_equal(got[2], T_CHI);
	assert_int_equal(got[3], T_SHARED);
	assert_int_equal(got[4], T_LONG);
	assert_int_equal(got[5], 'h');
	assert_int_equal(optind, argc - 1);
	assert_string_equal(argv[optind], "file");

	/* no_help: neither -h nor --help */
	struct opt_cmd bare = cmd;
	bare.no_help = true;
	bare.getopt_prefix = NULL;
	assert_int_equal(opt_build(&p, &bare), 0);
	assert_string_equal(p.shorts, "ab:c::z");
	assert_null(p.longs[4].name);
}

/* The help text as the commands always printed it. */
static void test_usage_layout(void **state)
{
	(void)state;
	char *text = usage_text(&cmd);
	assert_string_equal(text,
			    "usage: t [options]\n"
			    "  PATH            where\n"
			    "  -a, --alpha     a flag\n"
			    "  -b, --beta N    two lines:\n"
			    "                  the second\n"
			    "  -c[K]           optional\n"
			    "      --shared S  for everyone\n"
			    "Heading:\n"
			    "      --a-very-long-option VALUE\n"
			    "                  does not fit\n"
			    "      --beta N    told again\n"
			    "end\n");
	free(text);
	/* flat: long-only options in the first column; a label ending at col - 1: one space */
	static const struct opt flat_rows[] = {
		{ .id = T_LONG, .name = "keys", .arg = OPT_NONE, .help = "flat" },
		{ .id = T_OTHER, .name = "exactly", .arg = OPT_REQUIRED, .metavar = "X",
		  .help = "one space" },
	};
	struct opt_cmd flat = { .name = "f", .synopsis = "", .rows = OPT_LIST(flat_rows), .col = 14,
				.flat = true };
	text = usage_text(&flat);
	assert_string_equal(text, "  --keys      flat\n"
				  "  --exactly X one space\n");
	free(text);
}

static void test_find(void **state)
{
	(void)state;
	assert_int_equal(opt_find(&cmd, "-a")->id, T_ALPHA);
	assert_int_equal(opt_find(&cmd, "--beta")->id, T_BETA);
	assert_int_equal(opt_find(&cmd, "--beta=3")->id, T_BETA);
	assert_int_equal(opt_find(&cmd, "--shared")->id, T_SHARED);
	assert_null(opt_find(&cmd, "--bet"));          /* no prefixes */
	assert_null(opt_find(&cmd, "--theirs"));       /* another includer's */
	assert_null(opt_find(&cmd, "-ab"));
	assert_null(opt_find(&cmd, "-"));
	assert_null(opt_find(&cmd, "PATH"));
	assert_int_equal(opt_by_id(&cmd, T_LONG)->id, T_LONG);
	assert_string_equal(opt_by_id(&cmd, T_BETA)->help, "two lines:\nthe second");  /* not the row */
	assert_null(opt_by_id(&cmd, T_OTHER));
	const char *s = opt_said(opt_find(&cmd, "--beta"));
	assert_string_equal(s, "-b");
	assert_ptr_equal(opt_said(opt_find(&cmd, "-b")), s);
	assert_string_equal(opt_said(opt_find(&cmd, "--shared")), "--shared");
}

static void test_values(void **state)
{
	(void)state;
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	assert_non_null(m);
	assert_int_equal(opt_values(m, &cmd, "-b"), 0);
	assert_int_equal(opt_values(m, &cmd, "--shared"), 0);
	assert_int_equal(opt_values(m, &cmd, "--a-very-long-option"), 0);   /* a value, none offered */
	assert_int_equal(opt_values(m, &cmd, "--alpha"), -1);               /* a flag */
	assert_int_equal(opt_values(m, &cmd, "-c"), -1);                    /* optional: joined */
	assert_int_equal(opt_values(m, &cmd, "--nosuch"), -1);
	assert_int_equal(fclose(m), 0);
	assert_string_equal(text, "one\ntwo\nthree\nx\ny\n");
	free(text);
}

/* More options than OPT_MAX: refused, not overrun. */
static void test_too_many(void **state)
{
	(void)state;
	static struct opt many[OPT_MAX + 1];
	static char names[OPT_MAX + 1][8];
	for (int i = 0; i <= OPT_MAX; i++) {
		snprintf(names[i], sizeof(names[i]), "o%d", i);
		many[i] = (struct opt){ .id = OPT_LONG_ID + i, .name = names[i], .arg = OPT_NONE };
	}
	struct opt_cmd big = { .name = "big", .synopsis = "", .rows = { many, OPT_MAX + 1 } };
	struct opt_parser p;
	assert_int_equal(opt_build(&p, &big), -1);
	big.rows.n = OPT_MAX;
	assert_int_equal(opt_build(&p, &big), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_iter),
		cmocka_unit_test(test_build_and_parse),
		cmocka_unit_test(test_usage_layout),
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_too_many),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
