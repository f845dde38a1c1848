// SPDX-License-Identifier: GPL-2.0-only
/*
 * The intern pool (intern.h): one copy of each distinct string and blob,
 * equal by content, stable while the pool grows, blobs aligned for records.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "jobmix/intern.h"
#include "jobmix/results.h"

static void test_strings(void **state)
{
	(void)state;
	char a[] = "workloads/fserver.yaml", b[] = "workloads/fserver.yaml";
	const char *x = util_intern(a), *y = util_intern(b);
	assert_non_null(x);
	assert_ptr_equal(x, y);              /* equal content: one copy */
	assert_ptr_not_equal(x, a);          /* the pool's, not the caller's */
	assert_string_equal(x, a);
	a[0] = 'W';                          /* the caller's buffer changes: the copy does not */
	assert_string_equal(x, "workloads/fserver.yaml");
	assert_ptr_not_equal(util_intern(a), x);
	assert_string_equal(util_intern(NULL), "");
	assert_string_equal(util_istr(NULL), "");
	assert_ptr_equal(util_intern_n("abcdef", 3), util_intern("abc"));
}

/* 50,000 distinct strings (the pool grows many times): each still found, unmoved. */
static void test_growth(void **state)
{
	(void)state;
	enum { N = 50000 };
	static const char *first[N];
	char buf[64];
	for (int i = 0; i < N; i++) {
		snprintf(buf, sizeof(buf), "results/2026%05d/run.json", i);
		first[i] = util_intern(buf);
		assert_non_null(first[i]);
	}
	for (int i = 0; i < N; i += 7) {
		snprintf(buf, sizeof(buf), "results/2026%05d/run.json", i);
		assert_ptr_equal(util_intern(buf), first[i]);
		assert_string_equal(first[i], buf);
	}
	assert_true(util_intern_bytes() > (size_t)N * 24);
}

/* Lists of records as blobs: equal bytes one copy, aligned for the record, other bytes another. */
static void test_blobs(void **state)
{
	(void)state;
	struct res_setting s[2], t[2];
	memset(s, 0, sizeof(s));
	snprintf(s[0].key, sizeof(s[0].key), "files.filesize");
	snprintf(s[0].value, sizeof(s[0].value), "10240");
	snprintf(s[1].key, sizeof(s[1].key), "users.jobs_per_user");
	snprintf(s[1].value, sizeof(s[1].value), "100");
	s[1].fp = true;
	memcpy(t, s, sizeof(s));
	const void *a = util_intern_blob(s, sizeof(s)), *b = util_intern_blob(t, sizeof(t));
	assert_non_null(a);
	assert_ptr_equal(a, b);
	assert_int_equal((uintptr_t)a % 16, 0);
	assert_memory_equal(a, s, sizeof(s));
	t[1].fp = false;
	const void *c = util_intern_blob(t, sizeof(t));
	assert_ptr_not_equal(c, a);
	assert_int_equal((uintptr_t)c % 16, 0);
	assert_memory_equal(a, s, sizeof(s));   /* the first copy untouched */
	assert_null(util_intern_blob(s, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_growth),
		cmocka_unit_test(test_blobs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
