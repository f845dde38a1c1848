// SPDX-License-Identifier: GPL-2.0-only
/*
 * The run folder and its files: run.json (the whole run as one JSON
 * document, kept in memory and rewritten after every load point) and
 * points.csv, both replaced atomically.  See results.h for the schema.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "jobmix/results.h"

struct res_run {
	char dir[PATH_MAX];
	json_t *doc;
	json_t *points;     /* borrowed from doc */
	json_t *summary;    /* borrowed from doc */
	bool have_max;
	double max_jpm;
	unsigned max_users;
};

static const char *const res_statuses[] = { "running", "complete", "interrupted", "failed", NULL };

/* ---- JSON value helpers ------------------------------------------------ */

/* A number, or null when it is not finite (JSON has no NaN/inf). */
static json_t *res_num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *res_u64(uint64_t v)
{
	return v <= (uint64_t)INT64_MAX ? json_integer((json_int_t)v) : json_real((double)v);
}

/*
 * A JSON string of s; bytes that are not valid UTF-8 (a hostname or
 * argument in another encoding) become '?' rather than losing the value.
 */
static json_t *res_str(const char *s)
{
	if (!s)
		return json_null();
	json_t *j = json_string(s);
	if (j)
		return j;
	char *copy = strdup(s);
	if (!copy)
		return NULL;
	for (char *c = copy; *c; c++)
		if ((unsigned char)*c >= 0x80 || (unsigned char)*c < 0x20)
			*c = '?';
	j = json_string(copy);
	free(copy);
	return j;
}

/* A string, or null when s is NULL or empty. */
static json_t *res_str_or_null(const char *s)
{
	return s && s[0] ? res_str(s) : json_null();
}

/* Set o[k] = v (stealing v); clears *ok on any failure (v NULL: no memory). */
static void res_put(json_t *o, const char *k, json_t *v, bool *ok)
{
	if (!v || json_object_set_new(o, k, v))
		*ok = false;
}

static void res_push(json_t *a, json_t *v, bool *ok)
{
	if (!v || json_array_append_new(a, v))
		*ok = false;
}

