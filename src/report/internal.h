/* SPDX-License-Identifier: GPL-2.0-only */
/* Inside the report module: helpers the table, its renderers and compare share. */
#ifndef JOBMIX_REPORT_INTERNAL_H
#define JOBMIX_REPORT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "jobmix/report.h"
#include "jobmix/stats.h"

/* A run's value of a grouping key, "-" when it has none. */
const char *rep_key_value(const struct res_rec *r, const char *key);
/* Is the run's evidence whole: status complete with at least one point that did not fail? */
bool rep_run_complete(const struct res_rec *r);
/*
 * A run's figure of one of the evidence metrics compare lists (evidence.c:
 * "machine.other_pct", "psi.cpu.some", ...), read with or without its
 * points; false when it has none.
 */
bool rep_run_evidence(const struct res_rec *r, const char *name, double *v);
/* "failed", "interrupted", "running", "running, owner gone", "no point measured". */
const char *rep_run_state(const struct res_rec *r);
/*
 * Test b against its reference a (verdict.c): the rule, change, interval
 * and p-value; the mark is left for rep_verdict (after any adjustment).
 * Paired rounds are tested sequentially at threshold and alpha (0: the
 * defaults).
 */
void rep_test_values(const struct rep_value *a, const struct rep_value *b, double threshold,
		     double alpha, struct rep_test *t);
/* The verdict of a tested metric from its (adjusted) p-value; lower_better for latencies. */
void rep_verdict(struct rep_test *t, double p, double threshold, double alpha,
		 bool lower_better);
/* Holm over the n tests (p_adj), then each one's verdict. */
void rep_holm_tests(struct rep_test *const *t, size_t n, double threshold, double alpha,
		    bool lower_better);
/*
 * One metric (peak or qc) folded over n runs: the complete ones (all of
 * them, marked incomplete_only, when none is); val->x and val->round are
 * malloc'd.
 */
int rep_fold_runs(const struct res_rec *const *runs, size_t n, bool qc, bool qc_max,
		  struct rep_value *val);
/* The same for a measure (NULL: as rep_fold_runs); a rate's mean is the harmonic mean. */
int rep_fold_measure(const struct res_rec *const *runs, size_t n, bool qc, bool qc_max,
		     const struct rep_measure *ms, struct rep_value *val);
/*
 * Merge the latency histograms of run r's samples at its peak users for
 * entry measure ms into `into`; false when a sample has none (or none).
 */
bool rep_run_hist(const struct res_rec *r, const struct rep_measure *ms, struct stats_hist *into);
/* mean, sd and gmean of a value whose x[0..n) are filled. */
void rep_value_finish(struct rep_value *val);
void rep_value_free(struct rep_value *val);
/* A run's measured relative noise per sample and its degrees of freedom; NAN, 0 when none. */
double rep_run_noise(const struct res_rec *r, double *df);
/* Do a and b measure the same (fingerprint and session, apart from --by and --allow-diff)? */
bool rep_same_measure(const struct rep_opts *o, const struct res_rec *a, const struct res_rec *b);
/* Is every key one that some run answers (or a fixed one)?  -1 with err naming "what 'key'". */
int rep_check_keys(const struct res_rec *runs, size_t nruns, const char *const *keys, size_t n,
		   const char *what, char *err, size_t errlen);
/* What else changed between two sets of runs (evidence.c): at most every evidence metric. */
#define REP_MAX_EVIDENCE 32
struct rep_evidence {
	struct rep_cmp_ev ev[REP_MAX_EVIDENCE];   /* changed beyond the noise, largest first */
	size_t n, looked, tested;                 /* changed; with a value; testable */
};
/*
 * The evidence metrics whose values differ between a[] and b[] beyond their
 * noise (struct rep_cmp_ev's rule).  0, or -1 out of memory.
 */
int rep_evidence_between(const struct res_rec *const *a, size_t na,
			 const struct res_rec *const *b, size_t nb, const struct rep_opts *o,
			 struct rep_evidence *out);
