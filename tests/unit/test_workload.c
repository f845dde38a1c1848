// SPDX-License-Identifier: GPL-2.0-only
/*
 * The workload loader: good files resolve to the right values (explicit
 * ones kept, defaults filled), the printed form loads back to the same
 * workload, job counts and job file sizes follow AIM7, files that are not
 * regular files are refused without hanging, and every file in
 * tests/data/bad/ is rejected at the line and column its first line names:
 *
 *   # expect: LINE:COL: substring of the message
 *   # needs: fileio            (optional: skipped while that kind is absent)
 *
 * Run from the top of the tree (tests/run.sh does).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jobmix/job.h"
#include "jobmix/workload.h"

#define BAD_DIR "tests/data/bad"
#define GOOD_DIR "tests/data/good"

/* Load a file that must be valid. */
static void load_ok(const char *path, struct workload *wl)
{
	struct wl_error err;
	int rc = wl_load(path, wl, &err);
	if (rc)
		print_error("%s\n", err.msg);
	assert_int_equal(rc, 0);
}

/* Load YAML text that must be valid (named "mem.yaml" in messages). */
static void load_text_ok(const char *text, struct workload *wl)
{
	struct wl_error err;
	int rc = wl_load_buffer("mem.yaml", text, strlen(text), wl, &err);
	if (rc)
		print_error("%s\n", err.msg);
	assert_int_equal(rc, 0);
}

/* YAML text that must be rejected; returns the message in err. */
static void load_text_bad(const char *text, struct wl_error *err)
{
	struct workload wl;
	assert_int_equal(wl_load_buffer("mem.yaml", text, strlen(text), &wl, err), -1);
	assert_null(wl.mix);
	assert_null(wl.path);
}

static void test_defaults(void **state)
{
	(void)state;
	struct workload wl;
	load_ok(GOOD_DIR "/minimal.yaml", &wl);
	assert_string_equal(wl.path, GOOD_DIR "/minimal.yaml");
	assert_int_equal(strlen(wl.sha256), 64);
	assert_string_equal(wl.name, "minimal");
	assert_string_equal(wl.description, "");
	assert_int_equal(wl.filesize, 10 * 1024);
	assert_int_equal(wl.poolsize, 1024 * 1024);
	assert_int_equal(wl.ndirs, 1);
	assert_string_equal(wl.dirs[0], "./jobmix-work");
	assert_int_equal(wl.users.start, 1);
	assert_int_equal(wl.users.end, 1);        /* linear: end defaults to start */
	assert_int_equal(wl.users.step, 1);       /* linear: step 1 */
	assert_false(wl.users.geometric);
	assert_int_equal(wl.users.jobs_per_user, 100);
	assert_int_equal(wl.users.mode, WL_RAMP_LINEAR);
	assert_int_equal(wl.users.repeat, 1);
	assert_false(wl.users.repeat_auto);
	assert_int_equal(wl.users.as, WL_USERS_PROCESSES);
	assert_true(wl.users.converge_jpm_per_user == 60);
	assert_int_equal(wl.users.max_points, 0);
	assert_true(wl.users.max_time_s == 0);
	assert_int_equal(wl.sync, JOB_SYNC_FILE);
	assert_int_equal(wl.seed, 1);
	assert_int_equal(wl.measure.how, WL_MEASURE_JOBS);
	assert_true(wl.measure.duration_s == 30);
	assert_true(wl.measure.ramp_s == 0);
	assert_true(wl.measure.steady_pct == 0);
	assert_int_equal(wl.measure.steady_windows, 5);
	assert_int_equal(wl.nmix, 1);
	assert_ptr_equal(wl.mix[0].kind, job_find("creat_clo"));
	assert_string_equal(wl.mix[0].name, "creat_clo");
	assert_int_equal(wl.mix[0].weight, 1);
	assert_int_equal(wl.mix[0].set_mask, 0);
	assert_int_equal(wl.mix[0].line, 3);
	assert_int_equal(wl.mix[0].col, 5);
	wl_free(&wl);
	/* freeing twice is harmless: wl_free leaves an empty workload */
	wl_free(&wl);
	assert_null(wl.mix);
}