static void res_iso_time(time_t t, char *buf, size_t len)
{
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* ---- the resolved workload --------------------------------------------- */

/* One parameter's value, typed: sizes and ints as integers, flags as a list. */
static json_t *res_param_json(const struct job_param *p, const void *params)
{
	const char *at = (const char *)params + p->offset;
	switch (p->type) {
	case JP_INT: {
		int64_t v;
		memcpy(&v, at, sizeof(v));
		return json_integer((json_int_t)v);
	}
	case JP_SIZE: {
		uint64_t v;
		memcpy(&v, at, sizeof(v));
		return res_u64(v);
	}
	case JP_BOOL: {
		bool v;
		memcpy(&v, at, sizeof(v));
		return json_boolean(v);
	}
	case JP_DOUBLE: {
		double v;
		memcpy(&v, at, sizeof(v));
		return res_num(v);
	}
	case JP_ENUM: {
		int v;
		memcpy(&v, at, sizeof(v));
		return res_str(p->choices[v]);
	}
	case JP_FLAGS: {
		unsigned v;
		memcpy(&v, at, sizeof(v));
		json_t *a = json_array();
		bool ok = a != NULL;
		for (int i = 0; ok && p->choices[i]; i++)
			if (v & (1u << i))
				res_push(a, res_str(p->choices[i]), &ok);
		if (!ok) {
			json_decref(a);
			return NULL;
		}
		return a;
	}
	}
	return json_null();
}

static json_t *res_mix_json(const struct wl_entry *e, bool *ok)
{
	json_t *o = json_object(), *params = json_object(), *set = json_array();
	if (!o || !params || !set) {
		*ok = false;
		json_decref(params);
		json_decref(set);
		return o;
	}
	const struct job_kind *k = e->kind;
	res_put(o, "job", res_str(k ? k->name : NULL), ok);
	res_put(o, "name", res_str(e->name[0] ? e->name : (k ? k->name : "")), ok);
	res_put(o, "weight", json_integer(e->weight), ok);
	size_t n = k ? job_nparams(k) : 0;
	for (size_t i = 0; i < n && e->params; i++) {
		res_put(params, k->params[i].name, res_param_json(&k->params[i], e->params), ok);
		if (i < 64 && (e->set_mask & (1ULL << i)))
			res_push(set, res_str(k->params[i].name), ok);
	}
	res_put(o, "params", params, ok);
	res_put(o, "params_set", set, ok);
	return o;
}

/* The workload as jobmix ran it: every default filled in. */
static json_t *res_resolved_json(const struct workload *wl, bool *ok)
{
	json_t *o = json_object(), *dirs = json_array(), *u = json_object(),
	       *m = json_object(), *mix = json_array();
	if (!o || !dirs || !u || !m || !mix) {
		*ok = false;
		json_decref(dirs);
		json_decref(u);
		json_decref(m);
		json_decref(mix);
		return o;
	}
	res_put(o, "filesize", res_u64(wl->filesize), ok);
	res_put(o, "poolsize", res_u64(wl->poolsize), ok);
	res_put(o, "layout", res_str(wl_layout_name(wl->layout)), ok);
	for (size_t i = 0; i < wl->ndirs; i++)
		res_push(dirs, res_str(wl->dirs[i]), ok);
	res_put(o, "dirs", dirs, ok);

	const struct wl_users *us = &wl->users;
	res_put(u, "start", json_integer(us->start), ok);
	res_put(u, "end", json_integer(us->end), ok);
	res_put(u, "step", json_integer(us->step), ok);
	res_put(u, "geometric", json_boolean(us->geometric), ok);
	res_put(u, "jobs_per_user", json_integer(us->jobs_per_user), ok);
	res_put(u, "mode", res_str(wl_ramp_mode_name(us->mode)), ok);
	res_put(u, "repeat", json_integer(us->repeat), ok);
	res_put(u, "repeat_auto", json_boolean(us->repeat_auto), ok);
	res_put(u, "as", res_str(us->as == WL_USERS_THREADS ? "threads" : "processes"), ok);
	res_put(u, "converge_jpm_per_user", res_num(us->converge_jpm_per_user), ok);
	res_put(u, "max_points", json_integer(us->max_points), ok);
	res_put(u, "max_time_s", res_num(us->max_time_s), ok);
	res_put(o, "users", u, ok);

	res_put(o, "sync", res_str(wl_sync_name(wl->sync)), ok);
	res_put(o, "seed", res_u64(wl->seed), ok);

	const struct wl_measure_cfg *mc = &wl->measure;
	res_put(m, "how", res_str(mc->how == WL_MEASURE_TIME ? "time" : "jobs"), ok);
	res_put(m, "duration_s", res_num(mc->duration_s), ok);
	res_put(m, "ramp_s", res_num(mc->ramp_s), ok);
	res_put(m, "steady_pct", res_num(mc->steady_pct), ok);
	res_put(m, "steady_windows", json_integer(mc->steady_windows), ok);
	res_put(o, "measure", m, ok);

	for (size_t i = 0; i < wl->nmix; i++)
		res_push(mix, res_mix_json(&wl->mix[i], ok), ok);
	res_put(o, "mix", mix, ok);
	return o;
}

static json_t *res_env_json(const struct sys_env *e, bool *ok)
{
	if (!e)
		return json_null();
	json_t *o = json_object();
	if (!o) {
		*ok = false;
		return NULL;
	}
	res_put(o, "kernel", res_str(e->kernel), ok);
	res_put(o, "hostname", res_str(e->hostname), ok);
	res_put(o, "machine", res_str(e->machine), ok);
	res_put(o, "cpus", json_integer(e->cpus), ok);
	res_put(o, "mem_bytes", res_u64(e->mem_bytes), ok);
	res_put(o, "fs_type", res_str(e->fs_type), ok);
	res_put(o, "mount_point", res_str(e->mount_point), ok);
	res_put(o, "mount_options", res_str(e->mount_options), ok);
	res_put(o, "device", res_str_or_null(e->device), ok);
	res_put(o, "scheduler", res_str_or_null(e->scheduler), ok);
	res_put(o, "schedulers", res_str(e->schedulers), ok);
	res_put(o, "jobmix_version", res_str(e->jobmix_version), ok);
	return o;
}

/* ---- the folder --------------------------------------------------------- */

/* mkdir each missing component of path; every existing one must be a directory. */
static int res_mkdirs(const char *path, char *err, size_t errlen)
{
	char buf[PATH_MAX];
	struct stat st;

	if (!path[0] || strlen(path) >= sizeof(buf)) {
		snprintf(err, errlen, "results directory '%s': invalid path", path);
		return -1;
	}
	snprintf(buf, sizeof(buf), "%s", path);
	size_t n = strlen(buf);
	for (size_t i = 1; i <= n; i++) {
		if (buf[i] != '/' && buf[i] != 0)
			continue;
		if (buf[i - 1] == '/')
			continue;   /* "a//b", trailing "/" */
		char saved = buf[i];
		buf[i] = 0;
		if (mkdir(buf, 0755) && errno != EEXIST) {
			snprintf(err, errlen, "create directory '%s' failed: %s", buf, strerror(errno));
			return -1;
		}
		int e = stat(buf, &st) ? errno : S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
		if (e) {
			snprintf(err, errlen, "create directory '%s' failed: %s", buf, strerror(e));
			return -1;
		}
		buf[i] = saved;
	}
	return 0;
}

/* The workload name reduced to a safe folder-name part. */
static void res_sanitize(const char *name, char *out, size_t len)
{
	size_t n = 0;
	for (const char *c = name ? name : ""; *c && n + 1 < len && n < 64; c++) {
		bool ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
			  (*c >= '0' && *c <= '9') || *c == '.' || *c == '_' || *c == '-';
		out[n++] = ok ? *c : '_';
	}
	out[n] = 0;   /* it follows the time stamp, so "." or ".." cannot mean a directory */
	if (!n)
		snprintf(out, len, "run");
}

/* mkdir a fresh <outdir>/<stamp>-<name>[-N]; never an existing one. */
static int res_make_run_dir(const char *outdir, time_t now, const char *wlname, char *dir,
			    size_t len, char *err, size_t errlen)
{
	char stamp[32], name[72];
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	res_sanitize(wlname, name, sizeof(name));
	for (unsigned i = 1; i <= 1000; i++) {
		int n;
		if (i == 1)
			n = snprintf(dir, len, "%s/%s-%s", outdir, stamp, name);
		else
			n = snprintf(dir, len, "%s/%s-%s-%u", outdir, stamp, name, i);
		if (n < 0 || (size_t)n >= len) {
			snprintf(err, errlen, "results directory '%s': path too long", outdir);
			return -1;
		}
		if (mkdir(dir, 0755) == 0)
			return 0;
		if (errno != EEXIST) {
			snprintf(err, errlen, "create run folder '%s' failed: %s", dir, strerror(errno));
			return -1;
		}
	}
	snprintf(err, errlen, "create run folder '%s/%s-%s': too many runs in one second", outdir,
		 stamp, name);
	return -1;
}

/* ---- the run ------------------------------------------------------------ */

static json_t *res_summary_init(bool *ok)
{
	json_t *s = json_object();
	if (!s) {
		*ok = false;
		return NULL;
	}
	static const char *const nulls[] = { "max_jpm", "max_jpm_users", "peak_jpm", "peak_users",
					     "converge_jpm", "converge_users", "converge_max_jpm",
					     "noise_sd_rel", NULL };
	for (int i = 0; nulls[i]; i++)
		res_put(s, nulls[i], json_null(), ok);
	res_put(s, "points_measured", json_integer(0), ok);
	res_put(s, "noise_df", json_integer(0), ok);
	res_put(s, "wall_s", json_null(), ok);
	res_put(s, "stop_reason", json_null(), ok);
	res_put(s, "by_users", json_array(), ok);
	return s;
}

struct res_run *res_run_create(const char *outdir, const struct workload *wl,
			       const struct sys_env *env, const struct res_label *labels,
			       size_t nlabels, int argc, char **argv, char *err, size_t errlen)
{
	struct res_run *r = NULL;
	bool ok = true, made = false;
	char when[32];

	if (!outdir || !wl) {
		snprintf(err, errlen, "results: no output directory or workload");
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		snprintf(err, errlen, "results: out of memory");
		return NULL;
	}
	time_t now = time(NULL);
	if (res_mkdirs(outdir, err, errlen))
		goto fail;
	if (res_make_run_dir(outdir, now, wl->name, r->dir, sizeof(r->dir), err, errlen))
		goto fail;
	made = true;

	r->doc = json_object();
	if (!r->doc)
		goto nomem;
	res_iso_time(now, when, sizeof(when));
	res_put(r->doc, "schema", json_string(RES_SCHEMA), &ok);
	res_put(r->doc, "status", json_string("running"), &ok);
	res_put(r->doc, "started", json_string(when), &ok);
	res_put(r->doc, "finished", json_null(), &ok);

	json_t *cmd = json_array();
	res_put(r->doc, "command", cmd, &ok);
	for (int i = 0; cmd && i < argc; i++)
		res_push(cmd, res_str(argv[i]), &ok);

	json_t *w = json_object();
	res_put(r->doc, "workload", w, &ok);
	if (w) {
		res_put(w, "path", res_str(wl->path), &ok);
		res_put(w, "sha256", res_str(wl->sha256), &ok);
		res_put(w, "name", res_str(wl->name), &ok);
		res_put(w, "description", res_str(wl->description), &ok);
		res_put(w, "resolved", res_resolved_json(wl, &ok), &ok);
	}

	json_t *lab = json_object();
	res_put(r->doc, "labels", lab, &ok);
	for (size_t i = 0; lab && i < nlabels; i++)
		res_put(lab, labels[i].key, res_str(labels[i].value), &ok);

	res_put(r->doc, "env", res_env_json(env, &ok), &ok);
	r->points = json_array();
	res_put(r->doc, "points", r->points, &ok);
	r->summary = res_summary_init(&ok);
	res_put(r->doc, "summary", r->summary, &ok);
	if (!ok)
		goto nomem;
	if (res_run_write(r, "running", err, errlen))
		goto fail;
	return r;

nomem:
	snprintf(err, errlen, "results: out of memory building run.json");
fail:
	if (made) {
		char p[PATH_MAX + 16];
		snprintf(p, sizeof(p), "%s/run.json", r->dir);
		unlink(p);
		snprintf(p, sizeof(p), "%s/points.csv", r->dir);
		unlink(p);
		rmdir(r->dir);
	}
	json_decref(r->doc);
	free(r);
	return NULL;
}

const char *res_run_dir(const struct res_run *r)
{
	return r->dir;
}

json_t *res_run_doc(struct res_run *r)
{
	return r->doc;
}

/* Per mix entry: counts, latency and I/O rates (see results.h). */
static json_t *res_entry_json(const struct load_entry_stats *e, const struct wl_entry *we,
			      double elapsed_s, bool *ok)
{
	json_t *o = json_object();
	if (!o) {
		*ok = false;
		return NULL;
	}
	const struct stats_hist *h = &e->lat;
	const struct job_io *io = &e->io;
	double job_s = (double)h->sum_ns / 1e9;
	uint64_t ops = io->rops + io->wops;
	bool lat = h->count > 0;
	double rt = io->rtime_ns ? (double)io->rtime_ns / 1e9 : job_s;
	double wt = io->wtime_ns ? (double)io->wtime_ns / 1e9 : job_s;

	res_put(o, "job", res_str(we && we->kind ? we->kind->name : ""), ok);
	res_put(o, "runs", res_u64(e->runs), ok);
	res_put(o, "job_time_s", res_num(job_s), ok);
	res_put(o, "mean_ms", lat ? res_num((double)h->sum_ns / (double)h->count / 1e6) : json_null(),
		ok);
	res_put(o, "p50_ms", lat ? res_num(stats_hist_quantile(h, 0.50) / 1e6) : json_null(), ok);
	res_put(o, "p99_ms", lat ? res_num(stats_hist_quantile(h, 0.99) / 1e6) : json_null(), ok);
	res_put(o, "max_ms", lat ? res_num((double)h->max_ns / 1e6) : json_null(), ok);
	res_put(o, "rbytes", res_u64(io->rbytes), ok);
	res_put(o, "wbytes", res_u64(io->wbytes), ok);
	res_put(o, "rops", res_u64(io->rops), ok);
	res_put(o, "wops", res_u64(io->wops), ok);
	res_put(o, "fsyncs", res_u64(io->fsyncs), ok);
	res_put(o, "syncs", res_u64(io->syncs), ok);
	bool el = elapsed_s > 0;
	res_put(o, "reads_s", el ? res_num((double)io->rops / elapsed_s) : json_null(), ok);
	res_put(o, "writes_s", el ? res_num((double)io->wops / elapsed_s) : json_null(), ok);
	res_put(o, "fsyncs_s", el ? res_num((double)io->fsyncs / elapsed_s) : json_null(), ok);
	res_put(o, "read_mb_s", el ? res_num((double)io->rbytes / elapsed_s / 1e6) : json_null(), ok);
	res_put(o, "write_mb_s", el ? res_num((double)io->wbytes / elapsed_s / 1e6) : json_null(),
		ok);
	res_put(o, "iops", el ? res_num((double)ops / elapsed_s) : json_null(), ok);
	res_put(o, "read_mb_s_job", rt > 0 ? res_num((double)io->rbytes / rt / 1e6) : json_null(),
		ok);
	res_put(o, "write_mb_s_job", wt > 0 ? res_num((double)io->wbytes / wt / 1e6) : json_null(),
		ok);
	res_put(o, "iops_job", job_s > 0 ? res_num((double)ops / job_s) : json_null(), ok);
	return o;
}

/* summary.max_jpm / max_jpm_users: best JPM over points that completed. */
static void res_put_max(struct res_run *r, bool *ok)
{
	res_put(r->summary, "max_jpm", r->have_max ? res_num(r->max_jpm) : json_null(), ok);
	res_put(r->summary, "max_jpm_users", r->have_max ? json_integer(r->max_users) : json_null(),
		ok);
}

int res_run_add_point(struct res_run *r, const struct load_point *p, unsigned sample,
		      const struct workload *wl)
{
	bool ok = true;
	json_t *o = json_object(), *t = json_object(), *kinds = json_object();
	if (!o || !t || !kinds) {
		json_decref(o);
		json_decref(t);
		json_decref(kinds);
		return -1;
	}
	res_put(o, "users", json_integer(p->users), &ok);
	res_put(o, "sample", json_integer(sample), &ok);
	res_put(o, "jobs_per_user", json_integer(p->jobs_per_user), &ok);
	res_put(o, "jobs", res_u64(p->jobs), &ok);
	res_put(o, "elapsed_s", res_num(p->elapsed_s), &ok);
	res_put(o, "jpm", res_num(p->jpm), &ok);
	res_put(o, "jpm_per_user", res_num(p->jpm_per_user), &ok);
	res_put(t, "min", res_num(p->user_time.min), &ok);
	res_put(t, "max", res_num(p->user_time.max), &ok);
	res_put(t, "mean", res_num(p->user_time.mean), &ok);
	res_put(t, "stddev", res_num(p->user_time.stddev), &ok);
	res_put(o, "user_time_s", t, &ok);
	res_put(o, "jti", res_num(p->jti), &ok);
	res_put(o, "user_cpu_s", res_num(p->user_cpu_s), &ok);
	res_put(o, "sys_cpu_s", res_num(p->sys_cpu_s), &ok);
	res_put(o, "failed", json_boolean(p->failed), &ok);
	res_put(o, "failed_users", json_integer(p->failed_users), &ok);
	res_put(o, "reason", res_str_or_null(p->reason), &ok);
	res_put(o, "interrupted", json_boolean(p->interrupted), &ok);
	if (wl && wl->measure.how == WL_MEASURE_TIME) {
		json_t *s = json_object();
		res_put(o, "steady", s, &ok);
		if (s) {
			res_put(s, "checked", json_boolean(p->steady_checked), &ok);
			res_put(s, "attained", json_boolean(p->steady_attained), &ok);
		}
	} else {
		res_put(o, "steady", json_null(), &ok);
	}
	for (size_t i = 0; i < p->nentries; i++) {
		const struct wl_entry *we = wl && i < wl->nmix ? &wl->mix[i] : NULL;
		char key[WL_NAME_LEN + 16];
		if (we && we->name[0])
			snprintf(key, sizeof(key), "%s", we->name);
		else if (we && we->kind)
			snprintf(key, sizeof(key), "%s", we->kind->name);
		else
			snprintf(key, sizeof(key), "entry%zu", i);
		if (json_object_get(kinds, key))   /* two entries of one name: keep both */
			snprintf(key + strlen(key), sizeof(key) - strlen(key), "#%zu", i);
		res_put(kinds, key, res_entry_json(&p->entries[i], we, p->elapsed_s, &ok), &ok);
	}
	res_put(o, "jobs_by_kind", kinds, &ok);
	if (!ok) {
		json_decref(o);
		return -1;
	}
	if (json_array_append_new(r->points, o))
		return -1;
	if (!p->failed && !p->interrupted && isfinite(p->jpm) &&
	    (!r->have_max || p->jpm > r->max_jpm)) {
		r->have_max = true;
		r->max_jpm = p->jpm;
		r->max_users = p->users;
	}
	res_put_max(r, &ok);
	return ok ? 0 : -1;
}

int res_run_set_summary(struct res_run *r, const struct ramp_obs *obs, size_t nobs,
			const struct ramp_summary *s, unsigned samples, double wall_s)
{
	bool ok = true;
	json_t *sum = r->summary;
	res_put_max(r, &ok);
	res_put(sum, "peak_jpm", s->have_peak ? res_num(s->peak_jpm) : json_null(), &ok);
	res_put(sum, "peak_users", s->have_peak ? json_integer(s->peak_users) : json_null(), &ok);
	res_put(sum, "peak_established", json_boolean(s->peak_established), &ok);
	res_put(sum, "peak_flat", json_boolean(s->peak_flat), &ok);
	res_put(sum, "peak_beaten", json_boolean(s->peak_beaten), &ok);
	res_put(sum, "converge_threshold", res_num(s->converge_threshold), &ok);
	res_put(sum, "converge_jpm", s->have_converge ? res_num(s->converge_jpm) : json_null(), &ok);
	res_put(sum, "converge_users", s->have_converge ? json_integer(s->converge_users) : json_null(),
		&ok);
	res_put(sum, "converge_max_jpm",
		s->have_converge ? res_num(s->converge_max_jpm) : json_null(), &ok);
	res_put(sum, "points_measured", json_integer(samples), &ok);
	res_put(sum, "wall_s", res_num(wall_s), &ok);
	res_put(sum, "stop_reason", res_str(ramp_stop_name(s->stop_reason)), &ok);
	res_put(sum, "noise_sd_rel", s->noise_df ? res_num(s->noise_rel) : json_null(), &ok);
	res_put(sum, "noise_df", json_integer(s->noise_df), &ok);

	json_t *by = json_array();
	for (size_t i = 0; by && i < nobs; i++) {
		const struct ramp_obs *o = &obs[i];
		json_t *u = json_object(), *js = json_array();
		if (!u || !js) {
			json_decref(u);
			json_decref(js);
			ok = false;
			break;
		}
		res_put(u, "users", json_integer(o->users), &ok);
		res_put(u, "n", json_integer(o->n), &ok);
		res_put(u, "jpm_mean", res_num(o->mean), &ok);
		res_put(u, "jpm_sd", res_num(o->sd), &ok);
		res_put(u, "ci95_lo", res_num(o->ci_lo), &ok);
		res_put(u, "ci95_hi", res_num(o->ci_hi), &ok);
		res_put(u, "failed", json_boolean(o->failed), &ok);
		for (unsigned k = 0; k < o->n && k < RAMP_MAX_SAMPLES; k++)
			res_push(js, res_num(o->jpm[k]), &ok);
		res_put(u, "jpm_samples", js, &ok);
		res_push(by, u, &ok);
	}
	res_put(sum, "by_users", by, &ok);
	return ok ? 0 : -1;
}

/* ---- writing ------------------------------------------------------------ */

/* A CSV field from a JSON number/bool; empty for null or missing. */
static void res_csv_field(FILE *f, const json_t *v, bool first)
{
	if (!first)
		fputc(',', f);
	if (json_is_integer(v))
		fprintf(f, "%lld", (long long)json_integer_value(v));
	else if (json_is_real(v))
		fprintf(f, "%.10g", json_real_value(v));
	else if (json_is_boolean(v))
		fputc(json_is_true(v) ? '1' : '0', f);
}

static int res_write_csv(FILE *f, void *ctx)
{
	const json_t *points = ctx;
	static const char *const top[] = { "users", "sample", "jobs_per_user", "jobs", "elapsed_s",
					   "jpm", "jpm_per_user", NULL };
	static const char *const ut[] = { "min", "max", "mean", "stddev", NULL };
	static const char *const tail[] = { "jti", "user_cpu_s", "sys_cpu_s", "failed",
					    "failed_users", NULL };
	size_t i;
	json_t *p;

	fputs("users,sample,jobs_per_user,jobs,elapsed_s,jpm,jpm_per_user,t_min,t_max,t_mean,"
	      "t_stddev,jti,user_cpu_s,sys_cpu_s,failed,failed_users\n", f);
	json_array_foreach(points, i, p) {
		const json_t *t = json_object_get(p, "user_time_s");
		for (int k = 0; top[k]; k++)
			res_csv_field(f, json_object_get(p, top[k]), k == 0);
		for (int k = 0; ut[k]; k++)
			res_csv_field(f, json_object_get(t, ut[k]), false);
		for (int k = 0; tail[k]; k++)
			res_csv_field(f, json_object_get(p, tail[k]), false);
		fputc('\n', f);
	}
	return 0;
}

static int res_write_json(FILE *f, void *ctx)
{
	if (json_dumpf(ctx, f, JSON_INDENT(2) | JSON_REAL_PRECISION(15)))
		return -1;
	return fputc('\n', f) == EOF ? -1 : 0;
}

/*
 * Replace <dir>/<name> atomically: write <name>.tmp, flush, fsync, close,
 * rename over the target, fsync the directory.  The temp file is removed
 * on any error, so the target is either the old or the new file.
 */
static int res_write_atomic(const char *dir, const char *name, int (*fill)(FILE *, void *),
			    void *ctx, char *err, size_t errlen)
{
	char path[PATH_MAX], tmp[PATH_MAX];
	FILE *f = NULL;
	int fd = -1, dfd = -1, ret = -1, e = 0;
	const char *op = "write";

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(tmp, sizeof(tmp), "%s/%s.tmp", dir, name);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		e = errno;
		op = "create";
		goto fail_tmp;
	}
	f = fdopen(fd, "w");
	if (!f) {
		e = errno;
		close(fd);
		goto fail_tmp;
	}
	errno = 0;
	if (fill(f, ctx) || fflush(f) || ferror(f)) {
		e = errno ? errno : EIO;
		fclose(f);
		goto fail_tmp;
	}
	if (fsync(fileno(f))) {
		e = errno;
		op = "fsync";
		fclose(f);
		goto fail_tmp;
	}
	if (fclose(f)) {
		e = errno;
		op = "close";
		goto fail_tmp;
	}
	if (rename(tmp, path)) {
		e = errno;
		op = "rename";
		goto fail_tmp;
	}
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || fsync(dfd)) {
		snprintf(err, errlen, "fsync directory '%s' failed: %s", dir, strerror(errno));
		goto out;
	}
	ret = 0;
	goto out;

