// SPDX-License-Identifier: GPL-2.0-only
/*
 * The workload key table: every key reachable from a YAML file and from
 * the command line (-P), its default and range, the table's own shape, and
 * an explicit value kept over the default that depends on the mode.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "jobmix/wl_keys.h"
#include "jobmix/workload.h"
#include "jobmix/run.h"
#include "jobmix/run_record.h"

/* A value for k that is valid and not its default. */
static const char *sample(const struct wl_key *k)
{
	static const struct {
		const char *path, *value;
	} special[] = {
		{ "measure.ramp", "10s" },          /* below measure.duration */
		{ "measure.duration", "1h" },
		{ "users.end", "7" },               /* not below users.start */
		{ "users.as", "threads" },
	};
	for (size_t i = 0; i < sizeof(special) / sizeof(special[0]); i++)
		if (!strcmp(special[i].path, k->path))
			return special[i].value;
	switch (k->type) {
	case WK_SECTION: case WK_MIX: return NULL;
	case WK_NAME: return "other-name";
	case WK_TEXT: return "some words";
	case WK_UINT: return k->def && atof(k->def) == k->max ? "2" : "3";
	case WK_U64: return "18446744073709551615";
	case WK_SIZE: return "3m";
	case WK_DURATION: return "2h";
	case WK_BOOL: return k->def && !strcmp(k->def, "true") ? "false" : "true";
	case WK_ENUM: {
		int n = 0;
		while (k->choices[n])
			n++;
		return strcmp(k->choices[n - 1], k->def) ? k->choices[n - 1] : k->choices[0];
	}
	case WK_REAL: return "7.5";
	case WK_END: return "9";
	case WK_STEP: return "x3";
	case WK_REPEAT: return "auto";
	case WK_STEADY: return "jpm:4%";
	case WK_PCT: return "7%";
	case WK_DIRS: return "[/tmp/jm-k1, /tmp/jm-k2]";
	}
	return NULL;
}

/* YAML setting only path = value (nested under its section), with a mix. */
static void yaml_for(const char *path, const char *value, char *buf, size_t len)
{
	const char *dot = strchr(path, '.');
	if (!strcmp(path, "mix"))
		snprintf(buf, len, "mix: [{job: creat_clo, weight: 3}]\n");
	else if (dot)
		snprintf(buf, len, "%.*s:\n  %s: %s\nmix: [{job: creat_clo}]\n", (int)(dot - path), path,
			 dot + 1, value);
	else
		snprintf(buf, len, "%s: %s\nmix: [{job: creat_clo}]\n", path, value);
}

static void test_table_shape(void **state)
{
	(void)state;
	assert_true(wl_nkeys > 20 && wl_nkeys <= 64);
	for (size_t i = 0; i < wl_nkeys; i++) {
		const struct wl_key *k = &wl_keys[i];
		assert_non_null(k->help);
		assert_true(strlen(k->help) > 5);
		assert_string_not_equal(wl_key_type_name(k), "?");
		assert_ptr_equal(wl_key_find(k->path), k);
		for (size_t j = 0; j < i; j++) {
			assert_string_not_equal(wl_keys[j].path, k->path);
			if (k->json && wl_keys[j].json)
				assert_string_not_equal(wl_keys[j].json, k->json);
		}
		const char *dot = strrchr(k->path, '.');
		if (dot) {
			char parent[64];
			snprintf(parent, sizeof(parent), "%.*s", (int)(dot - k->path), k->path);
			const struct wl_key *p = wl_key_find(parent);
			assert_non_null(p);
			assert_int_equal(p->type, WK_SECTION);
			assert_true(p < k);
		}
		if (k->type == WK_ENUM)
			assert_non_null(k->choices);
		/* every key but the name (from the file name) and the sections has a default */
		if (k->type != WK_SECTION && k->type != WK_MIX && strcmp(k->path, "name"))
			assert_non_null(k->def);
	}
	assert_null(wl_key_find("users.nope"));
	assert_string_equal(wl_key_suggest("users.strat"), "users.start");
}

