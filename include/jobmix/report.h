/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Reports: run records (results.h) into the classic comparison table, one
 * per workload and fingerprint, rows grouped by --by keys (default kernel,
 * scheduler), repeats folded into mean +- sd, marks by a statistical test;
 * the nightly comparison of a baseline against a candidate; and the curves
 * a chart draws.  Pure: no forking, no /sys, no files but the FILE * it is
 * given.
 *
 * Comparable runs only.  Runs are folded and tested against each other only
 * when their fingerprints (what a load point was: the mix as run, jobs per
 * user, sync, measure mode, users as processes or threads, ramp mode; see
 * results.h) agree, apart from the --by keys and the --allow-diff keys; an
 * A/B session is a table of its own unless --by or --allow-diff names
 * "session".  Runs that are not complete (failed, interrupted, running)
 * are shown but neither folded into a row's figures nor tested while the
 * row has a complete run.
 *
 * Tests, on the log scale (so intervals of JPM and of a change never go
 * below zero): a row's geometric mean against its reference's, with the
 * first rule that has a measured noise:
 *   'p'  the same A/B session with >= 2 rounds on both rows: the rounds
 *        paired (the log ratio per round), tested sequentially: the
 *        always-valid confidence sequence and p-value of stats_seq_test,
 *        so that rounds may be added until it decides (run
 *        --until-decided) without raising the false-alarm rate;
 *   't'  >= 2 runs a side: Welch's t on log values;
 *   'o'  one side a single run, the other >= 2: the other side's spread
 *        for both (t with its n - 1 df);
 *   'z'  the runs measured their noise (summary.noise_sd_rel from repeats,
 *        noise_df > 0): t = log ratio over that noise, df the noise's;
 *   none: untested ("n=1, noise not measured"): no mark, no p-value.
 * Each tested metric gets one of four verdicts: worse / better (p < alpha,
 * Holm-adjusted over the table or the night, and a change of at least the
 * threshold), same (the 95% interval of the change inside +-threshold: an
 * equivalence claim), or inconclusive (neither), with how many runs a side
 * would decide it at the measured noise.
 */
#ifndef JOBMIX_REPORT_H
#define JOBMIX_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "jobmix/results.h"

#define REP_MAX_KEYS 6
#define REP_MAX_ALLOW 32
#define REP_MAX_METRICS 16
#define REP_THRESHOLD_DEFAULT 0.02     /* relative change below which nothing is marked */
#define REP_ALPHA 0.05
#define REP_MARK_WORSE "****"
#define REP_MARK_BETTER "++++"

/* A --metric parsed: the metric and its ENTRY (or dev. NAME) part, "" for none or every. */
struct rep_metric_sel {
	const struct rep_metric *m;
	char entry[64];
};

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
	bool wide;                      /* text: a row and a note a line, however long (--wide);
					 * else folded to REP_TEXT_COLS */
	const char *allow_diff[REP_MAX_ALLOW];  /* fingerprint keys that may differ (--allow-diff) */
	size_t nallow;
	const char *const *skipped;     /* paths that could not be read, with why ("path: why") */
	size_t nskipped;
	const char *metric[REP_MAX_METRICS];   /* --metric names (rep_metric_parse); none: jpm */
	struct rep_metric_sel msel[REP_MAX_METRICS];  /* metric[i] parsed once, at the edge
						      * (rep_opts_add_metric); .m NULL: by
						      * name only, parsed by rep_opts_resolve */
	size_t nmetric;
	const char *cols[REP_MAX_KEYS]; /* --cols: keys whose values become columns; also the
					 * pseudo-keys "entry" and "metric" */
	size_t ncols;
	const char *ref;                /* --ref KEY=VALUE: the reference of the marks; NULL: the
					 * first value of the last --by key */
	bool evidence;                  /* compare: what else changed for every group (--evidence) */
	const char *series_order;       /* plot --trend --order: the label a trend is ordered
					 * and grouped by; NULL: the day each run started */
};

/* ---- metrics (metric.c) ------------------------------------------------------ */

enum rep_msrc {
	REP_MS_JPM,                     /* the Peak Load figure (rep_run_metric) */
	REP_MS_POINT,                   /* a field of the point (res_point_fields) */
	REP_MS_ENTRY,                   /* a field of a mix entry at the point (res_kind_fields) */
	REP_MS_DEV,                     /* a field of the scheduling device (res_dev_fields) */
};