static void test_explicit_values(void **state)
{
	(void)state;
	struct workload wl;
	load_ok(GOOD_DIR "/full.yaml", &wl);
	assert_string_equal(wl.name, "full-test_1.0");
	assert_string_equal(wl.description, "Every key set.\nTwo lines, \"quotes\" and a \\ backslash.\n");
	assert_int_equal(wl.filesize, 20 * 1024);
	assert_int_equal(wl.poolsize, 2ull << 30);
	assert_int_equal(wl.ndirs, 2);
	assert_string_equal(wl.dirs[0], "/tmp/jm-a");
	assert_string_equal(wl.dirs[1], "/tmp/jm b");
	assert_int_equal(wl.users.start, 2);
	assert_int_equal(wl.users.end, 64);
	assert_int_equal(wl.users.step, 2);
	assert_true(wl.users.geometric);
	assert_int_equal(wl.users.jobs_per_user, 250);
	assert_int_equal(wl.users.mode, WL_RAMP_CONVERGE);
	assert_int_equal(wl.users.repeat, 3);
	assert_false(wl.users.repeat_auto);
	assert_int_equal(wl.users.as, WL_USERS_THREADS);
	assert_true(wl.users.converge_jpm_per_user == 42.5);
	assert_int_equal(wl.users.max_points, 12);
	assert_true(wl.users.max_time_s == 600);
	assert_int_equal(wl.sync, JOB_SYNC_GLOBAL);
	assert_true(wl.seed == UINT64_MAX);
	assert_int_equal(wl.measure.how, WL_MEASURE_TIME);
	assert_true(wl.measure.duration_s == 120);
	assert_true(wl.measure.ramp_s == 0.5);
	assert_true(wl.measure.steady_pct == 2.5);
	assert_int_equal(wl.measure.steady_windows, 7);
	assert_int_equal(wl.nmix, 3);
	assert_string_equal(wl.mix[0].name, "creat_clo");
	assert_int_equal(wl.mix[0].weight, 7);
	assert_string_equal(wl.mix[1].name, "links_off");
	assert_ptr_equal(wl.mix[1].kind, job_find("link_test"));
	assert_int_equal(wl.mix[1].weight, 0);
	assert_string_equal(wl.mix[2].name, "creat_again");
	assert_ptr_equal(wl.mix[2].kind, job_find("creat_clo"));
	assert_int_equal(wl.mix[2].line, 32);
	wl_free(&wl);
}

static void test_single_dir_and_adaptive(void **state)
{
	(void)state;
	struct workload wl;
	load_ok(GOOD_DIR "/single_dir.yaml", &wl);
	assert_string_equal(wl.name, "single");
	assert_int_equal(wl.ndirs, 1);
	assert_string_equal(wl.dirs[0], "/tmp/jm-single");
	assert_int_equal(wl.users.mode, WL_RAMP_CROSSOVER);
	assert_int_equal(wl.users.end, 0);        /* auto */
	assert_int_equal(wl.users.step, 0);       /* auto */
	assert_true(wl.users.repeat_auto);
	assert_int_equal(wl.users.repeat, 1);
	assert_true(wl.users.converge_jpm_per_user == 10);
	assert_true(wl.measure.steady_pct == 3);
	assert_int_equal(wl.mix[1].weight, 1);    /* weight defaults to 1 */
	wl_free(&wl);

	/* a bare number of users for end, an additive step, peak mode */
	load_text_ok("users: {start: 4, end: 32, step: 4, mode: peak}\nmix: [{job: link_test}]\n",
		     &wl);
	assert_int_equal(wl.users.start, 4);
	assert_int_equal(wl.users.end, 32);
	assert_int_equal(wl.users.step, 4);
	assert_false(wl.users.geometric);
	assert_true(wl.users.converge_jpm_per_user == 60);
	assert_string_equal(wl.name, "mem");
	wl_free(&wl);
}

/* An alias used the ordinary way (one value shared) is fine. */
static void test_alias_allowed(void **state)
{
	(void)state;
	struct workload wl;
	load_text_ok("files: {dirs: &d /tmp/jm-alias}\n"
		     "mix:\n  - {job: creat_clo, weight: &w 5}\n  - {job: link_test, weight: *w}\n",
		     &wl);
	assert_int_equal(wl.mix[1].weight, 5);
	assert_string_equal(wl.dirs[0], "/tmp/jm-alias");
	wl_free(&wl);
}