static void test_defaults(void **state)
{
	(void)state;
	struct workload wl = { 0 }, one = { 0 };
	char a[256], b[256], err[256];
	assert_int_equal(wl_defaults(&wl, "dir/some.yaml"), 0);
	assert_string_equal(wl.name, "some");
	assert_int_equal(wl.set, 0);
	for (size_t i = 0; i < wl_nkeys; i++) {
		const struct wl_key *k = &wl_keys[i];
		if (!k->def || k->type == WK_DIRS)
			continue;
		assert_int_equal(wl_defaults(&one, "x"), 0);
		assert_int_equal(wl_key_set(k, &one, k->def, err, sizeof(err)), 0);
		wl_key_format(k, &wl, a, sizeof(a));
		wl_key_format(k, &one, b, sizeof(b));
		assert_string_equal(a, b);
		assert_false(wl_key_is_set(&wl, k));
		assert_true(wl_key_is_set(&one, k));
		wl_free(&one);
	}
	assert_int_equal(wl.ndirs, 1);
	assert_string_equal(wl.dirs[0], "./jobmix-work");
	assert_int_equal(wl.filesize, 10 * 1024);
	assert_int_equal(wl.poolsize, 1024 * 1024);
	assert_int_equal(wl.users.jobs_per_user, 100);
	assert_int_equal(wl.sync, JOB_SYNC_FILE);
	wl_free(&wl);

	/* a file with only a mix is the defaults, resolved */
	struct wl_error e;
	const char *text = "mix: [{job: creat_clo}]\n";
	assert_int_equal(wl_load_buffer("m.yaml", text, strlen(text), &wl, &e), 0);
	assert_int_equal(wl.users.end, 1);
	assert_int_equal(wl.users.step, 1);
	assert_true(wl.users.converge_jpm_per_user == 60);
	assert_int_equal(wl.set, 1ull << wl_key_index(wl_key_find("mix")));
	wl_free(&wl);
}

/* Every key from a file: loads, is marked set, holds the value; and its printed form loads back. */
static void test_every_key_from_yaml(void **state)
{
	(void)state;
	for (size_t i = 0; i < wl_nkeys; i++) {
		const struct wl_key *k = &wl_keys[i];
		const char *v = sample(k);
		char text[512], got[256];
		struct workload wl;
		struct wl_error err;
		if (k->type == WK_SECTION)
			continue;
		yaml_for(k->path, v ? v : "", text, sizeof(text));
		int rc = wl_load_buffer("k.yaml", text, strlen(text), &wl, &err);
		if (rc)
			print_error("%s: %s\n%s", k->path, err.msg, text);
		assert_int_equal(rc, 0);
		assert_true(wl_key_is_set(&wl, k));
		if (k->type == WK_DIRS) {
			assert_int_equal(wl.ndirs, 2);
			assert_string_equal(wl.dirs[1], "/tmp/jm-k2");
		} else if (k->type == WK_MIX) {
			assert_int_equal(wl.mix[0].weight, 3);
		} else {
			wl_key_format(k, &wl, got, sizeof(got));
			if (k->type == WK_SIZE)
				assert_string_equal(got, "3m");
			else if (k->type != WK_DURATION)
				assert_string_equal(got, v);
			if (k->def)
				assert_string_not_equal(got, k->def);
		}
		/* printed resolved, it loads back to the same value */
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		wl_print(f, &wl);
		fclose(f);
		struct workload back;
		rc = wl_load_buffer("k2.yaml", buf, len, &back, &err);
		if (rc)
			print_error("%s: %s\n%s", k->path, err.msg, buf);
		assert_int_equal(rc, 0);
		char x[256], y[256];
		wl_key_format(k, &wl, x, sizeof(x));
		wl_key_format(k, &back, y, sizeof(y));
		assert_string_equal(x, y);
		free(buf);
		wl_free(&back);
		wl_free(&wl);
	}
}