/* One metric as --metric names it, from one row of a field table of the results schema. */
struct rep_metric {
	const char *name;               /* "elapsed", "read_mb_s" (ENTRY.read_mb_s), "dev.iops" */
	enum rep_msrc src;
	const char *field;              /* the schema key it reads; NULL for jpm */
	const char *unit;               /* "JPM", "s", "MB/s", "ops/s", "ms", "%" */
	bool higher_better;
	bool rate;                      /* work over time: repeats fold by the harmonic mean */
	double scale;                   /* the recorded value times this (0: 1) */
	const char *doc;
	/*
	 * A percentile of the entry's latency (0.5, 0.99; 0: none): samples,
	 * runs and rows fold by merging their histograms (res_hist) and reading
	 * the percentile off the sum, never by averaging percentiles.
	 */
	double quantile;
};

/*
 * Which parts of each run o's figures need (res_runs.h): JPM's Peak Load and
 * Quick Convergence, the change points and the evidence (rep_run_project)
 * none; a point's or device's metric the points at the peak
 * (RES_RUNS_PEAK: a run's figure is measured at its peak's user count); a
 * mix entry's metric and the device columns every point (RES_RUNS_POINTS).
 */
unsigned rep_opts_parts(const struct rep_opts *o);

/*
 * res_runs_load_parts' project hook: what evidence (rep_evidence_between)
 * takes from a run's points, into r->proj, for a read without them.
 */
void rep_run_project(struct res_rec *r, void *arg);

/* Every metric, ended by a row whose name is NULL. */
extern const struct rep_metric rep_metrics[];

/* One metric of one mix entry (or of no entry): a column of a pivoted table. */
struct rep_measure {
	const struct rep_metric *m;
	char entry[64];                 /* the entry's name or kind ("" for none) */
	char name[160];                 /* as --metric names it: "w1.write_mb_s" */
	size_t metric_ix, entry_ix;     /* which --metric, which entry (ranks for --cols) */
	unsigned proj;                  /* 1 + its place in a run's proj (rep_run_project); 0 none */
};

/*
 * A --metric name: "jpm", "elapsed", "cpu.user", "dev.iops", "ENTRY.read_mb_s"
 * or "read_mb_s" (every entry).  *m the metric, entry the ENTRY part ("" for
 * none or every).  -1 with err (naming the known ones) for anything else.
 */
int rep_metric_parse(const char *name, const struct rep_metric **m, char *entry, size_t elen,
		     char *err, size_t errlen);
/*
 * The command line's --metric NAME, parsed once into o->msel: 0, or -1 with
 * err (more than REP_MAX_METRICS, or rep_metric_parse's).
 */
int rep_opts_add_metric(struct rep_opts *o, const char *name, char *err, size_t errlen);
/* Parse the metrics o holds by name only (a caller that set o->metric[]): 0 or -1 with err. */
int rep_opts_resolve(struct rep_opts *o, char *err, size_t errlen);
/* Every metric, with its unit, direction, fold and meaning (jobmix report --metrics). */
int rep_metrics_render(FILE *f);
/*
 * Every metric's name, from rep_metrics[], grouped as help and messages
 * show them ("jpm, elapsed, cpu.user|sys, ENTRY.reads_s|...|extents,
 * dev[.DEVICE].iops|..., mem.cache_hit_pct|..."; brief: each group as
 * "cpu.*"), into buf: the length it needed (truncated when >= len).
 * Anything that lists the metrics takes them from here.
 */
size_t rep_metric_names(char *buf, size_t len, bool brief);
/*
 * A run's value of a measure at the point(s) of its Peak Load (the run's
 * only user count for a single-point run): each point that did not fail
 * there, folded (the harmonic mean for a rate, else the mean).  *users
 * where; false when the run has none.
 */
bool rep_run_measure(const struct res_rec *r, const struct rep_measure *ms, double *v,
		     unsigned *users);

