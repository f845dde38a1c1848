/* SPDX-License-Identifier: GPL-2.0-only */
/* `jobmix run`'s options: parsed apart from the run itself. */
#ifndef JOBMIX_CLI_RUN_OPTS_H
#define JOBMIX_CLI_RUN_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "jobmix/results.h"
#include "jobmix/workload.h"
#include "progress.h"

#define MAX_DIRS 64
#define MAX_LABELS 32

struct run_opts {
	const char *workload;
	const char *users;        /* -u SPEC */
	const char *mode;         /* -m */
	const char *outdir;
	const char *dirs[MAX_DIRS];
	size_t ndirs;
	struct res_label labels[MAX_LABELS];
	size_t nlabels;
	long jobs;                /* -j, 0 = workload's */
	const char *repeat;       /* -r N | auto */
	const char *seed, *sync, *measure, *duration, *timeout, *reap_timeout;
	const char *max_users, *max_points, *max_time;
	bool threads;
	int verbosity;            /* -1 quiet, 0 normal, 1 verbose */
	enum prog_style progress;
	const char *scheds;       /* -s LIST | all: an A/B */
	const char *devices;      /* --device LIST */
	bool sequential;          /* --order sequential */
	bool order_given;         /* --order fair|sequential (an A/B's order) */
	const char *points;       /* --order ascending|descending|shuffle (a linear list's) */
	bool no_settle, no_warmup, drop_caches;
	const char *settle_timeout;
	unsigned rounds;          /* --rounds, 1 by default */
};

/* Print "jobmix run: <message>" to stderr; returns JM_EXIT_USAGE. */
int run_bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* 0, -1 after --help (exit 0), or an exit code. */
int run_parse_args(int argc, char **argv, struct run_opts *o);
/* Command-line overrides on top of the loaded workload; 0 or an exit code. */
int run_apply_overrides(const struct run_opts *o, struct workload *wl);
/* The user counts of a linear ramp: -u, or the workload's start..end/step; 0 or an exit code. */
int run_linear_list(const struct run_opts *o, const struct workload *wl, unsigned **list,
		    size_t *n);

#endif