fail_tmp:
	if (!strcmp(op, "rename"))
		snprintf(err, errlen, "rename '%s' to '%s' failed: %s", tmp, path, strerror(e));
	else
		snprintf(err, errlen, "%s '%s' failed: %s", op, tmp, strerror(e));
	unlink(tmp);
out:
	if (dfd >= 0)
		close(dfd);
	return ret;
}

int res_run_write(struct res_run *r, const char *status, char *err, size_t errlen)
{
	bool known = false, ok = true;
	for (int i = 0; res_statuses[i]; i++)
		known = known || (status && !strcmp(status, res_statuses[i]));
	if (!known) {
		snprintf(err, errlen, "results: unknown run status '%s'", status ? status : "(null)");
		return -1;
	}
	res_put(r->doc, "status", json_string(status), &ok);
	if (strcmp(status, "running")) {
		char when[32];
		res_iso_time(time(NULL), when, sizeof(when));
		res_put(r->doc, "finished", json_string(when), &ok);
	} else {
		res_put(r->doc, "finished", json_null(), &ok);
	}
	if (!ok) {
		snprintf(err, errlen, "results: out of memory");
		return -1;
	}
	if (res_write_atomic(r->dir, "points.csv", res_write_csv, r->points, err, errlen))
		return -1;
	return res_write_atomic(r->dir, "run.json", res_write_json, r->doc, err, errlen);
}