static void test_sha256(void **state)
{
	(void)state;
	struct workload wl;
	/* sha256 of these exact bytes, from sha256sum(1) */
	load_text_ok("mix:\n  - job: creat_clo\n", &wl);
	assert_string_equal(wl.sha256,
			    "60f19818b1dd0828f572eb42bd0751972202e82cf0a96ba4c6b44813bb3b47f0");
	wl_free(&wl);
}

static void test_fileio_params(void **state)
{
	(void)state;
	const struct job_kind *k = job_find("fileio");
	if (!k)
		skip();
	struct workload wl;
	load_ok(GOOD_DIR "/fileio.yaml", &wl);
	assert_int_equal(wl.nmix, 3);
	const struct wl_entry *e = &wl.mix[1];
	assert_ptr_equal(e->kind, k);
	assert_string_equal(e->name, "fileio");
	assert_int_equal(e->weight, 10);
	/* given: mode block files rw_ratio flags shared; the rest are defaults */
	for (size_t i = 0; i < job_nparams(k); i++) {
		const char *n = k->params[i].name;
		bool given = !strcmp(n, "mode") || !strcmp(n, "block") || !strcmp(n, "files") ||
			     !strcmp(n, "rw_ratio") || !strcmp(n, "flags") || !strcmp(n, "shared");
		assert_int_equal(!!(e->set_mask & (1ull << i)), given);
		char got[128], want[128];
		job_param_format(&k->params[i], e->params, got, sizeof(got));
		if (!strcmp(n, "mode"))
			assert_string_equal(got, "seqrd");
		else if (!strcmp(n, "block"))
			assert_string_equal(got, "1m");
		else if (!strcmp(n, "files"))
			assert_string_equal(got, "4");
		else if (!strcmp(n, "rw_ratio"))
			assert_string_equal(got, "2.25");
		else if (!strcmp(n, "flags"))
			assert_string_equal(got, "direct|dsync");
		else if (!strcmp(n, "shared"))
			assert_string_equal(got, "true");
		if (given)
			continue;
		/* not given: the default, formatted the same way */
		void *def = calloc(1, k->params_size);
		char err[256];
		assert_int_equal(job_params_defaults(k, def, err, sizeof(err)), 0);
		job_param_format(&k->params[i], def, want, sizeof(want));
		assert_string_equal(got, want);
		free(def);
	}
	assert_string_equal(wl.mix[2].name, "fileio_small");
	wl_free(&wl);
}

/* Print, load the print, print again: the same text and the same values. */
static void test_print_round_trip(void **state)
{
	(void)state;
	static const char *const files[] = { "minimal", "full", "single_dir", "fileio",
					     "fine_durations", "fine_fileio", "long_description",
					     NULL };
	for (size_t i = 0; files[i]; i++) {
		char path[256];
		snprintf(path, sizeof(path), GOOD_DIR "/%s.yaml", files[i]);
		if (strstr(files[i], "fileio") && !job_find("fileio"))
			continue;
		struct workload a, b;
		load_ok(path, &a);
		char *t1 = NULL, *t2 = NULL;
		size_t n1 = 0, n2 = 0;
		FILE *f = open_memstream(&t1, &n1);
		wl_print(f, &a);
		fclose(f);
		assert_non_null(strstr(t1, "\nmix:\n"));
		const char *body1 = strchr(t1, '\n') + 1;    /* skip the "# path" line */
		struct wl_error err;
		int rc = wl_load_buffer(path, body1, strlen(body1), &b, &err);
		if (rc)
			print_error("%s\n%s\n", err.msg, t1);
		assert_int_equal(rc, 0);
		f = open_memstream(&t2, &n2);
		wl_print(f, &b);
		fclose(f);
		assert_string_equal(body1, strchr(t2, '\n') + 1);
		assert_string_equal(a.name, b.name);
		assert_string_equal(a.description, b.description);
		assert_int_equal(a.filesize, b.filesize);
		assert_int_equal(a.poolsize, b.poolsize);
		assert_memory_equal(&a.users, &b.users, sizeof(a.users));
		assert_memory_equal(&a.measure, &b.measure, sizeof(a.measure));
		assert_true(a.seed == b.seed);
		assert_int_equal(a.nmix, b.nmix);
		for (size_t j = 0; j < a.nmix; j++) {
			assert_ptr_equal(a.mix[j].kind, b.mix[j].kind);
			assert_string_equal(a.mix[j].name, b.mix[j].name);
			assert_int_equal(a.mix[j].weight, b.mix[j].weight);
			if (a.mix[j].kind->params_size)
				assert_memory_equal(a.mix[j].params, b.mix[j].params,
						    a.mix[j].kind->params_size);
		}
		free(t1);
		free(t2);
		wl_free(&a);
		wl_free(&b);
	}
}

