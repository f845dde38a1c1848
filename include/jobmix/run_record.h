/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The run side's adapters to the results schema: a measured load point, the
 * ramp's summary, the workload and the environment as results records and
 * objects.  The results module knows none of load, ramp, workload or sys.
 */
#ifndef JOBMIX_RUN_RECORD_H
#define JOBMIX_RUN_RECORD_H

#include "jobmix/load.h"
#include "jobmix/ramp.h"
#include "jobmix/results.h"
#include "jobmix/sys.h"
#include "jobmix/sys_dstat.h"
#include "jobmix/workload.h"

/*
 * A load point as a results point; out->kinds is malloc'd (free it), or
 * NULL with nkinds 0 when the point has no entries.  -1 out of memory.
 */
int rec_point(const struct load_point *p, unsigned sample, const struct workload *wl,
	      struct res_point *out);
/*
 * The ramp's outcome over its observations as a results summary; out->by
 * is malloc'd and its samples point into obs (free out->by only).
 */
int rec_summary(const struct ramp_obs *obs, size_t nobs, const struct ramp_summary *s,
		unsigned samples, double wall_s, struct res_summary *out);
/* The workload as jobmix ran it, every default filled in; NULL out of memory. */
json_t *rec_workload_json(const struct workload *wl);
/* The environment object of run.json; NULL out of memory (env NULL: JSON null). */
json_t *rec_env_json(const struct sys_env *env);

/* Convenience for the run loop: convert and append / replace, freeing what it made. */
int rec_add_point(struct res_run *r, const struct load_point *p, unsigned sample,
		  const struct workload *wl);
int rec_set_summary(struct res_run *r, const struct ramp_obs *obs, size_t nobs,
		    const struct ramp_summary *s, unsigned samples, double wall_s);
/* Create the run folder for wl (env may be NULL). */
struct res_run *rec_run_create(const char *outdir, const struct workload *wl,
			       const struct sys_env *env, const struct res_kv *labels,
			       size_t nlabels, int argc, char **argv, char *err, size_t errlen);

/*
 * Folder <stamp>-<workload>-<suffix> (suffix NULL: as rec_run_create);
 * found: how the workload file was found (run.json workload.found), or NULL.
 */
struct res_run *rec_run_create_named(const char *outdir, const struct workload *wl,
				     const struct sys_env *env, const struct res_kv *labels,
				     size_t nlabels, int argc, char **argv, const char *suffix,
				     const char *found, char *err, size_t errlen);
/* A device's rates over a point's window as a results record. */
void rec_dev(const char *name, const struct sys_drate *d, struct res_dev *out);
/*
 * rec_add_point with the devices' records of the point and the machine's
 * (borrowed; m may be NULL); work_dev (or NULL, ""): the device the work
 * directory is on, recorded as the device of each entry working there.
 */
int rec_add_point_devs(struct res_run *r, const struct load_point *p, unsigned sample,
		       const struct workload *wl, const char *work_dev, const struct res_dev *devs,
		       size_t ndevs, const struct res_machine *m);

#endif
