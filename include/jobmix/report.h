/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Reports: run records (results.h) into the classic comparison table, one
 * per workload, rows grouped by --by keys (default kernel, scheduler),
 * repeats folded into mean +- sd, marks by a statistical test; the nightly
 * comparison of a baseline against a candidate; and the curves a chart
 * draws.  Pure: no forking, no /sys, no files but the FILE * it is given.
 *
 * Marks.  A row is compared with its reference row (default: the first row
 * of its outer group, i.e. within each kernel the first scheduler;
 * --baseline SELECTOR: the baseline's row with the same last key).  Each
 * metric (Peak Load, Quick Convergence) is tested on its own:
 *   rule 't'  both sides have >= 2 runs: Welch's t-test, p < alpha;
 *   rule 'z'  a side has a single run: the gap over its standard error
 *             from the noise both runs measured (summary.noise_sd_rel, or
 *             REP_NOISE_DEFAULT when a run measured none),
 *             z = (b - a) / sqrt(sa^2 + sb^2), p = 2(1 - Phi(|z|)) < alpha;
 * and in both cases |change| >= threshold.  Worse: `****`; better: `++++`.
 */
#ifndef JOBMIX_REPORT_H
#define JOBMIX_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "jobmix/results.h"

#define REP_MAX_KEYS 6
#define REP_THRESHOLD_DEFAULT 0.02     /* relative change below which nothing is marked */
#define REP_ALPHA 0.05
#define REP_NOISE_DEFAULT 0.05         /* relative sd of one sample when a run measured none */
#define REP_MARK_WORSE "****"
#define REP_MARK_BETTER "++++"

struct rep_opts {
	const char *by[REP_MAX_KEYS];   /* grouping keys; none given: kernel, scheduler */
	size_t nby;
	const char *workload;           /* only this workload; NULL: every workload */
	bool qc_max;                    /* Quick Convergence as re-aim's -q: summary.max_jpm */
	const char *const *order;       /* order of the last key's values (--sched-order) */
	size_t norder;
	const char *baseline;           /* a run id or KEY=VALUE; NULL: first row of each group */
	double threshold;               /* 0: REP_THRESHOLD_DEFAULT */
	double alpha;                   /* 0: REP_ALPHA */
	bool device_stats;              /* device-statistics columns (--device-stats) */
};

/* One metric of a row over its runs. */
struct rep_value {
	unsigned n;                     /* runs that have the value */
	double mean, sd;                /* NAN when n == 0; sd NAN when n < 2 */
	double noise;                   /* relative sd of one sample used by rule 'z' */
	unsigned users_lo, users_hi;    /* users where it was found (0 when none) */
	bool not_established;           /* some run's peak was not established */
	double *x;                      /* the n values, owned */
};

enum rep_mark { REP_UNTESTED, REP_SAME, REP_WORSE, REP_BETTER };

struct rep_test {
	enum rep_mark mark;
	char rule;                      /* 't', 'z', or 0 when untested */
	size_t ref;                     /* the row it was compared with */
	double change;                  /* (row - ref) / ref */
	double stat, df, p;             /* t or z, Welch's df (0 for z), p-value */
};

/*
 * What the scheduling device did over every point of a row's runs (schema 2
 * points[].devices): the device an A/B switched (sched.devices), else
 * env.device.  Sums over the points' windows, then rates; NAN when no point
 * recorded the device.
 */
struct rep_dev {
	char device[32];                /* "" when none */
	unsigned points;                /* points that recorded it */
	double iops, mb_s, req_kib, merge_ratio, util, qdepth;
};

struct rep_row {
	const char *key[REP_MAX_KEYS];  /* the --by values ("-" when a run has none); borrowed */
	size_t *run;                    /* indices into the runs given to rep_build */
	size_t nrun;
	char id[192];                   /* Run ID: the run's id, or the first one and "+N" */
	char status[64];                /* "" when every run is complete, else e.g. "1 interrupted" */
	struct rep_value peak, qc;
	struct rep_test tpeak, tqc;
	bool is_ref;                    /* another row was compared with this one */
	struct rep_dev dev;
};

struct rep_table {
	const char *workload;           /* borrowed from the runs */
	struct rep_row *row;
	size_t nrow;
};

struct rep_report {
	struct rep_opts opts;           /* as resolved (by filled in, threshold, alpha) */
	const struct res_rec *runs;     /* borrowed */
	size_t nruns;
	struct rep_table *table;
	size_t ntable;
};

/*
 * Group runs into one table per workload and rows by the --by keys, fold
 * repeats, test each row against its reference.  A --baseline that matches
 * no run is an error (err names it).  0 or -1.
 */
int rep_build(const struct res_rec *runs, size_t nruns, const struct rep_opts *o,
	      struct rep_report *out, char *err, size_t errlen);
void rep_free(struct rep_report *r);

/*
 * One run's figure as the table takes it: Peak Load (qc false) is the
 * ramp's peak, else its best point (*not_established then true); Quick
 * Convergence is converge_jpm, or with qc_max the ramp's maximum
 * (summary.max_jpm, re-aim's -q).  *users where it was found; false when
 * the run has no such figure.
 */
bool rep_run_metric(const struct res_rec *r, bool qc, bool qc_max, double *v, unsigned *users,
		    bool *not_established);

/* Does run r match a selector (a run id, or KEY=VALUE on res_rec_get)? */
bool rep_match(const struct res_rec *r, const char *selector);

enum rep_format { REP_TEXT, REP_MD, REP_CSV, REP_JSON, REP_HTML };
/* "text", "md", "csv", "json", "html"; -1 for anything else. */
int rep_format_parse(const char *s, enum rep_format *out);

/*
 * Write the report.  For html, svg[i] (may be NULL, or NULL entries) is
 * table i's chart as an SVG document, inlined after the table.  0 or -1
 * (a write error).
 */
int rep_render(FILE *f, const struct rep_report *r, enum rep_format fmt, const char *const *svg);

/* ---- curves for charts --------------------------------------------------- */

struct rep_curve_pt {
	unsigned users;
	unsigned n;                     /* samples pooled over the row's runs */
	double mean, sd;                /* sd NAN when n < 2 */
};

struct rep_series {
	char label[256];                /* the row's keys, "kernel / scheduler" */
	struct rep_curve_pt *pt;        /* ascending users, owned */
	size_t npt;
	unsigned peak_users, qc_users;  /* 0 when none */
	double peak_jpm, qc_jpm;        /* NAN when none */
};

/*
 * Table t's rows as JPM-against-users curves: every sample of every run
 * of a row at each user count pooled (failed points left out).  0 or -1.
 */
int rep_series(const struct rep_report *r, size_t t, struct rep_series **out, size_t *n);
void rep_series_free(struct rep_series *s, size_t n);

/* ---- the nightly comparison ------------------------------------------------- */

enum rep_verdict { REP_V_SAME, REP_V_WORSE, REP_V_BETTER, REP_V_UNTESTED };

struct rep_cmp_row {
	const char *workload;           /* borrowed */
	char metric[32];                /* "peak", "qc", or "jpm@N" */
	unsigned users;                 /* for jpm@N */
	unsigned na, nb;
	double mean_a, mean_b, sd_a, sd_b;
	double change;                  /* (b - a) / a */
	char rule;                      /* 't', 'z' or 0 */
	double p, p_adj;                /* p-value, Holm-adjusted over every row */
	enum rep_verdict verdict;
};

struct rep_cmp {
	struct rep_cmp_row *row;
	size_t nrow;
	double threshold, alpha;
	size_t worse, better;           /* rows with those verdicts */
};

/*
 * Baseline runs a[] against candidate runs b[], per workload present on
 * both sides: peak, quick convergence, and JPM at every user count
 * measured on both.  Holm-adjusted p-values; a verdict is worse or better
 * only when p_adj < alpha and |change| >= threshold.  0 or -1.
 */
int rep_compare(const struct res_rec *a, size_t na, const struct res_rec *b, size_t nb,
		const struct rep_opts *o, struct rep_cmp *out, char *err, size_t errlen);
void rep_cmp_free(struct rep_cmp *c);
int rep_cmp_render(FILE *f, const struct rep_cmp *c, enum rep_format fmt);

#endif