/* Time mode's warm-up: a quarter of the duration, at most 10 s. */
static void test_warmup_duration(void **state)
{
	(void)state;
	static const struct { double duration, want; } t[] = {
		{ 3, 0.75 }, { 2, 0.5 }, { 30, 7.5 }, { 40, 10 }, { 41, 10 }, { 3600, 10 },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct wl_measure_cfg m = { .how = WL_MEASURE_TIME, .duration_s = t[i].duration };
		assert_true(fabs(wl_warmup_s(&m) - t[i].want) < 1e-12);
	}
}

/* A workload with only weights, as wl_job_counts needs. */
static void weights(struct workload *wl, struct wl_entry *mix, const uint32_t *w, size_t n)
{
	memset(wl, 0, sizeof(*wl));
	memset(mix, 0, n * sizeof(*mix));
	for (size_t i = 0; i < n; i++)
		mix[i].weight = w[i];
	wl->mix = mix;
	wl->nmix = n;
}

static void test_job_counts(void **state)
{
	(void)state;
	struct workload wl;
	struct wl_entry mix[40];
	unsigned c[40];
	/* AIM7 fserver (reference/aim7-jobs.md): weights sum to 595, J = 100 -> 101 jobs */
	static const uint32_t fserver[] = { 20, 20, 20, 20, 20, 30, 30, 30, 30, 30, 30, 10, 10,
					    10, 10, 20, 40, 10, 20, 10, 10, 10, 20, 10, 30, 30,
					    5, 5, 5, 10, 40 };
	size_t nf = sizeof(fserver) / sizeof(fserver[0]);
	weights(&wl, mix, fserver, nf);
	assert_int_equal(wl_job_counts(&wl, 100, c), 101);
	assert_int_equal(c[0], 3);       /* 20/595*100 = 3.36 */
	assert_int_equal(c[5], 5);       /* 30/595*100 = 5.04 */
	assert_int_equal(c[11], 2);      /* 10/595*100 = 1.68 */
	assert_int_equal(c[16], 7);      /* 40/595*100 = 6.72 */
	assert_int_equal(c[26], 1);      /*  5/595*100 = 0.84 */
	/* any non-zero share at least 1; a zero weight never runs */
	static const uint32_t tiny[] = { 1, 1000, 0 };
	weights(&wl, mix, tiny, 3);
	assert_int_equal(wl_job_counts(&wl, 10, c), 11);
	assert_int_equal(c[0], 1);
	assert_int_equal(c[1], 10);
	assert_int_equal(c[2], 0);
	/* halves round up */
	static const uint32_t halves[] = { 1, 1 };
	weights(&wl, mix, halves, 2);
	assert_int_equal(wl_job_counts(&wl, 1, c), 2);
	assert_int_equal(c[0], 1);
	static const uint32_t third[] = { 1, 2 };
	weights(&wl, mix, third, 2);
	assert_int_equal(wl_job_counts(&wl, 100, c), 100);   /* 33.3 + 66.7 */
	assert_int_equal(c[0], 33);
	assert_int_equal(c[1], 67);
	/* all zero: nothing (the loader rejects such a mix) */
	static const uint32_t zero[] = { 0, 0 };
	weights(&wl, mix, zero, 2);
	assert_int_equal(wl_job_counts(&wl, 100, c), 0);
	/* huge weights and J do not overflow */
	static const uint32_t big[] = { UINT32_MAX, UINT32_MAX };
	weights(&wl, mix, big, 2);
	assert_int_equal(wl_job_counts(&wl, 1000000, c), 1000000);
	assert_int_equal(c[0], 500000);
}

