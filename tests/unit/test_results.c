// SPDX-License-Identifier: GPL-2.0-only
/*
 * The results writer: a hand-built workload and hand-made load points are
 * written to a run folder in a temporary directory after every point, read
 * back with jansson and checked key by key; folder naming, status
 * transitions, atomic replacement, points.csv; the reader against every
 * kind of broken run.json, res_find, the schema's tables.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <ftw.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "jobmix/atomic.h"
#include "jobmix/iotrace.h"
#include "jobmix/stats.h"
#include "jobmix/readfile.h"
#include "jobmix/job.h"
#include "jobmix/results.h"
#include "jobmix/wl_keys.h"
#include "jobmix/workload.h"
#include "jm_test.h"
#include "jobmix/run_record.h"

/*
 * Names owned by other modules (src/workload, src/ramp).  Weak, so that
 * the real definitions win when those objects are linked in; the checks
 * below compare against whatever these functions return.
 */
/* ---- a kind with one parameter of each type ------------------------------ */

struct tparams {
	int64_t count;
	uint64_t block;
	bool direct;
	int mode;
	unsigned flags;
	double ratio;
};

static const char *const t_modes[] = { "read", "write", "rw", NULL };
static const char *const t_flags[] = { "a", "b", "c", NULL };

static int t_run(struct job_ctx *c, const struct job_kind *k, const void *p, void *s)
{
	(void)c, (void)k, (void)p, (void)s;
	return 0;
}

static const struct job_kind t_kind = {
	.name = "t_params",
	.family = "test",
	.summary = "test kind",
	.params_size = sizeof(struct tparams),
	.params = {
		{ "count", JP_INT, offsetof(struct tparams, count), 0, 1e6, "7", NULL, "a count" },
		{ "block", JP_SIZE, offsetof(struct tparams, block), 512, 1e9, "16k", NULL, "block" },
		{ "direct", JP_BOOL, offsetof(struct tparams, direct), 0, 0, "true", NULL, "O_DIRECT" },
		{ "mode", JP_ENUM, offsetof(struct tparams, mode), 0, 0, "rw", t_modes, "mode" },
		{ "flags", JP_FLAGS, offsetof(struct tparams, flags), 0, 0, "a|c", t_flags, "flags" },
		{ "ratio", JP_DOUBLE, offsetof(struct tparams, ratio), 0, 1, "0.25", NULL, "ratio" },
		{ 0 },
	},
	.run_once = t_run,
};

/* ---- fixtures ---------------------------------------------------------- */

struct fx {
	char tmp[PATH_MAX];
	char out[PATH_MAX];
	struct workload wl;
	struct tparams tp;
	char *dirs[2];
	struct sys_env env;
	char mnt[PATH_MAX];    /* a tmpfs a test mounted, unmounted by teardown */
};

static void fake_workload(struct fx *f)
{
	struct workload *wl = &f->wl;
	static struct wl_entry mix[3];
	char err[256];

	memset(wl, 0, sizeof(*wl));
	memset(mix, 0, sizeof(mix));
	wl->path = "workloads/fserver.yaml";
	strcpy(wl->sha256, "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef");
	wl->name = "fserver";
	wl->description = "file server mix";
	wl->filesize = 10240;
	wl->poolsize = 1 << 20;
	f->dirs[0] = "/tmp/a";
	f->dirs[1] = "/tmp/b";
	wl->dirs = f->dirs;
	wl->ndirs = 2;
	wl->users = (struct wl_users){ .start = 1, .end = 8, .step = 2, .jobs_per_user = 10,
				       .mode = WL_RAMP_PEAK, .repeat = 3, .repeat_auto = true,
				       .as = WL_USERS_THREADS, .converge_jpm_per_user = 60,
				       .max_points = 40, .max_time_s = 600 };
	wl->measure = (struct wl_measure_cfg){ .how = WL_MEASURE_JOBS };
	wl->sync = JOB_SYNC_FILE;
	wl->seed = 42;

	mix[0].kind = job_find("creat_clo");
	assert_non_null(mix[0].kind);
	strcpy(mix[0].name, "creat_clo");
	mix[0].weight = 30;
	mix[1].kind = job_find("link_test");
	assert_non_null(mix[1].kind);
	strcpy(mix[1].name, "links");
	mix[1].weight = 5;
	mix[2].kind = &t_kind;
	strcpy(mix[2].name, "pattern");
	mix[2].weight = 10;
	assert_int_equal(job_params_defaults(&t_kind, &f->tp, err, sizeof(err)), 0);
	f->tp.block = 65536;
	mix[2].params = &f->tp;
	job_common_defaults(&mix[2].common);
	mix[2].set_mask = 1u << 1;   /* block given in the file */
	wl->mix = mix;
	wl->nmix = 3;
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	if (!f)
		return -1;
	snprintf(f->tmp, sizeof(f->tmp), "/tmp/jobmix-test-results.XXXXXX");
	if (!mkdtemp(f->tmp))
		return -1;
	snprintf(f->out, sizeof(f->out), "%s/nested/results", f->tmp);
	fake_workload(f);
	strcpy(f->env.kernel, "6.1.0-test");
	strcpy(f->env.hostname, "box");
	strcpy(f->env.machine, "x86_64");
	f->env.cpus = 8;
	f->env.mem_bytes = 16ULL << 30;
	strcpy(f->env.fs_type, "ext4");
	strcpy(f->env.mount_point, "/");
	strcpy(f->env.mount_options, "rw,relatime");
	strcpy(f->env.device, "");          /* none: written as null */
	strcpy(f->env.scheduler, "");
	strcpy(f->env.schedulers, "");
	strcpy(f->env.jobmix_version, "0.1.0");
	*state = f;
	return 0;
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(p);
}

static int teardown(void **state)
{
	struct fx *f = *state;
	atom_set_ops(NULL);
	if (f->mnt[0])
		umount2(f->mnt, MNT_DETACH);
	nftw(f->tmp, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(f);
	return 0;
}

/* A load point with every figure distinct, so a swapped field shows. */
static void fake_point(struct load_point *p, struct load_entry_stats *e, unsigned users,
		       double jpm, bool failed)
{
	memset(p, 0, sizeof(*p));
	memset(e, 0, 3 * sizeof(*e));
	p->users = users;
	p->jobs_per_user = 45;
	p->jobs = (uint64_t)users * 45;
	p->elapsed_s = 2.5 * users;
	p->jpm = jpm;
	p->jpm_per_user = jpm / users;
	p->user_time = (struct stats_summary){ .n = users, .min = 1.25, .max = 2.5, .mean = 2.0,
					       .stddev = 0.5 };
	p->jti = 75.0;
	p->user_cpu_s = 0.75;
	p->sys_cpu_s = 1.5;
	p->failed = failed;
	if (failed) {
		p->failed_users = 1;
		strcpy(p->reason, "user 3: creat_clo: creat '/w/u3/creat_clo' failed: No space left");
	}
	for (int i = 0; i < 3; i++) {
		e[i].runs = 10u * (unsigned)(i + 1);
		for (uint64_t k = 1; k <= e[i].runs; k++)
			stats_hist_add(&e[i].lat, k * 1000000ULL);   /* 1..runs ms */
	}
	e[2].io = (struct job_io){ .rbytes = 4000000, .wbytes = 2000000, .rops = 100, .wops = 50,
				   .rtime_ns = 500000000, .wtime_ns = 0 };
	p->nentries = 3;
	p->entries = e;
}

static json_t *load_json(const char *dir, const char *name)
{
	char p[PATH_MAX];
	json_error_t je;
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	json_t *j = json_load_file(p, 0, &je);
	if (!j)
		print_error("%s: %s\n", p, je.text);
	assert_non_null(j);
	return j;
}

static const json_t *get(const json_t *o, const char *k)
{
	const json_t *v = json_object_get(o, k);
	if (!v)
		print_error("missing key '%s'\n", k);
	assert_non_null(v);
	return v;
}

static double num(const json_t *o, const char *k)
{
	const json_t *v = get(o, k);
	assert_true(json_is_number(v));
	return json_number_value(v);
}

static const char *str(const json_t *o, const char *k)
{
	const json_t *v = get(o, k);
	assert_true(json_is_string(v));
	return json_string_value(v);
}

static void assert_close(double a, double b)
{
	if (fabs(a - b) > 1e-9 * (fabs(b) + 1))
		print_error("%.17g != %.17g\n", a, b);
	assert_true(fabs(a - b) <= 1e-9 * (fabs(b) + 1));
}

static int count_tmp(const char *dir)
{
	DIR *d = opendir(dir);
	assert_non_null(d);
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		if (l > 4 && !strcmp(e->d_name + l - 4, ".tmp"))
			n++;
	}
	closedir(d);
	return n;
}

/* Lines of points.csv; the rows are copied into rows[] (without newline). */
static int read_csv(const char *dir, char rows[][512], int max)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/points.csv", dir);
	FILE *f = fopen(p, "r");
	assert_non_null(f);
	int n = 0;
	char line[512];
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (n < max)
			strcpy(rows[n], line);
		n++;
	}
	fclose(f);
	return n;
}

/* ---- checks on the document ---------------------------------------------- */

static void check_workload(const json_t *doc, const struct workload *wl)
{
	const json_t *w = get(doc, "workload");
	assert_string_equal(str(w, "path"), wl->path);
	assert_string_equal(str(w, "sha256"), wl->sha256);
	assert_string_equal(str(w, "name"), "fserver");
	assert_string_equal(str(w, "description"), "file server mix");
	const json_t *r = get(w, "resolved");
	assert_true(json_is_integer(get(r, "filesize")));
	assert_int_equal(json_integer_value(get(r, "filesize")), 10240);
	assert_int_equal(json_integer_value(get(r, "poolsize")), 1 << 20);
	const json_t *dirs = get(r, "dirs");
	assert_int_equal(json_array_size(dirs), 2);
	assert_string_equal(json_string_value(json_array_get(dirs, 1)), "/tmp/b");
	const json_t *u = get(r, "users");
	assert_int_equal(json_integer_value(get(u, "start")), 1);
	assert_int_equal(json_integer_value(get(u, "end")), 8);
	assert_int_equal(json_integer_value(get(u, "step")), 2);
	assert_int_equal(json_integer_value(get(u, "jobs_per_user")), 10);
	assert_string_equal(str(u, "mode"), wl_ramp_mode_name(WL_RAMP_PEAK));
	assert_int_equal(json_integer_value(get(u, "repeat")), 3);
	assert_true(json_is_true(get(u, "repeat_auto")));
	assert_string_equal(str(u, "as"), "threads");
	assert_close(num(u, "converge_jpm_per_user"), 60);
	assert_int_equal(json_integer_value(get(u, "max_points")), 40);
	assert_close(num(u, "max_time_s"), 600);
	assert_string_equal(str(r, "sync"), wl_sync_name(JOB_SYNC_FILE));
	assert_int_equal(json_integer_value(get(r, "seed")), 42);
	const json_t *m = get(r, "measure");
	assert_string_equal(str(m, "how"), "jobs");
	num(m, "duration_s");
	num(m, "ramp_s");
	num(m, "steady_pct");
	num(m, "steady_windows");

	const json_t *mix = get(r, "mix");
	assert_int_equal(json_array_size(mix), 3);
	const json_t *e0 = json_array_get(mix, 0), *e1 = json_array_get(mix, 1),
		     *e2 = json_array_get(mix, 2);
	assert_string_equal(str(e0, "job"), "creat_clo");
	assert_int_equal(json_integer_value(get(e0, "weight")), 30);
	assert_int_equal(json_object_size(get(e0, "params")), 0);
	assert_string_equal(str(e1, "job"), "link_test");
	assert_string_equal(str(e1, "name"), "links");
	assert_string_equal(str(e2, "job"), "t_params");
	assert_string_equal(str(e2, "name"), "pattern");
	assert_int_equal(json_integer_value(get(e2, "weight")), 10);
	const json_t *p = get(e2, "params");
	assert_int_equal(json_object_size(p), 6 + JOB_NCOMMON);   /* its own, then scale */
	assert_true(json_real_value(get(p, "scale")) == 1.0);
	assert_true(json_is_integer(get(p, "count")));
	assert_int_equal(json_integer_value(get(p, "count")), 7);
	assert_true(json_is_integer(get(p, "block")));
	assert_int_equal(json_integer_value(get(p, "block")), 65536);
	assert_true(json_is_true(get(p, "direct")));
	assert_string_equal(str(p, "mode"), "rw");
	const json_t *fl = get(p, "flags");
	assert_int_equal(json_array_size(fl), 2);
	assert_string_equal(json_string_value(json_array_get(fl, 0)), "a");
	assert_string_equal(json_string_value(json_array_get(fl, 1)), "c");
	assert_true(json_is_real(get(p, "ratio")));
	assert_close(num(p, "ratio"), 0.25);
	const json_t *set = get(e2, "params_set");
	assert_int_equal(json_array_size(set), 1);
	assert_string_equal(json_string_value(json_array_get(set, 0)), "block");
}

