/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Results: a run folder results/<YYYYmmdd-HHMMSS>-<workload>[-N]/ holding
 * run.json (schema "jobmix-run/1") and points.csv, rewritten atomically
 * (temp file, fsync, rename, fsync dir) after every load point.
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

/*
 * Create a new run folder under outdir (created if missing); never reuses
 * an existing folder.  Records workload, env, labels, argv.
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
/* Write run.json and points.csv atomically with the given status. */
int res_run_write(struct res_run *r, const char *status, char *err, size_t errlen);
void res_run_free(struct res_run *r);

#endif