/* run_apply_overrides with these settings (the command line's -P and options). */
static int overrides(struct workload *wl, const struct run_set *sets, size_t n)
{
	struct run_args a = { .sets = sets, .nsets = n };
	char err[512];
	return run_apply_overrides(&a, wl, err, sizeof(err));
}

/* Every scalar key from the command line, -P KEY=VALUE, through run_apply_overrides. */
static void test_every_key_from_cli(void **state)
{
	(void)state;
	for (size_t i = 0; i < wl_nkeys; i++) {
		const struct wl_key *k = &wl_keys[i];
		const char *v = sample(k);
		if (k->type == WK_SECTION || k->type == WK_MIX || k->type == WK_DIRS)
			continue;
		struct workload wl;
		struct wl_error err;
		const char *text = "mix: [{job: creat_clo}]\n";
		assert_int_equal(wl_load_buffer("c.yaml", text, strlen(text), &wl, &err), 0);
		struct run_set sets[2];
		size_t n = 0;
		sets[n++] = (struct run_set){ k->path, v, "-P" };
		if (!strcmp(k->path, "users.end"))
			sets[n++] = (struct run_set){ "users.start", "2", "-P" };
		assert_int_equal(overrides(&wl, sets, n), 0);
		assert_true(wl_key_is_set(&wl, k));
		wl_free(&wl);
	}
}

/* Bounds: min and max accepted, one beyond refused, with the key named. */
static void test_ranges(void **state)
{
	(void)state;
	char lo[64], hi[64], err[256];
	for (size_t i = 0; i < wl_nkeys; i++) {
		const struct wl_key *k = &wl_keys[i];
		struct workload wl = { 0 };
		assert_int_equal(wl_defaults(&wl, "r"), 0);
		switch (k->type) {
		case WK_UINT: case WK_END: case WK_REPEAT: case WK_STEP:
		case WK_SIZE:
			snprintf(lo, sizeof(lo), "%.0f", k->min);
			snprintf(hi, sizeof(hi), "%.0f", k->max);
			assert_int_equal(wl_key_set(k, &wl, lo, err, sizeof(err)), 0);
			assert_int_equal(wl_key_set(k, &wl, hi, err, sizeof(err)), 0);
			snprintf(hi, sizeof(hi), "%.0f", k->max + 1);
			assert_int_equal(wl_key_set(k, &wl, hi, err, sizeof(err)), -1);
			assert_non_null(strstr(err, strrchr(k->path, '.') ? strrchr(k->path, '.') + 1 : k->path));
			if (k->min > 0) {
				snprintf(lo, sizeof(lo), "%.0f", k->min - 1);
				assert_int_equal(wl_key_set(k, &wl, lo, err, sizeof(err)), -1);
			}
			assert_int_equal(wl_key_set(k, &wl, "-1", err, sizeof(err)), -1);
			assert_non_null(strstr(err, "negative"));
			break;
		case WK_DURATION:
			assert_int_equal(wl_key_set(k, &wl, "31622401s", err, sizeof(err)), -1);
			assert_int_equal(wl_key_set(k, &wl, "0", err, sizeof(err)), k->min > 0 ? -1 : 0);
			break;
		case WK_REAL:
			assert_int_equal(wl_key_set(k, &wl, "0", err, sizeof(err)), -1);
			assert_int_equal(wl_key_set(k, &wl, "1000000001", err, sizeof(err)), -1);
			assert_int_equal(wl_key_set(k, &wl, "0.5", err, sizeof(err)), 0);
			break;
		case WK_ENUM:
			assert_int_equal(wl_key_set(k, &wl, "bogus", err, sizeof(err)), -1);
			assert_non_null(strstr(err, k->choices[0]));
			break;
		case WK_BOOL:
			assert_int_equal(wl_key_set(k, &wl, "maybe", err, sizeof(err)), -1);
			break;
		case WK_STEADY:
			assert_int_equal(wl_key_set(k, &wl, "jpm:101%", err, sizeof(err)), -1);
			assert_int_equal(wl_key_set(k, &wl, "jpm:100%", err, sizeof(err)), 0);
			break;
		case WK_PCT:
			snprintf(lo, sizeof(lo), "%g%%", k->min);
			snprintf(hi, sizeof(hi), "%g", k->max);
			assert_int_equal(wl_key_set(k, &wl, lo, err, sizeof(err)), 0);
			assert_int_equal(wl_key_set(k, &wl, hi, err, sizeof(err)), 0);
			assert_int_equal(wl_key_set(k, &wl, "off", err, sizeof(err)), 0);
			assert_true(*(double *)((char *)&wl + k->offset) == 0);
			snprintf(lo, sizeof(lo), "%g%%", k->min / 2);
			assert_int_equal(wl_key_set(k, &wl, lo, err, sizeof(err)), -1);
			assert_non_null(strstr(err, lo));   /* the value named */
			snprintf(hi, sizeof(hi), "%g%%", k->max + 1);
			assert_int_equal(wl_key_set(k, &wl, hi, err, sizeof(err)), -1);
			assert_non_null(strstr(err, hi));
			assert_int_equal(wl_key_set(k, &wl, "3x", err, sizeof(err)), -1);
			assert_non_null(strstr(err, "'3x'"));
			assert_int_equal(wl_key_set(k, &wl, "-3%", err, sizeof(err)), -1);
			assert_int_equal(wl_key_set(k, &wl, "%", err, sizeof(err)), -1);
			break;
		case WK_U64:
			assert_int_equal(wl_key_set(k, &wl, "18446744073709551616", err, sizeof(err)), -1);
			break;
		case WK_NAME:
			assert_int_equal(wl_key_set(k, &wl, "has space", err, sizeof(err)), -1);
			break;
		case WK_SECTION: case WK_DIRS: case WK_MIX:
			assert_int_equal(wl_key_set(k, &wl, "x", err, sizeof(err)), -1);
			break;
		case WK_TEXT:
			break;
		}
		wl_free(&wl);
	}
}