static void test_job_filesize(void **state)
{
	(void)state;
	struct workload wl = { .filesize = 10 * 1024, .poolsize = 1024 * 1024 };
	assert_int_equal(wl_job_filesize(&wl, 1), 10240 + 1048576);
	assert_int_equal(wl_job_filesize(&wl, 0), 10240 + 1048576);  /* treated as 1 */
	assert_int_equal(wl_job_filesize(&wl, 2), 10240 + 524288);
	/* 1m / 3 = 349525.33: rounded down to whole KiB */
	assert_int_equal(wl_job_filesize(&wl, 3), 10240 + 349184);
	assert_int_equal(wl_job_filesize(&wl, 3) % 1024, 0);
	assert_int_equal(wl_job_filesize(&wl, 5000), 10240);      /* 209 bytes of pool */
	wl.poolsize = 0;
	assert_int_equal(wl_job_filesize(&wl, 7), 10240);
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(wl_ramp_mode_name(WL_RAMP_LINEAR), "linear");
	assert_string_equal(wl_ramp_mode_name(WL_RAMP_PEAK), "peak");
	assert_string_equal(wl_ramp_mode_name(WL_RAMP_CONVERGE), "converge");
	assert_string_equal(wl_ramp_mode_name(WL_RAMP_CROSSOVER), "crossover");
	assert_string_equal(wl_sync_name(JOB_SYNC_NONE), "none");
	assert_string_equal(wl_sync_name(JOB_SYNC_FILE), "file");
	assert_string_equal(wl_sync_name(JOB_SYNC_GLOBAL), "global");
}

/* Loading path must fail with a message starting "path: " and containing want. */
static void read_fails(const char *path, const char *want)
{
	struct workload wl;
	struct wl_error err;
	assert_int_equal(wl_load(path, &wl, &err), -1);
	assert_null(wl.mix);
	char prefix[512];
	snprintf(prefix, sizeof(prefix), "%s: ", path);
	if (strncmp(err.msg, prefix, strlen(prefix)) || !strstr(err.msg, want))
		print_error("got '%s', want '%s...%s'\n", err.msg, prefix, want);
	assert_int_equal(strncmp(err.msg, prefix, strlen(prefix)), 0);
	assert_non_null(strstr(err.msg, want));
}

