/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Results: a run folder results/<YYYYmmdd-HHMMSS>-<workload>[-N]/ (UTC
 * time of creation, workload name reduced to [A-Za-z0-9._-]) holding
 * run.json (schema "jobmix-run/1") and points.csv, rewritten atomically
 * (temp file, fsync, rename, fsync dir) after every load point.
 *
 * run.json, top level (insertion order):
 *   schema, status ("running" | "complete" | "interrupted" | "failed"),
 *   started, finished (ISO-8601 UTC, finished null while running),
 *   command [argv...],
 *   workload {path, sha256, name, description, resolved {filesize, poolsize,
 *             dirs, users {...}, sync, seed, measure {...},
 *             mix [{job, name, weight, params {typed values}, params_set [...]}]}},
 *   labels {key: value} (kernel= and scheduler= labels stay here; readers
 *           let them override env),
 *   env {kernel, hostname, machine, cpus, mem_bytes, fs_type, mount_point,
 *        mount_options, device|null, scheduler|null, schedulers, jobmix_version},
 *   points [{users, sample, jobs_per_user, jobs, elapsed_s, jpm, jpm_per_user,
 *            user_time_s {min, max, mean, stddev}, jti, user_cpu_s, sys_cpu_s,
 *            failed, failed_users, reason|null, interrupted,
 *            steady null | {checked, attained}  (object in time mode only),
 *            jobs_by_kind {entry name: {...}}}],
 *   summary {max_jpm, max_jpm_users, peak_jpm, peak_users, converge_jpm,
 *            converge_users, converge_max_jpm, points_measured, wall_s,
 *            stop_reason, by_users [{users, n, jpm_mean, jpm_sd, ci95_lo,
 *            ci95_hi, failed, jpm_samples [...]}]}
 *
 * jobs_by_kind entry: job (kind), runs, job_time_s (sum of the runs' times),
 * mean_ms, p50_ms, p99_ms, max_ms (latency of one run; null with no runs),
 * rbytes, wbytes, rops, wops, and rates:
 *   read_mb_s, write_mb_s, iops: bytes / elapsed_s of the point / 1e6 and
 *       (rops + wops) / elapsed_s: what the entry moved while the point ran;
 *   read_mb_s_job, write_mb_s_job: bytes / 1e6 over the time the entry's jobs
 *       spent in their read (rtime) / write (wtime) phases, or over
 *       job_time_s when the job did not time its phases;
 *   iops_job: (rops + wops) / job_time_s.
 * A rate whose denominator is 0 is null; so is any non-finite number.
 * Reals are written with 15 significant digits.
 *
 * points.csv: one header line, then one row per point:
 *   users,sample,jobs_per_user,jobs,elapsed_s,jpm,jpm_per_user,t_min,t_max,
 *   t_mean,t_stddev,jti,user_cpu_s,sys_cpu_s,failed,failed_users
 * (failed is 0 or 1; an unknown number is an empty field).
 */
#ifndef JOBMIX_RESULTS_H
#define JOBMIX_RESULTS_H

#include <stddef.h>

#include "jobmix/load.h"
#include "jobmix/ramp.h"
#include "jobmix/sys.h"
#include "jobmix/workload.h"

#define RES_SCHEMA "jobmix-run/1"

struct res_label {
	char key[64];
	char value[192];
};

struct res_run;

/* jansson's document type, without making every includer include <jansson.h>. */
typedef struct json_t json_t;

/*
 * Create a new run folder under outdir (each missing component created);
 * never reuses an existing folder: a name taken in the same second gets
 * -2, -3, ...  Records workload, env (may be NULL), labels, argv and
 * writes a first run.json with status "running".  NULL with err set.
 */
struct res_run *res_run_create(const char *outdir, const struct workload *wl,
			       const struct sys_env *env, const struct res_label *labels,
			       size_t nlabels, int argc, char **argv, char *err, size_t errlen);
const char *res_run_dir(const struct res_run *r);

/* Append one measured sample (a load point) of `sample` index at its user count. */
int res_run_add_point(struct res_run *r, const struct load_point *p, unsigned sample,
		      const struct workload *wl);
/* Per-user-count aggregates (mean, sd, 95% CI over samples) and the summary. */
int res_run_set_summary(struct res_run *r, const struct ramp_obs *obs, size_t nobs,
			const struct ramp_summary *s, unsigned samples, double wall_s);
/*
 * Write run.json and points.csv atomically with the given status; a status
 * other than "running" also sets "finished".  On error the previous files
 * are left as they were and err names the path and the reason.
 */
int res_run_write(struct res_run *r, const char *status, char *err, size_t errlen)
	__attribute__((warn_unused_result));
void res_run_free(struct res_run *r);

/* The in-memory document, for callers that record more (owned by r). */
json_t *res_run_doc(struct res_run *r);

/*
 * Load a run: `path` is a run folder (its run.json is read) or a file.
 * Checks that it is a JSON object with "schema": "jobmix-run/1".  On
 * success *out holds a new reference (json_decref it); -1 with err set.
 */
int res_load(const char *path, json_t **out, char *err, size_t errlen)
	__attribute__((warn_unused_result));

#endif