/* One changed metric: "dev.kib_req +329.1% (4 -> 17.2 KiB)", "psi.io.full +17.8 points (...)". */
void rep_evidence_word(char *buf, size_t len, const struct rep_cmp_ev *e);
/*
 * Is a difference in key one that follows from another the caller names
 * instead: each entry's runs per user when the jobs per user differ?
 */
bool rep_diff_follows(const struct res_rec *a, const struct res_rec *b, const char *key);
/* "kernel / scheduler" values of a row. */
void rep_row_label(const struct rep_report *r, const struct rep_row *row, char *buf, size_t len);

/*
 * The device whose statistics stand for a run: the one its entries did their
 * I/O on (the first of several), else the first an A/B switched, else env.device.
 */
void rep_run_device(const struct res_rec *r, char *dev, size_t len);
/* The devices a point's entries did their I/O on, distinct, in entry order (at most max). */
size_t rep_point_devices(const struct res_point *p, const char **out, size_t max);
/*
 * The row row j of table t is tested against: the one with the reference's
 * value of its key (rep_report.ref_key) and j's values of the other --by
 * keys; j itself when the reference is not a --by key; -1 when no row has it.
 */
size_t rep_ref_row(const struct rep_report *rep, const struct rep_table *t, size_t j);
/* The measures of --metric into rep->measure (entries expanded).  0, or -1 with err. */
int rep_measures_build(struct rep_report *rep, char *err, size_t errlen);
/* Is k one of the --cols pseudo-keys "entry", "metric"? */
bool rep_is_pseudo(const char *k);
/* Build the pivoted tables of a report whose measures are set (pivot.c).  0 or -1 (memory). */
int rep_pivot_build(struct rep_report *rep);
void rep_pivot_free(struct rep_pivot *pv, size_t nrow);
/*
 * The runs of pivot cell (row j, column c) of table t into out[] (room for
 * the row's nrun); their number.
 */
size_t rep_cell_runs(const struct rep_report *rep, const struct rep_table *t, size_t j, size_t c,
		     const struct res_rec **out);
/* Do columns c and d of a pivot select the same runs (the same --cols values)? */
bool rep_cols_same_runs(const struct rep_report *rep, const struct rep_col *c,
			const struct rep_col *d);
/* The geometric means of the ratios across the report's tables (pivot.c).  0 or -1. */
int rep_gmean_build(struct rep_report *rep);
/* A value for a table cell: 3 significant digits or more ("841", "12.3", "0.0521"). */
void rep_fmt_val(char *buf, size_t len, double v);
/* The 95% interval of a mean of n log ratios from their tests (verdict.c); NAN when untestable. */
void rep_gmean_ci(const struct rep_test *const *t, size_t n, double *ratio, double *lo,
		  double *hi);
/* Holm over the tests, then each one's verdict by its own direction (lower[i]). */
void rep_holm_dir(struct rep_test *const *t, const bool *lower, size_t n, double threshold,
		  double alpha);

/* ---- text that fits a width (text.c) ------------------------------------ */

enum { REP_CELL = 128 };

/* A table's cells, the header its row 0; text.c writes it. */
struct rep_grid {
	size_t ncol, nrow;            /* nrow includes the header */
	char (*cell)[REP_CELL];       /* nrow * ncol */
	bool *numeric;                /* per column: right-aligned */
	size_t stub;                  /* leading columns a folded text table repeats (0: 1) */
	size_t group;                 /* columns after them kept together when folding (0: 1) */
};

#define CELL(g, r, c) ((g)->cell[(r) * (g)->ncol + (c)])

/*
 * Grid g as aligned text or (md) a Markdown table.  Text wider than width
 * (0: no limit) is folded into parts, each the stub columns and as many
 * of the rest (in their groups) as fit.  0, or -1 out of memory.
 */
int rep_text_grid(FILE *f, struct rep_grid *g, bool md, size_t width);

/*
 * text (escaped as ESC_TEXT) as lines of at most width columns (0: one
 * line), broken at spaces: the first after lead, the rest after cont.
 */
void rep_wrap(FILE *f, const char *text, size_t width, const char *lead, const char *cont);

#endif