static void check_env(const json_t *doc)
{
	const json_t *e = get(doc, "env");
	assert_string_equal(str(e, "kernel"), "6.1.0-test");
	assert_string_equal(str(e, "hostname"), "box");
	assert_string_equal(str(e, "machine"), "x86_64");
	assert_int_equal(json_integer_value(get(e, "cpus")), 8);
	assert_true(json_is_integer(get(e, "mem_bytes")));
	assert_int_equal(json_integer_value(get(e, "mem_bytes")), 16LL << 30);
	assert_string_equal(str(e, "fs_type"), "ext4");
	assert_string_equal(str(e, "mount_point"), "/");
	assert_string_equal(str(e, "mount_options"), "rw,relatime");
	assert_true(json_is_null(get(e, "device")));
	assert_true(json_is_null(get(e, "scheduler")));
	assert_string_equal(str(e, "schedulers"), "");
	assert_string_equal(str(e, "jobmix_version"), "0.1.0");
}

/* Point i of the document against the load_point it came from. */
static void check_point(const json_t *pt, const struct load_point *p, unsigned sample)
{
	assert_int_equal(json_integer_value(get(pt, "users")), p->users);
	assert_int_equal(json_integer_value(get(pt, "sample")), sample);
	assert_int_equal(json_integer_value(get(pt, "jobs_per_user")), 45);
	assert_int_equal(json_integer_value(get(pt, "jobs")), p->jobs);
	assert_close(num(pt, "elapsed_s"), p->elapsed_s);
	assert_close(num(pt, "jpm"), p->jpm);
	assert_close(num(pt, "jpm_per_user"), p->jpm_per_user);
	const json_t *t = get(pt, "user_time_s");
	assert_close(num(t, "min"), 1.25);
	assert_close(num(t, "max"), 2.5);
	assert_close(num(t, "mean"), 2.0);
	assert_close(num(t, "stddev"), 0.5);
	assert_close(num(pt, "jti"), 75);
	assert_close(num(pt, "user_cpu_s"), 0.75);
	assert_close(num(pt, "sys_cpu_s"), 1.5);
	assert_true(json_is_boolean(get(pt, "failed")));
	assert_int_equal(json_is_true(get(pt, "failed")), p->failed);
	assert_int_equal(json_integer_value(get(pt, "failed_users")), p->failed_users);
	if (p->failed)
		assert_string_equal(str(pt, "reason"), p->reason);
	else
		assert_true(json_is_null(get(pt, "reason")));
	assert_true(json_is_false(get(pt, "interrupted")));
	assert_true(json_is_null(get(pt, "steady")));   /* jobs mode */

	const json_t *k = get(pt, "jobs_by_kind");
	assert_int_equal(json_object_size(k), 3);
	const json_t *c = get(k, "creat_clo"), *l = get(k, "links"), *x = get(k, "pattern");
	assert_string_equal(str(c, "job"), "creat_clo");
	assert_string_equal(str(l, "job"), "link_test");
	assert_string_equal(str(x, "job"), "t_params");
	assert_int_equal(json_integer_value(get(c, "runs")), 10);
	assert_int_equal(json_integer_value(get(x, "runs")), 30);
	/* runs of 1..30 ms: mean 15.5 ms, sum 465 ms */
	assert_close(num(x, "mean_ms"), 15.5);
	assert_close(num(x, "job_time_s"), 0.465);
	assert_close(num(x, "max_ms"), 30);
	assert_close(num(x, "p50_ms"), stats_hist_quantile(&p->entries[2].lat, 0.5) / 1e6);
	assert_close(num(x, "p99_ms"), stats_hist_quantile(&p->entries[2].lat, 0.99) / 1e6);
	double p50 = num(x, "p50_ms"), p99 = num(x, "p99_ms");
	assert_true(p50 > 13 && p50 < 17);   /* histogram resolution ~9% */
	assert_true(p99 > 27 && p99 <= 30);
	assert_close(num(c, "mean_ms"), 5.5);
	assert_int_equal(json_integer_value(get(x, "rbytes")), 4000000);
	assert_int_equal(json_integer_value(get(x, "wbytes")), 2000000);
	assert_int_equal(json_integer_value(get(x, "rops")), 100);
	assert_int_equal(json_integer_value(get(x, "wops")), 50);
	/* one user's rates: over its read phase, else its job time */
	assert_close(num(x, "read_time_s"), 0.5);               /* rtime 0.5 s */
	assert_close(num(x, "write_time_s"), 0.465);            /* no wtime: job time */
	assert_close(num(x, "read_mb_s_user"), 4.0 / 0.5);
	assert_close(num(x, "write_mb_s_user"), 2.0 / 0.465);
	assert_close(num(x, "reads_s_user"), 100 / 0.5);
	assert_close(num(x, "writes_s_user"), 50 / 0.465);
	assert_close(num(x, "iops_user"), 150 / 0.465);
	/* all users': a phase as long as the jobs is the point's wall time */
	assert_close(num(x, "read_mb_s"), 4.0 / p->elapsed_s);
	assert_close(num(x, "write_mb_s"), 2.0 / p->elapsed_s);
	assert_close(num(x, "reads_s"), 100 / p->elapsed_s);
	assert_close(num(x, "writes_s"), 50 / p->elapsed_s);
	assert_close(num(x, "iops"), 150 / p->elapsed_s);
	/* the whole point's share, named so */
	assert_close(num(x, "read_mb_s_point"), 4.0 / p->elapsed_s);
	assert_close(num(x, "write_mb_s_point"), 2.0 / p->elapsed_s);
	assert_close(num(x, "iops_point"), 150 / p->elapsed_s);
	assert_close(num(x, "reads_s_point"), 100 / p->elapsed_s);
	assert_null(json_object_get(x, "read_mb_s_job"));       /* version 5: no *_job keys */
	assert_true(json_is_null(get(x, "extents")));           /* not measured */
	assert_int_equal(json_integer_value(get(c, "rbytes")), 0);
	assert_close(num(c, "read_mb_s"), 0);
	assert_close(num(c, "read_mb_s_point"), 0);
}

/* ---- tests -------------------------------------------------------------- */

static const char *const top_keys[] = { "schema", "status", "started", "finished", "command",
					"workload", "fingerprint", "owner", "users", "labels", "env",
					"warmup", "points", "summary", NULL };

