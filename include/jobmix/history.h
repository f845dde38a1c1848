/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Nightly history: every series of comparable runs and the change points
 * in it (changepoint.h), instead of tonight against one other night.
 *
 * A series is one row of report's grouping (report.h): the runs of one
 * workload and fingerprint (never runs measured differently) that agree on
 * the --by keys (default hostname, scheduler: a kernel change is what a
 * nightly history is there to catch, so kernels are not split apart unless
 * asked), for one metric (Peak Load, Quick Convergence, or with --metric
 * each named one at each run's Peak Load point), in run order:
 * by a label (--order night, commit, ...: numbers numerically, else as
 * text) or by start time, ties by start time and id.  Only complete runs
 * with the metric enter a series; the others are counted and the newest
 * run being one of them is missing evidence.
 *
 * With an order key a series is a series of blocks, one per value (a
 * night): change points fall between blocks (cp_detect_blocks), each with
 * its cause (hist_cause); without one, every run is its own unit
 * (cp_detect).  Alert once: a regression the series already had without
 * its newest block (and no deeper by the threshold) is known: exit 0
 * unless sticky.  A change classified the host's is never a regression.
 *
 * The newest segment (from the last change point to the newest run) is a
 * regression when its change was a fall of at least the threshold (a rise,
 * for a metric where lower is better: elapsed, latency); the
 * change points are already significant at alpha (Bonferroni over the
 * windows).  Pure: no I/O but the FILE * the renderer is given.
 */
#ifndef JOBMIX_HISTORY_H
#define JOBMIX_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "jobmix/changepoint.h"
#include "jobmix/report.h"

struct hist_opts {
	struct rep_opts rep;           /* workload, by (none: hostname, scheduler), allow_diff,
					* qc_max, threshold (0: REP_THRESHOLD_DEFAULT) */
	const char *order;             /* the label (or any res_rec_get key) runs are ordered by;
					* NULL: start time */
	struct cp_opts cp;             /* window, alpha, min_seg (0: defaults) */
	bool sticky;                   /* a known regression exits 1 every night, not only its first */
	const char *accept;            /* with order: the block (order value) accepted as the
					* baseline; the blocks before it are left out; NULL none */
};

enum hist_state {
	HIST_FLAT,                     /* no change point, or the newest change is within the threshold */
	HIST_REGRESSION,               /* the newest segment began with a fall beyond the threshold */
	HIST_IMPROVEMENT,              /* ... with a rise beyond it */
};

/*
 * What else changed at a change point (hist_classify): the env of the
 * blocks either side (kernel, a setting, mount options, file system, queue)
 * or, env unchanged, the interference the runs measured (other work's and
 * steal's share of the CPUs: the CPU left to the run changing by at least
 * half the change, the same way), else neither.  Runs with points
 * [decisive] kept flagged (other work over the run's bound, no re-measure
 * left) are left out of the series before this, and counted (nflagged).
 */
enum hist_class {
	HIST_UNEXPLAINED,
	HIST_KERNEL,
	HIST_SETTING,                  /* a setting, mount options, file system or queue */
	HIST_HOST,                     /* this host's interference, or this host only (fleet) */
};

struct hist_cause {
	enum hist_class cls;
	char env[512];                 /* "kernel 6.12.1 -> 6.12.2, add_long.scale 1 -> 1.2" or "" */
	char machine[512];             /* the interference before -> after, "" none measured */
	char fleet[256];               /* across hosts: "on every host (3)", "this host only ..." */
	double avail;                  /* the CPU left to the run, after / before - 1; NAN unmeasured */
};

struct hist_series {
	size_t table, row;             /* in hist_report.rep */
	bool qc;                       /* Quick Convergence, else Peak Load ... */
	size_t measure;                /* ... or rep.measure[measure] (--metric) at each run's
					* Peak Load point; SIZE_MAX: Peak Load or Quick Convergence */
	size_t n;                      /* values in the series */
	size_t *run;                   /* their runs (indices into the runs given), in order */
	double *x;                     /* their values */
	size_t nleft;                  /* runs of the row left out (not complete, or no value) */
	size_t nflagged;               /* runs left out: points flagged (summary.interfered) */
	size_t newest_left;            /* SIZE_MAX, or the newest run of the row when it was left out */
	size_t *bstart, nb;            /* blocks (runs of one order value): x[bstart[b], bstart[b+1]) */
	struct cp_point *cp;           /* change points in x, in order (between blocks) */
	size_t ncp;
	struct hist_cause *cause;      /* one per change point */
	enum hist_state state;         /* of the newest change that is not the host's */
	size_t judged;                 /* that change point's index in cp; SIZE_MAX none */
	bool known;                    /* a regression the night before already had, not deeper */
	size_t naccepted;              /* runs before the accepted block, left out */
	double newest_z;               /* the newest value against its segment's other values:
					* (log x - mean) / sd of the logs; NAN with < 3 of them */
};

struct hist_report {
	struct hist_opts opts;         /* as resolved */
	struct rep_report rep;         /* the grouping */
	const struct res_rec *runs;    /* borrowed */
	size_t nruns;
	struct hist_series *s;
	size_t ns;
};

/* 0, or -1 with err (a --by key no run has, out of memory). */
int hist_build(const struct res_rec *runs, size_t nruns, const struct hist_opts *o,
	       struct hist_report *out, char *err, size_t errlen);
void hist_free(struct hist_report *h);

/* text, md, csv or json (html is report's); 0 or -1 on a write error. */
int hist_render(FILE *f, const struct hist_report *h, enum rep_format fmt);

/*
 * What a nightly makes of it: 1 when any series' newest segment is a
 * regression, else 3 when a series' newest run was left out (failed,
 * interrupted, running, no figure: missing evidence), else 0.
 */
int hist_exit_code(const struct hist_report *h);

/* The one-line verdict (no newline): what hist_exit_code's code is for. */
void hist_verdict(const struct hist_report *h, char *buf, size_t len);

#endif
