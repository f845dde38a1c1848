/* SPDX-License-Identifier: GPL-2.0-only */
/* `jobmix run`'s options: parsed apart from the run itself. */
#ifndef JOBMIX_CLI_RUN_OPTS_H
#define JOBMIX_CLI_RUN_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "jobmix/ramp.h"
#include "jobmix/ramp_order.h"
#include "jobmix/report.h"
#include "jobmix/results.h"
#include "jobmix/run.h"
#include "jobmix/workload.h"
#include "jobmix/progress.h"

#define MAX_DIRS 64
#define MAX_LABELS 32
#define MAX_SETS 128
#define RUN_DECIDE_ROUNDS 20   /* --until-decided's budget without --max-rounds */

struct run_opts {
	const char *workload;
	const char *users;        /* -u SPEC */
	const char *mode;         /* -m */
	const char *outdir;
	const char *dirs[MAX_DIRS];
	size_t ndirs;
	struct res_label labels[MAX_LABELS];
	size_t nlabels;
	/* workload keys set by options and -P, in the order given (see run_apply_overrides) */
	struct run_set sets[MAX_SETS];   /* a wl_keys path, or ENTRY.PARAM of a mix entry */
	size_t nsets;
	const char *timeout;
	const char *reap_timeout; /* --reap-timeout: how long killed users may take to go */
	const char *max_users;    /* --max-users (also a set of users.end) */
	const char *jobspec;      /* --job KIND[:WEIGHT][,...]: an ad-hoc mix, no file */
	const char *wl_text;      /* workload YAML made by a front end (jobmix reaim), or NULL */
	const char *wl_label;     /* ... and the name it goes by (its source file) */
	int verbosity;            /* -1 quiet, 0 normal, 1 verbose */
	enum prog_style progress;
	const char *scheds;       /* -s LIST | all: an A/B */
	const char *devices;      /* --device LIST */
	struct run_axis axes[RUN_MAX_AXES];   /* -X KEY=V1,V2,..., split (run.h's one limit) */
	size_t naxes;
	bool allow_sysctl;        /* --allow-sysctl */
	bool no_trace;            /* --no-trace: no block-layer tracing */
	unsigned trace_sample;    /* --trace-sample N: 1 request in N timed; 0: the default */
	const char *scratch;      /* --scratch DEV, or NULL */
	struct rep_opts table;    /* --metric, parsed once (rep_opts_add_metric): the A/B table's */
	bool sequential;          /* --order sequential */
	bool order_given;         /* --order fair|sequential (an A/B's order) */
	const char *points;       /* --order ascending|descending|shuffle (a linear list's) */
	unsigned rounds;          /* --rounds, 1 by default; --until-decided: the most */
	bool until_decided;       /* --until-decided: rounds added until every verdict decides */
	unsigned max_rounds;      /* --max-rounds, 0: RUN_DECIDE_ROUNDS */
	const char *decide_time;  /* --decide-time D, or NULL */
	double threshold;         /* --threshold, 0: REP_THRESHOLD_DEFAULT */
	/* typed after parsing (run_parse_args), for the engine's plan */
	enum ramp_order order;    /* --order fair|sequential */
	bool points_given;        /* --order ascending|descending|shuffle */
	enum ramp_points points_order;
	bool dry_run;             /* --dry-run: print the plan, touch nothing */
};

/*
 * A run with parsed options: everything `jobmix run` does after its
 * command line (also `jobmix reaim`'s), through the run engine (run.h).  argv is recorded in run.json;
 * dir (if not NULL) gets the first run folder ("" when none was made).
 * Returns the exit code.
 */
int run_main(const struct run_opts *o, int argc, char **argv, char *dir, size_t dirlen);
/* Print "jobmix run: <message>" to stderr; returns JM_EXIT_USAGE. */
int run_bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* 0, -1 after --help (exit 0), or an exit code. */
int run_parse_args(int argc, char **argv, struct run_opts *o);
#endif