/* One metric of a row (or of a compare side) over its runs. */
struct rep_value {
	unsigned n;                     /* values (runs, or for jpm@N runs at N) */
	/*
	 * The one centre shown (docs/reports.md, "One centre"): the geometric
	 * mean when every value is positive, else the arithmetic mean (a
	 * percentile: of the runs' merged histograms); NAN when n == 0.  sd:
	 * the arithmetic sd (NAN when n < 2), shown only about an arithmetic centre.
	 */
	double mean, sd;
	double amean;                   /* arithmetic mean (a percentile: as mean); compare's base_mean */
	double gmean;                   /* geometric mean, what is tested; NAN: a value not positive */
	double gsd;                     /* the spread about gmean as a factor (x/÷), exp(sd of the
					 * logs); NAN when n < 2 or gmean is NAN */
	double noise;                   /* rms of the runs' measured relative noise; NAN: none measured */
	double noise_df;                /* its degrees of freedom (summed over the runs) */
	double reps;                    /* samples behind the n values (the noise rule's count) */
	unsigned users_lo, users_hi;    /* users where it was found (0 when none) */
	bool not_established;           /* some run's peak was not established */
	bool incomplete_only;           /* no complete run had it: the values are of incomplete runs */
	double *x;                      /* the n values, owned */
	unsigned *round;                /* per value its A/B round, or NULL when not one session */
	const char *session;            /* the A/B session all values come from, or NULL; borrowed */
};

enum rep_mark { REP_UNTESTED, REP_SAME, REP_WORSE, REP_BETTER, REP_INCONCLUSIVE };

struct rep_test {
	enum rep_mark mark;
	char rule;                      /* 'p', 't', 'o', 'z', or 0 when untested */
	size_t ref;                     /* the row it was compared with */
	double change;                  /* ratio of geometric means less 1 (row over ref) */
	double lo, hi;                  /* 95% interval of change (NAN when untested) */
	double stat, df, p;             /* t, its degrees of freedom, two-sided p-value */
	double p_adj;                   /* Holm-adjusted p (over the table, or the night) */
	double sd_log;                  /* the noise the test used: sd of one log value */
	unsigned pairs;                 /* rule 'p': rounds paired */
	unsigned need;                  /* inconclusive: runs (rounds) MORE a side that would decide
					 * it, at least 1; 0 unknown */
	unsigned seq_need;              /* rule 'p': the confidence sequence's need (stats_seq) */
	unsigned nmin;                  /* values on the smaller side */
	const char *why;                /* untested: why (a literal) */
};

/* "untested", "same", "worse", "better", "inconclusive". */
const char *rep_mark_name(enum rep_mark m);

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
	char status[96];                /* "" when every run is complete, else e.g. "1 interrupted" */
	struct rep_value peak, qc;
	struct rep_test tpeak, tqc;
	bool is_ref;                    /* another row was compared with this one */
	struct rep_dev dev;
};

/* One cell of a pivoted table: a measure over the runs of a row that match a column. */
struct rep_cell {
	struct rep_value v;
	struct rep_test t;
	bool compared, is_ref;          /* tested against t.ref's row, ref_col; a reference */
	size_t ref_col;
};

/* A column of a pivoted table: values of the --cols run keys and a measure. */
struct rep_col {
	const char *key[REP_MAX_KEYS];  /* the --cols run keys' values (borrowed), in ckey order */
	size_t measure;                 /* into rep_report.measure */
	char title[192];                /* "read", "w1 write_mb_s" */
};

/*
 * A table in the experiment's shape (--metric other than jpm, or --cols):
 * rows as rep_table's, columns the --cols values times the measures.
 */
struct rep_pivot {
	struct rep_col *col;
	size_t ncol;
	struct rep_cell *cell;          /* nrow * ncol, row major */
};

struct rep_table {
	const char *workload;           /* borrowed from the runs */
	const struct res_rec *fp;       /* a run whose fingerprint stands for the table; borrowed */
	char differs[768];              /* this table's values of what tells it from the workload's
					 * other tables ("users.jobs_per_user 20, sync none"); "" */
	char others[1024];              /* those keys with every table's values ("sync file vs none") */
	struct rep_row *row;
	size_t nrow;
	unsigned rounds;                /* one A/B session: rounds of it; 0 otherwise */
	struct rep_pivot *pv;           /* the pivoted table, or NULL (the classic JPM table) */
	const char *ref_value;          /* the reference's value of rep_report.ref_key here */
};