/* An explicit converge_jpm_per_user survives -m; the default follows it. */
static void test_converge_explicit(void **state)
{
	(void)state;
	struct workload wl;
	struct wl_error err;
	const char *explicit_60 = "users: {converge_jpm_per_user: 60}\nmix: [{job: creat_clo}]\n";
	const char *plain = "mix: [{job: creat_clo}]\n";
	const struct run_set o = { "users.mode", "crossover", "-m" };

	assert_int_equal(wl_load_buffer("e.yaml", explicit_60, strlen(explicit_60), &wl, &err), 0);
	assert_int_equal(overrides(&wl, &o, 1), 0);
	assert_int_equal(wl.users.mode, WL_RAMP_CROSSOVER);
	assert_true(wl.users.converge_jpm_per_user == 60);
	wl_free(&wl);

	assert_int_equal(wl_load_buffer("p.yaml", plain, strlen(plain), &wl, &err), 0);
	assert_int_equal(overrides(&wl, &o, 1), 0);
	assert_true(wl.users.converge_jpm_per_user == 10);
	assert_int_equal(wl.users.end, 0);   /* linear end is not an adaptive budget */
	wl_free(&wl);

	/* an unknown key is refused with a suggestion; a job parameter by entry name */
	assert_int_equal(wl_load_buffer("p.yaml", plain, strlen(plain), &wl, &err), 0);
	const struct run_set bad = { "users.strat", "2", "-P" };
	assert_int_equal(overrides(&wl, &bad, 1), 2);
	wl_free(&wl);
	const char *fio = "mix: [{job: fileio}]\n";
	assert_int_equal(wl_load_buffer("f.yaml", fio, strlen(fio), &wl, &err), 0);
	const struct run_set par = { "fileio.files", "3", "-P" };
	assert_int_equal(overrides(&wl, &par, 1), 0);
	assert_int_equal(wl.mix[0].set_mask & 2, 2);
	wl_free(&wl);
}

