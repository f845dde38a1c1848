// SPDX-License-Identifier: GPL-2.0-only
/*
 * Scalar parsing shared by the loader, job parameters and the CLI: sizes,
 * integers, doubles, durations, booleans, size formatting and the
 * "did you mean" suggestions.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "jobmix/parse.h"

/* Parse a size that must be accepted; returns the value. */
static uint64_t size_ok(const char *s)
{
	uint64_t v = 12345;
	char err[128] = "";
	int rc = jm_parse_size(s, &v, err, sizeof(err));
	if (rc)
		print_error("'%s' rejected: %s\n", s, err);
	assert_int_equal(rc, 0);
	return v;
}

/* A size that must be rejected, with a message, leaving *out alone. */
static void size_bad(const char *s)
{
	uint64_t v = 777;
	char err[128] = "";
	if (!jm_parse_size(s, &v, err, sizeof(err)))
		print_error("'%s' accepted as %llu\n", s ? s : "(null)", (unsigned long long)v);
	assert_int_equal(jm_parse_size(s, &v, err, sizeof(err)), -1);
	assert_true(strlen(err) > 0);
	assert_int_equal(v, 777);
}

static void test_size_plain_and_suffixes(void **state)
{
	(void)state;
	assert_int_equal(size_ok("0"), 0);
	assert_int_equal(size_ok("512"), 512);
	assert_int_equal(size_ok("4k"), 4096);
	assert_int_equal(size_ok("16m"), 16ull << 20);
	assert_int_equal(size_ok("2g"), 2ull << 30);
	assert_int_equal(size_ok("1t"), 1ull << 40);
	/* case-insensitive, optional b / ib */
	assert_int_equal(size_ok("4K"), 4096);
	assert_int_equal(size_ok("16M"), 16ull << 20);
	assert_int_equal(size_ok("3G"), 3ull << 30);
	assert_int_equal(size_ok("1T"), 1ull << 40);
	assert_int_equal(size_ok("4kib"), 4096);
	assert_int_equal(size_ok("4KiB"), 4096);
	assert_int_equal(size_ok("4kb"), 4096);
	assert_int_equal(size_ok("100b"), 100);
	/* largest values that fit */
	assert_true(size_ok("18446744073709551615") == UINT64_MAX);
	assert_true(size_ok("16777215t") == 16777215ull << 40);
}

static void test_size_rejects(void **state)
{
	(void)state;
	size_bad("");
	size_bad(NULL);
	size_bad("k");
	size_bad("-1");
	size_bad("-4k");
	size_bad("4x");
	size_bad("4kk");
	size_bad("4 k");
	size_bad("1.5k");
	size_bad("16ib");      /* 'i' only after a suffix */
	size_bad("abc");
	size_bad("0x10");
	/* overflow: of the number itself and of the shift */
	size_bad("18446744073709551616");
	size_bad("99999999999999999999999");
	size_bad("16777216t");
	size_bad("18014398509481984k");
}

static void test_int_ranges(void **state)
{
	(void)state;
	int64_t v = 0;
	char err[128];
	assert_int_equal(jm_parse_int("42", 0, 100, &v, err, sizeof(err)), 0);
	assert_int_equal(v, 42);
	assert_int_equal(jm_parse_int("-5", -10, 10, &v, err, sizeof(err)), 0);
	assert_int_equal(v, -5);
	assert_int_equal(jm_parse_int("0", 0, 0, &v, err, sizeof(err)), 0);
	assert_int_equal(v, 0);
	/* bounds are inclusive */
	assert_int_equal(jm_parse_int("1", 1, 4096, &v, err, sizeof(err)), 0);
	assert_int_equal(jm_parse_int("4096", 1, 4096, &v, err, sizeof(err)), 0);
	assert_int_equal(v, 4096);
	v = 99;
	assert_int_equal(jm_parse_int("0", 1, 4096, &v, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "out of range"));
	assert_int_equal(jm_parse_int("4097", 1, 4096, &v, err, sizeof(err)), -1);
	assert_int_equal(jm_parse_int("-1", 0, 10, &v, err, sizeof(err)), -1);
	assert_int_equal(v, 99);
	/* overflow of int64 is out of range, not a wrapped value */
	assert_int_equal(jm_parse_int("9223372036854775808", INT64_MIN, INT64_MAX, &v, err,
				      sizeof(err)), -1);
	assert_int_equal(jm_parse_int("9223372036854775807", INT64_MIN, INT64_MAX, &v, err,
				      sizeof(err)), 0);
	assert_true(v == INT64_MAX);
	/* garbage */
	assert_int_equal(jm_parse_int("", 0, 10, &v, err, sizeof(err)), -1);
	assert_int_equal(jm_parse_int("12abc", 0, 100, &v, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "expected an integer"));
	assert_int_equal(jm_parse_int("4k", 0, 100000, &v, err, sizeof(err)), -1);
	assert_int_equal(jm_parse_int("1.0", 0, 10, &v, err, sizeof(err)), -1);
}

static void test_double(void **state)
{
	(void)state;
	double v = 0;
	char err[128];
	assert_int_equal(jm_parse_double("1.5", 0.01, 100, &v, err, sizeof(err)), 0);
	assert_true(v == 1.5);
	assert_int_equal(jm_parse_double("100", 0.01, 100, &v, err, sizeof(err)), 0);
	assert_int_equal(jm_parse_double("0.001", 0.01, 100, &v, err, sizeof(err)), -1);
	assert_int_equal(jm_parse_double("nan", 0, 100, &v, err, sizeof(err)), -1);
	assert_int_equal(jm_parse_double("inf", 0, 1e300, &v, err, sizeof(err)), -1);
	assert_int_equal(jm_parse_double("1.5x", 0, 100, &v, err, sizeof(err)), -1);
	assert_int_equal(jm_parse_double("", 0, 100, &v, err, sizeof(err)), -1);
}