/* A change summarised over the workloads' tables: mmtests' Gmean of the ratios. */
struct rep_gmean {
	char label[256];                /* the row (report: its keys; compare: the metric) */
	char col[192];                  /* the column ("" for the classic table's Peak Load) */
	size_t n;                       /* ratios folded */
	double ratio, lo, hi;           /* geometric mean of the ratios, its 95% interval */
	bool lower_better;
};

struct rep_report {
	struct rep_opts opts;           /* as resolved (by filled in, threshold, alpha) */
	const struct res_rec *runs;     /* borrowed */
	size_t nruns;
	struct rep_table *table;
	size_t ntable;
	const char *ckey[REP_MAX_KEYS]; /* the --cols keys that are run keys (not entry, metric) */
	size_t nckey;
	struct rep_measure *measure;    /* what the tables show (pivoted) */
	size_t nmeasure;
	bool pivot;                     /* tables are pivoted */
	char ref_key[64];               /* the reference: --ref KEY=VALUE, or the default's */
	char ref_value[192];
	struct rep_gmean *gm;           /* across >= 2 tables, one per compared row and column */
	size_t ngm;
};

/*
 * Group runs into one table per workload and fingerprint and rows by the
 * --by keys, fold repeats, test each row against its reference.  A
 * --baseline that matches no run and a --by key that no run has are
 * errors (err names them).  0 or -1.
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

/* One compared figure of a report and its verdict (rep_verdicts). */
struct rep_verdict_item {
	char what[320];                 /* "bfq Peak Load", "fileio.ops=125 rw.iops" */
	enum rep_mark mark;
	char rule;                      /* 0: untested */
	double change;
	unsigned need;                  /* inconclusive: more runs (rounds) a side, 0 unknown */
};

/*
 * Every figure of r compared with its reference (the classic table's Peak
 * Load and Quick Convergence, a pivoted table's cells), at most max into
 * out; the number there is, which may exceed max.  What run
 * --until-decided waits on.
 */
size_t rep_verdicts(const struct rep_report *r, struct rep_verdict_item *out, size_t max);

enum rep_format { REP_TEXT, REP_MD, REP_CSV, REP_JSON, REP_HTML };
/*
 * Text tables and their notes fit this many columns (mail, a terminal):
 * a wider table is folded into parts that repeat its leading columns,
 * notes wrap; --wide keeps a row and a note on one line.
 */
#define REP_TEXT_COLS 100
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
	unsigned n;                     /* runs measured at users */
	unsigned samples;               /* JPM samples behind them */
	/*
	 * The one centre (docs/reports.md): one run's mean of its samples (its
	 * point, as run.json has it); over runs the geometric mean of their
	 * points.  lo, hi: the spread drawn, mean +- sd of one run's samples,
	 * mean x/÷ factor over runs; NAN when there is none.
	 */
	double mean, lo, hi;
};

struct rep_series {
	char label[256];                /* the row's keys; a tested row's peak change and its
					 * interval; "(incomplete runs)" when drawn from them */
	struct rep_curve_pt *pt;        /* ascending users, owned */
	size_t npt;
	unsigned peak_users, qc_users;  /* 0 when none */
	double peak_jpm, qc_jpm;        /* the curve's mean at those users; NAN when none */
	bool incomplete;                /* no run of the row is complete: drawn from the others */
};

/*
 * Table t's rows as JPM-against-users curves over the runs the table
 * counts (the complete ones; all, marked incomplete, when none is):
 * per user count each run's point (failed points left out), folded by
 * the one centre.  The peak mark is a point of the curve: the user count
 * most of those runs name as their peak (ties: the higher curve), the
 * curve's value there; the quick convergence alike.  0 or -1.
 */
int rep_series(const struct rep_report *r, size_t t, struct rep_series **out, size_t *n);
void rep_series_free(struct rep_series *s, size_t n);

/* ---- the nightly comparison ------------------------------------------------- */