void res_run_free(struct res_run *r)
{
	if (!r)
		return;
	json_decref(r->doc);
	free(r);
}

/* ---- reading ------------------------------------------------------------ */

int res_load(const char *path, json_t **out, char *err, size_t errlen)
{
	char file[PATH_MAX];
	struct stat st;
	json_error_t je;
	json_t *doc = NULL;

	*out = NULL;
	if (!path || !path[0]) {
		snprintf(err, errlen, "results: no path given");
		return -1;
	}
	if (stat(path, &st)) {
		snprintf(err, errlen, "'%s': %s", path, strerror(errno));
		return -1;
	}
	if (S_ISDIR(st.st_mode))
		snprintf(file, sizeof(file), "%s/run.json", path);
	else
		snprintf(file, sizeof(file), "%s", path);
	doc = json_load_file(file, 0, &je);
	if (!doc) {
		if (je.line > 0)
			snprintf(err, errlen, "%s:%d:%d: %s", file, je.line, je.column, je.text);
		else
			snprintf(err, errlen, "'%s': %s", file, je.text);
		return -1;
	}
	if (!json_is_object(doc)) {
		snprintf(err, errlen, "'%s': not a jobmix run (expected a JSON object)", file);
		goto fail;
	}
	const json_t *schema = json_object_get(doc, "schema");
	if (!json_is_string(schema)) {
		snprintf(err, errlen, "'%s': not a jobmix run (no \"schema\" string)", file);
		goto fail;
	}
	if (strcmp(json_string_value(schema), RES_SCHEMA)) {
		snprintf(err, errlen, "'%s': unsupported schema '%s' (expected '%s')", file,
			 json_string_value(schema), RES_SCHEMA);
		goto fail;
	}
	*out = doc;
	return 0;
fail:
	json_decref(doc);
	return -1;
}
