/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The index of an IO-scheduler A/B: <outdir>/<stamp>-<workload>-ab/index.json
 * groups the run folders of its arms (one per scheduler and round, beside
 * it) and records the order in which every point was measured:
 *
 *   {schema "jobmix-ab/1", status, workload, schedulers [...], devices [...],
 *    original {dev: scheduler}, order, mode, rounds,
 *    runs [{scheduler, round, dir ("../<run folder>"), status}],
 *    sequence [{scheduler, round, users, sample}]  (measurement order),
 *    restored true|false|null, restore_error, chart (with gnuplot: "chart.png")}
 *
 * An axes matrix (run -X) lists "arms" (each combination's label,
 * "queue.read_ahead_kb=128 fileio.block=4k") for "schedulers", and its
 * runs[] and sequence[] name an "arm" for a "scheduler".
 *
 * Rewritten atomically (atomic.h: temp file, fsync, rename, fsync of the
 * folder) after every change, through a descriptor of its folder held from
 * its mkdir on (the chart is written through it too).
 */
#ifndef JOBMIX_RUN_ABINDEX_H
#define JOBMIX_RUN_ABINDEX_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct json_t json_t;

struct abindex {
	char dir[PATH_MAX];
	int dirfd;           /* the folder, held; -1 when none */
	json_t *doc;
	bool matrix;         /* an axes matrix: arms, not schedulers */
};

/* Make the folder and write a first index.  0 or -1 with err (nothing left behind). */
int abx_create(struct abindex *x, const char *outdir, const char *wl_name,
	       const char *const *scheds, size_t nsched, bool matrix, const char *devices,
	       const char *originals, const char *order, const char *mode, unsigned rounds,
	       char *err, size_t errlen);
/* A run folder of an arm (its path; the index stores it relative to itself). */
int abx_add_run(struct abindex *x, const char *sched, unsigned round, const char *run_dir);
int abx_set_run_status(struct abindex *x, const char *run_dir, const char *status);
/* One measured point, in order. */
int abx_add_point(struct abindex *x, const char *sched, unsigned round, unsigned users,
		  unsigned sample);
/* The overlay chart beside the index (a name in its folder). */
void abx_set_chart(struct abindex *x, const char *name);
/* restored: -1 unknown, 0 failed, 1 restored. */
/* Rounds measured and why the rounds stopped (run --until-decided; why NULL: not asked). */
void abx_set_rounds(struct abindex *x, unsigned rounds, const char *why);
void abx_set_end(struct abindex *x, const char *status, int restored, const char *restore_error);
int abx_write(struct abindex *x, char *err, size_t errlen) __attribute__((warn_unused_result));
void abx_free(struct abindex *x);

#endif