static void test_not_regular_files(void **state)
{
	(void)state;
	char dir[] = "/tmp/jobmix-wltest-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char path[512];

	read_fails(dir, "is a directory");
	read_fails("/dev/zero", "not a regular file");
	read_fails("/dev/null", "not a regular file");
	snprintf(path, sizeof(path), "%s/nonexistent.yaml", dir);
	read_fails(path, "No such file or directory");

	/* a FIFO nobody writes to: refused at once, no hang */
	snprintf(path, sizeof(path), "%s/fifo.yaml", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	read_fails(path, "not a regular file");
	unlink(path);

	/* over the size cap, whether or not it would parse */
	snprintf(path, sizeof(path), "%s/big.yaml", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("mix:\n  - {job: creat_clo}\n", f);
	for (int i = 0; i < WL_MAX_FILE_SIZE / 16 + 1; i++)
		fputs("# padding......\n", f);
	fclose(f);
	read_fails(path, "too large");
	unlink(path);

	/* unreadable (only meaningful when not root) */
	snprintf(path, sizeof(path), "%s/secret.yaml", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("mix:\n  - {job: creat_clo}\n", f);
	fclose(f);
	chmod(path, 0);
	if (geteuid() != 0)
		read_fails(path, "Permission denied");
	unlink(path);
	rmdir(dir);
}

/* users.as: threads with a kind flagged JOB_PROCESS_ONLY is refused at that entry. */
static void test_threads_process_only(void **state)
{
	(void)state;
	const struct job_kind *k = NULL;
	for (size_t i = 0; i < job_nkinds && !k; i++)
		if (job_kinds[i]->flags & JOB_PROCESS_ONLY)
			k = job_kinds[i];
	if (!k)
		skip();
	char text[256];
	struct wl_error err;
	snprintf(text, sizeof(text), "users: {as: threads}\nmix:\n  - {job: creat_clo}\n"
		 "  - {job: %s}\n", k->name);
	load_text_bad(text, &err);
	assert_int_equal(strncmp(err.msg, "mem.yaml:4:5: ", 14), 0);
	assert_non_null(strstr(err.msg, "cannot run with users as threads"));
	/* the same mix as processes is fine */
	struct workload wl;
	snprintf(text, sizeof(text), "mix:\n  - {job: creat_clo}\n  - {job: %s}\n", k->name);
	load_text_ok(text, &wl);
	wl_free(&wl);
}

/* Limits on aliases and nodes, built in memory. */
static void test_node_limits(void **state)
{
	(void)state;
	struct wl_error err;
	struct workload wl;
	/* a long but honest document (1000 dirs, ~1000 nodes) is fine */
	size_t cap = 64 * 1024, len = 0;
	char *text = malloc(cap);
	assert_non_null(text);
	len += (size_t)snprintf(text + len, cap - len, "files:\n  dirs:\n");
	for (int i = 0; i < 1000; i++)
		len += (size_t)snprintf(text + len, cap - len, "    - /tmp/d%d\n", i);
	snprintf(text + len, cap - len, "mix:\n  - {job: creat_clo}\n");
	load_text_ok(text, &wl);
	assert_int_equal(wl.ndirs, 1000);
	wl_free(&wl);
	/* a self-referencing mapping */
	load_text_bad("mix:\n  - &e {job: creat_clo, x: *e}\n", &err);
	assert_non_null(strstr(err.msg, "alias cycle"));
	/* 11 x 1000 reachable nodes through two aliases */
	len = 0;
	len += (size_t)snprintf(text + len, cap - len, "a: &a [");
	for (int i = 0; i < 999; i++)
		len += (size_t)snprintf(text + len, cap - len, "%d, ", i);
	len += (size_t)snprintf(text + len, cap - len, "1]\nb: [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n");
	load_text_bad(text, &err);
	assert_non_null(strstr(err.msg, "more than 10000 YAML nodes"));
	free(text);
}

/* Seconds on CLOCK_MONOTONIC. */
static double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Nesting and node counts stop while the document is parsed, at the first
 * event past the limit: half a million '[' under the 1 MiB cap took over
 * a minute in libyaml's document load before the depth was checked.  A
 * second is ample (it takes milliseconds).
 */
static void test_limits_while_parsing(void **state)
{
	(void)state;
	struct wl_error err;
	size_t n = 520000;
	char *text = malloc(n + 1);
	assert_non_null(text);
	memset(text, '[', n);
	text[n] = 0;
	double t0 = mono_s();
	load_text_bad(text, &err);
	double took = mono_s() - t0;
	assert_non_null(strstr(err.msg, "mem.yaml:1:65: the workload is nested more than 64"));
	assert_int_equal(err.line, 1);
	assert_int_equal(err.col, 65);
	if (took > 1)
		print_error("520000 '[' took %.1f s\n", took);
	assert_true(took < 1);
	/* block style: the 65th level's line and column */
	size_t len = 0, cap = 65 * 70 + 64;
	char *deep = malloc(cap);
	assert_non_null(deep);
	for (int d = 0; d < 65; d++)
		len += (size_t)snprintf(deep + len, cap - len, "%*sk%d:\n", d, "", d);
	load_text_bad(deep, &err);
	assert_non_null(strstr(err.msg, "mem.yaml:64:64: the workload is nested"));
	free(deep);
	/* 200,000 scalars in one flow list: refused at the 10,001st node */
	size_t m = 200000;
	text = realloc(text, 3 * m + 8);
	assert_non_null(text);
	len = 0;
	text[len++] = '[';
	for (size_t i = 0; i < m; i++) {
		text[len++] = '1';
		text[len++] = ',';
	}
	text[len++] = ']';
	text[len] = 0;
	t0 = mono_s();
	load_text_bad(text, &err);
	assert_non_null(strstr(err.msg, "more than 10000 YAML nodes"));
	assert_true(mono_s() - t0 < 1);
	free(text);
}

/*
 * A file that is not a workload (`jobmix check /etc/shadow` as root): its
 * first line is a YAML key that is no key name, and its text is never
 * printed, only its length; a plausible key is still quoted.
 */
static void test_key_text_not_echoed(void **state)
{
	(void)state;
	struct wl_error err;
	load_text_bad("root:$6$saltsalt$S3CRETHASHVALUE:19000:0:99999:7:::\n"
		      "daemon:*:19000:0:99999:7:::\n", &err);
	assert_null(strstr(err.msg, "S3CRET"));
	assert_null(strstr(err.msg, "root"));
	assert_non_null(strstr(err.msg, "mem.yaml:1:1: a key in the workload that is not a key name"));
	assert_non_null(strstr(err.msg, "is this a workload file?"));
	load_text_bad("mix:\n  - {job: creat_clo, \"pass word\": 1}\n", &err);
	assert_null(strstr(err.msg, "pass word"));
	load_text_bad("nmae: x\nmix:\n  - {job: creat_clo}\n", &err);
	assert_non_null(strstr(err.msg, "unknown key 'nmae'"));
}

/*
 * Random damage to valid files (flipped, deleted and inserted bytes, cut
 * ends) must never crash the loader: each result is a workload or a
 * message naming the file.  Most useful under `make SANITIZE=1`.
 */
static void test_mutations(void **state)
{
	(void)state;
	static const char *const files[] = { "full", "single_dir", "fileio", NULL };
	static const char noise[] = "-:[]{}&*!|>'\"%@#,?\n\t 0k~<";
	uint64_t x = 0x9e3779b97f4a7c15ull;
	unsigned loaded = 0, rejected = 0;
	for (size_t fi = 0; files[fi]; fi++) {
		char path[256];
		snprintf(path, sizeof(path), GOOD_DIR "/%s.yaml", files[fi]);
		FILE *f = fopen(path, "r");
		assert_non_null(f);
		char orig[4096];
		size_t n = fread(orig, 1, sizeof(orig) - 1, f);
		fclose(f);
		for (int round = 0; round < 1500; round++) {
			char buf[4200];
			size_t len = n;
			memcpy(buf, orig, n);
			for (int edits = 1 + round % 3; edits > 0 && len > 1; edits--) {
				x ^= x << 13, x ^= x >> 7, x ^= x << 17;
				size_t at = (size_t)(x >> 8) % len;
				char c = noise[(x >> 40) % (sizeof(noise) - 1)];
				switch ((x >> 56) % 4) {
				case 0: buf[at] = c; break;
				case 1: memmove(buf + at, buf + at + 1, len - at - 1); len--; break;
				case 2:
					if (len + 1 < sizeof(buf)) {
						memmove(buf + at + 1, buf + at, len - at);
						buf[at] = c;
						len++;
					}
					break;
				default: len = at + 1; break;
				}
			}
			struct workload wl;
			struct wl_error err;
			if (!wl_load_buffer("mut.yaml", buf, len, &wl, &err)) {
				assert_non_null(wl.mix);
				assert_true(wl.nmix > 0);
				wl_free(&wl);
				loaded++;
			} else {
				if (strncmp(err.msg, "mut.yaml:", 9))
					print_error("message without the file: '%s'\n", err.msg);
				assert_int_equal(strncmp(err.msg, "mut.yaml:", 9), 0);
				assert_null(wl.mix);
				rejected++;
			}
		}
	}
	/* the damage was real, and not all of it fatal */
	assert_true(rejected > 1000);
	assert_true(loaded > 10);
}

/* ---- the table of bad files ---------------------------------------------- */

struct bad_case {
	char path[300];
	char name[128];
};

/* Read the "# expect:" and "# needs:" header lines of a bad file. */
static int read_header(const char *path, char *expect, size_t elen, char *needs, size_t nlen)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	char line[512];
	expect[0] = needs[0] = 0;
	for (int i = 0; i < 2 && fgets(line, sizeof(line), f); i++) {
		line[strcspn(line, "\n")] = 0;
		if (!strncmp(line, "# expect: ", 10))
			snprintf(expect, elen, "%s", line + 10);
		else if (!strncmp(line, "# needs: ", 9))
			snprintf(needs, nlen, "%s", line + 9);
	}
	fclose(f);
	return expect[0] ? 0 : -1;
}

static void test_bad_file(void **state)
{
	const struct bad_case *bc = *state;
	char expect[512], needs[128];
	if (read_header(bc->path, expect, sizeof(expect), needs, sizeof(needs))) {
		print_error("%s: first line must be '# expect: LINE:COL: text'\n", bc->path);
		fail();
	}
	/* "# needs: a b": kinds written by other modules may be absent for now */
	for (char *tok = strtok(needs, " ,"); tok; tok = strtok(NULL, " ,"))
		if (!job_find(tok))
			skip();
	unsigned line, col;
	int off = 0;
	if (sscanf(expect, "%u:%u: %n", &line, &col, &off) != 2 || !off) {
		print_error("%s: bad expect line '%s'\n", bc->path, expect);
		fail();
	}
	const char *want = expect + off;
	char prefix[400];
	snprintf(prefix, sizeof(prefix), "%s:%u:%u: ", bc->path, line, col);

	struct workload wl;
	struct wl_error err;
	int rc = wl_load(bc->path, &wl, &err);
	if (!rc) {
		print_error("%s: loaded, expected '%s%s'\n", bc->path, prefix, want);
		wl_free(&wl);
		fail();
	}
	if (strncmp(err.msg, prefix, strlen(prefix)) || !strstr(err.msg + strlen(prefix), want)) {
		print_error("%s:\n  got  '%s'\n  want '%s...%s...'\n", bc->path, err.msg, prefix,
			    want);
		fail();
	}
	assert_null(wl.mix);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct bad_case *)a)->name, ((const struct bad_case *)b)->name);
}