static void test_duration(void **state)
{
	(void)state;
	double v = -1;
	char err[128];
	static const struct { const char *s; double want; } ok[] = {
		{ "30s", 30 }, { "45", 45 }, { "2m", 120 }, { "2min", 120 }, { "1h", 3600 },
		{ "500ms", 0.5 }, { "0", 0 }, { "0s", 0 }, { "1.5s", 1.5 }, { "10m", 600 },
	};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		v = -1;
		int rc = jm_parse_duration(ok[i].s, &v, err, sizeof(err));
		if (rc)
			print_error("'%s': %s\n", ok[i].s, err);
		assert_int_equal(rc, 0);
		assert_true(v == ok[i].want);
	}
	static const char *const bad[] = { "", "s", "-1s", "-5", "10x", "10 minutes", "1d",
					   "soon", "nan", NULL };
	for (size_t i = 0; bad[i]; i++) {
		v = 77;
		err[0] = 0;
		if (!jm_parse_duration(bad[i], &v, err, sizeof(err)))
			print_error("'%s' accepted as %g\n", bad[i], v);
		assert_int_equal(jm_parse_duration(bad[i], &v, err, sizeof(err)), -1);
		assert_true(strlen(err) > 0);
		assert_true(v == 77);
	}
	/* capped at a year: past it nanosecond deadlines overflow (every point failed at once) */
	assert_int_equal(jm_parse_duration("8784h", &v, err, sizeof(err)), 0);
	assert_true(v == JM_DURATION_MAX);
	static const char *const longer[] = { "5200000h", "1e300h", "8785h", "31622401", "1e20ms",
					      NULL };
	for (size_t i = 0; longer[i]; i++) {
		v = 77;
		if (!jm_parse_duration(longer[i], &v, err, sizeof(err)))
			print_error("'%s' accepted as %g s\n", longer[i], v);
		assert_int_equal(jm_parse_duration(longer[i], &v, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "longer than a year (at most 8784h)"));
		assert_non_null(strstr(err, longer[i]));
		assert_true(v == 77);
	}
}

static void test_bool(void **state)
{
	(void)state;
	bool v;
	char err[128];
	static const char *const yes[] = { "true", "True", "YES", "yes", "on", "On", "1", NULL };
	static const char *const no[] = { "false", "FALSE", "no", "No", "off", "OFF", "0", NULL };
	for (size_t i = 0; yes[i]; i++) {
		v = false;
		assert_int_equal(jm_parse_bool(yes[i], &v, err, sizeof(err)), 0);
		assert_true(v);
	}
	for (size_t i = 0; no[i]; i++) {
		v = true;
		assert_int_equal(jm_parse_bool(no[i], &v, err, sizeof(err)), 0);
		assert_false(v);
	}
	static const char *const bad[] = { "", "maybe", "y", "2", "truefalse", NULL };
	for (size_t i = 0; bad[i]; i++)
		assert_int_equal(jm_parse_bool(bad[i], &v, err, sizeof(err)), -1);
	assert_int_equal(jm_parse_bool(NULL, &v, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "true or false"));
}

static void test_format_size(void **state)
{
	(void)state;
	static const struct { uint64_t v; const char *want; } cases[] = {
		{ 0, "0" }, { 1, "1" }, { 1000, "1000" }, { 1023, "1023" }, { 1024, "1k" },
		{ 1536, "1536" }, { 10240, "10k" }, { 1u << 20, "1m" }, { 3ull << 30, "3g" },
		{ 1ull << 40, "1t" }, { 1ull << 50, "1024t" }, { (1ull << 20) + 1024, "1025k" },
		{ UINT64_MAX, "18446744073709551615" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[32];
		jm_format_size(cases[i].v, buf, sizeof(buf));
		assert_string_equal(buf, cases[i].want);
		/* what is printed parses back to the same bytes */
		assert_true(size_ok(buf) == cases[i].v);
	}
}

static void test_suggest(void **state)
{
	(void)state;
	static const char *const keys[] = { "job", "weight", "name", "filesize", "poolsize",
					    "jobs_per_user", NULL };
	assert_string_equal(jm_suggest("wieght", keys), "weight");
	assert_string_equal(jm_suggest("weigth", keys), "weight");
	assert_string_equal(jm_suggest("jo", keys), "job");
	assert_null(jm_suggest("jbo", keys));     /* a swap costs 2; too far for 3 letters */
	assert_string_equal(jm_suggest("jobs_per_usr", keys), "jobs_per_user");
	assert_string_equal(jm_suggest("filesiz", keys), "filesize");
	assert_string_equal(jm_suggest("name", keys), "name");
	/* the closest wins */
	assert_string_equal(jm_suggest("poolsiz", keys), "poolsize");
	/* nothing close: no suggestion */
	assert_null(jm_suggest("colour", keys));
	assert_null(jm_suggest("x", keys));
	assert_null(jm_suggest("frobnicate", keys));
	static const char *const none[] = { NULL };
	assert_null(jm_suggest("weight", none));

	assert_int_equal(jm_edit_distance("kitten", "sitting"), 3);
	assert_int_equal(jm_edit_distance("", "abc"), 3);
	assert_int_equal(jm_edit_distance("same", "same"), 0);
	assert_int_equal(jm_edit_distance("ab", "ba"), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_size_plain_and_suffixes),
		cmocka_unit_test(test_size_rejects),
		cmocka_unit_test(test_int_ranges),
		cmocka_unit_test(test_double),
		cmocka_unit_test(test_duration),
		cmocka_unit_test(test_bool),
		cmocka_unit_test(test_format_size),
		cmocka_unit_test(test_suggest),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