static void test_full_run(void **state)
{
	struct fx *f = *state;
	char err[512] = "";
	char *argv[] = { "jobmix", "run", "workloads/fserver.yaml", "-L", "kernel=6.2-rc1" };
	struct res_label labels[2] = { { "kernel", "6.2-rc1" }, { "host", "lab 7" } };

	struct res_run *r = rec_run_create(f->out, &f->wl, &f->env, labels, 2, 5, argv, err,
					   sizeof(err));
	if (!r)
		print_error("%s\n", err);
	assert_non_null(r);
	const char *dir = res_run_dir(r);
	/* <out>/<YYYYmmdd-HHMMSS>-fserver */
	assert_int_equal(strncmp(dir, f->out, strlen(f->out)), 0);
	const char *leaf = dir + strlen(f->out) + 1;
	assert_int_equal(strlen(leaf), 15 + 1 + strlen("fserver"));
	assert_true(leaf[8] == '-' && leaf[15] == '-');
	assert_string_equal(leaf + 16, "fserver");

	/* written at once, status running */
	json_t *doc = load_json(dir, "run.json");
	for (int i = 0; top_keys[i]; i++)
		get(doc, top_keys[i]);
	assert_int_equal(json_object_size(doc), 14);
	assert_true(json_is_null(get(doc, "warmup")));
	assert_true(json_is_null(get(doc, "users")));   /* no -u given */
	assert_string_equal(str(doc, "schema"), RES_SCHEMA);
	assert_string_equal(str(doc, "status"), "running");
	const char *started = str(doc, "started");
	assert_int_equal(strlen(started), 20);   /* 2024-01-02T03:04:05Z */
	assert_true(started[4] == '-' && started[10] == 'T' && started[19] == 'Z');
	/* the stamp in the folder name is the same instant */
	char stamp[32];
	snprintf(stamp, sizeof(stamp), "%.4s%.2s%.2s-%.2s%.2s%.2s", started, started + 5,
		 started + 8, started + 11, started + 14, started + 17);
	assert_int_equal(strncmp(leaf, stamp, 15), 0);
	assert_true(json_is_null(get(doc, "finished")));
	const json_t *cmd = get(doc, "command");
	assert_int_equal(json_array_size(cmd), 5);
	assert_string_equal(json_string_value(json_array_get(cmd, 4)), "kernel=6.2-rc1");
	const json_t *lab = get(doc, "labels");
	assert_int_equal(json_object_size(lab), 2);
	assert_string_equal(str(lab, "kernel"), "6.2-rc1");
	assert_string_equal(str(lab, "host"), "lab 7");
	check_workload(doc, &f->wl);
	check_env(doc);
	assert_int_equal(json_array_size(get(doc, "points")), 0);
	const json_t *s0 = get(doc, "summary");
	assert_true(json_is_null(get(s0, "max_jpm")));
	assert_true(json_is_null(get(s0, "noise_sd_rel")));
	assert_int_equal(json_integer_value(get(s0, "noise_df")), 0);
	assert_true(json_is_null(get(s0, "peak_users_lo")));
	assert_int_equal(json_array_size(get(s0, "by_users")), 0);
	json_decref(doc);

	/* three points, written after each */
	struct load_point pts[5];
	struct load_entry_stats ent[5][3];
	fake_point(&pts[0], ent[0], 1, 1000.5, false);
	fake_point(&pts[1], ent[1], 2, 1800.25, false);
	fake_point(&pts[2], ent[2], 4, 5000, true);   /* failed: not a maximum */
	char rows[8][512];
	for (int i = 0; i < 3; i++) {
		assert_int_equal(rec_add_point(r, &pts[i], (unsigned)i % 2, &f->wl), 0);
		assert_int_equal(res_run_write(r, RES_RUNNING, err, sizeof(err)), 0);
		assert_int_equal(count_tmp(dir), 0);
		doc = load_json(dir, "run.json");
		assert_string_equal(str(doc, "status"), "running");
		const json_t *points = get(doc, "points");
		assert_int_equal(json_array_size(points), (size_t)i + 1);
		for (int k = 0; k <= i; k++)
			check_point(json_array_get(points, (size_t)k), &pts[k], (unsigned)k % 2);
		const json_t *s = get(doc, "summary");
		assert_close(num(s, "max_jpm"), i == 0 ? 1000.5 : 1800.25);
		assert_int_equal(json_integer_value(get(s, "max_jpm_users")), i == 0 ? 1 : 2);
		json_decref(doc);
		assert_int_equal(read_csv(dir, rows, 8), i + 2);
	}
	assert_string_equal(rows[0], "users,sample,jobs_per_user,jobs,elapsed_s,jpm,jpm_per_user,"
				     "t_min,t_max,t_mean,t_stddev,jti,user_cpu_s,sys_cpu_s,failed,"
				     "failed_users,jobs_per_cpu_s,interfered,remeasured");
	assert_string_equal(rows[2], "2,1,45,90,5,1800.25,900.125,1.25,2.5,2,0.5,75,0.75,1.5,0,0,"
				     "40,,0");
	assert_string_equal(rows[3], "4,0,45,180,10,5000,1250,1.25,2.5,2,0.5,75,0.75,1.5,1,1,"
				     "80,,0");
	/* the samples the summary below gives (it must agree with the points, or is refused) */
	fake_point(&pts[3], ent[3], 2, 1790, false);
	fake_point(&pts[4], ent[4], 4, 240, false);
	assert_int_equal(rec_add_point(r, &pts[3], 1, &f->wl), 0);
	assert_int_equal(rec_add_point(r, &pts[4], 0, &f->wl), 0);

	/* summary, then complete */
	struct ramp_obs obs[2] = { { .users = 1, .n = 1, .jpm = { 1000.5 }, .mean = 1000.5 },
				   { .users = 2, .n = 2, .jpm = { 1800.25, 1790 }, .mean = 1795.125,
				     .sd = 7.25, .ci_lo = 1730, .ci_hi = 1860 } };
	struct ramp_summary sm = { .have_peak = true, .peak_users = 2, .peak_jpm = 1795.125,
				   .have_converge = false, .stop_reason = RAMP_DONE,
				   .noise_rel = 0.004, .noise_df = 1, .peak_beaten = true,
				   .best_users = 2, .best_jpm = 1795.125,
				   .peak_users_lo = 1, .peak_users_hi = 2 };
	assert_int_equal(rec_set_summary(r, obs, 2, &sm, 3, 12.5), 0);
	assert_int_equal(res_run_write(r, RES_COMPLETE, err, sizeof(err)), 0);
	assert_int_equal(count_tmp(dir), 0);
	doc = load_json(dir, "run.json");
	assert_string_equal(str(doc, "status"), "complete");
	const char *fin = str(doc, "finished");
	assert_int_equal(strlen(fin), 20);
	assert_true(strcmp(fin, str(doc, "started")) >= 0);
	const json_t *s = get(doc, "summary");
	assert_close(num(s, "max_jpm"), 1800.25);
	assert_int_equal(json_integer_value(get(s, "max_jpm_users")), 2);
	assert_close(num(s, "peak_jpm"), 1795.125);
	assert_int_equal(json_integer_value(get(s, "peak_users")), 2);
	assert_true(json_is_null(get(s, "converge_jpm")));
	assert_true(json_is_null(get(s, "converge_users")));
	assert_close(num(s, "best_jpm"), 1795.125);   /* the ramp's best, written with the peak */
	assert_int_equal(json_integer_value(get(s, "points_measured")), 3);
	assert_close(num(s, "wall_s"), 12.5);
	assert_close(num(s, "noise_sd_rel"), 0.004);
	assert_true(json_is_true(get(s, "peak_beaten")));
	assert_int_equal(json_integer_value(get(s, "noise_df")), 1);
	assert_int_equal(json_integer_value(get(s, "peak_users_lo")), 1);
	assert_int_equal(json_integer_value(get(s, "peak_users_hi")), 2);
	assert_string_equal(str(s, "stop_reason"), ramp_stop_name(RAMP_DONE));
	const json_t *by = get(s, "by_users");
	assert_int_equal(json_array_size(by), 2);
	const json_t *b1 = json_array_get(by, 1);
	assert_int_equal(json_integer_value(get(b1, "users")), 2);
	assert_int_equal(json_integer_value(get(b1, "n")), 2);
	assert_close(num(b1, "jpm_mean"), 1795.125);
	assert_close(num(b1, "jpm_sd"), 7.25);
	assert_close(num(b1, "ci95_lo"), 1730);
	assert_close(num(b1, "ci95_hi"), 1860);
	assert_true(json_is_false(get(b1, "failed")));
	assert_int_equal(json_array_size(get(b1, "jpm_samples")), 2);
	assert_close(json_number_value(json_array_get(get(b1, "jpm_samples"), 1)), 1790);
	json_decref(doc);

	/* convergence recorded when present; an unknown status is refused */
	sm.have_converge = true;
	sm.converge_users = 4;
	sm.converge_jpm = 240;
	sm.best_jpm = 1800.25;
	sm.best_users = 2;
	assert_int_equal(rec_set_summary(r, obs, 2, &sm, 3, 12.5), 0);
	assert_int_equal(res_run_write(r, (enum res_status)7, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "unknown run status"));
	assert_int_equal(res_run_write(r, RES_INTERRUPTED, err, sizeof(err)), 0);
	doc = load_json(dir, "run.json");
	assert_string_equal(str(doc, "status"), "interrupted");
	s = get(doc, "summary");
	assert_int_equal(json_integer_value(get(s, "converge_users")), 4);
	assert_close(num(s, "converge_jpm"), 240);
	assert_close(num(s, "best_jpm"), 1800.25);
	assert_int_equal(json_integer_value(get(s, "best_users")), 2);
	assert_null(json_object_get(s, "converge_max_jpm"));   /* a name that said maximum */
	json_decref(doc);

	/* res_read gives back every field the writer wrote, from the folder and the file */
	struct res_rec rec;
	assert_int_equal(res_read(dir, RES_READ_KINDS, &rec, err, sizeof(err)), 0);
	assert_int_equal(rec.schema_version, RES_SCHEMA_VERSION);
	assert_int_equal(rec.status, RES_INTERRUPTED);
	assert_string_equal(rec.wl_name, "fserver");
	assert_string_equal(rec.wl_path, "workloads/fserver.yaml");
	assert_string_equal(rec.wl_description, "file server mix");
	assert_string_equal(rec.id, leaf);
	assert_string_equal(res_rec_get(&rec, "kernel"), "6.2-rc1");   /* the label wins */
	assert_string_equal(res_rec_get(&rec, "hostname"), "box");     /* env */
	assert_string_equal(res_rec_get(&rec, "cpus"), "8");
	assert_string_equal(res_rec_get(&rec, "host"), "lab 7");
	assert_string_equal(res_rec_get(&rec, "workload"), "fserver");
	assert_null(res_rec_get(&rec, "nonesuch"));
	assert_int_equal(rec.npoints, 5);
	for (int i = 0; i < 5; i++) {
		const struct res_point *rp = &rec.points[i];
		assert_int_equal(rp->users, pts[i].users);
		assert_int_equal(rp->sample, (unsigned)i % 2);
		assert_close(rp->jpm, pts[i].jpm);
		assert_close(rp->t_stddev, pts[i].user_time.stddev);
		assert_int_equal(rp->failed, pts[i].failed);
		assert_int_equal(rp->steady_checked, -1);
		assert_int_equal(rp->nkinds, 3);
		assert_string_equal(rp->kinds[1].name, "links");
		assert_string_equal(rp->kinds[1].job, "link_test");
		assert_int_equal(rp->kinds[1].runs, pts[i].entries[1].runs);
	}
	assert_close(rec.summary.max_jpm, 1800.25);
	assert_int_equal(rec.summary.max_jpm_users, 2);
	assert_int_equal(rec.summary.converge_users, 4);
	assert_close(rec.summary.converge_jpm, 240);
	assert_true(rec.summary.peak_beaten);
	assert_string_equal(rec.summary.stop_reason, "done");
	assert_int_equal(rec.summary.nby, 2);
	assert_int_equal(rec.summary.by[1].n, 2);
	assert_close(rec.summary.by[1].samples[1], 1790);
	assert_close(rec.summary.by[1].ci95_hi, 1860);
	res_rec_free(&rec);
	char file[PATH_MAX];
	snprintf(file, sizeof(file), "%s/run.json", dir);
	assert_int_equal(res_read(file, 0, &rec, err, sizeof(err)), 0);
	assert_int_equal(rec.points[0].nkinds, 0);   /* not asked for */
	assert_null(rec.points[0].kinds);
	res_rec_free(&rec);
	res_run_free(r);
}

/* A second run in the same second gets its own folder: -2. */
static void test_same_second(void **state)
{
	struct fx *f = *state;
	char err[512];
	char *argv[] = { "jobmix" };
	struct res_run *a = NULL, *b = NULL;
	for (int tries = 0; tries < 5; tries++) {
		/* a fresh folder each try: a try that crossed a second leaves its runs */
		char out[PATH_MAX];
		snprintf(out, sizeof(out), "%s/try%d", f->out, tries);
		time_t t0 = time(NULL);
		a = rec_run_create(out, &f->wl, NULL, NULL, 0, 1, argv, err, sizeof(err));
		b = rec_run_create(out, &f->wl, NULL, NULL, 0, 1, argv, err, sizeof(err));
		assert_non_null(a);
		assert_non_null(b);
		assert_string_not_equal(res_run_dir(a), res_run_dir(b));
		if (time(NULL) == t0)
			break;
		res_run_free(a);
		res_run_free(b);
		a = b = NULL;
	}
	assert_non_null(a);
	char want[PATH_MAX];
	snprintf(want, sizeof(want), "%s-2", res_run_dir(a));
	assert_string_equal(res_run_dir(b), want);
	/* both hold their own run.json; env NULL is recorded as null */
	json_t *ja = load_json(res_run_dir(a), "run.json");
	json_t *jb = load_json(res_run_dir(b), "run.json");
	assert_true(json_is_null(get(ja, "env")));
	assert_true(json_is_null(get(jb, "env")));
	json_decref(ja);
	json_decref(jb);
	res_run_free(a);
	res_run_free(b);
}

/* A workload name with '/', spaces or a leading dot cannot escape the folder. */
static void test_folder_name_sanitized(void **state)
{
	struct fx *f = *state;
	char err[512];
	char *argv[] = { "jobmix" };
	f->wl.name = "../my mix/v2";
	struct res_run *r = rec_run_create(f->out, &f->wl, NULL, NULL, 0, 1, argv, err,
					   sizeof(err));
	assert_non_null(r);
	const char *leaf = res_run_dir(r) + strlen(f->out) + 1;
	assert_null(strchr(leaf, '/'));
	assert_string_equal(leaf + 16, ".._my_mix_v2");
	json_t *j = load_json(res_run_dir(r), "run.json");
	assert_string_equal(str(get(j, "workload"), "name"), "../my mix/v2");
	json_decref(j);
	res_run_free(r);
}

/* Points in run.json and rows of points.csv (header aside) of a run folder. */
static void count_both(const char *dir, size_t *json_points, int *csv_rows)
{
	char rows[512][512];
	json_t *j = load_json(dir, "run.json");
	*json_points = json_array_size(get(j, "points"));
	json_decref(j);
	*csv_rows = read_csv(dir, rows, 512) - 1;
}

/* fsync fails with ENOSPC for the temp file whose name holds `victim`. */
static const char *victim;
static int fsync_fails_for(int fd)
{
	char link[64], target[PATH_MAX];
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, target, sizeof(target) - 1);
	target[n > 0 ? n : 0] = 0;
	if (victim && strstr(target, victim)) {
		errno = ENOSPC;
		return -1;
	}
	return fsync(fd);
}

/*
 * A write that fails (the file system full when run.json's temp, or
 * points.csv's, is fsynced) replaces neither file: run.json and points.csv
 * agree on the points, err says where and why, no temp file is left, and
 * the next write puts both in place.
 */
static void test_write_failure_keeps_old(void **state)
{
	struct fx *f = *state;
	static const char *const victims[] = { "/.run.json.", "/.points.csv." };
	static const struct atom_ops ops = { .fsync = fsync_fails_for };
	char err[512] = "";
	char *argv[] = { "jobmix" };
	struct res_run *r = rec_run_create(f->out, &f->wl, NULL, NULL, 0, 1, argv, err,
					   sizeof(err));
	assert_non_null(r);
	struct load_point p;
	struct load_entry_stats e[3];
	size_t np;
	int rows;
	fake_point(&p, e, 3, 900, false);
	assert_int_equal(rec_add_point(r, &p, 0, &f->wl), 0);
	for (size_t v = 0; v < 2; v++) {
		victim = victims[v];
		atom_set_ops(&ops);
		assert_int_equal(res_run_write(r, RES_COMPLETE, err, sizeof(err)), -1);
		atom_set_ops(NULL);
		assert_non_null(strstr(err, res_run_dir(r)));
		assert_non_null(strstr(err, v ? "points.csv" : "run.json"));
		assert_non_null(strstr(err, strerror(ENOSPC)));
		json_t *j = load_json(res_run_dir(r), "run.json");
		assert_string_equal(str(j, "status"), "running");
		json_decref(j);
		count_both(res_run_dir(r), &np, &rows);
		assert_int_equal(np, 0);
		assert_int_equal(rows, 0);
		assert_int_equal(count_tmp(res_run_dir(r)), 0);
	}
	assert_int_equal(res_run_write(r, RES_COMPLETE, err, sizeof(err)), 0);
	json_t *j = load_json(res_run_dir(r), "run.json");
	assert_string_equal(str(j, "status"), "complete");
	json_decref(j);
	count_both(res_run_dir(r), &np, &rows);
	assert_int_equal(np, 1);
	assert_int_equal(rows, 1);
	res_run_free(r);
}