/* run.json's resolved workload: every key with a json name is there, typed. */
static void test_every_key_in_run_json(void **state)
{
	(void)state;
	struct workload wl;
	struct wl_error err;
	const char *text = "users: {step: x2, repeat: auto}\nmix: [{job: creat_clo}]\n";
	assert_int_equal(wl_load_buffer("j.yaml", text, strlen(text), &wl, &err), 0);
	json_t *o = rec_workload_json(&wl);
	assert_non_null(o);
	size_t n = 0;
	for (size_t i = 0; i < wl_nkeys; i++) {
		const struct wl_key *k = &wl_keys[i];
		if (!k->json)
			continue;
		const char *dot = strchr(k->json, '.');
		char parent[64];
		const json_t *v;
		if (dot) {
			snprintf(parent, sizeof(parent), "%.*s", (int)(dot - k->json), k->json);
			v = json_object_get(json_object_get(o, parent), dot + 1);
		} else {
			v = json_object_get(o, k->json);
		}
		if (!v)
			print_error("run.json lacks %s (%s)\n", k->json, k->path);
		assert_non_null(v);
		n++;
	}
	assert_true(n >= 25);
	assert_true(json_is_true(json_object_get(json_object_get(o, "users"), "geometric")));
	assert_true(json_is_true(json_object_get(json_object_get(o, "users"), "repeat_auto")));
	assert_int_equal(json_integer_value(json_object_get(o, "filesize")), 10240);
	assert_string_equal(json_string_value(json_object_get(json_object_get(o, "measure"), "how")),
			    "jobs");
	json_decref(o);
	wl_free(&wl);
}

/* The YAML writer import uses: nesting from the table, lists, unknown keys refused. */
static void test_yaml_keys(void **state)
{
	(void)state;
	char *buf = NULL;
	size_t len = 0;
	const char *bad;
	const struct wl_kv kv[] = {
		{ "sync", "exec" }, { "files.dirs", "/tmp/a b" }, { "users.start", "2" },
		{ "files.filesize", "20k" }, { "files.dirs", "/tmp/c" }, { "name", "x" },
		{ "description", "a: b" },
	};
	FILE *f = open_memstream(&buf, &len);
	assert_int_equal(wl_yaml_keys(f, kv, sizeof(kv) / sizeof(kv[0]), &bad), 0);
	fputs("mix: [{job: creat_clo}]\n", f);
	fclose(f);
	assert_string_equal(buf, "name: x\ndescription: \"a: b\"\nfiles:\n  filesize: 20k\n"
			    "  dirs:\n    - \"/tmp/a b\"\n    - \"/tmp/c\"\nusers:\n  start: 2\n"
			    "sync: exec\nmix: [{job: creat_clo}]\n");
	struct workload wl;
	struct wl_error err;
	assert_int_equal(wl_load_buffer("y.yaml", buf, len, &wl, &err), 0);
	assert_int_equal(wl.ndirs, 2);
	wl_free(&wl);
	free(buf);
	const struct wl_kv nope[] = { { "files.nope", "1" } }, sect[] = { { "users", "1" } };
	f = open_memstream(&buf, &len);
	assert_int_equal(wl_yaml_keys(f, nope, 1, &bad), -1);
	assert_string_equal(bad, "files.nope");
	assert_int_equal(wl_yaml_keys(f, sect, 1, &bad), -1);
	fclose(f);
	assert_int_equal(len, 0);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_shape),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_every_key_from_yaml),
		cmocka_unit_test(test_every_key_from_cli),
		cmocka_unit_test(test_ranges),
		cmocka_unit_test(test_converge_explicit),
		cmocka_unit_test(test_every_key_in_run_json),
		cmocka_unit_test(test_yaml_keys),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
