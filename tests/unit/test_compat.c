// SPDX-License-Identifier: GPL-2.0-only
/*
 * re-aim compatibility: every AIM7 test name maps to a jobmix kind; every
 * shipped AIM7 mix imported from its workfile loads to the same mix as the
 * shipped workload; what import prints loads back to the same workload;
 * malformed workfiles and configs fail naming FILE:LINE; --job mixes; and
 * CPU-relative user counts (-u 100%).
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
#include <time.h>
#include <unistd.h>

#include "jobmix/compat.h"
#include "jobmix/job.h"
#include "jobmix/ramp.h"
#include "jobmix/reaim.h"
#include "jobmix/wl_keys.h"
#include "jobmix/workload.h"

#define REAIM_DIR "tests/data/reaim"
#define IMPORT_DIR "tests/data/import"

static char tmpdir[] = "/tmp/jobmix-compat.XXXXXX";

static int setup(void **state)
{
	(void)state;
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd);
}

/* Write text to tmpdir/name; the path in out. */
static void put(const char *name, const char *text, char *out, size_t len)
{
	snprintf(out, len, "%s/%s", tmpdir, name);
	FILE *f = fopen(out, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* Import a workfile (config may be NULL) and load the YAML; fails the test on error. */
static void import_load(const char *workfile, const struct compat_config *cfg, struct workload *wl,
			char **yaml_out)
{
	char err[1200], *yaml = NULL;
	struct wl_error werr;
	int rc = compat_import(workfile, cfg, cfg ? "reaim.config" : NULL, "exec", &yaml, err,
			       sizeof(err));
	if (rc)
		print_error("%s\n", err);
	assert_int_equal(rc, 0);
	rc = wl_load_buffer(workfile, yaml, strlen(yaml), wl, &werr);
	if (rc)
		print_error("%s\n%s", werr.msg, yaml);
	assert_int_equal(rc, 0);
	if (yaml_out)
		*yaml_out = yaml;
	else
		free(yaml);
}

static void test_every_aim7_test_maps(void **state)
{
	(void)state;
	size_t n = 0;
	const char *why;
	for (size_t i = 0; compat_aim7_tests[i]; i++, n++) {
		const char *k = compat_kind(compat_aim7_tests[i], &why);
		if (!k)
			print_error("AIM7 test %s has no kind\n", compat_aim7_tests[i]);
		assert_non_null(k);
		assert_non_null(job_find(k));
	}
	assert_true(n >= 70);
	assert_null(compat_kind("disk_aio_rr", &why));
	assert_non_null(why);
	assert_null(compat_kind("fileio", &why));   /* a jobmix kind, not an AIM7 test */
	assert_null(why);
}

/* Each shipped AIM7 mix: its re-aim workfile imports to the shipped workload's mix. */
static void test_shipped_mixes(void **state)
{
	(void)state;
	static const char *const mixes[] = { "fserver", "new_fserver", "shared", "dbase",
					     "new_dbase", "compute", "five_sec", "high_systime",
					     "disk", NULL };
	for (size_t m = 0; mixes[m]; m++) {
		char wf[256], yp[256];
		struct workload imp, ship;
		struct wl_error err;
		snprintf(wf, sizeof(wf), REAIM_DIR "/workfile.%s", mixes[m]);
		snprintf(yp, sizeof(yp), "workloads/%s.yaml", mixes[m]);
		import_load(wf, NULL, &imp, NULL);
		assert_int_equal(wl_load(yp, &ship, &err), 0);
		assert_string_equal(imp.name, mixes[m]);
		assert_int_equal(imp.nmix, ship.nmix);
		for (size_t i = 0; i < imp.nmix; i++) {
			assert_ptr_equal(imp.mix[i].kind, ship.mix[i].kind);
			assert_int_equal(imp.mix[i].weight, ship.mix[i].weight);
		}
		assert_int_equal(imp.filesize, ship.filesize);
		assert_int_equal(imp.poolsize, ship.poolsize);
		assert_int_equal(imp.sync, ship.sync);   /* exec, re-aim's default */
		/* re-aim's own ramp defaults: 1 to 5 users by 1, 100 jobs */
		assert_int_equal(imp.users.start, 1);
		assert_int_equal(imp.users.end, 5);
		assert_int_equal(imp.users.jobs_per_user, 100);
		wl_free(&imp);
		wl_free(&ship);
	}
}

/* Every re-aim workfile imports; what import prints, printed resolved and loaded, is the same. */
static void test_all_workfiles_round_trip(void **state)
{
	(void)state;
	static const char *const files[] = { "aim9", "all_utime", "alltests", "compute", "custom",
					     "dbase", "disk", "five_sec", "fserver", "high_systime",
					     "long", "new_dbase", "new_fserver", "shared", "short",
					     NULL };
	for (size_t f = 0; files[f]; f++) {
		char wf[256], *yaml, *p1 = NULL, *p2 = NULL;
		size_t l1 = 0, l2 = 0;
		struct workload a, b;
		struct wl_error err;
		snprintf(wf, sizeof(wf), REAIM_DIR "/workfile.%s", files[f]);
		import_load(wf, NULL, &a, &yaml);
		FILE *m = open_memstream(&p1, &l1);
		wl_print(m, &a);
		fclose(m);
		assert_int_equal(wl_load_buffer(wf, p1, l1, &b, &err), 0);
		m = open_memstream(&p2, &l2);
		wl_print(m, &b);
		fclose(m);
		/* past the first line (it carries the sha256 of different bytes) */
		assert_string_equal(strchr(p1, '\n'), strchr(p2, '\n'));
		assert_int_equal(a.nmix, b.nmix);
		free(yaml);
		free(p1);
		free(p2);
		wl_free(&a);
		wl_free(&b);
	}
	/* aim9's FILESIZE: 5M line; alltests lists string_rtns twice: a named second entry */
	struct workload w;
	import_load(REAIM_DIR "/workfile.aim9", NULL, &w, NULL);
	assert_int_equal(w.filesize, 5 << 20);
	wl_free(&w);
	import_load(REAIM_DIR "/workfile.alltests", NULL, &w, NULL);
	int named = 0;
	for (size_t i = 0; i < w.nmix; i++)
		named += !strcmp(w.mix[i].name, "string_rtns-2");
	assert_int_equal(named, 1);
	wl_free(&w);
}

static void test_config(void **state)
{
	(void)state;
	char cp[512], wp[512], err[1200];
	struct compat_config cfg;
	struct workload wl;
	put("reaim.config", "# a comment\nFILESIZE 20k\npoolsize 2M\nDISKDIR /tmp/jm-d1\n"
	    "DISKDIR /tmp/jm-d2\nSTARTUSERS 2\nENDUSERS 6\nINCREMENT 2\nJOBS 30\nVERBOSE 1\n\n",
	    cp, sizeof(cp));
	assert_int_equal(compat_read_config(cp, &cfg, err, sizeof(err)), 0);
	put("wf", "# mix\n10 disk_rr\n5 add_int\nPOOLSIZE: 512K\n", wp, sizeof(wp));
	import_load(wp, &cfg, &wl, NULL);
	assert_int_equal(wl.filesize, 20 << 10);
	assert_int_equal(wl.poolsize, 512 << 10);   /* the workfile's line wins */
	assert_int_equal(wl.ndirs, 2);
	assert_string_equal(wl.dirs[1], "/tmp/jm-d2");
	assert_int_equal(wl.users.start, 2);
	assert_int_equal(wl.users.end, 6);
	assert_int_equal(wl.users.step, 2);
	assert_int_equal(wl.users.jobs_per_user, 30);
	assert_int_equal(wl.users.mode, WL_RAMP_LINEAR);
	wl_free(&wl);
	compat_config_free(&cfg);

	put("x.config", "CROSSOVER 1\nENDUSERS 40\n", cp, sizeof(cp));
	assert_int_equal(compat_read_config(cp, &cfg, err, sizeof(err)), 0);
	import_load(wp, &cfg, &wl, NULL);
	assert_int_equal(wl.users.mode, WL_RAMP_CROSSOVER);
	assert_true(wl.users.converge_jpm_per_user == 10);
	assert_int_equal(wl.users.end, 40);
	wl_free(&wl);
	compat_config_free(&cfg);
}

/* path:line: want, exactly at the start of the message */
static void expect_err(int rc, const char *err, const char *path, int line, const char *want)
{
	char prefix[600];
	if (line)
		snprintf(prefix, sizeof(prefix), "%s:%d: ", path, line);
	else
		snprintf(prefix, sizeof(prefix), "%s: ", path);
	if (rc != -1 || strncmp(err, prefix, strlen(prefix)) || !strstr(err, want))
		print_error("got rc %d '%s', want '%s%s'\n", rc, err, prefix, want);
	assert_int_equal(rc, -1);
	assert_int_equal(strncmp(err, prefix, strlen(prefix)), 0);
	assert_non_null(strstr(err, want));
}

static void test_errors(void **state)
{
	(void)state;
	static const struct {
		const char *text;
		int line;
		const char *want;
	} bad[] = {
		{ "10 disk_rr\n20 disk_r\n", 2, "unknown test 'disk_r' (did you mean 'disk_rr'?)" },
		{ "10 frobnicate\n", 1, "unknown test 'frobnicate'" },
		{ "# c\n10 disk_aio_rr\n", 2, "libaio" },
		{ "10 disk_rr\nten add_int\n", 2, "expected 'WEIGHT TESTNAME'" },
		{ "10\n", 1, "expected 'WEIGHT TESTNAME'" },
		{ "10 disk_rr extra\n", 1, "expected 'WEIGHT TESTNAME'" },
		{ "-5 disk_rr\n", 1, "expected 'WEIGHT TESTNAME'" },
		{ "FILESIZE: 10\n10 disk_rr\n", 1, "expected a size like 10K" },
		{ "10 disk_rr\nPOOLSIZE: 1G\n", 2, "expected a size like 10K" },
		{ "FILESIZE 10K\n10 disk_rr\n", 1, "expected 'WEIGHT TESTNAME'" },
		{ "# only comments\n\n", 0, "the mix is empty" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char wp[512], err[1200], name[32], *yaml = (char *)1;
		snprintf(name, sizeof(name), "bad%zu", i);
		put(name, bad[i].text, wp, sizeof(wp));
		int rc = compat_import(wp, NULL, NULL, "exec", &yaml, err, sizeof(err));
		expect_err(rc, err, wp, bad[i].line, bad[i].want);
		assert_null(yaml);
	}
	static const struct {
		const char *text;
		int line;
		const char *want;
	} badcfg[] = {
		{ "FILESIZE 10k\nWIBBLE 3\n", 2, "unknown line 'WIBBLE'" },
		{ "FILESIZE ten\n", 1, "FILESIZE 'ten'" },
		{ "STARTUSERS\n", 1, "STARTUSERS takes one value" },
		{ "ENDUSERS 0\n", 1, "above 0" },
		{ "JOBS 1x\n", 1, "JOBS '1x'" },
	};
	for (size_t i = 0; i < sizeof(badcfg) / sizeof(badcfg[0]); i++) {
		char cp[512], err[1200], name[32];
		struct compat_config cfg;
		snprintf(name, sizeof(name), "cfg%zu", i);
		put(name, badcfg[i].text, cp, sizeof(cp));
		int rc = compat_read_config(cp, &cfg, err, sizeof(err));
		expect_err(rc, err, cp, badcfg[i].line, badcfg[i].want);
	}
	char err[1200], *yaml = NULL;
	struct compat_config cfg;
	expect_err(compat_read_config("/nonexistent/reaim.config", &cfg, err, sizeof(err)), err,
		   "/nonexistent/reaim.config", 0, "cannot open: No such file");
	expect_err(compat_import("/nonexistent/wf", NULL, NULL, "exec", &yaml, err, sizeof(err)),
		   err, "/nonexistent/wf", 0, "cannot open: No such file");
}

/* Seconds on CLOCK_MONOTONIC. */
static double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Files that others wrote (jobmix runs as root): a FIFO or device is
 * refused at once (alarm: a hang fails the test; /dev/zero grew without
 * bound), a NUL byte is an error at its line (re-aim's fgets ended the
 * line there), a newline in the workfile's name cannot add keys to the
 * YAML, a huge workfile is refused at its 1001st test in linear time (the
 * "listed twice" count was quadratic), a bad value is named at its
 * config line (not in YAML nobody sees), and STARTUSERS above ENDUSERS is
 * refused as re-aim refuses it.
 */
static void test_hostile_inputs(void **state)
{
	(void)state;
	char wp[512], cp[512], err[1200], *yaml = (char *)1;
	struct compat_config cfg;
	struct workload wl;

	alarm(20);
	snprintf(wp, sizeof(wp), "%s/fifo", tmpdir);
	assert_int_equal(mkfifo(wp, 0600), 0);
	expect_err(compat_import(wp, NULL, NULL, "exec", &yaml, err, sizeof(err)), err, wp, 0,
		   "not a regular file (a FIFO); a workfile must be a regular file");
	assert_null(yaml);
	expect_err(compat_read_config(wp, &cfg, err, sizeof(err)), err, wp, 0,
		   "not a regular file (a FIFO)");
	expect_err(compat_import("/dev/zero", NULL, NULL, "exec", &yaml, err, sizeof(err)), err,
		   "/dev/zero", 0, "not a regular file (a character device)");
	expect_err(compat_read_config("/dev/zero", &cfg, err, sizeof(err)), err, "/dev/zero", 0,
		   "not a regular file");
	alarm(0);

	/* a NUL byte: the whole line is refused, not its start kept */
	snprintf(wp, sizeof(wp), "%s/nul", tmpdir);
	FILE *f = fopen(wp, "w");
	assert_non_null(f);
	fwrite("10 disk_rr\n5 add_int\0 junk\n", 1, 26, f);
	fclose(f);
	expect_err(compat_import(wp, NULL, NULL, "exec", &yaml, err, sizeof(err)), err, wp, 2,
		   "a NUL byte at column 10");
	put("nulcfg", "FILESIZE 10K\n", cp, sizeof(cp));
	f = fopen(cp, "a");
	fwrite("JOBS 5\0\n", 1, 8, f);
	fclose(f);
	expect_err(compat_read_config(cp, &cfg, err, sizeof(err)), err, cp, 2, "a NUL byte");

	/* a newline in the workfile's name: escaped in the header comment */
	char dir[512];
	snprintf(dir, sizeof(dir), "%s/x\nseed: 99\nusers:\n  start: 7\n#", tmpdir);
	assert_int_equal(mkdir(dir, 0700), 0);
	snprintf(wp, sizeof(wp), "%s/workfile.nl", dir);
	f = fopen(wp, "w");
	assert_non_null(f);
	fputs("10 disk_rr\n", f);
	fclose(f);
	import_load(wp, NULL, &wl, &yaml);
	assert_int_equal(wl.seed, 1);
	assert_int_equal(wl.users.start, 1);
	assert_null(strstr(yaml, "\nseed:"));
	assert_non_null(strstr(yaml, "x\\nseed: 99\\nusers:"));
	wl_free(&wl);
	free(yaml);

	/* 1 MiB of "1 add_int": refused at line 1001, fast */
	snprintf(wp, sizeof(wp), "%s/huge", tmpdir);
	f = fopen(wp, "w");
	assert_non_null(f);
	for (int i = 0; i < (1 << 20) / 10 - 1; i++)
		fputs("1 add_int\n", f);
	fclose(f);
	double t0 = mono_s();
	expect_err(compat_import(wp, NULL, NULL, "exec", &yaml, err, sizeof(err)), err, wp,
		   COMPAT_MAX_TESTS + 1, "more than 1000 tests listed");
	assert_true(mono_s() - t0 < 2);
	/* 1000 of them: imported and loaded, each after the first named -2, -3, ... */
	assert_int_equal(truncate(wp, COMPAT_MAX_TESTS * 10), 0);
	t0 = mono_s();
	import_load(wp, NULL, &wl, &yaml);
	assert_true(mono_s() - t0 < 2);
	assert_int_equal(wl.nmix, COMPAT_MAX_TESTS);
	assert_string_equal(wl.mix[COMPAT_MAX_TESTS - 1].name, "add_int-1000");
	wl_free(&wl);
	free(yaml);

	/* values named at their config or workfile line, not at the YAML's */
	put("wf.ok", "10 disk_rr\n", wp, sizeof(wp));
	put("zero.config", "# c\nFILESIZE 0K\n", cp, sizeof(cp));
	expect_err(compat_read_config(cp, &cfg, err, sizeof(err)), err, cp, 2,
		   "FILESIZE 0K: 'filesize' 0k is out of range");
	put("dup.config", "DISKDIR /tmp/a\nDISKDIR /tmp/a\n", cp, sizeof(cp));
	expect_err(compat_read_config(cp, &cfg, err, sizeof(err)), err, cp, 2, "listed twice");
	put("wf.zero", "# none\nFILESIZE: 0K\n10 disk_rr\n", wp, sizeof(wp));
	expect_err(compat_import(wp, NULL, NULL, "exec", &yaml, err, sizeof(err)), err, wp, 2,
		   "FILESIZE: 0K");
	put("wf.w0", "# none\n0 disk_rr\n0 add_int\n", wp, sizeof(wp));
	expect_err(compat_import(wp, NULL, NULL, "exec", &yaml, err, sizeof(err)), err, wp, 2,
		   "every weight in the mix is 0");
	assert_null(strstr(err, ".yaml"));

	/* STARTUSERS above ENDUSERS: re-aim's "Cannot run backwards" */
	put("wf.ok", "10 disk_rr\n", wp, sizeof(wp));
	put("back.config", "STARTUSERS 10\nJOBS 5\nENDUSERS 5\n", cp, sizeof(cp));
	assert_int_equal(compat_read_config(cp, &cfg, err, sizeof(err)), 0);
	expect_err(compat_import(wp, &cfg, cp, "exec", &yaml, err, sizeof(err)), err, cp, 1,
		   "STARTUSERS 10 is above ENDUSERS 5 (line 3)");
	compat_config_free(&cfg);
	/* CROSSOVER: re-aim's sample config says "'1' for on, anything else for off" */
	put("x5.config", "CROSSOVER 5\n", cp, sizeof(cp));
	assert_int_equal(compat_read_config(cp, &cfg, err, sizeof(err)), 0);
	assert_int_equal(cfg.crossover, 0);
	compat_config_free(&cfg);
}

/* The regression files in tests/data/import (fuzz seeds too): each as it must read. */
static void test_import_data(void **state)
{
	(void)state;
	char err[1200], *yaml = NULL;
	struct compat_config cfg;
	struct workload wl;
	expect_err(compat_import(IMPORT_DIR "/nul.workfile", NULL, NULL, "exec", &yaml, err,
				 sizeof(err)), err, IMPORT_DIR "/nul.workfile", 2, "a NUL byte");
	expect_err(compat_read_config(IMPORT_DIR "/zero-filesize.config", &cfg, err, sizeof(err)),
		   err, IMPORT_DIR "/zero-filesize.config", 1, "out of range");
	assert_int_equal(compat_read_config(IMPORT_DIR "/backwards.config", &cfg, err, sizeof(err)),
			 0);
	expect_err(compat_import(REAIM_DIR "/workfile.fserver", &cfg, IMPORT_DIR "/backwards.config",
				 "exec", &yaml, err, sizeof(err)), err,
		   IMPORT_DIR "/backwards.config", 1, "STARTUSERS 10 is above ENDUSERS 5");
	compat_config_free(&cfg);
	assert_int_equal(compat_read_config(IMPORT_DIR "/reaim.config", &cfg, err, sizeof(err)), 0);
	assert_int_equal(cfg.crossover, 1);
	import_load(IMPORT_DIR "/sizes.workfile", &cfg, &wl, &yaml);
	assert_int_equal(wl.filesize, 20 * 1024);   /* the workfile's FILESIZE: over the config's */
	assert_int_equal(wl.poolsize, 0);
	assert_int_equal(wl.nmix, 3);
	assert_string_equal(wl.mix[1].name, "disk_rr-2");
	assert_int_equal(wl.users.start, 2);
	wl_free(&wl);
	free(yaml);
	compat_config_free(&cfg);
}

/* reaim_parse on the argv files in tests/data/reaim-args (NUL-separated words). */
static int parse_argv_file(const char *name, struct reaim_opts *r, char *buf, size_t len)
{
	char path[256], *argv[40];
	int argc = 0;
	snprintf(path, sizeof(path), "tests/data/reaim-args/%s", name);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	size_t n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = 0;
	argv[argc++] = "reaim";
	for (size_t i = 0; i <= n && argc < 39; i += strlen(buf + i) + 1)
		argv[argc++] = buf + i;
	argv[argc] = NULL;
	return reaim_parse(argc, argv, r);
}

static void test_reaim_args(void **state)
{
	(void)state;
	struct reaim_opts r;
	char buf[512];
	assert_int_equal(parse_argv_file("counts", &r, buf, sizeof(buf)), 0);
	assert_string_equal(r.start, "2");
	assert_string_equal(r.end, "4");
	assert_string_equal(r.jobs, "50");
	/* a 34-character count is the number it is, never cut to its first 31 */
	assert_int_equal(parse_argv_file("long-count", &r, buf, sizeof(buf)), 0);
	assert_string_equal(r.start, "20");
	assert_int_equal(r.start_n, 20);
	assert_int_equal(parse_argv_file("long", &r, buf, sizeof(buf)), 0);
	assert_string_equal(r.incr, "2");
	assert_string_equal(r.repeat, "2");
	assert_string_equal(r.mode, "converge");
	assert_string_equal(r.outdir, "res");
	assert_int_equal(parse_argv_file("files", &r, buf, sizeof(buf)), 0);
	assert_string_equal(r.prefix, "out");
	assert_string_equal(r.mode, "crossover");
	assert_int_equal(parse_argv_file("backwards", &r, buf, sizeof(buf)), 2);
	assert_int_equal(parse_argv_file("unsupported", &r, buf, sizeof(buf)), 2);
}

static void test_adhoc(void **state)
{
	(void)state;
	char *yaml, err[512];
	struct workload wl;
	struct wl_error werr;
	assert_int_equal(compat_adhoc("disk_rr:30,sync_disk_wrt:5,creat_clo", &yaml, err,
				      sizeof(err)), 0);
	assert_int_equal(wl_load_buffer("--job", yaml, strlen(yaml), &wl, &werr), 0);
	assert_int_equal(wl.nmix, 3);
	assert_string_equal(wl.mix[0].kind->name, "disk_rr");
	assert_int_equal(wl.mix[0].weight, 30);
	assert_int_equal(wl.mix[1].weight, 5);
	assert_int_equal(wl.mix[2].weight, 1);
	assert_string_equal(wl.name, "adhoc");
	wl_free(&wl);
	free(yaml);
	static const struct {
		const char *spec, *want;
	} bad[] = {
		{ "disk_r", "unknown job 'disk_r' (did you mean 'disk_rr'?)" },
		{ "disk_rr:x", "weight 'x'" },
		{ "disk_rr:-1", "weight '-1'" },
		{ "disk_rr,disk_rr", "'disk_rr' given twice" },
		{ "", "no job given" },
		{ ",", "no job given" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		yaml = (char *)1;
		assert_int_equal(compat_adhoc(bad[i].spec, &yaml, err, sizeof(err)), -1);
		if (!strstr(err, bad[i].want))
			print_error("%s: got '%s'\n", bad[i].spec, err);
		assert_non_null(strstr(err, bad[i].want));
		assert_null(yaml);
	}
	/* all weights 0: the loader's own check */
	assert_int_equal(compat_adhoc("disk_rr:0", &yaml, err, sizeof(err)), 0);
	assert_int_equal(wl_load_buffer("--job", yaml, strlen(yaml), &wl, &werr), -1);
	assert_non_null(strstr(werr.msg, "every weight in the mix is 0"));
	free(yaml);
}

static void test_users_percent(void **state)
{
	(void)state;
	static const struct {
		const char *spec;
		unsigned cpus;
		const char *want;
	} ok[] = {
		{ "100%", 8, "8" },
		{ "50%-400%", 8, "4-32" },
		{ "100%,200%", 2, "2,4" },
		{ "1%", 2, "1" },                /* at least one user */
		{ "150%", 3, "5" },              /* 4.5 rounds up */
		{ "25%-100%x2", 16, "4-16x2" },
		{ "1-4", 2, "1-4" },             /* no share: unchanged */
		{ "2,100%", 4, "2,4" },
		{ "12.5%", 8, "1" },
	};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		char out[64], err[256];
		assert_int_equal(ramp_users_resolve_cpus(ok[i].spec, ok[i].cpus, out, sizeof(out), err,
							 sizeof(err)), 0);
		assert_string_equal(out, ok[i].want);
		unsigned *list;
		size_t n;
		assert_int_equal(ramp_parse_users(out, &list, &n, err, sizeof(err)), 0);
		free(list);
	}
	unsigned *list;
	size_t n;
	char out[64], err[256];
	assert_int_equal(ramp_users_resolve_cpus("50%-400%", 8, out, sizeof(out), err, sizeof(err)), 0);
	assert_int_equal(ramp_parse_users(out, &list, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 29);
	assert_int_equal(list[0], 4);
	assert_int_equal(list[n - 1], 32);
	free(list);
	static const char *const bad[] = { "%", "0%", "abc%", "10%%", "" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(ramp_users_resolve_cpus(bad[i], 8, out, sizeof(out), err, sizeof(err)),
				 -1);
	/* a share only where a count goes; messages quote the spec as given, without "-u:" */
	static const char *const odd[] = { "1e9%", "1e5%", "2x50%", "1-4/50%", "3 50%" };
	for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
		assert_int_equal(ramp_users_resolve_cpus(odd[i], 8, out, sizeof(out), err,
							 sizeof(err)), -1);
		char want[64];
		snprintf(want, sizeof(want), "cannot parse '%s'", odd[i]);
		if (!strstr(err, want))
			print_error("%s: got '%s'\n", odd[i], err);
		assert_non_null(strstr(err, want));
		assert_null(strstr(err, "-u"));
	}
	assert_int_equal(ramp_parse_users("1,,2", &list, &n, err, sizeof(err)), -1);
	assert_null(strstr(err, "-u"));
	assert_int_equal(ramp_parse_users("5-2", &list, &n, err, sizeof(err)), -1);
	assert_string_equal(err, "'5-2' is not ascending");
	assert_int_equal(ramp_users_resolve_cpus("100000000%", 8, out, sizeof(out), err,
						 sizeof(err)), -1);
	assert_non_null(strstr(err, "above"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_aim7_test_maps),
		cmocka_unit_test(test_shipped_mixes),
		cmocka_unit_test(test_all_workfiles_round_trip),
		cmocka_unit_test(test_config),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_hostile_inputs),
		cmocka_unit_test(test_import_data),
		cmocka_unit_test(test_reaim_args),
		cmocka_unit_test(test_adhoc),
		cmocka_unit_test(test_users_percent),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
