/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The runs under some paths, read as `jobmix report`, `compare` and `plot`
 * read them (src/results/runs.c).  Nothing is printed: what is skipped is
 * said through a warn hook as it happens, and listed.
 */
#ifndef JOBMIX_RES_RUNS_H
#define JOBMIX_RES_RUNS_H

#include <stddef.h>

#include "jobmix/atomic.h"
#include "jobmix/results.h"

struct res_runs {
	struct res_rec *run;
	size_t n;
	size_t skipped;      /* paths refused or not searched (each said through warn) */
	char **skip;         /* each as "path: why", for the report's footnote */
	struct atom_set inputs;   /* every run.json found and its points.csv */
	struct {
		size_t roots;       /* results roots read through their index */
		size_t hits;        /* runs read from an index */
		size_t parsed;      /* runs parsed and stored in one */
		size_t dropped;     /* runs taken out of one (their run.json gone) */
		bool rebuilt;       /* an index was made afresh */
	} index;
};

/* A warning while loading ("skipped PATH: why", "no run.json under 'PATH'"). */
typedef void (*res_runs_warn_fn)(void *arg, const char *msg);

/*
 * Read every run under paths (run folders, run.json files, results roots;
 * none: ./results).  A run.json that cannot be read, and a folder that
 * cannot be searched, is warned about (warn, may be NULL) and skipped (and
 * listed in skip); a run still "running" whose owner is gone gets
 * owner_gone.  Every run.json found and the points.csv beside it are noted
 * as inputs, so that -o cannot name one of them.  A path that is a results
 * root (a folder that is not itself a run) is read through its index
 * (res_index.h), made or refreshed on the way.  -1 with err only when a
 * path itself cannot be read or out of memory (rs empty then).
 */
int res_runs_load(struct res_runs *rs, char *const *paths, size_t npaths, res_runs_warn_fn warn,
		  void *arg, char *err, size_t errlen) __attribute__((warn_unused_result));
/*
 * The same, reading only parts of each run: without RES_RUNS_POINTS a run
 * is read without its points (points NULL, npoints 0; npoints_ok,
 * fail_users and fail_reason kept), which is what a table of Peak Load and
 * Quick Convergence, a compare of JPM and a history need: through a root's
 * index only the run's row is decoded (its points are in another table).
 * Before its points go, project (may be NULL) sees each run with the points
 * at its summary's user counts (res_rec_peak_point; points_part), to keep
 * what the command needs of them in r->proj.  Without RES_RUNS_CURVES (and
 * RES_RUNS_POINTS) summary.by is not kept either.  res_runs_load reads
 * every part.
 */
#define RES_RUNS_POINTS 1u
#define RES_RUNS_CURVES 2u   /* summary.by (what compare and the charts read); else none */
#define RES_RUNS_PEAK 4u     /* the points at the peak kept (points_part: res_rec_peak_point,
			      * without their mix entries): a point's figure at the peak */
typedef void (*res_runs_project_fn)(struct res_rec *r, void *arg);
int res_runs_load_parts(struct res_runs *rs, char *const *paths, size_t npaths, unsigned parts,
			res_runs_project_fn project, void *parg, res_runs_warn_fn warn, void *arg,
			char *err, size_t errlen) __attribute__((warn_unused_result));
void res_runs_free(struct res_runs *rs);

#endif