struct rep_cmp_row {
	const char *workload;           /* borrowed */
	char group[256];                /* the --by values, "key=value ..."; "" without --by */
	char metric[160];               /* "peak", "qc", "jpm@N", or a --metric's ("rw.iops") */
	bool lower_better;              /* the metric's direction (elapsed, latencies) */
	unsigned users;                 /* for jpm@N */
	unsigned na, nb;
	double mean_a, mean_b, sd_a, sd_b;
	/*
	 * The centres the change is computed from: each side's geometric mean
	 * and its spread as a factor, exp(sd of the logs) (shown "7647 ×/÷
	 * 1.35"); NAN when a value is not positive (mean ± sd shown instead),
	 * the factor NAN for one value.
	 */
	double gmean_a, gmean_b, gf_a, gf_b;
	struct rep_test t;              /* the candidate against the baseline */
};

/* Evidence that is missing: a run that is not complete, or a group on one side only. */
struct rep_cmp_gap {
	char side;                      /* 'a' baseline, 'b' candidate */
	char what[768];
};

/*
 * What else changed between the sides of a group (lkp's "changed monitor
 * metrics"): an evidence metric (the device's, the machine's, the page
 * cache's) whose values differ beyond their noise, p < alpha unadjusted
 * (it explains, it is no verdict) and by at least the threshold (percent
 * metrics: 1 point).
 */
struct rep_cmp_ev {
	size_t group;                   /* into rep_cmp.evg */
	char metric[64];
	const char *unit;               /* borrowed (rep_metrics) */
	bool points;                    /* a percentage: its change in points, b - a */
	double base, cand;              /* the sides' means */
	double change;                  /* cand / base - 1 (NAN when base is 0) */
	double p;                       /* Holm-adjusted over the group's tested metrics */
	double size;                    /* what it is ranked by: |ln ratio| (points: of +1's) */
};

/* A compared group's evidence: looked at, testable, changed (evs [first, first + n)). */
struct rep_cmp_evg {
	const char *workload;           /* borrowed */
	char group[256];
	size_t looked, tested, first, n;
};

struct rep_cmp {
	struct rep_cmp_row *row;
	size_t nrow;
	struct rep_cmp_ev *ev;
	size_t nev, evcap;
	struct rep_cmp_evg *evg;
	size_t nevg, evgcap;
	bool evidence_all;              /* --evidence: shown for every group */
	bool wide;                      /* text: a row and a note a line (--wide) */
	struct rep_cmp_gap *gap;
	size_t ngap;
	double threshold, alpha;
	size_t count[5];                /* rows per enum rep_mark */
	size_t worse, better;           /* = count[REP_WORSE], count[REP_BETTER] */
	struct rep_gmean *gm;           /* per --by group and metric over >= 2 workloads */
	size_t ngm;
	/* busy host: samples discarded and points kept flagged, baseline [0] and candidate [1] */
	unsigned remeasured[2], interfered[2];
};

/*
 * Baseline runs a[] against candidate runs b[]: per workload, fingerprint
 * and --by group present on both sides, peak, quick convergence, and JPM
 * at every user count measured on both, complete runs only; with --metric
 * (other than jpm alone) each measure instead (rep_run_measure), marked by
 * its direction.  The geometric mean of the candidate/baseline ratios of
 * each group and metric over the workloads (>= 2) in gm[].  p-values
 * Holm-adjusted over every tested row.  Runs that are not complete and
 * groups on one side only are listed in gap[].  Refused (-1, err says
 * why, naming every key): fingerprints that differ between the sides
 * beyond o->allow_diff, or one side folding runs of different kernels or
 * schedulers that --by does not separate.
 */
int rep_compare(const struct res_rec *a, size_t na, const struct res_rec *b, size_t nb,
		const struct rep_opts *o, struct rep_cmp *out, char *err, size_t errlen);
void rep_cmp_free(struct rep_cmp *c);
int rep_cmp_render(FILE *f, const struct rep_cmp *c, enum rep_format fmt);

/* A change as a signed percentage: "+1.4", "-19.2", beyond 1000% "+1.42e+06". */
void rep_pct(char *buf, size_t len, double change);
#define REP_CI_CAP 100.0   /* interval bounds beyond x/÷ this are shown as unbounded */
/* An interval's bound as rep_pct prints it; beyond x/÷ REP_CI_CAP "<-99.0" or ">+9900". */
void rep_pct_bound(char *buf, size_t len, double bound);

#endif