/*
 * A real full file system: points written to a run on a 64 KiB tmpfs until
 * a write fails; run.json and points.csv then hold the same points.  Root
 * only (mount), else skipped.
 */
static void test_full_tmpfs_agree(void **state)
{
	struct fx *f = *state;
	char err[512] = "", out[PATH_MAX + 16];
	char *argv[] = { "jobmix" };
	if (geteuid() != 0) {
		print_message("SKIP: not root: no tmpfs to fill\n");
		skip();
	}
	snprintf(f->mnt, sizeof(f->mnt), "%s/tiny", f->tmp);
	assert_int_equal(mkdir(f->mnt, 0755), 0);
	if (mount("tmpfs", f->mnt, "tmpfs", MS_NOSUID | MS_NODEV, "size=64k,mode=0755")) {
		print_message("SKIP: cannot mount a tmpfs: %s\n", strerror(errno));
		f->mnt[0] = 0;
		skip();
	}
	snprintf(out, sizeof(out), "%s/results", f->mnt);
	struct res_run *r = rec_run_create(out, &f->wl, NULL, NULL, 0, 1, argv, err, sizeof(err));
	assert_non_null(r);
	struct load_point p;
	struct load_entry_stats e[3];
	unsigned written = 0;
	for (unsigned u = 1; u <= 400; u++) {
		fake_point(&p, e, u, 900 + u, false);
		assert_int_equal(rec_add_point(r, &p, 0, &f->wl), 0);
		if (res_run_write(r, RES_RUNNING, err, sizeof(err)))
			break;
		written = u;
	}
	assert_true(written > 0 && written < 400);   /* it did fill up, not at once */
	assert_non_null(strstr(err, strerror(ENOSPC)));
	size_t np;
	int rows;
	count_both(res_run_dir(r), &np, &rows);
	if ((int)np != rows)
		print_error("after %u points: run.json has %zu, points.csv %d\n", written, np, rows);
	assert_int_equal((int)np, rows);
	assert_int_equal(np, written);
	res_run_free(r);
}

/*
 * The run folder renamed away and a link to another folder put in its
 * place between two writes (the run id is predictable): the later write
 * goes into the real folder, nothing into the other.
 */
static void test_folder_swapped(void **state)
{
	struct fx *f = *state;
	char err[512] = "", dir[PATH_MAX], moved[PATH_MAX + 8], other[PATH_MAX];
	char *argv[] = { "jobmix" };
	struct res_run *r = rec_run_create(f->out, &f->wl, NULL, NULL, 0, 1, argv, err,
					   sizeof(err));
	assert_non_null(r);
	struct load_point p;
	struct load_entry_stats e[3];
	fake_point(&p, e, 1, 900, false);
	assert_int_equal(rec_add_point(r, &p, 0, &f->wl), 0);
	assert_int_equal(res_run_write(r, RES_RUNNING, err, sizeof(err)), 0);
	snprintf(dir, sizeof(dir), "%s", res_run_dir(r));
	snprintf(moved, sizeof(moved), "%s.moved", dir);
	snprintf(other, sizeof(other), "%s/other", f->tmp);
	assert_int_equal(mkdir(other, 0755), 0);
	assert_int_equal(rename(dir, moved), 0);
	assert_int_equal(symlink(other, dir), 0);
	fake_point(&p, e, 2, 1700, false);
	assert_int_equal(rec_add_point(r, &p, 0, &f->wl), 0);
	assert_int_equal(res_run_write(r, RES_COMPLETE, err, sizeof(err)), 0);
	if (count_entries(other))
		print_error("written into the other folder: %d entries\n", count_entries(other));
	assert_int_equal(count_entries(other), 0);
	json_t *j = load_json(moved, "run.json");
	assert_string_equal(str(j, "status"), "complete");
	assert_int_equal(json_array_size(get(j, "points")), 2);
	json_decref(j);
	size_t np;
	int rows;
	count_both(moved, &np, &rows);
	assert_int_equal(rows, 2);
	res_run_free(r);
}

/* An output directory that cannot be created is an error naming it. */
static void test_bad_outdir(void **state)
{
	struct fx *f = *state;
	char err[512] = "", path[PATH_MAX], out[PATH_MAX];
	char *argv[] = { "jobmix" };
	snprintf(path, sizeof(path), "%s/plainfile", f->tmp);
	FILE *fp = fopen(path, "w");
	assert_non_null(fp);
	fclose(fp);
	snprintf(out, sizeof(out), "%s/sub", path);
	assert_null(rec_run_create(out, &f->wl, NULL, NULL, 0, 1, argv, err, sizeof(err)));
	assert_non_null(strstr(err, path));
	assert_null(rec_run_create(path, &f->wl, NULL, NULL, 0, 1, argv, err, sizeof(err)));
	assert_non_null(strstr(err, "Not a directory"));
}