int main(void)
{
	static const struct CMUnitTest fixed[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_explicit_values),
		cmocka_unit_test(test_single_dir_and_adaptive),
		cmocka_unit_test(test_alias_allowed),
		cmocka_unit_test(test_sha256),
		cmocka_unit_test(test_fileio_params),
		cmocka_unit_test(test_print_round_trip),
		cmocka_unit_test(test_job_counts),
		cmocka_unit_test(test_job_filesize),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_not_regular_files),
		cmocka_unit_test(test_threads_process_only),
		cmocka_unit_test(test_node_limits),
		cmocka_unit_test(test_limits_while_parsing),
		cmocka_unit_test(test_key_text_not_echoed),
		cmocka_unit_test(test_mutations),
		cmocka_unit_test(test_warmup_duration),
	};
	size_t nfixed = sizeof(fixed) / sizeof(fixed[0]);
	struct bad_case *cases = NULL;
	size_t ncases = 0;

	DIR *d = opendir(BAD_DIR);
	if (!d) {
		fprintf(stderr, "cannot open %s: %s (run from the top of the tree)\n", BAD_DIR,
			strerror(errno));
		return 1;
	}
	struct dirent *de;
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);
		if (n < 6 || n >= sizeof(cases->name) || strcmp(de->d_name + n - 5, ".yaml"))
			continue;
		struct bad_case *more = realloc(cases, (ncases + 1) * sizeof(*cases));
		if (!more)
			return 1;
		cases = more;
		snprintf(cases[ncases].name, sizeof(cases[ncases].name), "bad/%s", de->d_name);
		snprintf(cases[ncases].path, sizeof(cases[ncases].path), BAD_DIR "/%s", de->d_name);
		ncases++;
	}
	closedir(d);
	if (ncases < 30) {
		fprintf(stderr, "only %zu files in %s (at least 30 expected)\n", ncases, BAD_DIR);
		return 1;
	}
	qsort(cases, ncases, sizeof(*cases), by_name);

	struct CMUnitTest *tests = calloc(nfixed + ncases, sizeof(*tests));
	if (!tests)
		return 1;
	memcpy(tests, fixed, sizeof(fixed));
	for (size_t i = 0; i < ncases; i++) {
		tests[nfixed + i] = (struct CMUnitTest){ .name = cases[i].name,
							 .test_func = test_bad_file,
							 .initial_state = &cases[i] };
	}
	int rc = _cmocka_run_group_tests("workload", tests, nfixed + ncases, NULL, NULL);
	free(tests);
	free(cases);
	return rc;
}
