/* SPDX-License-Identifier: GPL-2.0-only */
/* Inside the report module: helpers the table, its renderers and compare share. */
#ifndef JOBMIX_REPORT_INTERNAL_H
#define JOBMIX_REPORT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "jobmix/report.h"

/* A run's value of a grouping key, "-" when it has none. */
const char *rep_key_value(const struct res_rec *r, const char *key);
/* Is the run's evidence whole: status complete with at least one point that did not fail? */
bool rep_run_complete(const struct res_rec *r);
/* "failed", "interrupted", "running", "running, owner gone", "no point measured". */
const char *rep_run_state(const struct res_rec *r);
/*
 * Test b against its reference a (verdict.c): the rule, change, interval
 * and p-value; the mark is left for rep_verdict (after any adjustment).
 */
void rep_test_values(const struct rep_value *a, const struct rep_value *b, struct rep_test *t);
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
/* A change as a signed percentage: "+1.4", "-19.2", beyond 1000% "+1.42e+06". */
void rep_pct(char *buf, size_t len, double change);
/*
 * Is a difference in key one that follows from another the caller names
 * instead: each entry's runs per user when the jobs per user differ?
 */
bool rep_diff_follows(const struct res_rec *a, const struct res_rec *b, const char *key);
/* "kernel / scheduler" values of a row. */
void rep_row_label(const struct rep_report *r, const struct rep_row *row, char *buf, size_t len);

#endif