static void write_file(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

/* A broken run.json is refused with its path and the reason; *out is left empty. */
static void expect_refused(const char *path, const char *text, const char *why)
{
	char err[1024];
	struct res_rec rec;
	if (text)
		write_file(path, text);
	assert_int_equal(res_read(path, RES_READ_KINDS, &rec, err, sizeof(err)), -1);
	if (!strstr(err, why))
		print_error("'%s' does not say '%s'\n", err, why);
	assert_non_null(strstr(err, why));
	assert_int_equal(rec.npoints, 0);
	assert_null(rec.points);
	assert_null(rec.labels);
}

#define RUN_HEAD "{\"schema\": \"jobmix-run/1\", \"status\": \"complete\", " \
		 "\"workload\": {\"name\": \"w\"}, "

static void test_read_rejects(void **state)
{
	struct fx *f = *state;
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/wrong.json", f->tmp);
	expect_refused(p, "{\"schema\": \"jobmix-run/99\", \"points\": []}\n", "jobmix-run/99");
	expect_refused(p, "{\"schema\": \"jobmix-run/0\"}\n", "unsupported schema");
	expect_refused(p, "{\"schema\": \"jobmix-run/1x\"}\n", "unsupported schema");
	expect_refused(p, "{\"schema\": \"fio-run/1\"}\n", "unsupported schema");
	expect_refused(p, "{\"points\": []}\n", "no \"schema\"");
	expect_refused(p, "[1, 2]\n", "not a jobmix run");
	expect_refused(p, "", p);                                  /* empty file */
	expect_refused(p, "{\"schema\": \n", p);                  /* truncated */
	expect_refused(p, RUN_HEAD "\"points\": [{\"users\": 1, \"jpm\": 5", p);
	expect_refused(p, "\x01\x02garbage", p);
	expect_refused(p, "{\"schema\": \"jobmix-run/1\", \"schema\": \"jobmix-run/1\"}", p);
	expect_refused(p, "{\"schema\": \"jobmix-run/1\", \"workload\": {\"name\": \"w\"}}",
		       "no run status");
	expect_refused(p, "{\"schema\": \"jobmix-run/1\", \"status\": \"complete\"}",
		       "no workload name");
	expect_refused(p, RUN_HEAD "\"status\": \"done\", \"points\": []}", p);   /* duplicate key */
	expect_refused(p, "{\"schema\": \"jobmix-run/1\", \"status\": \"done\", "
			  "\"workload\": {\"name\": \"w\"}, \"points\": []}", "'status' should be");
	expect_refused(p, RUN_HEAD "\"summary\": {}}", "no 'points'");
	expect_refused(p, RUN_HEAD "\"points\": {}}", "'points' is not an array");
	expect_refused(p, RUN_HEAD "\"points\": [{\"users\": \"ten\"}]}", "points[0]: 'users'");
	expect_refused(p, RUN_HEAD "\"points\": [{\"users\": -3}]}", "points[0]: 'users'");
	expect_refused(p, RUN_HEAD "\"points\": [{\"jpm\": true}]}", "'jpm' should be a number");
	expect_refused(p, RUN_HEAD "\"points\": [{\"user_time_s\": 4}]}", "'user_time_s' is not");
	expect_refused(p, RUN_HEAD "\"points\": [7]}", "points[0]: not an object");
	expect_refused(p, RUN_HEAD "\"points\": [{\"jobs_by_kind\": {\"a\": {\"runs\": 1.5e300, "
			  "\"mean_ms\": \"x\"}}}]}", "jobs_by_kind.a: 'mean_ms'");
	expect_refused(p, RUN_HEAD "\"points\": [], \"summary\": {\"by_users\": "
			  "[{\"users\": 2, \"n\": 2, \"jpm_samples\": [1]}]}}", "1 jpm_samples for n = 2");
	expect_refused(p, RUN_HEAD "\"points\": [], \"summary\": {\"peak_jpm\": \"1\"}}",
		       "summary: 'peak_jpm'");
	expect_refused(p, RUN_HEAD "\"points\": [], \"labels\": [1]}", "must be objects");
	/* a summary that contradicts its own points (issue 40: compare said "better") */
	expect_refused(p, RUN_HEAD "\"points\": [{\"users\": 4, \"jpm\": 5000}], \"summary\": "
			  "{\"peak_jpm\": 1e308, \"peak_users\": 4}}",
		       "summary.peak_jpm 1e+308 at 4 users contradicts its points: they measured "
		       "5000 JPM there");
	expect_refused(p, RUN_HEAD "\"points\": [{\"users\": 4, \"jpm\": 5000}, {\"users\": 4, "
			  "\"jpm\": 5200}], \"summary\": {\"max_jpm\": 5201, \"max_jpm_users\": 4}}",
		       "summary.max_jpm 5201 at 4 users contradicts its points: they measured 5000 "
		       "to 5200 JPM there");
	expect_refused(p, RUN_HEAD "\"points\": [{\"users\": 4, \"jpm\": 5000}], \"summary\": "
			  "{\"by_users\": [{\"users\": 4, \"n\": 1, \"jpm_mean\": 5000, "
			  "\"jpm_samples\": [9e9]}]}}", "summary.by_users[].jpm_samples[] 9e+09");
	expect_refused(p, RUN_HEAD "\"points\": [{\"users\": 4, \"jpm\": 5000}], \"summary\": "
			  "{\"converge_jpm\": 5000, \"converge_users\": 8}}",
		       "summary.converge_jpm 5000 at 8 users contradicts its points: none measured");
	expect_refused(p, RUN_HEAD "\"points\": [], \"summary\": {\"best_jpm\": 1e308}}",
		       "summary.best_jpm 1e+308 contradicts its points: none measured");
	expect_refused(f->tmp, NULL, "run.json");                   /* a folder with no run.json */
	char missing[PATH_MAX + 16];
	snprintf(missing, sizeof(missing), "%s/none", f->tmp);
	expect_refused(missing, NULL, "No such file");

	/* a minimal run of version 1 reads: every absent value is missing, not 0 */
	struct res_rec rec;
	char err[512];
	write_file(p, RUN_HEAD "\"points\": [{\"users\": 3, \"jpm\": 10.5}], "
		      "\"labels\": {\"scheduler\": \"bfq\", \"run_id\": \"n7\"}, "
		      "\"env\": {\"scheduler\": \"mq-deadline\", \"cpus\": 2, \"device\": null}}");
	assert_int_equal(res_read(p, RES_READ_KINDS, &rec, err, sizeof(err)), 0);
	assert_int_equal(rec.npoints, 1);
	assert_int_equal(rec.points[0].users, 3);
	assert_true(isnan(rec.points[0].elapsed_s));
	assert_true(isnan(rec.summary.peak_jpm));
	assert_true(isnan(rec.summary.converge_jpm));
	assert_int_equal(rec.summary.peak_users, 0);
	assert_string_equal(res_rec_get(&rec, "scheduler"), "bfq");
	assert_string_equal(res_rec_get(&rec, "cpus"), "2");
	assert_string_equal(res_rec_get(&rec, "device"), "");
	assert_string_equal(rec.id, "n7");
	assert_int_equal(rec.schema_version, 1);
	assert_false(rec.have_sched);            /* version 1: no scheduler record ... */
	assert_int_equal(rec.sched.restored, -1);
	assert_int_equal(rec.points[0].ndevs, 0);   /* ... and no device statistics */
	assert_null(rec.points[0].devs);
	res_rec_free(&rec);

	/* a summary its points bear out reads: the peak the mean of two samples */
	write_file(p, RUN_HEAD "\"points\": [{\"users\": 4, \"jpm\": 5000}, {\"users\": 4, "
		      "\"jpm\": 5100.000000000001}, {\"users\": 8, \"jpm\": 4000, \"failed\": true}], "
		      "\"summary\": {\"peak_jpm\": 5050, \"peak_users\": 4, \"max_jpm\": 5100, "
		      "\"max_jpm_users\": 4, \"converge_jpm\": null, \"by_users\": [{\"users\": 4, "
		      "\"n\": 2, \"jpm_mean\": 5050, \"jpm_samples\": [5000, 5100]}]}}");
	assert_int_equal(res_read(p, RES_READ_KINDS, &rec, err, sizeof(err)), 0);
	assert_true(rec.summary.peak_jpm == 5050);
	res_rec_free(&rec);
	/* a run that failed at its first point, as jobmix writes it: the failed sample kept */
	write_file(p, RUN_HEAD "\"points\": [{\"users\": 1, \"jpm\": 0, \"failed\": true}], "
		      "\"summary\": {\"peak_jpm\": null, \"by_users\": [{\"users\": 1, \"n\": 1, "
		      "\"jpm_mean\": 0, \"failed\": true, \"jpm_samples\": [0]}]}}");
	assert_int_equal(res_read(p, RES_READ_KINDS, &rec, err, sizeof(err)), 0);
	res_rec_free(&rec);
}

/* Version 2: an A/B arm's folder suffix, its scheduler record and each point's devices. */
static void test_v2_devices_and_sched(void **state)
{
	struct fx *f = *state;
	char err[512];
	char *argv[] = { "jobmix" };
	struct res_run *r = rec_run_create_named(f->out, &f->wl, NULL, NULL, 0, 1, argv, "bfq/x",
						 "shipped", err, sizeof(err));
	assert_non_null(r);
	const char *leaf = strrchr(res_run_dir(r), '/') + 1;
	assert_non_null(strstr(leaf, "-bfq_x"));   /* sanitized like the workload name */

	struct res_dev d[2];
	res_dev_init(&d[0]);
	res_dev_init(&d[1]);
	snprintf(d[0].name, sizeof(d[0].name), "loop3");
	d[0].window_s = 2.0;
	d[0].rd_ios = 100;
	d[0].wr_ios = 50;
	d[0].wr_sectors = 800;
	d[0].iops = 75;
	d[0].avg_req_kib = 16;
	d[0].avg_qdepth = 1.25;
	d[0].util = 0.5;
	snprintf(d[1].name, sizeof(d[1].name), "dm-0");   /* idle: rates unknown stay null */
	struct res_point p;
	res_point_init(&p);
	p.users = 2;
	p.jpm = 100;
	p.devs = d;
	p.ndevs = 2;
	assert_int_equal(res_run_add_point(r, &p), 0);
	struct res_sched sc;
	res_sched_init(&sc);
	sc.scheduler = "bfq";
	sc.devices = "loop3";
	sc.original = "loop3=none";
	sc.order = "fair";
	sc.round = 1;
	sc.restored = 0;
	sc.restore_error = "loop3: write failed";
	assert_int_equal(res_run_set_sched(r, &sc), 0);
	assert_int_equal(res_run_set_users(r, "50%-100%", 4, "2-4"), 0);
	assert_int_equal(res_run_write(r, RES_COMPLETE, err, sizeof(err)), 0);

	json_t *doc = load_json(res_run_dir(r), "run.json");
	assert_string_equal(str(doc, "schema"), RES_SCHEMA);
	assert_string_equal(str(get(doc, "users"), "spec"), "50%-100%");
	assert_int_equal(json_integer_value(get(get(doc, "users"), "cpus")), 4);
	const json_t *dj = get(get(json_array_get(get(doc, "points"), 0), "devices"), "loop3");
	assert_int_equal(json_integer_value(get(dj, "read_ios")), 100);
	assert_true(json_is_null(get(get(get(json_array_get(get(doc, "points"), 0), "devices"),
					 "dm-0"), "iops")));
	assert_false(json_is_true(get(get(doc, "sched"), "restored")));
	assert_string_equal(str(get(doc, "workload"), "found"), "shipped");
	json_decref(doc);

	struct res_rec rec;
	assert_int_equal(res_read(res_run_dir(r), 0, &rec, err, sizeof(err)), 0);
	assert_int_equal(rec.schema_version, RES_SCHEMA_VERSION);
	assert_string_equal(rec.users_spec, "50%-100%");
	assert_int_equal(rec.users_cpus, 4);
	assert_string_equal(rec.users_resolved, "2-4");
	assert_string_equal(rec.wl_found, "shipped");
	assert_int_equal(rec.npoints, 1);
	assert_int_equal(rec.points[0].ndevs, 2);
	const struct res_dev *a = &rec.points[0].devs[0];
	if (strcmp(a->name, "loop3"))
		a = &rec.points[0].devs[1];
	assert_string_equal(a->name, "loop3");
	assert_int_equal(a->rd_ios, 100);
	assert_int_equal(a->wr_sectors, 800);
	assert_close(a->avg_req_kib, 16);
	assert_close(a->avg_qdepth, 1.25);
	assert_true(isnan(a->read_req_kib));
	assert_true(rec.have_sched);
	assert_string_equal(rec.sched.scheduler, "bfq");
	assert_string_equal(rec.sched.original, "loop3=none");
	assert_int_equal(rec.sched.round, 1);
	assert_int_equal(rec.sched.restored, 0);
	assert_string_equal(rec.sched.restore_error, "loop3: write failed");
	res_rec_free(&rec);
	res_run_free(r);
}

/*
 * The time-weighted depth from the depth clock's ticks (iotrace_tw_clamp):
 * within the window as they are; a tick's worth more (the first tick's
 * time began before the window) scaled down to the window; no window, none.
 */
static void test_tw_clamp(void **state)
{
	(void)state;
	static uint64_t tw[STATS_HIST_BUCKETS];
	memset(tw, 0, sizeof(tw));
	tw[0] = 500;
	tw[1] = 450;
	tw[2] = 50;
	iotrace_tw_clamp(tw, 1000);
	assert_int_equal(tw[0], 500);
	assert_int_equal(tw[1], 450);
	assert_int_equal(tw[2], 50);
	tw[0] = 1000;           /* 1500 over a window of 1000: each bucket by 2/3 */
	iotrace_tw_clamp(tw, 1000);
	assert_int_equal(tw[0], 666);
	assert_int_equal(tw[1], 300);
	assert_int_equal(tw[2], 33);
	iotrace_tw_clamp(tw, 0);
	assert_int_equal(tw[0] + tw[1] + tw[2], 0);
}

/*
 * Version 8: the block tracer's figures of a device (iotrace_figures from
 * raw counts as the BPF program keeps them), written as blk.* and
 * blk_hist and read back bucket for bucket.
 */
static void test_v8_blk(void **state)
{
	struct fx *f = *state;
	char err[512];
	char *argv[] = { "jobmix" };
	enum { NB = STATS_HIST_BUCKETS };
	static uint64_t hist[RES_BLK_NOPS * RES_BLK_NWHAT * NB];
	uint64_t stat[RES_BLK_NOPS * RES_BLK_NWHAT][4] = { { 0 } };
	uint64_t cnt[RES_BLK_NOPS * IOTRACE_NCOUNTERS] = { 0 };
	memset(hist, 0, sizeof(hist));
	/* reads: 90 waited 1 ms in the scheduler, 10 waited 8 ms; writes none inserted */
	struct { int op, what; uint64_t v, n; } put[] = {
		{ RES_BLK_READ, RES_BLK_SCHED, 1000000, 90 }, { RES_BLK_READ, RES_BLK_SCHED, 8000000, 10 },
		{ RES_BLK_READ, RES_BLK_DEV, 200000, 100 },
		{ RES_BLK_WRITE, RES_BLK_DEV, 400000, 50 },
		{ RES_BLK_READ, RES_BLK_SIZE, 65536, 100 }, { RES_BLK_WRITE, RES_BLK_SIZE, 4096, 50 },
		{ RES_BLK_READ, RES_BLK_DEPTH, 1, 60 }, { RES_BLK_READ, RES_BLK_DEPTH, 16, 40 },
		{ RES_BLK_WRITE, RES_BLK_DEPTH, 1, 50 },
	};
	for (size_t i = 0; i < sizeof(put) / sizeof(put[0]); i++) {
		size_t s = (size_t)put[i].op * RES_BLK_NWHAT + (size_t)put[i].what;
		hist[s * NB + stats_hist_index(put[i].v)] += put[i].n;
		/* min and max kept plus one, as the program does */
		if (!stat[s][2] || put[i].v + 1 < stat[s][2])
			stat[s][2] = put[i].v + 1;
		if (put[i].v + 1 > stat[s][3])
			stat[s][3] = put[i].v + 1;
		stat[s][1] += put[i].v * put[i].n;
	}
	/*
	 * the histograms hold 1 request in 8 (150 of them); the counters are
	 * every request's: 800 reads and 400 writes issued
	 */
	cnt[RES_BLK_WRITE * IOTRACE_NCOUNTERS + IOTRACE_BYPASSED] = 50;
	cnt[RES_BLK_READ * IOTRACE_NCOUNTERS + IOTRACE_MERGED] = 7;
	cnt[RES_BLK_READ * IOTRACE_NCOUNTERS + IOTRACE_ISSUED] = 800;
	cnt[RES_BLK_WRITE * IOTRACE_NCOUNTERS + IOTRACE_ISSUED] = 400;
	/* over time: 0.7 s idle, 0.2 s at depth 1, 0.1 s at 16 */
	static uint64_t tw[STATS_HIST_BUCKETS];
	tw[0] = 700000000;
	tw[1] = 200000000;
	tw[stats_hist_index(16)] = 100000000;
	struct iotrace_raw raw = { .hist = hist, .stat = (const uint64_t (*)[4])stat, .cnt = cnt,
				   .tw = tw, .sample = 8 };
	struct res_dev d;
	res_dev_init(&d);
	snprintf(d.name, sizeof(d.name), "loop3");
	assert_int_equal(iotrace_figures(&raw, &d), 0);
	assert_non_null(d.blk);
	assert_int_equal(d.blk_requests, 1200);       /* the counter, not the sample's 150 */
	assert_int_equal(d.blk_sample, 8);
	assert_true(d.blk_sched_p50_ms >= 1 && d.blk_sched_p50_ms < 1.1);
	assert_true(d.blk_sched_p99_ms >= 7.9 && d.blk_sched_p99_ms <= 8);
	assert_true(d.blk_dev_p50_ms >= 0.2 && d.blk_dev_p50_ms < 0.22);
	assert_true(d.blk_dev_p99_ms >= 0.39 && d.blk_dev_p99_ms <= 0.4);
	assert_true(d.blk_req_kib_p50 >= 64 && d.blk_req_kib_p50 < 70);
	assert_close(d.blk_depth_p50, 1);
	assert_true(d.blk_depth_p90 >= 16 && d.blk_depth_p90 < 18);
	assert_close(d.blk_tdepth_p50, 0);
	assert_close(d.blk_tdepth_p90, 1);
	assert_non_null(d.blk->tdepth);
	assert_int_equal(d.blk->tdepth->count, 1000000000);
	assert_int_equal(d.blk->tdepth->max_ns, 16);
	assert_int_equal(d.blk_bypassed, 50);
	assert_int_equal(d.blk_merged, 7);
	assert_int_equal(d.blk_requeued, 0);
	assert_null(d.blk->h[RES_BLK_WRITE][RES_BLK_SCHED]);
	assert_null(d.blk->h[RES_BLK_FLUSH][RES_BLK_DEV]);
	assert_int_equal(d.blk->h[RES_BLK_READ][RES_BLK_SCHED]->nb, 2);

	/* rows by entry: 'other' none, dwr 100 writes in the device 0.1 ms, cpu none */
	static uint64_t no[STATS_HIST_BUCKETS], dev[STATS_HIST_BUCKETS];
	uint64_t reqs[RES_BLK_NOPS] = { 0, 100, 0, 0 }, none[RES_BLK_NOPS] = { 0 };
	dev[stats_hist_index(100000)] = 100;
	d.blk->ent = calloc(3, sizeof(*d.blk->ent));
	assert_non_null(d.blk->ent);
	d.blk->nent = 3;
	/* dwr: 100 sampled writes, 1 in 8: 800 */
	iotrace_entry_figures(no, no, none, 8, -1, &d.blk->ent[0]);
	iotrace_entry_figures(no, dev, reqs, 8, 0, &d.blk->ent[1]);
	iotrace_entry_figures(no, no, none, 8, 1, &d.blk->ent[2]);
	assert_int_equal(d.blk->ent[1].requests, 800);
	assert_int_equal(d.blk->ent[1].writes, 800);
	assert_string_equal(d.blk->ent[0].name, "other");
	assert_true(isnan(d.blk->ent[1].sched_p99_ms));
	assert_true(d.blk->ent[1].dev_p50_ms >= 0.09 && d.blk->ent[1].dev_p50_ms <= 0.11);
	snprintf(d.blk->ent[1].name, sizeof(d.blk->ent[1].name), "dwr");
	snprintf(d.blk->ent[2].name, sizeof(d.blk->ent[2].name), "cpu");

	struct res_run *r = rec_run_create(f->out, &f->wl, NULL, NULL, 0, 1, argv, err, sizeof(err));
	assert_non_null(r);
	struct res_dev nd[2];
	nd[0] = d;
	res_dev_init(&nd[1]);   /* not traced: blk null, no blk_hist */
	snprintf(nd[1].name, sizeof(nd[1].name), "sda");
	struct res_point p;
	res_point_init(&p);
	p.users = 2;
	p.jpm = 100;
	p.devs = nd;
	p.ndevs = 2;
	assert_int_equal(res_run_add_point(r, &p), 0);
	assert_int_equal(res_run_write(r, RES_COMPLETE, err, sizeof(err)), 0);
	json_t *doc = load_json(res_run_dir(r), "run.json");
	const json_t *devs = get(json_array_get(get(doc, "points"), 0), "devices");
	assert_true(json_is_null(get(get(devs, "sda"), "blk")));
	assert_null(json_object_get(get(devs, "sda"), "blk_hist"));
	assert_int_equal(json_integer_value(get(get(get(devs, "loop3"), "blk"), "requests")), 1200);
	assert_int_equal(json_integer_value(get(get(get(devs, "loop3"), "blk"), "sample")), 8);
	assert_string_equal(str(get(get(get(get(devs, "loop3"), "blk_hist"), "read"), "sched"),
				"layout"), RES_BLK_LAYOUT);
	json_decref(doc);

	struct res_rec rec;
	assert_int_equal(res_read(res_run_dir(r), RES_READ_KINDS, &rec, err, sizeof(err)), 0);
	assert_int_equal(rec.points[0].ndevs, 2);
	const struct res_dev *a = &rec.points[0].devs[0], *b = &rec.points[0].devs[1];
	if (strcmp(a->name, "loop3")) {
		a = &rec.points[0].devs[1];
		b = &rec.points[0].devs[0];
	}
	assert_null(b->blk);
	/* the rows by entry (version 9) read back by name */
	assert_non_null(a->blk);
	assert_int_equal(a->blk->nent, 3);
	assert_string_equal(a->blk->ent[0].name, "other");
	assert_int_equal(a->blk->ent[0].entry, -1);
	assert_string_equal(a->blk->ent[1].name, "dwr");
	assert_int_equal(a->blk->ent[1].requests, 800);
	assert_int_equal(a->blk->ent[1].writes, 800);
	assert_close(a->blk->ent[1].dev_p50_ms, d.blk->ent[1].dev_p50_ms);
	assert_true(isnan(a->blk->ent[1].sched_p50_ms));
	assert_int_equal(a->blk->ent[2].requests, 0);
	assert_int_equal(b->blk_requests, UINT64_MAX);
	assert_int_equal(b->blk_sample, UINT64_MAX);
	assert_int_equal(a->blk_sample, 8);
	assert_true(isnan(b->blk_sched_p50_ms));
	assert_non_null(a->blk);
	assert_close(a->blk_sched_p99_ms, d.blk_sched_p99_ms);
	assert_close(a->blk_depth_p90, d.blk_depth_p90);
	assert_int_equal(a->blk_merged, 7);
	assert_close(a->blk_tdepth_p90, 1);
	assert_non_null(a->blk->tdepth);
	assert_int_equal(a->blk->tdepth->count, d.blk->tdepth->count);
	assert_int_equal(a->blk->tdepth->nb, 3);
	for (int op = 0; op < RES_BLK_NOPS; op++)
		for (int w = 0; w < RES_BLK_NWHAT; w++) {
			const struct res_hist *x = d.blk->h[op][w], *y = a->blk->h[op][w];
			assert_int_equal(x == NULL, y == NULL);
			if (!x)
				continue;
			assert_int_equal(x->count, y->count);
			assert_int_equal(x->sum_ns, y->sum_ns);
			assert_int_equal(x->min_ns, y->min_ns);
			assert_int_equal(x->max_ns, y->max_ns);
			assert_int_equal(x->nb, y->nb);
			assert_memory_equal(x->b, y->b, x->nb * sizeof(x->b[0]));
		}
	res_rec_free(&rec);
	/* without RES_READ_KINDS: the figures, not the histograms */
	assert_int_equal(res_read(res_run_dir(r), 0, &rec, err, sizeof(err)), 0);
	assert_null(rec.points[0].devs[0].blk);
	assert_null(rec.points[0].devs[1].blk);
	res_rec_free(&rec);
	res_run_free(r);
	res_blk_free(d.blk);
}

/* Version 2's settling per point and the warm-up, written and read back. */
static void test_settle_and_warmup(void **state)
{
	struct fx *f = *state;
	char err[512];
	char *argv[] = { "jobmix" };
	struct res_run *r = rec_run_create(f->out, &f->wl, NULL, NULL, 0, 1, argv, err, sizeof(err));
	assert_non_null(r);
	struct res_point p;
	res_point_init(&p);
	p.users = 2;
	p.jpm = 100;
	assert_int_equal(res_run_add_point(r, &p), 0);     /* not settled: null */
	p.users = 4;
	p.settle_dirty_bytes = 1 << 20;
	p.settle_writeback_bytes = 0;
	p.settle_left_bytes = 4096;
	p.settle_wait_s = 0.25;
	p.settle_drained = 1;
	p.settle_dropped = 0;
	assert_int_equal(res_run_add_point(r, &p), 0);
	struct res_warmup w = { .users = 2, .jobs_per_user = 5, .elapsed_s = 0.5, .jpm = 1200 };
	assert_int_equal(res_run_set_warmup(r, &w), 0);
	assert_int_equal(res_run_write(r, RES_COMPLETE, err, sizeof(err)), 0);
	json_t *doc = load_json(res_run_dir(r), "run.json");
	const json_t *pts = get(doc, "points");
	assert_true(json_is_null(get(json_array_get(pts, 0), "settle")));
	const json_t *st = get(json_array_get(pts, 1), "settle");
	assert_int_equal(json_integer_value(get(st, "dirty_bytes")), 1 << 20);
	assert_int_equal(json_integer_value(get(st, "writeback_bytes")), 0);
	assert_true(json_is_true(get(st, "drained")));
	json_decref(doc);
	struct res_rec rec;
	assert_int_equal(res_read(res_run_dir(r), 0, &rec, err, sizeof(err)), 0);
	assert_int_equal(rec.schema_version, RES_SCHEMA_VERSION);
	assert_true(rec.points[0].settle_dirty_bytes == UINT64_MAX);
	assert_true(isnan(rec.points[0].settle_wait_s));
	assert_int_equal(rec.points[0].settle_drained, -1);
	assert_int_equal(rec.points[1].settle_dirty_bytes, 1 << 20);
	assert_int_equal(rec.points[1].settle_left_bytes, 4096);
	assert_close(rec.points[1].settle_wait_s, 0.25);
	assert_int_equal(rec.points[1].settle_drained, 1);
	assert_int_equal(rec.points[1].settle_dropped, 0);
	assert_true(rec.have_warmup);
	assert_int_equal(rec.warmup.users, 2);
	assert_close(rec.warmup.jpm, 1200);
	assert_false(rec.warmup.failed);
	res_rec_free(&rec);
	res_run_free(r);
}

/* Every schema version jobmix has written reads: real files kept in tests/data/runs. */
static void test_read_versions(void **state)
{
	(void)state;
	struct res_rec rec;
	char err[512];
	/* a real run.json of schema 1, -m peak -r 2 over 1-4 users */
	assert_int_equal(res_read("tests/data/runs/v1-peak.json", RES_READ_KINDS, &rec, err,
				  sizeof(err)), 0);
	assert_int_equal(rec.schema_version, 1);
	assert_int_equal(rec.status, RES_COMPLETE);
	assert_string_equal(rec.wl_name, "e2e");
	assert_string_equal(res_rec_get(&rec, "kernel"), "fixture");
	assert_true(rec.npoints >= 3);
	assert_true(rec.summary.peak_established);
	assert_true(isfinite(rec.summary.noise_sd_rel));
	size_t samples = 0;
	for (size_t i = 0; i < rec.summary.nby; i++)
		samples += rec.summary.by[i].n;
	assert_int_equal(samples, rec.npoints);
	assert_true(rec.points[0].nkinds > 0);
	assert_string_equal(rec.wl_found, "");   /* written before workload.found existed */
	res_rec_free(&rec);
	/* the same run as the first schema-1 writer wrote it, before the noise and
	 * peak_beaten keys existed: those read as missing, not as 0 */
	assert_int_equal(res_read("tests/data/runs/v1-early.json", 0, &rec, err, sizeof(err)), 0);
	assert_true(isnan(rec.summary.noise_sd_rel));
	assert_false(rec.summary.peak_beaten);
	assert_int_equal(rec.points[0].steady_checked, -1);
	res_rec_free(&rec);
	/*
	 * schema 5 (4 threads of fileio): its iops, reads_s etc. were one
	 * user's; read as *_user, the all-users rates recomputed from the counts
	 */
	assert_int_equal(res_read("tests/data/runs/v5-fileio.json", RES_READ_KINDS, &rec, err,
				  sizeof(err)), 0);
	assert_int_equal(rec.schema_version, 5);
	const struct res_kind *k = &rec.points[0].kinds[0];
	double el = rec.points[0].elapsed_s;
	assert_int_equal(k->rops + k->wops, 2000);
	assert_close(k->iops, 2000 / el);
	assert_close(k->reads_s, 1200 / el);
	assert_close(k->writes_s, 800 / el);
	assert_close(k->iops_user, 2000 / k->job_time_s);
	assert_close(k->iops_user, 153627.211434903);   /* what the file wrote as iops */
	assert_close(k->reads_s_user, 1200 / k->read_time_s);
	res_rec_free(&rec);
}

/* A real schema-2 run.json: one arm (bfq) of an A/B on a loop device. */
static void test_read_v2_fixture(void **state)
{
	(void)state;
	struct res_rec rec;
	char err[512];
	assert_int_equal(res_read("tests/data/runs/v2-ab-bfq.json", RES_READ_KINDS, &rec, err,
				  sizeof(err)), 0);
	assert_int_equal(rec.schema_version, 2);
	assert_string_equal(rec.users_spec, "");   /* a version 2 file: no "users" */
	assert_int_equal(rec.users_cpus, 0);
	assert_string_equal(rec.wl_name, "sched-ab");
	assert_true(rec.have_sched);
	assert_string_equal(rec.sched.scheduler, "bfq");
	assert_string_equal(rec.sched.original, "loop0=none");
	assert_int_equal(rec.sched.restored, 1);
	assert_string_equal(res_rec_get(&rec, "scheduler"), "bfq");   /* env, after the switch */
	assert_int_equal(rec.npoints, 4);
	for (size_t i = 0; i < rec.npoints; i++) {
		assert_int_equal(rec.points[i].ndevs, 1);
		const struct res_dev *d = &rec.points[i].devs[0];
		assert_string_equal(d->name, "loop0");
		assert_true(d->rd_ios + d->wr_ios > 0 && d->window_s > 0);
		assert_true(d->avg_req_kib > 0 && d->avg_qdepth > 0 && d->util > 0);
	}
	/* before version 7: jobs_per_cpu_s from the point's counts; nothing re-measured */
	assert_close(rec.points[0].jobs_per_cpu_s, 20 / 0.042444);
	assert_int_equal(rec.points[0].machine.remeasured, 0);
	assert_int_equal(rec.points[0].machine.interfered, -1);
	assert_int_equal(rec.summary.remeasured, 0);
	/* before version 5: read_mb_s was the point's share, read_mb_s_job the entry's rate */
	const struct res_kind *k = NULL;
	for (size_t i = 0; i < rec.points[0].nkinds; i++)
		if (!strcmp(rec.points[0].kinds[i].name, "dio-rndrw-16k"))
			k = &rec.points[0].kinds[i];
	assert_non_null(k);
	assert_close(k->read_mb_s_user, 28.3043581179336);
	assert_close(k->write_mb_s_user, 19.7030337428725);
	assert_close(k->iops_user, 2930.13866337928);
	assert_close(k->read_mb_s_point, 9.8809990704459);
	assert_close(k->write_mb_s_point, 6.87829263914432);
	assert_close(k->iops_point, 1022.90598813417);
	assert_close(k->read_time_s, 9273344 / 1e6 / 28.3043581179336);
	assert_close(k->reads_s_user, 566 / k->read_time_s);
	assert_close(k->writes_s_user, 394 / k->write_time_s);
	/* all users' rates, recomputed from the counts: a job without phases */
	double el = rec.points[0].elapsed_s;
	assert_close(k->iops, 960 / el);
	assert_close(k->iops, k->iops_point);
	assert_close(k->reads_s, 566 / el);
	assert_close(k->read_mb_s, 9273344 / 1e6 / el);
	assert_close(k->reads_s_point, 566 / el);
	assert_true(isnan(k->extents));
	res_rec_free(&rec);
}

/*
 * An entry's rates over all its users (version 6): a job without phases is
 * its count over the point's wall time, sysbench's way; a phased job's read
 * rate is over its read phases' wall time, not diluted by its writes.
 */
static void test_entry_rates(void **state)
{
	(void)state;
	/* 64 users busy 10 s: 64,000 requests over the 10 s, not one user's 100/s */
	assert_close(res_entry_rate(64000, 640, 640, 10), 6400);
	/*
	 * streams: 4 users in it all 10 s (job 40 s), each reading 2.5 s of it
	 * (read 10 s summed): their reads took 2.5 s of wall time; 1000 reads
	 * then are 400/s of all users (one user's: 100/s; over the point: 100/s)
	 */
	assert_close(res_entry_rate(1000, 10, 40, 10), 400);
	/* a mix: the entry's users in it half the point: its work over the point */
	assert_close(res_entry_rate(5000, 20, 20, 10), 500);
	assert_true(isnan(res_entry_rate(1, 0, 1, 1)));
	assert_true(isnan(res_entry_rate(1, 1, 0, 1)));
	assert_true(isnan(res_entry_rate(1, 1, 1, 0)));
	assert_true(isnan(res_entry_rate(1, 1, 1, NAN)));

	struct res_kind k = { .rops = 1000, .wops = 3000, .fsyncs = 40, .rbytes = 4000000,
			      .wbytes = 12000000, .job_time_s = 40, .read_time_s = 10,
			      .write_time_s = 30 };
	res_kind_rates(&k, 10);
	assert_close(k.reads_s, 400);
	assert_close(k.writes_s, 3000 * 4.0 / 30);
	assert_close(k.iops, 400);             /* every request over the point */
	assert_close(k.fsyncs_s, 4);
	assert_close(k.read_mb_s, 1.6);
	assert_close(k.reads_s_user, 100);
	assert_close(k.iops_user, 100);
	assert_close(k.fsyncs_s_user, 1);
	assert_close(k.read_mb_s_user, 0.4);
	assert_close(k.reads_s_point, 100);
	assert_close(k.write_mb_s_point, 1.2);
}

/* The runs below a results root, found recursively, symlinks not followed. */
static void test_find(void **state)
{
	struct fx *f = *state;
	char p[PATH_MAX + 64], err[512];
	char **files;
	size_t n;
	const char *dirs[] = { "root", "root/a", "root/b", "root/b/c", "root/b/c/d", "other", NULL };
	for (int i = 0; dirs[i]; i++) {
		snprintf(p, sizeof(p), "%s/%s", f->tmp, dirs[i]);
		assert_int_equal(mkdir(p, 0700), 0);
	}
	const char *runs[] = { "root/a", "root/b/c", "root/b/c/d", "other", NULL };
	for (int i = 0; runs[i]; i++) {
		snprintf(p, sizeof(p), "%s/%s/run.json", f->tmp, runs[i]);
		write_file(p, "{}");
	}
	char link[PATH_MAX + 64];
	snprintf(p, sizeof(p), "%s/other", f->tmp);
	snprintf(link, sizeof(link), "%s/root/link", f->tmp);
	assert_int_equal(symlink(p, link), 0);
	snprintf(p, sizeof(p), "%s/root", f->tmp);
	assert_int_equal(res_find(p, &files, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 2);   /* a/, b/c/ (its d/ is inside a run); not link/ */
	assert_non_null(strstr(files[0], "root/a/run.json"));
	assert_non_null(strstr(files[1], "root/b/c/run.json"));
	for (size_t i = 0; i < n; i++)
		free(files[i]);
	free(files);
	snprintf(p, sizeof(p), "%s/root/a/run.json", f->tmp);
	assert_int_equal(res_find(p, &files, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 1);
	free(files[0]);
	free(files);
	snprintf(p, sizeof(p), "%s/nothing", f->tmp);
	assert_int_equal(res_find(p, &files, &n, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "nothing"));
}

/*
 * Files others wrote are read bounded: a by_users n without as many
 * samples is refused (it sized compare's copy: a double free); a FIFO
 * named run.json, given or found, never blocks (alarm: a hang fails the
 * test); a run.json over the 64 MiB cap is refused before it is parsed.
 */
static void test_read_bounded(void **state)
{
	struct fx *f = *state;
	char p[PATH_MAX + 64], err[1024];
	struct res_rec rec;
	char **files;
	size_t n;

	expect_refused("tests/data/bad-runs/huge-n.json", NULL, "0 jpm_samples for n = 4294967295");
	snprintf(p, sizeof(p), "%s/n.json", f->tmp);
	expect_refused(p, RUN_HEAD "\"points\": [], \"summary\": {\"by_users\": "
			  "[{\"users\": 2, \"n\": 3}]}}", "0 jpm_samples for n = 3");

	alarm(20);
	snprintf(p, sizeof(p), "%s/fifo.json", f->tmp);
	assert_int_equal(mkfifo(p, 0600), 0);
	expect_refused(p, NULL, "not a regular file (a FIFO)");
	snprintf(p, sizeof(p), "%s/fifo-run", f->tmp);
	assert_int_equal(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/fifo-run/run.json", f->tmp);
	assert_int_equal(mkfifo(p, 0600), 0);
	snprintf(p, sizeof(p), "%s/fifo-run", f->tmp);
	expect_refused(p, NULL, "not a regular file (a FIFO)");   /* the folder given */
	assert_int_equal(res_find(f->tmp, &files, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 0);                                    /* found: skipped */
	free(files);
	expect_refused("/dev/zero", NULL, "not a regular file (a character device)");

	snprintf(p, sizeof(p), "%s/big.json", f->tmp);
	FILE *fp = fopen(p, "w");
	assert_non_null(fp);
	assert_int_equal(ftruncate(fileno(fp), (off_t)JM_READ_MAX_RUN + 1), 0);
	fclose(fp);
	expect_refused(p, NULL, "too large");
	assert_int_equal(truncate(p, (off_t)JM_READ_MAX_RUN), 0);  /* at the cap: read, then parsed */
	assert_int_equal(res_read(p, 0, &rec, err, sizeof(err)), -1);
	assert_null(strstr(err, "too large"));
	alarm(0);
}

/* Every schema field table: keys unique, documented, sizes sane. */
static void test_schema_tables(void **state)
{
	(void)state;
	const struct res_field *tables[] = { res_run_fields, res_point_fields, res_kind_fields,
					     res_by_users_fields, res_summary_fields, res_dev_fields,
					     res_sched_fields, res_warmup_fields, res_sizing_fields,
					     res_blk_ent_fields };
	for (size_t t = 0; t < sizeof(tables) / sizeof(tables[0]); t++) {
		size_t n = 0;
		for (const struct res_field *a = tables[t]; a->key; a++, n++) {
			assert_non_null(a->doc);
			assert_true(a->doc[0] != 0);
			assert_true(a->since >= 1 && a->since <= RES_SCHEMA_VERSION);
			assert_true(a->size > 0);
			for (const struct res_field *b = a + 1; b->key; b++)
				assert_string_not_equal(a->key, b->key);
		}
		assert_true(n > 0);
	}
}

/* The setting of key among s[0..n), or NULL. */
static const struct res_setting *setting(const struct res_setting *s, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(s[i].key, key))
			return &s[i];
	return NULL;
}

/*
 * The fingerprint: every workload key with a run.json name is a setting
 * under its own name; what defines a point is in it (the mix as run: each
 * entry's kind, runs per user and parameters; jobs per user as run; sync;
 * users as; measure mode), where and how far is not (dirs, seed, the users'
 * range); -j 10 and -j 12 that run the same jobs are the same measurement.
 */
static void test_fingerprint(void **state)
{
	struct fx *f = *state;
	for (size_t i = 0; i < wl_nkeys; i++) {
		const struct wl_key *k = &wl_keys[i];
		if (!k->json || k->type == WK_MIX || k->type == WK_NAME || k->type == WK_TEXT ||
		    k->type == WK_SECTION)
			continue;
		bool found = false;
		const char *key, *json;
		for (size_t j = 0; (json = res_fp_json_key(j, &key)); j++)
			if (!strcmp(json, k->json)) {
				found = true;
				if (strcmp(k->path, "users.jobs_per_user"))   /* that one: the jobs run */
					assert_string_equal(key, k->path);
			}
		if (!found)
			fail_msg("workload key %s (run.json %s) has no row in fp_rows[] of "
				 "src/results/fingerprint.c (docs/hacking.md: a workload key)", k->path,
				 k->json);
	}
	json_t *res = rec_workload_json(&f->wl);
	assert_non_null(res);
	struct res_setting *s;
	size_t n;
	assert_int_equal(res_settings(res, NULL, 0, &s, &n), 0);
	const struct res_setting *x;
	assert_non_null(x = setting(s, n, "users.jobs_per_user"));
	assert_true(x->fp);
	unsigned counts[3];
	char want[16];
	snprintf(want, sizeof(want), "%u", wl_job_counts(&f->wl, 10, counts));
	assert_string_equal(x->value, want);   /* the jobs run, not the 10 asked */
	assert_non_null(x = setting(s, n, "users.jobs_per_user_asked"));
	assert_string_equal(x->value, "10");
	assert_false(x->fp);
	assert_non_null(x = setting(s, n, "mix.links.runs"));
	assert_true(x->fp);
	assert_non_null(x = setting(s, n, "mix.links.job"));
	assert_string_equal(x->value, "link_test");
	assert_non_null(x = setting(s, n, "pattern.block"));
	assert_string_equal(x->value, "65536");
	assert_true(x->fp);
	assert_non_null(x = setting(s, n, "pattern.flags"));
	assert_string_equal(x->value, "a|c");
	assert_non_null(x = setting(s, n, "users.as"));
	assert_string_equal(x->value, "threads");
	assert_true(x->fp);
	static const char *const outside[] = { "files.dirs", "seed", "users.start", "users.end",
					       "users.repeat", "users.max_points", "mix.links.weight",
					       "measure.duration" };
	for (size_t i = 0; i < sizeof(outside) / sizeof(outside[0]); i++) {
		assert_non_null(x = setting(s, n, outside[i]));
		assert_false(x->fp);
	}
	/* jobs mode: the duration is no part of it; time mode: it is */
	json_object_set_new(json_object_get(res, "measure"), "how", json_string("time"));
	struct res_setting *s2;
	size_t n2;
	assert_int_equal(res_settings(res, NULL, 0, &s2, &n2), 0);
	assert_true(setting(s2, n2, "measure.duration")->fp);
	char id1[20], id2[20];
	res_fp_id(s, n, id1, sizeof(id1));
	res_fp_id(s2, n2, id2, sizeof(id2));
	assert_string_not_equal(id1, id2);
	free(s2);
	json_decref(res);
	/* a seed or a work directory changes no fingerprint; jobs per user does */
	struct res_rec a = { 0 }, b = { 0 };
	a.settings = s;
	a.nsettings = n;
	f->wl.seed = 7;
	f->wl.ndirs = 1;
	res = rec_workload_json(&f->wl);
	assert_int_equal(res_settings(res, NULL, 0, &b.settings, &b.nsettings), 0);
	json_decref(res);
	assert_int_equal(res_fp_diff(&a, &b, NULL, 0, NULL, NULL), 0);
	free(b.settings);
	f->wl.users.jobs_per_user = 200;
	res = rec_workload_json(&f->wl);
	assert_int_equal(res_settings(res, NULL, 0, &b.settings, &b.nsettings), 0);
	json_decref(res);
	assert_true(res_fp_diff(&a, &b, NULL, 0, NULL, NULL) >= 2);   /* jobs, and each entry's runs */
	const char *ign[] = { "users.jobs_per_user", "mix.creat_clo.runs", "mix.links.runs",
			      "mix.pattern.runs" };
	assert_int_equal(res_fp_diff(&a, &b, ign, 4, NULL, NULL), 0);
	/* a run from before schema 4 (no runs per user) is compared on what it has */
	b.fp_legacy = true;
	for (size_t i = 0; i < b.nsettings; i++)
		if (strstr(b.settings[i].key, ".runs"))
			snprintf(b.settings[i].key, sizeof(b.settings[i].key), "zz.gone.%zu", i);
	free(b.settings);
	free(s);
}

/*
 * --point-noise: run.json's "sizing" with the pilots, the sized workload in
 * workload.resolved, and a fingerprint that holds the target and the size
 * (and the reader derives the same one); off, the target is no setting.
 */
static void test_sizing_record(void **state)
{
	struct fx *f = *state;
	char err[512];
	char *argv[] = { "jobmix" };
	struct res_rec plain, sized;
	unsigned asked = f->wl.users.jobs_per_user;
	struct res_run *r = rec_run_create(f->out, &f->wl, &f->env, NULL, 0, 1, argv, err,
					   sizeof(err));
	assert_non_null(r);
	assert_int_equal(res_run_write(r, RES_COMPLETE, err, sizeof(err)), 0);
	assert_int_equal(res_read(res_run_dir(r), 0, &plain, err, sizeof(err)), 0);
	assert_null(res_setting_find(&plain, "measure.point_noise"));   /* off: folds with old runs */
	res_run_free(r);

	r = rec_run_create(f->out, &f->wl, &f->env, NULL, 0, 1, argv, err, sizeof(err));
	assert_non_null(r);
	f->wl.measure.point_noise_pct = 3;
	f->wl.users.jobs_per_user = asked * 4;
	const double jpm[3] = { 1000, 1100, 900 };
	struct res_sizing sz = {
		.target_pct = 3, .users = 2, .pilots = 3, .mean_jpm = 1000, .sd_pct = 10,
		.pilot_s = 0.5, .wanted = 16, .factor = 4, .capped = true, .max_point_s = 60,
		.measure = "jobs", .jobs_per_user_asked = asked, .jobs_per_user = asked * 4,
		.duration_asked_s = NAN, .duration_s = NAN,
	};
	assert_int_equal(res_run_set_sizing(r, &sz, jpm, 3, rec_workload_json(&f->wl)), 0);
	assert_int_equal(res_run_write(r, RES_COMPLETE, err, sizeof(err)), 0);
	json_t *doc = load_json(res_run_dir(r), "run.json");
	const json_t *o = get(doc, "sizing");
	assert_int_equal(json_integer_value(get(o, "factor")), 4);
	assert_int_equal(json_integer_value(get(o, "wanted")), 16);
	assert_true(json_is_true(get(o, "capped")));
	assert_int_equal(json_array_size(get(o, "pilots_jpm")), 3);
	assert_true(json_real_value(json_array_get(get(o, "pilots_jpm"), 1)) == 1100);
	assert_true(json_is_null(get(o, "duration_s")));
	assert_int_equal(json_integer_value(get(get(get(get(doc, "workload"), "resolved"), "users"),
						"jobs_per_user")), asked * 4);
	const json_t *keys = get(get(doc, "fingerprint"), "keys");
	assert_string_equal(json_string_value(get(keys, "measure.point_noise")), "3");
	assert_int_equal(res_read(res_run_dir(r), 0, &sized, err, sizeof(err)), 0);
	assert_string_equal(sized.fp_id, json_string_value(get(get(doc, "fingerprint"), "id")));
	assert_string_not_equal(sized.fp_id, plain.fp_id);
	/* the size alone, not the target, tells them apart too */
	const char *ign[] = { "measure.point_noise" };
	assert_true(res_fp_diff(&plain, &sized, ign, 1, NULL, NULL) >= 1);
	json_decref(doc);
	res_rec_free(&plain);
	res_rec_free(&sized);
	res_run_free(r);
	f->wl.measure.point_noise_pct = 0;
	f->wl.users.jobs_per_user = asked;
}

/* One matrix arm: its axes recorded, written, read back. */
static void axes_arm(struct fx *f, const char *ra, const char *sched, struct res_rec *out)
{
	char err[512];
	char *argv[] = { "jobmix" };
	struct res_run *r = rec_run_create(f->out, &f->wl, &f->env, NULL, 0, 1, argv, err,
					   sizeof(err));
	assert_non_null(r);
	struct res_axis ax[3] = { { "sched", "" }, { "queue.read_ahead_kb", "" },
				  { "pattern.block", "64k" } };
	snprintf(ax[0].value, sizeof(ax[0].value), "%s", sched);
	snprintf(ax[1].value, sizeof(ax[1].value), "%s", ra);
	struct res_axis_set set = { .key = "queue.read_ahead_kb", .target = "loop7",
				    .original = "2560" };
	snprintf(set.value, sizeof(set.value), "%s", ra);
	snprintf(set.read_back, sizeof(set.read_back), "%s", ra);
	assert_int_equal(res_run_set_axes(r, ax, 3, &set, 1), 0);
	assert_int_equal(res_run_write(r, RES_COMPLETE, err, sizeof(err)), 0);
	json_t *doc = load_json(res_run_dir(r), "run.json");
	/* the fingerprint written agrees with the one the reader computes */
	const json_t *fp = get(doc, "fingerprint");
	assert_string_equal(json_string_value(get(get(fp, "keys"), "queue.read_ahead_kb")), ra);
	assert_null(json_object_get(get(fp, "keys"), "sched"));
	const json_t *as = json_array_get(get(doc, "axes_set"), 0);
	assert_string_equal(json_string_value(get(as, "original")), "2560");
	assert_string_equal(json_string_value(get(as, "read_back")), ra);
	assert_int_equal(res_read(res_run_dir(r), 0, out, err, sizeof(err)), 0);
	assert_string_equal(out->fp_id, json_string_value(get(fp, "id")));
	json_decref(doc);
	res_run_free(r);
}

/* Arms that differ only in a system axis never share a fingerprint; axes are --by keys. */
static void test_fingerprint_axes(void **state)
{
	struct fx *f = *state;
	struct res_rec a, b, c;
	axes_arm(f, "128", "none", &a);
	axes_arm(f, "1024", "none", &b);
	axes_arm(f, "128", "bfq", &c);
	assert_string_equal(res_rec_get(&a, "queue.read_ahead_kb"), "128");
	assert_string_equal(res_rec_get(&b, "queue.read_ahead_kb"), "1024");
	assert_string_not_equal(a.fp_id, b.fp_id);
	const char *ign[] = { "queue.read_ahead_kb" };
	assert_int_equal(res_fp_diff(&a, &b, NULL, 0, NULL, NULL), 1);
	assert_int_equal(res_fp_diff(&a, &b, ign, 1, NULL, NULL), 0);
	/* the scheduler is the env's, as for -s: no fingerprint key of its own */
	assert_null(res_setting_find(&a, "sched"));
	assert_string_equal(a.fp_id, c.fp_id);
	/* a workload key keeps its resolved value: the axis does not add a second one */
	assert_string_equal(res_rec_get(&a, "pattern.block"), "65536");
	res_rec_free(&a);
	res_rec_free(&b);
	res_rec_free(&c);
	/* axes that are not an object of strings are refused by the reader */
	char path[PATH_MAX], err[512];
	snprintf(path, sizeof(path), "%s/bad-axes.json", f->tmp);
	struct res_rec d;
	axes_arm(f, "256", "none", &d);
	json_t *doc = load_json(d.dir, "run.json");
	res_rec_free(&d);
	json_object_set_new(json_object_get(doc, "axes"), "queue.read_ahead_kb", json_integer(256));
	assert_int_equal(json_dump_file(doc, path, 0), 0);
	assert_int_equal(res_read(path, 0, &d, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "axes.queue.read_ahead_kb is not a string"));
	json_object_set_new(doc, "axes", json_string("x"));
	assert_int_equal(json_dump_file(doc, path, 0), 0);
	assert_int_equal(res_read(path, 0, &d, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "\"axes\" is not an object"));
	json_decref(doc);
}

/*
 * The common job parameters (scale): in the fingerprint only off their
 * default, so runs from before the parameter fold with runs at 1 and runs
 * at 1.1 never do; the defaults listed here are the jobs' own.
 */
static void test_fingerprint_scale(void **state)
{
	(void)state;
	size_t i = 0;
	for (; res_fp_common[i][0]; i++) {
		assert_true(i < JOB_NCOMMON);
		assert_string_equal(res_fp_common[i][0], job_common_params[i].name);
		assert_string_equal(res_fp_common[i][1], job_common_params[i].def);
	}
	assert_int_equal(i, JOB_NCOMMON);
	const char *scales[] = { NULL, "1", "1.1" };
	char ids[3][32];
	for (int k = 0; k < 3; k++) {
		json_t *params = json_object();
		if (scales[k])
			json_object_set_new(params, "scale", json_real(atof(scales[k])));
		json_t *res = json_pack("{s:s, s:[{s:s, s:s, s:i, s:o}]}", "sync", "none", "mix",
					"job", "add_int", "name", "add_int", "runs_per_user", 10,
					"params", params);
		struct res_setting *set;
		size_t n;
		assert_int_equal(res_settings(res, NULL, 0, &set, &n), 0);
		const struct res_setting *sc = NULL;
		for (size_t j = 0; j < n; j++)
			if (!strcmp(set[j].key, "add_int.scale"))
				sc = &set[j];
		if (scales[k]) {
			assert_non_null(sc);
			assert_string_equal(sc->value, scales[k]);
			assert_int_equal(sc->fp, k == 2);
		} else {
			assert_null(sc);
		}
		res_fp_id(set, n, ids[k], sizeof(ids[k]));
		free(set);
		json_decref(res);
	}
	assert_string_equal(ids[0], ids[1]);       /* before scale, and at 1: one fingerprint */
	assert_string_not_equal(ids[1], ids[2]);   /* at 1.1: another */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_full_run, setup, teardown),
		cmocka_unit_test_setup_teardown(test_same_second, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fingerprint_axes, setup, teardown),
		cmocka_unit_test(test_fingerprint_scale),
		cmocka_unit_test_setup_teardown(test_folder_name_sanitized, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_failure_keeps_old, setup, teardown),
		cmocka_unit_test_setup_teardown(test_full_tmpfs_agree, setup, teardown),
		cmocka_unit_test_setup_teardown(test_folder_swapped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_outdir, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_rejects, setup, teardown),
		cmocka_unit_test_setup_teardown(test_find, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_bounded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_v2_devices_and_sched, setup, teardown),
		cmocka_unit_test(test_tw_clamp),
		cmocka_unit_test_setup_teardown(test_v8_blk, setup, teardown),
		cmocka_unit_test(test_read_versions),
		cmocka_unit_test_setup_teardown(test_settle_and_warmup, setup, teardown),
		cmocka_unit_test(test_read_v2_fixture),
		cmocka_unit_test(test_schema_tables),
		cmocka_unit_test(test_entry_rates),
		cmocka_unit_test_setup_teardown(test_fingerprint, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sizing_record, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
